/* test_lft_refactor.c -- the LFT replayed on a fixed analysis (jg_lft_analyze,
 * jg_lft_refactor): against a fresh jg_lft at the same values, bit for bit,
 * on random sparse operands with and without M at many random values; the
 * fallback when a recorded pivot becomes small (a 2x2 loop whose pivot row
 * swaps) or a pattern changes; errors as jg_lft gives them (singular,
 * overflow), an empty loop, and bad arguments.  And the operand recipes
 * (gather.c) against cs_compress + cs_dupl on random triplets with
 * duplicates and constant entries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "lft/lft_internal.h"
#include "testlib.h"

static uint64_t rng = 12345;
static double unif(void)   /* [0, 1) */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* An m x n compressed-column matrix with about density*m*n entries (at least
 * `diag` on the diagonal when nonzero), values drawn by val(). */
static cs_dl *rand_sparse(int64_t m, int64_t n, double density, int diag)
{
    cs_dl *T = cs_dl_spalloc(m, n, 1, 1, 1);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            if (unif() < density || (diag && i == j)) cs_dl_entry(T, i, j, 2 * unif() - 1);
    cs_dl *A = cs_dl_compress(T);
    cs_dl_spfree(T);
    cs_dl_dupl(A);
    return A;
}

/* New values on A's pattern: scale * U(-1, 1). */
static void revalue(cs_dl *A, double scale)
{
    for (int64_t k = 0; k < A->p[A->n]; k++) A->x[k] = scale * (2 * unif() - 1);
}

static int same_csc(const cs_dl *A, const cs_dl *B)
{
    if (!A || !B || A->m != B->m || A->n != B->n) return 0;
    int64_t nz = A->p[A->n];
    return nz == B->p[B->n] && !memcmp(A->p, B->p, sizeof(int64_t) * (size_t)(A->n + 1)) &&
           !memcmp(A->i, B->i, sizeof(int64_t) * (size_t)nz) &&
           !memcmp(A->x, B->x, sizeof(double) * (size_t)nz);
}

static int same_info(const jg_lft_info_t *a, const jg_lft_info_t *b)
{
    return a->n == b->n && a->nnz_lu == b->nnz_lu && a->lu_fma == b->lu_fma &&
           !memcmp(&a->rcond, &b->rcond, sizeof(double)) &&
           (!memcmp(&a->cond, &b->cond, sizeof(double)) || (isnan(a->cond) && isnan(b->cond))) &&
           a->cond_row == b->cond_row;
}

/* Many random operand sets; per set one analysis and `npts` value draws. */
static void test_random(int with_m)
{
    int sets = 40, npts = 25, bad = 0, runs = 0, fallbacks = 0, errs_same = 1;
    for (int s = 0; s < sets; s++) {
        int64_t no = 1 + (int64_t)(unif() * 8), ni = 1 + (int64_t)(unif() * 8);
        int64_t ny = (int64_t)(unif() * 30), nu = with_m ? ny + (int64_t)(unif() * 5) : ny;
        double dens = 0.05 + 0.15 * unif(), g = 0.2 + 1.5 * unif();
        cs_dl *P11 = rand_sparse(no, ni, 0.3, 0), *P12 = rand_sparse(no, nu, 0.2, 0);
        cs_dl *P21 = rand_sparse(ny, ni, 0.2, 0), *P22 = rand_sparse(ny, nu, dens, 0);
        cs_dl *M = with_m ? rand_sparse(nu, ny, 2.0 / (ny + 1), 0) : NULL;
        revalue(P22, g / (1 + ny * dens));
        jg_lft_sym_t *sym = NULL;
        jg_lft_num_t *num = NULL;
        jg_error_t err;
        if (jg_lft_analyze(P11, P12, P21, P22, M, &sym, &err)) {
            if (err.status != JG_SINGULAR_LOOP) bad++;   /* a random singular K is possible */
            goto next;
        }
        if (jg_lft_num_create(sym, &num, &err)) {
            bad++;
            goto next;
        }
        for (int k = 0; k < npts; k++) {
            if (k) {
                revalue(P11, 1);
                revalue(P12, 1);
                revalue(P21, 1);
                revalue(P22, (k % 5 == 0 ? 3 : 1) * g / (1 + ny * dens));
                if (M) revalue(M, 1);
            }
            cs_dl *F0 = NULL;
            const cs_dl *F1 = NULL;
            jg_lft_info_t i0, i1;
            jg_error_t e0, e1;
            jg_status_t s0 = jg_lft(P11, P12, P21, P22, M, &F0, &i0, &e0);
            jg_status_t s1 = jg_lft_refactor(sym, num, P11, P12, P21, P22, M, &F1, &i1, &e1);
            runs++;
            if (s0 != s1 || (s0 && strcmp(e0.msg, e1.msg))) errs_same = 0;
            if (!s0 && !s1) {
                if (!same_csc(F0, F1) || !same_info(&i0, &i1)) bad++;
                fallbacks += i1.fallback;
            }
            cs_dl_spfree(F0);
        }
    next:
        jg_lft_num_free(num);
        jg_lft_sym_free(sym);
        cs_dl_spfree(P11);
        cs_dl_spfree(P12);
        cs_dl_spfree(P21);
        cs_dl_spfree(P22);
        cs_dl_spfree(M);
    }
    tap_ok(bad == 0 && runs > 0, "random operands%s: refactor == fresh jg_lft bit for bit (F, rcond, cond) "
           "at %d points, %d of them fallbacks", with_m ? " with M" : "", runs, fallbacks);
    tap_ok(errs_same, "random operands%s: same status and message as jg_lft at every point",
           with_m ? " with M" : "");
    tap_ok(fallbacks < runs, "random operands%s: most points replay the recorded pivots", with_m ? " with M" : "");
}

/* K = I - P22 = [1-a -b; -c 1-d]: analysed with the diagonal dominant, then
 * at a point where pivot (1,1) is tiny against its column: partial pivoting
 * swaps the rows, so the replay must hand over to a fresh factorization. */
static void test_fallback(void)
{
    cs_dl *T = cs_dl_spalloc(2, 2, 4, 1, 1);
    cs_dl_entry(T, 0, 0, 0.5);
    cs_dl_entry(T, 1, 0, 0.1);
    cs_dl_entry(T, 0, 1, 0.2);
    cs_dl_entry(T, 1, 1, 0.3);
    cs_dl *P22 = cs_dl_compress(T);
    cs_dl_spfree(T);
    T = cs_dl_spalloc(2, 2, 2, 1, 1);
    cs_dl_entry(T, 0, 0, 1);
    cs_dl_entry(T, 1, 1, 1);
    cs_dl *I2 = cs_dl_compress(T), *Z = cs_dl_spalloc(2, 2, 1, 1, 0);
    cs_dl_spfree(T);
    for (int j = 0; j <= 2; j++) Z->p[j] = 0;
    jg_lft_sym_t *sym = NULL;
    jg_lft_num_t *num = NULL;
    jg_error_t err;
    jg_status_t st = jg_lft_analyze(Z, I2, I2, P22, NULL, &sym, &err);
    if (!st) st = jg_lft_num_create(sym, &num, &err);
    tap_ok(!st && jg_lft_sym_bytes(sym) > 0, "2x2 loop: analysed");
    const cs_dl *F = NULL;
    jg_lft_info_t info;
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    tap_ok(!st && !info.fallback, "the analysis point replays");
    /* P22 column-major: (0,0) (1,0) (0,1) (1,1).  1 - a = 1e-9, c = 4: the
     * old pivot 1e-9 against 4 in its column */
    P22->x[0] = 1 - 1e-9;
    P22->x[1] = -4;
    cs_dl *F0 = NULL;
    jg_lft_info_t i0;
    jg_status_t s0 = jg_lft(Z, I2, I2, P22, NULL, &F0, &i0, &err);
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    tap_ok(!s0 && !st && info.fallback == 1 && same_csc(F0, F) && same_info(&i0, &info),
           "a tiny recorded pivot: fresh factorization, the same result as jg_lft");
    /* the inverse by hand: K = [1e-9 -0.2; 4 0.7], det = 0.8 + 7e-10 */
    double det = 1e-9 * 0.7 + 0.2 * 4;
    tap_ok(F && fabs(fx_entry(F, 0, 0) - 0.7 / det) < 1e-12 && fabs(fx_entry(F, 1, 0) + 4 / det) < 1e-12 &&
           fabs(fx_entry(F, 0, 1) - 0.2 / det) < 1e-12 && fabs(fx_entry(F, 1, 1) - 1e-9 / det) < 1e-12,
           "... and it is (I - P22)^-1");
    cs_dl_spfree(F0);
    /* back to a dominant diagonal: the replay again */
    P22->x[0] = 0.25;
    P22->x[1] = 0.5;
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    s0 = jg_lft(Z, I2, I2, P22, NULL, &F0, &i0, &err);
    tap_ok(!st && !s0 && !info.fallback && same_csc(F0, F), "a dominant diagonal again: replayed, equal");
    cs_dl_spfree(F0);
    /* a singular K: jg_lft's error */
    P22->x[0] = 1;
    P22->x[1] = 0;
    P22->x[2] = 0;
    jg_error_t e0;
    s0 = jg_lft(Z, I2, I2, P22, NULL, &F0, NULL, &e0);
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    tap_ok(s0 == JG_SINGULAR_LOOP && st == JG_SINGULAR_LOOP && !F, "singular K: JG_SINGULAR_LOOP as jg_lft");
    cs_dl_spfree(F0);
    /* a nearly singular one the recorded pivots still take: the rcond guard */
    P22->x[0] = 0.5;
    P22->x[1] = 0.5;
    P22->x[2] = 1.0;
    P22->x[3] = 0.0;   /* K = [0.5 -1; -0.5 1]: singular after the first pivot */
    s0 = jg_lft(Z, I2, I2, P22, NULL, &F0, NULL, &e0);
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    tap_ok(s0 == st && s0 != JG_OK && !strcmp(e0.msg, err.msg), "singular after elimination: jg_lft's error (%s)",
           jg_status_name(st));
    cs_dl_spfree(F0);
    /* an infinite gain: the factors are not finite */
    P22->x[0] = 0;
    P22->x[1] = 0.5;
    P22->x[2] = INFINITY;
    P22->x[3] = 0;
    s0 = jg_lft(Z, I2, I2, P22, NULL, &F0, NULL, &e0);
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22, NULL, &F, &info, &err);
    tap_ok(s0 == st && s0 != JG_OK && !strcmp(e0.msg, err.msg), "an infinite gain: jg_lft's error (%s)",
           jg_status_name(st));
    cs_dl_spfree(F0);
    /* another pattern: a fresh factorization */
    P22->x[0] = 0.1;
    P22->x[1] = 0.2;
    P22->x[2] = 0.3;
    P22->x[3] = 0.4;
    cs_dl *P22d = cs_dl_spalloc(2, 2, 2, 1, 0);
    P22d->p[0] = 0, P22d->p[1] = 1, P22d->p[2] = 2;
    P22d->i[0] = 0, P22d->i[1] = 1;
    P22d->x[0] = 0.5, P22d->x[1] = 0.25;
    st = jg_lft_refactor(sym, num, Z, I2, I2, P22d, NULL, &F, &info, &err);
    tap_ok(!st && info.fallback == 2 && !jg_lft_sym_matches(sym, Z, I2, I2, P22d, NULL) && jg_lft_sym_matches(sym, Z, I2, I2, P22, NULL) && fabs(fx_entry(F, 0, 0) - 2) < 1e-15 &&
           fabs(fx_entry(F, 1, 1) - 4.0 / 3) < 1e-15 && fx_entry(F, 0, 1) == 0,
           "another P22 pattern: fresh factorization, right result");
    /* bad arguments */
    jg_lft_sym_t *sym2 = NULL;
    jg_lft_num_t *num2 = NULL;
    tap_ok(jg_lft_analyze(Z, I2, I2, P22d, NULL, &sym2, &err) == JG_OK &&
               jg_lft_num_create(sym2, &num2, &err) == JG_OK,
           "a second analysis");
    tap_ok(jg_lft_refactor(sym, num2, Z, I2, I2, P22, NULL, &F, &info, &err) == JG_ARG && !F,
           "work of another analysis: JG_ARG");
    jg_lft_sym_t *bad = NULL;
    cs_dl *P21x = cs_dl_spalloc(3, 2, 1, 1, 0);
    for (int j = 0; j <= 2; j++) P21x->p[j] = 0;
    tap_ok(jg_lft_analyze(Z, I2, P21x, P22, NULL, &bad, &err) == JG_ARG && !bad, "mismatched sizes: JG_ARG");
    jg_lft_num_t *num3 = NULL;
    tap_ok(jg_lft_num_create(NULL, &num3, &err) == JG_ARG && !num3, "no analysis: JG_ARG");
    cs_dl_spfree(P21x);
    cs_dl *Kz = cs_dl_spalloc(2, 2, 4, 1, 0);   /* K = 0: singular at the analysis point */
    Kz->p[0] = 0, Kz->p[1] = 1, Kz->p[2] = 2;
    Kz->i[0] = 0, Kz->i[1] = 1;
    Kz->x[0] = 1, Kz->x[1] = 1;
    tap_ok(jg_lft_analyze(Z, I2, I2, Kz, NULL, &bad, &err) == JG_SINGULAR_LOOP && !bad,
           "singular at the analysis point: JG_SINGULAR_LOOP");
    cs_dl_spfree(Kz);
    jg_lft_num_free(num2);
    jg_lft_sym_free(sym2);
    jg_lft_num_free(num);
    jg_lft_sym_free(sym);
    jg_lft_num_free(NULL);
    jg_lft_sym_free(NULL);
    cs_dl_spfree(P22);
    cs_dl_spfree(P22d);
    cs_dl_spfree(I2);
    cs_dl_spfree(Z);
}

/* No algebraic signals: F = P11, exact zeros dropped as by jg_lft. */
static void test_empty(void)
{
    cs_dl *T = cs_dl_spalloc(2, 2, 3, 1, 1);
    cs_dl_entry(T, 0, 0, 1);
    cs_dl_entry(T, 1, 0, 2);
    cs_dl_entry(T, 1, 1, 3);
    cs_dl *P11 = cs_dl_compress(T);
    cs_dl_spfree(T);
    cs_dl *P12 = cs_dl_spalloc(2, 0, 1, 1, 0), *P21 = cs_dl_spalloc(0, 2, 1, 1, 0),
          *P22 = cs_dl_spalloc(0, 0, 1, 1, 0);
    P12->p[0] = 0;
    P21->p[0] = P21->p[1] = P21->p[2] = 0;
    P22->p[0] = 0;
    jg_lft_sym_t *sym = NULL;
    jg_lft_num_t *num = NULL;
    jg_error_t err;
    const cs_dl *F = NULL;
    jg_lft_info_t info;
    P11->x[1] = 0;
    jg_status_t st = jg_lft_analyze(P11, P12, P21, P22, NULL, &sym, &err);
    if (!st) st = jg_lft_num_create(sym, &num, &err);
    if (!st) st = jg_lft_refactor(sym, num, P11, P12, P21, P22, NULL, &F, &info, &err);
    tap_ok(!st && F && F->p[2] == 2 && fx_entry(F, 0, 0) == 1 && fx_entry(F, 1, 1) == 3 && info.n == 0 &&
               info.rcond == 1 && info.cond == 1 && !info.fallback,
           "no loop: F = P11 without its exact zero");
    jg_lft_num_free(num);
    jg_lft_sym_free(sym);
    cs_dl_spfree(P11);
    cs_dl_spfree(P12);
    cs_dl_spfree(P21);
    cs_dl_spfree(P22);
}

/* Random triplets (many duplicates, some constant 1) through a recipe and
 * through cs_compress + cs_dupl: the same matrix, bit for bit. */
static void test_gather(void)
{
    int ok = 1, sets = 200;
    for (int s = 0; s < sets && ok; s++) {
        int64_t m = 1 + (int64_t)(unif() * 12), n = 1 + (int64_t)(unif() * 12), nt = (int64_t)(unif() * 60);
        int64_t nv = 50;
        double vals[50];
        int64_t *row = malloc(sizeof(int64_t) * (size_t)(nt + 1)), *col = malloc(sizeof(int64_t) * (size_t)(nt + 1)),
                *src = malloc(sizeof(int64_t) * (size_t)(nt + 1));
        jg__lft_gather_t *g = NULL;
        cs_dl *A = NULL;
        for (int rep = 0; rep < 3 && ok; rep++) {
            for (int64_t k = 0; k < nv; k++) vals[k] = (2 * unif() - 1) * (unif() < 0.2 ? 1e16 : 1);
            cs_dl *T = cs_dl_spalloc(m, n, nt + 1, 1, 1);
            if (!rep) {
                for (int64_t k = 0; k < nt; k++) {
                    row[k] = (int64_t)(unif() * (double)m);
                    col[k] = (int64_t)(unif() * (double)n);
                    src[k] = unif() < 0.1 ? -1 : (int64_t)(unif() * (double)nv);
                }
                g = jg__lft_gather_new(m, n, nt, row, col, src);
                A = g ? jg__lft_gather_alloc(g) : NULL;
            }
            for (int64_t k = 0; k < nt; k++) cs_dl_entry(T, row[k], col[k], src[k] < 0 ? 1.0 : vals[src[k]]);
            cs_dl *C = cs_dl_compress(T);
            cs_dl_dupl(C);
            if (A) jg__lft_gather_run(g, vals, A);
            ok = A && same_csc(A, C);
            cs_dl_spfree(T);
            cs_dl_spfree(C);
        }
        cs_dl_spfree(A);
        jg__lft_gather_free(g);
        free(row);
        free(col);
        free(src);
    }
    tap_ok(ok, "operand recipes: cs_compress + cs_dupl's matrix bit for bit (%d random triplet sets, 3 value draws)",
           sets);
    jg__lft_gather_free(NULL);
}

int main(void)
{
    test_gather();
    test_random(0);
    test_random(1);
    test_fallback();
    test_empty();
    return tap_done();
}
