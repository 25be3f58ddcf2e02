#ifndef HEARTH_CCURL_SHIM_H
#define HEARTH_CCURL_SHIM_H
#include <curl/curl.h>
#endif
