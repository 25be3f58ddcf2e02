#ifndef HEARTH_CCURL_SHIM_H
#define HEARTH_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt is variadic; Swift needs one typed wrapper per argument kind. */
static inline CURLcode hearth_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hearth_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hearth_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hearth_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*hearth_curl_read_callback)(char *buffer, size_t size, size_t count, void *userdata);

static inline CURLcode hearth_curl_setopt_read_function(CURL *handle, hearth_curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
/* The same signature serves body and header data (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION). */
typedef size_t (*hearth_curl_write_callback)(char *buffer, size_t size, size_t count, void *userdata);

static inline CURLcode hearth_curl_setopt_write_function(CURL *handle, hearth_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode hearth_curl_setopt_header_function(CURL *handle, hearth_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

/* curl_easy_getinfo is variadic too. */
static inline CURLcode hearth_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
