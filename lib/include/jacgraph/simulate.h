/* jacgraph/simulate.h -- simulating a compiled program (Simulink's
 * simulation loop).  Each major time step computes the outputs in sorted order
 * (a block with a discrete sample time only at its sample hits; its outputs
 * hold in between), logs, runs the blocks' updates (discrete states at their
 * hits; modes, resets and histories of continuous-time blocks at every major
 * step), then advances the continuous states with a solver of
 * jacgraph/solver.h to the next sample hit at the latest.  Zero crossings are
 * located on the step's dense output and the step is cut just after them.
 * Algebraic loops are solved at every evaluation.  Simulation and
 * linearization call the same block functions (jacgraph/eval.h).
 */
#ifndef JACGRAPH_SIMULATE_H
#define JACGRAPH_SIMULATE_H
#include "jacgraph/export.h"
#include <stdint.h>
#include "jacgraph/program.h"
#include "jacgraph/eval.h"
#include "jacgraph/solver.h"
#include "jacgraph/solverjac.h"
#include "jacgraph/sparsing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_sim jg_sim_t;

/* Zero-crossing location (as in Simulink).  Non-adaptive: bisect on the dense
 * output down to the time resolution, and stop with an error naming the block
 * after max_zc consecutive crossings (chattering, Zeno).  Adaptive: stop
 * bisecting once the signal is inside the threshold band, and switch location
 * off for a signal that exceeds max_zc consecutive crossings, on again once it
 * stops crossing.  Off: crossings are not detected (blocks still switch at
 * the next major step).  Fixed-step solvers detect crossings at step ends. */
typedef enum { JG_ZC_MODE_NONADAPTIVE = 0, JG_ZC_MODE_ADAPTIVE = 1, JG_ZC_MODE_OFF = 2 } jg_zc_mode_t;

typedef struct jg_sim_opts {
    jg_solver_method_t solver; /* JG_SOLVER_AUTO (0): ode45, or time steps only
                                 for a model without continuous states */
    double t0, tstop;         /* tstop > t0 (or equal: nothing to integrate) */
    jg_solver_opts_t so;      /* rtol, atol, max_step, initial_step, fixed_step */
    double out_step;          /* > 0: log at t0 + k*out_step (dense output);
                                 0: log every major step */
    int decimation;           /* log every n-th output point (0 or 1: all) */
    jg_zc_mode_t zc;          /* zero-crossing location */
    double zc_tol;            /* adaptive threshold band; 0: auto */
    int max_zc;               /* consecutive zero crossings allowed; 0: 1000 */
    jg_solverjac_method_t jacobian; /* solver Jacobian of an implicit solver
                                 (jacgraph/solverjac.h); 0: JG_SOLVERJAC_AUTO */
    /* Sparsing of the solver Jacobian, solver lie only ("Sparsing of
     * Jacobians", jacgraph/sparsing.h): entries of J_x replaced by zero in
     * I - hJ for the whole run and not computed at all (jg_solverjac_set_keep).
     * Either a given list or the automatic choice at t0, not both. */
    const int64_t *sparsing_drop; /* 2 * sparsing_ndrop indices row, column, row, ...
                                 (0-based) of the entries to drop, e.g. from
                                 jg_io_read_mask; each must be an entry of J_x's
                                 structural pattern (jg_solverjac_structure); not
                                 owned, read by jg_sim_create.  NULL: no list */
    int64_t sparsing_ndrop;
    int sparsing_auto;        /* 0: none; else the flags of jg_sparsing_auto
                                 (JG_SPARSING_ENTRIES, JG_SPARSING_MIXED): chosen
                                 from J_x at (t0, x0) for the step so.fixed_step
                                 (dense, at most JG_SPARSING_MAX_STATES states) */
    double sparsing_slow;     /* sparsing_auto: the slow-mode threshold S; 0:
                                 JG_SPARSING_SLOW_THRESHOLD, < 0: S = 0 (every mode
                                 counts in C1, C2) */
    int refine;               /* with out_step 0: this many output points per major
                                 step, the extra ones evenly inside the step from
                                 the dense output (Simulink's Refine); 0 or 1: one */
    void (*warn)(void *ctx, const char *msg);   /* notices during a run, each once:
                                 a variable-step solver's step below 1e-6 of
                                 tstop - t0 for 1000 steps in a row (a stiff
                                 model under an explicit solver); NULL: none */
    void *warn_ctx;
    /* Root Inport values over time (`simulate --input-signal`, e.g.
     * jg_io_signal_input): called before every evaluation of the model at time
     * t with u = jg_eval_inputs (jg_eval_ninput_elems values, port order,
     * holding the last values) to overwrite; left = 1 asks for the limit from
     * the left of t (evaluations inside a solver step that ends at t), 0 for
     * the value at t (major steps, output points).  Nonzero: the run stops
     * with JG_NUMERIC "input function failed at t = ...".  NULL: the inputs
     * stay as they are (zero). */
    int (*input)(double t, int left, double *u, void *ctx);
    void *input_ctx;
    const double *input_breaks;  /* nondecreasing times where the input jumps
                                 or kinks (the table's rows): solver steps end
                                 there, as at sample hits, and the solver
                                 restarts; copied by jg_sim_create; NULL: none */
    int64_t input_nbreaks;
} jg_sim_opts_t;

/* What a sparsing (opts sparsing_drop / sparsing_auto) saves, with and
 * without it.  Counts per Jacobian; "full" is the same model without the
 * sparsing.  The LU fill is jg_sparsing_saving's (a sparse LU of I - hJ and
 * I - hA with J at t0, the prediction); the f evaluations and colors are
 * those of the solver Jacobian in use (jg_solverjac_fevals_per_jacobian;
 * the colors are the column groups of sparse perturbation, computed for any
 * method, with the sparsing those of jg_solverjac_color_columns_kept). */
typedef struct jg_sim_sparsing {
    int active;               /* a sparsing is in use */
    int64_t nnz;              /* entries of J_x's structural pattern */
    int64_t nkept;            /* of these, kept: the entries computed per Jacobian */
    int64_t ndropped_nonzero; /* dropped entries that are nonzero in J_x at t0 */
    int64_t nexplicit;        /* auto with JG_SPARSING_MIXED: states made explicit */
    int64_t colors_full, colors;   /* column groups without / with the sparsing */
    int64_t fevals_full, fevals;   /* f evaluations per Jacobian without / with it
                                      (0: analytical) */
    int64_t lu_full, lu;      /* nnz(L) + nnz(U) of I - hJ / I - hA at t0; -1 when
                                 the LU failed (singular) */
    int measured;             /* auto: `measure` holds jg_sparsing_auto's measure
                                 of the choice (d1, d2, C1, C2, checks) */
    jg_sparsing_result_t measure;
} jg_sim_sparsing_t;

/* Statistics of a run: the solver's, plus zero-crossing events located and
 * discrete sample hits. */
typedef struct jg_sim_stats {
    jg_solver_stats_t solver;
    long events, hits, resets;
    jg_sim_sparsing_t sparsing; /* the sparsing in use (zero without one) */
    const char *stop_block;    /* a Stop block ended the run (its path, owned by the
                                  program), NULL otherwise */
    double stop_time;          /* the time of that major step (the last one) */
} jg_sim_stats_t;

/* Called at each output point: the time, the states (nstates) and the values
 * of the logged signals (jg_sim_nlogged); return nonzero to stop the run. */
typedef int (*jg_sim_log_fn)(double t, const double *x, const double *sig, void *user);

/* Create a simulation of p from its initial states (p must outlive it).
 * With a sparsing (opts sparsing_drop or sparsing_auto) J_x is evaluated
 * at (t0, x0) once more to choose or check it (and for the statistics).
 * Errors: JG_ARG (unknown solver with the list of valid names, unknown
 * solver Jacobian method (any solver), non-positive step, stop before start,
 * negative refine; a sparsing with a solver other than lie, both a list and
 * auto, a listed entry outside 0..n-1 or outside J_x's structural pattern
 * (naming it), auto on more than
 * JG_SPARSING_MAX_STATES states), JG_NUMERIC (auto: I - hJ singular at t0),
 * JG_NOMEM. */
JG_API jg_status_t jg_sim_create(const jg_program_t *p, const jg_sim_opts_t *o, jg_sim_t **out,
                                 jg_error_t *err);
JG_API void jg_sim_free(jg_sim_t *s);

/* Logged signals: root Outports (in port order), then the inputs of Scope
 * and ToWorkspace blocks, element by element.  Names: "Out1", "Scope:1(2)". */
JG_API int64_t jg_sim_nlogged(const jg_sim_t *s);
JG_API const char *jg_sim_logged_name(const jg_sim_t *s, int64_t k);

/* Integrate up to t_until (clamped to tstop), calling log at t0 (first call
 * only) and at every output point.  A Stop block whose input is nonzero at a
 * major step ends the run after that step (logged even off the output grid):
 * JG_OK, jg_sim_time() is that step's time, jg_sim_stats() names the block
 * and the time, and further calls return at once.  Errors: those of evaluation (block domain
 * errors naming the block and time, JG_NONLINEAR_LOOP) and of the solver
 * (JG_NUMERIC "step size too small at t = ..."). */
JG_API jg_status_t jg_sim_run(jg_sim_t *s, double t_until, jg_sim_log_fn log, void *user,
                              jg_error_t *err);

JG_API double jg_sim_time(const jg_sim_t *s);
JG_API const double *jg_sim_states(const jg_sim_t *s);   /* nstates values at jg_sim_time */
/* Start from the continuous states x (nstates values, copied) instead of the
 * program's initial states, e.g. an operating point file's.  Only before the
 * first jg_sim_run.  Errors: JG_ARG (NULL, already run, non-finite x).
 * Cost: O(nstates). */
JG_API jg_status_t jg_sim_set_states(jg_sim_t *s, const double *x, jg_error_t *err);
/* Counters of the run so far: the solver's (st->solver) and the simulation's
 * (events, sample hits, resets, sparsing, the Stop block). */
JG_API void jg_sim_stats(const jg_sim_t *s, jg_sim_stats_t *st);
/* Discrete states (jg_sim_ndstates values) at jg_sim_time. */
JG_API int64_t jg_sim_ndstates(const jg_sim_t *s);
JG_API const double *jg_sim_dstates(const jg_sim_t *s);
/* With an implicit solver (ode23s, lie, ode15s) the simulation installs the
 * solver Jacobian of jacgraph/solverjac.h (method o->jacobian) with its
 * pattern; its f evaluations count in the stats' fevals_jac.  The method
 * used and why (*why, when why is not NULL); NULL for an explicit solver. */
JG_API const char *jg_sim_jacobian(const jg_sim_t *s, const char **why);
/* The work the simulation evaluates the model on (held discrete outputs,
 * discrete states, modes, inputs), e.g. to evaluate a solver Jacobian at the
 * run's point.  Owned by s. */
JG_API jg_eval_work_t *jg_sim_work(jg_sim_t *s);

#ifdef __cplusplus
}
#endif
#endif
