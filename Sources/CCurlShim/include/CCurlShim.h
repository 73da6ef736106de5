#ifndef CCURLSHIM_H
#define CCURLSHIM_H
// libcurl for LocalCloud's remote store, loaded with dlopen at the first request.
//
// Nothing links libcurl: a process that never talks to a server (`foodpin --version`, an
// embedded container) does not load it or its ~30 dependencies. ccurl_perform opens
// libcurl.so.4 once, resolves the functions this file uses, and runs one request on a fresh
// easy handle that shares connections, DNS answers and TLS sessions with every other request
// of the process (HTTP keep-alive and connection reuse across threads).
//
// TLS verification is always on, against the system CA store; a request may add one more CA
// file (tests with a self-signed certificate), never switch verification off.

#include <stddef.h>
#include <stdint.h>

/// One HTTP request. Strings are NUL-terminated and only read during ccurl_perform.
typedef struct CCurlRequest {
    const char *method;                 // "GET", "POST"
    const char *url;
    const char *const *headers;         // "Name: value" lines
    int header_count;
    const uint8_t *body;                // NULL for no body
    size_t body_length;
    long connect_timeout_ms;            // TCP + TLS handshake
    long idle_timeout_s;                // abort when under 1 byte/s for this long; 0: never
    long total_timeout_ms;              // 0: no limit on the whole transfer
    const char *ca_file;                // an extra trusted CA bundle (PEM), or NULL
    size_t max_body_bytes;              // buffered mode: a longer body fails the request
    /// Streaming mode when set: each chunk of the body goes here instead of the buffer.
    /// Return 0 to stop the transfer (then `stopped` is 1).
    int (*on_data)(const char *data, size_t length, void *context);
    /// Asked about once a second and on every chunk; nonzero stops the transfer.
    int (*should_stop)(void *context);
    void *context;
} CCurlRequest;

/// What came back. Release with ccurl_response_free.
typedef struct CCurlResponse {
    long status;                        // the HTTP status, 0 when no response arrived
    int curl_code;                      // CURLcode: 0 when the exchange completed
    int stopped;                        // on_data or should_stop ended it
    int too_large;                      // the body exceeded max_body_bytes
    char error[256];                    // curl's reason when curl_code != 0
    char content_type[128];             // the final response's Content-Type, or ""
    char retry_after[64];               // the final response's Retry-After, or ""
    char date[64];                      // the final response's Date (the server's clock), or ""
    uint8_t *body;                      // buffered mode: the body (malloc'd), or NULL
    size_t body_length;
} CCurlResponse;

/// CURLcode values the caller classifies (the same numbers as curl.h).
enum {
    CCURL_OK = 0,
    CCURL_COULDNT_RESOLVE_PROXY = 5,
    CCURL_COULDNT_RESOLVE_HOST = 6,
    CCURL_COULDNT_CONNECT = 7,
    CCURL_WRITE_ERROR = 23,
    CCURL_OPERATION_TIMEDOUT = 28,
    CCURL_ABORTED_BY_CALLBACK = 42,
    CCURL_PEER_FAILED_VERIFICATION = 60,
};

/// Loads libcurl (once per process). 0 when usable; -2 with the reason in ccurl_load_error.
int ccurl_load(void);
/// Why ccurl_load failed, or NULL. Static text; do not free.
const char *ccurl_load_error(void);
/// libcurl's version text ("7.88.1"), or NULL before a successful load.
const char *ccurl_version(void);

/// Runs one request to completion (or until stopped). Always fills *response.
/// Thread-safe: any number of threads may call it at once.
void ccurl_perform(const CCurlRequest *request, CCurlResponse *response);
void ccurl_response_free(CCurlResponse *response);

#endif
