/* Private structures of lib/batch: the points table (points.c), the programs
 * of the parameter combinations (variants.c) and the engine (batch.c). */
#ifndef JG_BATCH_IMPL_H
#define JG_BATCH_IMPL_H
#include "jacgraph/batch.h"
#include "../compile/program_impl.h"

/* One value a point sets: index into the point's values (0 t, 1.. states,
 * then input elements, then parameters) and the value. */
typedef struct {
    int32_t idx;
    double v;
} jg__bval_t;

struct jg_batch_points {
    const jg_program_t *p;   /* the base program: layout and names */
    char *source;
    int64_t nx, nu;          /* states, root-Inport elements of p */
    int nvals, nparams;      /* nvals = 1 + nx + nu + nparams */
    char **names;            /* nvals */
    double *base;            /* nvals defaults: t 0, p's initial states, zero inputs,
                                parameters NaN (the model's own) */
    /* the listed points (one, the default, when the file lists none) */
    int64_t nlist;
    int64_t *set_ptr;        /* point i sets set[set_ptr[i] .. set_ptr[i + 1]) */
    jg__bval_t *set;
    /* the grid: ngrid parameters (their index among the parameters), each
     * with grid_n values; ncomb combinations, the first parameter slowest */
    int ngrid;
    int *grid_param;
    int64_t *grid_n;
    double **grid_v;
    int64_t ncomb;
    /* snapshots: nat times (0: none) */
    int nat;
    double *at;
    int64_t n;               /* ncomb * nlist * max(nat, 1) */
};

/* Point k's coordinates: grid combination g, listed point i, time j (-1: no
 * snapshots). */
static inline void jg__batch_coords(const jg_batch_points_t *P, int64_t k, int64_t *g, int64_t *i,
                                    int *j)
{
    int64_t nt = P->nat ? P->nat : 1;
    *j = P->nat ? (int)(k % nt) : -1;
    k /= nt;
    *i = k % P->nlist;
    *g = k / P->nlist;
}
/* The parameter values (nparams, NaN: the model's) of grid combination g and
 * listed point i into pv. */
void jg__batch_params(const jg_batch_points_t *P, int64_t g, int64_t i, double *pv);

/* The programs of the parameter combinations (variants.c). */
typedef struct {
    int nprog;
    jg_program_t **prog;     /* prog[0]: the base (not owned) when some point keeps
                                every parameter; the others owned */
    unsigned char *owned;
    double *pv;              /* nprog * nparams parameter values */
    int32_t *var;            /* per (g, i) pair, g * nlist + i: its program */
    double t_compile;
} jg__batch_vars_t;

/* Compile a program for every distinct parameter combination of the points
 * (only those used by points k in the run: used[g * nlist + i] nonzero),
 * each checked to have exactly p's structure.  Errors: JG_ARG naming an
 * unknown parameter, or the parameters and the block whose structure a
 * combination changes; those of reading and compiling the model; JG_NOMEM. */
jg_status_t jg__batch_vars_build(const jg_program_t *p, const jg_batch_points_t *P,
                                 const jg_batch_opts_t *o, const unsigned char *used,
                                 jg__batch_vars_t *V, jg_error_t *err);
void jg__batch_vars_free(jg__batch_vars_t *V);
/* The first difference in structure between p and q as a message into msg
 * ("block 'X': ..."), returning 1; 0 when they have the same structure. */
int jg__batch_structure_diff(const jg_program_t *p, const jg_program_t *q, char *msg, size_t n);

/* Points handed out while the run goes (the MPI ranks' shares, on request)
 * instead of fixed by begin, end, nranks and rank.  take appends up to max
 * point indices, increasing and after every point given before, to ks[have ..]
 * (ks[0 .. have) are the points given so far, in order) and returns how many;
 * 0 none yet (only when wait is 0: with wait nonzero it waits for some); -1
 * none will come; -2 failed (err set).  It is called from the delivering
 * thread only (the one that calls the sink), when fewer than `ahead` points
 * are given and not yet delivered, and when none is left. */
typedef struct {
    int64_t (*take)(void *ctx, int64_t *ks, int64_t have, int64_t max, int wait, jg_error_t *err);
    void *ctx;
    int64_t ahead;
} jg__batch_feed_t;

/* jg_batch_run with the points from feed (NULL: jg_batch_run).  Every grid
 * combination in [begin, end) is compiled, since any point may come. */
jg_status_t jg__batch_run_fed(const jg_program_t *p, const jg_batch_points_t *P, const jg_batch_opts_t *o,
                              const jg__batch_feed_t *feed, jg_batch_sink_fn sink, void *ctx,
                              jg_batch_stats_t *stats, jg_error_t *err);

#endif
