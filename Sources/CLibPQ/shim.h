// libpq's client header, found through pkg-config (Debian: /usr/include/postgresql).
#include <libpq-fe.h>
