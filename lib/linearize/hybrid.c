/* The hybrid linear model of a program with discrete rates: the block
 * Jacobians (continuous parts and the discrete blocks' update Jacobians), the
 * signal connections and the rate of every signal and discrete state, the
 * pieces from which lib/analysis assembles a discrete-time model (one rate
 * after the other, as Simulink Control Design converts rates). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"
#include "lin_internal.h"

void jg__lin_hybrid_free(jg__lin_hybrid_t *h)
{
    if (!h) return;
    cs_dl *const m[11] = {h->Ax, h->Bx, h->Cx, h->Dy, h->M, h->W, h->Mz, h->Wz, h->Ad, h->Bd, h->Cd};
    for (int k = 0; k < 11; k++) cs_dl_spfree(m[k]);
    for (int64_t k = 0; h->d_name && k < h->nd; k++) free(h->d_name[k]);
    free(h->d_name);
    free(h->d_at);
    free(h->d_rate);
    free(h->y_rate);
    free(h->rates);
    free(h);
}

/* A block's discrete states are states of the discrete linear model when it
 * runs at a discrete rate and is not a source (a source's discrete states,
 * random generators and counters, do not depend on any signal: held).
 * PARTIAL: those of every block at a discrete rate with djacobian; the caller
 * treats the others. */
static int dynamic_dstates(const jg_block_t *B, unsigned flags)
{
    if (flags & JG__LIN_HYBRID_PARTIAL) return !B->virt && B->rate >= 0 && jg_block_nd(B) > 0 && B->type->djacobian;
    return !B->virt && B->rate >= 0 && jg_block_nd(B) > 0 && !(B->type->flags & JG_BT_SOURCE);
}

char *jg__lin_element_name(const char *path, int64_t n, int64_t k)
{
    size_t len = strlen(path) + 24;
    char *s = malloc(len);
    if (!s) return NULL;
    if (n == 1) snprintf(s, len, "%s", path);
    else snprintf(s, len, "%s(%lld)", path, (long long)k + 1);
    return s;
}

jg_status_t jg__lin_hybrid(jg_lin_t *l, jg__lin_hybrid_t **out, jg_error_t *err)
{
    return jg__lin_hybrid_ex(l, 0, out, err);
}

jg_status_t jg__lin_hybrid_ex(jg_lin_t *l, unsigned flags, jg__lin_hybrid_t **out, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    const jg_iospec_t *io = l->io;
    int64_t nx = p->nx, nu = p->nu, ny = p->ny, nw = io->nw, nz = io->nz;
    jg_status_t st = JG_OK;
    double *dense = NULL;
    cs_dl *T[11] = {0};
    *out = NULL;
    jg__lin_hybrid_t *h = calloc(1, sizeof *h);
    if (!h) return jg_error_set(err, JG_NOMEM, "out of memory");
    if (l->ncut) {   /* the cut delays (delays.c) are continuous-time channels */
        st = jg_error_set(err, JG_ARG, "discrete linearization with Pade-order or exact delays "
                          "(the TransportDelay '%s'): not supported; set the blocks' PadeOrder "
                          "instead, or linearize in continuous time",
                          p->blocks[l->cut[0]].path);
        goto fail;
    }
    /* offsets refused: SCD's rate conversion assumes every rate's hits at
     * multiples of its period (the paper's reason for not adopting it) */
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!(flags & JG__LIN_HYBRID_PARTIAL) && !B->virt && B->rate >= 0 && B->ts.offset != 0) {
            st = jg_error_set(err, JG_ARG,
                              "block '%s' (%s) has the sample time offset %g (period %g): "
                              "discrete linearization supports no offsets",
                              B->path, B->type->name, B->ts.offset, B->ts.period);
            goto fail;
        }
    }
    if ((st = jg__lin_eval(l, 1, err))) goto fail;
    h->nx = nx, h->nu = nu, h->ny = ny, h->nw = nw, h->nz = nz;
    h->t = l->t;
    h->nrates = p->nrates;
    h->rates = malloc(sizeof(double) * (size_t)(p->nrates + 1));
    h->y_rate = malloc(sizeof(int32_t) * (size_t)(ny + 1));
    if (!h->rates || !h->y_rate) goto nomem;
    for (int32_t r = 0; r < p->nrates; r++) h->rates[r] = p->rates[r].period;
    for (int64_t i = 0; i < ny; i++) h->y_rate[i] = -1;
    int64_t nd = 0, maxd = 0, maxio = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int q = 0; q < B->nout; q++)
            for (int64_t k = 0; k < B->out_w[q]; k++)
                h->y_rate[p->y_off[jg__outport(p, b, q)] + k] = B->rate;
        if (!dynamic_dstates(B, flags)) continue;
        nd += jg_block_nd(B);
        if (jg_block_nd(B) > maxd) maxd = jg_block_nd(B);
        for (int q = 0; q < B->nin; q++) maxio = B->in_w[q] > maxio ? B->in_w[q] : maxio;
        for (int q = 0; q < B->nout; q++) maxio = B->out_w[q] > maxio ? B->out_w[q] : maxio;
    }
    h->nd = nd;
    h->d_rate = malloc(sizeof(int32_t) * (size_t)(nd + 1));
    h->d_name = calloc((size_t)nd + 1, sizeof(char *));
    h->d_at = malloc(sizeof(int64_t) * (size_t)(nd + 1));
    const int64_t rows[11] = {nx, nx, ny, ny, nu, nu, nz, nz, nd, nd, ny};
    const int64_t cols[11] = {nx, nu, nx, nu, ny, nw, ny, nw, nd, nu, nd};
    for (int k = 0; k < 11; k++)
        if (!(T[k] = cs_dl_spalloc(rows[k], cols[k], 16, 1, 1))) goto nomem;
    if (!h->d_rate || !h->d_name || !h->d_at) goto nomem;
    enum { AX, BX, CX, DY, MM, WW, MZ, WZ, AD, BD, CD };
    /* the continuous parts and the feedthrough, as the matrix method (matrix.c) */
    if (jg__lin_place_parts(l, T, 1)) goto nomem;
    /* the discrete blocks' update Jacobians (dense per block, small) */
    size_t need = (size_t)(maxd * maxd + maxd * maxio * 2) + 1;
    if (!(dense = malloc(sizeof(double) * need))) goto nomem;
    int64_t d0 = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!dynamic_dstates(B, flags)) continue;
        int64_t n = jg_block_nd(B);
        double *bd[64], *cd[64];
        if (B->nin > 64 || B->nout > 64) {
            st = jg_error_set(err, JG_MODEL, "block '%s': more than 64 ports", B->path);
            goto fail;
        }
        /* ad, then bd per input port, then cd per output port; one port at a
         * time would need less, but the callback fills them all at once */
        size_t tot = (size_t)(n * n);
        for (int q = 0; q < B->nin; q++) tot += (size_t)(n * B->in_w[q]);
        for (int q = 0; q < B->nout; q++) tot += (size_t)(n * B->out_w[q]);
        if (tot + 1 > need) {
            double *nd2 = realloc(dense, sizeof(double) * (tot + 1));
            if (!nd2) goto nomem;
            dense = nd2, need = tot + 1;
        }
        memset(dense, 0, sizeof(double) * tot);
        double *ptr = dense + n * n;
        for (int q = 0; q < B->nin; q++) bd[q] = ptr, ptr += n * B->in_w[q];
        for (int q = 0; q < B->nout; q++) cd[q] = ptr, ptr += n * B->out_w[q];
        if ((st = jg__eval_djacobian(l->w, b, dense, bd, cd, err))) goto fail;
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = 0; j < n; j++)
                if (dense[i * n + j] != 0 && jg__entry(T[AD], d0 + i, d0 + j, dense[i * n + j])) goto nomem;
            for (int q = 0; q < B->nin; q++) {
                int64_t c0 = p->u_off[jg__inport(p, b, q)], w = B->in_w[q];
                for (int64_t j = 0; j < w; j++)
                    if (bd[q][i * w + j] != 0 && jg__entry(T[BD], d0 + i, c0 + j, bd[q][i * w + j]))
                        goto nomem;
            }
            for (int q = 0; q < B->nout; q++) {
                int64_t r0 = p->y_off[jg__outport(p, b, q)];
                for (int64_t k = 0; k < B->out_w[q]; k++)
                    if (cd[q][k * n + i] != 0 && jg__entry(T[CD], r0 + k, d0 + i, cd[q][k * n + i]))
                        goto nomem;
            }
            h->d_rate[d0 + i] = B->rate;
            h->d_at[d0 + i] = jg_block_d_off(B) + i;
            if (!(h->d_name[d0 + i] = jg__lin_element_name(B->path, n, i))) goto nomem;
        }
        d0 += n;
    }
    /* connections: u = M y + W w, z = Mz y + Wz w (matrix.c's M split) */
    for (int64_t e = 0; e < nu + nz; e++) {
        int tm = e < nu ? MM : MZ, tw = e < nu ? WW : WZ;
        int64_t r = e < nu ? e : e - nu;
        if (io->src[e] >= 0 && jg__entry(T[tm], r, io->src[e], 1.0)) goto nomem;
        for (int64_t j = io->inj_ptr[e]; j < io->inj_ptr[e + 1]; j++)
            if (jg__entry(T[tw], r, io->inj_idx[j], 1.0)) goto nomem;
    }
    cs_dl **dst[11] = {&h->Ax, &h->Bx, &h->Cx, &h->Dy, &h->M, &h->W, &h->Mz, &h->Wz, &h->Ad, &h->Bd, &h->Cd};
    for (int k = 0; k < 11; k++) {
        *dst[k] = jg__compress(T[k]);
        T[k] = NULL;
        if (!*dst[k]) goto nomem;
    }
    free(dense);
    *out = h;
    return JG_OK;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory assembling the discrete linear model");
fail:
    for (int k = 0; k < 11; k++) cs_dl_spfree(T[k]);
    free(dense);
    jg__lin_hybrid_free(h);
    return st;
}
