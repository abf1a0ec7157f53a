/* The finite-difference fallback for plugins: a block's Jacobian parts and its invariants' Jacobian by
 * central differences of the plugin's own functions. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugin_impl.h"

/* Central-difference step for a variable of value v: eps^(1/3) balances the
 * truncation error O(h^2) against cancellation O(eps / h), relative to
 * max(|v|, 1). */
static double fd_step(double v)
{
    double h = cbrt(DBL_EPSILON) * fmax(fabs(v), 1.0);
    volatile double vp = v + h;   /* make h exactly representable as a difference */
    return vp - v;
}

/* The Jacobian parts by central differences of the block's own outputs() and
 * derivatives(), column by column (a state, or an element of an input port),
 * perturbing only the columns some declared part has.  Scratch is allocated
 * per call: the program's blocks are shared between works and threads. */
int jg__plugin_fd_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    int64_t nu = 0, ny = 0, nx = b->nx;
    for (int p = 0; p < b->nin; p++) nu += b->in_w[p];
    for (int q = 0; q < b->nout; q++) ny += b->out_w[q];
    /* x | u (all ports) | y+ | y- | f+ | f- | pointer arrays */
    size_t nd = (size_t)(nx + nu + 2 * ny + 2 * nx) + 1;
    double *mem = malloc(sizeof(double) * nd);
    double **up = malloc(sizeof(double *) * (size_t)(b->nin + 2 * b->nout + 1));
    if (!mem || !up) {
        free(mem);
        free(up);
        return jg_eval_error(b, e, "out of memory for the perturbation Jacobian");
    }
    double *xs = mem, *us = xs + nx, *yp = us + nu, *ym = yp + ny, *fp = ym + ny, *fm = fp + nx;
    double **uptr = up, **ypp = up + b->nin, **ymp = ypp + b->nout;
    memcpy(xs, e->x, sizeof(double) * (size_t)nx);
    for (int p = 0, o = 0; p < b->nin; o += (int)b->in_w[p], p++) {
        uptr[p] = us + o;
        memcpy(uptr[p], e->u[p], sizeof(double) * (size_t)b->in_w[p]);
    }
    for (int q = 0, o = 0; q < b->nout; o += (int)b->out_w[q], q++) {
        ypp[q] = yp + o;
        ymp[q] = ym + o;
    }
    int ret = 0;
    /* column sources: 0..nx-1 states, then the input elements port by port */
    int64_t ncol = nx + nu;
    for (int64_t col = 0; col < ncol && !ret; col++) {
        int port = -1;
        int64_t elem = col;
        if (col >= nx) {
            elem = col - nx;
            for (port = 0; elem >= b->in_w[port]; port++) elem -= b->in_w[port];
        }
        int need_y = 0, need_f = 0;
        for (int k = 0; k < b->npart; k++) {
            const jg_jac_part_t *P = &b->part[k];
            int is_x = P->kind == JG_JAC_A || P->kind == JG_JAC_C;
            if (port < 0 ? !is_x : (is_x || P->col_port != port)) continue;
            if (P->m->p[elem + 1] == P->m->p[elem]) continue;
            if (P->kind == JG_JAC_A || P->kind == JG_JAC_B) need_f = 1;
            else need_y = 1;
        }
        if (!need_y && !need_f) continue;
        double *v = port < 0 ? &xs[elem] : &uptr[port][elem];
        double v0 = *v, h = fd_step(v0);
        for (int side = 0; side < 2 && !ret; side++) {
            *v = side ? v0 - h : v0 + h;
            jg_eval_t pe = *e;
            pe.x = xs;
            pe.u = (const double *const *)uptr;
            pe.y = side ? ymp : ypp;
            pe.dx = side ? fm : fp;
            jg_plugin_ctx_t c;
            jg__plhost_t hh;
            jg__plugin_ctx(&c, &hh, b, &pe);
            int r = 0;
            if (need_y && T->pt.outputs && (r = T->pt.outputs(&c))) ret = jg__plugin_failed(&hh, "outputs", r);
            if (!ret && need_f && (r = T->pt.derivatives(&c))) ret = jg__plugin_failed(&hh, "derivatives", r);
        }
        *v = v0;
        if (ret) break;
        double inv2h = 1.0 / (2 * h);
        for (int k = 0; k < b->npart; k++) {
            const jg_jac_part_t *P = &b->part[k];
            int is_x = P->kind == JG_JAC_A || P->kind == JG_JAC_C;
            if (port < 0 ? !is_x : (is_x || P->col_port != port)) continue;
            cs_dl *V = e->jac[k];
            const double *hi, *lo;
            if (P->kind == JG_JAC_A || P->kind == JG_JAC_B) hi = fp, lo = fm;
            else hi = ypp[P->row_port], lo = ymp[P->row_port];
            for (int64_t t = V->p[elem]; t < V->p[elem + 1]; t++)
                V->x[t] = (hi[V->i[t]] - lo[V->i[t]]) * inv2h;
        }
    }
    free(mem);
    free(up);
    return ret;
}

int jg__plugin_fd_invariants(const jg_block_t *b, jg_eval_t *e, cs_dl *dg)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    jg_plugin_ctx_t c;
    jg__plhost_t h;
    int r = 0;
    int64_t m = jg_block_ninv(b), n = b->nx;
    double *mem = malloc(sizeof(double) * (size_t)(n + 2 * m + 1));
    if (!mem) return jg_eval_error(b, e, "out of memory for the invariant Jacobian");
    double *xs = mem, *gp = xs + n, *gm = gp + m;
    memcpy(xs, e->x, sizeof(double) * (size_t)n);
    jg_eval_t pe = *e;
    pe.x = xs;
    jg__plugin_ctx(&c, &h, b, &pe);
    for (int64_t j = 0; j < n && !r; j++) {
        if (dg->p[j + 1] == dg->p[j]) continue;
        double v0 = xs[j], hj = fd_step(v0);
        xs[j] = v0 + hj;
        r = T->pt.invariants(&c, gp);
        xs[j] = v0 - hj;
        if (!r) r = T->pt.invariants(&c, gm);
        xs[j] = v0;
        if (r) break;
        for (int64_t t = dg->p[j]; t < dg->p[j + 1]; t++)
            dg->x[t] = (gp[dg->i[t]] - gm[dg->i[t]]) / (2 * hj);
    }
    free(mem);
    return r ? jg__plugin_failed(&h, "invariants", r) : 0;
}
