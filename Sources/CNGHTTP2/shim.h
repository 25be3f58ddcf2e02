// libnghttp2 (Debian libnghttp2-dev): HTTP/2 framing, HPACK and flow control for the gRPC transport.
#include <nghttp2/nghttp2.h>
