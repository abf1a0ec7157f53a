/* The columns of F = P11 + P12 M (I - P22 M)^-1 P21 from the LU of I - P22 M, on one thread or split among several. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/lft.h"
#include "lft_internal.h"

/* Sort the n distinct row indices a[] (all below 2^(8 passes)) ascending:
 * insertion for a few, else least-significant-digit radix through tmp (n
 * entries), byte by byte: no comparison calls, the same order as qsort. */
static void sort_rows(cs_long_t *a, cs_long_t n, cs_long_t *tmp, int passes)
{
    if (n <= 24) {
        for (cs_long_t k = 1; k < n; k++) {
            cs_long_t x = a[k], j = k;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    cs_long_t *src = a, *dst = tmp;
    for (int d = 0; d < passes; d++) {
        cs_long_t cnt[257] = {0};
        int sh = 8 * d;
        for (cs_long_t k = 0; k < n; k++) cnt[((src[k] >> sh) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (cs_long_t k = 0; k < n; k++) dst[cnt[(src[k] >> sh) & 255]++] = src[k];
        cs_long_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, sizeof *a * (size_t)n);
}

/* CSparse's cs_spsolve(G, B, 0, xi, x, NULL, lo) for the sparse column b
 * (bi, bx, bn entries) and a triangular G with its diagonal first (lo) or
 * last in each column: the same depth-first reach, in the same order, and
 * the same operations on x, so the same bits.  The visited nodes are marked
 * in mark[] (== stamp) instead of by flipping G->p, which spares the pass
 * that restores G->p and the flips' branches (the DFS is most of an LFT) and
 * leaves G read-only, so threads share it; 32-bit marks, half the cache
 * lines of the DFS's random reads.
 * xi: 2 n entries (the output xi[top..n) and the recursion stack, then the
 * positions); returns top. */
static cs_long_t spsolve(const cs_dl *G, const cs_long_t *bi, const double *bx, cs_long_t bn,
                         cs_long_t *xi, double *x, uint32_t *mark, uint32_t stamp, int lo)
{
    const cs_long_t n = G->n, *Gp = G->p, *Gi = G->i;
    const double *Gx = G->x;
    cs_long_t *pstack = xi + n, top = n;
    for (cs_long_t b = 0; b < bn; b++) {
        if (mark[bi[b]] == stamp) continue;
        cs_long_t head = 0;   /* cs_dfs from bi[b] */
        xi[0] = bi[b];
        while (head >= 0) {
            cs_long_t j = xi[head];
            if (mark[j] != stamp) {
                mark[j] = stamp;
                pstack[head] = Gp[j];
            }
            int done = 1;
            cs_long_t p2 = Gp[j + 1];
            for (cs_long_t p = pstack[head]; p < p2; p++) {
                cs_long_t i = Gi[p];
                if (mark[i] == stamp) continue;
                pstack[head] = p;
                xi[++head] = i;
                done = 0;
                break;
            }
            if (done) {
                head--;
                xi[--top] = j;
            }
        }
    }
    for (cs_long_t p = top; p < n; p++) x[xi[p]] = 0;
    for (cs_long_t b = 0; b < bn; b++) x[bi[b]] = bx[b];
    for (cs_long_t px = top; px < n; px++) {
        cs_long_t j = xi[px];
        x[j] /= Gx[lo ? Gp[j] : Gp[j + 1] - 1];
        cs_long_t p = lo ? Gp[j] + 1 : Gp[j], q = lo ? Gp[j + 1] : Gp[j + 1] - 1;
        for (; p < q; p++) x[Gi[p]] -= Gx[p] * x[j];
    }
    return top;
}

/* What every column reads (read-only while the columns are solved). */
typedef struct {
    const cs_dl *P11, *P21, *pm;
    const cs_dln *N;   /* NULL when ny == 0 */
    const cs_long_t *q;   /* the LU's column order (NULL: natural) */
    cs_long_t no, ni, ny;
    int passes;        /* bytes of the largest row index of F */
} cols_t;

/* One thread's work arrays: the serial solve's, one set per thread. */
typedef struct {
    double *x, *z, *acc, *yx;
    cs_long_t *xi, *mark, *touched, *yi;
    uint32_t *vis, stamp;   /* spsolve's marks: visited when == stamp */
} lane_t;

static void lane_free(lane_t *w)
{
    free(w->x);
    free(w->z);
    free(w->acc);
    free(w->yx);
    free(w->xi);
    free(w->mark);
    free(w->touched);
    free(w->yi);
    free(w->vis);
}

/* 0, or -1 when out of memory (w freed). */
static int lane_init(lane_t *w, const cols_t *c)
{
    cs_long_t ny = c->ny, no = c->no;
    *w = (lane_t){0};
    w->x = malloc(sizeof(double) * (size_t)(ny + 1));
    w->z = malloc(sizeof(double) * (size_t)(ny + 1));
    w->yx = malloc(sizeof(double) * (size_t)(ny + 1));
    w->yi = malloc(sizeof(cs_long_t) * (size_t)(ny + 1));
    w->xi = malloc(sizeof(cs_long_t) * (size_t)(2 * ny + 1));
    w->vis = calloc((size_t)ny + 1, sizeof *w->vis);
    w->acc = calloc((size_t)no + 1, sizeof(double));
    w->mark = malloc(sizeof(cs_long_t) * (size_t)(no + 1));
    w->touched = malloc(sizeof(cs_long_t) * (size_t)(2 * no + 1));   /* and sort_rows' room */
    if (!w->x || !w->z || !w->yx || !w->yi || !w->xi || !w->vis || !w->acc || !w->mark || !w->touched) {
        lane_free(w);
        *w = (lane_t){0};
        return -1;
    }
    for (cs_long_t i = 0; i < no; i++) w->mark[i] = -1;
    return 0;
}

/* Column j of F into w: its rows sorted in touched[0..nt), their sums in
 * acc (zeros included: the caller drops them and clears acc); returns nt.
 * The scatter remembers the rows touched so the gather costs the column's
 * nonzeros, not the row count. */
static cs_long_t column(const cols_t *c, lane_t *w, cs_long_t j)
{
    const cs_dl *P11 = c->P11, *P21 = c->P21, *pm = c->pm;
    cs_long_t *mark = w->mark, *touched = w->touched, nt = 0, ny = c->ny;
    double *acc = w->acc;
#define ACC(row, v)                          \
    do {                                     \
        cs_long_t r_ = (row);                \
        if (mark[r_] != j) {                 \
            mark[r_] = j;                    \
            touched[nt++] = r_;              \
        }                                    \
        acc[r_] += (v);                      \
    } while (0)
    for (cs_long_t k = P11->p[j]; k < P11->p[j + 1]; k++) ACC(P11->i[k], P11->x[k]);
    if (ny > 0 && P21->p[j + 1] > P21->p[j]) {
        /* sparse right-hand side: each triangular solve costs the reach of
         * P21(:,j) (the signals it influences), not the order of K */
        /* L U = K(pinv, q): solve L y = b(pinv), U w = y, x(q) = w.  (After
         * cs_lu, L's rows are already permuted: permute b, pass no pinv.) */
        const cs_dln *N = c->N;
        cs_long_t blen = 0;
        for (cs_long_t k = P21->p[j]; k < P21->p[j + 1]; k++) {
            w->yi[blen] = N->pinv[P21->i[k]];
            w->yx[blen++] = P21->x[k];
        }
        if (w->stamp >= UINT32_MAX - 2) {   /* the stamps wrap: clear the marks */
            memset(w->vis, 0, sizeof *w->vis * (size_t)ny);
            w->stamp = 0;
        }
        cs_long_t top = spsolve(N->L, w->yi, w->yx, blen, w->xi, w->x, w->vis, ++w->stamp, 1);
        cs_long_t ylen = 0;
        for (cs_long_t q = top; q < ny; q++) {
            w->yi[ylen] = w->xi[q];
            w->yx[ylen++] = w->x[w->xi[q]];
        }
        cs_long_t top2 = spsolve(N->U, w->yi, w->yx, ylen, w->xi, w->z, w->vis, ++w->stamp, 0);
        for (cs_long_t q = top2; q < ny; q++) {
            cs_long_t k = w->xi[q];
            double v = w->z[k];
            if (v == 0) continue;
            cs_long_t cc = c->q ? c->q[k] : k;
            for (cs_long_t t = pm->p[cc]; t < pm->p[cc + 1]; t++) ACC(pm->i[t], pm->x[t] * v);
        }
    }
#undef ACC
    sort_rows(touched, nt, touched + c->no, c->passes);
    return nt;
}

/* Append column j's nonzeros (w after column()) to i[], x[] at *nz and clear
 * acc. */
static void gather(lane_t *w, cs_long_t nt, cs_long_t *ri, double *rx, cs_long_t *nz)
{
    cs_long_t n = *nz;
    for (cs_long_t t = 0; t < nt; t++) {
        cs_long_t i = w->touched[t];
        if (w->acc[i] != 0) {
            ri[n] = i;
            rx[n++] = w->acc[i];
        }
        w->acc[i] = 0;
    }
    *nz = n;
}

/* The serial solve: columns straight into R, grown as jg_lft always grew it. */
static jg_status_t serial(const cols_t *c, lane_t *w, cs_dl *R, jg_error_t *err)
{
    cs_long_t nz = 0;
    for (cs_long_t j = 0; j < c->ni; j++) {
        cs_long_t nt = column(c, w, j);
        R->p[j] = nz;
        if (nz + nt > R->nzmax && !cs_dl_sprealloc(R, 2 * R->nzmax + nt))
            return jg_error_set(err, JG_NOMEM, "out of memory in the LFT");
        gather(w, nt, R->i, R->x, &nz);
    }
    R->p[c->ni] = nz;
    return JG_OK;
}

/* The threaded solve: the columns in chunks of consecutive columns, taken in
 * turn by the threads (a column's cost is its reach, uneven: fixed shares
 * would leave a thread idle); each thread keeps its chunks' entries in its
 * own buffer, and R is assembled afterwards in column order. */
typedef struct par par_t;
typedef struct {
    par_t *P;
    lane_t w;
    cs_long_t *bi;     /* the entries of this thread's chunks, chunk after chunk */
    double *bx;
    cs_long_t len, cap;
    int fail;          /* out of memory: its chunks are incomplete */
} worker_t;
struct par {
    const cols_t *c;
    cs_long_t chunk, nchunks;
    atomic_llong next;       /* the next chunk to take */
    atomic_int stop;         /* a thread ran out of memory: take no more */
    cs_long_t *cnt, *tch;    /* per column: nonzeros kept, rows touched (nt) */
    int *owner;              /* per chunk: its thread */
    cs_long_t *off;          /* per chunk: its offset in the owner's buffer */
    worker_t *wk;
};

static void *work(void *arg)
{
    worker_t *me = arg;
    par_t *P = me->P;
    const cols_t *c = P->c;
    for (;;) {
        if (atomic_load(&P->stop)) break;
        cs_long_t k = (cs_long_t)atomic_fetch_add(&P->next, 1);
        if (k >= P->nchunks) break;
        cs_long_t j0 = k * P->chunk, j1 = j0 + P->chunk < c->ni ? j0 + P->chunk : c->ni;
        P->owner[k] = (int)(me - P->wk);
        P->off[k] = me->len;
        for (cs_long_t j = j0; j < j1; j++) {
            cs_long_t nt = column(c, &me->w, j);
            if (me->len + nt > me->cap) {
                cs_long_t cap = 2 * me->cap + nt;
                cs_long_t *bi = realloc(me->bi, sizeof *bi * (size_t)cap);
                if (bi) me->bi = bi;
                double *bx = bi ? realloc(me->bx, sizeof *bx * (size_t)cap) : NULL;
                if (bx) me->bx = bx;
                if (!bi || !bx) {
                    me->fail = 1;
                    atomic_store(&P->stop, 1);
                    return NULL;
                }
                me->cap = cap;
            }
            cs_long_t n0 = me->len;
            gather(&me->w, nt, me->bi, me->bx, &me->len);
            P->cnt[j] = me->len - n0;
            P->tch[j] = nt;
        }
    }
    return NULL;
}

/* R from the threads' buffers: column pointers from the counts, nzmax what
 * the serial solve's growth would have left (the same matrix down to its
 * allocation), the entries chunk by chunk.  The caller's buffer becomes R's
 * arrays, so F is not held twice: grown to nzmax, its chunks move up to
 * their places, the last first (a chunk's place is never below where it is:
 * only chunks before it, of every thread, come before it in F), and the
 * other threads' chunks are copied in between.  -1 when out of memory. */
static int assemble(par_t *P, cs_dl *R)
{
    const cols_t *c = P->c;
    worker_t *w0 = &P->wk[0];
    cs_long_t nz = 0, nzmax = R->nzmax;
    for (cs_long_t j = 0; j < c->ni; j++) {
        R->p[j] = nz;
        if (nz + P->tch[j] > nzmax) nzmax = 2 * nzmax + P->tch[j];
        nz += P->cnt[j];
    }
    R->p[c->ni] = nz;
    cs_long_t *bi = realloc(w0->bi, sizeof *bi * (size_t)nzmax);
    if (bi) w0->bi = bi;
    double *bx = bi ? realloc(w0->bx, sizeof *bx * (size_t)nzmax) : NULL;
    if (bx) w0->bx = bx;
    if (!bi || !bx) return -1;
    for (cs_long_t k = P->nchunks - 1; k >= 0; k--) {
        if (P->owner[k] != 0) continue;
        cs_long_t j0 = k * P->chunk, j1 = j0 + P->chunk < c->ni ? j0 + P->chunk : c->ni;
        cs_long_t n = R->p[j1] - R->p[j0];
        if (n == 0) continue;   /* (an empty buffer may be NULL) */
        memmove(bi + R->p[j0], bi + P->off[k], sizeof *bi * (size_t)n);
        memmove(bx + R->p[j0], bx + P->off[k], sizeof *bx * (size_t)n);
    }
    for (cs_long_t k = 0; k < P->nchunks; k++) {
        if (P->owner[k] == 0) continue;
        const worker_t *w = &P->wk[P->owner[k]];
        cs_long_t j0 = k * P->chunk, j1 = j0 + P->chunk < c->ni ? j0 + P->chunk : c->ni;
        cs_long_t n = R->p[j1] - R->p[j0];
        if (n == 0) continue;
        memcpy(bi + R->p[j0], w->bi + P->off[k], sizeof *bi * (size_t)n);
        memcpy(bx + R->p[j0], w->bx + P->off[k], sizeof *bx * (size_t)n);
    }
    free(R->i);
    free(R->x);
    R->i = bi;
    R->x = bx;
    R->nzmax = nzmax;
    w0->bi = NULL;
    w0->bx = NULL;
    return 0;
}

/* The threaded solve on up to nth threads (the caller's included), w0 the
 * caller's lane.  *ran 0 when no second thread could have its work arrays or
 * the bookkeeping its memory (nothing done, JG_OK: solve serially). */
static jg_status_t threaded(const cols_t *c, lane_t *w0, int nth, cs_dl *R, int *ran,
                            jg_error_t *err)
{
    jg_status_t rc = JG_OK;
    par_t P = {.c = c};
    *ran = 0;
    pthread_t *th = NULL;
    int started = 0, nw = 0;
    /* chunks: a few dozen per thread, so the last ones even out */
    P.chunk = c->ni / (32 * (cs_long_t)nth);
    if (P.chunk < 1) P.chunk = 1;
    P.nchunks = (c->ni + P.chunk - 1) / P.chunk;
    if (nth > P.nchunks) nth = (int)P.nchunks;
    atomic_init(&P.next, 0);
    atomic_init(&P.stop, 0);
    P.cnt = malloc(sizeof *P.cnt * (size_t)(2 * c->ni + 1));
    P.owner = malloc(sizeof *P.owner * (size_t)(P.nchunks + 1));
    P.off = malloc(sizeof *P.off * (size_t)(P.nchunks + 1));
    P.wk = calloc((size_t)nth, sizeof *P.wk);
    th = calloc((size_t)nth, sizeof *th);
    if (!P.cnt || !P.owner || !P.off || !P.wk || !th) goto done;
    P.tch = P.cnt + c->ni;
    /* each thread's work arrays: as many threads as get them */
    P.wk[0].w = *w0;
    for (nw = 1; nw < nth && !lane_init(&P.wk[nw].w, c); nw++) {}
    if (nw < 2) goto done;
    *ran = 1;
    for (int t = 0; t < nw; t++) P.wk[t].P = &P;
    for (started = 1; started < nw; started++)
        if (pthread_create(&th[started], NULL, work, &P.wk[started])) break;
    work(&P.wk[0]);   /* the caller's thread takes chunks too, so every chunk gets done */
    for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < started; t++)
        if (P.wk[t].fail) {
            rc = jg_error_set(err, JG_NOMEM, "out of memory in the LFT");
            goto done;
        }
    rc = assemble(&P, R) ? jg_error_set(err, JG_NOMEM, "out of memory in the LFT") : JG_OK;
done:
    if (nw > 0) {   /* w0 was lent to worker 0: back to the caller, who frees it */
        *w0 = P.wk[0].w;
        free(P.wk[0].bi);
        free(P.wk[0].bx);
        for (int t = 1; t < nw; t++) {
            lane_free(&P.wk[t].w);
            free(P.wk[t].bi);
            free(P.wk[t].bx);
        }
    }
    free(P.wk);
    free(th);
    free(P.cnt);
    free(P.owner);
    free(P.off);
    return rc;
}

/* The columns' work known before solving them: their entries in P11 and
 * P21 and one per column (the solves' reaches come on top, unknown until
 * solved).  A second thread costs some 0.1-0.3 ms (its arrays, its start, a
 * cold cache on L and U, the copy into F).  The LFT stage of generated models
 * after markowitz, one thread against two forced (medians of 31): break-even
 * near a work of 3,000-4,000 (aerospace 10^4 blocks, work 900: 0.4 -> 0.5 ms;
 * aerospace 3*10^4, 3,000: 1.4 -> 1.4; power 10^4, 4,300: 1.6 -> 1.5; deep
 * 10^4, 3,800: 2.0 -> 1.8), clear gains from about twice that (deep 3*10^4,
 * 12,100: 7.2 -> 5.8; power 3*10^4, 12,700: 5.1 -> 4.5; aerospace 10^5,
 * 9,600: 9.2 -> 6.8; aerospace 10^6, 96,000: 284 -> 188 in that measurement).  Hence
 * JG__LFT_PAR_WORK = 8,000: below it the gain would be a tenth of a
 * millisecond against more CPU and a core that may be busy. */
static int64_t work_estimate(const cols_t *c)
{
    return (int64_t)c->ni + c->P11->p[c->ni] + c->P21->p[c->ni];
}

jg_status_t jg__lft_columns(const cs_dl *P11, const cs_dl *P21, const cs_dl *pm, const cs_dln *N,
                            const cs_dls *S, int threads, int64_t min_work, cs_dl **F,
                            jg_error_t *err)
{
    jg_status_t st = JG_OK;
    cols_t c = {.P11 = P11, .P21 = P21, .pm = pm, .N = N, .q = S ? S->q : NULL,
                .no = P11->m, .ni = P11->n, .ny = P21->m, .passes = 1};
    while (c.passes < 8 && (c.no - 1) >> (8 * c.passes)) c.passes++;
    lane_t w0 = {0};
    cs_dl *R = cs_dl_spalloc(c.no, c.ni, P11->nzmax + c.ni + 1, 1, 0);
    *F = NULL;
    if (!R || lane_init(&w0, &c)) goto nomem;
    int ran = 0;
    int64_t work = work_estimate(&c);
    if (threads > 1 && c.ni >= 2 && work >= min_work) {
        /* no more threads than the work pays for (one per min_work): each
         * has work arrays the size of the loop, and many cores would
         * otherwise each get a set for a few columns */
        int64_t cap = min_work > 0 ? work / min_work : threads;
        if (cap < 2) cap = 2;
        st = threaded(&c, &w0, threads < cap ? threads : (int)cap, R, &ran, err);
    }
    if (!ran) st = serial(&c, &w0, R, err);   /* one thread, or no second one could have memory */
    if (st) goto done;
    *F = R;
    R = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory in the LFT");
done:
    cs_dl_spfree(R);
    lane_free(&w0);
    return st;
}
