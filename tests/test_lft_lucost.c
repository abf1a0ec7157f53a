/* test_lft_lucost.c -- the multiplication count of the LFT's sparse LU
 * (lib/lft/lu_cost.c): hand-counted small matrices (diagonal: 0; dense n x n
 * without pivoting: sum_k (n-k-1)(n-k)), random sparse matrices against an
 * independent dense structural elimination of K(p, q) with CSparse's own
 * permutations, and jg_lft reporting the same count in its info. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "lft/lft_internal.h"
#include "testlib.h"

/* A dense row-major n x n matrix as compressed-column (zeros left out). */
static cs_dl *csc(int64_t n, const double *a)
{
    cs_dl *T = cs_dl_spalloc(n, n, n * n + 1, 1, 1);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (a[i * n + j] != 0) cs_dl_entry(T, i, j, a[i * n + j]);
    cs_dl *A = cs_dl_compress(T);
    cs_dl_spfree(T);
    return A;
}

/* Multiplications and divisions of a right-looking elimination of the
 * pattern of K(p, q) without pivoting, fill included, every structural
 * entry counted: per pivot k with l entries below it and u right of it,
 * l divisions and l * u updates. */
static int64_t dense_count(const cs_dl *K, const int64_t *pinv, const int64_t *q)
{
    int64_t n = K->n, c = 0;
    char *B = calloc((size_t)(n * n + 1), 1);
    int64_t *qinv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++) qinv[q ? q[k] : k] = k;
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = K->p[j]; t < K->p[j + 1]; t++) B[pinv[K->i[t]] * n + qinv[j]] = 1;
    for (int64_t k = 0; k < n; k++) {
        int64_t l = 0, u = 0;
        for (int64_t i = k + 1; i < n; i++) l += B[i * n + k];
        for (int64_t j = k + 1; j < n; j++) u += B[k * n + j];
        c += l + l * u;
        for (int64_t i = k + 1; i < n; i++)
            if (B[i * n + k])
                for (int64_t j = k + 1; j < n; j++)
                    if (B[k * n + j]) B[i * n + j] = 1;
    }
    free(B);
    free(qinv);
    return c;
}

static void test_hand(void)
{
    cs_dl *D = csc(3, (double[]){2, 0, 0, 0, 3, 0, 0, 0, 4});
    tap_ok(jg__lft_lu_cost(D) == 0, "a diagonal matrix costs nothing");
    /* dense 3x3, diagonally dominant (no row exchange): 2*3 + 1*2 = 8 */
    cs_dl *F = csc(3, (double[]){10, 1, 2, 1, 10, 3, 2, 1, 10});
    tap_ok(jg__lft_lu_cost(F) == 8, "dense 3x3: 2 divisions + 4 updates, then 1 + 1 (%lld)",
           (long long)jg__lft_lu_cost(F));
    /* [4 1; 1 4]: one division, one update */
    cs_dl *T = csc(2, (double[]){4, 1, 1, 4});
    tap_ok(jg__lft_lu_cost(T) == 2, "2x2: one division and one update");
    cs_dl *Z = csc(2, (double[]){1, 1, 1, 1});
    tap_ok(jg__lft_lu_cost(Z) == -1, "a singular matrix: -1");
    tap_ok(jg__lft_lu_cost(NULL) == -1 && jg__lft_lu_fma(NULL) == 0, "NULL arguments");
    cs_dl_spfree(D), cs_dl_spfree(F), cs_dl_spfree(T), cs_dl_spfree(Z);
}

static void test_random(void)
{
    unsigned s = 12345;
    int bad = 0, tried = 0, pivoted = 0;   /* pivoted: matrices with a row exchange */
    for (int r = 0; r < 200; r++) {
        int64_t n = 1 + r % 23;
        double *a = calloc((size_t)(n * n), sizeof(double));
        int dominant = r % 2;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                s = s * 1103515245u + 12345u;
                if ((s >> 16) % 100 < 15 || (dominant && i == j)) a[i * n + j] = 1 + (double)((s >> 8) % 97) / 10.0;
                if (dominant && i == j) a[i * n + j] += 100 * (double)n;
            }
        cs_dl *K = csc(n, a);
        cs_dls *S = cs_dl_sqr(1, K, 0);
        cs_dln *N = cs_dl_lu(K, S, 1.0);
        if (N) {
            tried++;
            int64_t got = jg__lft_lu_fma(N), want = dense_count(K, N->pinv, S->q);
            if (got != want || jg__lft_lu_cost(K) != got) {
                if (!bad) printf("# n %lld: counted %lld, dense elimination %lld\n", (long long)n, (long long)got, (long long)want);
                bad++;
            }
            for (int64_t k = 0; k < n; k++)
                if (N->pinv[S->q ? S->q[k] : k] != k) {
                    pivoted++;
                    break;
                }
        }
        cs_dl_nfree(N);
        cs_dl_sfree(S);
        cs_dl_spfree(K);
        free(a);
    }
    tap_ok(!bad && tried > 100, "%d random sparse matrices (%d with row exchanges): the count from the factors "
           "= a dense structural elimination of K(p, q)", tried, pivoted);
}

static void test_lft_info(void)
{
    /* P22 = [0 a 0; b 0 c; 0 d 0], M = I: K = I - P22 */
    double p22[9] = {0, 0.5, 0, 0.25, 0, 0.5, 0, 0.25, 0};
    double k[9];
    for (int t = 0; t < 9; t++) k[t] = (t % 4 == 0) - p22[t];
    cs_dl *P22 = csc(3, p22), *K = csc(3, k);
    cs_dl *P11 = cs_dl_spalloc(1, 1, 1, 1, 0), *P12 = cs_dl_spalloc(1, 3, 1, 1, 0), *P21 = cs_dl_spalloc(3, 1, 1, 1, 0);
    P11->p[0] = P11->p[1] = 0;
    for (int j = 0; j <= 3; j++) P12->p[j] = 0;
    P21->p[0] = P21->p[1] = 0;
    cs_dl *F = NULL;
    jg_lft_info_t info;
    jg_error_t err;
    jg_status_t st = jg_lft(P11, P12, P21, P22, NULL, &F, &info, &err);
    int64_t want = jg__lft_lu_cost(K);
    tap_ok(!st && want > 0 && info.lu_fma == want, "jg_lft's info.lu_fma = the count of I - P22's LU (%lld, %lld)",
           (long long)info.lu_fma, (long long)want);
    cs_dl_spfree(F), cs_dl_spfree(P11), cs_dl_spfree(P12), cs_dl_spfree(P21), cs_dl_spfree(P22), cs_dl_spfree(K);
}

int main(void)
{
    test_hand();
    test_random();
    test_lft_info();
    return tap_done();
}
