/* Evaluation of a compiled program block by block: the work's vectors,
 * outputs in sorted order (algebraic loops handed to algloop.c, the
 * program's own connection to the fused plan of plan.c), derivatives, block
 * Jacobians, updates and zero-crossing signals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"

jg_status_t jg_eval_create(const jg_program_t *p, jg_eval_work_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_eval_work_t *w = calloc(1, sizeof *w);
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
    /* the parts and their values counted in one pass (each pass over a
     * million blocks and their parts is cache misses) */
    int64_t nval = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        nparts += p->blocks[b].npart;
        for (int j = 0; j < p->blocks[b].npart; j++) nval += p->blocks[b].part[j].m->nzmax;
    }
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
    int64_t k = 0;
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
    w->regather = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    w->with_x = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    w->with_upd = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    w->with_zc = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    if (!w->regather || !w->with_x || !w->with_upd || !w->with_zc) goto nomem;
    for (int32_t i = 0; i < p->nsorted; i++) {   /* one pass in sorted order for the four lists */
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        int stale = 0;
        for (int k = 0; k < B->nin; k++) stale |= !p->feedthrough[jg__inport(p, b, k)];
        if (stale) w->regather[w->nregather++] = b;
        if (B->nx) w->with_x[w->nwith_x++] = b;
        if (B->type->update) w->with_upd[w->nwith_upd++] = b;
        if (jg_block_nzc(B) && B->type->zc) w->with_zc[w->nwith_zc++] = b;
    }
    w->conn.src = p->u_src;
    w->xd = calloc((size_t)p->nd + 1, sizeof(double));
    w->rate_hit = malloc((size_t)p->nrates + 1);
    if (!w->xd || !w->rate_hit) goto nomem;
    memset(w->rate_hit, 1, (size_t)p->nrates + 1);
    jg_status_t st = jg_program_initial_states(p, w->x, err);
    for (int32_t b = 0; !st && b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        if (jg_block_nd(B) && B->type->init_discrete && B->type->init_discrete(B, w->xd + jg_block_d_off(B)))
            st = jg_error_set(err, JG_NUMERIC, "block '%s': initial condition failed", B->path);
        if (B->type->guess && B->type->guess(B, w->yptr + p->out_base[b]))
            st = jg_error_set(err, JG_NUMERIC, "block '%s': initial guess failed", B->path);
    }
    if (st) {
        jg_eval_free(w);
        return st;
    }
    *out = w;
    return JG_OK;
nomem:
    jg_eval_free(w);
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

void jg_eval_free(jg_eval_work_t *w)
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
    free(w->loop_pos);
    free(w->regather);
    free(w->xd);
    free(w->rate_hit);
    free(w->with_x);
    free(w->with_upd);
    free(w->with_zc);
    free(w->jac_blk);
    jg__plan_free(w->plan);
    free(w);
}

double *jg_eval_states(jg_eval_work_t *w) { return w->x; }
double *jg_eval_inputs(jg_eval_work_t *w) { return w->ext; }
int64_t jg_eval_ninput_elems(const jg_eval_work_t *w) { return w->next; }
int64_t jg_eval_input_offset(const jg_eval_work_t *w, int k) { return w->ext_off[k]; }
const double *jg_eval_signals(const jg_eval_work_t *w) { return w->y; }

cs_dl *const *jg__eval_parts(const jg_eval_work_t *w, int32_t b) { return w->jacp + w->part_base[b]; }
double *jg__eval_jac_values(const jg_eval_work_t *w, int64_t k) { return w->jac[k].x; }
const jg_program_t *jg__eval_program(const jg_eval_work_t *w) { return w->p; }
int jg__eval_rate_hit(const jg_eval_work_t *w, int r) { return w->rate_hit[r]; }

void jg__eval_set_mode(jg_eval_work_t *w, int sim, int major)
{
    w->sim = sim;
    w->major = major;
}

unsigned char *jg__eval_rate_hits(jg_eval_work_t *w) { return w->rate_hit; }
void jg__eval_set_sim(jg_eval_work_t *w, int sim) { w->sim = sim; }
const double *jg__eval_dstates(const jg_eval_work_t *w) { return w->xd; }
double *jg__eval_dstates_w(jg_eval_work_t *w) { return w->xd; }

void jg__eval_set_major(jg_eval_work_t *w, int major, int first)
{
    w->major = major;
    w->first = first;
}

void jg__eval_use_iospec(jg_eval_work_t *w, const jg_iospec_t *io, const double *wv)
{
    if (!io) {
        jg__eval_set_conn(w, NULL);
        return;
    }
    jg_conn_t c = {.src = io->src, .inj_ptr = io->inj_ptr, .inj_idx = io->inj_idx, .w = wv};
    jg__eval_set_conn(w, &c);
}

void jg__eval_plan_any(jg_eval_work_t *w, int on) { w->plan_any = on; }

void jg__eval_const_jacobians(jg_eval_work_t *w) { w->const_jac = 1; }

void jg__eval_set_conn(jg_eval_work_t *w, const jg_conn_t *conn)
{
    w->conn = conn ? *conn : (jg_conn_t){.src = w->p->u_src};
}

void jg__eval_gather(jg_eval_work_t *w, int32_t b)
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

static jg_status_t block_outputs(jg_eval_work_t *w, int32_t b, jg_error_t *err)
{
    const jg_block_t *B = &w->p->blocks[b];
    jg_eval_t e;
    if (B->rate >= 0 && !w->rate_hit[B->rate]) return JG_OK;   /* discrete: holds between hits */
    jg__eval_gather(w, b);
    if (!B->type->outputs) return JG_OK;
    jg__eval_make_eval(w, b, &e, err);
    if (B->type->outputs(B, &e)) return jg__eval_fail(err);
    for (int q = 0; q < B->nout; q++)
        for (int64_t k = 0; k < B->out_w[q]; k++)
            if (!isfinite(e.y[q][k]))
                return jg_error_set(err, JG_NUMERIC,
                                    "block '%s' (%s) at t = %g: output %d element %lld is %g",
                                    B->path, B->type->name, w->t, q + 1, (long long)k + 1,
                                    e.y[q][k]);
    return JG_OK;
}

/* ------------------------------------------------------ the entry points */

jg_status_t jg_eval_outputs(jg_eval_work_t *w, double t, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    w->t = t;
    if (jg__plan_applies(w)) return jg__plan_outputs(w, err);
    w->planned = 0;
    for (int32_t i = 0; i < p->nsorted;) {
        int32_t b = p->sorted[i];
        int l = p->blk_loop[b];
        jg_status_t st;
        if (l < 0) {
            if ((st = block_outputs(w, b, err))) return st;
            i++;
        } else {
            if ((st = jg__eval_solve_loop(w, l, err))) return st;
            i += p->loop_ptr[l + 1] - p->loop_ptr[l];
        }
    }
    /* a block with an input without feedthrough may have run before that
     * input's source: refresh those (every other block gathered after its
     * sources, loop blocks at the loop's solution) */
    for (int32_t i = 0; i < w->nregather; i++) jg__eval_gather(w, w->regather[i]);
    return JG_OK;
}

/* The context of block b: the plan's when the last outputs ran the plan (t,
 * err and flags refreshed), else a new one in *tmp. */
static inline jg_eval_t *block_ctx(jg_eval_work_t *w, int32_t b, jg_eval_t *tmp, jg_error_t *err)
{
    if (w->planned) return jg__plan_ctx(w, b, err);
    jg__eval_make_eval(w, b, tmp, err);
    return tmp;
}

jg_status_t jg_eval_derivatives(jg_eval_work_t *w, double *dx, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    if (w->planned) return jg__plan_derivatives(w, dx, err);
    for (int32_t i = 0; i < w->nwith_x; i++) {
        int32_t b = w->with_x[i];
        const jg_block_t *B = &p->blocks[b];
        jg_eval_t e;
        jg__eval_make_eval(w, b, &e, err);
        e.dx = dx + B->x_off;
        if (B->type->derivatives(B, &e)) return jg__eval_fail(err);
    }
    return JG_OK;
}

jg_status_t jg_eval_jacobians(jg_eval_work_t *w, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    if (w->planned) {
        /* the inputs the plan did not gather, as the block-by-block path has
         * them after an evaluation */
        jg__plan_gather_stale(w);
        w->planned = 0;
    }
    /* after a call that computed every part: from now on only the varying
     * ones (built here, not then, so that a work evaluated once -- one
     * linearization of a large model -- never pays for the list; out of
     * memory: every block each time) */
    if (w->const_jac == 2 && (w->jac_blk = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1)))) {
        w->const_jac = 3;
        for (int32_t i = 0; i < p->nsorted; i++) {
            int32_t b = p->sorted[i];
            const jg_block_t *B = &p->blocks[b];
            if (B->npart && !jg__eval_jac_constant(B)) w->jac_blk[w->njac_blk++] = b;
        }
    }
    if (w->jac_blk) {   /* the constant parts kept from the first call */
        for (int32_t i = 0; i < w->njac_blk; i++) {
            int32_t b = w->jac_blk[i];
            const jg_block_t *B = &p->blocks[b];
            jg_eval_t e;
            jg__eval_make_eval(w, b, &e, err);
            if (B->type->jacobian(B, &e)) return jg__eval_fail(err);
        }
        return JG_OK;
    }
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->npart) continue;
        jg_eval_t e;
        jg__eval_make_eval(w, b, &e, err);
        if (B->type->jacobian(B, &e)) return jg__eval_fail(err);
    }
    if (w->const_jac == 1) w->const_jac = 2;   /* every part computed (a failure: not yet) */
    return JG_OK;
}

jg_status_t jg__eval_update(jg_eval_work_t *w, int init, const signed char *fired, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    if (w->planned) return jg__plan_update(w, init, fired, err);
    for (int32_t i = 0; i < w->nwith_upd; i++) {
        int32_t b = w->with_upd[i];
        const jg_block_t *B = &p->blocks[b];
        if (!init && (B->rate >= 0 ? !w->rate_hit[B->rate] : B->ts.period != 0)) continue;
        jg_eval_t tmp, *e = block_ctx(w, b, &tmp, err);
        jg_status_t st = jg__eval_call_update(B->type->update, B, e, w->xd + jg_block_d_off(B),
                                              w->x + B->x_off, init,
                                              fired && jg_block_nzc(B) ? fired + jg_block_zc_off(B) : NULL, err);
        if (st) return st;
    }
    return JG_OK;
}

jg_status_t jg__eval_zc(jg_eval_work_t *w, double *z, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < w->nwith_zc; i++) {
        int32_t b = w->with_zc[i];
        const jg_block_t *B = &p->blocks[b];
        jg_eval_t tmp, *e = block_ctx(w, b, &tmp, err);
        e->zcv = z + jg_block_zc_off(B);
        int r = B->type->zc(B, e);
        e->zcv = NULL;
        if (r) return jg__eval_fail(err);
    }
    return JG_OK;
}

jg_status_t jg__eval_djacobian(jg_eval_work_t *w, int32_t b, double *ad, double *const *bd,
                               double *const *cd, jg_error_t *err)
{
    const jg_block_t *B = &w->p->blocks[b];
    if (!B->type->djacobian)
        return jg_error_set(err, JG_MODEL,
                            "block '%s' (%s) has discrete states but no update Jacobian: it "
                            "cannot be linearized in discrete time",
                            B->path, B->type->name);
    jg_eval_t tmp, *e = block_ctx(w, b, &tmp, err);
    if (B->type->djacobian(B, e, ad, bd, cd)) return jg__eval_fail(err);
    return JG_OK;
}
