/* Private structure of jg_lin (lib/linearize). */
#ifndef JG_LIN_IMPL_H
#define JG_LIN_IMPL_H
#include "jacgraph/linearize.h"
#include "jacgraph/lft.h"
#include "../graph/graph_internal.h"   /* also eval's eval_internal.h: I/O points, parts */
#include "../compile/program_impl.h"
#include "../lft/lft_internal.h"

struct jg_lin {
    const jg_program_t *p;
    jg_iospec_t *io;
    jg_eval_work_t *w;
    double t;
    double *wv;             /* input perturbations (zero at the operating point) */
    int evaluated;          /* jg__lin_eval ran: the next evaluations take the fused plan */
    const jg_lin_sys_t *names;   /* jg__lin_share_names: the results' names, not owned */
    jg_graph_t *g[4];       /* per reduction, built on first use; g[JG__LIN_STRAT]: by strat */
    jg_graph_strategy_t *strat;   /* jg_lin_run_strategy's strategy of g[JG__LIN_STRAT] */
    void (*warn)(void *ctx, const char *msg);   /* jg_lin_set_warn */
    void *warn_ctx;
    int warned;             /* the ill-conditioning notice is given once */
    jg_lin_delays_t delays; /* PADE, EXACT: the TransportDelays cut[] are cut (delays.c) */
    int pade_order;
    int threads;            /* jg_lin_opts_t.threads (>= 1; a clone's 1) */
    int64_t par_work;       /* the LFT's work from which it takes them (JG__LFT_PAR_WORK;
                               the tests lower it to thread small models) */
    int32_t overlap_min;    /* blocks from which the graph is built beside other work on
                               a second thread (JG__LIN_OVERLAP_MIN; the tests lower it) */
    jg_graph_t *pre;        /* built by jg_lin_create (prepare_graph), not yet eliminated:
                               the first ensure_graph takes it */
    double pre_secs;        /* its build's time */
    int32_t ncut, *cut;
    /* jg_lin_clone: the linearizer whose I/O points, cuts and eliminations this
     * one shares (NULL: its own); view[r]: g[r] is a view of the parent's
     * (jg__graph_share), else this one's own */
    const jg_lin_t *parent;
    unsigned char view[4];
    /* per graph slot: the LFT's analysis of its operands (jg_lft_analyze, on
     * first use; a clone starts with its parent's, lsym_own 0: read-only,
     * shared) and this linearizer's numeric work for it */
    jg_lft_sym_t *lsym[4];
    jg_lft_num_t *lnum[4];
    unsigned char lsym_own[4];
    unsigned char lmiss[4];   /* runs in a row whose recorded pivots moved (re-analysed at 3) */
    unsigned char lruns[4];   /* 1 once the slot's LFT ran (a single run makes no analysis) */
    /* analyses replaced in slots a clone may share (kept until jg_lin_free,
     * at most JG__LIN_RETIRED: then the old one stays) */
    jg_lft_sym_t *lretired[8];
    int nretired;
    /* graph slots 0..2 (never rebuilt once eliminated): the recipes that
     * assemble the LFT operands from the graph's values, made on the first
     * run (lgat_bad: they did not reproduce the extraction), and the
     * operands they fill, this linearizer's own */
    jg__lft_gather_t *lgat[3][5];
    cs_dl *lops[3][5];      /* P11, P12, P21, P22, M (NULL: none) */
    unsigned char lgat_bad[3];
    unsigned char lgat_shared[3];   /* lgat[r] is the parent's (a clone's, read-only) */
};
#define JG__LIN_RETIRED 8

/* The graph build reads only the program and the I/O points, so on more
 * than one thread it runs beside the evaluation's set-up (jg_lin_create,
 * prepare_graph) or beside a first graph run's evaluation.  Below this many
 * blocks those take less than a thread costs to start. */
#define JG__LIN_OVERLAP_MIN 20000
/* jg_lin_create with another JG__LIN_OVERLAP_MIN (the tests': 0 takes the
 * threads on every program). */
jg_status_t jg__lin_create_min(const jg_program_t *p, const jg_lin_opts_t *o, int32_t overlap_min,
                               jg_lin_t **out, jg_error_t *err);
/* "the thread did not start" (no jg_status_t has it) */
#define JG__LIN_NOT_STARTED ((jg_status_t)-1)

/* The graph slot of a strategy other than none, markowitz and full. */
#define JG__LIN_STRAT 3

/* The LFT operands: F = P11 + P12 M (I - P22 M)^-1 P21 over ext-in = [x; w]
 * and ext-out = [dx; z]. */
typedef struct {
    cs_dl *P11, *P12, *P21, *P22, *M;
} jg_lftops_t;

void jg__lftops_free(jg_lftops_t *o);
size_t jg__lftops_bytes(const jg_lftops_t *o);

/* Evaluate outputs and block Jacobians at the operating point. */
jg_status_t jg__lin_eval(jg_lin_t *l, int jacobians, jg_error_t *err);
/* Fig. 1: Ao, Bo, Co, Do and M from the block Jacobians (matrix.c). */
jg_status_t jg__lin_matrix_ops(jg_lin_t *l, jg_lftops_t *o, jg_error_t *err);
/* Central differences of the whole model: F directly, and its estimated
 * error in jg_lin_sys_diff's measure into *errest (may be NULL) (perturb.c). */
jg_status_t jg__lin_perturb(jg_lin_t *l, cs_dl **F, double *errest, jg_error_t *err);
/* Split F ((nx+nz) x (nx+nw)) into a new jg_lin_sys_t (linsys.c). */
jg_status_t jg__lin_sys_from(const jg_lin_t *l, const cs_dl *F, jg_lin_sys_t **out,
                            jg_error_t *err);
/* Numerical guards (numguard.c).  1 when every entry of F is finite. */
int jg__lin_finite(const cs_dl *F);
/* 1 when every block Jacobian value of l's work (as last evaluated) is finite. */
int jg__lin_jacobians_finite(const jg_lin_t *l);
/* JG_NUMERIC for a non-finite result, naming the blocks whose Jacobians at
 * the operating point have NaN or Inf entries (evaluating them when the
 * method did not), else `step` (what overflowed). */
jg_status_t jg__lin_nonfinite(jg_lin_t *l, const char *step, jg_error_t *err);
/* The block of row `row` of the LFT's I - P22 M: of a reduced graph g's
 * surviving vertices, or (g NULL) of the Y-space (block outputs, then the
 * input points); -1 when none. */
int32_t jg__lin_row_block(const jg_lin_t *l, const jg_graph_t *g, int64_t row);
/* The ill-conditioning notice through l->warn (once per jg_lin_t) when cond
 * exceeds JG_LIN_COND_WARN, naming block b's algebraic loop; `what` says what
 * was solved. */
void jg__lin_cond_notice(jg_lin_t *l, double cond, int32_t b, const char *what);

/* Delays (delays.c).  The TransportDelay blocks of p (with a delay; block
 * ids in *cut, malloc'd, NULL when none) into *cut and *ncut. */
jg_status_t jg__lin_delay_cuts(const jg_program_t *p, int32_t **cut, int32_t *ncut, jg_error_t *err);
/* *s is the cut system of l (l->ncut > 0): drop the cut blocks' own states,
 * then record the delays (EXACT) or close the delay channels through Pade
 * approximants of l->pade_order (PADE), replacing *s.  Errors: JG_SINGULAR_LOOP
 * when the closed delays make a singular algebraic loop, JG_NOMEM. */
jg_status_t jg__lin_delays_apply(const jg_lin_t *l, jg_lin_sys_t **s, jg_error_t *err);

/* Triplet helper: append (i, j, x) growing T; 0 ok, -1 out of memory. */
int jg__entry(cs_dl *T, int64_t i, int64_t j, double x);
/* The compressed-column form of triplet T, duplicates summed; T is freed.
 * NULL when T is NULL or out of memory. */
cs_dl *jg__compress(cs_dl *T);
/* Every real block's Jacobian parts on l's work (as last evaluated) into
 * triplets at their offsets: a into T[0] (x by x), b into T[1] (x by u), c
 * into T[2] (y by x), d into T[3] (y by u); skip_zeros: not the entries
 * that are 0.  0, -1 out of memory (matrix.c). */
int jg__lin_place_parts(jg_lin_t *l, cs_dl *const T[4], int skip_zeros);

#endif
