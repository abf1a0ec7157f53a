/* Discrete and multirate linearization: the hybrid linear model of
 * lib/linearize (jg__lin_hybrid) combined one rate at a time, fastest first,
 * each intermediate system converted to the next rate (Simulink Control
 * Design's rate conversion); conversions of linearization results.
 *
 * One step, for the block set of rate r (r = -1: the continuous blocks),
 * given the system S carried so far at rate r (state s, the blocks of the
 * faster rates; its inputs v the signals of slower blocks, which are held,
 * and the inputs w; its output every signal y):
 *     s+ = Ac s + Bc_y y + Bc_w w           y_F = Cc s + Dc_y y + Dc_w w
 *     xr+ = Ar xr + Br (M y + W w)          y_R = Cr xr + Dy (M y + W w)
 *                                           y_S = v
 * F, R, S the signals of faster, this and slower rates.  The signals at a
 * hit solve G y = [KF Cc | KR Cr | KS | KF Dc_w + KR Dy W] [s; xr; v; w] with
 * G = I - KF Dc_y - KR Dy M (K* selecting rows), y = Cn [s; xr] + Dn [v; w],
 * and the new carried system is
 *     [s; xr]+ = (blkdiag(Ac, Ar) + Y Cn) [s; xr] + (Y Dn + [0 | Bc_w; Br W]) [v; w]
 * with Y = [Bc_y; Br M].  All dense, column-major. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "lti_impl.h"
#include "../linearize/lin_internal.h"
#include "../compile/program_impl.h"
#include "../core/str.h"

int jg_analysis_has_discrete(const jg_program_t *p)
{
    for (int32_t b = 0; p && b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!B->virt && B->rate >= 0 && jg_block_nd(B) > 0 && !(B->type->flags & JG_BT_SOURCE)) return 1;
    }
    return 0;
}

static double *dense(const cs_dl *S)
{
    double *d = calloc((size_t)(S->m * S->n) + 1, sizeof(double));
    if (!d) return NULL;
    for (int64_t j = 0; j < S->n; j++)
        for (int64_t k = S->p[j]; k < S->p[j + 1]; k++) d[S->i[k] + j * S->m] += S->x[k];
    return d;
}

static cs_dl *to_csc(int64_t m, int64_t n, const double *d)
{
    int64_t nz = 0;
    for (int64_t k = 0; k < m * n; k++) nz += d[k] != 0;
    cs_dl *S = cs_dl_spalloc(m, n, nz + 1, 1, 0);
    if (!S) return NULL;
    nz = 0;
    for (int64_t j = 0; j < n; j++) {
        S->p[j] = nz;
        for (int64_t i = 0; i < m; i++)
            if (d[i + j * m] != 0) S->i[nz] = i, S->x[nz++] = d[i + j * m];
    }
    S->p[n] = nz;
    return S;
}

/* A jg_lin_sys_t from dense A..D (column-major) with copies of the names. */
static jg_status_t make_sys(int64_t nx, int64_t nu, int64_t ny, const double *A, const double *B,
                            const double *C, const double *D, char *const *xn, char *const *un,
                            char *const *yn, double t, double Ts, jg_lin_sys_t **out, jg_error_t *err)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->nx = nx, s->nu = nu, s->ny = ny, s->t = t, s->Ts = Ts;
    s->A = to_csc(nx, nx, A);
    s->B = to_csc(nx, nu, B);
    s->C = to_csc(ny, nx, C);
    s->D = to_csc(ny, nu, D);
    s->state_names = jg__strv_dup(xn, nx, "?");
    s->input_names = jg__strv_dup(un, nu, "?");
    s->output_names = jg__strv_dup(yn, ny, "?");
    if (!s->A || !s->B || !s->C || !s->D || !s->state_names || !s->input_names || !s->output_names) {
        jg_lin_sys_free(s);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    *out = s;
    return JG_OK;
}

jg_status_t jg_analysis_lin_convert(const jg_lin_sys_t *s, double Ts, jg_analysis_c2d_t m, double prewarp,
                                    jg_lin_sys_t **out, jg_error_t *err)
{
    *out = NULL;
    if (!s) return jg_error_set(err, JG_ARG, "no model");
    if (s->ndelays > 0)   /* converting the delay-free part would drop the delays */
        return jg__lti_delays_refuse(s, "c2d, d2c and d2d convert models without internal delays "
                                     "(approximate the delays by Pade first)", err);
    jg_analysis_ss_t *a = NULL, *r = NULL;
    jg_status_t st = jg_analysis_ss_from_lin(s, s->Ts, &a, err);
    if (st) return st;
    if (s->Ts == 0) st = jg_analysis_c2d(a, Ts, m, prewarp, &r, err);
    else if (Ts == 0) st = jg_analysis_d2c(a, m, prewarp, &r, err);
    else st = jg_analysis_d2d(a, Ts, m, prewarp, &r, err);
    if (!st)
        st = make_sys(r->nx, r->nu, r->ny, r->A, r->B, r->C, r->D, s->state_names, s->input_names,
                      s->output_names, s->t, r->Ts, out, err);
    jg_analysis_ss_free(a);
    jg_analysis_ss_free(r);
    return st;
}

/* The carried system: state ns, inputs [v (ny); w (nw)], outputs y (ny). */
typedef struct {
    int64_t ns;
    double *A, *B, *C, *D;   /* ns x ns, ns x (ny+nw), ny x ns, ny x (ny+nw) */
    double Ts;
} carried_t;

static void carried_free(carried_t *c)
{
    free(c->A), free(c->B), free(c->C), free(c->D);
    memset(c, 0, sizeof *c);
}

/* Convert the carried system to sample time Ts (c2d from continuous time,
 * d2d otherwise); no states: only the sample time changes. */
static jg_status_t convert(carried_t *c, int64_t ny, int64_t nw, double Ts, const jg_analysis_rate_opts_t *o,
                           jg_error_t *err)
{
    if (c->ns == 0 || c->Ts == Ts) {
        c->Ts = Ts;
        return JG_OK;
    }
    jg_analysis_ss_t *a = NULL, *r = NULL;
    jg_status_t st = jg_analysis_ss_create(c->ns, ny + nw, ny, c->A, c->B, c->C, c->D, c->Ts, &a, err);
    if (!st) st = c->Ts == 0 ? jg_analysis_c2d(a, Ts, o->method, o->prewarp, &r, err)
                             : jg_analysis_d2d(a, Ts, o->method, o->prewarp, &r, err);
    if (!st) {
        size_t nn = (size_t)c->ns;
        memcpy(c->A, r->A, sizeof(double) * nn * nn);
        memcpy(c->B, r->B, sizeof(double) * nn * (size_t)(ny + nw));
        memcpy(c->C, r->C, sizeof(double) * (size_t)ny * nn);
        memcpy(c->D, r->D, sizeof(double) * (size_t)(ny * (ny + nw)));
        c->Ts = Ts;
    }
    jg_analysis_ss_free(a);
    jg_analysis_ss_free(r);
    return st;
}

/* One merge step (the top of this file) with the rate-r block set: Ar
 * (nr x nr), Br (nr x nu), Cr (ny x nr), dense; DM = Dy M, DW = Dy W. */
static jg_status_t merge(carried_t *c, const jg__lin_hybrid_t *h, int32_t r, int64_t nr, const double *Ar,
                         const double *Br, const double *Cr, const double *DM, const double *DW,
                         const double *Md, const double *Wd, jg_error_t *err)
{
    int64_t ny = h->ny, nw = h->nw, nu = h->nu, ns = c->ns, n2 = ns + nr, nv = ny + nw;
    int64_t ncol = n2 + nv;
    jg_status_t st = JG_OK;
    double *G = calloc((size_t)(ny * ny) + 1, sizeof(double));
    double *R = calloc((size_t)(ny * ncol) + 1, sizeof(double));
    double *Y = calloc((size_t)(n2 * ny) + 1, sizeof(double));
    double *A = calloc((size_t)(n2 * n2) + 1, sizeof(double));
    double *B = calloc((size_t)(n2 * nv) + 1, sizeof(double));
    double *BrM = NULL;
    lapack_int *piv = malloc(sizeof(lapack_int) * (size_t)(ny + 1));
    if (!G || !R || !Y || !A || !B || !piv) goto nomem;
    for (int64_t i = 0; i < ny; i++) {
        int32_t yr = h->y_rate[i];
        G[i + i * ny] = 1;
        if (yr < r) {   /* computed by the carried system */
            for (int64_t j = 0; j < ny; j++) G[i + j * ny] -= c->D[i + j * ny];
            for (int64_t j = 0; j < ns; j++) R[i + j * ny] = c->C[i + j * ny];
            for (int64_t j = 0; j < nw; j++) R[i + (n2 + ny + j) * ny] = c->D[i + (ny + j) * ny];
        } else if (yr == r) {   /* a block of this rate */
            for (int64_t j = 0; j < ny; j++) G[i + j * ny] -= DM[i + j * ny];
            for (int64_t j = 0; j < nr; j++) R[i + (ns + j) * ny] = Cr[i + j * ny];
            for (int64_t j = 0; j < nw; j++) R[i + (n2 + ny + j) * ny] = DW[i + j * ny];
        } else {   /* slower: held, an input */
            R[i + (n2 + i) * ny] = 1;
        }
    }
    if (ny && LAPACKE_dgesv(LAPACK_COL_MAJOR, (lapack_int)ny, (lapack_int)ncol, G, (lapack_int)ny, piv, R,
                            (lapack_int)ny)) {
        st = jg_error_set(err, JG_SINGULAR_LOOP,
                          "singular algebraic loop among the signals at the sample hits of %s",
                          r < 0 ? "continuous time" : "a discrete rate");
        goto done;
    }
    const double *Cn = R, *Dn = R + ny * n2;
    /* Y = [Bc_y; Br M] */
    BrM = calloc((size_t)(nr * ny) + 1, sizeof(double));
    if (!BrM) goto nomem;
    jg__lti_gemm(0, 0, nr, ny, nu, Br, nr, Md, nu, BrM, nr);
    for (int64_t j = 0; j < ny; j++) {
        for (int64_t i = 0; i < ns; i++) Y[i + j * n2] = c->B[i + j * ns];
        for (int64_t i = 0; i < nr; i++) Y[ns + i + j * n2] = BrM[i + j * nr];
    }
    jg__lti_gemm(0, 0, n2, n2, ny, Y, n2, Cn, ny, A, n2);
    for (int64_t j = 0; j < ns; j++)
        for (int64_t i = 0; i < ns; i++) A[i + j * n2] += c->A[i + j * ns];
    for (int64_t j = 0; j < nr; j++)
        for (int64_t i = 0; i < nr; i++) A[ns + i + (ns + j) * n2] += Ar[i + j * nr];
    jg__lti_gemm(0, 0, n2, nv, ny, Y, n2, Dn, ny, B, n2);
    for (int64_t j = 0; j < nw; j++) {
        for (int64_t i = 0; i < ns; i++) B[i + (ny + j) * n2] += c->B[i + (ny + j) * ns];
        for (int64_t i = 0; i < nr; i++) {   /* Br W */
            double acc = 0;
            for (int64_t k = 0; k < nu; k++) acc += Br[i + k * nr] * Wd[k + j * nu];
            B[ns + i + (ny + j) * n2] += acc;
        }
    }
    double *C = malloc(sizeof(double) * (size_t)(ny * n2 + 1)), *D = malloc(sizeof(double) * (size_t)(ny * nv + 1));
    if (!C || !D) {
        free(C), free(D);
        goto nomem;
    }
    memcpy(C, Cn, sizeof(double) * (size_t)(ny * n2));
    memcpy(D, Dn, sizeof(double) * (size_t)(ny * nv));
    free(c->A), free(c->B), free(c->C), free(c->D);
    c->A = A, c->B = B, c->C = C, c->D = D, c->ns = n2;
    A = B = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    free(G), free(R), free(Y), free(A), free(B), free(BrM), free(piv);
    return st;
}

jg_status_t jg_analysis_lin_discrete(jg_lin_t *l, const jg_analysis_rate_opts_t *o, jg_lin_sys_t **out,
                                     jg_error_t *err)
{
    static const jg_analysis_rate_opts_t def = {0};
    if (!o) o = &def;
    *out = NULL;
    if (!l) return jg_error_set(err, JG_ARG, "no linearizer");
    if (o->rate < 0 || !isfinite(o->rate))
        return jg_error_set(err, JG_ARG, "the target sample time must be positive, got %g", o->rate);
    if (o->method != JG_ANALYSIS_ZOH && o->method != JG_ANALYSIS_TUSTIN)
        return jg_error_set(err, JG_ARG, "rate conversion: zoh or tustin (prewarp), not %s",
                            jg_analysis_c2d_name(o->method));
    jg__lin_hybrid_t *h = NULL;
    jg_status_t st = jg__lin_hybrid(l, &h, err);
    if (st) return st;
    int64_t nx = h->nx, ny = h->ny, nu = h->nu, nw = h->nw, nz = h->nz, nd = h->nd;
    double target = o->rate;
    carried_t c = {0};
    double *DM = NULL, *DW = NULL, *Md = NULL, *Wd = NULL, *Dy = NULL, *Ar = NULL, *Br = NULL, *Cr = NULL,
           *Ad = NULL, *Bd = NULL, *Cd = NULL, *Mz = NULL, *Wz = NULL, *Cz = NULL, *Dz = NULL, *Bw = NULL;
    char **xn = NULL;
    const jg_program_t *p = jg__eval_program(jg__lin_work(l));
    const jg_iospec_t *io = jg__lin_iospec(l);
    if (target == 0) {
        if (h->nrates == 1) target = h->rates[0];
        else if (h->nrates == 0) {
            st = jg_error_set(err, JG_ARG, "the model has no discrete sample time: give the target sample time");
            goto done;
        } else {
            char buf[512];
            size_t n = 0;
            for (int32_t r = 0; r < h->nrates && n < sizeof buf - 32; r++)
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%g", r ? ", " : "", h->rates[r]);
            st = jg_error_set(err, JG_ARG,
                              "the model has several sample times (%s): choose the linear model's "
                              "sample time (--rate TS)",
                              buf);
            goto done;
        }
    }
    Dy = dense(h->Dy), Md = dense(h->M), Wd = dense(h->W);
    Ad = dense(h->Ad), Bd = dense(h->Bd), Cd = dense(h->Cd);
    DM = malloc(sizeof(double) * (size_t)(ny * ny + 1));
    DW = malloc(sizeof(double) * (size_t)(ny * nw + 1));
    xn = calloc((size_t)(nx + nd) + 1, sizeof(char *));
    if (!Dy || !Md || !Wd || !Ad || !Bd || !Cd || !DM || !DW || !xn) goto nomem;
    jg__lti_gemm(0, 0, ny, ny, nu, Dy, ny, Md, nu, DM, ny);
    jg__lti_gemm(0, 0, ny, nw, nu, Dy, ny, Wd, nu, DW, ny);
    c.D = calloc((size_t)(ny * (ny + nw)) + 1, sizeof(double));
    c.A = calloc(1, sizeof(double)), c.B = calloc(1, sizeof(double)), c.C = calloc(1, sizeof(double));
    if (!c.D || !c.A || !c.B || !c.C) goto nomem;
    int64_t names = 0;
    for (int32_t r = -1; r < h->nrates; r++) {
        int64_t nr = 0;
        if (r < 0) {   /* the continuous blocks: x' = Ax x + Bx u, y = Cx x + ... */
            nr = nx;
            if (!(Ar = dense(h->Ax)) || !(Br = dense(h->Bx)) || !(Cr = dense(h->Cx))) goto nomem;
            for (int64_t k = 0; k < nx; k++)
                if (!(xn[names++] = jg__strdup(jg_program_state_name(p, k) ? jg_program_state_name(p, k) : "?"))) goto nomem;
        } else {
            if ((st = convert(&c, ny, nw, h->rates[r], o, err))) goto done;
            for (int64_t k = 0; k < nd; k++) nr += h->d_rate[k] == r;
            Ar = calloc((size_t)(nr * nr) + 1, sizeof(double));
            Br = calloc((size_t)(nr * nu) + 1, sizeof(double));
            Cr = calloc((size_t)(ny * nr) + 1, sizeof(double));
            if (!Ar || !Br || !Cr) goto nomem;
            /* the rate's discrete states, in order */
            int64_t a = 0;
            for (int64_t k = 0; k < nd; k++) {
                if (h->d_rate[k] != r) continue;
                int64_t b = 0;
                for (int64_t j = 0; j < nd; j++)
                    if (h->d_rate[j] == r) Ar[a + (b++) * nr] = Ad[k + j * nd];
                for (int64_t j = 0; j < nu; j++) Br[a + j * nr] = Bd[k + j * nd];
                for (int64_t i = 0; i < ny; i++) Cr[i + a * ny] = Cd[i + k * ny];
                if (!(xn[names++] = jg__strdup(h->d_name[k] ? h->d_name[k] : "?"))) goto nomem;
                a++;
            }
        }
        st = merge(&c, h, r, nr, Ar, Br, Cr, DM, DW, Md, Wd, err);
        free(Ar), free(Br), free(Cr);
        Ar = Br = Cr = NULL;
        if (st) goto done;
    }
    /* the outputs: z = Mz y + Wz w at the slowest rate's hits (no held
     * inputs are left: the v columns are zero) */
    int64_t ns = c.ns;
    Mz = dense(h->Mz), Wz = dense(h->Wz);
    Cz = calloc((size_t)(nz * ns) + 1, sizeof(double));
    Dz = calloc((size_t)(nz * nw) + 1, sizeof(double));
    Bw = malloc(sizeof(double) * (size_t)(ns * nw + 1));
    if (!Mz || !Wz || !Cz || !Dz || !Bw) goto nomem;
    jg__lti_gemm(0, 0, nz, ns, ny, Mz, nz, c.C, ny, Cz, nz);
    jg__lti_gemm(0, 0, nz, nw, ny, Mz, nz, c.D + ny * ny, ny, Dz, nz);
    for (int64_t k = 0; k < nz * nw; k++) Dz[k] += Wz[k];
    memcpy(Bw, c.B + ns * ny, sizeof(double) * (size_t)(ns * nw));
    jg_lin_sys_t *s = NULL;
    if ((st = make_sys(ns, nw, nz, c.A, Bw, Cz, Dz, xn, io->w_name, io->z_name, h->t, c.Ts, &s, err))) goto done;
    if (c.Ts != target) {   /* resample to the target rate */
        jg_lin_sys_t *s2 = NULL;
        st = jg_analysis_lin_convert(s, target, o->method, o->prewarp, &s2, err);
        jg_lin_sys_free(s);
        s = s2;
        if (st) goto done;
    }
    *out = s;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    carried_free(&c);
    for (int64_t k = 0; xn && k < nx + nd; k++) free(xn[k]);
    free(xn);
    free(DM), free(DW), free(Md), free(Wd), free(Dy), free(Ar), free(Br), free(Cr);
    free(Ad), free(Bd), free(Cd), free(Mz), free(Wz), free(Cz), free(Dz), free(Bw);
    jg__lin_hybrid_free(h);
    return st;
}
