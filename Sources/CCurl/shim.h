#ifndef TIDINGS_CCURL_SHIM_H
#define TIDINGS_CCURL_SHIM_H

#include <curl/curl.h>

/* libcurl's setopt/getinfo calls are variadic, which Swift cannot call; these typed wrappers are. */

static inline CURLcode tidings_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tidings_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tidings_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*tidings_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode tidings_easy_setopt_data_callback(
    CURL *handle, CURLoption option, tidings_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

typedef int (*tidings_curl_prereq_callback)(
    void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);

/* CURLOPT_PREREQFUNCTION (libcurl 7.80): called when a transfer has its connection and, on HTTP/2, its stream. */
static inline CURLcode tidings_easy_setopt_prereq_callback(CURL *handle, tidings_curl_prereq_callback callback) {
#if LIBCURL_VERSION_NUM >= 0x075000
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
#else
    (void)handle;
    (void)callback;
    return CURLE_UNKNOWN_OPTION;
#endif
}

static inline CURLcode tidings_easy_setopt_prereq_data(CURL *handle, void *context) {
#if LIBCURL_VERSION_NUM >= 0x075000
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, context);
#else
    (void)handle;
    (void)context;
    return CURLE_UNKNOWN_OPTION;
#endif
}

static inline CURLMcode tidings_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLcode tidings_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode tidings_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode tidings_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The runtime library's version as 0xXXYYZZ. */
static inline unsigned int tidings_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}

/* Macro-only constants, as typed values Swift can read. */
static const long TIDINGS_CURLPIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
static const long TIDINGS_CURL_HTTP_VERSION_1_1 = CURL_HTTP_VERSION_1_1;
static const long TIDINGS_CURL_HTTP_VERSION_2TLS = CURL_HTTP_VERSION_2TLS;
static const long TIDINGS_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
static const long TIDINGS_CURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
static const int TIDINGS_CURL_PREREQFUNC_OK = 0;

#endif
