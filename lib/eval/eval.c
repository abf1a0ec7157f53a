/* Evaluation of a compiled program: outputs in sorted order (with exact solves
 * of linear algebraic loops), derivatives and block Jacobians. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"
#include "../core/dense.h"

jg_status_t jg_work_create(const jg_program_t *p, jg_work_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_work_t *w = calloc(1, sizeof *w);
    if (!w) return jg_error_set(err, JG_NOMEM, "out of memory");
    w->p = p;
    int64_t next = 0, nparts = 0;
    w->ext_off = malloc(sizeof(int64_t) * (size_t)(p->nin_root + 1));
    if (!w->ext_off) goto nomem;
    for (int k = 0; k < p->nin_root; k++) {
        w->ext_off[k] = next;
        next += p->blocks[p->in_root[k]].out_w[0];
    }
    w->next = next;
    for (int32_t b = 0; b < p->nblocks; b++) nparts += p->blocks[b].npart;
    w->x = calloc((size_t)p->nx + 1, sizeof(double));
    w->ext = calloc((size_t)next + 1, sizeof(double));
    w->y = calloc((size_t)p->ny + 1, sizeof(double));
    w->u = calloc((size_t)p->nu + 1, sizeof(double));
    w->uptr = calloc((size_t)p->nin_ports + 1, sizeof(double *));
    w->yptr = calloc((size_t)p->nout_ports + 1, sizeof(double *));
    w->jac = calloc((size_t)nparts + 1, sizeof(cs_dl));
    w->jacp = calloc((size_t)nparts + 1, sizeof(cs_dl *));
    w->part_base = calloc((size_t)p->nblocks + 1, sizeof(int64_t));
    if (!w->x || !w->ext || !w->y || !w->u || !w->uptr || !w->yptr || !w->jac || !w->jacp ||
        !w->part_base)
        goto nomem;
    for (int64_t g = 0; g < p->nin_ports; g++)
        if (p->u_off[g] >= 0) w->uptr[g] = w->u + p->u_off[g];
    for (int64_t g = 0; g < p->nout_ports; g++)
        if (p->y_off[g] >= 0) w->yptr[g] = w->y + p->y_off[g];
    /* all parts' values in one array: a million blocks, one allocation */
    int64_t k = 0, nval = 0;
    for (int32_t b = 0; b < p->nblocks; b++)
        for (int j = 0; j < p->blocks[b].npart; j++) nval += p->blocks[b].part[j].m->nzmax;
    w->jacx = calloc((size_t)nval + 1, sizeof(double));
    if (!w->jacx) goto nomem;
    nval = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        w->part_base[b] = k;
        for (int j = 0; j < p->blocks[b].npart; j++, k++) {
            w->jac[k] = *p->blocks[b].part[j].m;
            w->jac[k].x = w->jacx + nval;
            nval += w->jac[k].nzmax;
            w->jacp[k] = &w->jac[k];
        }
    }
    w->conn.src = p->u_src;
    jg_status_t st = jg_program_initial_states(p, w->x, err);
    if (st) {
        jg_work_free(w);
        return st;
    }
    *out = w;
    return JG_OK;
nomem:
    jg_work_free(w);
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

void jg_work_free(jg_work_t *w)
{
    if (!w) return;
    free(w->jacx);
    free(w->ext_off);
    free(w->x);
    free(w->ext);
    free(w->y);
    free(w->u);
    free(w->uptr);
    free(w->yptr);
    free(w->jac);
    free(w->jacp);
    free(w->part_base);
    free(w);
}

double *jg_work_states(jg_work_t *w) { return w->x; }
double *jg_work_inputs(jg_work_t *w) { return w->ext; }
int64_t jg_work_ninput_elems(const jg_work_t *w) { return w->next; }
int64_t jg_work_input_offset(const jg_work_t *w, int k) { return w->ext_off[k]; }
const double *jg_work_signals(const jg_work_t *w) { return w->y; }

void jg__work_set_conn(jg_work_t *w, const jg_conn_t *conn)
{
    w->conn = conn ? *conn : (jg_conn_t){.src = w->p->u_src};
}

void jg__work_gather(jg_work_t *w, int32_t b)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    const jg_conn_t *c = &w->conn;
    for (int k = 0; k < B->nin; k++) {
        int64_t o = p->u_off[jg__inport(p, b, k)];
        for (int64_t e = 0; e < B->in_w[k]; e++) {
            int64_t s = c->src[o + e];
            double v = s >= 0 ? w->y[s] : 0.0;
            if (c->inj_ptr)
                for (int64_t j = c->inj_ptr[o + e]; j < c->inj_ptr[o + e + 1]; j++)
                    v += c->w[c->inj_idx[j]];
            w->u[o + e] = v;
        }
    }
}

static void make_eval(jg_work_t *w, int32_t b, jg_eval_t *e, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    e->t = w->t;
    e->x = w->x + B->x_off;
    e->u = (const double *const *)(w->uptr + p->in_base[b]);
    e->y = w->yptr + p->out_base[b];
    e->dx = NULL;
    e->jac = w->jacp + w->part_base[b];
    e->ext = NULL;
    if (B->is_root_port && B->type == &jg_block_inport)
        e->ext = w->ext + w->ext_off[jg_block_port_number(B) - 1];
    e->err = err;
}

static jg_status_t block_outputs(jg_work_t *w, int32_t b, jg_error_t *err)
{
    const jg_block_t *B = &w->p->blocks[b];
    jg_eval_t e;
    jg__work_gather(w, b);
    if (!B->type->outputs) return JG_OK;
    make_eval(w, b, &e, err);
    if (B->type->outputs(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
    for (int q = 0; q < B->nout; q++)
        for (int64_t k = 0; k < B->out_w[q]; k++)
            if (!isfinite(e.y[q][k]))
                return jg_error_set(err, JG_NUMERIC,
                                    "block '%s' (%s) at t = %g: output %d element %lld is %g",
                                    B->path, B->type->name, w->t, q + 1, (long long)k + 1,
                                    e.y[q][k]);
    return JG_OK;
}

/* Signal elements written by the blocks of loop l. */
static int64_t loop_signals(const jg_program_t *p, const int32_t *blk, int32_t nb, int64_t *idx)
{
    int64_t n = 0;
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &p->blocks[blk[i]];
        for (int q = 0; q < B->nout; q++)
            for (int64_t e = 0; e < B->out_w[q]; e++) {
                if (idx) idx[n] = p->y_off[jg__outport(p, blk[i], q)] + e;
                n++;
            }
    }
    return n;
}

/* G(Y): with the loop's signals set to Y, the loop's blocks compute new ones.
 * Inputs are gathered for all loop blocks before any output is written. */
static jg_status_t loop_map(jg_work_t *w, const int32_t *blk, int32_t nb, const int64_t *idx,
                            int64_t n, const double *Y, double *GY, jg_error_t *err)
{
    for (int64_t k = 0; k < n; k++) w->y[idx[k]] = Y[k];
    for (int32_t i = 0; i < nb; i++) jg__work_gather(w, blk[i]);
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &w->p->blocks[blk[i]];
        jg_eval_t e;
        make_eval(w, blk[i], &e, err);
        if (B->type->outputs && B->type->outputs(B, &e))
            return err && err->status ? err->status : JG_NUMERIC;
    }
    for (int64_t k = 0; k < n; k++) GY[k] = w->y[idx[k]];
    return JG_OK;
}

/* A loop of linear blocks is affine in its own signals: G(Y) = g0 + J Y, so
 * Y = (I - J)^-1 g0 exactly.  J is found column by column from G itself. */
static jg_status_t solve_loop(jg_work_t *w, int l, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    int32_t nb;
    const int32_t *blk = jg_program_loop(p, l, &nb);
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &p->blocks[blk[i]];
        if (!(B->type->flags & JG_BT_LINEAR))
            return jg_error_set(err, JG_NONLINEAR_LOOP,
                                "algebraic loop through %s contains the nonlinear block '%s' "
                                "(%s); finding its operating point needs the algebraic-loop "
                                "solver, which does not exist yet",
                                p->loop_names[l], B->path, B->type->name);
    }
    jg_status_t st = JG_OK;
    int64_t n = loop_signals(p, blk, nb, NULL);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
    double *Y = calloc((size_t)n + 1, sizeof(double));
    double *g0 = malloc(sizeof(double) * (size_t)(n + 1));
    double *J = malloc(sizeof(double) * (size_t)(n * n + 1));
    double *col = malloc(sizeof(double) * (size_t)(n + 1));
    if (!idx || !Y || !g0 || !J || !col) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    loop_signals(p, blk, nb, idx);
    if ((st = loop_map(w, blk, nb, idx, n, Y, g0, err))) goto done;
    for (int64_t j = 0; j < n; j++) {   /* I - J, column-major */
        Y[j] = 1;
        if ((st = loop_map(w, blk, nb, idx, n, Y, col, err))) goto done;
        Y[j] = 0;
        for (int64_t i = 0; i < n; i++) J[j * n + i] = (i == j) - (col[i] - g0[i]);
    }
    memcpy(Y, g0, sizeof(double) * (size_t)n);
    if (jg__dense_solve(n, J, 1, Y)) {
        st = jg_error_set(err, JG_SINGULAR_LOOP,
                          "singular algebraic loop through %s: the loop equations have no unique "
                          "solution",
                          p->loop_names[l]);
        goto done;
    }
    if ((st = loop_map(w, blk, nb, idx, n, Y, col, err))) goto done;
    for (int64_t i = 0; i < n; i++) {
        if (!(fabs(col[i] - Y[i]) <= 1e-9 * (1 + fabs(Y[i])))) {
            st = jg_error_set(err, JG_NUMERIC,
                              "algebraic loop through %s: residual %g after the linear solve "
                              "(ill-conditioned loop)",
                              p->loop_names[l], fabs(col[i] - Y[i]));
            goto done;
        }
    }
done:
    free(idx);
    free(Y);
    free(g0);
    free(J);
    free(col);
    return st;
}

jg_status_t jg_work_outputs(jg_work_t *w, double t, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    w->t = t;
    for (int32_t i = 0; i < p->nsorted;) {
        int32_t b = p->sorted[i];
        int l = p->blk_loop[b];
        jg_status_t st;
        if (l < 0) {
            if ((st = block_outputs(w, b, err))) return st;
            i++;
        } else {
            if ((st = solve_loop(w, l, err))) return st;
            i += p->loop_ptr[l + 1] - p->loop_ptr[l];
        }
    }
    /* blocks without feedthrough ran before their sources: refresh all inputs */
    for (int32_t i = 0; i < p->nsorted; i++) jg__work_gather(w, p->sorted[i]);
    return JG_OK;
}

jg_status_t jg_work_derivatives(jg_work_t *w, double *dx, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->nx) continue;
        jg_eval_t e;
        make_eval(w, b, &e, err);
        e.dx = dx + B->x_off;
        if (B->type->derivatives(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
    }
    return JG_OK;
}

jg_status_t jg_work_jacobians(jg_work_t *w, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->npart) continue;
        jg_eval_t e;
        make_eval(w, b, &e, err);
        if (B->type->jacobian(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
    }
    return JG_OK;
}
