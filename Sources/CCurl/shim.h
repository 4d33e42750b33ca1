// libcurl from Debian (libcurl4-openssl-dev). curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: these typed wrappers pass one argument of each kind.
#include <curl/curl.h>

static inline CURLcode lookd_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode lookd_curl_set_pointer(CURL *curl, CURLoption option, const void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode lookd_curl_set_size(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*lookd_curl_write_callback)(char *, size_t, size_t, void *);
static inline CURLcode lookd_curl_set_write(CURL *curl, lookd_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode lookd_curl_set_header(CURL *curl, lookd_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}
static inline long lookd_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
typedef int (*lookd_curl_progress_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode lookd_curl_set_progress(CURL *curl, lookd_curl_progress_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline curl_off_t lookd_curl_content_length(CURL *curl) {
    curl_off_t length = -1;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}
