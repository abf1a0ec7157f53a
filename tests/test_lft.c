/* test_lft.c -- the linear-fractional transformation (lib/lft, jacgraph/lft.h)
 * F = P11 + P12 M (I - P22 M)^-1 P21 on matrices small enough to invert by
 * hand: scalars, a 2x2 loop with its closed-form inverse, M as the identity
 * (NULL) and as a permutation, an empty loop, exact zeros dropped, and the
 * refusals (singular I - P22 M, mismatched sizes); on random loops, the
 * bits of CSparse's own triangular solves. */
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

/* F computed as jg_lft did before its triangular solves were its own:
 * CSparse's cs_spsolve on the LU of I - P22 (M the identity), the column's
 * entries summed in the reach order, rows ascending, zeros dropped. */
static cs_dl *lft_csparse(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22)
{
    int64_t no = P11->m, ni = P11->n, ny = P22->m;
    cs_dl *T = cs_dl_spalloc(ny, ny, ny, 1, 1);
    for (int64_t k = 0; k < ny; k++) cs_dl_entry(T, k, k, 1.0);
    cs_dl *E = cs_dl_compress(T), *K = cs_dl_add(E, P22, 1.0, -1.0);
    cs_dls *S = cs_dl_sqr(1, K, 0);
    cs_dln *N = cs_dl_lu(K, S, 1.0);
    cs_dl *Y = cs_dl_spalloc(ny, 1, ny + 1, 1, 0), *R = cs_dl_spalloc(no, ni, no * ni + 1, 1, 0);
    double *x = calloc((size_t)ny + 1, sizeof *x), *z = calloc((size_t)ny + 1, sizeof *z),
           *acc = calloc((size_t)no + 1, sizeof *acc);
    int64_t *xi = calloc(2 * (size_t)ny + 1, sizeof *xi), nz = 0;
    for (int64_t j = 0; j < ni; j++) {
        for (int64_t k = P11->p[j]; k < P11->p[j + 1]; k++) acc[P11->i[k]] += P11->x[k];
        int64_t blen = 0;
        for (int64_t k = P21->p[j]; k < P21->p[j + 1]; k++) {
            Y->i[blen] = N->pinv[P21->i[k]];
            Y->x[blen++] = P21->x[k];
        }
        Y->p[0] = 0;
        Y->p[1] = blen;
        if (blen) {
            int64_t top = cs_dl_spsolve(N->L, Y, 0, xi, x, NULL, 1), ylen = 0;
            for (int64_t q = top; q < ny; q++) {
                Y->i[ylen] = xi[q];
                Y->x[ylen++] = x[xi[q]];
            }
            Y->p[1] = ylen;
            int64_t top2 = cs_dl_spsolve(N->U, Y, 0, xi, z, NULL, 0);
            for (int64_t q = top2; q < ny; q++) {
                int64_t c = S->q ? S->q[xi[q]] : xi[q];
                if (z[xi[q]] == 0) continue;
                for (int64_t t = P12->p[c]; t < P12->p[c + 1]; t++) acc[P12->i[t]] += P12->x[t] * z[xi[q]];
            }
        }
        R->p[j] = nz;
        for (int64_t i = 0; i < no; i++)
            if (acc[i] != 0) {
                R->i[nz] = i;
                R->x[nz++] = acc[i];
                acc[i] = 0;
            }
    }
    R->p[ni] = nz;
    cs_dl_spfree(T), cs_dl_spfree(E), cs_dl_spfree(K), cs_dl_spfree(Y);
    cs_dl_sfree(S);
    cs_dl_nfree(N);
    free(x), free(z), free(acc), free(xi);
    return R;
}

/* A random sparse m x n matrix, about density d, values of both signs. */
static cs_dl *random_csc(int64_t m, int64_t n, double d, double scale, unsigned *seed)
{
    double *a = calloc((size_t)(m * n) + 1, sizeof *a);
    for (int64_t k = 0; k < m * n; k++)
        if (rand_r(seed) < d * RAND_MAX) a[k] = scale * (2.0 * rand_r(seed) / RAND_MAX - 1.0);
    cs_dl *A = csc(m, n, a);
    free(a);
    return A;
}

/* The triangular solves give CSparse's cs_spsolve bits: the same reach order
 * and the same operations, on random loops whose LU fills and pivots. */
static void test_csparse_bits(void)
{
    unsigned seed = 7;
    int same = 1, runs = 0;
    for (int r = 0; r < 40; r++) {
        int64_t no = 3 + r % 5, ni = 2 + r % 7, ny = 5 + 3 * r;
        cs_dl *P11 = random_csc(no, ni, 0.3, 1.0, &seed), *P12 = random_csc(no, ny, 0.2, 1.0, &seed),
              *P21 = random_csc(ny, ni, 0.15, 1.0, &seed), *P22 = random_csc(ny, ny, 3.0 / (double)ny, 0.4, &seed);
        cs_dl *F = NULL;
        jg_error_t err;
        if (jg_lft(P11, P12, P21, P22, NULL, &F, NULL, &err) == JG_OK) {
            cs_dl *W = lft_csparse(P11, P12, P21, P22);
            int64_t nz = W->p[ni];
            same &= F->m == W->m && F->n == W->n && F->p[ni] == nz &&
                    !memcmp(F->p, W->p, sizeof(int64_t) * (size_t)(ni + 1)) &&
                    !memcmp(F->i, W->i, sizeof(int64_t) * (size_t)nz) &&
                    !memcmp(F->x, W->x, sizeof(double) * (size_t)nz);
            cs_dl_spfree(W);
            runs++;
        }
        cs_dl_spfree(F);
        cs_dl_spfree(P11), cs_dl_spfree(P12), cs_dl_spfree(P21), cs_dl_spfree(P22);
    }
    tap_ok(same && runs >= 30, "random loops (%d solved): F is CSparse's cs_spsolve result bit for bit", runs);
}

int main(void)
{
    test_scalar();
    test_loop2();
    test_empty_and_cancel();
    test_csparse_bits();
    return tap_done();
}
