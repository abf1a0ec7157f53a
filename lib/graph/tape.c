/* The elimination tape compiled into a flat program of scalar steps
 * x[d] = x[s] + (x[z] + x[a] * x[b]) over the graph's values, and its run:
 * the numeric replay without pointer chasing or a branch per operation.
 * Its load copies the block Jacobians (a run of parts at once) and puts back
 * the few connection values the tape sums into; a fill value is assigned by
 * its first step instead of being cleared and summed into. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "graph_impl.h"

/* One step: x[d] = x[s] + x[a] * x[b], s being d itself (accumulate), the
 * +0 or the -0 cell.  The compiler (emit) is asked for the interpreted
 * replay's own sums, x[d] = S + (Z + v) with S = x[d], +0 or -0, Z = +0 or
 * -0 and v = x[a] * x[b]: -0 + v is v for every v, and +0 + v is the
 * interpreter's dense accumulator (zeroed, then summed into), which differs
 * from v only for v = -0.  So with Z = -0 the step is S + v; with Z = +0 and
 * S = +0 or -0 it is +0 + v (both give +0 for v = -0 and v otherwise); only
 * Z = +0 with S = x[d] needs the +0 + v of its own, a step into the TMP cell
 * before x[d] + TMP * 1 (a * 1 is a).  The results are therefore the same
 * bits, signed zeros and infinities included (a NaN is a NaN in both; C
 * leaves its sign and payload to the compiler).  Where the compiler knows
 * that x[d] cannot be -0 (emit's nzep), x[d] + (+0 + v) is one step and
 * x[d] + +0 none.  Four indices, one multiply and one add a step, nothing
 * to decode: the replay of a 10,000-block model's tape (55,000 steps of the
 * older three-index form with the selectors in d's top bits, 54,900 now)
 * went from 57 to 45-48 us a point. */
typedef struct {
    uint32_t d, s, a, b;
} jg_tins_t;

enum { C_ZERO, C_NZERO, C_ONE, C_ACC, C_TMP };   /* the cells past nx (JG__TAPE_CELLS) */
enum { S_ACC, S_ZERO, S_NZERO };

struct jg_tape {
    int64_t ops_n, nx;       /* the tape and the values it was compiled for */
    jg_tins_t *ins;
    int64_t nins;
    /* segment k: steps seg_end[k - 1] .. seg_end[k] - 1, then the tape
     * operation seg_op[k] interpreted (a pivot's inverse; -1 none) */
    int64_t *seg_end, *seg_op, nseg;
    /* the original values the tape writes into that no Jacobian reloads
     * (connection edges summed into): restored from x_init per replay */
    int64_t *rest, nrest;
    /* the block Jacobian parts' edges (g->pe_mat): run r, edges run_pe[r] ..
     * run_pe[r + 1] - 1, is one piece of x, run_dst[r] .. + run_len[r] - 1,
     * copied at once when its parts are one piece of the work's values too */
    int64_t *run_pe, *run_dst, *run_len, nrun;
};

/* The compilation's state. */
typedef struct {
    jg_graph_t *g;
    struct jg_tape *t;
    int64_t cap_ins, cap_seg, cap_rest;
    /* per value: bit 0 written by a step so far (original values count as
     * written), bit 1 reloaded from a Jacobian part, bit 2 restored */
    unsigned char *f;
    /* per value: known not to be -0 (a step's +0 + v, or a sum into such a
     * value) while nzep[i] == ep; ep moves on at every interpreted operation
     * (it writes values the compiler does not follow) */
    uint32_t *nzep, ep;
    uint32_t c0;             /* index of the first cell */
    /* one column's products grouped by row (muladd) */
    int64_t *pr, *pa, *pb, *sa, *sb, cap_p;
    int64_t *cnt, *start, cap_r;
} cc_t;

/* The index a step reads for value i: a fill value no step has written yet
 * is the interpreter's zeroed storage, +0. */
static uint32_t rd(const cc_t *c, int64_t i)
{
    if (i >= c->g->nx || (c->f[i] & 1)) return (uint32_t)i;
    return c->c0 + C_ZERO;
}

/* Append the step x[d] = x[s] + x[a] * x[b] (indices or cells). */
static void put_step(struct jg_tape *t, uint32_t d, uint32_t s, uint32_t a, uint32_t b)
{
    jg_tins_t *in = &t->ins[t->nins++];
    in->d = d, in->s = s, in->a = a, in->b = b;
}

/* Append x[d] = S + (Z + x[a] * x[b]), S = x[d] for s S_ACC (or +0 while d is
 * unwritten), +0 for S_ZERO, -0 for S_NZERO; Z = -0 when zneg, else +0: one
 * step, or two (see jg_tins_t).  a and b are value indices or cells. */
static int emit(cc_t *c, int64_t d, int s, int zneg, int64_t a, int64_t b)
{
    struct jg_tape *t = c->t;
    if (t->nins + 2 > c->cap_ins) {
        int64_t cap = c->cap_ins ? 2 * c->cap_ins : 4096;
        jg_tins_t *p = realloc(t->ins, sizeof *p * (size_t)cap);
        if (!p) return -1;
        t->ins = p;
        c->cap_ins = cap;
    }
    if (d < c->g->nx) {
        if (s == S_ACC && !(c->f[d] & 1)) s = S_ZERO;
        if (d < c->g->x_orig && !(c->f[d] & 6)) {
            /* an original value written: put back before every replay */
            if (t->nrest == c->cap_rest) {
                int64_t cap = c->cap_rest ? 2 * c->cap_rest : 64;
                int64_t *p = realloc(t->rest, sizeof *p * (size_t)cap);
                if (!p) return -1;
                t->rest = p;
                c->cap_rest = cap;
            }
            t->rest[t->nrest++] = d;
            c->f[d] |= 4;
        }
    }
    const uint32_t ia = a >= c->g->nx ? (uint32_t)a : rd(c, a), ib = b >= c->g->nx ? (uint32_t)b : rd(c, b);
    const uint32_t zero = c->c0 + C_ZERO, tmp = c->c0 + C_TMP, ud = (uint32_t)d;
    /* x[d] not -0: x[d] + (+0 + v) is x[d] + v (they differ only for
     * x[d] = v = -0), and x[d] + +0 is x[d] itself (-0 is the one value
     * that adding +0 changes) */
    const int tracked = d < c->g->nx, not_nz = tracked && c->nzep[d] == c->ep;
    if (s != S_ACC) {
        put_step(t, ud, s == S_NZERO && zneg ? c->c0 + C_NZERO : zero, ia, ib);
    } else if (ia == zero && ib == zero) {             /* v = +0 * +0 is +0 */
        if (!not_nz) put_step(t, ud, ud, ia, ib);
    } else if (zneg || not_nz) {                       /* Z + v is v */
        put_step(t, ud, ud, ia, ib);
    } else {
        put_step(t, tmp, zero, ia, ib);               /* TMP = +0 + v */
        put_step(t, ud, ud, tmp, c->c0 + C_ONE);      /* x[d] += TMP */
    }
    if (tracked) {
        c->f[d] |= 1;
        /* +0 + v is never -0; -0 + v is for v = -0; a sum is -0 only
         * when both terms are */
        if (s == S_ZERO || (s == S_NZERO && !zneg) || (s == S_ACC && (!zneg || (ia == zero && ib == zero))))
            c->nzep[d] = c->ep;
        else if (s == S_NZERO)
            c->nzep[d] = 0;
    }
    return 0;
}

/* x[d] = +0 (the interpreter's zeroed storage of a value its operation does
 * not reach). */
static int emit_zero(cc_t *c, int64_t d)
{
    return emit(c, d, S_ZERO, 0, c->c0 + C_ZERO, c->c0 + C_ZERO);
}

/* Zero the values of matrix m no step has written (a new matrix's entries
 * its first operation leaves, and what an interpreted operation reads). */
static int settle(cc_t *c, int64_t m)
{
    if (m < 0) return 0;
    const jg_gmat_t *M = &c->g->mat[m];
    for (int64_t k = 0; k < jg__nnz(M); k++)
        if (!(c->f[M->xoff + k] & 1) && emit_zero(c, M->xoff + k)) return -1;
    return 0;
}

/* End the current segment with tape operation op (-1: the last). */
static int seg_close(cc_t *c, int64_t op)
{
    struct jg_tape *t = c->t;
    if (t->nseg == c->cap_seg) {
        int64_t cap = c->cap_seg ? 2 * c->cap_seg : 16;
        int64_t *e = realloc(t->seg_end, sizeof *e * (size_t)cap);
        if (e) t->seg_end = e;
        int64_t *o = e ? realloc(t->seg_op, sizeof *o * (size_t)cap) : NULL;
        if (!o) return -1;
        t->seg_op = o;
        c->cap_seg = cap;
    }
    t->seg_end[t->nseg] = t->nins;
    t->seg_op[t->nseg++] = op;
    return 0;
}

/* Room for np products of one column and rows rows (c_muladd's scratch). */
static int col_room(cc_t *c, int64_t np, int64_t rows)
{
    if (np > c->cap_p) {
        int64_t cap = 2 * np + 16;
        int64_t **a[] = {&c->pr, &c->pa, &c->pb, &c->sa, &c->sb};
        for (int k = 0; k < 5; k++) {
            int64_t *q = realloc(*a[k], sizeof(int64_t) * (size_t)cap);
            if (!q) return -1;
            *a[k] = q;
        }
        c->cap_p = cap;
    }
    if (rows > c->cap_r) {
        int64_t cap = 2 * rows + 16;
        int64_t *q = realloc(c->start, sizeof(int64_t) * (size_t)cap);
        if (q) c->start = q;
        int64_t *n = q ? realloc(c->cnt, sizeof(int64_t) * (size_t)cap) : NULL;
        if (!n) return -1;
        c->cnt = n;
        for (int64_t r = c->cap_r; r < cap; r++) c->cnt[r] = 0;   /* zero between columns */
        c->cap_r = cap;
    }
    return 0;
}

/* C += A * B (replay.c's muladd): per column j of B, the products of each
 * row summed in the interpreter's order (B's entries, then A's) into +0,
 * then added to C's entry.  -1 also when C's pattern lacks a product's row
 * (the interpreter would leave it in its accumulator: never compiled). */
static int c_muladd(cc_t *c, const jg_gmat_t *A, const jg_gmat_t *B, const jg_gmat_t *C)
{
    const uint32_t acc = c->c0 + C_ACC, one = c->c0 + C_ONE;
    if (A->m == 1 && A->n == 1 && B->n == 1 && C->p[1] == 1 && B->p[1] == 1 && A->p[1] == 1)
        return emit(c, C->xoff, S_ACC, 1, A->xoff, B->xoff);   /* the scalar path: no accumulator */
    const int64_t *Ai = jg__gmat_i(A), *Bi = jg__gmat_i(B);
    for (int64_t j = 0; j < B->n; j++) {
        int64_t np = 0;
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) np += A->p[Bi[kk] + 1] - A->p[Bi[kk]];
        if (col_room(c, np, A->m)) return -1;
        np = 0;
        for (int64_t kk = B->p[j]; kk < B->p[j + 1]; kk++) {
            int64_t k = Bi[kk];
            for (int64_t ii = A->p[k]; ii < A->p[k + 1]; ii++) {
                c->pr[np] = Ai[ii];
                c->pa[np] = A->xoff + ii;
                c->pb[np++] = B->xoff + kk;
                c->cnt[Ai[ii]]++;
            }
        }
        /* group by row, keeping each row's order */
        int64_t s = 0;
        for (int64_t q = 0; q < np; q++) {
            int64_t r = c->pr[q];
            if (c->cnt[r] >= 0) {
                c->start[r] = s;
                s += c->cnt[r];
                c->cnt[r] = -1 - c->cnt[r];   /* placed: -1 - count */
            }
        }
        for (int64_t q = 0; q < np; q++) {
            int64_t r = c->pr[q], at = c->start[r]++;
            c->sa[at] = c->pa[q];
            c->sb[at] = c->pb[q];
        }
        int64_t used = 0;
        for (int64_t cc = C->p[j]; cc < C->p[j + 1]; cc++) {
            int64_t r = jg__gmat_i(C)[cc], d = C->xoff + cc, n = c->cnt[r] < 0 ? -1 - c->cnt[r] : 0;
            int64_t q0 = n ? c->start[r] - n : 0;
            used += n;
            if (n == 0) {
                if (emit(c, d, S_ACC, 0, c->c0 + C_ZERO, c->c0 + C_ZERO)) return -1;   /* += 0 */
            } else if (n == 1) {
                if (emit(c, d, S_ACC, 0, c->sa[q0], c->sb[q0])) return -1;
            } else {
                if (emit(c, acc, S_NZERO, 0, c->sa[q0], c->sb[q0])) return -1;   /* acc = 0 + p1 */
                for (int64_t q = q0 + 1; q < q0 + n; q++)
                    if (emit(c, acc, S_ACC, 1, c->sa[q], c->sb[q])) return -1;   /* acc += pq */
                if (emit(c, d, S_ACC, 1, acc, one)) return -1;                   /* d += acc */
            }
        }
        for (int64_t q = 0; q < np; q++) c->cnt[c->pr[q]] = 0;
        if (used != np) return -1;
    }
    return 0;
}

/* C += A for C's pattern containing A's (replay.c's add). */
static int c_add(cc_t *c, const jg_gmat_t *A, const jg_gmat_t *C)
{
    for (int64_t j = 0; j < A->n; j++) {
        int64_t q = C->p[j];
        for (int64_t k = A->p[j]; k < A->p[j + 1]; k++) {
            while (q < C->p[j + 1] && jg__gmat_i(C)[q] < jg__gmat_i(A)[k]) q++;
            if (q == C->p[j + 1] || jg__gmat_i(C)[q] != jg__gmat_i(A)[k]) return -1;
            if (emit(c, C->xoff + q, S_ACC, 1, A->xoff + k, c->c0 + C_ONE)) return -1;
        }
    }
    return 0;
}

/* N = O scattered into N's larger pattern (replay.c's expand). */
static int c_expand(cc_t *c, const jg_gmat_t *O, const jg_gmat_t *N)
{
    for (int64_t j = 0; j < O->n; j++) {
        int64_t q = N->p[j];
        for (int64_t k = O->p[j]; k < O->p[j + 1]; k++) {
            while (q < N->p[j + 1] && jg__gmat_i(N)[q] < jg__gmat_i(O)[k]) q++;
            if (q == N->p[j + 1] || jg__gmat_i(N)[q] != jg__gmat_i(O)[k]) return -1;
            if (emit(c, N->xoff + q, S_NZERO, 1, O->xoff + k, c->c0 + C_ONE)) return -1;
        }
    }
    return 0;
}

/* T = S * K for a dense S (replay.c's scale): each column of T where K has
 * entries is zeroed, then summed into. */
static int c_scale(cc_t *c, const jg_gmat_t *S, const jg_gmat_t *K, const jg_gmat_t *T)
{
    int64_t n = S->m;
    for (int64_t j = 0; j < K->n; j++) {
        if (T->p[j + 1] == T->p[j]) continue;
        if (T->p[j + 1] - T->p[j] != n) return -1;
        int64_t col = T->xoff + T->p[j];
        if (K->p[j + 1] == K->p[j])
            for (int64_t i = 0; i < n; i++)
                if (emit_zero(c, col + i)) return -1;
        for (int64_t kk = K->p[j]; kk < K->p[j + 1]; kk++)
            for (int64_t i = 0; i < n; i++)
                if (emit(c, col + i, kk == K->p[j] ? S_NZERO : S_ACC, kk != K->p[j],
                         S->xoff + jg__gmat_i(K)[kk] * n + i, K->xoff + kk))
                    return -1;
    }
    return 0;
}

/* T = S * K for a diagonal S (replay.c's scale_diag): T has K's pattern. */
static int c_scale_diag(cc_t *c, const jg_gmat_t *S, const jg_gmat_t *K, const jg_gmat_t *T)
{
    for (int64_t kk = 0; kk < jg__nnz(K); kk++)
        if (emit(c, T->xoff + kk, S_NZERO, 1, S->xoff + jg__gmat_i(K)[kk], K->xoff + kk)) return -1;
    return 0;
}

void jg__tape_free(struct jg_tape *t)
{
    if (!t) return;
    free(t->ins);
    free(t->seg_end);
    free(t->seg_op);
    free(t->rest);
    free(t->run_pe);
    free(t->run_dst);
    free(t->run_len);
    free(t);
}

size_t jg__tape_bytes(const struct jg_tape *t)
{
    if (!t) return 0;
    return sizeof *t + sizeof(jg_tins_t) * (size_t)t->nins +
           2 * sizeof(int64_t) * (size_t)t->nseg + sizeof(int64_t) * (size_t)t->nrest +
           3 * sizeof(int64_t) * (size_t)(t->nrun + 1);
}

int jg__tape_current(const jg_graph_t *g)
{
    return g->tape && g->tape->ops_n == g->ops_n && g->tape->nx == g->nx;
}

/* Room for the cells past nx in g's own values. */
static int cells_room(jg_graph_t *g)
{
    if (g->capx >= g->nx + JG__TAPE_CELLS) return 0;
    double *x = realloc(g->x, sizeof(double) * (size_t)(g->nx + JG__TAPE_CELLS));
    if (!x) return -1;
    g->x = x;
    g->capx = g->nx + JG__TAPE_CELLS;
    return 0;
}

int jg__tape_compile(jg_graph_t *g)
{
    int rc = -1;
    cc_t c = {.g = g};
    if (g->nx + JG__TAPE_CELLS > (int64_t)UINT32_MAX || cells_room(g)) return -1;
    c.t = calloc(1, sizeof *c.t);
    c.f = calloc((size_t)g->nx + 1, 1);
    c.nzep = calloc((size_t)g->nx + 1, sizeof *c.nzep);
    c.ep = 1;
    if (!c.t || !c.f || !c.nzep) goto done;
    struct jg_tape *t = c.t;
    t->ops_n = g->ops_n;
    t->nx = g->nx;
    c.c0 = (uint32_t)g->nx;
    memset(c.f, 1, (size_t)g->x_orig);
    int64_t nrun = 0, end = -1;
    for (int64_t k = 0; k < g->npartedge; k++) {
        const jg_gmat_t *m = &g->mat[g->pe_mat[k]];
        nrun += m->xoff != end;
        end = m->xoff + jg__nnz(m);
    }
    t->run_pe = malloc(sizeof(int64_t) * (size_t)(nrun + 1));
    t->run_dst = malloc(sizeof(int64_t) * (size_t)(nrun + 1));
    t->run_len = malloc(sizeof(int64_t) * (size_t)(nrun + 1));
    if (!t->run_pe || !t->run_dst || !t->run_len) goto done;
    end = -1;
    for (int64_t k = 0; k < g->npartedge; k++) {
        const jg_gmat_t *m = &g->mat[g->pe_mat[k]];
        for (int64_t q = 0; q < jg__nnz(m); q++) c.f[m->xoff + q] |= 2;
        if (m->xoff != end) {
            t->run_pe[t->nrun] = k;
            t->run_dst[t->nrun++] = m->xoff;
        }
        end = m->xoff + jg__nnz(m);
        t->run_len[t->nrun - 1] = end - t->run_dst[t->nrun - 1];
    }
    t->run_pe[t->nrun] = g->npartedge;
    for (int64_t k = 0; k < g->ops_n; k++) {
        const jg_gop_t *op = &g->ops[k];
        const jg_gmat_t *A = op->a >= 0 ? &g->mat[op->a] : NULL, *C = &g->mat[op->c];
        int bad = 0;
        switch (op->code) {
        case OP_MULADD: bad = c_muladd(&c, A, &g->mat[op->b], C); break;
        case OP_ADD: bad = c_add(&c, A, C); break;
        case OP_EXPAND: bad = c_expand(&c, A, C); break;
        case OP_SCALE: bad = c_scale(&c, A, &g->mat[op->b], C); break;
        case OP_SCALED: bad = c_scale_diag(&c, A, &g->mat[op->b], C); break;
        case OP_INV:
        case OP_INVD:
            /* LAPACK and the pivot's guard: interpreted, on values in place */
            bad = settle(&c, op->a) || seg_close(&c, k);
            c.ep++;   /* what it writes is not followed (its S is a new matrix, so nothing
                         the compiler knew is lost today; if it ever works in place) */
            for (int64_t q = 0; !bad && q < jg__nnz(C); q++) c.f[C->xoff + q] |= 1;
            break;
        }
        if (bad || settle(&c, op->c)) goto done;
    }
    /* a fill value no operation reaches keeps the interpreter's +0 */
    for (int64_t i = g->x_orig; i < g->nx; i++)
        if (!(c.f[i] & 1) && emit_zero(&c, i)) goto done;
    if (seg_close(&c, -1)) goto done;
    if (g->tape_own) jg__tape_free(g->tape);
    g->tape = t;
    g->tape_own = 1;
    g->tape_w = NULL;   /* its runs are checked afresh */
    c.t = NULL;
    rc = 0;
done:
    jg__tape_free(c.t);
    free(c.f);
    free(c.nzep);
    free(c.pr);
    free(c.pa);
    free(c.pb);
    free(c.sa);
    free(c.sb);
    free(c.cnt);
    free(c.start);
    return rc;
}

/* The steps lo..hi-1 on x. */
static void run_steps(double *x, const jg_tins_t *in, int64_t lo, int64_t hi)
{
    for (int64_t k = lo; k < hi; k++) x[in[k].d] = x[in[k].s] + x[in[k].a] * x[in[k].b];
}

/* 1 when the parts of run r lie in one piece of w's values, in order. */
static int run_whole(const jg_graph_t *g, const struct jg_tape *t, int64_t r, const jg_eval_work_t *w)
{
    for (int64_t k = t->run_pe[r] + 1; k < t->run_pe[r + 1]; k++)
        if (jg__eval_jac_values(w, g->pe_part[k]) !=
            jg__eval_jac_values(w, g->pe_part[k - 1]) + jg__nnz(&g->mat[g->pe_mat[k - 1]]))
            return 0;
    return 1;
}

/* The block Jacobians' values into their edges: a run at once where the
 * work keeps its parts in one piece (checked once per work, the ends again
 * per load), else part by part. */
static void load_parts(jg_graph_t *g, const struct jg_tape *t, const jg_eval_work_t *w)
{
    if (g->tape_w != w) {
        free(g->tape_whole);
        g->tape_whole = malloc((size_t)t->nrun + 1);
        g->tape_w = g->tape_whole ? w : NULL;
        for (int64_t r = 0; g->tape_whole && r < t->nrun; r++)
            g->tape_whole[r] = (unsigned char)run_whole(g, t, r, w);
    }
    double *x = g->x;
    for (int64_t r = 0; r < t->nrun; r++) {
        int64_t k0 = t->run_pe[r], k1 = t->run_pe[r + 1] - 1;
        const jg_gmat_t *last = &g->mat[g->pe_mat[k1]];
        const double *s0 = jg__eval_jac_values(w, g->pe_part[k0]);
        if (g->tape_whole && g->tape_whole[r] &&
            jg__eval_jac_values(w, g->pe_part[k1]) == s0 + (last->xoff - t->run_dst[r])) {
            memcpy(x + t->run_dst[r], s0, sizeof(double) * (size_t)t->run_len[r]);
            continue;
        }
        for (int64_t k = k0; k <= k1; k++) {
            const jg_gmat_t *m = &g->mat[g->pe_mat[k]];
            memcpy(x + m->xoff, jg__eval_jac_values(w, g->pe_part[k]), sizeof(double) * (size_t)jg__nnz(m));
        }
    }
}

int64_t jg__tape_run(jg_graph_t *g, const jg_eval_work_t *w)
{
    const struct jg_tape *t = g->tape;
    if (cells_room(g)) return -2;
    double *x = g->x;
    uint32_t c0 = (uint32_t)t->nx;
    x[c0 + C_ZERO] = 0.0;
    x[c0 + C_NZERO] = -0.0;
    x[c0 + C_ONE] = 1.0;
    x[c0 + C_ACC] = 0.0;
    x[c0 + C_TMP] = 0.0;
    for (int64_t k = 0; k < t->nrest; k++) x[t->rest[k]] = jg__graph_x_init(g, t->rest[k]);
    load_parts(g, t, w);
    g->piv_cond = 1;
    g->guard_v = -1;
    g->guard_cond = 0;
    int64_t lo = 0;
    for (int64_t s = 0; s < t->nseg; s++) {
        run_steps(x, t->ins, lo, t->seg_end[s]);
        lo = t->seg_end[s];
        if (t->seg_op[s] >= 0 && jg__gop_exec(g, t->seg_op[s])) return t->seg_op[s];
    }
    return -1;
}
