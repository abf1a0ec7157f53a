/* test_lft.c -- the linear-fractional transformation (lib/lft, jacgraph/lft.h)
 * F = P11 + P12 M (I - P22 M)^-1 P21 on matrices small enough to invert by
 * hand: scalars, a 2x2 loop with its closed-form inverse, M as the identity
 * (NULL) and as a permutation, an empty loop, exact zeros dropped, and the
 * refusals (singular I - P22 M, mismatched sizes). */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* A dense row-major m x n matrix as a compressed-column cs_dl (zeros left out). */
static cs_dl *csc(int64_t m, int64_t n, const double *a)
{
    cs_dl *T = cs_dl_spalloc(m, n, m * n + 1, 1, 1);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            if (a[i * n + j] != 0) cs_dl_entry(T, i, j, a[i * n + j]);
    cs_dl *A = cs_dl_compress(T);
    cs_dl_spfree(T);
    return A;
}

/* Largest |F(i,j) - want(i,j)| over the m x n entries. */
static double dist(const cs_dl *F, int64_t m, int64_t n, const double *want)
{
    double d = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) d = fmax(d, fabs(fx_entry(F, i, j) - want[i * n + j]));
    return d;
}

static void test_scalar(void)
{
    /* 1 + 2 * (1 - 0.5)^-1 * 3 = 13 */
    cs_dl *P11 = csc(1, 1, (double[]){1}), *P12 = csc(1, 1, (double[]){2}), *P21 = csc(1, 1, (double[]){3}),
          *P22 = csc(1, 1, (double[]){0.5}), *M = csc(1, 1, (double[]){1}), *F = NULL, *G = NULL;
    jg_lft_info_t info;
    jg_error_t err;
    jg_status_t st = jg_lft(P11, P12, P21, P22, NULL, &F, &info, &err);
    tap_ok(!st && F && F->m == 1 && F->n == 1 && fabs(fx_entry(F, 0, 0) - 13) <= 1e-15,
           "scalar: 1 + 2 (1 - 0.5)^-1 3 = 13");
    tap_ok(!st && info.n == 1, "scalar: the loop has order 1");
    st = jg_lft(P11, P12, P21, P22, M, &G, NULL, &err);
    tap_ok(!st && G && fabs(fx_entry(G, 0, 0) - 13) <= 1e-15, "M given as the identity = M NULL");
    cs_dl_spfree(G);
    G = NULL;
    /* M = 2: 1 + 2*2*(1 - 0.5*2)^-1 ... singular */
    cs_dl *M2 = csc(1, 1, (double[]){2});
    st = jg_lft(P11, P12, P21, P22, M2, &G, NULL, &err);
    tap_ok(st == JG_SINGULAR_LOOP && G == NULL, "I - P22 M = 0: JG_SINGULAR_LOOP (%s)", jg_status_name(st));
    cs_dl_spfree(M2);
    tap_ok(jg_lft_csc_bytes(F) == sizeof(cs_dl) + sizeof(cs_long_t) * 2 +
                                      (sizeof(cs_long_t) + sizeof(double)) * (size_t)F->nzmax &&
               jg_lft_csc_bytes(NULL) == 0,
           "csc bytes: struct, n+1 column pointers, nzmax indices and values; NULL is 0");
    cs_dl_spfree(F);
    cs_dl_spfree(P11), cs_dl_spfree(P12), cs_dl_spfree(P21), cs_dl_spfree(P22), cs_dl_spfree(M);
}

/* P22 = [0 a; b 0], M = I: (I - P22)^-1 = [1 a; b 1] / (1 - a b);
 * with P11 = 0, P12 = P21 = I, F is that inverse. */
static void test_loop2(void)
{
    const double a = 0.5, b = -3, det = 1 - a * b;
    cs_dl *Z = csc(2, 2, (double[]){0, 0, 0, 0}), *I2 = csc(2, 2, (double[]){1, 0, 0, 1}),
          *P22 = csc(2, 2, (double[]){0, a, b, 0}), *F = NULL;
    jg_lft_info_t info;
    jg_error_t err;
    jg_status_t st = jg_lft(Z, I2, I2, P22, NULL, &F, &info, &err);
    const double want[4] = {1 / det, a / det, b / det, 1 / det};
    tap_ok(!st && info.n == 2 && dist(F, 2, 2, want) <= 1e-15, "2x2 loop: F = (I - P22)^-1");
    tap_ok(!st && info.rcond > 0 && info.rcond <= 1, "rcond in (0, 1] (%g)", st ? 0 : info.rcond);
    cs_dl_spfree(F);
    F = NULL;
    /* M the swap: P22 M = [a 0; 0 b]; F = M (I - P22 M)^-1 = [0 1/(1-b); 1/(1-a) 0] */
    cs_dl *Msw = csc(2, 2, (double[]){0, 1, 1, 0});
    st = jg_lft(Z, I2, I2, P22, Msw, &F, NULL, &err);
    const double want2[4] = {0, 1 / (1 - b), 1 / (1 - a), 0};
    tap_ok(!st && dist(F, 2, 2, want2) <= 1e-15 && F->p[2] == 2, "M a permutation: diagonal loop, zeros not stored");
    cs_dl_spfree(F);
    F = NULL;
    /* a size mismatch: P21 with 3 rows for a loop of order 2 */
    cs_dl *P21 = csc(3, 2, (double[]){1, 0, 0, 1, 0, 0});
    st = jg_lft(Z, I2, P21, P22, NULL, &F, NULL, &err);
    tap_ok(st == JG_ARG && F == NULL, "P21 rows != order of the loop: JG_ARG (%s)", jg_status_name(st));
    cs_dl_spfree(P21), cs_dl_spfree(Msw), cs_dl_spfree(Z), cs_dl_spfree(I2), cs_dl_spfree(P22);
}

/* No loop (order 0): F = P11, rcond 1; an exact cancellation is dropped. */
static void test_empty_and_cancel(void)
{
    cs_dl *P11 = csc(1, 2, (double[]){4, -1}), *P12 = csc(1, 0, NULL), *P21 = csc(0, 2, NULL),
          *P22 = csc(0, 0, NULL), *F = NULL;
    jg_lft_info_t info;
    jg_error_t err;
    jg_status_t st = jg_lft(P11, P12, P21, P22, NULL, &F, &info, &err);
    tap_ok(!st && info.n == 0 && info.rcond == 1 && dist(F, 1, 2, (double[]){4, -1}) == 0,
           "order 0: F = P11, rcond 1");
    cs_dl_spfree(F);
    cs_dl_spfree(P11), cs_dl_spfree(P12), cs_dl_spfree(P21), cs_dl_spfree(P22);
    /* 2 + (-1) * 1 * (1 - 0)^-1 * 2 = 0: the entry is not stored */
    cs_dl *A = csc(1, 1, (double[]){2}), *B = csc(1, 1, (double[]){-1}), *C = csc(1, 1, (double[]){2}),
          *D = csc(1, 1, (double[]){0});
    F = NULL;
    st = jg_lft(A, B, C, D, NULL, &F, NULL, &err);
    tap_ok(!st && F && F->p[1] == 0, "an exact zero of the result is dropped");
    cs_dl_spfree(F);
    cs_dl_spfree(A), cs_dl_spfree(B), cs_dl_spfree(C), cs_dl_spfree(D);
}

int main(void)
{
    test_scalar();
    test_loop2();
    test_empty_and_cancel();
    return tap_done();
}
