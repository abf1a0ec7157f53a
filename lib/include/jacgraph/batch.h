/* jacgraph/batch.h -- many linearizations of one model: operating points and
 * workspace-parameter grids on one compiled program, on every core.
 *
 * A points table (jg_batch_points_t) lists the points: each an operating point
 * written like an --op file (t, states, inputs) plus workspace parameters by
 * name, optionally crossed with a full-factorial grid over parameters, and
 * optionally turned into snapshots of a simulation (--at).  jg_batch_run
 * linearizes every point with one symbolic phase (I/O resolution, the graph's
 * elimination tape) and a numeric phase per point, on `jobs` threads, and
 * hands the results to a sink in input order.  Results do not depend on the
 * number of threads (bit for bit).  docs/batch.md describes the file format,
 * how work divides and the parameters rule.
 */
#ifndef JACGRAPH_BATCH_H
#define JACGRAPH_BATCH_H
#include "jacgraph/export.h"
#include <stdint.h>
#include "jacgraph/program.h"
#include "jacgraph/import.h"
#include "jacgraph/linearize.h"
#include "jacgraph/simulate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ points */

typedef struct jg_batch_points jg_batch_points_t;

/* Read a points file: a JSON object with "points": [{"t": T, "states": {...},
 * "inputs": {...}, "parameters": {NAME: number}}, ...] (each entry like an
 * --op file, jg_lin_read_op) and/or "grid": {NAME: [numbers...], ...} (a full
 * factorial over workspace parameters, crossed with every listed point; with
 * no "points" the default operating point).  Point k = g * npoints + i for
 * grid combination g (the first grid parameter varying slowest) and listed
 * point i.  States and inputs are checked against p (the base program);
 * parameter names are checked by jg_batch_run (it knows the model).
 * Errors: JG_IO, JG_PARSE ("FILE:LINE:COL: ..."), JG_ARG naming the file, the
 * point index (0-based) and the entry; JG_NOMEM.  *out: jg_batch_points_free.
 * Cost: O(file) time and about 16 bytes of memory per JSON value while it
 * is read (the model reader's parser; each distinct state or input name is
 * looked up once), then O(values set) for the table. */
JG_API jg_status_t jg_batch_points_read(const char *path, const jg_program_t *p,
                                        jg_batch_points_t **out, jg_error_t *err);
/* The same from text in memory; `source` names it in messages. */
JG_API jg_status_t jg_batch_points_parse(const char *text, const char *source,
                                         const jg_program_t *p, jg_batch_points_t **out,
                                         jg_error_t *err);
/* One point: the default operating point of p (t = 0, initial states, zero
 * inputs), for a run of --at snapshots only. */
JG_API jg_status_t jg_batch_points_default(const jg_program_t *p, jg_batch_points_t **out,
                                           jg_error_t *err);
/* Snapshots: every point becomes n points, the state reached by simulating
 * from it (its t, states, inputs) to at[0], ..., at[n-1] (increasing, each at
 * or after the point's t; each time its own run from the point, as linearize
 * --at).  Point k = i * n + j for the former point i and time j.  Errors:
 * JG_ARG (n < 1, times not increasing, a time before a point's t), JG_NOMEM. */
JG_API jg_status_t jg_batch_points_set_times(jg_batch_points_t *pts, int n, const double *at,
                                             jg_error_t *err);
JG_API void jg_batch_points_free(jg_batch_points_t *pts);

/* The number of points. */
JG_API int64_t jg_batch_points_count(const jg_batch_points_t *pts);
/* The values that describe a point: "t", every continuous state element
 * (jg_program_state_name), every root-Inport element ("In1" or "In1(k)"),
 * then the workspace parameters named anywhere in the file (file order). */
JG_API int jg_batch_points_nvals(const jg_batch_points_t *pts);
JG_API const char *jg_batch_points_name(const jg_batch_points_t *pts, int j);
/* The number of parameters (the last ones of the values) and their index. */
JG_API int jg_batch_points_nparams(const jg_batch_points_t *pts);
/* Point k's nvals values into vals: its start (with snapshots, t is the
 * snapshot's time and the states are those of the start; the sink gets the
 * simulated ones).  A parameter the point leaves at the model's value is NaN.
 * 0, or -1 when k is out of range. */
JG_API int jg_batch_points_values(const jg_batch_points_t *pts, int64_t k, double *vals);

/* ------------------------------------------------------------ engine */

/* Receives the result of point k, in input order (k ascending), from one
 * thread at a time: point_values are the point's jg_batch_points_nvals values
 * as linearized (with snapshots: the simulated time and states); sys the
 * linear model (NULL when the point failed; valid during the call only; its
 * names one set shared by every point's result: names_shared);
 * error the failure's message (NULL when ok).  Return 0 to go on, nonzero to
 * stop the run (jg_batch_run returns JG_IO). */
typedef int (*jg_batch_sink_fn)(void *ctx, int64_t k, const double *point_values,
                                const jg_lin_sys_t *sys, const char *error);

typedef struct jg_batch_opts {
    jg_lin_opts_t lin;          /* I/O points, openings, delays (jg_lin_create) */
    jg_lin_method_t method;     /* JG_LIN_GRAPH (0) by default */
    jg_graph_reduce_t reduce;   /* graph method: the elimination (0 is
                                   JG_GRAPH_REDUCE_NONE; the CLI's default is markowitz) */
    const jg_graph_strategy_t *strategy;   /* graph method: any elimination strategy
                                              (jacgraph/graph.h), decided once on the first
                                              point and replayed by every thread; NULL: reduce */
    int jobs;                   /* worker threads; <= 0: every online core */
    /* Parameters: the model is compiled again per distinct combination, read
     * from model_path with `import` (may be NULL) plus one override per
     * parameter (as --set NAME=VALUE), the plugin files loaded as --plugin.
     * Needed only when the points name parameters. */
    const char *model_path;
    const jg_import_opts_t *import;
    const char *const *plugins;
    int nplugins;
    /* Snapshots (jg_batch_points_set_times): the simulation's options; t0 and
     * tstop are set per point; solver 0: ode45. */
    jg_sim_opts_t sim;
    /* Only the points k in [begin, end) (end 0: to the last) with
     * k % nranks == rank (nranks 0 or 1: all of them): one rank's share. */
    int64_t begin, end;
    int nranks, rank;
    /* Per point, in the worker threads (concurrently: must be thread-safe):
     * turn the result *sys of linearizer l (the thread's own, at the point)
     * into what is delivered (discrete time, c2d...), replacing *sys.  NULL:
     * none.  An error fails that point only. */
    jg_status_t (*post)(void *ctx, jg_lin_t *l, jg_lin_sys_t **sys, jg_error_t *err);
    void *post_ctx;
    /* Progress, from the delivering thread after each delivered point (NULL:
     * none): done of total points of this run. */
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
} jg_batch_opts_t;

typedef struct jg_batch_stats {
    int64_t npoints;            /* points of this run (after begin/end/rank) */
    int64_t nfailed;            /* of them, failed (delivered with an error) */
    int nprograms;              /* programs compiled for parameter combinations */
    int jobs;                   /* threads used */
    double t_compile;           /* seconds: compiling the parameter variants */
    double t_symbolic;          /* the symbolic phase (first point) */
    double t_run;               /* the points (wall clock) */
} jg_batch_stats_t;

/* Linearize the points of pts on p (the model compiled with its own
 * parameters, p must outlive the call) and deliver each result to sink.
 * A point that fails (a singular loop, a domain error, a failed simulation)
 * is delivered with its message and the run goes on.  Returns JG_OK when every
 * point was delivered (st->nfailed says how many failed).  Errors, before any
 * point is run: JG_ARG naming an unknown parameter, or a parameter value that
 * changes the model's structure (naming the parameter and the block: widths,
 * states, sample times, Jacobian patterns), those of jg_lin_create and of
 * compiling the model, JG_NOMEM; during the run: JG_IO when the sink stopped
 * it (naming the point).  Cost: one symbolic phase, then per point one
 * evaluation of the block Jacobians, one replay and one LFT. */
JG_API jg_status_t jg_batch_run(const jg_program_t *p, const jg_batch_points_t *pts,
                                const jg_batch_opts_t *o, jg_batch_sink_fn sink, void *ctx,
                                jg_batch_stats_t *st, jg_error_t *err);

/* The number of cores this process may run on (its CPU affinity: taskset,
 * cpusets, an MPI launcher's binding; else the online cores), 1..1024. */
JG_API int jg_batch_ncores(void);

/* ------------------------------------------------------------ MPI */

/* Across machines (docs/batch.md): with `meson setup -Dmpi=enabled` (OpenMPI),
 * `mpirun -np K jacgraph batch ...` splits the points across the ranks, each
 * running its share on its own threads: when the points set no parameter, a
 * rank asks rank 0 for a few consecutive points whenever it runs low (after
 * the points k % K == r of a short prefix); otherwise rank r has the points
 * k % K == r.  Rank 0 runs its share too and receives the others' results,
 * so its sink sees every point in order, as jg_batch_run's would, with the
 * same results.  Without MPI these functions run one process. */

/* 1 when the library was built with MPI. */
JG_API int jg_batch_mpi_built(void);
/* Start MPI when the process is one of several tasks of a launcher (mpirun,
 * a PMI launcher, srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE or
 * SLURM_STEP_NUM_TASKS above 1); *rank and *nranks (0 and 1 otherwise).  A
 * crash on a rank (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) then prints the
 * rank and its first unfinished point on stderr.  Errors: JG_ARG when
 * launched with several tasks but built without MPI (each would write the
 * whole result), JG_IO when MPI cannot start. */
JG_API jg_status_t jg_batch_mpi_init(int *rank, int *nranks, jg_error_t *err);
/* jg_batch_run across the ranks (o->nranks, o->rank are set here; begin
 * and end apply).  On rank 0 sink receives every point of the run in order
 * and o->progress the merged count; st counts all points and failures (jobs:
 * rank 0's threads).  On the other ranks sink is not called: their results go
 * to rank 0.  Errors: those of jg_batch_run on this rank; on rank 0 also
 * JG_IO "MPI rank R failed: at point K: ..." for another rank's failure and
 * for a malformed message.  After an error, call jg_batch_mpi_finalize with
 * a nonzero code on every rank (rank 0 first removes its partial output).
 * Without MPI, or with one rank: jg_batch_run. */
JG_API jg_status_t jg_batch_mpi_run(const jg_program_t *p, const jg_batch_points_t *pts,
                                    const jg_batch_opts_t *o, jg_batch_sink_fn sink, void *ctx,
                                    jg_batch_stats_t *st, jg_error_t *err);
/* End MPI (nothing when jg_batch_mpi_init did not start it).  abort_code 0:
 * MPI_Finalize.  Otherwise the run is ended on every rank with that exit
 * code: rank 0 aborts at once, another rank waits up to a minute for rank 0
 * to do it (rank 0 has its message) and then aborts itself. */
JG_API void jg_batch_mpi_finalize(int abort_code);

#ifdef __cplusplus
}
#endif
#endif
