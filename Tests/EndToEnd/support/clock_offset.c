// LD_PRELOAD shim for end-to-end tests: moves the wall clock of one process by
// E2E_CLOCK_OFFSET seconds (negative: behind), as on a machine whose clock is set wrong.
// The monotonic clock is left alone, as it is on such a machine.
//
//   cc -shared -fPIC -o clock_offset.so clock_offset.c -ldl
//   LD_PRELOAD=./clock_offset.so E2E_CLOCK_OFFSET=18000 foodpin   # 5 h ahead
//
// (libfaketime would do, but under it a Swift program's CommandLine.arguments comes back empty:
// argc 0, so foodpin could not be given a command.)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset(void) {
    const char *text = getenv("E2E_CLOCK_OFFSET");
    return text ? atoll(text) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += offset();
    return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
    static int (*real)(struct timeval *, void *);
    if (!real) real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(tv, tz);
    if (result == 0) tv->tv_sec += offset();
    return result;
}

time_t time(time_t *out) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (out) *out = now.tv_sec;
    return now.tv_sec;
}
