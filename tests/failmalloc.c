/* An LD_PRELOAD allocator that fails one chosen allocation, for the out-of-memory sweep (tests/oom_sweep_test.sh).
 *
 * The approach of the hostile-input trial: every malloc, calloc, realloc,
 * posix_memalign, aligned_alloc and memalign of the process is counted from
 * the moment this library is initialized; with FAILAT=k the k-th one returns
 * NULL (errno ENOMEM) and every other one is served by glibc.  COUNT_ONLY=1
 * prints "ALLOCS n" on stderr at exit (the range to sweep).  FAILTRACE=1
 * prints the call stack of the failed allocation (to find the code that does
 * not survive it).  glibc routes its own internal allocations (strdup,
 * fopen, qsort) through these symbols too, so they are counted as well.
 * FAILSKIP=name1,name2 spares allocations made from shared objects whose
 * file name contains one of the names (third-party code that does not
 * survive a failure, e.g. libjansson's double free in json_loadb): the
 * failure moves on to the next allocation outside them.
 * Build: cc -O2 -shared -fPIC failmalloc.c -o failmalloc.so (meson does).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static long counter, failat = -1;
static int active, count_only, trace, in_trace;
static const char *skip;

static void report(void)
{
    if (!count_only) return;
    char b[64];
    int n = snprintf(b, sizeof b, "ALLOCS %ld\n", counter);
    if (write(2, b, (size_t)n) < 0) return;
}

__attribute__((constructor)) static void init(void)
{
    const char *f = getenv("FAILAT");
    if (f) failat = atol(f);
    count_only = getenv("COUNT_ONLY") != NULL;
    trace = getenv("FAILTRACE") != NULL;
    skip = getenv("FAILSKIP");
    atexit(report);
    active = 1;
}

/* 1 when a caller among the first frames lies in a FAILSKIP object */
static int spared(void)
{
    void *frames[5];   /* this function, fail, malloc, its caller, the caller's */
    in_trace = 1;
    int n = backtrace(frames, 5), hit = 0;
    for (int k = 1; k < n && !hit; k++) {
        Dl_info di;
        if (!dladdr(frames[k], &di) || !di.dli_fname) continue;
        for (const char *p = skip; p && *p && !hit;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            if (len && memmem(di.dli_fname, strlen(di.dli_fname), p, len)) hit = 1;
            p = c ? c + 1 : NULL;
        }
    }
    in_trace = 0;
    return hit;
}

/* 1 when this allocation is the one to fail */
static int fail(void)
{
    if (!active || in_trace) return 0;
    if (++counter != failat) return 0;
    if (skip && spared()) {
        failat++;   /* the next allocation outside the spared objects */
        return 0;
    }
    if (trace) {
        void *frames[48];
        in_trace = 1;   /* backtrace() may allocate on its first call */
        int n = backtrace(frames, 48);
        static const char head[] = "failmalloc: this allocation fails:\n";
        if (write(2, head, sizeof head - 1) < 0) n = 0;
        backtrace_symbols_fd(frames, n, 2);
        in_trace = 0;
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) { return fail() ? NULL : __libc_malloc(n); }
void *calloc(size_t a, size_t b) { return fail() ? NULL : __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return fail() ? NULL : __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }

void *memalign(size_t al, size_t n) { return fail() ? NULL : __libc_memalign(al, n); }
void *aligned_alloc(size_t al, size_t n) { return fail() ? NULL : __libc_memalign(al, n); }

int posix_memalign(void **out, size_t al, size_t n)
{
    if (fail()) return ENOMEM;
    void *p = __libc_memalign(al, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
