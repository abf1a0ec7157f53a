/* project.h -- invariant projection after each accepted solver step (seed
 * 002, Simulink's mdlProjection), private to lib/sim.
 *
 * Blocks declare invariants g(x, t) = 0 of their own continuous states
 * (block_impl.h: jg_block_ninv(b), jg_block_inv_pat(b), type->invariants).  After each
 * accepted step the simulator moves the solver's state X* to
 *     X = X* + J^T (J J^T)^-1 R,   R = -g(X*),   J = dg/dX at X*,
 * repeated with the same J (a simplified Newton iteration, at most 3 times,
 * until the correction is at round-off), for all invariants of the model at
 * once.  J J^T is solved densely (LAPACKE dposv) for up to 20 invariants
 * (p->proj_dense_max of program_impl.h, which tests change) and with CHOLMOD (cholmod_l_analyze once, cholmod_l_factorize of J J^T each
 * step) beyond.  J is block diagonal (each block's invariants involve only
 * its states), so the blocks' corrections are independent; a block's total
 * correction is kept only when its weighted RMS norm
 *     sqrt(mean_i (dX_i / (atol + rtol max(|X*_i|, |X_i|)))^2)
 * is at most 1 -- the solver's own error test, so the perturbation stays
 * within the error tolerances (mdlProjection) -- and is otherwise undone.  Such a
 * correction means the step was less accurate than the solver estimated:
 * jg__proj_step then has a variable-step Runge-Kutta method redo the step
 * with a smaller one (as after a failed error test); where it cannot (fixed
 * step, implicit methods, 10 retries in a row) the correction stays undone
 * and is reported (stats.not_applied, the first in stats.first_rejected).
 */
#ifndef JG_SIM_PROJECT_H
#define JG_SIM_PROJECT_H
#include "jacgraph/simulate.h"

typedef struct jg__proj jg__proj_t;

typedef struct jg__proj_stats {
    int64_t ninv;              /* invariants of the model (projected blocks' total) */
    int sparse;                /* 1: CHOLMOD, 0: dense */
    long steps;                /* projections attempted (accepted solver steps) */
    long applied;              /* ... that changed the state */
    long iterations;           /* simplified-Newton iterations in all */
    long rejected;             /* block corrections beyond the tolerance, undone */
    long retried;              /* steps redone with a smaller step because of them */
    long not_applied;          /* corrections finally left undone (reported) */
    long failed;               /* singular J J^T (or non-finite g): step left as is */
    double max_before;         /* largest |g_i| seen before projecting */
    double max_after;          /* largest |g_i| after projecting (applied blocks) */
    double max_norm;           /* largest applied weighted RMS correction */
    double first_rejected_t;   /* time of the first correction left undone (NAN: none) */
    char first_rejected[256];  /* "block 'P': correction norm N > 1 at t = T" */
} jg__proj_stats_t;

/* A projector for program p, or *out = NULL when no block has invariants.
 * Errors: JG_NOMEM; CHOLMOD failures of the symbolic analysis (JG_NUMERIC). */
jg_status_t jg__proj_create(const jg_program_t *p, jg__proj_t **out, jg_error_t *err);
void jg__proj_free(jg__proj_t *P);

/* Project x[nx] at time t in place with the solver's tolerances; xd are
 * the discrete states the invariants may read (NULL: none); *changed tells
 * whether x moved.  Errors: block domain errors from the invariants
 * (JG_NUMERIC naming the block).  Cost: one invariant Jacobian, 1 + it
 * invariant evaluations, one factorization of the m x m J J^T and it solves. */
jg_status_t jg__proj_apply(jg__proj_t *P, double t, double *x, const double *xd, double rtol,
                           double atol, int *changed, jg_error_t *err);

void jg__proj_get_stats(const jg__proj_t *P, jg__proj_stats_t *st);

/* The simulator's call after an accepted step (tprev, xprev) -> (t, x) of
 * solver s: jg__proj_apply with s's tolerances, then, when a correction was
 * beyond them and s can redo the step, s is restarted at (tprev, xprev) with
 * a smaller step and *retry set: the caller puts x back to xprev and steps
 * again.  *changed: x moved (the caller restarts s at the next major step
 * with jg__proj_reset_solver). */
jg_status_t jg__proj_step(jg__proj_t *P, jg_solver_t *s, double tprev, const double *xprev, double t,
                          double *x, const double *xd, int *changed, int *retry, jg_error_t *err);

/* Invariants of the whole model at (t, x): g[ninv], block by block in state
 * order (for tests and reports).  Errors: as jg__proj_apply. */
jg_status_t jg__proj_residual(jg__proj_t *P, double t, const double *x, double *g, jg_error_t *err);

/* jg_solver_reset after a projection: the state moved by less than the error
 * tolerance, which is no discontinuity, so a variable-step Runge-Kutta method
 * keeps its proposed next step and controller memory instead of estimating a
 * starting step again (f at the new point is evaluated afresh: no FSAL reuse).
 * Implicit methods are reset as by jg_solver_reset. */
jg_status_t jg__proj_reset_solver(jg_solver_t *s, double t, const double *x, jg_error_t *err);

/* The projector of a simulation (NULL when the model has no invariants), for
 * its statistics (simulate.c). */
jg__proj_t *jg__sim_projector(const jg_sim_t *s);

#endif
