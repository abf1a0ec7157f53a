/* The fused evaluation plan: jg_eval_outputs on the program's own connection
 * compiled once into block calls with prebuilt contexts, loop solves and
 * batches of rows for the pure linear blocks and the blocks with element-wise
 * kernels (described below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"

/* Simulation evaluates the same program thousands of times with the
 * program's own connection (no injected perturbations), so jg_eval_outputs
 * compiles it once, on its first such call, into a plan:
 *
 *  - every real block that is not fused (below) gets its jg_eval_t built
 *    once (x, u, y, jac, ext, xd pointers never change; t, err and the hybrid
 *    flags are set per call); an input port whose elements are one run of
 *    signals is read from y in place (no copy: the values a gather would
 *    copy at the same moments), the others are gathered through one index
 *    array (an unconnected element reads y[ny], kept 0).  Blocks in loops and
 *    blocks with a discrete rate always gather (the loop solver's gathers; a
 *    held block keeps the inputs of its last hit).  The blocks with states
 *    and with update() get lists of their own for jg_eval_derivatives and
 *    jg__eval_update.
 *  - JG_BT_PURE_LINEAR blocks (Gain, Sum) outside algebraic loops and
 *    without a discrete rate are fused: their d parts are evaluated once and
 *    become sparse rows y[tgt] = sum val * y[col].  Such a block is deferred
 *    until a later block reads one of its outputs (or the end), so the rows of
 *    many blocks collect into one batch; a batch is ordered by dependency
 *    level, and an element-wise block over contiguous signals becomes a run
 *    evaluated with SSE2 pairs.  Each block's arithmetic is checked against
 *    its own outputs() on probe inputs when the plan is built (the signs of
 *    zeros included), so the plan's signals are bit for bit those of the
 *    block-by-block evaluation; a block whose arithmetic does not match (a
 *    one-input Sum "-") stays a block call.
 *  - blocks whose type declares an element-wise kernel for the instance
 *    (block_impl.h, jg_kernel_t: the plain Integrator's y = x, one-input
 *    Math and Trigonometry operators' y = fn(u)) join the batches as rows
 *    too: COPY rows y[tgt] = x[col] and FN rows y[tgt] = fn(y[col]) (the
 *    function checked against outputs() on probe inputs first).  Within a
 *    level of a batch the blocks are ordered by shape (bkey_t), so that the
 *    scalar blocks of a chain's sections line up into runs with a stride:
 *    one loop per kind of block over the whole chain, no call per block.
 *    dx = u of the Integrators without limits is copied from y the same way
 *    in jg_eval_derivatives, and an update() declared a no-op is not called.
 *  - outputs are checked for Inf/NaN once, over y, after the evaluation (the
 *    strided runs sum what they write instead, and the pass skips them); only
 *    when that finds one are the blocks searched in sorted order, so the error
 *    names the same block, output, element and time as a check after every
 *    block would; a kernel function's block found there calls its own
 *    outputs() to word its domain error or overflow.  When a block or loop
 *    fails, the fused blocks before it are evaluated and searched first, for
 *    the same reason.
 *
 * The inputs u of fused blocks and of ports read in place are not gathered;
 * jg_eval_jacobians gathers them when it needs them (w->planned).
 *
 * Another connection (linearization I/O points: openings, input points that
 * add w to the signals their consumers read) takes the block-by-block path,
 * unless the work allows the plan for it (jg__eval_plan_any: a linearizer
 * that evaluates many points).  The plan is then built on that connection:
 * its signal sources instead of the program's, and a block that reads an
 * injected element is never fused, a kernel row or read in place -- it is
 * gathered, and the injections added after the gather in the connection's
 * order, the block-by-block gather's arithmetic.  A plan belongs to the
 * connection it was built for; another one builds a new plan. */

enum { ST_CALL, ST_BLOCK, ST_LOOP, ST_LIN };   /* CALL: a BLOCK that only calls outputs() */
typedef int (*block_fn_t)(const jg_block_t *b, jg_eval_t *e);
typedef struct {
    int kind;
    int32_t rate;             /* BLOCK: the block's discrete rate, -1 */
    int32_t pos;              /* place of the (first) block in the sorted order, -1 for LIN */
    int32_t a0, a1;           /* BLOCK: its context; LOOP: the loop (a0); LIN: segments a0..a1-1 */
    const jg_block_t *B;      /* BLOCK */
    block_fn_t outputs;       /* BLOCK: B's outputs() or NULL */
    jg_eval_t *e;             /* BLOCK: B's context */
} plan_step_t;

/* Segments of rows of one dependency level, in this order of kinds:
 *   COPY  y[tgt] = x[col]          (the outputs of JG_KERNEL_STATE blocks)
 *   FN    y[tgt] = fn(y[col])      (JG_KERNEL_FN blocks, one fn per segment)
 *   ONE   y[tgt] = val * y[col]    (fused linear blocks' one-term rows, bare)
 *   ACC   y[tgt] = 0 + sum of val * y[col]
 * A run is m rows with targets t0, t0 + ts, t0 + 2 ts, ... whose term j
 * reads c_j + i d_j in row i: an element-wise block over contiguous signals
 * (ts 1, d_j 0 or 1), or as many scalar blocks of one shape over signals laid
 * out with a stride (a chain of sections: ts and d_j the section's size).  A
 * run's values are stored term by term (term j of row i at rp[r0] + j m + i);
 * the rows of one level read no row of the level, so a run can be evaluated
 * term by term or row by row. */
enum { SEG_COPY, SEG_FN, SEG_ONE, SEG_ACC };
typedef struct {
    int kind;         /* SEG_* */
    int run;          /* the rows form a run */
    int32_t k;        /* runs: terms per row; ACC: 2 or 3 when every row has that many, else 0 */
    int64_t r0, r1;   /* rows */
    int64_t ts;       /* runs: target stride */
    int64_t cd;       /* runs: (c_j, d_j) at P->cd[cd + 2 j] */
    double (*fn)(double);   /* FN */
    int uniform;      /* ACC runs of 2 or 3 terms: every term's values are one value and
                         every d_j is d_0 (the Sums of a chain's sections) */
    int fold;         /* strided runs: the loop sums what it writes, for the finiteness
                         check (run_lin), and the final pass skips these targets */
} plan_seg_t;

/* Derivatives dx[x0 + i xs] = y[y0 + i ys], i < m, of JG_KERNEL_INPUT blocks. */
typedef struct {
    int64_t x0, xs, y0, ys, m;
} plan_dcopy_t;

/* A block with states, for jg_eval_derivatives. */
typedef struct {
    const jg_block_t *B;
    block_fn_t derivatives;
    jg_eval_t *e;
    int64_t x_off;
} plan_deriv_t;

/* A block with update(), for jg__eval_update. */
typedef struct {
    const jg_block_t *B;
    block_fn_t update;
    jg_eval_t *e;
    double *xdw, *xw;
    int64_t zc_off;           /* -1: no zero crossings */
    int32_t rate;             /* discrete rate, -1 */
    int cont;                 /* continuous: updated at every major step */
} plan_upd_t;

struct jg_plan {
    int32_t nstep;
    plan_step_t *step;
    int32_t nctx;
    jg_eval_t *ctx;           /* per non-fused real block */
    int32_t *ctx_of;          /* per block: its context, -1 when fused or virtual */
    double **uptr;            /* per global input port: as w->uptr, or into y (aliased) */
    int64_t *gsrc;            /* per input element: signal element, ny when unconnected */
    int64_t *glo, *ghi;       /* gather ranges: u[e] = y[gsrc[e]], e = glo..ghi-1 */
    int64_t *ctx_g;           /* per context: its ranges ctx_g[k]..ctx_g[k+1]-1 */
    int32_t *regather, nregather;  /* contexts with an input without feedthrough */
    int32_t *stale, nstale;   /* blocks whose u the plan leaves stale: fused, aliased ports */
    int32_t *stale_var, nstale_var;  /* those of them with inputs whose Jacobian parts are
                                        not constant (jg__eval_jac_constant): all that
                                        jg_eval_jacobians needs gathered once it keeps the
                                        constant parts (w->jac_blk) */
    int32_t nseg;
    plan_seg_t *seg;
    int64_t *tgt, *rp, *col;  /* rows: target signal, terms rp[r]..rp[r+1]-1 */
    double *val;
    int64_t *cd;              /* runs' term sources (c_j, d_j) */
    int32_t nderiv;
    plan_deriv_t *deriv;
    int64_t ndcopy;
    plan_dcopy_t *dcopy;
    unsigned char *fnb;       /* per block: 1 when a JG_KERNEL_FN row computes its outputs */
    int32_t nupd;
    plan_upd_t *upd;
    int64_t nchk, *chk;       /* the signals the finiteness pass reads: ranges
                                 chk[2k]..chk[2k+1]-1 (the others' sums are folded) */
    jg_conn_t conn;           /* the connection the plan was built for */
    int64_t *ctx_i, *iel;     /* per context: its injected input elements
                                 iel[ctx_i[k]..ctx_i[k+1]-1] (all NULL: none) */
};

void jg__plan_free(struct jg_plan *P)
{
    if (!P) return;
    free(P->step);
    free(P->ctx);
    free(P->ctx_of);
    free(P->uptr);
    free(P->gsrc);
    free(P->glo);
    free(P->ghi);
    free(P->ctx_g);
    free(P->regather);
    free(P->stale);
    free(P->stale_var);
    free(P->seg);
    free(P->tgt);
    free(P->rp);
    free(P->col);
    free(P->val);
    free(P->cd);
    free(P->deriv);
    free(P->dcopy);
    free(P->fnb);
    free(P->upd);
    free(P->chk);
    free(P->ctx_i);
    free(P->iel);
    free(P);
}

int jg__plan_applies(const jg_eval_work_t *w)
{
    return (w->conn.src == w->p->u_src && !w->conn.inj_ptr) || w->plan_any;
}

/* Was w's plan built for w's current connection? */
static int plan_current(const jg_eval_work_t *w)
{
    const jg_conn_t *a = &w->plan->conn, *b = &w->conn;
    return a->src == b->src && a->inj_ptr == b->inj_ptr && a->inj_idx == b->inj_idx && a->w == b->w;
}

/* 1 when an input element of block b has an injected perturbation. */
static int injected(const jg_eval_work_t *w, int32_t b)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    if (!w->conn.inj_ptr || !B->nin) return 0;
    int64_t e0 = p->u_off[jg__inport(p, b, 0)], e1 = e0;
    for (int k = 0; k < B->nin; k++) e1 += B->in_w[k];
    return w->conn.inj_ptr[e1] > w->conn.inj_ptr[e0];
}

/* The rows of the fused blocks from their d parts (values filled), one
 * compressed-row pool for all blocks, appended block after block: block b's
 * row roff[q] + i is output q element i; terms in port order, columns
 * ascending; ui is the input element (index in u) a term reads. */
typedef struct {
    int64_t nrow, nnz, caprp, capui, capval, captgt;
    int64_t *rp, *ui, *tgt;   /* rp: nrow + 1 term offsets */
    double *val;
    int64_t *row0;            /* per fused block: its first row */
    int32_t *nrows;           /* per block: its rows */
    /* probe scratch */
    double *pu, *py;
    int64_t cappu, cappy, capup, capyp;
    const double **up;
    double **yp;
} rowpool_t;

/* A view of one block's rows (valid until the pool grows). */
typedef struct {
    int64_t nrow;
    const int64_t *rp, *ui, *tgt;   /* rp, tgt from the block's first row; rp absolute */
    const double *val;
} brows_t;

static brows_t block_view(const rowpool_t *R, int32_t b)
{
    return (brows_t){R->nrows[b], R->rp + R->row0[b], R->ui, R->tgt + R->row0[b], R->val};
}

static void rowpool_free(rowpool_t *R)
{
    free(R->rp);
    free(R->ui);
    free(R->tgt);
    free(R->val);
    free(R->row0);
    free(R->nrows);
    free(R->pu);
    free(R->py);
    free(R->up);
    free(R->yp);
}

static int grow(void **a, int64_t *cap, int64_t need, size_t size);

static int block_rows(const jg_eval_work_t *w, int32_t b, rowpool_t *R)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    cs_dl *const *part = jg__eval_parts(w, b);
    int64_t nrow = 0, nnz = 0, r0 = R->nrow, z0 = R->nnz;
    int64_t roff[B->nout + 1];
    for (int q = 0; q < B->nout; q++) {
        roff[q] = nrow;
        nrow += B->out_w[q];
    }
    for (int k = 0; k < B->npart; k++) nnz += part[k]->p[part[k]->n];
    if (grow((void **)&R->rp, &R->caprp, r0 + nrow + 2, sizeof(int64_t)) ||
        grow((void **)&R->tgt, &R->captgt, r0 + nrow + 1, sizeof(int64_t)) ||
        grow((void **)&R->ui, &R->capui, z0 + nnz + 1, sizeof(int64_t)) ||
        grow((void **)&R->val, &R->capval, z0 + nnz + 1, sizeof(double)))
        return -1;
    int64_t *rp = R->rp + r0;   /* rp[0]: the previous block's end */
    rp[0] = z0;
    for (int64_t i = 1; i <= nrow + 1; i++) rp[i] = 0;
    for (int q = 0; q < B->nout; q++)
        for (int64_t i = 0; i < B->out_w[q]; i++)
            R->tgt[r0 + roff[q] + i] = p->y_off[jg__outport(p, b, q)] + i;
    /* counts, then the terms: parts by input port (declaration order among
     * equal ports), each part's columns ascending */
    for (int k = 0; k < B->npart; k++) {
        const cs_dl *m = part[k];
        for (int64_t q = 0; q < m->p[m->n]; q++) rp[roff[B->part[k].row_port] + m->i[q] + 2]++;
    }
    rp[1] = z0;
    for (int64_t i = 0; i < nrow; i++) rp[i + 2] += rp[i + 1];
    for (int port = 0; port < B->nin; port++)
        for (int k = 0; k < B->npart; k++) {
            if (B->part[k].col_port != port) continue;
            const cs_dl *m = part[k];
            int64_t uo = p->u_off[jg__inport(p, b, port)], ro = roff[B->part[k].row_port];
            for (int64_t j = 0; j < m->n; j++)
                for (int64_t q = m->p[j]; q < m->p[j + 1]; q++) {
                    int64_t t = rp[ro + m->i[q] + 1]++;
                    R->ui[t] = uo + j;
                    R->val[t] = m->x[q];
                }
        }
    R->row0[b] = r0;
    R->nrows[b] = (int32_t)nrow;
    R->nrow += nrow;
    R->nnz += nnz;
    return 0;
}

/* Row r of a block on inputs u (indexed from u0): one-term rows as the bare
 * product when one_bare, else accumulated from +0. */
static double row_value(const brows_t *r, int64_t row, const double *u, int64_t u0, int one_bare)
{
    int64_t a = r->rp[row], z = r->rp[row + 1];
    if (one_bare && z - a == 1) return r->val[a] * u[r->ui[a] - u0];
    double acc = 0;
    for (int64_t j = a; j < z; j++) acc += r->val[j] * u[r->ui[j] - u0];
    return acc;
}

/* Which arithmetic reproduces block b's outputs() bit for bit on probe inputs
 * (+0, -0, values of mixed signs and magnitudes, and a mix of these): 1 =
 * one-term rows bare, 2 = every row from +0, 0 = neither (not fused);
 * -1 out of memory. */
static int probe_mode(jg_eval_work_t *w, int32_t b, rowpool_t *R, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    const brows_t r = block_view(R, b);
    int64_t u0 = B->nin ? p->u_off[jg__inport(p, b, 0)] : 0, nu = 0;
    for (int k = 0; k < B->nin; k++) nu += B->in_w[k];
    if (grow((void **)&R->pu, &R->cappu, nu + 1, sizeof(double)) ||
        grow((void **)&R->py, &R->cappy, r.nrow + 1, sizeof(double)) ||
        grow((void **)&R->up, &R->capup, B->nin + 1, sizeof(double *)) ||
        grow((void **)&R->yp, &R->capyp, B->nout + 1, sizeof(double *)))
        return -1;
    double *u = R->pu, *y = R->py;
    int ok[3] = {0, 1, 1};
    for (int k = 0; k < B->nin; k++) R->up[k] = u + (p->u_off[jg__inport(p, b, k)] - u0);
    for (int64_t q = 0, o = 0; q < B->nout; o += B->out_w[q], q++) R->yp[q] = y + o;
    for (int probe = 0; probe < 4 && (ok[1] || ok[2]); probe++) {
        for (int64_t k = 0; k < nu; k++) {
            uint64_t h = (uint64_t)(k + 1) * 0x9E3779B97F4A7C15u;
            double v = ((double)(h >> 11) / 9007199254740992.0 - 0.5) * 0x1p-20 *
                       (double)(UINT64_C(1) << (h % 41));
            double z = (h >> 7) & 1 ? 0.0 : -0.0;
            u[k] = probe == 0 ? 0.0 : probe == 1 ? -0.0 : probe == 2 ? v : k % 3 == 2 ? v : z;
        }
        jg_eval_t e;
        jg__eval_make_eval(w, b, &e, err);
        e.u = R->up;
        e.y = R->yp;
        if (B->type->outputs(B, &e)) {
            jg_error_clear(err);
            ok[1] = ok[2] = 0;
            break;
        }
        for (int mode = 1; mode <= 2; mode++)
            for (int64_t i = 0; ok[mode] && i < r.nrow; i++) {
                double v = row_value(&r, i, u, u0, mode == 1);
                ok[mode] = !memcmp(&v, &y[i], sizeof v);
            }
    }
    return ok[1] ? 1 : ok[2] ? 2 : 0;
}

static int fusable(const jg_program_t *p, int32_t b)
{
    const jg_block_t *B = &p->blocks[b];
    if (!(B->type->flags & JG_BT_PURE_LINEAR) || B->virt || p->blk_loop[b] >= 0 || B->rate >= 0 ||
        B->nx || jg_block_nd(B) || jg_block_nzc(B) || B->type->update || B->type->zc || !B->type->outputs ||
        !B->type->jacobian || B->is_root_port)
        return 0;
    for (int k = 0; k < B->npart; k++)
        if (B->part[k].kind != JG_JAC_D) return 0;
    return 1;
}

/* Block b's element-wise kernels (block_impl.h) the plan may use, in *k
 * (zeroed when none): outputs STATE or FN, derivatives INPUT, each checked
 * against the block's shape. */
static void kernels_of(const jg_program_t *p, int32_t b, jg_kernel_t *k)
{
    const jg_block_t *B = &p->blocks[b];
    memset(k, 0, sizeof *k);
    if (!B->type->kernel || B->virt || p->blk_loop[b] >= 0 || B->rate >= 0 || B->is_root_port ||
        !B->type->outputs)
        return;
    B->type->kernel(B, k);
    if (k->outputs == JG_KERNEL_STATE && !(B->nout == 1 && B->out_w[0] == B->nx))
        k->outputs = JG_KERNEL_NONE;
    if (k->outputs == JG_KERNEL_FN &&
        !(k->fn && B->nin == 1 && B->nout == 1 && B->in_w[0] == B->out_w[0] && !B->nx && !jg_block_nd(B) &&
          !jg_block_nzc(B) && !B->type->update && !B->type->zc))
        k->outputs = JG_KERNEL_NONE;
    if (k->outputs != JG_KERNEL_STATE && k->outputs != JG_KERNEL_FN) k->outputs = JG_KERNEL_NONE;
    if (!(k->derivatives == JG_KERNEL_INPUT && B->nx > 0 && B->nin >= 1 && B->in_w[0] == B->nx &&
          B->type->derivatives))
        k->derivatives = JG_KERNEL_NONE;
}

/* Does block b's outputs() agree with y = fn(u) on probe inputs (+0, -0,
 * values of both signs and many magnitudes, outside the usual domains too):
 * equal bit for bit where it succeeds, fn non-finite somewhere where it
 * fails?  1 yes, 0 no, -1 out of memory. */
static int probe_fn(jg_eval_work_t *w, int32_t b, double (*fn)(double), rowpool_t *R)
{
    static const double pv[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.75, -3.5, 1e-9, -7e-300,
                                0.999999, 1.25e3, -800.0, 1e300, 0x1p-1074};
    const int64_t n = sizeof pv / sizeof *pv;
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    int64_t nw = B->in_w[0];
    if (grow((void **)&R->pu, &R->cappu, nw + 1, sizeof(double)) ||
        grow((void **)&R->py, &R->cappy, nw + 1, sizeof(double)) ||
        grow((void **)&R->up, &R->capup, 2, sizeof(double *)) ||
        grow((void **)&R->yp, &R->capyp, 2, sizeof(double *)))
        return -1;
    double *u = R->pu, *y = R->py;
    R->up[0] = u;
    R->yp[0] = y;
    for (int64_t probe = 0; probe < n; probe++) {
        int bad = 0;
        for (int64_t i = 0; i < nw; i++) u[i] = pv[(probe + i) % n];
        jg_error_t e2 = {0};
        jg_eval_t e;
        jg__eval_make_eval(w, b, &e, &e2);
        e.u = R->up;
        e.y = R->yp;
        if (B->type->outputs(B, &e)) {
            for (int64_t i = 0; i < nw; i++) bad |= !isfinite(fn(u[i]));
            if (!bad) return 0;
            continue;
        }
        for (int64_t i = 0; i < nw; i++) {
            double v = fn(u[i]);
            if (memcmp(&v, &y[i], sizeof v)) return 0;
        }
    }
    return 1;
}

/* Grow *a (elements of size bytes) to hold need elements. */
static int grow(void **a, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *n = realloc(*a, size * (size_t)c);
    if (!n) return -1;
    *a = n;
    *cap = c;
    return 0;
}

/* The key that orders the blocks of one level and kind in a batch: blocks of
 * one shape (function, rows, terms, and for a one-row block where its terms
 * read relative to its target) come together, so that the scalar blocks of a
 * chain's sections line up into runs; equal keys keep the sorted order. */
typedef struct {
    int64_t a[6];
    int32_t i;      /* place in the pending list */
} bkey_t;

/* The plan under construction. */
typedef struct {
    jg_eval_work_t *w;
    struct jg_plan *P;
    int64_t nrow, capstep, capseg, captgt, caprp, capcol, capval, ncd, capcd;
    rowpool_t R;              /* rows of the fused blocks */
    signed char *mode;        /* per block: 0 not fused, 1 / 2 (probe_mode) */
    signed char *kmode;       /* per block: JG_KERNEL_STATE / _FN when a kernel row computes
                                 its outputs, else 0 */
    double (**kfn)(double);   /* per block: the fn of a JG_KERNEL_FN */
    int32_t *pend, npend;     /* deferred fused blocks, sorted order */
    int32_t *level;           /* per block: dependency level in its batch */
    int32_t *sig_batch, *sig_level;   /* per signal: producing batch (-1) and its level */
    int32_t batch;
    bkey_t *keys;             /* flush's scratch, one per pending block, */
    int32_t *ord, *lstart;    /* and the pending blocks by level */
} pbuild_t;

static int add_step(pbuild_t *c, plan_step_t s)
{
    struct jg_plan *P = c->P;
    if (grow((void **)&P->step, &c->capstep, P->nstep + 1, sizeof *P->step)) return -1;
    P->step[P->nstep++] = s;
    return 0;
}

/* Does block b read a signal of the current batch? */
static int reads_pending(const pbuild_t *c, int32_t b)
{
    const jg_program_t *p = c->w->p;
    const jg_block_t *B = &p->blocks[b];
    for (int k = 0; k < B->nin; k++) {
        int64_t o = p->u_off[jg__inport(p, b, k)];
        for (int64_t e = 0; e < B->in_w[k]; e++) {
            int64_t s = c->P->gsrc[o + e];
            if (s < p->ny && c->sig_batch[s] == c->batch) return 1;
        }
    }
    return 0;
}

/* Defer fused block b into the current batch. */
static void defer(pbuild_t *c, int32_t b)
{
    const jg_program_t *p = c->w->p;
    const jg_block_t *B = &p->blocks[b];
    int32_t lv = 0;
    for (int k = 0; k < B->nin; k++) {
        if (!p->feedthrough[jg__inport(p, b, k)]) continue;   /* (a state's copy: level 0) */
        int64_t o = p->u_off[jg__inport(p, b, k)];
        for (int64_t e = 0; e < B->in_w[k]; e++) {
            int64_t s = c->P->gsrc[o + e];
            if (s < p->ny && c->sig_batch[s] == c->batch && c->sig_level[s] + 1 > lv)
                lv = c->sig_level[s] + 1;
        }
    }
    c->level[b] = lv;
    for (int q = 0; q < B->nout; q++) {
        int64_t o = p->y_off[jg__outport(p, b, q)];
        for (int64_t e = 0; e < B->out_w[q]; e++) {
            c->sig_batch[o + e] = c->batch;
            c->sig_level[o + e] = lv;
        }
    }
    c->pend[c->npend++] = b;
}

static int add_seg(pbuild_t *c, plan_seg_t g)
{
    if (g.r1 == g.r0) return 0;
    if (g.kind == SEG_ACC && !g.run) {   /* rows of 2 or 3 terms each (a Sum "+-", "-++"): unrolled */
        const int64_t *rp = c->P->rp;
        int64_t k = rp[g.r0 + 1] - rp[g.r0];
        for (int64_t r = g.r0; k && r < g.r1; r++)
            if (rp[r + 1] - rp[r] != k) k = 0;
        g.k = k == 2 || k == 3 ? (int32_t)k : 0;
    }
    if (grow((void **)&c->P->seg, &c->capseg, c->P->nseg + 1, sizeof *c->P->seg)) return -1;
    c->P->seg[c->P->nseg++] = g;
    return 0;
}

/* Rows i.. that form a run (see plan_seg_t), at most r1 - i. */
static int64_t run_length(const struct jg_plan *P, int64_t i, int64_t r1)
{
    const int64_t *rp = P->rp, *col = P->col, *tgt = P->tgt;
    int64_t k = rp[i + 1] - rp[i], m = 1;
    if (k == 0 || i + 1 >= r1 || tgt[i + 1] == tgt[i]) return 1;
    const int64_t ts = tgt[i + 1] - tgt[i];
    for (; i + m < r1; m++) {
        int64_t r = i + m;
        if (tgt[r] != tgt[i] + m * ts || rp[r + 1] - rp[r] != k) break;
        int ok = 1;
        for (int64_t j = 0; ok && j < k; j++) {
            int64_t d = col[rp[i + 1] + j] - col[rp[i] + j];
            ok = col[rp[r] + j] == col[rp[i] + j] + m * d;
        }
        if (!ok) break;
    }
    return m;
}

/* Split rows r0..r1-1 (one level, one kind, one fn) into runs of at least 4
 * rows and segments of the rows between them. */
static int segments(pbuild_t *c, int kind, double (*fn)(double), int64_t r0, int64_t r1)
{
    struct jg_plan *P = c->P;
    int64_t g0 = r0;
    for (int64_t i = r0; i < r1;) {
        int64_t m = run_length(P, i, r1);
        if (m < 4) {
            i += m;
            continue;
        }
        int64_t k = P->rp[i + 1] - P->rp[i], v0 = P->rp[i];
        if (add_seg(c, (plan_seg_t){.kind = kind, .r0 = g0, .r1 = i, .fn = fn}) ||
            grow((void **)&P->cd, &c->capcd, c->ncd + 2 * k, sizeof(int64_t)))
            return -1;
        for (int64_t j = 0; j < k; j++) {
            P->cd[c->ncd + 2 * j] = P->col[v0 + j];
            P->cd[c->ncd + 2 * j + 1] = P->col[P->rp[i + 1] + j] - P->col[v0 + j];
        }
        double *tmp = malloc(sizeof(double) * (size_t)(m * k));   /* values term by term */
        if (!tmp) return -1;
        for (int64_t t = 0; t < m; t++)
            for (int64_t j = 0; j < k; j++) tmp[j * m + t] = P->val[v0 + t * k + j];
        memcpy(P->val + v0, tmp, sizeof(double) * (size_t)(m * k));
        free(tmp);
        int uniform = kind == SEG_ACC && (k == 2 || k == 3);
        for (int64_t j = 0; uniform && j < k; j++) {
            uniform = P->cd[c->ncd + 2 * j + 1] == P->cd[c->ncd + 1];
            for (int64_t t = 1; uniform && t < m; t++)
                uniform = !memcmp(&P->val[v0 + j * m + t], &P->val[v0 + j * m], sizeof(double));
        }
        int fold = kind == SEG_FN || P->tgt[i + 1] - P->tgt[i] != 1;
        for (int64_t j = 0; j < k; j++) {
            int64_t d = P->cd[c->ncd + 2 * j + 1];
            fold |= kind == SEG_ACC ? d != 0 && d != 1 : d != 1;
        }
        if (add_seg(c, (plan_seg_t){.kind = kind, .run = 1, .k = (int32_t)k, .r0 = i, .r1 = i + m,
                                    .ts = P->tgt[i + 1] - P->tgt[i], .cd = c->ncd, .fn = fn,
                                    .uniform = uniform, .fold = fold}))
            return -1;
        c->ncd += 2 * k;
        i += m;
        g0 = i;
    }
    return add_seg(c, (plan_seg_t){.kind = kind, .r0 = g0, .r1 = r1, .fn = fn});
}

static int cmp_bkey(const void *x, const void *y)
{
    const bkey_t *p = x, *q = y;
    for (int j = 0; j < 6; j++)
        if (p->a[j] != q->a[j]) return p->a[j] < q->a[j] ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* Append row: target t, terms (col[j], val[j]), j < n. */
static int add_row(pbuild_t *c, int64_t t, const int64_t *col, const double *val, int64_t n)
{
    struct jg_plan *P = c->P;
    int64_t n0 = P->rp[c->nrow];
    if (grow((void **)&P->tgt, &c->captgt, c->nrow + 1, sizeof(int64_t)) ||
        grow((void **)&P->rp, &c->caprp, c->nrow + 2, sizeof(int64_t)) ||
        grow((void **)&P->col, &c->capcol, n0 + n, sizeof(int64_t)) ||
        grow((void **)&P->val, &c->capval, n0 + n, sizeof(double)))
        return -1;
    P->tgt[c->nrow] = t;
    memcpy(P->col + n0, col, sizeof(int64_t) * (size_t)n);
    memcpy(P->val + n0, val, sizeof(double) * (size_t)n);
    P->rp[++c->nrow] = n0 + n;
    return 0;
}

/* Block b's rows of the given kind (rows whose terms are signals: gsrc
 * applied): appended when out != NULL, else only the key of the first. */
static int block_kind_rows(pbuild_t *c, int32_t b, int kind, bkey_t *key)
{
    const jg_program_t *p = c->w->p;
    const jg_block_t *B = &p->blocks[b];
    struct jg_plan *P = c->P;
    if (kind <= SEG_FN) {   /* kernel blocks: one row per output element */
        if (c->kmode[b] != (kind == SEG_COPY ? JG_KERNEL_STATE : JG_KERNEL_FN)) return 0;
        int64_t t0 = p->y_off[jg__outport(p, b, 0)];
        int64_t s0 = kind == SEG_COPY ? B->x_off : 0, u0 = kind == SEG_FN ? p->u_off[jg__inport(p, b, 0)] : 0;
        for (int64_t e = 0; e < B->out_w[0]; e++) {
            int64_t col = kind == SEG_COPY ? s0 + e : P->gsrc[u0 + e];
            double one = 1;
            if (key) {
                *key = (bkey_t){{(int64_t)(uintptr_t)c->kfn[b], B->out_w[0], 1, t0 - col, 0, 0}, 0};
                return 1;
            }
            if (add_row(c, t0 + e, &col, &one, 1)) return -1;
        }
        return 0;
    }
    if (!c->mode[b]) return 0;
    const brows_t rv = block_view(&c->R, b), *r = &rv;
    for (int64_t k = 0; k < r->nrow; k++) {
        int64_t a = r->rp[k], z = r->rp[k + 1];
        if ((c->mode[b] == 1 && z - a == 1) != (kind == SEG_ONE)) continue;
        if (key) {
            *key = (bkey_t){{0, r->nrow, z - a, 0, 0, 0}, 0};
            for (int64_t j = a; j < z && j - a < 3 && r->nrow == 1; j++)
                key->a[3 + j - a] = r->tgt[k] - P->gsrc[r->ui[j]];
            return 1;
        }
        int64_t n0 = P->rp[c->nrow];
        if (grow((void **)&P->tgt, &c->captgt, c->nrow + 1, sizeof(int64_t)) ||
            grow((void **)&P->rp, &c->caprp, c->nrow + 2, sizeof(int64_t)) ||
            grow((void **)&P->col, &c->capcol, n0 + (z - a), sizeof(int64_t)) ||
            grow((void **)&P->val, &c->capval, n0 + (z - a), sizeof(double)))
            return -1;
        P->tgt[c->nrow] = r->tgt[k];
        for (int64_t j = a; j < z; j++) {
            P->col[n0 + j - a] = P->gsrc[r->ui[j]];
            P->val[n0 + j - a] = r->val[j];
        }
        P->rp[++c->nrow] = n0 + (z - a);
    }
    return 0;
}

/* Emit the deferred blocks as one LIN step: per level, the states' copies,
 * the kernel functions, the bare one-term rows, then the accumulated ones,
 * the blocks of each ordered by their keys (bkey_t).  Every row reads
 * signals of lower levels or of blocks evaluated before the step. */
static int flush(pbuild_t *c)
{
    if (!c->npend) return 0;
    struct jg_plan *P = c->P;
    int32_t maxl = 0, s0 = P->nseg, *at = c->lstart;
    for (int32_t i = 0; i < c->npend; i++)
        if (c->level[c->pend[i]] > maxl) maxl = c->level[c->pend[i]];
    /* the pending blocks by level (a counting sort, stable): ord[at[l]..at[l+1]-1] */
    memset(at, 0, sizeof(int32_t) * (size_t)(maxl + 2));
    for (int32_t i = 0; i < c->npend; i++) at[c->level[c->pend[i]] + 1]++;
    for (int32_t l = 0; l <= maxl; l++) at[l + 1] += at[l];
    for (int32_t i = 0; i < c->npend; i++) c->ord[at[c->level[c->pend[i]]]++] = i;
    for (int32_t l = maxl; l > 0; l--) at[l] = at[l - 1];
    at[0] = 0;
    for (int32_t l = 0; l <= maxl; l++)
        for (int kind = SEG_COPY; kind <= SEG_ACC; kind++) {
            int32_t nk = 0;
            for (int32_t j = at[l]; j < at[l + 1]; j++) {
                int32_t i = c->ord[j], b = c->pend[i];
                int r = block_kind_rows(c, b, kind, &c->keys[nk]);
                if (r < 0) return -1;
                if (r) c->keys[nk++].i = i;
            }
            if (!nk) continue;
            qsort(c->keys, (size_t)nk, sizeof *c->keys, cmp_bkey);
            int64_t r0 = c->nrow;
            for (int32_t j = 0; j < nk; j++) {
                int32_t b = c->pend[c->keys[j].i];
                /* a new function starts a new group of segments */
                if (kind == SEG_FN && j && c->kfn[b] != c->kfn[c->pend[c->keys[j - 1].i]]) {
                    if (segments(c, kind, c->kfn[c->pend[c->keys[j - 1].i]], r0, c->nrow)) return -1;
                    r0 = c->nrow;
                }
                if (block_kind_rows(c, b, kind, NULL)) return -1;
            }
            if (segments(c, kind, kind == SEG_FN ? c->kfn[c->pend[c->keys[nk - 1].i]] : NULL, r0,
                         c->nrow))
                return -1;
        }
    if (add_step(c, (plan_step_t){.kind = ST_LIN, .rate = -1, .pos = -1, .a0 = s0, .a1 = P->nseg}))
        return -1;
    c->npend = 0;
    c->batch++;
    return 0;
}

/* May block b read input port k straight from y?  When the port's elements
 * are one run of signals, not b's own outputs, and b is evaluated only by
 * the plan's steps (no loop, no discrete rate: a held block keeps the inputs
 * of its last hit).  A gather would copy the same values at the same moments
 * (before outputs(), after the evaluation), so nothing can tell. */
static int aliasable(const jg_program_t *p, const int64_t *gsrc, int32_t b, int k)
{
    const jg_block_t *B = &p->blocks[b];
    if (p->blk_loop[b] >= 0 || B->rate >= 0 || B->in_w[k] <= 0) return 0;
    int64_t o = p->u_off[jg__inport(p, b, k)], s0 = gsrc[o], n = B->in_w[k];
    if (s0 + n > p->ny) return 0;
    for (int64_t e = 1; e < n; e++)
        if (gsrc[o + e] != s0 + e) return 0;
    for (int q = 0; q < B->nout; q++) {
        int64_t y0 = p->y_off[jg__outport(p, b, q)];
        if (s0 < y0 + B->out_w[q] && y0 < s0 + n) return 0;
    }
    return 1;
}

/* A kernel function probed (probe_fn) for a type's outputs(). */
typedef struct {
    block_fn_t outputs;
    double (*fn)(double);
    int ok;
} probed_t;

static jg_status_t plan_build(jg_eval_work_t *w, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    jg_status_t st = JG_OK;
    pbuild_t c = {.w = w};
    struct jg_plan *P = calloc(1, sizeof *P);
    c.P = P;
    if (!P) return jg_error_set(err, JG_NOMEM, "out of memory");
    int64_t nblk = p->nblocks, nreal = p->nreal;
    P->gsrc = malloc(sizeof(int64_t) * (size_t)(p->nu + 1));
    P->ctx_of = malloc(sizeof(int32_t) * (size_t)(nblk + 1));
    P->uptr = malloc(sizeof(double *) * (size_t)(p->nin_ports + 1));
    P->glo = malloc(sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    P->ghi = malloc(sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    P->ctx_g = malloc(sizeof(int64_t) * (size_t)(nreal + 2));
    P->regather = malloc(sizeof(int32_t) * (size_t)(nreal + 1));
    P->stale = malloc(sizeof(int32_t) * (size_t)(nreal + 1));
    P->deriv = malloc(sizeof(plan_deriv_t) * (size_t)(w->nwith_x + 1));
    P->upd = malloc(sizeof(plan_upd_t) * (size_t)(w->nwith_upd + 1));
    P->rp = calloc(1, sizeof(int64_t));
    c.caprp = 1;
    c.R.row0 = malloc(sizeof(int64_t) * (size_t)(nblk + 1));
    c.R.nrows = calloc((size_t)nblk + 1, sizeof(int32_t));
    c.mode = calloc((size_t)nblk + 1, 1);
    c.pend = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    c.level = malloc(sizeof(int32_t) * (size_t)(nblk + 1));
    c.sig_batch = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    c.sig_level = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    c.kmode = calloc((size_t)nblk + 1, 1);
    c.kfn = calloc((size_t)nblk + 1, sizeof *c.kfn);
    c.keys = malloc(sizeof(bkey_t) * (size_t)(p->nsorted + 1));
    c.ord = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    c.lstart = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 2));
    P->fnb = calloc((size_t)nblk + 1, 1);
    P->dcopy = malloc(sizeof(plan_dcopy_t) * (size_t)(p->nx + 1));
    if (!c.kmode || !c.kfn || !c.keys || !c.ord || !c.lstart || !P->fnb || !P->dcopy) goto nomem;
    if (!P->gsrc || !P->ctx_of || !P->uptr || !P->glo || !P->ghi || !P->ctx_g ||
        !P->regather || !P->stale || !P->deriv || !P->upd || !P->rp || !c.R.row0 ||
        !c.R.nrows || !c.mode || !c.pend || !c.level || !c.sig_batch || !c.sig_level)
        goto nomem;
    P->conn = w->conn;
    for (int64_t k = 0; k < p->nu; k++) P->gsrc[k] = w->conn.src[k] >= 0 ? w->conn.src[k] : p->ny;
    for (int64_t k = 0; k < p->ny; k++) c.sig_batch[k] = -1;
    w->y[p->ny] = 0;   /* what unconnected inputs read */

    /* which blocks are fused: their constant d parts, then the arithmetic */
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        if (!fusable(p, b) || injected(w, b)) continue;
        const jg_block_t *B = &p->blocks[b];
        jg_eval_t e;
        jg__eval_make_eval(w, b, &e, err);
        if (B->type->jacobian(B, &e)) {   /* constant parts cannot fail; a block call then */
            jg_error_clear(err);
            continue;
        }
        int mode;
        if (block_rows(w, b, &c.R) || (mode = probe_mode(w, b, &c.R, err)) < 0) goto nomem;
        c.mode[b] = (signed char)mode;
        if (c.mode[b]) P->stale[P->nstale++] = b;
    }

    /* which blocks' outputs are element-wise kernels (block_impl.h); a
     * function is probed on the first block of each type that declares it
     * (the answer is the type's code, not the instance's: a million scalar
     * sines are probed once) */
    probed_t probed[16];
    int nprobed = 0;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        if (c.mode[b]) continue;
        jg_kernel_t k;
        kernels_of(p, b, &k);
        if (injected(w, b)) k.outputs = JG_KERNEL_NONE;
        if (k.outputs == JG_KERNEL_FN) {
            int r = -2;
            for (int j = 0; j < nprobed && r == -2; j++)
                if (probed[j].outputs == p->blocks[b].type->outputs && probed[j].fn == k.fn) r = probed[j].ok;
            if (r == -2 && (r = probe_fn(w, b, k.fn, &c.R)) >= 0 && nprobed < 16)
                probed[nprobed++] = (probed_t){p->blocks[b].type->outputs, k.fn, r};
            if (r < 0) goto nomem;
            if (!r) continue;
            c.kfn[b] = k.fn;
            P->fnb[b] = 1;
        }
        c.kmode[b] = (signed char)k.outputs;
    }

    /* contexts of the other real blocks: inputs read from y where a port
     * allows it, gathered otherwise (adjacent ports in one range) */
    int64_t nfused = P->nstale;
    P->ctx = calloc((size_t)(nreal - nfused) + 1, sizeof(jg_eval_t));
    if (!P->ctx) goto nomem;
    memcpy(P->uptr, w->uptr, sizeof(double *) * (size_t)p->nin_ports);
    if (w->conn.inj_ptr) {   /* the injected elements, context by context */
        P->ctx_i = malloc(sizeof(int64_t) * (size_t)(nreal - nfused + 2));
        P->iel = malloc(sizeof(int64_t) * (size_t)(p->nu + 1));
        if (!P->ctx_i || !P->iel) goto nomem;
        P->ctx_i[0] = 0;
    }
    int64_t ng = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        P->ctx_of[b] = -1;
        if (B->virt || c.mode[b]) continue;
        int32_t k = P->nctx++;
        P->ctx_of[b] = k;
        P->ctx_g[k] = ng;
        int aliased = 0, inj = injected(w, b);
        if (P->ctx_i) {
            int64_t n = P->ctx_i[k];
            for (int q = 0; q < B->nin; q++)
                for (int64_t e = 0, o = p->u_off[jg__inport(p, b, q)]; e < B->in_w[q]; e++)
                    if (w->conn.inj_ptr[o + e + 1] > w->conn.inj_ptr[o + e]) P->iel[n++] = o + e;
            P->ctx_i[k + 1] = n;
        }
        for (int q = 0; q < B->nin; q++) {
            int64_t g = jg__inport(p, b, q), o = p->u_off[g];
            if (!inj && aliasable(p, P->gsrc, b, q)) {
                P->uptr[g] = w->y + P->gsrc[o];
                aliased = 1;
            } else if (ng > P->ctx_g[k] && P->ghi[ng - 1] == o) {
                P->ghi[ng - 1] += B->in_w[q];
            } else if (B->in_w[q] > 0) {
                P->glo[ng] = o;
                P->ghi[ng++] = o + B->in_w[q];
            }
        }
        if (aliased || c.kmode[b]) P->stale[P->nstale++] = b;
        jg__eval_make_eval(w, b, &P->ctx[k], NULL);
        P->ctx[k].u = (const double *const *)(P->uptr + p->in_base[b]);
    }
    P->ctx_g[P->nctx] = ng;
    /* the stale blocks a batch's points gather: in a model of gains and sums
     * nearly all are fused and constant, and skipping them one by one took
     * 8 % of a point of the 10,000-block model */
    if (!(P->stale_var = malloc(sizeof(int32_t) * (size_t)(P->nstale + 1)))) goto nomem;
    for (int32_t i = 0; i < P->nstale; i++) {
        const jg_block_t *B = &p->blocks[P->stale[i]];
        if (B->nin && !jg__eval_jac_constant(B)) P->stale_var[P->nstale_var++] = P->stale[i];
    }
    for (int32_t i = 0; i < w->nregather; i++) {   /* (a fused block needs no inputs) */
        int32_t k = P->ctx_of[w->regather[i]];
        if (k >= 0 && P->ctx_g[k + 1] > P->ctx_g[k]) P->regather[P->nregather++] = k;
    }
    /* derivatives: dx = u as copies from y (in runs), the others called */
    for (int32_t i = 0; i < w->nwith_x; i++) {
        const jg_block_t *B = &p->blocks[w->with_x[i]];
        jg_kernel_t k;
        kernels_of(p, B->id, &k);
        if (injected(w, B->id)) k.derivatives = JG_KERNEL_NONE;   /* dx = u + w: called */
        if (k.derivatives != JG_KERNEL_INPUT) {
            P->deriv[P->nderiv++] =
                (plan_deriv_t){B, B->type->derivatives, &P->ctx[P->ctx_of[B->id]], B->x_off};
            continue;
        }
        int64_t u0 = p->u_off[jg__inport(p, B->id, 0)];
        for (int64_t e = 0; e < B->nx; e++) {
            int64_t xi = B->x_off + e, yi = P->gsrc[u0 + e];
            plan_dcopy_t *d = P->ndcopy ? &P->dcopy[P->ndcopy - 1] : NULL;
            if (d && d->m == 1 && xi != d->x0) {
                d->xs = xi - d->x0;
                d->ys = yi - d->y0;
                d->m = 2;
            } else if (d && d->m > 1 && xi == d->x0 + d->m * d->xs && yi == d->y0 + d->m * d->ys) {
                d->m++;
            } else {
                P->dcopy[P->ndcopy++] = (plan_dcopy_t){xi, 1, yi, 1, 1};
            }
        }
    }
    for (int32_t i = 0; i < w->nwith_upd; i++) {
        const jg_block_t *B = &p->blocks[w->with_upd[i]];
        jg_kernel_t k = {0};
        if (B->type->kernel) B->type->kernel(B, &k);
        if (k.no_update) continue;   /* (a plain Integrator) */
        P->upd[P->nupd++] = (plan_upd_t){B, B->type->update, &P->ctx[P->ctx_of[B->id]],
                                         w->xd + jg_block_d_off(B), w->x + B->x_off,
                                         jg_block_nzc(B) ? jg_block_zc_off(B) : -1, B->rate, B->ts.period == 0};
    }

    /* the steps */
    for (int32_t i = 0; i < p->nsorted;) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        int l = p->blk_loop[b];
        if (l >= 0) {
            int32_t nb;
            const int32_t *blk = jg_program_loop(p, l, &nb);
            int rd = 0;
            for (int32_t j = 0; j < nb; j++) rd |= reads_pending(&c, blk[j]);
            if ((rd && flush(&c)) ||
                add_step(&c, (plan_step_t){.kind = ST_LOOP, .rate = -1, .pos = i, .a0 = l}))
                goto nomem;
            i += p->loop_ptr[l + 1] - p->loop_ptr[l];
            continue;
        }
        if (c.mode[b] || c.kmode[b]) {
            defer(&c, b);
        } else {
            int32_t k = P->ctx_of[b];
            int call = B->rate < 0 && B->type->outputs && P->ctx_g[k + 1] == P->ctx_g[k];
            if ((reads_pending(&c, b) && flush(&c)) ||
                add_step(&c, (plan_step_t){.kind = call ? ST_CALL : ST_BLOCK, .rate = B->rate,
                                           .pos = i, .a0 = k, .B = B,
                                           .outputs = B->type->outputs, .e = &P->ctx[k]}))
                goto nomem;
        }
        i++;
    }
    if (flush(&c)) goto nomem;
    /* the finiteness pass: every signal but the folding runs' targets */
    {
        unsigned char *cov = calloc((size_t)p->ny + 1, 1);
        if (!cov) goto nomem;
        for (int32_t i = 0; i < P->nseg; i++) {
            const plan_seg_t *g = &P->seg[i];
            for (int64_t r = 0; g->fold && r < g->r1 - g->r0; r++) cov[P->tgt[g->r0] + r * g->ts] = 1;
        }
        int64_t n = 0;
        for (int64_t k = 0; k < p->ny; k++) n += !cov[k] && (k == 0 || cov[k - 1]);
        P->chk = malloc(sizeof(int64_t) * (size_t)(2 * n + 1));
        if (!P->chk) {
            free(cov);
            goto nomem;
        }
        for (int64_t k = 0; k < p->ny; k++) {
            if (cov[k]) continue;
            if (k == 0 || cov[k - 1]) P->chk[2 * P->nchk++] = k;
            P->chk[2 * P->nchk - 1] = k + 1;
        }
        free(cov);
    }
    w->plan = P;
    P = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    jg__plan_free(P);
    rowpool_free(&c.R);
    free(c.mode);
    free(c.pend);
    free(c.level);
    free(c.sig_batch);
    free(c.sig_level);
    free(c.kmode);
    free(c.kfn);
    free(c.keys);
    free(c.ord);
    free(c.lstart);
    return st;
}

/* Two doubles (an SSE2 register): each lane's arithmetic is the scalar one,
 * so results are bit for bit those of scalar code. */
typedef double jg_v2d __attribute__((vector_size(16)));

/* yt[i] = v[i] * u[i] (acc 0: bare), yt[i] = 0 + v[i] * u[i] (acc 1), or
 * yt[i] += v[i] * u[i] (acc 2), i < m; yt and u do not overlap. */
static inline void axpy_run(double *yt, const double *v, const double *u, int64_t m, int acc)
{
    int64_t i = 0;
    for (; i + 2 <= m; i += 2) {
        jg_v2d a, b, c;
        memcpy(&a, v + i, sizeof a);
        memcpy(&b, u + i, sizeof b);
        if (acc == 0) {
            c = a * b;
        } else if (acc == 1) {
            c = (jg_v2d){0.0, 0.0} + a * b;
        } else {
            memcpy(&c, yt + i, sizeof c);
            c += a * b;
        }
        memcpy(yt + i, &c, sizeof c);
    }
    for (; i < m; i++)
        yt[i] = acc == 0 ? v[i] * u[i] : acc == 1 ? 0.0 + v[i] * u[i] : yt[i] + v[i] * u[i];
}

/* A run of ACC rows with a target stride or term strides other than 0 and
 * 1: row by row, each from +0 in term order (as term by term would).  The
 * loops step pointers (no index products) and hoist uniform values; the sum
 * of the values written is returned (plan_seg_t fold). */
static double acc_run_rows(const struct jg_plan *P, const plan_seg_t *g, double *y)
{
    const int64_t m = g->r1 - g->r0, ts = g->ts, *cd = P->cd + g->cd;
    const double *v = P->val + P->rp[g->r0];
    double *yt = y + P->tgt[g->r0], f0 = 0, f1 = 0;
    if (g->uniform) {   /* one stride d for every term, one value per term */
        const double *u = y + cd[0];
        const int64_t d = cd[1], o1 = cd[2] - cd[0], o2 = g->k == 3 ? cd[4] - cd[0] : 0;
        const double a0 = v[0], a1 = v[m], a2 = g->k == 3 ? v[2 * m] : 0;
        int64_t i = 0;
        if (g->k == 3) {
            for (; i + 2 <= m; i += 2, u += 2 * d, yt += 2 * ts) {
                double p = ((0.0 + a0 * u[0]) + a1 * u[o1]) + a2 * u[o2];
                double q = ((0.0 + a0 * u[d]) + a1 * u[d + o1]) + a2 * u[d + o2];
                yt[0] = p;
                yt[ts] = q;
                f0 += p;
                f1 += q;
            }
            if (i < m) f0 += *yt = ((0.0 + a0 * u[0]) + a1 * u[o1]) + a2 * u[o2];
        } else {
            for (; i + 2 <= m; i += 2, u += 2 * d, yt += 2 * ts) {
                double p = (0.0 + a0 * u[0]) + a1 * u[o1], q = (0.0 + a0 * u[d]) + a1 * u[d + o1];
                yt[0] = p;
                yt[ts] = q;
                f0 += p;
                f1 += q;
            }
            if (i < m) f0 += *yt = (0.0 + a0 * u[0]) + a1 * u[o1];
        }
        return f0 + f1;
    }
    if (g->k == 3) {
        const double *u0 = y + cd[0], *u1 = y + cd[2], *u2 = y + cd[4];
        const int64_t d0 = cd[1], d1 = cd[3], d2 = cd[5];
        for (int64_t i = 0; i < m; i++, u0 += d0, u1 += d1, u2 += d2, yt += ts)
            f0 += *yt = ((0.0 + v[i] * *u0) + v[m + i] * *u1) + v[2 * m + i] * *u2;
        return f0;
    }
    if (g->k == 2) {
        const double *u0 = y + cd[0], *u1 = y + cd[2];
        const int64_t d0 = cd[1], d1 = cd[3];
        for (int64_t i = 0; i < m; i++, u0 += d0, u1 += d1, yt += ts)
            f0 += *yt = (0.0 + v[i] * *u0) + v[m + i] * *u1;
        return f0;
    }
    for (int64_t i = 0; i < m; i++) {
        double acc = 0;
        for (int32_t j = 0; j < g->k; j++) acc += v[j * m + i] * y[cd[2 * j] + i * cd[2 * j + 1]];
        f0 += yt[i * ts] = acc;
    }
    return f0;
}

/* A run (plan_seg_t) of kind COPY, FN, ONE or ACC; returns the sum of the
 * values written when the run folds its finiteness check, else 0.  The
 * strided loops do two rows per turn: both read before either is written,
 * which the rows of one level allow (they read no row of the level). */
static double run_seg_run(const struct jg_plan *P, const plan_seg_t *g, double *y, const double *x)
{
    const int64_t m = g->r1 - g->r0, ts = g->ts, c = P->cd[g->cd], d = P->cd[g->cd + 1];
    double *yt = y + P->tgt[g->r0], f0 = 0, f1 = 0;
    const double *v = P->val + P->rp[g->r0];
    int64_t i = 0;
    switch (g->kind) {
    case SEG_COPY: {
        const double *u = x + c;
        if (!g->fold) {   /* ts 1, d 1 */
            memcpy(yt, u, sizeof(double) * (size_t)m);
            return 0;
        }
        for (; i + 2 <= m; i += 2, u += 2 * d, yt += 2 * ts) {
            double a = u[0], b = u[d];
            yt[0] = a;
            yt[ts] = b;
            f0 += a;
            f1 += b;
        }
        if (i < m) f0 += *yt = *u;
        return f0 + f1;
    }
    case SEG_FN: {   /* always folded */
        double (*fn)(double) = g->fn;
        const double *u = y + c;
        for (; i < m; i++, u += d, yt += ts) f0 += *yt = fn(*u);
        return f0;
    }
    case SEG_ONE: {
        const double *u = y + c;
        if (!g->fold) {
            axpy_run(yt, v, u, m, 0);
            return 0;
        }
        for (; i + 2 <= m; i += 2, u += 2 * d, yt += 2 * ts) {
            double a = v[i] * u[0], b = v[i + 1] * u[d];
            yt[0] = a;
            yt[ts] = b;
            f0 += a;
            f1 += b;
        }
        if (i < m) f0 += *yt = v[i] * *u;
        return f0 + f1;
    }
    default:
        break;
    }
    if (g->fold) return acc_run_rows(P, g, y);
    /* SEG_ACC, contiguous: term by term in SSE2 pairs, from +0 */
    for (int32_t j = 0; j < g->k; j++) {
        const double *vj = v + j * m, *u = y + P->cd[g->cd + 2 * j];
        if (P->cd[g->cd + 2 * j + 1])
            axpy_run(yt, vj, u, m, j == 0 ? 1 : 2);
        else if (j == 0)
            for (i = 0; i < m; i++) yt[i] = 0.0 + vj[i] * u[0];
        else
            for (i = 0; i < m; i++) yt[i] += vj[i] * u[0];
    }
    return 0;
}

/* The rows of LIN segments s0..s1-1 (x: the states, for COPY rows); the
 * sum of the folding runs' values. */
static double run_lin(const struct jg_plan *P, double *y, const double *x, int32_t s0, int32_t s1)
{
    const int64_t *tgt = P->tgt, *rp = P->rp, *col = P->col;
    const double *val = P->val;
    double fin = 0;
    for (int32_t s = s0; s < s1; s++) {
        const plan_seg_t *g = &P->seg[s];
        int64_t r0 = g->r0, r1 = g->r1;
        if (g->run) {
            fin += run_seg_run(P, g, y, x);
            continue;
        }
        switch (g->kind) {
        case SEG_COPY: {
            const int64_t *c = col + rp[r0] - r0;
            for (int64_t r = r0; r < r1; r++) y[tgt[r]] = x[c[r]];
            break;
        }
        case SEG_FN: {
            const int64_t *c = col + rp[r0] - r0;
            double (*fn)(double) = g->fn;
            for (int64_t r = r0; r < r1; r++) y[tgt[r]] = fn(y[c[r]]);
            break;
        }
        case SEG_ONE: {
            const int64_t *c = col + rp[r0] - r0;
            const double *v = val + rp[r0] - r0;
            for (int64_t r = r0; r < r1; r++) y[tgt[r]] = v[r] * y[c[r]];
            break;
        }
        default:   /* SEG_ACC */
            if (g->k == 3) {
                const int64_t *c = col + rp[r0] - 3 * r0;
                const double *v = val + rp[r0] - 3 * r0;
                for (int64_t r = r0; r < r1; r++)
                    y[tgt[r]] = ((0.0 + v[3 * r] * y[c[3 * r]]) + v[3 * r + 1] * y[c[3 * r + 1]]) +
                                v[3 * r + 2] * y[c[3 * r + 2]];
                break;
            }
            if (g->k == 2) {
                const int64_t *c = col + rp[r0] - 2 * r0;
                const double *v = val + rp[r0] - 2 * r0;
                for (int64_t r = r0; r < r1; r++)
                    y[tgt[r]] = (0.0 + v[2 * r] * y[c[2 * r]]) + v[2 * r + 1] * y[c[2 * r + 1]];
                break;
            }
            for (int64_t r = r0; r < r1; r++) {
                double acc = 0;
                for (int64_t j = rp[r]; j < rp[r + 1]; j++) acc += val[j] * y[col[j]];
                y[tgt[r]] = acc;
            }
            break;
        }
    }
    return fin;
}

static inline void gather_range(const int64_t *restrict g, double *restrict u,
                                const double *restrict y, int64_t lo, int64_t hi)
{
    for (int64_t e = lo; e < hi; e++) u[e] = y[g[e]];
}

static inline void plan_gather(const struct jg_plan *P, double *u, const double *y, int32_t k)
{
    for (int64_t g = P->ctx_g[k]; g < P->ctx_g[k + 1]; g++)
        gather_range(P->gsrc, u, y, P->glo[g], P->ghi[g]);
    if (P->ctx_i)   /* then the injections, as jg__eval_gather adds them */
        for (int64_t i = P->ctx_i[k]; i < P->ctx_i[k + 1]; i++) {
            int64_t e = P->iel[i];
            double v = u[e];
            for (int64_t j = P->conn.inj_ptr[e]; j < P->conn.inj_ptr[e + 1]; j++)
                v += P->conn.w[P->conn.inj_idx[j]];
            u[e] = v;
        }
}

/* Every element of y[0..n-1] finite?  Their sum is finite when they are
 * (an Inf or NaN stays one through any sum); it may overflow on huge finite
 * signals, a false alarm the caller's search settles.  Four sums of pairs
 * (SSE2 registers) keep the loop short and free of branches. */
static int all_finite(const double *y, int64_t n)
{
    jg_v2d a = {0, 0}, b = {0, 0}, c = {0, 0}, d = {0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        jg_v2d p, q, r, s;
        memcpy(&p, y + i, sizeof p);
        memcpy(&q, y + i + 2, sizeof q);
        memcpy(&r, y + i + 4, sizeof r);
        memcpy(&s, y + i + 6, sizeof s);
        a += p;
        b += q;
        c += r;
        d += s;
    }
    a += b + (c + d);
    double t = a[0] + a[1];
    for (; i < n; i++) t += y[i];
    return t - t == 0;
}

static inline void ctx_set(jg_eval_t *e, const jg_eval_work_t *w, jg_error_t *err)
{
    e->t = w->t;
    e->err = err;
    e->sim = w->sim;
    e->major = w->major;
    e->first = w->first;
}

/* The first block (in sorted order, before position end) that ran in this
 * evaluation and has a non-finite output: the error a check after each block
 * would have given.  JG_OK when there is none. */
static jg_status_t first_nonfinite(jg_eval_work_t *w, int32_t end, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < end; i++) {
        const jg_block_t *B = &p->blocks[p->sorted[i]];
        if (p->blk_loop[B->id] >= 0 || !B->type->outputs) continue;
        if (B->rate >= 0 && !w->rate_hit[B->rate]) continue;
        for (int q = 0; q < B->nout; q++) {
            const double *y = w->y + p->y_off[jg__outport(p, B->id, q)];
            for (int64_t k = 0; k < B->out_w[q]; k++) {
                if (isfinite(y[k])) continue;
                if (w->plan->fnb[B->id]) {
                    /* a kernel function's row: the block's own outputs()
                     * words its domain error or overflow (on the same inputs,
                     * to the same values) */
                    int32_t c = w->plan->ctx_of[B->id];
                    jg_eval_t *e = &w->plan->ctx[c];
                    plan_gather(w->plan, w->u, w->y, c);
                    ctx_set(e, w, err);
                    if (B->type->outputs(B, e)) return jg__eval_fail(err);
                }
                return jg_error_set(err, JG_NUMERIC,
                                        "block '%s' (%s) at t = %g: output %d element %lld is %g",
                                        B->path, B->type->name, w->t, q + 1, (long long)k + 1,
                                        y[k]);
            }
        }
    }
    return JG_OK;
}


static jg_status_t plan_run(jg_eval_work_t *w, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    const struct jg_plan *P = w->plan;
    double *y = w->y, *u = w->u;
    const unsigned char *hit = w->rate_hit;
    const double t = w->t;
    const int sim = w->sim, major = w->major, first = w->first;
    jg_status_t st = JG_OK;
    double fin = 0;
    int32_t s;
    w->planned = 1;
    for (s = 0; s < P->nstep; s++) {
        const plan_step_t *S = &P->step[s];
        if (S->kind <= ST_BLOCK) {
            if (S->kind == ST_BLOCK) {
                if (S->rate >= 0 && !hit[S->rate]) continue;   /* holds between hits */
                plan_gather(P, u, y, S->a0);
                if (!S->outputs) continue;
            }
            jg_eval_t *e = S->e;
            e->t = t;
            e->err = err;
            e->sim = sim;
            e->major = major;
            e->first = first;
            if (S->outputs(S->B, e)) {
                st = err && err->status ? err->status : JG_NUMERIC;
                break;
            }
        } else if (S->kind == ST_LIN) {
            fin += run_lin(P, y, w->x, S->a0, S->a1);
        } else if ((st = jg__eval_solve_loop(w, S->a0, err))) {
            break;
        }
    }
    if (st) {
        /* the fused blocks sorted before the failed one were perhaps not
         * evaluated yet; a non-finite output before it is the first error */
        for (int32_t r = s + 1; r < P->nstep; r++)
            if (P->step[r].kind == ST_LIN) run_lin(P, y, w->x, P->step[r].a0, P->step[r].a1);
        jg_status_t st2 = first_nonfinite(w, P->step[s].pos, err);
        return st2 ? st2 : st;
    }
    for (int32_t i = 0; i < P->nregather; i++) plan_gather(P, u, y, P->regather[i]);
    int ok = fin - fin == 0;
    for (int64_t k = 0; ok && k < P->nchk; k++)
        ok = all_finite(y + P->chk[2 * k], P->chk[2 * k + 1] - P->chk[2 * k]);
    if (!ok) return first_nonfinite(w, p->nsorted, err);
    return JG_OK;
}

/* ------------------------------------------------ calls from eval.c */

static jg_status_t plan_ensure(jg_eval_work_t *w, jg_error_t *err);

jg_status_t jg__eval_prepare(jg_eval_work_t *w, jg_error_t *err)
{
    if ((w->plan && plan_current(w)) || !jg__plan_applies(w)) return JG_OK;
    return plan_ensure(w, err);
}

static jg_status_t plan_ensure(jg_eval_work_t *w, jg_error_t *err)
{
    if (w->plan && plan_current(w)) return JG_OK;
    jg__plan_free(w->plan);   /* built for another connection */
    w->plan = NULL;
    w->planned = 0;
    return plan_build(w, err);
}

jg_status_t jg__plan_outputs(jg_eval_work_t *w, jg_error_t *err)
{
    jg_status_t st;
    if ((!w->plan || !plan_current(w)) && (st = plan_ensure(w, err))) return st;
    return plan_run(w, err);
}

jg_eval_t *jg__plan_ctx(jg_eval_work_t *w, int32_t b, jg_error_t *err)
{
    jg_eval_t *e = &w->plan->ctx[w->plan->ctx_of[b]];
    ctx_set(e, w, err);
    return e;
}

jg_status_t jg__plan_derivatives(jg_eval_work_t *w, double *dx, jg_error_t *err)
{
    const struct jg_plan *P = w->plan;
    const double *y = w->y;
    /* dx = u of the JG_KERNEL_INPUT blocks, read where their gather would */
    for (int64_t i = 0; i < P->ndcopy; i++) {
        const plan_dcopy_t *d = &P->dcopy[i];
        double *dt = dx + d->x0;
        const double *u = y + d->y0;
        const int64_t xs = d->xs, ys = d->ys, m = d->m;
        int64_t k = 0;
        if (xs == 1 && ys == 1) {
            memcpy(dt, u, sizeof(double) * (size_t)m);
            continue;
        }
        for (; k + 2 <= m; k += 2, u += 2 * ys, dt += 2 * xs) {
            double a = u[0], b = u[ys];
            dt[0] = a;
            dt[xs] = b;
        }
        if (k < m) *dt = *u;
    }
    for (int32_t i = 0; i < P->nderiv; i++) {
        const plan_deriv_t *d = &P->deriv[i];
        jg_eval_t *e = d->e;
        ctx_set(e, w, err);
        e->dx = dx + d->x_off;
        int r = d->derivatives(d->B, e);
        e->dx = NULL;
        if (r) return jg__eval_fail(err);
    }
    return JG_OK;
}

/* Every such block is continuous and outside loops, gathered after its
 * sources or again at the end by the block-by-block path. */
void jg__plan_gather_stale(jg_eval_work_t *w)
{
    const jg_program_t *p = w->p;
    const struct jg_plan *P = w->plan;
    const int32_t *list = w->jac_blk ? P->stale_var : P->stale;   /* (constant parts kept) */
    int32_t n = w->jac_blk ? P->nstale_var : P->nstale;
    for (int32_t i = 0; i < n; i++) {
        int32_t b = list[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->nin) continue;
        gather_range(P->gsrc, w->u, w->y, p->u_off[jg__inport(p, b, 0)],
                     p->u_off[jg__inport(p, b, B->nin - 1)] + B->in_w[B->nin - 1]);
    }
}

jg_status_t jg__plan_update(jg_eval_work_t *w, int init, const signed char *fired, jg_error_t *err)
{
    const struct jg_plan *P = w->plan;
    for (int32_t i = 0; i < P->nupd; i++) {
        const plan_upd_t *d = &P->upd[i];
        if (!init && (d->rate >= 0 ? !w->rate_hit[d->rate] : !d->cont)) continue;
        ctx_set(d->e, w, err);
        jg_status_t st = jg__eval_call_update(d->update, d->B, d->e, d->xdw, d->xw, init,
                                              fired && d->zc_off >= 0 ? fired + d->zc_off : NULL,
                                              err);
        if (st) return st;
    }
    return JG_OK;
}

void jg__plan_shape(const jg_eval_work_t *w, jg__plan_shape_t *s)
{
    memset(s, 0, sizeof *s);
    const struct jg_plan *P = w->plan;
    if (!P) return;
    s->steps = P->nstep;
    for (int32_t i = 0; i < P->nstep; i++) {
        if (P->step[i].kind == ST_LIN)
            s->fused++;
        else
            s->calls++;
    }
    s->segs = P->nseg;
    for (int32_t i = 0; i < P->nseg; i++) {
        const plan_seg_t *g = &P->seg[i];
        s->kernel_segs += g->kind == SEG_COPY || g->kind == SEG_FN;
        s->runs += g->run;
        if (g->run && g->r1 - g->r0 > s->longest_run) s->longest_run = g->r1 - g->r0;
    }
    s->deriv_calls = P->nderiv;
    s->deriv_copies = P->ndcopy;
}
