/* Sparsing measures (jacgraph/sparsing.h, docs/sparsing.md): every quantity
 * of jg_sparsing_measure against a direct dense evaluation written here (own
 * Gauss-Jordan inverse and products, eigenvalues of M0 and M1 by LAPACK's
 * dgeev on the matrices themselves, pairing by trying every permutation) on
 * random small matrices with fixed seeds; a hand case where cancellation
 * makes d1 vanish while d2 and the true change are large; slow-mode
 * exclusion on a diagonal J with known eigenvalues; the assignment on a hand
 * case and against brute force; the automatic choice keeps both checks; the
 * saving on hand patterns; bad input. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "jacgraph/sparsing.h"
#include "sim/hungarian.h"   /* private: the assignment is tested on its own */
#include "tap.h"

#define MAXN 7

/* ---- dense helpers, independent of the library (column-major) ---- */

static void mul(int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += A[k * n + i] * B[j * n + k];
            C[j * n + i] = s;
        }
}

/* Gauss-Jordan with partial pivoting; 0 when singular */
static int inv(int n, const double *A, double *X)
{
    double a[MAXN * MAXN * 2];
    int w = 2 * n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < w; j++) a[i * w + j] = j < n ? A[j * n + i] : (j - n == i);
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * w + c]) > fabs(a[p * w + c])) p = r;
        if (fabs(a[p * w + c]) < 1e-300) return 0;
        for (int j = 0; j < w; j++) {
            double t = a[c * w + j];
            a[c * w + j] = a[p * w + j];
            a[p * w + j] = t;
        }
        double d = a[c * w + c];
        for (int j = 0; j < w; j++) a[c * w + j] /= d;
        for (int r = 0; r < n; r++)
            if (r != c) {
                double f = a[r * w + c];
                for (int j = 0; j < w; j++) a[r * w + j] -= f * a[c * w + j];
            }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) X[j * n + i] = a[i * w + n + j];
    return 1;
}

static void eigs(int n, const double *M, double complex *ev)
{
    double a[MAXN * MAXN], wr[MAXN], wi[MAXN];
    memcpy(a, M, sizeof(double) * (size_t)(n * n));
    int info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', n, a, n, wr, wi, NULL, 1, NULL, 1);
    if (info) printf("# dgeev failed %d\n", info);
    for (int k = 0; k < n; k++) ev[k] = wr[k] + I * wi[k];
}

/* I + h (I - hX)^-1 J */
static void evolution(int n, const double *X, const double *J, double h, double *M)
{
    double B[MAXN * MAXN], Bi[MAXN * MAXN];
    for (int k = 0; k < n * n; k++) B[k] = -h * X[k];
    for (int k = 0; k < n; k++) B[k * n + k] += 1;
    inv(n, B, Bi);
    mul(n, Bi, J, M);
    for (int k = 0; k < n * n; k++) M[k] *= h;
    for (int k = 0; k < n; k++) M[k * n + k] += 1;
}

/* least sum |b[p(i)] - a[i]| over every permutation p (n <= 7) */
static int best[MAXN];   /* the best permutation of the last best_perm */

static double best_perm(int n, const double complex *a, const double complex *b, int *perm, int k,
                        unsigned used, double acc, double bestc, double *sq, double cursq, double *mx,
                        double curmx)
{
    if (k == n) {
        if (acc < bestc) {
            *sq = cursq;
            *mx = curmx;
            memcpy(best, perm, sizeof(int) * (size_t)n);
            return acc;
        }
        return bestc;
    }
    for (int j = 0; j < n; j++) {
        if (used & (1u << j)) continue;
        double c = cabs(b[j] - a[k]);
        if (acc + c >= bestc) continue;
        perm[k] = j;
        bestc = best_perm(n, a, b, perm, k + 1, used | (1u << j), acc + c, bestc, sq, cursq + c * c, mx,
                          fmax(curmx, c));
    }
    return bestc;
}

/* compressed-column J of the dense D: every entry (zeros too) when full,
 * else the nonzeros */
static cs_dl *to_csc(int n, const double *D, int full)
{
    cs_dl *J = cs_dl_spalloc(n, n, n > 0 ? n * n : 1, 1, 0);
    int64_t m = 0;
    for (int j = 0; j < n; j++) {
        J->p[j] = m;
        for (int i = 0; i < n; i++)
            if (full || D[j * n + i] != 0) {
                J->i[m] = i;
                J->x[m++] = D[j * n + i];
            }
    }
    J->p[n] = m;
    return J;
}

static double urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

/* ---- the dense reference of every quantity ---- */

typedef struct {
    double d1, d2, dS, dr, dr2, dmax, C1, C2, rho0, rho1, phi_max;
    int64_t nslow;
    double complex sum_dl, sum_dl2;   /* sum (lt - l), sum (lt - l)^2 over the pairing */
} ref_t;

static void reference(int n, const double *J, const double *A, double h, double S, ref_t *r)
{
    double M0[MAXN * MAXN], M1[MAXN * MAXN], E[MAXN * MAXN], E2[MAXN * MAXN];
    double complex l[MAXN], lt[MAXN];
    memset(r, 0, sizeof *r);
    evolution(n, J, J, h, M0);
    evolution(n, A, J, h, M1);
    for (int k = 0; k < n * n; k++) E[k] = M1[k] - M0[k];
    mul(n, E, E, E2);
    double t1 = 0, t2 = 0;
    for (int k = 0; k < n; k++) {
        t1 += E[k * n + k];
        t2 += E2[k * n + k];
    }
    r->d1 = fabs(t1);
    r->d2 = sqrt(fabs(t2));
    /* eq. (2) as printed: tr((I-hJ)^-1 h dJ [I - (I-hJ)^-1 (I+hJ)]), dJ = A - J */
    double B[MAXN * MAXN], Bi[MAXN * MAXN], P[MAXN * MAXN], G[MAXN * MAXN], T[MAXN * MAXN], U[MAXN * MAXN];
    for (int k = 0; k < n * n; k++) B[k] = -h * J[k];
    for (int k = 0; k < n; k++) B[k * n + k] += 1;
    inv(n, B, Bi);
    for (int k = 0; k < n * n; k++) P[k] = h * J[k];
    for (int k = 0; k < n; k++) P[k * n + k] += 1;
    mul(n, Bi, P, G);
    for (int k = 0; k < n * n; k++) G[k] = -G[k];
    for (int k = 0; k < n; k++) G[k * n + k] += 1;
    for (int k = 0; k < n * n; k++) P[k] = h * (A[k] - J[k]);
    mul(n, Bi, P, T);
    mul(n, T, G, U);
    double ts = 0;
    for (int k = 0; k < n; k++) ts += U[k * n + k];
    r->dS = fabs(ts);
    eigs(n, M0, l);
    eigs(n, M1, lt);
    int perm[MAXN];
    r->dr = best_perm(n, l, lt, perm, 0, 0, 0, INFINITY, &r->dr2, 0, &r->dmax, 0);
    r->dr2 = sqrt(r->dr2);
    /* mode of l: mu = (l - 1) / (h l), the inverse of l = 1/(1 - h mu) */
    int nfast = 0;
    for (int k = 0; k < n; k++) nfast += !(cabs((l[k] - 1) / (h * l[k])) * h < S);
    r->C1 = INFINITY;
    for (int k = 0; k < n; k++) {
        int slow = cabs((l[k] - 1) / (h * l[k])) * h < S;
        if (!nfast || !slow) r->C1 = fmin(r->C1, fabs(1 - cabs(l[k])));
    }
    r->nslow = nfast ? n - nfast : 0;
    r->C2 = r->C1 * r->C1;
    for (int k = 0; k < n; k++) {
        r->rho0 = fmax(r->rho0, cabs(l[k]));
        r->rho1 = fmax(r->rho1, cabs(lt[k]));
        if (cabs(lt[k]) >= 1e-8) r->phi_max = fmax(r->phi_max, fabs(carg(lt[k])));
    }
    for (int k = 0; k < n; k++) {   /* over the best pairing */
        r->sum_dl += lt[best[k]] - l[k];
        r->sum_dl2 += (lt[best[k]] - l[k]) * (lt[best[k]] - l[k]);
    }
}

static void keep_to_dense(int n, const cs_dl *Jc, const unsigned char *keep, double *A)
{
    memset(A, 0, sizeof(double) * (size_t)(n * n));
    for (int j = 0; j < n; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++)
            if (!keep || keep[q]) A[j * n + Jc->i[q]] = Jc->x[q];
}

static void compare(const char *tag, const jg_sparsing_result_t *g, const ref_t *r, double tol)
{
    char b[160];
#define NEAR(field)                                                    \
    do {                                                               \
        snprintf(b, sizeof b, "%s: " #field " = %.6g", tag, r->field); \
        tap_near(g->field, r->field, tol, b);                          \
    } while (0)
    NEAR(d1);
    NEAR(d2);
    NEAR(dS);
    NEAR(dr);
    NEAR(dr2);
    NEAR(dmax);
    NEAR(C1);
    NEAR(C2);
    NEAR(rho0);
    NEAR(rho1);
    NEAR(phi_max);
#undef NEAR
    tap_ok(g->nslow == r->nslow, "%s: nslow %lld (expected %lld)", tag, (long long)g->nslow,
           (long long)r->nslow);
    tap_ok(g->check1 == (g->d1 < g->C1) && g->check2 == (g->d2 < g->C2) &&
               g->check2_sq == (g->d2 * g->d2 < g->C2),
           "%s: checks are d1 < C1, d2 < C2, d2^2 < C2", tag);
}

/* ---- the tests ---- */

static void test_assignment(void)
{
    const double c[9] = {4, 1, 3, 2, 0, 5, 3, 2, 2};
    int64_t m[3];
    double tot;
    int rc = jg__assignment_min(3, c, m, &tot);
    tap_ok(!rc && m[0] == 1 && m[1] == 0 && m[2] == 2 && tot == 5,
           "assignment: hand 3x3 gives 0->1, 1->0, 2->2, cost 5 (got %lld %lld %lld, %g)",
           (long long)m[0], (long long)m[1], (long long)m[2], tot);
    tap_ok(!jg__assignment_min(0, c, m, &tot) && tot == 0, "assignment: empty");
    const double inf[4] = {1, INFINITY, INFINITY, INFINITY};
    tap_ok(jg__assignment_min(2, inf, m, &tot) == -1, "assignment: non-finite costs refused");
    unsigned s = 7;
    int good = 1;
    for (int t = 0; t < 40; t++) {
        int n = 1 + t % 6;
        double cc[36];
        double complex a[6], b[6];
        /* costs as distances between points, like the eigenvalue pairing */
        for (int k = 0; k < n; k++) {
            a[k] = urand(&s) + I * urand(&s);
            b[k] = urand(&s) + I * urand(&s);
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) cc[i * n + j] = cabs(b[j] - a[i]);
        int perm[6];
        double sq, mx;
        double want = best_perm(n, a, b, perm, 0, 0, 0, INFINITY, &sq, 0, &mx, 0);
        int64_t mm[6];
        unsigned seen = 0;
        if (jg__assignment_min(n, cc, mm, &tot)) good = 0;
        for (int i = 0; i < n; i++) seen |= 1u << mm[i];
        if (fabs(tot - want) > 1e-12 || seen != (1u << n) - 1) {
            good = 0;
            printf("# case %d: %g vs brute force %g\n", t, tot, want);
        }
    }
    tap_ok(good, "assignment: 40 random cases equal the best permutation");
}

static void test_random(void)
{
    unsigned s = 12345;
    for (int seed = 0; seed < 24; seed++) {
        int n = 2 + seed % 6;
        double h = seed % 3 == 0 ? 0.01 : seed % 3 == 1 ? 0.05 : 0.2;
        double S = seed % 4 == 0 ? 0 : JG_SPARSING_SLOW_THRESHOLD;
        double J[MAXN * MAXN], A[MAXN * MAXN];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                J[j * n + i] = i == j ? -(0.5 + 100 * urand(&s)) : (urand(&s) < 0.3 ? 0 : 20 * (urand(&s) - 0.5));
        cs_dl *Jc = to_csc(n, J, seed % 2);
        int64_t nz = Jc->p[n];
        unsigned char keep[MAXN * MAXN];
        for (int64_t q = 0; q < nz; q++) keep[q] = 1;
        for (int j = 0; j < n; j++)
            for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++)
                if (Jc->i[q] != j && urand(&s) < 0.4) keep[q] = 0;
        keep_to_dense(n, Jc, keep, A);
        jg_sparsing_result_t g;
        jg_error_t err = {0};
        double lam[2 * MAXN], lamt[2 * MAXN];
        jg_status_t st = jg_sparsing_measure(Jc, keep, h, S, &g, lam, lamt, &err);
        char tag[64];
        snprintf(tag, sizeof tag, "random seed %d (n %d, h %g, S %g)", seed, n, h, S);
        if (!tap_ok(st == JG_OK, "%s: measured (%s)", tag, err.msg)) {
            cs_dl_spfree(Jc);
            continue;
        }
        ref_t r;
        reference(n, J, A, h, S, &r);
        compare(tag, &g, &r, 1e-8);
        /* tr E = tr M1 - tr M0 exactly: d1 is |sum (lt - l)|, not only to first order */
        tap_near(g.d1, cabs(r.sum_dl), 1e-8, "d1 equals |sum(lt_i - l_i)| over the eigenvalues");
        /* the returned pairs are the pairing: sum |lamt_i - lam_i| = dr */
        double s1 = 0;
        for (int i = 0; i < n; i++) s1 += hypot(lamt[2 * i] - lam[2 * i], lamt[2 * i + 1] - lam[2 * i + 1]);
        tap_near(s1, g.dr, 1e-12, "lam/lamt are returned in the paired order");
        int64_t nd = 0;
        for (int64_t q = 0; q < nz; q++) nd += !keep[q];
        tap_ok(g.ndropped == nd && g.nnz == nz, "%s: %lld of %lld entries dropped", tag, (long long)nd,
               (long long)nz);
        cs_dl_spfree(Jc);
    }
}

/* A small symmetric sparsing of a symmetric J (orthogonal eigenvectors X of
 * M0 = (I - hJ)^-1, by dsyev on J): with N = X^T E X, first-order perturbation
 * theory gives lt_i - l_i = N_ii + O(eps^2), so sum (lt - l)^2 = sum N_ii^2 +
 * O(eps^3); tr(E^2) = tr(N^2) adds sum_{i != j} N_ij N_ji, of the same order
 * eps^2: Theorem 4's claim 2 is not a first-order identity (docs/sparsing.md).
 * And eq. (2) as printed is -2 times the first-order term of tr E. */
static void test_first_order(void)
{
    double J[9] = {-3, 1, 0, 1, -40, 4, 0, 4, -200};   /* symmetric, column-major */
    double h = 0.02, prev = INFINITY, ratio = 0;
    int ok_rate = 1;
    for (int k = 0; k < 3; k++) {
        double eps = pow(10, -2 - k);
        double Jk[9], X[9], w[3], A[9], M0[9], M1[9], E[9], T[9], N[9], Xt[9];
        memcpy(Jk, J, sizeof Jk);
        Jk[6] = Jk[2] = eps * 30;   /* (0,2) and (2,0), dropped */
        cs_dl *Jc = to_csc(3, Jk, 1);
        unsigned char keep[9];
        for (int q = 0; q < 9; q++) keep[q] = !(q == 2 || q == 6);
        keep_to_dense(3, Jc, keep, A);
        jg_sparsing_result_t g;
        jg_error_t err = {0};
        jg_sparsing_measure(Jc, keep, h, 0, &g, NULL, NULL, &err);
        ref_t r;
        reference(3, Jk, A, h, 0, &r);
        memcpy(X, Jk, sizeof X);
        LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', 3, X, 3, w);
        evolution(3, Jk, Jk, h, M0);
        evolution(3, A, Jk, h, M1);
        for (int q = 0; q < 9; q++) E[q] = M1[q] - M0[q];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Xt[j * 3 + i] = X[i * 3 + j];
        mul(3, E, X, T);
        mul(3, Xt, T, N);
        double diag = 0, off = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (i == j) diag += N[i * 3 + i] * N[i * 3 + i];
                else off += N[j * 3 + i] * N[i * 3 + j];
        double rel = fabs(creal(r.sum_dl2) - diag) / fabs(diag);
        ratio = g.trE2 / creal(r.sum_dl2);
        printf("# eps %g: sum (lt-l)^2 %.6g, sum N_ii^2 %.6g (rel %.2g), tr(E^2) %.6g = diag + %.6g "
               "(ratio %.4f); trS/trE %.6f\n",
               eps, creal(r.sum_dl2), diag, rel, g.trE2, off, ratio, g.trS / g.trE);
        if (!(rel < prev / 5)) ok_rate = 0;
        prev = rel;
        if (k == 2) {
            tap_ok(rel < 1e-3, "sum (lt-l)^2 = sum N_ii^2 to first order (rel %.2g)", rel);
            tap_near(g.trE2, diag + off, 1e-9, "tr(E^2) = sum N_ii^2 + sum_{i!=j} N_ij N_ji");
            tap_ok(fabs(ratio - 1) > 0.1,
                   "tr(E^2) / sum (lt-l)^2 stays away from 1 as eps -> 0 (%.4f): claim 2 is not first-order exact",
                   ratio);
        }
        cs_dl_spfree(Jc);
    }
    tap_ok(ok_rate, "the first-order error falls with eps");
    /* eq. (2) on a non-symmetric J with two small entries dropped */
    double J2[9] = {-3, 1, 3e-4, 5e-4, -40, 1, 0.3, 4, -200};
    cs_dl *Jc = to_csc(3, J2, 1);
    unsigned char keep[9];
    for (int q = 0; q < 9; q++) keep[q] = !(q == 2 || q == 3);
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    jg_sparsing_measure(Jc, keep, h, 0, &g, NULL, NULL, &err);
    tap_near(g.trS / g.trE, -2, 1e-3, "eq. (2) as printed ~ -2 tr E to first order");
    double A2[9];
    keep_to_dense(3, Jc, keep, A2);
    ref_t r2;
    reference(3, J2, A2, h, 0, &r2);
    double q2 = g.trE2 / creal(r2.sum_dl2);
    printf("# non-symmetric: tr(E^2) %.6g, sum (lt-l)^2 %.6g, ratio %.4f\n", g.trE2, creal(r2.sum_dl2), q2);
    tap_ok(q2 > 3 && q2 < 4, "non-symmetric small sparsing: tr(E^2) / sum (lt-l)^2 = %.3f, not 1", q2);
    cs_dl_spfree(Jc);
}

/* Two 2x2 blocks with the off-diagonals dropped: coupling b c > 0 lowers
 * tr M1 - tr M0, b c < 0 raises it; the second block's coupling is solved
 * for so that the two cancel exactly in tr E, while each block's eigenvalues
 * move a lot. */
static void test_cancellation(void)
{
    double a = -5, d = -100, h = 0.1, b1 = 10;
    double D = (1 - h * a) * (1 - h * d), x1 = h * h * b1 * b1;
    /* tr M0 of a block = (2 - h(a+d)) / (D - h^2 b c); tr M1 = (2 - h(a+d)) / D */
    double x2 = D * x1 / (D - 2 * x1);   /* 1/(D - x1) + 1/(D + x2) = 2/D */
    double c2 = -x2 / (h * h * b1);
    double J[16] = {0};
#define AT(i, j) J[(j) * 4 + (i)]
    AT(0, 0) = a, AT(1, 1) = d, AT(0, 1) = b1, AT(1, 0) = b1;
    AT(2, 2) = a, AT(3, 3) = d, AT(2, 3) = b1, AT(3, 2) = c2;
#undef AT
    cs_dl *Jc = to_csc(4, J, 0);
    unsigned char keep[16];
    for (int j = 0; j < 4; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++) keep[q] = Jc->i[q] == j;
    double A[16];
    keep_to_dense(4, Jc, keep, A);
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    jg_status_t st = jg_sparsing_measure(Jc, keep, h, JG_SPARSING_SLOW_THRESHOLD, &g, NULL, NULL, &err);
    ref_t r;
    reference(4, J, A, h, JG_SPARSING_SLOW_THRESHOLD, &r);
    printf("# cancellation: d1 %.3g d2 %.3g dS %.3g dr %.3g dr2 %.3g C1 %.3g C2 %.3g\n", g.d1, g.d2, g.dS,
           g.dr, g.dr2, g.C1, g.C2);
    tap_ok(st == JG_OK, "cancellation: measured");
    compare("cancellation", &g, &r, 1e-8);
    tap_ok(g.d1 < 1e-12, "cancellation: d1 = |tr E| vanishes (%.3g)", g.d1);
    tap_ok(g.d2 > 0.02 && g.dr > 0.02, "cancellation: d2 (%.3g) and the true dr (%.3g) are large", g.d2,
           g.dr);
    tap_ok(g.check1 && !g.check2, "cancellation: check 11 passes, check 12 catches it");
    cs_dl_spfree(Jc);
}

/* J = diag(-0.01, -50, -80), h = 0.1: l = 1/1.001, 1/6, 1/9 and
 * r = 0.001/1.001, 5/6, 8/9; h|mu| = 0.001, 5, 8. */
static void test_slow(void)
{
    double J[9] = {-0.01, 0, 0, 0, -50, 0, 0, 0, -80};
    cs_dl *Jc = to_csc(3, J, 0);
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    jg_sparsing_measure(Jc, NULL, 0.1, 0.1, &g, NULL, NULL, &err);
    tap_near(g.C1, 5.0 / 6, 1e-12, "slow: S = 0.1 leaves the slow mode out, C1 = 5/6");
    tap_near(g.C2, 25.0 / 36, 1e-12, "slow: C2 = (5/6)^2");
    tap_ok(g.nslow == 1, "slow: one slow mode");
    tap_ok(g.d1 == 0 && g.d2 == 0 && g.dr < 1e-15 && g.dS == 0 && g.check1 && g.check2,
           "slow: nothing dropped changes nothing (d1 %g d2 %g dr %g dS %g)", g.d1, g.d2, g.dr, g.dS);
    jg_sparsing_measure(Jc, NULL, 0.1, 0, &g, NULL, NULL, &err);
    tap_near(g.C1, 0.001 / 1.001, 1e-12, "slow: S = 0 keeps every mode, C1 = 0.001/1.001");
    tap_ok(g.nslow == 0, "slow: S = 0, no slow mode");
    jg_sparsing_measure(Jc, NULL, 0.1, 100, &g, NULL, NULL, &err);
    tap_near(g.C1, 0.001 / 1.001, 1e-12, "slow: every mode slow falls back to all modes");
    jg_sparsing_measure(Jc, NULL, 0.1, 5.0000001, &g, NULL, NULL, &err);
    tap_near(g.C1, 8.0 / 9, 1e-12, "slow: S just above h|mu| = 5 leaves two modes out");
    cs_dl_spfree(Jc);
}

/* A mode flipping sign each step: J = [[-10, 50], [-50, -10]], h = 0.1,
 * A = diag: M1 = I + 0.05 J has eigenvalues 0.5 +- 2.5i (|phi| = atan(5)). */
static void test_phase(void)
{
    double J[4] = {-10, -50, 50, -10};
    cs_dl *Jc = to_csc(2, J, 0);
    unsigned char keep[4];
    for (int j = 0; j < 2; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++) keep[q] = Jc->i[q] == j;
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    jg_sparsing_measure(Jc, keep, 0.1, 0, &g, NULL, NULL, &err);
    tap_near(g.phi_max, atan(5), 1e-12, "phase: |arg lt| = atan(5)");
    tap_near(g.rho1, sqrt(0.25 + 6.25), 1e-12, "phase: rho(M1) = |0.5 + 2.5i|");
    tap_ok(g.nosc == 0, "phase: no eigenvalue with negative real part");
    /* h = 0.5 on J = [[-10, 1], [0, -10]] dropping nothing: l = 1/6 > 0; with
     * A = 0 (explicit Euler) lt = 1 - 5 = -4: a flip */
    double J2[4] = {-10, 0, 1, -10};
    cs_dl *J2c = to_csc(2, J2, 0);
    unsigned char none[3] = {0, 0, 0};
    jg_sparsing_measure(J2c, none, 0.5, 0, &g, NULL, NULL, &err);
    tap_ok(g.nosc == 2 && fabs(g.phi_max - acos(-1)) < 1e-12 && g.nosc0 == 0,
           "phase: explicit Euler beyond its limit flips both modes (phi = pi)");
    cs_dl_spfree(Jc);
    cs_dl_spfree(J2c);
}

static void test_auto(void)
{
    unsigned s = 99;
    int all_ok = 1, some = 0, diag_kept = 1, zeros = 1;
    for (int seed = 0; seed < 20; seed++) {
        int n = 3 + seed % 5;
        double J[MAXN * MAXN];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                J[j * n + i] = i == j ? -(1 + 200 * urand(&s)) : (urand(&s) < 0.2 ? 0 : 4 * (urand(&s) - 0.5));
        cs_dl *Jc = to_csc(n, J, 1);
        unsigned char keep[MAXN * MAXN];
        jg_sparsing_result_t g;
        jg_error_t err = {0};
        double h = 0.05;
        if (jg_sparsing_auto(Jc, h, 0.1, JG_SPARSING_ENTRIES, keep, NULL, &g, &err)) {
            all_ok = 0;
            printf("# seed %d: %s\n", seed, err.msg);
        }
        if (!g.check1 || !g.check2) all_ok = 0;
        for (int j = 0; j < n; j++)
            for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++) {
                if (Jc->i[q] == j && Jc->x[q] != 0 && !keep[q]) diag_kept = 0;
                if (Jc->x[q] == 0 && keep[q]) zeros = 0;
                if (Jc->x[q] != 0 && !keep[q]) some++;
            }
        /* the measure of the choice agrees with the dense reference */
        double A[MAXN * MAXN];
        keep_to_dense(n, Jc, keep, A);
        ref_t r;
        reference(n, J, A, h, 0.1, &r);
        if (fabs(r.d1 - g.d1) > 1e-9 || fabs(r.d2 - g.d2) > 1e-9 || !(r.d1 < r.C1) || !(r.d2 < r.C2))
            all_ok = 0;
        cs_dl_spfree(Jc);
    }
    tap_ok(all_ok, "auto: both checks hold for the choice on 20 random J (dense reference agrees)");
    tap_ok(some > 0, "auto: it drops nonzero entries (%d in all)", some);
    tap_ok(diag_kept, "auto: the diagonal is never dropped");
    tap_ok(zeros, "auto: exact zeros of the pattern are always dropped");

    /* mixed mode: state 0 slow and weakly coupled, states 1, 2 stiff */
    double J[9] = {-0.5, 0.01, 0.02, 0.03, -300, 40, 0.01, 30, -500};
    cs_dl *Jc = to_csc(3, J, 0);
    unsigned char keep[9], expl[3];
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    jg_status_t st = jg_sparsing_auto(Jc, 0.01, 0.1, JG_SPARSING_MIXED, keep, expl, &g, &err);
    int rowcol = 1;
    for (int j = 0; j < 3; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++)
            if ((j == 0 || Jc->i[q] == 0) != !keep[q]) rowcol = 0;
    tap_ok(st == JG_OK && expl[0] && !expl[1] && !expl[2],
           "mixed: the slow state is explicit, the stiff ones are not (h J_ii = -3, -5 > 2)");
    tap_ok(rowcol, "mixed: exactly the explicit state's row and column are dropped");
    tap_ok(g.check1 && g.check2 && g.rho1 <= fmax(1, g.rho0) + 1e-12, "mixed: checks hold, stable");
    st = jg_sparsing_auto(Jc, 0.01, 0.1, JG_SPARSING_MIXED | JG_SPARSING_ENTRIES, keep, expl, &g, &err);
    tap_ok(st == JG_OK && expl[0] && g.check1 && g.check2, "mixed + entries: checks hold");
    st = jg_sparsing_auto(Jc, 0.01, 0.1, 0, keep, expl, &g, &err);
    tap_ok(st == JG_ARG, "auto: flags 0 is JG_ARG");
    cs_dl_spfree(Jc);
}

static void test_saving(void)
{
    double J[9] = {-1, 2, 3, 4, -5, 6, 7, 8, -9};
    cs_dl *Jc = to_csc(3, J, 0);
    jg_sparsing_saving_t sv;
    jg_error_t err = {0};
    jg_status_t st = jg_sparsing_saving(Jc, NULL, 0.1, &sv, &err);
    tap_ok(st == JG_OK && sv.nnz == 9 && sv.nkept == 9 && sv.ncolors_full == 3 && sv.ncolors_sparse == 3 &&
               sv.lu_full == 12 && sv.lu_sparse == 12,
           "saving: dense 3x3, 3 colors, LU 6 + 6 (got %lld %lld %lld %lld)", (long long)sv.ncolors_full,
           (long long)sv.ncolors_sparse, (long long)sv.lu_full, (long long)sv.lu_sparse);
    unsigned char keep[9];
    for (int j = 0; j < 3; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++) keep[q] = Jc->i[q] == j;
    st = jg_sparsing_saving(Jc, keep, 0.1, &sv, &err);
    /* the diagonal alone of a dense J: each kept (j, j) sees the other columns'
     * entries in row j, so every column stays its own group (coloring A's
     * diagonal pattern would give 1 group, and J_jj + J_jk from it) */
    tap_ok(st == JG_OK && sv.nkept == 3 && sv.ndropped == 6 && sv.ncolors_sparse == 3 && sv.lu_sparse == 6,
           "saving: diagonal only of a dense J, still 3 groups, LU 3 + 3 (got %lld %lld)",
           (long long)sv.ncolors_sparse, (long long)sv.lu_sparse);
    /* a whole column dropped (a state with nothing kept) is not perturbed */
    for (int j = 0; j < 3; j++)
        for (int64_t q = Jc->p[j]; q < Jc->p[j + 1]; q++) keep[q] = j != 2;
    st = jg_sparsing_saving(Jc, keep, 0.1, &sv, &err);
    tap_ok(st == JG_OK && sv.nkept == 6 && sv.ncolors_sparse == 2,
           "saving: column 3 dropped, 2 groups (got %lld)", (long long)sv.ncolors_sparse);
    /* arrow with the dense row last: dropping the row leaves the diagonal and column */
    tap_ok(jg_sparsing_saving(Jc, keep, -1, &sv, &err) == JG_ARG, "saving: h < 0 is JG_ARG");
    cs_dl_spfree(Jc);
}

static void test_bad(void)
{
    double J[4] = {-1, 0, 0, -2};
    cs_dl *Jc = to_csc(2, J, 0);
    jg_sparsing_result_t g;
    jg_error_t err = {0};
    tap_ok(jg_sparsing_measure(Jc, NULL, 0, 0.1, &g, NULL, NULL, &err) == JG_ARG, "bad: h = 0 (%s)", err.msg);
    tap_ok(jg_sparsing_measure(Jc, NULL, NAN, 0.1, &g, NULL, NULL, &err) == JG_ARG, "bad: h NaN");
    tap_ok(jg_sparsing_measure(Jc, NULL, 0.1, -1, &g, NULL, NULL, &err) == JG_ARG, "bad: S < 0 (%s)", err.msg);
    tap_ok(jg_sparsing_measure(NULL, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_ARG, "bad: NULL J");
    cs_dl *R = cs_dl_spalloc(2, 3, 1, 1, 0);
    R->p[0] = R->p[1] = R->p[2] = R->p[3] = 0;
    tap_ok(jg_sparsing_measure(R, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_ARG, "bad: non-square");
    cs_dl_spfree(R);
    cs_dl *T = cs_dl_spalloc(2, 2, 1, 1, 1);   /* triplet */
    tap_ok(jg_sparsing_measure(T, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_ARG, "bad: triplet form");
    cs_dl_spfree(T);
    int64_t big = JG_SPARSING_MAX_STATES + 1;
    cs_dl *B = cs_dl_spalloc(big, big, big, 1, 0);
    for (int64_t k = 0; k < big; k++) {
        B->p[k] = k;
        B->i[k] = k;
        B->x[k] = -1;
    }
    B->p[big] = big;
    tap_ok(jg_sparsing_measure(B, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_ARG && strstr(err.msg, "2001"),
           "bad: more than JG_SPARSING_MAX_STATES states (%s)", err.msg);
    cs_dl_spfree(B);
    /* I - hJ singular: J = 10 I, h = 0.1 */
    double S1[4] = {10, 0, 0, 10};
    cs_dl *Sc = to_csc(2, S1, 0);
    tap_ok(jg_sparsing_measure(Sc, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_NUMERIC, "bad: I - hJ singular (%s)",
           err.msg);
    cs_dl_spfree(Sc);
    /* I - hA singular only: J = [[10, 10], [-10, -10]], A = diag */
    double S2[4] = {10, -10, 10, -10};
    Sc = to_csc(2, S2, 0);
    unsigned char keep[4];
    for (int j = 0; j < 2; j++)
        for (int64_t q = Sc->p[j]; q < Sc->p[j + 1]; q++) keep[q] = Sc->i[q] == j;
    tap_ok(jg_sparsing_measure(Sc, keep, 0.1, 0, &g, NULL, NULL, &err) == JG_NUMERIC && strstr(err.msg, "hA"),
           "bad: I - hA singular (%s)", err.msg);
    cs_dl_spfree(Sc);
    /* an empty J: nothing to measure, the checks hold */
    cs_dl *Z = cs_dl_spalloc(0, 0, 1, 1, 0);
    Z->p[0] = 0;
    tap_ok(jg_sparsing_measure(Z, NULL, 0.1, 0, &g, NULL, NULL, &err) == JG_OK && g.n == 0 && g.check1 &&
               g.check2,
           "empty J");
    cs_dl_spfree(Z);
    cs_dl_spfree(Jc);
}

int main(void)
{
    test_assignment();
    test_random();
    test_first_order();
    test_cancellation();
    test_slow();
    test_phase();
    test_auto();
    test_saving();
    test_bad();
    return tap_done();
}
