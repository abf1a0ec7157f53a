/* measure.h -- the graph algorithm against the matrix algorithm on one model:
 * sizes, bytes of the intermediate results, stage times, peak RSS.  Shared by
 * benchmarks/bench_linearize and `jacgraph bench` (tools/cmd_bench.c); uses the
 * public libjacgraph API only.
 *
 * How one model is measured (jgb_measure):
 *   - three child processes (fork), run one after the other, each loading and
 *     compiling the model itself: "base" (load, compile, jg_lin_create),
 *     "graph" (base + the graph algorithm, repeated) and "matrix" (base + the
 *     matrix algorithm, repeated).  The peak RSS of each is its ru_maxrss from
 *     wait4, so the two algorithms never share a heap; rss_*_kib - rss_base_kib
 *     is what the algorithm itself added at its peak.
 *   - each child writes its medians and its first result (A, B, C, D) to a
 *     temporary file; the parent compares the two results (jg_lin_sys_diff) and
 *     fails the row above the tolerance.
 *   - the graph child times, per repetition, a first run on a new jg_lin_t
 *     (block Jacobians, graph build, symbolic elimination, numeric replay, LFT)
 *     and a second run on the same jg_lin_t (block Jacobians, replay, LFT);
 *     the matrix child times block Jacobians, assembly of Ao..M and the LFT.
 *   - a child runs an algorithm `repeat` times, and more (up to max_runs) until
 *     the runs took min_time seconds, so that microsecond medians are over
 *     hundreds of runs; it stops repeating once the runs took max_time seconds
 *     (at least one run).
 *   - every child first linearizes a tiny built-in model with both algorithms
 *     (library code and lazy buffers resident alike), frees the JSON model
 *     after compiling, trims the heap and restarts the peak-RSS high-water mark
 *     (/proc/self/clear_refs), and keeps freed memory (jgb_steady_heap).
 * With fork = 0 everything runs in this process (no RSS; for debuggers/ASan).
 */
#ifndef JG_BENCH_MEASURE_H
#define JG_BENCH_MEASURE_H
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "jacgraph/jacgraph.h"

/* Produces the model's JSON text (malloc'd) in the measuring process; NULL and
 * a message in err on failure.  NULL loader: read src->path. */
typedef char *(*jgb_loader_fn)(const void *ctx, char *err, size_t errlen);

typedef struct jgb_source {
    const char *label;        /* the Model column */
    const char *path;         /* model file (when load is NULL) */
    jgb_loader_fn load;
    const void *ctx;
} jgb_source_t;

typedef struct jgb_opts {
    int repeat;               /* timing runs per algorithm (>= 1) */
    double min_time;          /* ...and more, up to max_runs, until the runs took this long (s) */
    int max_runs;             /* (1000) */
    double max_time;          /* stop repeating once the runs took this long (s); <= 0: no limit */
    jg_graph_reduce_t reduce;       /* graph algorithm's elimination (markowitz) */
    const jg_graph_strategy_t *strategy;   /* non-NULL: this elimination instead of reduce */
    int64_t matrix_max_blocks;/* skip the matrix algorithm above this many blocks (0: never) */
    int matrix;               /* 0: skip the matrix algorithm */
    int fork;                 /* 1: children with peak RSS; 0: in-process, no RSS */
    double tol;               /* agreement tolerance of jg_lin_sys_diff (1e-10) */
    const jg_lin_opts_t *io;  /* linearization I/O (NULL: root Inports/Outports) */
    const char *op_path;      /* operating-point file (NULL: default point) */
} jgb_opts_t;

void jgb_opts_default(jgb_opts_t *o);

/* Load (src->load, else src->path) and compile the model; the model is freed
 * once compiled.  *t_compile (NULL: not wanted): seconds of parsing and
 * compiling, generation excluded.  Returns 0, or 1 with the library's error
 * in err, or (err->status still JG_OK) the loader's message in msg. */
int jgb_compile(const jgb_source_t *src, jg_program_t **p, double *t_compile, char *msg,
                size_t msglen, jg_error_t *err);

/* Medians (seconds) of jg_lin_stats_t fields over the runs. */
typedef struct jgb_times {
    double eval, build, elim, replay, lft, total;
} jgb_times_t;

typedef struct jgb_row {
    char label[256];
    int ok;                   /* 1: measured and agreed */
    int mismatch;             /* 1: the algorithms disagree beyond tol */
    char err[1024];           /* why not ok */
    jg_status_t status;       /* the failing library call's status (JG_OK: none, or a
                                 failure outside the library: fork, temporary file) */
    /* model */
    int32_t nblocks, nreal;
    int64_t nx, nu, ny;
    int nloops;
    /* Jacobian graph (graph child) */
    int64_t v_before, e_before, v_after, e_after, eliminated, tape_ops;
    /* bytes of intermediate results (exact CSC bytes, see README) */
    size_t bytes_matrix;      /* Ao, Bo, Co, Do, M */
    size_t bytes_graph;       /* A_r, B_r, C_r, D_r */
    size_t bytes_graph_struct;/* the graph itself: structure + values + tape */
    int64_t lft_n_matrix, lft_n_graph;
    /* times: medians, seconds */
    int runs_graph, runs_matrix;
    int matrix_skipped;       /* 1: not run (option or size limit) */
    double t_compile;         /* parse + compile */
    jgb_times_t graph;        /* first run on a new jg_lin_t */
    jgb_times_t replay;       /* second run on the same jg_lin_t */
    jgb_times_t matrix;
    /* peak RSS (KiB) of the children; 0 when not measured */
    long rss_base_kib, rss_graph_kib, rss_matrix_kib;
    double max_diff;          /* graph vs matrix (and replay vs first run) */
} jgb_row_t;

/* Measure one model.  Returns 0 when the row is complete and the algorithms
 * agree; 1 otherwise (row->err says why; row->mismatch for a disagreement). */
int jgb_measure(const jgb_source_t *src, const jgb_opts_t *o, jgb_row_t *row);

/* Derived numbers (NaN when the matrix algorithm was skipped). */
double jgb_mem_ratio(const jgb_row_t *r);    /* bytes_graph / bytes_matrix */
double jgb_time_ratio(const jgb_row_t *r);   /* graph.total / matrix.total */
double jgb_rss_ratio(const jgb_row_t *r);    /* (rss_graph - base) / (rss_matrix - base) */

/* Output.  Table 1 and Table 2 are the paper's layouts ("Without vertex
 * elimination" = the matrix algorithm, "With" = the graph algorithm); the
 * detail table has the stage times (ms), RSS and ratios. */
void jgb_table1_header(FILE *f);
void jgb_table1_row(FILE *f, const jgb_row_t *r);
void jgb_table2_header(FILE *f);
void jgb_table2_row(FILE *f, const jgb_row_t *r);
void jgb_detail_header(FILE *f);
void jgb_detail_row(FILE *f, const jgb_row_t *r);
void jgb_csv_header(FILE *f);
/* The opening of a W x H SVG plot: the XML declaration, the <svg> element, a
 * white background and `title` centred at the top (not escaped: the
 * benchmarks' own text).  The caller writes the panels and "</svg>". */
void jgb_svg_begin(FILE *f, double W, double H, const char *title);
void jgb_csv_row(FILE *f, const jgb_row_t *r);

/* Keep freed memory in the process (glibc: mallopt M_TRIM_THRESHOLD and
 * M_MMAP_THRESHOLD at 1 GiB), so that a new jg_lin_t reuses resident pages
 * instead of faulting in pages the allocator gave back to the kernel: timings
 * then do not depend on what else the heap holds.  Every measuring process
 * calls it first. */
void jgb_steady_heap(void);

/* Shared helpers. */
double jgb_now(void);
double jgb_median(double *v, int n);   /* sorts v */
char *jgb_slurp(const char *path, char *err, size_t errlen);
/* The processor's "model name" (/proc/cpuinfo) into buf, "?" when unknown;
 * for the heading of a benchmark's report. */
void jgb_host(char *buf, size_t len);

#endif
