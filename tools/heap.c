/* heap.c -- the CLI's heap policy: glibc settings that keep freed memory in
 * the process, and a thread that faults in the heap's new pages on the other
 * core before the main thread writes them. */
#define _GNU_SOURCE 1   /* mallopt, MADV_*, sched_getaffinity */
#include "heap.h"
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14; older kernels answer EINVAL */
#endif

/* Why a thread: at a million blocks the CLI writes about 850 MB of fresh heap
 * once, and each first write of a 4 KiB page is a page fault, about 3 us each
 * in a virtual machine (218,000 faults, a quarter of the run).  The faults
 * themselves cannot be avoided, but they need not be taken by the thread
 * doing the work: this thread watches the program break and asks the kernel
 * (madvise MADV_POPULATE_WRITE) to map every new page writable as soon as
 * glibc extends the heap, which it does by tens of megabytes at a time, well
 * before the main thread reaches the end of them.  The pages' contents are
 * not touched (they stay zero, so calloc's reliance on fresh heap being zero
 * holds) and no page outside the heap is touched.  The price: pages that
 * glibc obtained but nobody writes (the unused capacity of large arrays)
 * become resident too, about 10 % more peak memory at a million blocks.
 * The thread is not started on one core, and once the heap has been still
 * for 2 s it sleeps for good (see `started` below for why it never exits). */

static long page_size;

/* Posted by the thread as its first act; cli_heap_init waits for it before
 * it returns.  A thread still starting up holds locks of the C library's or
 * a sanitizer's allocator for a moment (its thread-local set-up allocates),
 * and two things go wrong if the process moves on meanwhile:
 *   - a fork then copies a held lock into the child, which deadlocks at its
 *     first malloc: `jacgraph bench` forks its measuring children within a
 *     millisecond on a small model, and under ASan (whose allocator, unlike
 *     glibc's, takes no lock around fork) 6 of 200 runs hung here;
 *   - an exit then races with LeakSanitizer's check at exit, which reports
 *     the sanitizer's own per-thread allocation (glibc's
 *     pthread_getattr_np) as leaked (a known race of LeakSanitizer's).
 * Past its first act the thread allocates nothing, and it never exits (a
 * thread's exit frees its set-up, the same hazard for a fork): when its work
 * is done it sleeps, with every signal blocked, until the process ends.  The
 * wait is the thread's start, some tens of microseconds. */
static sem_t started;

static void *park(void)
{
    for (;;) pause();
    return NULL;
}

static uintptr_t current_break(void)
{
    /* the kernel's value: reading glibc's copy from another thread would race */
    return (uintptr_t)syscall(SYS_brk, 0);
}

/* Pages mapped per madvise call: the call holds the address space's lock
 * for reading, and the main thread's brk and munmap wait for it. */
#define PIECE ((uintptr_t)4 << 20)

static void *populate_main(void *arg)
{
    (void)arg;
    sem_post(&started);
    uintptr_t mask = ~(uintptr_t)(page_size - 1);
    uintptr_t done = (current_break() + (uintptr_t)page_size - 1) & mask;
    long idle_ns = 50000, still_ns = 0;
    /* a heap still for 2 s has done its growing (a run's model and
     * graph come first); what grows later is not worth a thread that wakes
     * 200 times a second for the rest of a long simulation or batch */
    while (still_ns < 2000000000L) {
        uintptr_t top = current_break() & mask;
        if (top > done) {
            uintptr_t end = top - done > PIECE ? done + PIECE : top;
            /* EINVAL: a kernel before 5.14, nothing to do; ENOMEM: the heap
             * shrank meanwhile (or memory is short), start again from there */
            if (madvise((void *)done, end - done, MADV_POPULATE_WRITE) && errno == EINVAL) return park();
            done = end;
            idle_ns = 50000;
            still_ns = 0;
        } else {
            if (top < done) done = top;   /* trimmed */
            struct timespec ts = {0, idle_ns};
            nanosleep(&ts, NULL);
            still_ns += idle_ns;
            if (idle_ns < 5000000) idle_ns *= 2;   /* back off to 5 ms while the heap is still */
        }
    }
    return park();
}

void cli_heap_init(void)
{
    /* Keep freed memory in the heap instead of handing it back to the kernel:
     * on a large model the graph is built right after the JSON document is
     * freed, and reusing those pages instead of faulting in fresh ones is the
     * difference between 1 s and 3 s at a million blocks on this machine. */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* Large arrays from the heap too, not from mmap, so that the thread
     * below sees them: a break that moves is all it watches.  glibc before
     * 2.35 refuses more than 32 MiB (HEAP_MAX_SIZE / 2), and the trim
     * setting above has already turned its adaptive threshold off: fall
     * back to 32 MiB there rather than stay at 128 KiB. */
    if (!mallopt(M_MMAP_THRESHOLD, 1 << 30)) mallopt(M_MMAP_THRESHOLD, 32 << 20);
    /* No fastbins: reading a model frees one small block per JSON key (jansson
     * copies keys into its hash table), and with fastbins every larger request
     * then walks and consolidates them all -- a third of the read time at
     * 10^5 blocks. */
    mallopt(M_MXFAST, 0);
    const char *env = getenv("JACGRAPH_PREFAULT");
    if (env && !strcmp(env, "0")) return;
    page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return;
    /* on one core the thread would only take turns with the work */
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2) return;
    /* a thread that could not start costs nothing but the faults it would have taken */
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* every signal blocked in the thread, so that SIGINT and the like reach
     * the main thread as before */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    if (sem_init(&started, 0, 0) == 0 && pthread_create(&t, &attr, populate_main, NULL) == 0)
        while (sem_wait(&started) && errno == EINTR)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}
