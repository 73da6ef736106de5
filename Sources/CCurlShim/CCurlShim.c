// libcurl's own header gives every function its exact type; nothing here links libcurl.
// lib holds one pointer per function, filled by dlsym at the first request (load_library, once).
// The type-checking macros would expand lib.curl_easy_setopt(...) as a macro call.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include "CCurlShim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_version_info) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_slist_append) X(curl_slist_free_all) \
    X(curl_share_init) X(curl_share_setopt) X(curl_easy_strerror) X(curl_easy_reset)

#define MEMBER(name) __typeof__(&name) name;
static struct {
    CURL_FUNCTIONS(MEMBER)
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;
/// DNS answers and TLS sessions, shared by every easy handle of the process. Not connections:
/// libcurl does not support one connection cache used by concurrent threads (CURLSHOPT_SHARE's
/// CURL_LOCK_DATA_CONNECT), and a screen runs its event stream, a refresh and uploads at once.
static CURLSH *share;

/// Easy handles between requests, each keeping its own live connections (curl_easy_reset keeps
/// them): a request takes one, so a connection is only ever used by the thread holding its handle.
/// A request takes the handle last used for its origin, so requests one after another to a server
/// reuse one kept-alive connection. A process talking to many servers at once (a test suite) keeps
/// a few handles for each, so one server's traffic does not push out another's kept-alive handle.
#define IDLE_HANDLES_MAX 64
#define IDLE_HANDLES_PER_ORIGIN 4
#define ORIGIN_MAX 256
typedef struct IdleHandle {
    CURL *easy;
    char origin[ORIGIN_MAX];
} IdleHandle;
/// Oldest first.
static IdleHandle idle_handles[IDLE_HANDLES_MAX];
static int idle_count;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
/// One lock per kind of shared data, as CURLOPT_LOCKFUNCTION asks.
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];

static void lock_share(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)access; (void)user;
    pthread_mutex_lock(&share_locks[data]);
}

static void unlock_share(CURL *handle, curl_lock_data data, void *user) {
    (void)handle; (void)user;
    pthread_mutex_unlock(&share_locks[data]);
}

#define RESOLVE(name) \
    if (ok && !(lib.name = (__typeof__(lib.name))dlsym(handle, #name))) { \
        snprintf(load_error, sizeof(load_error), "libcurl.so.4 has no %s", #name); \
        ok = 0; \
    }

static void load_library(void) {
    void *handle = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof(load_error), "cannot load libcurl.so.4: %s", dlerror());
        return;
    }
    int ok = 1;
    CURL_FUNCTIONS(RESOLVE)
    if (!ok) {
        return;
    }
    if (lib.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof(load_error), "curl_global_init failed");
        return;
    }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) {
        pthread_mutex_init(&share_locks[i], NULL);
    }
    share = lib.curl_share_init();
    if (!share) {
        snprintf(load_error, sizeof(load_error), "curl_share_init failed");
        return;
    }
    lib.curl_share_setopt(share, CURLSHOPT_LOCKFUNC, lock_share);
    lib.curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, unlock_share);
    lib.curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    lib.curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    loaded = 1;
}

/// "scheme://host:port" of a URL: what a kept-alive connection can serve.
static void copy_origin(const char *url, char *out) {
    const char *scheme_end = strstr(url, "://");
    const char *path = scheme_end ? strchr(scheme_end + 3, '/') : NULL;
    size_t length = path ? (size_t)(path - url) : strlen(url);
    if (length >= ORIGIN_MAX) length = ORIGIN_MAX - 1;
    memcpy(out, url, length);
    out[length] = 0;
}

/// The idle handle last used for `origin`, or a new one attached to the share; NULL when curl
/// cannot make one.
static CURL *take_handle(const char *origin) {
    CURL *easy = NULL;
    pthread_mutex_lock(&idle_lock);
    for (int i = idle_count - 1; i >= 0; i--) {
        if (strcmp(idle_handles[i].origin, origin) == 0) {
            easy = idle_handles[i].easy;
            memmove(&idle_handles[i], &idle_handles[i + 1], (size_t)(idle_count - i - 1) * sizeof(IdleHandle));
            idle_count--;
            break;
        }
    }
    pthread_mutex_unlock(&idle_lock);
    if (!easy && (easy = lib.curl_easy_init())) {
        lib.curl_easy_setopt(easy, CURLOPT_SHARE, share);
    }
    return easy;
}

/// Forgets the request's options (pointers into its caller's frame) and keeps the handle, with
/// its connections and its share, for the next request to `origin`. To make room, the origin's
/// oldest idle handle goes when it has its share of them, else the oldest of all.
static void return_handle(CURL *easy, const char *origin) {
    lib.curl_easy_reset(easy);
    CURL *evicted = NULL;
    pthread_mutex_lock(&idle_lock);
    int same = 0, oldest_same = -1;
    for (int i = 0; i < idle_count; i++) {
        if (strcmp(idle_handles[i].origin, origin) == 0) {
            if (oldest_same < 0) oldest_same = i;
            same++;
        }
    }
    int victim = same >= IDLE_HANDLES_PER_ORIGIN ? oldest_same : (idle_count == IDLE_HANDLES_MAX ? 0 : -1);
    if (victim >= 0) {
        evicted = idle_handles[victim].easy;
        memmove(&idle_handles[victim], &idle_handles[victim + 1], (size_t)(idle_count - victim - 1) * sizeof(IdleHandle));
        idle_count--;
    }
    idle_handles[idle_count].easy = easy;
    snprintf(idle_handles[idle_count].origin, ORIGIN_MAX, "%s", origin);
    idle_count++;
    pthread_mutex_unlock(&idle_lock);
    if (evicted) {
        lib.curl_easy_cleanup(evicted);
    }
}

int ccurl_load(void) {
    pthread_once(&load_once, load_library);
    return loaded ? 0 : -2;
}

const char *ccurl_load_error(void) {
    return load_error[0] ? load_error : NULL;
}

const char *ccurl_version(void) {
    if (!loaded) {
        return NULL;
    }
    return lib.curl_version_info(CURLVERSION_NOW)->version;
}

/// The state one transfer's callbacks share.
typedef struct Transfer {
    const CCurlRequest *request;
    CCurlResponse *response;
    size_t capacity;
} Transfer;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    Transfer *transfer = user;
    size_t length = size * count;
    const CCurlRequest *request = transfer->request;
    CCurlResponse *response = transfer->response;
    if (request->on_data) {
        if ((request->should_stop && request->should_stop(request->context))
            || !request->on_data(data, length, request->context)) {
            response->stopped = 1;
            return 0;  // anything but `length` fails the transfer
        }
        return length;
    }
    if (response->body_length + length > request->max_body_bytes) {
        response->too_large = 1;
        return 0;  // anything but `length` fails the transfer
    }
    if (response->body_length + length > transfer->capacity) {
        size_t capacity = transfer->capacity ? transfer->capacity : 16384;
        while (capacity < response->body_length + length) {
            capacity *= 2;
        }
        uint8_t *grown = realloc(response->body, capacity);
        if (!grown) {
            response->too_large = 1;
            return 0;  // anything but `length` fails the transfer
        }
        response->body = grown;
        transfer->capacity = capacity;
    }
    memcpy(response->body + response->body_length, data, length);
    response->body_length += length;
    return length;
}

/// Copies a header's value (trimmed) when `line` is "name: value".
static void copy_header(const char *line, size_t length, const char *name, char *out, size_t out_size) {
    size_t name_length = strlen(name);
    if (length <= name_length || line[name_length] != ':' || strncasecmp(line, name, name_length) != 0) {
        return;
    }
    const char *value = line + name_length + 1;
    const char *end = line + length;
    while (value < end && (*value == ' ' || *value == '\t')) value++;
    while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    size_t value_length = (size_t)(end - value);
    if (value_length >= out_size) value_length = out_size - 1;
    memcpy(out, value, value_length);
    out[value_length] = 0;
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    Transfer *transfer = user;
    size_t length = size * count;
    CCurlResponse *response = transfer->response;
    if (length >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        // A new status line (after a 100 Continue or a redirect): forget the previous block.
        response->content_type[0] = 0;
        response->retry_after[0] = 0;
        response->date[0] = 0;
        const char *space = memchr(data, ' ', length);
        response->status = space ? strtol(space + 1, NULL, 10) : 0;
        return length;
    }
    copy_header(data, length, "Content-Type", response->content_type, sizeof(response->content_type));
    copy_header(data, length, "Retry-After", response->retry_after, sizeof(response->retry_after));
    copy_header(data, length, "Date", response->date, sizeof(response->date));
    return length;
}

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    Transfer *transfer = user;
    const CCurlRequest *request = transfer->request;
    if (request->should_stop && request->should_stop(request->context)) {
        transfer->response->stopped = 1;
        return 1;
    }
    return 0;
}

void ccurl_perform(const CCurlRequest *request, CCurlResponse *response) {
    memset(response, 0, sizeof(*response));
    if (ccurl_load()) {
        response->curl_code = CURLE_FAILED_INIT;
        snprintf(response->error, sizeof(response->error), "%s", load_error);
        return;
    }
    char origin[ORIGIN_MAX];
    copy_origin(request->url, origin);
    CURL *easy = take_handle(origin);
    if (!easy) {
        response->curl_code = CURLE_FAILED_INIT;
        snprintf(response->error, sizeof(response->error), "curl_easy_init failed");
        return;
    }
    Transfer transfer = { request, response, 0 };
    char error[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = NULL;
    int header_ok = 1;
    for (int i = 0; i < request->header_count && header_ok; i++) {
        struct curl_slist *appended = lib.curl_slist_append(headers, request->headers[i]);
        if (appended) headers = appended; else header_ok = 0;
    }
    // curl would otherwise send "Expect: 100-continue" for large bodies and wait for an answer.
    struct curl_slist *appended = header_ok ? lib.curl_slist_append(headers, "Expect:") : NULL;
    if (appended) headers = appended; else header_ok = 0;

    lib.curl_easy_setopt(easy, CURLOPT_URL, request->url);
    lib.curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    // Many threads use curl at once; the threaded resolver needs no signals, and sockets are
    // written with MSG_NOSIGNAL, so curl need not touch the process's SIGPIPE disposition.
    lib.curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    lib.curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    lib.curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    lib.curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    lib.curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    if (request->ca_file && request->ca_file[0]) {
        // CAINFO replaces the default bundle; CAPATH keeps the system store trusted as well.
        lib.curl_easy_setopt(easy, CURLOPT_CAINFO, request->ca_file);
        lib.curl_easy_setopt(easy, CURLOPT_CAPATH, "/etc/ssl/certs");
    }
    lib.curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    if (request->total_timeout_ms > 0) {
        lib.curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    }
    if (request->idle_timeout_s > 0) {
        lib.curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        lib.curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, request->idle_timeout_s);
    }
    lib.curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request->method);
    if (strcmp(request->method, "GET") == 0) {
        lib.curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else if (request->body) {
        lib.curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
        lib.curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request->body);
    }
    lib.curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    lib.curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    lib.curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
    lib.curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    lib.curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
    if (request->should_stop) {
        lib.curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
        lib.curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
        lib.curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &transfer);
    }

    CURLcode code = header_ok ? lib.curl_easy_perform(easy) : CURLE_OUT_OF_MEMORY;
    response->curl_code = (int)code;
    if (code != CURLE_OK) {
        snprintf(response->error, sizeof(response->error), "%s", error[0] ? error : lib.curl_easy_strerror(code));
        // Strip curl's trailing newline so the reason stays one line.
        size_t length = strlen(response->error);
        while (length > 0 && (response->error[length - 1] == '\n' || response->error[length - 1] == '\r')) {
            response->error[--length] = 0;
        }
    }
    long status = 0;
    if (lib.curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status) {
        response->status = status;
    }
    return_handle(easy, origin);
    lib.curl_slist_free_all(headers);
}

void ccurl_response_free(CCurlResponse *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = 0;
}
