/* jacgraph/solver.h -- solvers for x' = f(t, x) behind one interface,
 * selected by jg_solver_method_t, explicit and implicit (stiff).
 *
 * Implicit (stiff), with the solver Jacobian of jg_solver_set_jacobian or
 * their own dense perturbation:
 *   ode23s  modified Rosenbrock 2(3) of Shampine & Reichelt (MATLAB's ode23s),
 *           a new Jacobian every step, 2nd-order continuous extension
 *   lie     linearly implicit Euler with a fixed step (one Newton step of
 *           implicit Euler; "Sparsing of Jacobians"), optional sparsing
 *           mask, linear output
 *   ode15s  variable-order BDF through SUNDIALS CVODE (KLU sparse or dense LU),
 *           dense output from CVODE's history
 *
 * Fixed-step, the number being the order:
 *   ode1  Euler                 ode4  classical Runge-Kutta
 *   ode2  Heun                  ode5  Dormand-Prince (the 5th-order weights)
 *   ode3  Bogacki-Shampine      discrete  no continuous states: time advances only
 * Variable-step, with local extrapolation (the higher order propagates):
 *   ode45 Dormand-Prince 5(4), first same as last (FSAL), 4th-order dense output
 *         of Shampine (MATLAB's ntrp45)
 *   ode23 Bogacki-Shampine 3(2), FSAL, cubic Hermite dense output
 * Error control and the starting step follow Hairer, Norsett & Wanner, Solving
 * Ordinary Differential Equations I, II.4: the error norm is the RMS of
 * err_i / (atol + rtol max(|x_i|, |xnew_i|)); a step is accepted when it is
 * <= 1.  With k = q + 1, q the order of the embedded solution (4 and 2), a
 * rejected step is retried with h * max(0.8 norm^(-1/k), 0.2); after an
 * accepted one the next step is h * clamp(0.8 norm^(-alpha) norm_prev^beta,
 * 0.2, 5), a PI controller (Hairer & Wanner II, IV.2; DOPRI5's exponents
 * beta = 0.2/k, alpha = 1/k - 0.75 beta, MATLAB's safety factor 0.8) with
 * norm_prev that of the previous accepted step (none after init or reset:
 * then 0.8 norm^(-1/k)), and no growth right after a rejection.  A step cut
 * short to end at t_limit leaves the proposed step as it was, or lowers it
 * when its own estimate predicts that the proposal would fail.
 *
 * Life cycle (SUNDIALS-like): create -> init -> step ... (interpolate, reset)
 * -> get_stats -> free.  The solver owns a copy of the state; jg_solver_step
 * reports each new point and allocates nothing.  Not thread-safe per object;
 * separate objects are independent.
 */
#ifndef JACGRAPH_SOLVER_H
#define JACGRAPH_SOLVER_H
#include "jacgraph/export.h"
#include <stdint.h>
#include <suitesparse/cs.h>   /* Debian, SuiteSparse >= 5: no -I needed */
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Right-hand side: write dx[n] = f(t, x).  Return 0 on success, > 0 for a
 * recoverable failure (a variable-step solver rejects the step and retries with
 * half of it; a fixed-step solver fails with JG_NUMERIC), < 0 for a fatal one
 * (the solver call returns at once).  To report its own error, f writes it into
 * the jg_error_t the caller passes to the solver call (reach it through user):
 * a status set there during the call is returned as is, message included;
 * otherwise the call fails with JG_NUMERIC "right-hand side failed at t = ...".
 * x is solver scratch: read it, never keep the pointer. */
typedef int (*jg_rhs_fn)(double t, const double *x, double *dx, void *user);

typedef struct jg_solver jg_solver_t;

/* Options; 0 selects the default.  rtol (default 1e-3, raised to 100 eps when
 * smaller) and atol (default 1e-6, the same for every state) are Simulink's
 * defaults; max_step defaults to (tstop - t0)/50; initial_step by default is
 * estimated from f (Hairer's algorithm, one extra evaluation of f).  These four
 * only matter for variable-step solvers.  fixed_step is the step of a
 * fixed-step solver and is required for one. */
typedef struct jg_solver_opts {
    double rtol, atol, max_step, initial_step, fixed_step;
} jg_solver_opts_t;

/* Counters since jg_solver_init: accepted steps, rejected step attempts
 * (error test or recoverable f failure), evaluations of f. */
typedef struct jg_solver_stats {
    long steps, rejected, fevals;
    long jevals;      /* solver Jacobians computed (implicit solvers); fevals
                         includes the evaluations spent on them (fevals_jac) */
    long factorizations;   /* LU factorizations of the iteration matrix */
    long fevals_jac;  /* evaluations of f spent on Jacobians (perturbation) */
} jg_solver_stats_t;

/* ---- implicit (stiff) solvers ----
 *
 * The solver Jacobian J = df/dx at (t, x), n x n in compressed-column form
 * (CSparse cs_dl).  The pattern (p, i) is fixed when the callback is
 * installed; the callback fills J->x in that pattern.  fx = f(t, x) is given
 * (perturbation methods reuse it).  Return codes as jg_rhs_fn. */
typedef int (*jg_jac_fn)(double t, const double *x, const double *fx, cs_dl *J, void *user);

/* Install the Jacobian callback of an implicit solver, with its pattern
 * (a cs_dl *, copied; NULL: dense n x n).  Without one an implicit solver
 * perturbs f column by column (dense).  Explicit solvers ignore it.
 * Errors: JG_ARG for a pattern that is not n x n compressed-column. */
JG_API jg_status_t jg_solver_set_jacobian(jg_solver_t *s, jg_jac_fn jac, const cs_dl *pattern,
                                          void *user, jg_error_t *err);

/* Projection inside the solver (as Simulink's mdlProjection): a method that can
 * project within its own step (ode15s, through CVODE's CVodeSetProjFn, which
 * keeps its BDF history) calls fn(t, x, user) after each step to move x onto
 * the invariants in place (return 0; < 0 fails the step).  Returns JG_OK when
 * the method takes it, JG_ARG when it cannot (the caller then projects after
 * each step itself and restarts the solver).  fn NULL removes it. */
typedef int (*jg_proj_fn)(double t, double *x, void *user);
JG_API jg_status_t jg_solver_set_projection(jg_solver_t *s, jg_proj_fn fn, void *user, jg_error_t *err);

/* Sparsing (linearly implicit Euler, "Sparsing of Jacobians"): a mask of the
 * Jacobian pattern (1 keep, 0 drop), one entry per stored entry of the pattern
 * given to jg_solver_set_jacobian; NULL clears it.  Other solvers ignore it. */
JG_API jg_status_t jg_solver_set_sparsing(jg_solver_t *s, const unsigned char *keep, jg_error_t *err);

/* The number of Jacobian pattern entries the sparsing mask drops (left out
 * of the iteration matrix I - h J and not computed by perturbation): 0 for a
 * solver that ignores masks or without one.  Cost: O(nnz). */
JG_API int64_t jg_solver_sparsing_dropped(const jg_solver_t *s);

/* The methods (see the top of this file).  JG_SOLVER_AUTO, the zero value,
 * is ode45 for n > 0 and "discrete" for n == 0, as Simulink's auto solver. */
typedef enum {
    JG_SOLVER_AUTO = 0,
    JG_SOLVER_ODE1,
    JG_SOLVER_ODE2,
    JG_SOLVER_ODE3,
    JG_SOLVER_ODE4,
    JG_SOLVER_ODE5,
    JG_SOLVER_ODE23,
    JG_SOLVER_ODE45,
    JG_SOLVER_DISCRETE,
    JG_SOLVER_ODE23S,
    JG_SOLVER_LIE,
    JG_SOLVER_ODE15S
} jg_solver_method_t;

/* "auto", "ode1", ... "ode15s" (static storage), NULL for a value outside
 * the enum. */
JG_API const char *jg_solver_method_name(jg_solver_method_t m);
/* The method named s ("auto" included), or -1. */
JG_API int jg_solver_method_parse(const char *s);

/* Create a solver of method m for n states.  f and user are kept (user is not
 * owned).  o may be NULL (all defaults).  *out is the caller's (jg_solver_free).
 * Errors: JG_ARG for a value outside jg_solver_method_t ("unknown solver
 * method 42 (valid: ...)"), a fixed-step solver without a positive
 * fixed_step ("non-positive step ..."), a negative or NaN option, n < 0, f
 * NULL, JG_SOLVER_DISCRETE with n > 0; JG_NOMEM.
 * Cost: O(n) memory, (4 + stages) n doubles. */
JG_API jg_status_t jg_solver_create(jg_solver_method_t m, int64_t n, jg_rhs_fn f, void *user,
                                    const jg_solver_opts_t *o, jg_solver_t **out, jg_error_t *err);
/* Accepts NULL. */
JG_API void jg_solver_free(jg_solver_t *s);

/* The valid names, space-separated: "ode1 ode2 ode3 ode4 ode5 ode23 ode45
 * discrete" and the implicit ones "ode23s lie ode15s" (Rosenbrock 2(3) of
 * Shampine & Reichelt, linearly implicit Euler with a fixed step, variable-
 * order BDF through SUNDIALS CVODE). */
JG_API const char *jg_solver_names(void);
/* The name of the method s runs ("ode45"; static storage; JG_SOLVER_AUTO
 * resolved) and the method itself. */
JG_API const char *jg_solver_name(const jg_solver_t *s);
JG_API jg_solver_method_t jg_solver_method(const jg_solver_t *s);
/* 1 for ode1..ode5, lie and discrete, 0 for ode23, ode45, ode23s, ode15s. */
JG_API int jg_solver_is_fixed(const jg_solver_t *s);

/* Start at (t0, x0[n]) for a run that ends at tstop (may be +INFINITY).  x0 is
 * copied.  Clears the statistics.  Does not call f.  Errors: JG_ARG for a
 * non-finite t0 or x0, a NaN tstop, tstop < t0 ("stop time T before start
 * time T0").  Cost: O(n). */
JG_API jg_status_t jg_solver_init(jg_solver_t *s, double t0, const double *x0, double tstop,
                                  jg_error_t *err);

/* One major step from the current point, ending at no more than
 * min(t_limit, tstop) (pass INFINITY for no per-call limit: t_limit is meant
 * for output times and events).  A variable-step solver takes the step its
 * error control allows; a fixed-step one steps to the next point of the grid
 * t0 + k fixed_step, shortened to end at the limit when that comes first (the
 * grid is kept: the step after ends on the grid again).  On success the new
 * time and state are written to *t and x[n] when these are not NULL.  err is
 * cleared on entry so that f can report into it (see jg_rhs_fn).
 * Errors: JG_ARG when the current time is already at the limit; JG_NUMERIC
 * "step size too small at t = ..." when the step falls below 16 eps |t|, or a
 * fixed-step solver's f returns > 0; f's own error when it returns < 0.  After
 * an error the solver still holds the last accepted point.  Cost: stages
 * evaluations of f per attempt (ode45 6 and ode23 3 thanks to FSAL, plus one
 * for the first step after init or reset, plus one for the starting-step
 * estimate) and O(stages n) arithmetic; no allocation. */
JG_API jg_status_t jg_solver_step(jg_solver_t *s, double t_limit, double *t, double *x,
                                  jg_error_t *err);

/* Dense output on the last step [jg_solver_last_step_start(s), t]: xq[n] at
 * any tq in it, exact (copies) at both ends.  Valid until the next step,
 * reset or init; with no step taken only tq = t is valid.  Errors: JG_ARG when
 * tq is outside (no message: there is no err).  Cost: O(stages n).  Order of
 * the interpolant: ode45/ode5 4, ode23/ode3 3 (Hermite), ode4 3, ode2 2,
 * ode1 1 (linear), discrete constant. */
JG_API jg_status_t jg_solver_interpolate(const jg_solver_t *s, double tq, double *xq);
/* Start time of the last step (the current time when there is none). */
JG_API double jg_solver_last_step_start(const jg_solver_t *s);

/* Restart at (t, x[n]) after a discontinuity (an event, a state reset): f at
 * the new point is evaluated afresh (no FSAL reuse) and a variable-step solver
 * estimates its step again (or takes initial_step); a fixed-step solver keeps
 * its grid.  Statistics continue.  Errors: JG_ARG for a non-finite t or x or
 * t beyond tstop.  Cost: O(n). */
JG_API jg_status_t jg_solver_reset(jg_solver_t *s, double t, const double *x, jg_error_t *err);

/* Copy the counters into *st.  Cost: O(1). */
JG_API void jg_solver_get_stats(const jg_solver_t *s, jg_solver_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif
