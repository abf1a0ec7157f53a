/* implicit.h -- machinery shared by the implicit solvers of lib/sim (ode23s in
 * rosenbrock.c, lie in linimplicit.c): the solver Jacobian J = df/dx and the
 * iteration matrix W = I - gamma h J, its LU factors and solves (internal).
 *
 * The Jacobian comes from the callback of jg_solver_set_jacobian (s->jac, in
 * the pattern s->jpat) or, without one, from forward differences of f, one
 * evaluation per column of the pattern (dense when s->jpat is NULL).  W is
 * dense and factored by LAPACK (dgetrf/dgetrs through LAPACKE) when there is
 * no pattern, else sparse: its pattern (the Jacobian's kept entries plus the
 * diagonal) is ordered once by klu_l_analyze and every W of that pattern is
 * factored by klu_l_refactor (klu_l_factor the first time, and again when the
 * pivot order inherited by refactor turns out poor).
 *
 * Sparsing ("Sparsing of Jacobians"): with use_mask set, the entries of the pattern whose
 * byte in s->jkeep is 0 are left out of W (and not computed by perturbation:
 * a column whose entries are all dropped costs no evaluation of f).  W's
 * pattern shrinks with them, so KLU's fill does too.
 *
 * Counters (s->stats): jevals per Jacobian, factorizations per iteration
 * matrix factored, fevals for every call of f made here (perturbation
 * included: fevals is the whole cost in evaluations of f) and fevals_jac for
 * the part of those spent on Jacobians.
 *
 * Not thread-safe per object (it lives inside one jg_solver). */
#ifndef JG_SIM_IMPLICIT_H
#define JG_SIM_IMPLICIT_H
#include <stdint.h>
#include <klu.h>
#include <lapacke.h>
#include "solver_impl.h"

typedef struct jg__implicit {
    int64_t n;
    int use_mask;          /* honour s->jkeep (lie); ode23s ignores sparsing */
    int built;             /* the structure below is set up */
    int sparse;            /* built for a pattern (KLU), else dense (LAPACK) */
    int had_keep;          /* built with a mask */
    /* J: values in the pattern (dense: p[j] = j n, column-major, all rows);
     * p and i double as the record of the pattern the structure was built
     * from, compared with s->jpat before each use */
    cs_dl *J;
    unsigned char *keep;   /* the mask built with (copy), NULL without */
    int64_t dropped;       /* entries of the pattern left out of W */
    /* dense W: n x n column-major and its pivots */
    double *W;
    lapack_int *ipiv;
    /* sparse W (compressed column, rows sorted), jmap[k]: position in W of
     * J's entry k (-1: dropped), wdiag[j]: position of W(j, j) */
    int64_t *Wp, *Wi, *jmap, *wdiag;
    double *Wx;
    klu_l_common kc;
    klu_l_symbolic *sym;
    klu_l_numeric *num;
    double *xs, *fs;       /* perturbation scratch, n each */
} jg__implicit_t;

/* Zero *im for solver s (nothing allocated until jg__implicit_prepare).
 * use_mask: the method honours the sparsing mask. */
void jg__implicit_create(jg__implicit_t *im, const jg_solver_t *s, int use_mask);
/* Release everything im holds (not im itself).  Accepts a zeroed im. */
void jg__implicit_free(jg__implicit_t *im);

/* Make im's structure match s->jpat (and s->jkeep when use_mask): built on
 * the first call and rebuilt only when they changed (checked by comparison,
 * O(nnz)); *rebuilt (may be NULL) says whether it was, so that a caller
 * drops a Jacobian it holds.  Errors: JG_ARG for a pattern whose column
 * pointers decrease or whose row indices leave 0..n-1; JG_NOMEM; JG_INTERNAL
 * when KLU's analysis fails otherwise.  Cost on a rebuild: O(nnz log) plus
 * klu_l_analyze (sparse), O(n^2) memory (dense). */
jg_status_t jg__implicit_prepare(jg__implicit_t *im, jg_solver_t *s, int *rebuilt, jg_error_t *err);

/* J at (t, x), fx = f(t, x), for a step of about h; call
 * jg__implicit_prepare first.  Counts a Jacobian evaluation.  The callback
 * sees J->x zeroed; without one, column j is (f(t, x + d e_j) - fx) / d with
 * CVODE's increment d = max(sqrt(eps) |x_j|, 1000 |h| eps n ||fx|| (atol +
 * rtol |x_j|)) (||.|| the weighted RMS norm), signed like x_j (away from
 * zero: concentrations stay non-negative), and -d when f rejects the point
 * (returns > 0).  Errors: the callback's or f's own (return < 0),
 * JG_NUMERIC when the callback returns > 0 or an entry is not finite, or f
 * rejects both perturbations.  Cost: one callback, or one evaluation of f per
 * column with a kept entry and O(nnz). */
jg_status_t jg__implicit_jacobian(jg__implicit_t *im, jg_solver_t *s, double t, const double *x,
                                  const double *fx, double h, jg_error_t *err);

/* Form W = I - gh J (dropped entries left out) and factor it; counts a
 * factorization.  *singular is set (and JG_OK returned) when W is singular:
 * the caller decides (ode23s shrinks the step, lie fails).  Errors: JG_NOMEM,
 * JG_INTERNAL for another KLU failure.  Cost: O(nnz) plus the LU. */
jg_status_t jg__implicit_factor(jg__implicit_t *im, jg_solver_t *s, double gh, int *singular,
                                jg_error_t *err);

/* b := W^-1 b with the factors of the last successful jg__implicit_factor. */
void jg__implicit_solve(jg__implicit_t *im, double *b);

/* Entries of s's Jacobian pattern that s->jkeep drops (0 without a mask).
 * Cost: O(nnz). */
int64_t jg__implicit_dropped(const jg_solver_t *s);

#endif
