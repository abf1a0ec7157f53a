/* jacgraph/solverjac.h -- the solver Jacobian J_x = df/dx of a compiled
 * program's continuous states (MathWorks, Simulink documentation: "Choose a
 * Jacobian Method for an Implicit Solver"), for the implicit solvers of
 * jacgraph/solver.h.
 *
 * f is what the simulation integrates: at (t, x) the outputs in sorted order
 * (algebraic loops solved), then the derivatives, on a jg_eval_work_t with its held
 * discrete states, modes and inputs.  Methods (Simulink's names):
 *
 *   full-perturbation    one forward difference of f per state, dense n x n;
 *   sparse-perturbation  the structural pattern J_x,pattern, its columns
 *                        grouped into structurally orthogonal groups (Curtis,
 *                        Powell & Reid: a distance-2 coloring of the column
 *                        intersection graph, jg_solverjac_color_columns), one forward
 *                        difference of f per group, compressed-column result;
 *   full-analytical      J_x from the Jacobian graph: the graph of the program
 *   sparse-analytical    without I/O points, every algebraic vertex eliminated
 *                        (the "full" reduction), so that the state -> state
 *                        edges are J_x (A of a linearization without inputs and
 *                        outputs); each Jacobian is the block Jacobians at
 *                        (t, x) plus a numeric replay of the elimination tape,
 *                        no rebuild.  Full: stored dense; sparse: in the
 *                        structural pattern;
 *   auto                 analytical when every block has an analytic Jacobian,
 *                        perturbation otherwise; sparse when the model has 50
 *                        or more states, full otherwise.
 *
 * An analytical method asked for on a model with a block that has no analytic
 * Jacobian falls back to the perturbation of the same sparsity (as in
 * Simulink), and jg_solverjac_reason says so.  In the current block set every block
 * with Jacobian parts has a jacobian function (the check is there for blocks
 * registered at run time).
 *
 * The structural pattern comes from the graph whatever the method (the CLI
 * prints it and its coloring): an entry (i, j) is a path from state j to
 * state i through algebraic vertices.  It is a superset of the nonzeros: paths
 * whose values cancel, blocks whose parts are zero at this point (a Transport
 * Delay in simulation, the Pade states aside), and paths through blocks with a
 * discrete sample time, which hold their outputs between sample hits in a
 * simulation (their parts are zeroed before the replay when the work's rate is
 * not hit, exactly as jg_eval_outputs holds them), all stay in the pattern.
 *
 * Ownership: a jg_solverjac_t refers to the program (and to the work when one is
 * given), which must outlive it.  Not thread-safe per object.
 */
#ifndef JACGRAPH_SOLVERJAC_H
#define JACGRAPH_SOLVERJAC_H
#include "jacgraph/export.h"
#include <stdint.h>
#include <suitesparse/cs.h>   /* Debian, SuiteSparse >= 5: no -I needed */
#include "jacgraph/program.h"
#include "jacgraph/eval.h"
#include "jacgraph/graph.h"
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    JG_SOLVERJAC_AUTO = 0,
    JG_SOLVERJAC_FULL_PERTURBATION,
    JG_SOLVERJAC_SPARSE_PERTURBATION,
    JG_SOLVERJAC_FULL_ANALYTICAL,
    JG_SOLVERJAC_SPARSE_ANALYTICAL
} jg_solverjac_method_t;

/* "auto", "full-perturbation", ... ("?" for other values; static storage). */
JG_API const char *jg_solverjac_method_name(jg_solverjac_method_t m);
/* The method named s, or -1. */
JG_API int jg_solverjac_method_parse(const char *s);
/* "auto full-perturbation sparse-perturbation full-analytical sparse-analytical" */
JG_API const char *jg_solverjac_method_names(void);

typedef struct jg_solverjac jg_solverjac_t;

/* Counters since creation. */
typedef struct jg_solverjac_stats {
    long jevals;           /* Jacobians evaluated */
    long fevals;           /* perturbed evaluations of f (n or ncolors per Jacobian) */
    long fevals_base;      /* f at the unperturbed point, when fx was not given */
    long outputs;          /* analytical: output passes for the block Jacobians (1 each) */
    long replays;          /* analytical: replays of the elimination tape */
} jg_solverjac_stats_t;

/* Create the solver Jacobian of p with method `method` (JG_SOLVERJAC_AUTO:
 * chosen by Simulink's rules, see jg_solverjac_reason).
 * w is the work f is evaluated on (not owned; it must be p's and outlive the
 * result): the simulation's, so that its held discrete outputs, discrete
 * states, modes and inputs are those of the run.  w NULL: a private work at
 * p's initial states, zero inputs, in simulation mode (sim = 1) and minor-step
 * mode, every discrete rate executing (there was no major step to hold
 * anything).
 * Builds the Jacobian graph, eliminates every algebraic vertex, extracts the
 * pattern and colors its columns, whatever the method.
 * Errors: JG_ARG for a value outside jg_solverjac_method_t ("unknown solver
 * Jacobian method 7 (valid: 0 to 4, auto full-perturbation ...)"), for a dense method on more than 16384 states (the
 * matrix would pass 2 GB); JG_NOMEM.
 * Cost: the graph build and elimination (as jg_lin_run's first graph run),
 * O(nnz) for the pattern, O(sum over rows of nnz(row)^2) for the coloring;
 * the dense methods O(n^2) memory. */
JG_API jg_status_t jg_solverjac_create(const jg_program_t *p, jg_solverjac_method_t method, jg_eval_work_t *w,
                                       jg_solverjac_t **out, jg_error_t *err);
/* The same with the graph eliminated by strategy s (jacgraph/graph.h; NULL:
 * "full", jg_solverjac_create's) before the pattern and the analytical
 * scatter are taken from it: the survivors are solved by the LFT's pattern
 * and values.  s is only read during the call.  Errors: also the strategy's
 * (an order file naming a bad vertex: JG_ARG). */
JG_API jg_status_t jg_solverjac_create_strategy(const jg_program_t *p, jg_solverjac_method_t method,
                                                jg_eval_work_t *w, const jg_graph_strategy_t *s,
                                                jg_solverjac_t **out, jg_error_t *err);
/* Accepts NULL. */
JG_API void jg_solverjac_free(jg_solverjac_t *j);

/* The method used (never JG_SOLVERJAC_AUTO) and why, one line such as "auto: every
 * block has an analytic Jacobian (analytical) and 2 states < 50 (full)". */
JG_API jg_solverjac_method_t jg_solverjac_method(const jg_solverjac_t *j);
JG_API const char *jg_solverjac_reason(const jg_solverjac_t *j);
JG_API int64_t jg_solverjac_nstates(const jg_solverjac_t *j);
/* The work f is evaluated on (the given one or the private one): set inputs
 * with jg_eval_inputs. */
JG_API jg_eval_work_t *jg_solverjac_work(jg_solverjac_t *j);

/* The pattern jg_solverjac_eval fills (n x n compressed-column, rows sorted,
 * values unused): the structural pattern for the sparse methods, all n^2
 * entries (column-major) for the full ones.  Owned by j. */
JG_API const cs_dl *jg_solverjac_pattern(const jg_solverjac_t *j);
/* What to pass to jg_solver_set_jacobian: the structural pattern for the
 * sparse methods (sparse LU), NULL for the full ones (the solver's dense
 * layout, LAPACK; the same entries as jg_solverjac_pattern). */
JG_API const cs_dl *jg_solverjac_solver_pattern(const jg_solverjac_t *j);
/* The structural pattern J_x,pattern (whatever the method).  Owned by j. */
JG_API const cs_dl *jg_solverjac_structure(const jg_solverjac_t *j);
/* Column groups of the structural pattern: color[j] in 0..ncolors-1, -1 for
 * an empty column (nothing to perturb); with a sparsing (jg_solverjac_set_keep)
 * the groups for its kept entries (jg_solverjac_color_columns_kept), -1 for
 * a column with none.  Owned by j. */
JG_API int64_t jg_solverjac_ncolors(const jg_solverjac_t *j);
JG_API const int64_t *jg_solverjac_colors(const jg_solverjac_t *j);
/* Largest number of entries in a row of the structural pattern: a lower
 * bound on the number of colors. */
JG_API int64_t jg_solverjac_max_row_nnz(const jg_solverjac_t *j);
/* Evaluations of f per Jacobian: n (full perturbation; with a sparsing the
 * columns with a kept entry), ncolors (sparse perturbation), 0 (analytical:
 * one output pass and a replay instead); plus one when jg_solverjac_eval is
 * not given fx. */
JG_API int64_t jg_solverjac_fevals_per_jacobian(const jg_solverjac_t *j);

/* A new matrix with jg_solverjac_pattern's pattern and zero values (cs_dl_spfree),
 * NULL when out of memory. */
JG_API cs_dl *jg_solverjac_alloc(const jg_solverjac_t *j);

/* J_x at (t, x[n]) into J->x; J must have jg_solverjac_pattern's pattern (only
 * its dimensions and nnz are checked).  fx = f(t, x) when the caller has it
 * (the solvers do), else NULL (one more evaluation).  On return the work's
 * states are x; its signals are those of the last evaluation.
 * Errors: JG_ARG for a J of another shape; evaluation errors (JG_NUMERIC
 * naming the block and time, JG_NONLINEAR_LOOP, JG_SINGULAR_LOOP: the
 * messages of jg_eval_outputs, or of the replay / LFT for the analytical
 * methods).  Cost: perturbation: fevals_per_jacobian evaluations of f plus
 * O(nnz); analytical: one output pass, the block Jacobians, the replay, O(nnz)
 * (when algebraic vertices survive the elimination -- an Algebraic Constraint's
 * output -- an LFT over them, which allocates).  No allocation otherwise. */
JG_API jg_status_t jg_solverjac_eval(jg_solverjac_t *j, double t, const double *x, const double *fx, cs_dl *J,
                                jg_error_t *err);

JG_API void jg_solverjac_get_stats(const jg_solverjac_t *j, jg_solverjac_stats_t *st);

/* Sparsing ("Sparsing of Jacobians": entries of J replaced by zero, chosen
 * offline, need not be computed at run time).  keep[q], one byte per entry q
 * of jg_solverjac_structure (nonzero: kept, 0: dropped; copied), NULL
 * removes the sparsing.  From then on jg_solverjac_eval computes only the
 * kept entries and leaves every other entry of J zero:
 *   sparse-perturbation  columns grouped by jg_solverjac_color_columns_kept
 *                        (one f per group; a column without a kept entry is
 *                        not perturbed), so that each kept entry is the
 *                        difference quotient of its own column alone;
 *   full-perturbation    one f per column with a kept entry;
 *   analytical           the replay is unchanged (the elimination needs every
 *                        path), the extraction into J skips dropped entries.
 * The kept entries equal those of the Jacobian without the sparsing (the
 * same steps, the same structurally independent evaluations of f).
 * Errors: JG_ARG (j NULL), JG_NOMEM (j unchanged).  Cost: the coloring
 * (O(sum over rows of nnz(row)^2)) and O(nnz). */
JG_API jg_status_t jg_solverjac_set_keep(jg_solverjac_t *j, const unsigned char *keep, jg_error_t *err);
/* The sparsing installed (per entry of jg_solverjac_structure; owned by j),
 * NULL when none. */
JG_API const unsigned char *jg_solverjac_keep(const jg_solverjac_t *j);
/* Entries of J computed per Jacobian: the kept entries of the structural
 * pattern, all of them without a sparsing. */
JG_API int64_t jg_solverjac_nkept(const jg_solverjac_t *j);
/* A sparsing from the entries to drop: keep[q] (one byte per entry q of S,
 * caller's memory) 1 but at the ndrop pairs (row, column) of drop, 0-based,
 * where it is 0.  S is compressed-column with rows sorted in each column
 * (jg_solverjac_structure, jg_solverjac_pattern).  Returns -1, or the index
 * of the first pair that is no entry of S (outside its rows and columns, or
 * a structural zero: dropping one would silently do nothing, and a list in
 * another state order looks like that) for the caller to report; keep is
 * then partly written.  Cost: O(nnz(S) + ndrop log n). */
JG_API int64_t jg_solverjac_keep_from_drop(const cs_dl *S, const int64_t *drop, int64_t ndrop,
                                           unsigned char *keep);

/* Adapter for jg_solver_set_jacobian (jg_jac_fn) with user = the jg_solverjac_t:
 * jg_solverjac_eval, returning 0, or -1 with the error written to the jg_error_t
 * set with jg_solverjac_set_error (none: the solver reports a generic failure). */
JG_API int jg_solverjac_solver_jac(double t, const double *x, const double *fx, cs_dl *J, void *user);
/* The typical magnitude of the states for perturbation steps (default 1):
 * the step is sqrt(eps) max(|x_j|, typ).  The simulator passes atol / rtol. */
JG_API void jg_solverjac_set_typical(jg_solverjac_t *j, double typ);
/* Where jg_solverjac_solver_jac reports errors (not owned; NULL: nowhere). */
JG_API void jg_solverjac_set_error(jg_solverjac_t *j, jg_error_t *err);

/* ---- column coloring (lib/linearize/coloring.c) ----
 *
 * Curtis-Powell-Reid grouping of the columns of an m x n compressed-column
 * pattern A: color[j] for every column so that no two columns of one color
 * have an entry in the same row (structurally orthogonal), i.e. a coloring of
 * the column intersection graph (columns adjacent when they share a row).
 * Greedy in smallest-last order (Matula & Beck; Coleman & More 1983 showed it
 * near the lower bound max row count on PDE-like patterns).  Empty columns get
 * -1 and no color.  *ncolors is the number of colors used.  Errors: JG_ARG for
 * a matrix that is not compressed-column, JG_NOMEM.  Cost: O(n + m + nnz)
 * memory, O(sum over rows of nnz(row)^2) time (the intersection graph is
 * walked through the rows, never stored). */
JG_API jg_status_t jg_solverjac_color_columns(const cs_dl *A, int64_t *color, int64_t *ncolors, jg_error_t *err);
/* 1 when color is a valid grouping of A's columns (every column with entries
 * colored, no two columns of one color sharing a row), else 0. */
JG_API int jg_solverjac_coloring_valid(const cs_dl *A, const int64_t *color);

/* The grouping for a sparsing, when only the entries q of A with keep[q]
 * (one byte per entry) are wanted: one forward difference over a group
 * gives, in row r, the sum over every column of the group with an entry in
 * r, kept or dropped, so columns j1 and j2 may share a color only when no row
 * holding a kept entry of one holds any entry of A in the other (the
 * pattern of the kept entries alone would group columns whose dropped
 * entries then leak into the kept ones).  Columns without a kept entry get
 * -1 (they are not perturbed).  keep NULL: jg_solverjac_color_columns.
 * Greedy smallest-last as above (Gebremedhin, Manne & Pothen's partial
 * coloring for a subset of the entries).  Errors and cost as
 * jg_solverjac_color_columns, plus O(nnz) for the rows of the kept entries. */
JG_API jg_status_t jg_solverjac_color_columns_kept(const cs_dl *A, const unsigned char *keep,
                                                   int64_t *color, int64_t *ncolors, jg_error_t *err);
/* 1 when color computes every kept entry of A exactly (every column with a
 * kept entry colored; for each kept entry (r, j), no other colored column of
 * j's color has an entry in row r), else 0.  keep NULL: as
 * jg_solverjac_coloring_valid. */
JG_API int jg_solverjac_coloring_valid_kept(const cs_dl *A, const unsigned char *keep,
                                            const int64_t *color);

#ifdef __cplusplus
}
#endif
#endif
