/* Private structure of jg_eval_work_t (lib/eval) and the calls between eval's files
 * (eval.c: block calls; algloop.c: the algebraic loop solver; plan.c: the
 * fused evaluation plan; iopoints.c).  Later modules include eval_internal.h
 * instead, whose accessors reach the fields they need (the hybrid ones too). */
#ifndef JG_EVAL_IMPL_H
#define JG_EVAL_IMPL_H
#include "eval_internal.h"
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

struct jg_eval_work {
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
    /* the evaluation plan (plan.c), built by the first jg_eval_outputs with the
     * program's own connection (or with any, plan_any) and used whenever that
     * connection is set: the blocks' contexts built once, runs of
     * JG_BT_PURE_LINEAR blocks as sparse rows over y.  NULL until then; built
     * again when the connection changed. */
    struct jg_plan *plan;
    int plan_any;             /* the plan applies to any connection (jg__eval_plan_any) */
    /* jg__eval_const_jacobians: the blocks whose parts jg_eval_jacobians
     * computes (sorted order), built on its second call; the others' parts
     * are constant and kept from the first.  NULL: every block each time.
     * const_jac: 0 off, 1 on, 2 every part computed once, 3 jac_blk built. */
    int const_jac;
    int32_t *jac_blk, njac_blk;
    int planned;              /* the last jg_eval_outputs ran the plan: u is stale for
                                 fused blocks and for ports the plan reads from y in
                                 place (jg_eval_jacobians gathers them -- with jac_blk,
                                 all but the constant-Jacobian blocks', which only
                                 their own outputs() and jacobian() read; other code
                                 reading u directly must too) */
};

void jg__eval_set_conn(jg_eval_work_t *w, const jg_conn_t *conn);
/* Block B's Jacobian parts are constant (jg__eval_const_jacobians keeps them
 * from the first jg_eval_jacobians): a JG_BT_PURE_LINEAR type outside the
 * discrete rates (whose parts a caller may zero while the block holds). */
static inline int jg__eval_jac_constant(const jg_block_t *B)
{
    return (B->type->flags & JG_BT_PURE_LINEAR) && B->rate < 0;
}
/* Gather the inputs of real block b from the signals. */
void jg__eval_gather(jg_eval_work_t *w, int32_t b);

/* A block's evaluation context at the work's current point (eval.c's
 * block-by-block path; the plan builds each context once). */
static inline void jg__eval_make_eval(const jg_eval_work_t *w, int32_t b, jg_eval_t *e, jg_error_t *err)
{
    const jg_program_t *p = w->p;
    const jg_block_t *B = &p->blocks[b];
    e->t = w->t;
    e->x = w->x + B->x_off;
    e->u = (const double *const *)(w->uptr + p->in_base[b]);
    e->y = w->yptr + p->out_base[b];
    e->dx = NULL;
    e->jac = w->jacp + w->part_base[b];
    e->ext = NULL;
    if (B->is_root_port && (B->type->flags & JG_BT_PORT_IN))
        e->ext = w->ext + w->ext_off[B->port - 1];
    e->err = err;
    e->xd = w->xd + jg_block_d_off(B);
    e->xdw = NULL;
    e->xw = NULL;
    e->zcv = NULL;
    e->zc_fired = NULL;
    e->sim = w->sim;
    e->major = w->major;
    e->first = w->first;
    e->init = 0;
}

/* The status of a block function that failed: the one it set in err, else
 * JG_NUMERIC. */
static inline jg_status_t jg__eval_fail(const jg_error_t *err)
{
    return err && err->status ? err->status : JG_NUMERIC;
}

/* Block B's update function on its context e, given its writable states
 * (xdw discrete, xw continuous), the initial-update flag and the fired
 * zero crossings (NULL: none); those fields are cleared again after, as
 * the context is reused.  JG_OK or jg__eval_fail's status. */
static inline jg_status_t jg__eval_call_update(int (*update)(const jg_block_t *, jg_eval_t *),
                                               const jg_block_t *B, jg_eval_t *e, double *xdw,
                                               double *xw, int init,
                                               const signed char *zc_fired, jg_error_t *err)
{
    e->xdw = xdw;
    e->xw = xw;
    e->init = init;
    e->zc_fired = zc_fired;
    int r = update(B, e);
    e->xdw = NULL;
    e->xw = NULL;
    e->init = 0;
    e->zc_fired = NULL;
    return r ? jg__eval_fail(err) : JG_OK;
}

/* Solve algebraic loop l of the program on the work's signals (algloop.c):
 * Newton with the analytic loop Jacobian (dense LU or KLU: algloop_mat.c) and
 * a line search; a loop of linear blocks is factored once. */
jg_status_t jg__eval_solve_loop(jg_eval_work_t *w, int l, jg_error_t *err);

/* ---- the fused evaluation plan (plan.c) */
/* Is the work's connection the program's own (the plan applies)? */
int jg__plan_applies(const jg_eval_work_t *w);
/* jg_eval_outputs through the plan, building it on the first call. */
jg_status_t jg__plan_outputs(jg_eval_work_t *w, jg_error_t *err);
void jg__plan_free(struct jg_plan *P);
/* After a planned evaluation (w->planned): */
jg_status_t jg__plan_derivatives(jg_eval_work_t *w, double *dx, jg_error_t *err);
jg_status_t jg__plan_update(jg_eval_work_t *w, int init, const signed char *fired, jg_error_t *err);
/* Block b's context, refreshed for the current point. */
jg_eval_t *jg__plan_ctx(jg_eval_work_t *w, int32_t b, jg_error_t *err);
/* Gather the inputs the plan left stale (fused blocks, ports read in place). */
void jg__plan_gather_stale(jg_eval_work_t *w);
/* The shape of the work's plan (all 0 before it is built), for tests. */
typedef struct {
    int32_t steps, calls, fused;   /* steps; block calls and loops; fused (LIN) steps */
    int32_t segs, kernel_segs;     /* segments; of them COPY and FN rows */
    int32_t runs;                  /* segments that are runs */
    int64_t longest_run;           /* rows */
    int32_t deriv_calls;           /* derivatives() called */
    int64_t deriv_copies;          /* runs of dx = u copies */
} jg__plan_shape_t;
void jg__plan_shape(const jg_eval_work_t *w, jg__plan_shape_t *s);

#endif
