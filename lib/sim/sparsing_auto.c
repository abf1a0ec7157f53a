/* An automatic sparsing of the solver Jacobian: mixed-mode states and single
 * entries dropped while the checks d1 < C1 and d2 < C2 of "Sparsing of
 * Jacobians" hold (jacgraph/sparsing.h, docs/sparsing.md).
 *
 * Greedy, because the exact optimum (the paper's reference solves an
 * optimization problem offline) is a subset search; the order comes from the
 * exact single-entry change, so the entries that move the spectrum least go
 * first.  Each accepted candidate is re-checked with the full traces: the
 * estimates of single entries do not add (that is the cancellation the
 * second check is there for). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sparsing_impl.h"

typedef struct {
    double key;
    int64_t idx;
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);   /* ties: the pattern's order */
}

/* do both checks hold for the dense sparsing Ad?  Rejects (0) when I - hA is
 * singular; *rc receives a real failure (out of memory). */
static int checks_hold(const jg__sparsing_base_t *b, const double *Ad, double *Bi, double *W,
                       jg_status_t *rc, jg_error_t *err)
{
    double t1, t2;
    jg_error_t scratch;
    jg_status_t st = jg__sparsing_traces(b, Ad, Bi, W, &t1, &t2, &scratch);
    if (st == JG_NOMEM) *rc = jg_error_set(err, JG_NOMEM, "out of memory");
    if (st) return 0;
    return fabs(t1) < b->C1 && sqrt(fabs(t2)) < b->C2;
}

jg_status_t jg_sparsing_auto(const cs_dl *J, double h, double slow_threshold, int flags,
                             unsigned char *keep, unsigned char *explicit_states,
                             jg_sparsing_result_t *out, jg_error_t *err)
{
    jg__sparsing_base_t b;
    double *Ad = NULL, *Bi = NULL, *W = NULL, *P = NULL, *lt = NULL;
    cand_t *cand = NULL;
    unsigned char *trial = NULL;
    jg_status_t st = jg__sparsing_base_init(&b, J, h, slow_threshold, err);
    if (st) goto done;
    if (!(flags & (JG_SPARSING_ENTRIES | JG_SPARSING_MIXED))) {
        st = jg_error_set(err, JG_ARG, "sparsing: nothing to choose (flags %d)", flags);
        goto done;
    }
    int64_t n = b.n, nz = J->p[n];
    size_t nn = (size_t)(n * n) + 1;
    Ad = malloc(sizeof(double) * nn);
    Bi = malloc(sizeof(double) * nn);
    W = malloc(sizeof(double) * nn);
    P = malloc(sizeof(double) * nn);
    lt = malloc(sizeof(double) * (2 * (size_t)n + 1));
    cand = malloc(sizeof(cand_t) * ((size_t)(nz > n ? nz : n) + 1));
    trial = malloc((size_t)nz + 1);
    if (!Ad || !Bi || !W || !P || !lt || !cand || !trial) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t q = 0; q < nz; q++) keep[q] = J->x[q] != 0;   /* an exact zero changes nothing */
    if (explicit_states) memset(explicit_states, 0, (size_t)n);

    if (flags & JG_SPARSING_MIXED) {
        /* explicit Euler is stable on state k alone when |1 + h J_kk| <= 1 */
        int64_t nc = 0;
        for (int64_t k = 0; k < n; k++) {
            double hd = h * b.Jd[k * n + k];
            if (hd >= -2 && hd <= 0) cand[nc++] = (cand_t){fabs(hd), k};
        }
        qsort(cand, (size_t)nc, sizeof *cand, cmp_cand);
        for (int64_t c = 0; c < nc; c++) {
            int64_t k = cand[c].idx;
            memcpy(trial, keep, (size_t)nz);
            for (int64_t j = 0; j < n; j++)
                for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
                    if (j == k || J->i[q] == k) trial[q] = 0;
            jg__sparsing_dense_a(J, trial, Ad);
            if (!checks_hold(&b, Ad, Bi, W, &st, err)) {
                if (st) goto done;
                continue;
            }
            /* the checks bound the change, not stability: ask the spectrum */
            jg_error_t scratch;
            if (jg__sparsing_eig_m1(&b, Bi, W, lt, &scratch)) continue;
            double rho = 0;
            for (int64_t i = 0; i < n; i++) rho = fmax(rho, cabs(lt[2 * i] + I * lt[2 * i + 1]));
            if (!(rho <= fmax(1, b.rho0) + 1e-12)) continue;
            memcpy(keep, trial, (size_t)nz);
            if (explicit_states) explicit_states[k] = 1;
        }
    }

    if (flags & JG_SPARSING_ENTRIES) {
        /* dropping J_ij alone: I - hA = (I - hJ) + h J_ij e_i e_j^T, and
         * Sherman-Morrison gives tr E = -h^2 J_ij P_ji / (1 + h J_ij B_ji)
         * with B = (I-hJ)^-1, P = B J B; E has rank one, so d2 = d1 */
        jg__sparsing_matmul(n, b.B0i, b.Jd, W);
        jg__sparsing_matmul(n, W, b.B0i, P);
        int64_t nc = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t q = J->p[j]; q < J->p[j + 1]; q++) {
                int64_t i = J->i[q];
                if (i == j || !keep[q]) continue;
                double a = h * J->x[q], den = 1 + a * b.B0i[i * n + j];
                double est = den != 0 ? fabs(h * a * P[i * n + j] / den) : INFINITY;
                cand[nc++] = (cand_t){isnan(est) ? INFINITY : est, q};
            }
        qsort(cand, (size_t)nc, sizeof *cand, cmp_cand);
        jg__sparsing_dense_a(J, keep, Ad);
        for (int64_t c = 0; c < nc; c++) {
            int64_t q = cand[c].idx, i = J->i[q], j = 0;
            while (J->p[j + 1] <= q) j++;
            double old = Ad[j * n + i];
            Ad[j * n + i] -= J->x[q];
            if (!checks_hold(&b, Ad, Bi, W, &st, err)) {
                Ad[j * n + i] = old;
                if (st) goto done;
                break;   /* "while both checks hold" */
            }
            keep[q] = 0;
        }
    }
    if (out) st = jg_sparsing_measure(J, keep, h, slow_threshold, out, NULL, NULL, err);
done:
    jg__sparsing_base_free(&b);
    free(Ad);
    free(Bi);
    free(W);
    free(P);
    free(lt);
    free(cand);
    free(trial);
    return st;
}
