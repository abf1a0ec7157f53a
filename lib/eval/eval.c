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
    w->regather = malloc(sizeof(int32_t) * (size_t)(p->nsorted + 1));
    if (!w->regather) goto nomem;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        int stale = 0;
        for (int k = 0; k < p->blocks[b].nin; k++) stale |= !p->feedthrough[jg__inport(p, b, k)];
        if (stale) w->regather[w->nregather++] = b;
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
        if (B->nd && B->type->init_discrete && B->type->init_discrete(B, w->xd + B->d_off))
            st = jg_error_set(err, JG_NUMERIC, "block '%s': initial condition failed", B->path);
        if (B->type->guess && B->type->guess(B, w->yptr + p->out_base[b]))
            st = jg_error_set(err, JG_NUMERIC, "block '%s': initial guess failed", B->path);
    }
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
    free(w->loop_pos);
    free(w->regather);
    free(w->xd);
    free(w->rate_hit);
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
    e->xd = w->xd + B->d_off;
    e->xdw = NULL;
    e->xw = NULL;
    e->zcv = NULL;
    e->zc_fired = NULL;
    e->sim = w->sim;
    e->major = w->major;
    e->first = w->first;
    e->init = 0;
}

static jg_status_t block_outputs(jg_work_t *w, int32_t b, jg_error_t *err)
{
    const jg_block_t *B = &w->p->blocks[b];
    jg_eval_t e;
    if (B->rate >= 0 && !w->rate_hit[B->rate]) return JG_OK;   /* discrete: holds between hits */
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

/* dG/dY of loop l at the current point, dense column-major n x n, assembled
 * from the loop blocks' analytic d parts and the connections among them (the
 * Jacobian graph's loop edges).  pos maps a signal to its place in Y (-1). */
static jg_status_t loop_jacobian(jg_work_t *w, const int32_t *blk, int32_t nb, int64_t n,
                                 const int64_t *pos, double *J, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    memset(J, 0, sizeof(double) * (size_t)(n * n));
    for (int32_t i = 0; i < nb; i++) {
        const jg_block_t *B = &p->blocks[blk[i]];
        if (!B->npart) continue;
        jg_eval_t e;
        make_eval(w, blk[i], &e, err);
        if (B->type->jacobian(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
        cs_dl *const *part = jg__work_parts(w, blk[i]);
        for (int k = 0; k < B->npart; k++) {
            if (B->part[k].kind != JG_JAC_D) continue;
            const cs_dl *m = part[k];
            int64_t uo = p->u_off[jg__inport(p, blk[i], B->part[k].col_port)];
            int64_t yo = p->y_off[jg__outport(p, blk[i], B->part[k].row_port)];
            for (int64_t j = 0; j < m->n; j++) {
                int64_t src = w->conn.src[uo + j];
                if (src < 0 || pos[src] < 0) continue;   /* read from outside the loop */
                for (int64_t q = m->p[j]; q < m->p[j + 1]; q++)
                    J[pos[src] * n + pos[yo + m->i[q]]] += m->x[q];
            }
        }
    }
    return JG_OK;
}

static double norm_inf(const double *v, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
    return m;
}

/* Solve Y = G(Y) on loop l (seed 003, algebraic loops): Newton's method with
 * the analytic loop Jacobian, a backtracking (weak) line search, and rank-one
 * Broyden updates of the inverse between Jacobian evaluations.  The start is
 * the loop's last values (the previous evaluation: a warm start in simulation).
 * A loop of linear blocks converges in one step. */
static jg_status_t solve_loop(jg_work_t *w, int l, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    int32_t nb;
    const int32_t *blk = jg_program_loop(p, l, &nb);
    int linear = 1;
    for (int32_t i = 0; i < nb; i++) linear &= (p->blocks[blk[i]].type->flags & JG_BT_LINEAR) != 0;
    jg_status_t st = JG_OK;
    int64_t n = loop_signals(p, blk, nb, NULL);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
    double *Y = malloc(sizeof(double) * (size_t)(n + 1)), *GY = malloc(sizeof(double) * (size_t)(n + 1));
    double *R = malloc(sizeof(double) * (size_t)(n + 1)), *dY = malloc(sizeof(double) * (size_t)(n + 1));
    double *Yt = malloc(sizeof(double) * (size_t)(n + 1)), *Rt = malloc(sizeof(double) * (size_t)(n + 1));
    double *H = malloc(sizeof(double) * (size_t)(n * n + 1));   /* (I - dG/dY)^-1 */
    double *v = malloc(sizeof(double) * (size_t)(n + 1)), *u = malloc(sizeof(double) * (size_t)(n + 1));
    if (!w->loop_pos) {
        w->loop_pos = malloc(sizeof(int64_t) * (size_t)(p->ny + 1));
        if (w->loop_pos)
            for (int64_t k = 0; k < p->ny; k++) w->loop_pos[k] = -1;
    }
    if (!idx || !Y || !GY || !R || !dY || !Yt || !Rt || !H || !v || !u || !w->loop_pos) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    loop_signals(p, blk, nb, idx);
    for (int64_t k = 0; k < n; k++) {
        w->loop_pos[idx[k]] = k;
        Y[k] = w->y[idx[k]];
    }
    const int maxit = 50;
    double rn = 0;
    int it = 0, fresh = 0, need_jac = 1;
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
    for (int64_t k = 0; k < n; k++) R[k] = Y[k] - GY[k];
    rn = norm_inf(R, n);
    if (linear) {   /* affine G: one LU solve of (I - dG/dY) dY = -R is exact */
        if ((st = loop_jacobian(w, blk, nb, n, w->loop_pos, H, err))) goto done;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) H[j * n + i] = (i == j) - H[j * n + i];
        for (int64_t k = 0; k < n; k++) dY[k] = -R[k];
        if (jg__dense_solve(n, H, 1, dY)) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "singular algebraic loop through %s: the loop equations have no "
                              "unique solution",
                              p->loop_names[l]);
            goto done;
        }
        for (int64_t k = 0; k < n; k++) Y[k] += dY[k];
        if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
        for (int64_t k = 0; k < n; k++) R[k] = Y[k] - GY[k];
        rn = norm_inf(R, n);
        if (!(rn <= 1e-9 * (1 + norm_inf(Y, n))))
            st = jg_error_set(err, JG_NUMERIC,
                              "algebraic loop through %s: residual %.3g after the linear solve "
                              "(ill-conditioned loop)",
                              p->loop_names[l], rn);
        goto done;   /* y holds G(Y), within round-off of Y */
    }
    for (it = 0; it < maxit; it++) {
        /* a Jacobian at the start, even when the start solves the loop (a
         * singular loop has many solutions: never return one of them), and
         * again only when a Broyden step fails to descend */
        if (need_jac) {
            /* the loop blocks' inputs must be those at Y (a rejected trial may
             * have been the last evaluation) */
            if (it > 0 && (st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;
            if ((st = loop_jacobian(w, blk, nb, n, w->loop_pos, H, err))) goto done;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) H[j * n + i] = (i == j) - H[j * n + i];
            if (jg__dense_inverse(n, H)) {
                st = jg_error_set(err, JG_SINGULAR_LOOP,
                                  "singular algebraic loop through %s: the loop equations have "
                                  "no unique solution",
                                  p->loop_names[l]);
                goto done;
            }
            fresh = 1;
            need_jac = 0;
        }
        if (rn <= 1e-12 * (1 + norm_inf(Y, n))) break;
        for (int64_t i = 0; i < n; i++) {   /* dY = -H R */
            double acc = 0;
            for (int64_t j = 0; j < n; j++) acc += H[j * n + i] * R[j];
            dY[i] = -acc;
        }
        double lambda = 1, rt = INFINITY;
        for (int ls = 0; ls < 30; ls++, lambda *= 0.5) {
            for (int64_t k = 0; k < n; k++) Yt[k] = Y[k] + lambda * dY[k];
            if ((st = loop_map(w, blk, nb, idx, n, Yt, GY, err))) {
                if (st != JG_NUMERIC || linear) goto done;   /* a domain error: shorter step */
                jg_error_clear(err);
                st = JG_OK;
                continue;
            }
            for (int64_t k = 0; k < n; k++) Rt[k] = Yt[k] - GY[k];
            rt = norm_inf(Rt, n);
            if (rt <= (1 - 1e-4 * lambda) * rn || rt <= 1e-12 * (1 + norm_inf(Yt, n))) break;
        }
        if (!(rt < rn)) {   /* no descent: a Broyden inverse is stale, a fresh one failed */
            if (fresh) break;
            need_jac = 1;
            continue;
        }
        /* Broyden's "good" update of the inverse: H += (s - H y) s' H / (s' H y),
         * s = Y_new - Y, y = R_new - R */
        for (int64_t k = 0; k < n; k++) {
            dY[k] = Yt[k] - Y[k];   /* s */
            R[k] = Rt[k] - R[k];    /* y */
        }
        double den = 0;
        for (int64_t i = 0; i < n; i++) {
            double hy = 0, sh = 0;
            for (int64_t j = 0; j < n; j++) {
                hy += H[j * n + i] * R[j];
                sh += dY[j] * H[i * n + j];
            }
            u[i] = dY[i] - hy;
            v[i] = sh;
            den += dY[i] * hy;
        }
        if (fabs(den) > 1e-300)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) H[j * n + i] += u[i] * v[j] / den;
        fresh = 0;
        memcpy(Y, Yt, sizeof(double) * (size_t)n);
        memcpy(R, Rt, sizeof(double) * (size_t)n);
        rn = rt;
    }
    if (!(rn <= 1e-9 * (1 + norm_inf(Y, n)))) {
        st = jg_error_set(err, JG_NONLINEAR_LOOP,
                          "algebraic loop through %s did not converge: residual %.3g after %d "
                          "Newton iterations",
                          p->loop_names[l], rn, it);
        goto done;
    }
    if ((st = loop_map(w, blk, nb, idx, n, Y, GY, err))) goto done;   /* leave y = G(Y) */
done:
    if (idx && w->loop_pos)
        for (int64_t k = 0; k < n; k++) w->loop_pos[idx[k]] = -1;
    free(idx);
    free(Y);
    free(GY);
    free(R);
    free(dY);
    free(Yt);
    free(Rt);
    free(H);
    free(v);
    free(u);
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
    /* a block with an input without feedthrough may have run before that
     * input's source: refresh those (every other block gathered after its
     * sources, loop blocks at the loop's solution) */
    for (int32_t i = 0; i < w->nregather; i++) jg__work_gather(w, w->regather[i]);
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

jg_status_t jg__work_update(jg_work_t *w, int init, const signed char *fired, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->type->update) continue;
        if (!init && (B->rate >= 0 ? !w->rate_hit[B->rate] : B->ts.period != 0)) continue;
        jg_eval_t e;
        make_eval(w, b, &e, err);
        e.xdw = w->xd + B->d_off;
        e.xw = w->x + B->x_off;
        e.init = init;
        e.zc_fired = fired && B->nzc ? fired + B->zc_off : NULL;
        if (B->type->update(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
    }
    return JG_OK;
}

jg_status_t jg__work_zc(jg_work_t *w, double *z, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    for (int32_t i = 0; i < p->nsorted; i++) {
        int32_t b = p->sorted[i];
        const jg_block_t *B = &p->blocks[b];
        if (!B->nzc || !B->type->zc) continue;
        jg_eval_t e;
        make_eval(w, b, &e, err);
        e.zcv = z + B->zc_off;
        if (B->type->zc(B, &e)) return err && err->status ? err->status : JG_NUMERIC;
    }
    return JG_OK;
}
