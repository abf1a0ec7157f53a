/* TransportDelays cut out of a linearization: the delay-free system H with
 * one delay channel per delay element (exact delays, MATLAB's ss with
 * InternalDelay), or H closed again through a Pade approximant of one order.
 *
 * The cut itself is an I/O configuration (lib/eval/iopoints.c): the delay's
 * output signal is opened and carries an input point w_k, its input is an
 * output point z_k, so every method linearizes H = [A B1 B2; C1 D11 D12;
 * C2 D21 D22] over [x; u, w] -> [x'; y, z].  The cut blocks' own Pade
 * states then only see z and reach nothing: they are dropped.
 *
 * Closing with Pade realizations xp' = Ad xp + Bd z, w = Cd xp + dp z (the
 * block's own realization, one per element, dp = (-1)^N) eliminates w from
 * z = C2 x + D21 u + D22 w:  w = Wx x + Wp xp + Wu u with E = (I - dp D22)^-1,
 * Wx = dp E C2, Wp = E Cd, Wu = dp E D21 (D22 != 0 only when a delay feeds a
 * delay without dynamics in between: E is the algebraic loop they make).
 * The closed system's states sit where the blocks' states would, so the
 * result equals the one of a model with that PadeOrder on every delay.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"
#include "lin_internal.h"
#include "../core/dense.h"

int jg_lin_delays_parse(const char *s, jg_lin_delays_t *mode, int *order)
{
    if (!s || !mode || !order) return -1;
    if (!strcmp(s, "exact")) {
        *mode = JG_LIN_DELAYS_EXACT;
        *order = 0;
        return 0;
    }
    if (strncmp(s, "pade:", 5) || s[5] < '0' || s[5] > '9') return -1;
    char *end;
    long n = strtol(s + 5, &end, 10);
    if (*end || n < 0 || n > JG__PADE_MAX) return -1;
    *mode = JG_LIN_DELAYS_PADE;
    *order = (int)n;
    return 0;
}

jg_status_t jg__lin_delay_cuts(const jg_program_t *p, int32_t **cut, int32_t *ncut, jg_error_t *err)
{
    *cut = NULL;
    *ncut = 0;
    int32_t n = 0;
    for (int32_t b = 0; b < p->nblocks; b++)
        n += !p->blocks[b].virt && !isnan(jg__transportdelay_time(&p->blocks[b], 0));
    if (!n) return JG_OK;
    if (!(*cut = malloc(sizeof(int32_t) * (size_t)n))) return jg_error_set(err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++)
        if (!p->blocks[b].virt && !isnan(jg__transportdelay_time(&p->blocks[b], 0))) (*cut)[(*ncut)++] = b;
    return JG_OK;
}

/* ---- small sparse helpers: NULL in, NULL out (out of memory propagates) */

/* M with row i at rmap[i] and column j at cmap[j] (-1: dropped), m x n. */
static cs_dl *remap(const cs_dl *M, const int64_t *rmap, int64_t m, const int64_t *cmap, int64_t n)
{
    if (!M) return NULL;
    cs_dl *T = cs_dl_spalloc(m, n, M->p[M->n] + 1, 1, 1);
    if (!T) return NULL;
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t q = M->p[j]; q < M->p[j + 1]; q++) {
            int64_t r = rmap ? rmap[M->i[q]] : M->i[q], c = cmap ? cmap[j] : j;
            if (r >= 0 && c >= 0 && M->x[q] != 0 && jg__entry(T, r, c, M->x[q])) return cs_dl_spfree(T);
        }
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    return C;
}

/* M(r0 : r0 + m, c0 : c0 + n). */
static cs_dl *sub(const cs_dl *M, int64_t r0, int64_t m, int64_t c0, int64_t n)
{
    int64_t *rm = malloc(sizeof(int64_t) * (size_t)(M->m + 1));
    int64_t *cm = malloc(sizeof(int64_t) * (size_t)(M->n + 1));
    cs_dl *S = NULL;
    if (rm && cm) {
        for (int64_t i = 0; i < M->m; i++) rm[i] = i >= r0 && i < r0 + m ? i - r0 : -1;
        for (int64_t j = 0; j < M->n; j++) cm[j] = j >= c0 && j < c0 + n ? j - c0 : -1;
        S = remap(M, rm, m, cm, n);
    }
    free(rm);
    free(cm);
    return S;
}

/* Temporaries of one closure, freed together. */
typedef struct {
    cs_dl *t[48];
    int n, nomem;
} pool_t;

static cs_dl *keep(pool_t *P, cs_dl *M)
{
    if (!M || P->n == 48) {
        P->nomem = 1;
        return cs_dl_spfree(M);
    }
    return P->t[P->n++] = M;
}

static cs_dl *mul(pool_t *P, const cs_dl *A, const cs_dl *B)
{
    return A && B ? keep(P, cs_dl_multiply(A, B)) : keep(P, NULL);
}

static cs_dl *add(pool_t *P, const cs_dl *A, const cs_dl *B)
{
    return A && B ? keep(P, cs_dl_add(A, B, 1.0, 1.0)) : keep(P, NULL);
}

/* Append M's entries at (rmap[i] or roff + i, cmap[j] or coff + j) to T. */
static int place(cs_dl *T, const cs_dl *M, const int64_t *rmap, int64_t roff, const int64_t *cmap,
                 int64_t coff)
{
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t q = M->p[j]; q < M->p[j + 1]; q++)
            if (M->x[q] != 0 && jg__entry(T, rmap ? rmap[M->i[q]] : roff + M->i[q],
                                           cmap ? cmap[j] : coff + j, M->x[q]))
                return -1;
    return 0;
}

/* [M11 M12; M21 M22] (NULL blocks: none) with rows and columns of the state
 * parts through rmap / cmap (NULL: offsets only), m x n. */
static cs_dl *assemble(const cs_dl *const *blk, const int64_t *const *rmap, const int64_t *roff,
                       const int64_t *const *cmap, const int64_t *coff, int nb, int64_t m, int64_t n)
{
    cs_dl *T = cs_dl_spalloc(m, n, 16, 1, 1);
    if (!T) return NULL;
    for (int k = 0; k < nb; k++)
        if (blk[k] && place(T, blk[k], rmap[k], roff[k], cmap[k], coff[k])) return cs_dl_spfree(T);
    cs_dl *C = jg__compress(T);
    if (C) cs_dl_dropzeros(C);
    return C;
}

jg_status_t jg__lin_delays_apply(const jg_lin_t *l, jg_lin_sys_t **sp, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    jg_lin_sys_t *s = *sp, *r = NULL;
    jg_status_t st = JG_OK;
    pool_t P = {{0}, 0, 0};
    int64_t nd = 0, nx0 = s->nx, nxf = 0;
    for (int32_t c = 0; c < l->ncut; c++) nd += p->blocks[l->cut[c]].out_w[0];
    int N = l->delays == JG_LIN_DELAYS_PADE ? l->pade_order : 0;
    int64_t nu1 = s->nu - nd, ny1 = s->ny - nd, np = (int64_t)N * nd;
    int64_t *xmap = malloc(sizeof(int64_t) * (size_t)(nx0 + 1));   /* H's state -> kept, -1 */
    int64_t *posk = malloc(sizeof(int64_t) * (size_t)(nx0 + 1));   /* kept -> final */
    int64_t *posp = malloc(sizeof(int64_t) * (size_t)(np + 1));    /* Pade state -> final */
    double *tau = malloc(sizeof(double) * (size_t)(nd + 1));
    double *dense = NULL;
    char **names = NULL;
    if (!xmap || !posk || !posp || !tau) goto nomem;
    if (nu1 < 0 || ny1 < 0) {
        st = jg_error_set(err, JG_ARG, "delays: the system has fewer channels than delays");
        goto done;
    }
    for (int32_t c = 0, e = 0; c < l->ncut; c++) {
        const jg_block_t *B = &p->blocks[l->cut[c]];
        for (int64_t i = 0; i < B->out_w[0]; i++) tau[e++] = jg__transportdelay_time(B, i);
    }
    /* the cut blocks' own states go; Pade states take their place */
    for (int64_t k = 0; k < nx0; k++) xmap[k] = 0;
    for (int32_t c = 0; c < l->ncut; c++) {
        const jg_block_t *B = &p->blocks[l->cut[c]];
        for (int64_t k = 0; k < B->nx; k++) xmap[B->x_off + k] = -1;
    }
    int64_t nxk = 0;
    for (int64_t k = 0; k < nx0; k++)
        if (!xmap[k]) xmap[k] = nxk++;
    nxf = nxk + np;
    if (!(names = calloc((size_t)nxf + 1, sizeof(char *)))) goto nomem;
    {
        int64_t f = 0, jp = 0;
        int32_t c = 0;
        for (int64_t k = 0; k <= nx0; k++) {
            while (c < l->ncut && p->blocks[l->cut[c]].x_off == k) {
                const jg_block_t *B = &p->blocks[l->cut[c++]];
                int64_t ns = (int64_t)N * B->out_w[0];
                for (int64_t q = 0; q < ns; q++) {
                    if (!(names[f] = jg__lin_element_name(B->path, ns, q))) goto nomem;
                    posp[jp++] = f++;
                }
            }
            if (k < nx0 && xmap[k] >= 0) {
                names[f] = s->state_names[k];   /* moved */
                s->state_names[k] = NULL;
                posk[xmap[k]] = f++;
            }
        }
    }
    if (!(r = calloc(1, sizeof *r))) goto nomem;
    r->t = s->t;
    r->Ts = s->Ts;
    r->nx = nxf;
    r->state_names = names;
    names = NULL;
    /* H without the cut blocks' states */
    cs_dl *A = keep(&P, remap(s->A, xmap, nxk, xmap, nxk));
    cs_dl *Bm = keep(&P, remap(s->B, xmap, nxk, NULL, s->nu));
    cs_dl *Cm = keep(&P, remap(s->C, NULL, s->ny, xmap, nxk));
    if (P.nomem) goto nomem;
    if (!N && l->delays == JG_LIN_DELAYS_EXACT) {
        r->nu = s->nu, r->ny = s->ny;
        r->A = A, r->B = Bm, r->C = Cm, r->D = s->D;
        P.t[0] = P.t[1] = P.t[2] = NULL;
        s->D = NULL;
        r->input_names = s->input_names, r->output_names = s->output_names;
        s->input_names = s->output_names = NULL;
        s->nu = s->ny = 0;
        r->ndelays = nd;
        r->delays = tau;
        tau = NULL;
        goto out;
    }
    /* Pade closure */
    double alpha[JG__PADE_MAX + 1], cp[JG__PADE_MAX + 1], dp, amax = 1;
    jg__transportdelay_pade(N, alpha, cp, &dp);
    for (int j = 1; j <= N; j++) amax = fmax(amax, alpha[j]);
    for (int32_t c = 0, e = 0; N && c < l->ncut; c++) {   /* the block's own guard, at order N */
        const jg_block_t *B = &p->blocks[l->cut[c]];
        for (int64_t i = 0; i < B->out_w[0]; i++, e++)
            if (!isfinite(amax / tau[e])) {
                st = jg_error_set(err, JG_NUMERIC, "delays: element %lld of TransportDelay '%s' "
                                  "is %g, too small for the Pade order %d (1/delay overflows)",
                                  (long long)i + 1, B->path, tau[e], N);
                goto done;
            }
    }
    cs_dl *Tad = keep(&P, cs_dl_spalloc(np, np, 2 * np + 1, 1, 1));
    cs_dl *Tbd = keep(&P, cs_dl_spalloc(np, nd, nd + 1, 1, 1));
    cs_dl *Tcd = keep(&P, cs_dl_spalloc(nd, np, np + 1, 1, 1));
    if (P.nomem) goto nomem;
    for (int64_t e = 0; e < nd; e++) {
        int64_t o = e * N;
        for (int64_t j = 0; j < N; j++) {
            if (jg__entry(Tad, o, o + j, -alpha[j + 1] / tau[e]) ||
                (j && jg__entry(Tad, o + j, o + j - 1, 1.0 / tau[e])) ||
                (cp[j + 1] != 0 && jg__entry(Tcd, e, o + j, cp[j + 1])))
                goto nomem;
        }
        if (N && jg__entry(Tbd, o, e, 1.0 / tau[e])) goto nomem;
    }
    cs_dl *Ad = keep(&P, cs_dl_compress(Tad)), *Bd = keep(&P, cs_dl_compress(Tbd));
    cs_dl *Cd = keep(&P, cs_dl_compress(Tcd));
    cs_dl *B1 = keep(&P, sub(Bm, 0, nxk, 0, nu1)), *B2 = keep(&P, sub(Bm, 0, nxk, nu1, nd));
    cs_dl *C1 = keep(&P, sub(Cm, 0, ny1, 0, nxk)), *C2 = keep(&P, sub(Cm, ny1, nd, 0, nxk));
    cs_dl *D11 = keep(&P, sub(s->D, 0, ny1, 0, nu1)), *D12 = keep(&P, sub(s->D, 0, ny1, nu1, nd));
    cs_dl *D21 = keep(&P, sub(s->D, ny1, nd, 0, nu1)), *D22 = keep(&P, sub(s->D, ny1, nd, nu1, nd));
    if (P.nomem) goto nomem;
    /* E = (I - dp D22)^-1, dense: nd is the number of delay elements */
    cs_dl *TE = keep(&P, cs_dl_spalloc(nd, nd, nd + 1, 1, 1));
    if (P.nomem) goto nomem;
    if (D22->p[nd] == 0) {
        for (int64_t e = 0; e < nd; e++)
            if (jg__entry(TE, e, e, 1.0)) goto nomem;
    } else {
        if (!(dense = calloc((size_t)(nd * nd), sizeof(double)))) goto nomem;
        for (int64_t e = 0; e < nd; e++) dense[e * nd + e] = 1;
        for (int64_t j = 0; j < nd; j++)
            for (int64_t q = D22->p[j]; q < D22->p[j + 1]; q++) dense[j * nd + D22->i[q]] -= dp * D22->x[q];
        if (jg__dense_inverse(nd, dense)) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "delays: with the Pade approximation of order %d (direct feedthrough "
                              "%g) the delays close a singular algebraic loop among themselves "
                              "(I - D22 is singular); use another order or exact delays",
                              N, dp);
            goto done;
        }
        for (int64_t j = 0; j < nd; j++)
            for (int64_t i = 0; i < nd; i++)
                if (dense[j * nd + i] != 0 && jg__entry(TE, i, j, dense[j * nd + i])) goto nomem;
    }
    cs_dl *E = keep(&P, cs_dl_compress(TE));
    cs_dl *G = keep(&P, E ? cs_dl_add(E, E, dp, 0.0) : NULL);   /* dp E */
    if (P.nomem) goto nomem;
    cs_dl *Wx = mul(&P, G, C2), *Wu = mul(&P, G, D21), *Wp = mul(&P, E, Cd);
    cs_dl *Zx = add(&P, C2, mul(&P, D22, Wx)), *Zp = mul(&P, D22, Wp);
    cs_dl *Zu = add(&P, D21, mul(&P, D22, Wu));
    cs_dl *A11 = add(&P, A, mul(&P, B2, Wx)), *A12 = mul(&P, B2, Wp);
    cs_dl *A21 = mul(&P, Bd, Zx), *A22 = add(&P, Ad, mul(&P, Bd, Zp));
    cs_dl *Bc1 = add(&P, B1, mul(&P, B2, Wu)), *Bc2 = mul(&P, Bd, Zu);
    cs_dl *Cc1 = add(&P, C1, mul(&P, D12, Wx)), *Cc2 = mul(&P, D12, Wp);
    cs_dl *Dc = add(&P, D11, mul(&P, D12, Wu));
    if (P.nomem) goto nomem;
    {
        const cs_dl *ab[4] = {A11, A12, A21, A22};
        const int64_t *ar[4] = {posk, posk, posp, posp}, *ac[4] = {posk, posp, posk, posp};
        const int64_t z4[4] = {0};
        const cs_dl *bb[2] = {Bc1, Bc2};
        const int64_t *br[2] = {posk, posp}, *bc[2] = {NULL, NULL};
        const cs_dl *cb[2] = {Cc1, Cc2};
        const int64_t *cr[2] = {NULL, NULL}, *cc[2] = {posk, posp};
        r->A = assemble(ab, ar, z4, ac, z4, 4, nxf, nxf);
        r->B = assemble(bb, br, z4, bc, z4, 2, nxf, nu1);
        r->C = assemble(cb, cr, z4, cc, z4, 2, ny1, nxf);
        const cs_dl *db[1] = {Dc};
        const int64_t *dn[1] = {NULL};
        r->D = assemble(db, dn, z4, dn, z4, 1, ny1, nu1);
        if (!r->A || !r->B || !r->C || !r->D) goto nomem;
    }
    r->nu = nu1, r->ny = ny1;
    /* the channel names but the delays' */
    r->input_names = s->input_names, r->output_names = s->output_names;
    for (int64_t k = nu1; k < s->nu; k++) free(r->input_names[k]), r->input_names[k] = NULL;
    for (int64_t k = ny1; k < s->ny; k++) free(r->output_names[k]), r->output_names[k] = NULL;
    s->input_names = s->output_names = NULL;
    s->nu = s->ny = 0;
out:
    jg_lin_sys_free(s);
    *sp = r;
    r = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    for (int k = 0; k < P.n; k++) cs_dl_spfree(P.t[k]);
    if (names)
        for (int64_t k = 0; k < nxf; k++) free(names[k]);
    free(names);
    jg_lin_sys_free(r);
    free(dense);
    free(xmap);
    free(posk);
    free(posp);
    free(tau);
    return st;
}
