/* jacgraph/sparsing.h -- how much a sparsing of the solver Jacobian changes
 * the linearly implicit Euler step ("Sparsing of Jacobians for real-time
 * simulation of stiff models", [SPARSING] in docs/references.md; equation
 * numbers below are that paper's, docs/sparsing.md has the derivations).
 *
 * J = J_f(t, x) is the right-hand-side Jacobian (n x n compressed-column), A a
 * sparsing of it (some entries of J replaced by zero: keep[q] == 0 for entry q
 * of J's compressed-column arrays), h the step.  The linearly implicit Euler
 * step x+ = x + h (I - h A)^-1 f has the evolution matrices
 *
 *   M0 = I + h (I - h J)^-1 J                 without sparsing (eq. 3, F),
 *   M1 = I + h (I - h A)^-1 J                 with it (eq. 10),
 *   E  = M1 - M0 = h [(I - hA)^-1 - (I - hJ)^-1] J    (eq. 11, the eps M).
 *
 * The measures (jg_sparsing_result_t): d1 = |tr E| (Theorem 4.1, estimate of
 * sum(lt_i - l_i)), d2 = sqrt|tr(E^2)| (Theorem 4.2, estimate of the sum of
 * squares, which cancellation cannot hide), dS = the paper's eq. (2); the
 * true changes dr, dr2 from the eigenvalues l_i of M0 and lt_i of M1 paired
 * by a minimum-cost assignment; the bounds C1 = min r_i, C2 = min r_i^2 with
 * r_i = |1 - |l_i|| over the modes that are not slow (eq. 15); the checks
 * d1 < C1 and d2 < C2 (Algorithm 1, steps 11 and 12).
 *
 * Everything is dense: these are offline analyses.  Functions refuse more
 * than JG_SPARSING_MAX_STATES states with JG_ARG.
 */
#ifndef JACGRAPH_SPARSING_H
#define JACGRAPH_SPARSING_H
#include "jacgraph/export.h"
#include <stdint.h>
#include <suitesparse/cs.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Above this many states the dense analyses are refused (JG_ARG): a dense
 * n x n matrix of 2000 states is 32 MB and a measure is about 40 n^3 flops
 * (~3e11, minutes); --auto repeats part of it per candidate. */
#define JG_SPARSING_MAX_STATES 2000

/* Default of the slow-mode threshold S: mode i of J (eigenvalue mu_i) is
 * slow when h |mu_i| < S, and slow modes are left out of C1 and C2.  A mode
 * with h|mu| < 0.1 changes by less than 10 % per step: every first-order
 * method resolves it and it is not what makes the problem stiff, but its
 * l_i = 1/(1 - h mu_i) lies within ~h|mu_i| of the unit circle and would
 * otherwise make C1 tiny (the paper's remark after eq. 20). */
#define JG_SPARSING_SLOW_THRESHOLD 0.1

/* Results of jg_sparsing_measure.  l_i: eigenvalues of M0, lt_i: of M1, paired
 * so that sum |lt_i - l_i| is least. */
typedef struct jg_sparsing_result {
    int64_t n;            /* states */
    int64_t nnz;          /* entries of J (its compressed-column pattern) */
    int64_t ndropped;     /* entries with keep[q] == 0 */
    double h;             /* the step */
    double slow_threshold;/* S used */
    double d1;            /* |tr E| (Theorem 4, claim 1) */
    double d2;            /* sqrt|tr(E^2)| (Theorem 4, claim 2) */
    double dS;            /* |tr((I-hJ)^-1 h dJ [I - (I-hJ)^-1 (I+hJ)])|, dJ = A - J (eq. 2) */
    double trE;           /* tr E with its sign (d1 = |trE|) */
    double trE2;          /* tr(E^2) with its sign (d2 = sqrt|trE2|) */
    double trS;           /* eq. (2)'s trace with its sign (dS = |trS|) */
    double dr;            /* sum |lt_i - l_i| (the true change) */
    double dr2;           /* sqrt(sum |lt_i - l_i|^2) */
    double dmax;          /* max |lt_i - l_i| */
    double C1;            /* min r_i over the modes that are not slow (eq. 15) */
    double C2;            /* min r_i^2 over the same modes */
    int check1;           /* d1 < C1 (Algorithm 1, step 11; eq. 12) */
    int check2;           /* d2 < C2 (Algorithm 1, step 12, as the jacgraph
                           * definition has it; see check2_sq) */
    int check2_sq;        /* d2^2 < C2: eq. (13) literally (sum of squares
                           * against C2 = min r^2), equivalently d2 < C1 */
    int64_t nslow;        /* modes left out of C1, C2 (0 when every mode is
                           * slow: then all modes are used, see docs) */
    double rho0, rho1;    /* spectral radii max|l_i|, max|lt_i| (stability,
                           * eq. 14: |lt_i| <= 1) */
    double phi_max;       /* max |arg lt_j| in [0, pi] over the lt_j with
                           * |lt_j| >= 1e-8: near pi flags numerical oscillation */
    double phi0_max;      /* the same for the l_j (without sparsing) */
    int64_t nosc;         /* lt_j with |arg lt_j| > pi/2 and |lt_j| >= 1e-8
                           * (negative real part: the mode flips sign each step) */
    int64_t nosc0;        /* the same for the l_j */
} jg_sparsing_result_t;

/* Measure the sparsing keep of J (n x n compressed-column; keep[q] for each of
 * its J->p[n] entries: 1 kept, 0 dropped; keep NULL: nothing dropped) for the
 * step h > 0, slow-mode threshold S >= 0 (0 keeps every mode in C1, C2;
 * JG_SPARSING_SLOW_THRESHOLD is the documented default).  Fills *out.
 * Optional eigenvalue output: lam (2n doubles: re, im of l_i) and lamt (2n:
 * lt_i, in the paired order, lamt[i] paired with lam[i]); either may be NULL.
 * Errors: JG_ARG for a non-square or non-compressed-column J, h <= 0 or not
 * finite, S < 0, more than JG_SPARSING_MAX_STATES states; JG_NUMERIC when
 * I - hJ or I - hA is singular or an eigen-decomposition fails (dgeev);
 * JG_NOMEM.  Cost: dense, two LU inverses, two products and two
 * eigen-decompositions, ~40 n^3 flops, plus the assignment O(n^3); memory
 * ~6 n^2 doubles. */
JG_API jg_status_t jg_sparsing_measure(const cs_dl *J, const unsigned char *keep, double h,
                                       double slow_threshold, jg_sparsing_result_t *out,
                                       double *lam, double *lamt, jg_error_t *err);

/* What jg_sparsing_auto chooses (bit flags). */
enum {
    JG_SPARSING_ENTRIES = 1, /* drop single off-diagonal entries */
    JG_SPARSING_MIXED = 2    /* mixed-mode: states integrated explicitly (their
                              * row and column dropped, the diagonal too) */
};

/* Choose a sparsing of J for the step h (keep: J->p[n] flags, written).
 * Exact zeros of J's pattern are always dropped (they change nothing).
 * JG_SPARSING_MIXED first: candidate states are those for which explicit
 * Euler is stable on their own (-2 <= h J_ii <= 0), taken slowest first
 * (increasing h|J_ii|); a state becomes explicit when, with its row and
 * column dropped besides the earlier choices, both checks (d1 < C1,
 * d2 < C2) hold and the spectral radius of M1 does not exceed
 * max(1, that of M0) (1e-12 slack); otherwise it is skipped.
 * explicit_states (n flags, may be NULL) receives 1 for the explicit states.
 * JG_SPARSING_ENTRIES then: the remaining off-diagonal nonzero entries in
 * increasing order of their individual estimate (d1 of dropping that entry
 * alone, exact through Sherman-Morrison: for a rank-one change d2 = d1) are
 * dropped while both checks hold: the first entry that would break one
 * stops the choice.  The diagonal is never dropped by ENTRIES.
 * out (may be NULL) receives the measure of the final choice.
 * Errors: those of jg_sparsing_measure; JG_ARG for flags 0.  Cost: O(n^3)
 * per tried candidate (an LU inverse and a product; mixed mode also an
 * eigen-decomposition), i.e. O((k + 1) n^3) for k entries dropped plus the
 * tried states, and one jg_sparsing_measure. */
JG_API jg_status_t jg_sparsing_auto(const cs_dl *J, double h, double slow_threshold, int flags,
                                    unsigned char *keep, unsigned char *explicit_states,
                                    jg_sparsing_result_t *out, jg_error_t *err);

/* The predicted saving of a sparsing. */
typedef struct jg_sparsing_saving {
    int64_t nnz;            /* entries of J's pattern */
    int64_t nkept;          /* entries of A's pattern (keep[q] == 1) */
    int64_t ndropped;       /* nnz - nkept */
    int64_t ncolors_full;   /* colors of J's pattern (jg_solverjac_color_columns): directional
                             * derivatives per Jacobian by perturbation */
    int64_t ncolors_sparse; /* groups of a perturbation that computes A's entries
                             * exactly (jg_solverjac_color_columns_kept: the
                             * dropped entries of J still count as conflicts) */
    int64_t lu_full;        /* nnz(L) + nnz(U) of the sparse LU of I - hJ */
    int64_t lu_sparse;      /* the same for I - hA */
} jg_sparsing_saving_t;

/* Entries, colors and LU fill with and without the sparsing keep (NULL:
 * nothing dropped).  The LU is CXSparse's cs_lu with an AMD ordering of
 * A + A' and pivot tolerance 0.001 (diagonal preferred) on the values of
 * I - hJ / I - hA, so the fill is that of a sparse direct solver on this
 * matrix; its pattern keeps the structural entries whatever their value.
 * Errors: JG_ARG for a bad J or h; JG_NUMERIC when cs_lu fails (a
 * structurally or numerically singular matrix); JG_NOMEM.  Cost: the
 * coloring (O(sum over rows of nnz(row)^2)) and two sparse LUs. */
JG_API jg_status_t jg_sparsing_saving(const cs_dl *J, const unsigned char *keep, double h,
                                      jg_sparsing_saving_t *out, jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
