/* Private structure of jg_work (lib/eval), shared with graph/ and linearize/. */
#ifndef JG_EVAL_IMPL_H
#define JG_EVAL_IMPL_H
#include "jacgraph/eval.h"
#include "../compile/program_impl.h"

/* How block input elements read signals: src[k] is the signal element (or -1),
 * plus injected perturbations w[inj_idx[j]] for j in inj_ptr[k]..inj_ptr[k+1]
 * (linearization input points).  The program's u_src is the default. */
typedef struct jg_conn {
    const int64_t *src;
    const int64_t *inj_ptr;   /* NULL: no injections */
    const int64_t *inj_idx;
    const double *w;
} jg_conn_t;

struct jg_work {
    const jg_program_t *p;
    double t;
    double *x, *ext, *y, *u;
    int64_t next;
    int64_t *ext_off;         /* per root inport */
    double **uptr, **yptr;    /* per global port */
    cs_dl *jac;               /* per part, values owned here, pattern shared */
    double *jacx;             /* the values of every part, one array */
    cs_dl **jacp;             /* pointers into jac */
    int64_t *part_base;       /* per block: first part index */
    jg_conn_t conn;
    int64_t *loop_pos;        /* per signal: place in the loop being solved, -1 */
    int32_t *regather, nregather;   /* blocks with an input without feedthrough */
    /* hybrid (lib/sim drives these; linearization keeps the defaults) */
    double *xd;               /* discrete states (p->nd) */
    unsigned char *rate_hit;  /* per discrete rate: 1 when its blocks execute (default all 1) */
    int sim, major, first;    /* copied into every jg_eval */
    /* blocks (sorted order) with states / update() / zero crossings */
    int32_t *with_x, nwith_x, *with_upd, nwith_upd, *with_zc, nwith_zc;
    /* the evaluation plan (eval.c), built by the first jg_work_outputs with the
     * program's own connection and used whenever that connection is set: the
     * blocks' contexts built once, runs of JG_BT_PURE_LINEAR blocks as sparse
     * rows over y.  NULL until then. */
    struct jg_plan *plan;
    int planned;              /* the last jg_work_outputs ran the plan: u is stale for
                                 fused blocks and for ports the plan reads from y in
                                 place (jg_work_jacobians gathers them; other code
                                 reading u directly must too) */
};

/* update() of the blocks due now, in sorted order: continuous-time blocks
 * always, discrete ones whose rate hits; init = 1: the initialisation call at
 * t0 (every block with update).  fired: per zero-crossing signal of the
 * program +1/-1/0, or NULL.  x is the continuous state vector to modify
 * (resets). */
jg_status_t jg__work_update(jg_work_t *w, int init, const signed char *fired, jg_error_t *err);
/* The zero-crossing signals (p->nzc) after jg_work_outputs at the same point. */
jg_status_t jg__work_zc(jg_work_t *w, double *z, jg_error_t *err);

void jg__work_set_conn(jg_work_t *w, const jg_conn_t *conn);
/* Gather the inputs of real block b from the signals. */
void jg__work_gather(jg_work_t *w, int32_t b);
/* Block b's Jacobian parts (values of the last jg_work_jacobians). */
static inline cs_dl *const *jg__work_parts(const jg_work_t *w, int32_t b)
{
    return w->jacp + w->part_base[b];
}

#endif
