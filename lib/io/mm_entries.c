/* A sparse matrix's entries as Matrix Market lines "ROW COL VALUE\n", formatted in chunks on several threads and written in order. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/batch.h"
#include "io_impl.h"

/* Why threads: at a million blocks A has 1.2 million entries, 40 MB of text
 * that took the main thread ~100 ms to format (the numbers through fmt17.c)
 * while the second core was idle.  The entries are cut into chunks of
 * consecutive entries; every thread, the caller's included, formats the next
 * chunk not taken into a slot of a ring of buffers, and the caller writes the
 * chunks in order as they become ready, formatting one itself whenever the
 * next one to write is not ready yet.  The text of an entry does not depend on
 * who formats it or where its chunk starts, so the bytes are the serial
 * writer's.  The ring bounds the memory (a few MB) whatever the matrix. */

/* Room for one entry: two 19-digit indices, a value of 24 bytes at most, the
 * separators, and what is written past the end and overwritten by the next
 * entry (the column's text copied as 24 bytes, fmt17's 32-byte buffer). */
enum { ENTRY_MAX = 80 };

/* The defaults (jg__io_mm_par_default): two threads broke even at ~12,000
 * entries (two chunks) on two cores and saved a fifth at 66,000 (7.3 against
 * 8.9 ms) and half at 1.2 million; from MIN_NNZ, four chunks, the thread's
 * start and the hand-overs are surely paid back.  CHUNK entries are ~300 kB
 * of text, ~0.3 ms of formatting; at most MAX_THREADS threads, since the
 * caller's writing bounds the gain. */
enum { MIN_NNZ = 32768, CHUNK = 8192, MAX_THREADS = 4, SLOTS_PER_THREAD = 3 };

void jg__io_mm_par_default(jg__io_mm_par_t *par)
{
    int n = jg_batch_ncores();   /* the cores of this process's CPU affinity */
    par->threads = n < MAX_THREADS ? n : MAX_THREADS;
    par->min_nnz = MIN_NNZ;
    par->chunk = CHUNK;
}

/* The column holding entry p (p < nnz): the last j with S->p[j] <= p, which
 * skips empty columns. */
static int64_t column_of(const cs_dl *S, int64_t p)
{
    int64_t lo = 0, hi = S->n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (S->p[mid] <= p) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Entries p0..p1-1 (p0 < p1 <= nnz) at o, ENTRY_MAX bytes each at most;
 * returns the end. */
static char *format_range(char *o, const cs_dl *S, int64_t p0, int64_t p1)
{
    int64_t j = column_of(S, p0);
    char col[24] = {0};   /* " COL " of column j, made once per column; copied whole */
    size_t ncol = 0;
    for (int64_t p = p0; p < p1; p++) {
        if (p >= S->p[j + 1] || !ncol) {
            while (p >= S->p[j + 1]) j++;
            col[0] = ' ';
            ncol = (size_t)(jg__io_put_u64(col + 1, (uint64_t)j + 1) - col);
            col[ncol++] = ' ';
        }
        o = jg__io_put_u64(o, (uint64_t)S->i[p] + 1);
        memcpy(o, col, sizeof col);   /* a fixed size: two moves, no call */
        o += ncol;
        o += jg__io_fmt17(o, S->x[p]);
        *o++ = '\n';
    }
    return o;
}

/* The serial writer: blocks of entries through one stack buffer. */
static void write_serial(FILE *f, const cs_dl *S)
{
    char buf[1 << 16];
    const int64_t block = sizeof buf / ENTRY_MAX, nnz = S->p[S->n];
    for (int64_t p = 0; p < nnz; p += block) {
        int64_t p1 = nnz - p < block ? nnz : p + block;
        char *o = format_range(buf, S, p, p1);
        if (fwrite(buf, 1, (size_t)(o - buf), f) != (size_t)(o - buf)) return;   /* ferror(f) is set */
    }
}

typedef struct {
    const cs_dl *S;
    int64_t chunk, nchunk, nnz;
    int nslot;
    char *mem;              /* nslot buffers of chunk * ENTRY_MAX bytes */
    size_t *len;            /* the text's length in each slot */
    int64_t *have;          /* the chunk each slot holds formatted, -1 none */
    int64_t next;           /* the first chunk nobody has taken */
    int64_t written;        /* chunks written (the caller's count) */
    int stop;               /* a write failed or all is written: take no more */
    pthread_mutex_t mu;
    pthread_cond_t ready;   /* a chunk was formatted (the caller waits) */
    pthread_cond_t room;    /* a slot was freed, or stop (the helpers wait) */
} ring_t;

/* Format chunk c into its slot (called without the lock: the slot is the
 * taker's alone until it is marked). */
static void format_chunk(ring_t *r, int64_t c)
{
    int s = (int)(c % r->nslot);
    char *b = r->mem + (size_t)s * (size_t)r->chunk * ENTRY_MAX;
    int64_t p0 = c * r->chunk, p1 = r->nnz - p0 < r->chunk ? r->nnz : p0 + r->chunk;
    char *e = format_range(b, r->S, p0, p1);
    pthread_mutex_lock(&r->mu);
    r->len[s] = (size_t)(e - b);
    r->have[s] = c;
    pthread_cond_signal(&r->ready);
    pthread_mutex_unlock(&r->mu);
}

static void *helper(void *arg)
{
    ring_t *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->next < r->nchunk) {
        if (r->next >= r->written + r->nslot) {   /* the ring is full: wait for a write */
            pthread_cond_wait(&r->room, &r->mu);
            continue;
        }
        int64_t c = r->next++;
        pthread_mutex_unlock(&r->mu);
        format_chunk(r, c);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The caller's part: write chunk after chunk, formatting when it would wait.
 * The helpers are stopped before it returns. */
static void write_ring(FILE *f, ring_t *r)
{
    int code = 0;
    for (int64_t c = 0; c < r->nchunk; c++) {
        int s = (int)(c % r->nslot);
        pthread_mutex_lock(&r->mu);
        while (r->have[s] != c) {
            if (r->next < r->nchunk && r->next < r->written + r->nslot) {
                int64_t k = r->next++;
                pthread_mutex_unlock(&r->mu);
                format_chunk(r, k);
                pthread_mutex_lock(&r->mu);
            } else {
                pthread_cond_wait(&r->ready, &r->mu);
            }
        }
        size_t n = r->len[s];
        pthread_mutex_unlock(&r->mu);
        const char *b = r->mem + (size_t)s * (size_t)r->chunk * ENTRY_MAX;
        int ok = fwrite(b, 1, n, f) == n;
        if (!ok) code = errno;
        pthread_mutex_lock(&r->mu);
        r->written = c + 1;
        if (!ok) r->stop = 1;   /* the helpers take nothing more */
        pthread_cond_broadcast(&r->room);
        pthread_mutex_unlock(&r->mu);
        if (!ok) break;
    }
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->room);
    pthread_mutex_unlock(&r->mu);
    if (code) errno = code;   /* for the caller's message, past the joins */
}

void jg__io_mm_entries(FILE *f, const cs_dl *S, const jg__io_mm_par_t *par)
{
    int64_t nnz = S->n > 0 ? S->p[S->n] : 0;
    int nt = par ? par->threads : 1;
    int64_t chunk = par && par->chunk > 0 ? par->chunk : CHUNK;
    if (chunk > (1 << 20)) chunk = 1 << 20;   /* a slot stays below 80 MB */
    if (nt > 64) nt = 64;
    ring_t r = {.S = S, .chunk = chunk, .nchunk = (nnz + chunk - 1) / chunk, .nnz = nnz,
                .nslot = SLOTS_PER_THREAD * nt};
    pthread_t th[64];
    int started = 0, inited = 0, code;
    if (nnz <= 0) goto done;
    if (nt < 2 || !par || nnz < par->min_nnz || nnz <= chunk) goto serial;
    /* out of memory: the serial writer needs none, and writes the same bytes */
    r.mem = malloc((size_t)r.nslot * ((size_t)chunk * ENTRY_MAX + sizeof *r.len + sizeof *r.have));
    if (!r.mem) goto serial;
    r.len = (size_t *)(r.mem + (size_t)r.nslot * (size_t)chunk * ENTRY_MAX);
    r.have = (int64_t *)(r.len + r.nslot);
    for (int s = 0; s < r.nslot; s++) r.have[s] = -1;
    if (pthread_mutex_init(&r.mu, NULL)) goto serial;
    inited = 1;
    if (pthread_cond_init(&r.ready, NULL)) goto serial;
    inited = 2;
    if (pthread_cond_init(&r.room, NULL)) goto serial;
    inited = 3;
    /* every signal blocked in the helpers, so that SIGINT and the like reach
     * the caller's thread as before; a helper that cannot start leaves its
     * chunks to the others (the caller takes any chunk it waits for) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; started < nt - 1; started++)
        if (pthread_create(&th[started], NULL, helper, &r)) break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    write_ring(f, &r);
    goto done;
serial:
    write_serial(f, S);
done:
    code = errno;   /* a failed write's, for the caller's message */
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (inited >= 3) pthread_cond_destroy(&r.room);
    if (inited >= 2) pthread_cond_destroy(&r.ready);
    if (inited >= 1) pthread_mutex_destroy(&r.mu);
    free(r.mem);
    errno = code;
}
