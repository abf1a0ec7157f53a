/* jacgraph/linearize.h -- linear models A, B, C, D at an operating point by
 * three independent methods behind one call:
 *
 *   JG_LIN_GRAPH    the Jacobian graph (Han, Mosterman & Zhang, "A Graph
 *                      Algorithm for Linearizing Simulink Models", Fig. 4)
 *                      with a reduction strategy (none: Theorem 1
 *                      submatrices and the LFT with M;
 *                      markowitz / full: eliminate, then the LFT with M = I);
 *   JG_LIN_MATRIX   the block-by-block algorithm of Fig. 1: Ao, Bo, Co, Do and
 *                      the connection matrix M, then the LFT;
 *   JG_LIN_PERTURB  central differences of the whole model.
 *
 * A jg_lin_t keeps the symbolic work (I/O resolution, graphs and elimination
 * tapes) so that linearizing again at another operating point only refills
 * values (jg_lin_run after changing jg_lin_states / jg_lin_inputs).
 */
#ifndef JACGRAPH_LINEARIZE_H
#define JACGRAPH_LINEARIZE_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include <suitesparse/cs.h>   /* Debian, SuiteSparse >= 5: no -I needed */
#include "jacgraph/program.h"
#include "jacgraph/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { JG_LIN_GRAPH = 0, JG_LIN_MATRIX, JG_LIN_PERTURB } jg_lin_method_t;
JG_API const char *jg_lin_method_name(jg_lin_method_t m);
JG_API int jg_lin_method_parse(const char *s);   /* -1 when unknown */

/* How TransportDelay blocks linearize.
 *   JG_LIN_DELAYS_BLOCK  each block's own Pade approximation (its PadeOrder);
 *   JG_LIN_DELAYS_PADE   every delay by the Pade approximant of one order
 *                        (jg_lin_opts_t.pade_order, 0 = y = u), whatever the
 *                        blocks' PadeOrder: the same states, names and values as
 *                        a model with that PadeOrder on every TransportDelay;
 *   JG_LIN_DELAYS_EXACT  no approximation: each delay element is cut out, its
 *                        output an extra input w_k and its input an extra output
 *                        z_k of the delay-free system H (after the other inputs
 *                        and outputs), and w_k(t) = z_k(t - tau_k) closes the loop
 *                        (jg_lin_sys_t.delays: MATLAB's ss with InternalDelay).
 * PADE and EXACT linearize continuous time only (discrete linearization
 * refuses them). */
typedef enum { JG_LIN_DELAYS_BLOCK = 0, JG_LIN_DELAYS_PADE, JG_LIN_DELAYS_EXACT } jg_lin_delays_t;
/* "pade:N" (N = 0..10) or "exact" into *mode and *order (0 for exact);
 * 0 ok, -1 malformed. */
JG_API int jg_lin_delays_parse(const char *s, jg_lin_delays_t *mode, int *order);

/* Linearization I/O: points are "BLOCK:N" (block path, 1-based output port). */
typedef struct jg_lin_opts {
    int nin, nout, nopen;
    const char *const *in, *const *out, *const *open;
    int no_defaults;     /* 1: do not add the root Inports/Outports */
    jg_lin_delays_t delays;   /* TransportDelays (default: their own PadeOrder) */
    int pade_order;           /* JG_LIN_DELAYS_PADE: the order, 0..10 */
    int threads;              /* threads for the column solves of the LFT of one run
                                 (0 or 1, the default: the calling thread only; negative
                                 refused).  Used only when the LFT is large enough to pay
                                 for starting them (its columns plus their entries in P11
                                 and P21 at least 8,000: models of some 10^4 blocks and
                                 up), and at most one per 8,000 of that work; the result
                                 is the same bits whatever the count.  With 2 or more, on
                                 a program of 20,000 blocks or more, the graph method's
                                 graph is also built beside other work: see
                                 prepare_graph, and jg_lin_stats_t.build_overlap.
                                 jg_lin_clone's clones solve on their own thread (a batch
                                 already runs one point per thread) */
    int prepare_graph;        /* 1: the runs will take the graph method.  With threads of
                                 2 or more on a program of 20,000 blocks or more,
                                 jg_lin_create then builds the graph (before any
                                 elimination) on the calling thread while a second sets up
                                 the evaluation, and the first graph run eliminates it.
                                 0 (default): built by the first graph run, beside its
                                 evaluation under the same conditions.  The results are the
                                 same bits either way */
} jg_lin_opts_t;

/* A linear model.  Names are owned by the struct. */
typedef struct jg_lin_sys {
    int64_t nx, nu, ny;
    char **state_names, **input_names, **output_names;
    cs_dl *A, *B, *C, *D;     /* compressed-column, exact zeros dropped */
    double t;                 /* time of the operating point */
    double Ts;                /* 0: continuous (x' = A x + B u); > 0: discrete,
                                 x[k+1] = A x[k] + B u[k], sample time Ts */
    int64_t ndelays;          /* internal delays (JG_LIN_DELAYS_EXACT), 0: none.  The
                                 last ndelays inputs w_k and outputs z_k are the delay
                                 channels, closed by w_k(t) = z_k(t - delays[k]); their
                                 names are the TransportDelay's (PATH, PATH(i)) */
    double *delays;           /* ndelays delay times, owned */
    int names_shared;         /* 1: the three name arrays are shared with other results
                                 (the points of a batch, which shares one set of names):
                                 read-only, and jg_lin_sys_free leaves them */
} jg_lin_sys_t;

JG_API void jg_lin_sys_free(jg_lin_sys_t *s);

typedef struct jg_lin_stats {
    jg_graph_stats_t graph;   /* graph method: sizes before/after, graph bytes */
    size_t bytes_matrix;      /* matrix method: Ao, Bo, Co, Do, M (CSC bytes) */
    size_t bytes_lft;         /* bytes of the LFT operands of the method run */
    int64_t lft_n;            /* order of I - P22 M */
    int64_t lft_fma;          /* multiplications of its sparse LU (jg_lft_info_t.lu_fma) */
    double lft_rcond;
    double cond;              /* estimated condition of what was solved: the largest of the
                                 LFT's I - P22 M loop by loop (jg_lft_info_t.cond) and the
                                 pivot blocks of the eliminated vertices; 1 when nothing was
                                 solved, 0 for perturbation (not estimated).  Above
                                 JG_LIN_COND_WARN the run warns (jg_lin_set_warn) */
    int pivot_fallback;       /* graph method: 1 when the elimination tape met an
                                 ill-conditioned or singular pivot at this operating point
                                 and the run solved the unreduced graph (pivoted LU) instead */
    int lft_fallback;         /* graph method: 0 when the LFT replayed the LU of its analysis
                                 (made on the first run) numerically; 1 when a recorded pivot
                                 was no longer partial pivoting's choice here, 2 when the
                                 operands' patterns changed, and it factorized afresh
                                 (jg_lft_info_t.fallback); either way the same bits */
    double perturb_err;       /* perturbation: its estimated error, in jg_lin_sys_diff's
                                 measure (per matrix A..D, the largest entry's error
                                 estimate over max(1, largest magnitude), the max over the
                                 four): the step comparison of the Richardson-extrapolated
                                 central differences.  0 for the other methods */
    double t_eval;            /* seconds: operating point and block Jacobians */
    double t_build;           /* graph build (first run only) or Ao..M assembly */
    int build_overlap;        /* where t_build was spent (jg_lin_opts_t.threads,
                                 prepare_graph): 0 in this run, alone; 1 in this run, with
                                 t_eval on a second thread at the same time (the wall time
                                 holds only the longer of the two); 2 in jg_lin_create,
                                 beside the evaluation's set-up (not in this run's time) */
    double t_elim;            /* symbolic elimination (first run only) */
    double t_replay;          /* numeric replay */
    double t_lft;             /* submatrix extraction + LFT */
    double t_total;
} jg_lin_stats_t;

typedef struct jg_lin jg_lin_t;

/* The condition estimate above which a run warns: the rounding error of the
 * result is about condition x 2.2e-16 relative, so from 1e10 on the sixth
 * significant digit (what the text format prints by default) may be wrong. */
#define JG_LIN_COND_WARN 1e10

/* Resolve I/O points and set the default operating point (t = 0, initial
 * states, zero inputs).  p must outlive the result.  Errors: JG_ARG for bad
 * points (message names the point), for a pade_order out of 0..10, and with
 * PADE or EXACT delays for an opening or input point on a TransportDelay's
 * output, JG_NOMEM. */
JG_API jg_status_t jg_lin_create(const jg_program_t *p, const jg_lin_opts_t *o, jg_lin_t **out,
                                 jg_error_t *err);
JG_API void jg_lin_free(jg_lin_t *l);
/* Notices of l's runs go to warn(ctx, message) (NULL: none): an estimated
 * condition above JG_LIN_COND_WARN, naming the algebraic loop; given once
 * per jg_lin_t (until the next jg_lin_set_warn). */
JG_API void jg_lin_set_warn(jg_lin_t *l, void (*warn)(void *ctx, const char *msg), void *ctx);

/* Operating point: states and root-Inport values (writable, program layout). */
JG_API double *jg_lin_states(jg_lin_t *l);
JG_API double *jg_lin_inputs(jg_lin_t *l);
JG_API void jg_lin_set_time(jg_lin_t *l, double t);
/* The time of the operating point (jg_lin_set_time, an --op file's "t"; 0 by default). */
JG_API double jg_lin_time(const jg_lin_t *l);
/* Read an operating point file (docs/model-format.md): {"t": T, "states":
 * {"Plant/x1": 1, "Plant/ss": [1, 2], "Plant/ss(2)": 3}, "inputs": {"In1": 0.5}}.
 * Unnamed entries keep their defaults.  Errors name the file and the entry. */
JG_API jg_status_t jg_lin_read_op(jg_lin_t *l, const char *path, jg_error_t *err);

/* Linearizers for threads.  jg_lin_clone makes a linearizer for program q
 * (l's program, or one compiled from the same model with other parameter
 * values and exactly the same structure: block Jacobian patterns, widths,
 * states, sample times; the caller checks, jacgraph/batch.h does) that shares
 * l's I/O points and the eliminations l has built so far, read-only, with its
 * own evaluation work, graph values and LFT work, at q's default operating
 * point (t = 0, initial states, zero inputs).  The clone's runs replay l's
 * elimination tapes, so each gives the bits a run of l at that point gives
 * after the same elimination (the strategy slot of jg_lin_run_strategy
 * included: a clone run with l's strategy replays l's elimination).  l must
 * outlive its clones, and l's strategy must not change (jg_lin_run_strategy
 * with another strategy) while they live; l and its clones may run in
 * different threads at the same time.  Before cloning from
 * several threads call jg_lin_freeze(l) once (it builds the names that are
 * otherwise built lazily on l's graphs and program; the same for another q:
 * jg_program_state_name on every state; and the analyses of the LFT for the
 * eliminations l has run and the recipes that gather its operands, which the
 * clones then share: without them each clone makes its own on its second
 * run).  A clone evaluates with the fused plan from its first run (see
 * jg_lin_run).  Errors: JG_NOMEM.  Cost: one evaluation work and one copy of
 * the graph values per elimination. */
JG_API jg_status_t jg_lin_clone(const jg_lin_t *l, const jg_program_t *q, jg_lin_t **out,
                                jg_error_t *err);
JG_API void jg_lin_freeze(jg_lin_t *l);

/* Linearize.  *out is a new jg_lin_sys_t; st may be NULL.  A linearizer's
 * first run evaluates the model block by block; later runs (new operating
 * points) evaluate with the fused plan on its I/O points and keep the
 * constant block Jacobians (Gain, Sum) of the first, the same bits in less
 * time.  Errors: those of
 * evaluation (JG_NONLINEAR_LOOP, JG_SINGULAR_LOOP, JG_NUMERIC naming blocks),
 * JG_NUMERIC when an entry of A, B, C or D would be NaN or Inf (naming the
 * blocks whose Jacobians are non-finite at the operating point, else the
 * step that overflowed), JG_NOMEM.  The graph method's eliminations keep
 * their pivot blocks well-conditioned (others are left to the LFT's pivoted
 * LU, and a tape that meets a bad pivot at another operating point falls
 * back to the unreduced graph for that run: st->pivot_fallback).  With
 * PADE delays, JG_SINGULAR_LOOP when delays feeding delays close a singular
 * loop at that order (order 0 and a delay whose output reaches its own input
 * through gains summing to 1). */
JG_API jg_status_t jg_lin_run(jg_lin_t *l, jg_lin_method_t m, jg_graph_reduce_t r, jg_lin_sys_t **out,
                              jg_lin_stats_t *st, jg_error_t *err);

/* The graph method with elimination strategy s (jacgraph/graph.h: any
 * spec, "lm", "momr>lm>reverse", "order:FILE", ...); jg_lin_run's graph
 * method for none, markowitz and full.  The elimination is decided at the
 * first run (and again when s differs from the last strategy) and replayed
 * after.  Errors: those of jg_lin_run and of the strategy (an order file
 * naming a bad vertex: JG_ARG, naming the line). */
JG_API jg_status_t jg_lin_run_strategy(jg_lin_t *l, const jg_graph_strategy_t *s, jg_lin_sys_t **out,
                                       jg_lin_stats_t *st, jg_error_t *err);
/* jg_lin_graph for strategy s. */
JG_API jg_status_t jg_lin_graph_strategy(jg_lin_t *l, const jg_graph_strategy_t *s,
                                         const jg_graph_t **g, jg_error_t *err);

/* The largest order of I - D*M (algebraic variables: block outputs and input
 * points) that jg_lin_run_extended solves. */
#define JG_LIN_EXTENDED_MAX 200
/* A reference linearization for checking the others: the matrix method's LFT
 * (its operands are the block Jacobians, in double) evaluated in quadruple
 * precision (GCC's __float128, 113-bit significand; long double where the
 * compiler has no such type) with a dense LU of I - D*M, every product and sum
 * in that precision.  Its relative error is about the condition of I - D*M
 * times jg_lin_extended_eps().  *out is a new system.
 * Errors: JG_ARG when I - D*M has more than JG_LIN_EXTENDED_MAX rows or with
 * JG_LIN_DELAYS_PADE/EXACT, JG_SINGULAR_LOOP when exactly singular, those of
 * evaluation, JG_NOMEM.  Cost: O(N^3 + (nx + nw) N^2) for N rows of I - D*M. */
JG_API jg_status_t jg_lin_run_extended(jg_lin_t *l, jg_lin_sys_t **out, jg_error_t *err);
/* The unit round-off of jg_lin_run_extended's arithmetic (2^-112, or long
 * double's epsilon). */
JG_API double jg_lin_extended_eps(void);

/* The Jacobian graph for reduction r, built and reduced on first use, with the
 * values of the last run (or of the default operating point). */
JG_API jg_status_t jg_lin_graph(jg_lin_t *l, jg_graph_reduce_t r, const jg_graph_t **g, jg_error_t *err);

/* Largest difference between two systems of equal shape, relative to
 * max(1, largest magnitude in b), per matrix; returns the max over A..D and
 * the name of the matrix in *which ("A".."D").  A NaN entry in either makes
 * the result NaN (never below a tolerance). */
JG_API double jg_lin_sys_diff(const jg_lin_sys_t *a, const jg_lin_sys_t *b, const char **which);

#ifdef __cplusplus
}
#endif
#endif
