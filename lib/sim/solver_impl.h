/* Private structures of jg_solver (lib/sim): Butcher tableaus and the solver object. */
#ifndef JG_SOLVER_IMPL_H
#define JG_SOLVER_IMPL_H
#include "jacgraph/solver.h"

#define JG__RK_MAX_STAGES 7
#define JG__RK_MAX_DENSE 4

/* An explicit Runge-Kutta method.  The dense output on a step of size h from
 * x0 is x0 + h sum_i b_i(theta) k_i with b_i(theta) = sum_p d[i*ndense + p]
 * theta^(p+1), so b_i(1) = b_i. */
typedef struct jg_rk_tableau {
    int stages;         /* s <= JG__RK_MAX_STAGES */
    int order;          /* of the propagated solution (weights b) */
    int err_order;      /* of the embedded solution b - e; 0: no estimate */
    int dense_order;    /* of the continuous extension */
    int fsal;           /* stage s is f(t + h, xnew): the next step's first */
    int ndense;         /* number of dense coefficients per stage */
    const double *c;    /* [s] nodes */
    const double *a;    /* [s*s] row-major, strictly lower triangular */
    const double *b;    /* [s] weights */
    const double *e;    /* [s] b - bhat, NULL without an estimate */
    const double *d;    /* [s*ndense] dense output coefficients */
} jg_rk_tableau_t;

extern const jg_rk_tableau_t jg__rk_discrete, jg__rk_euler, jg__rk_heun, jg__rk_rk4;  /* rk_fixed.c */
extern const jg_rk_tableau_t jg__rk_bs23, jg__rk_dp54;                            /* rk_adaptive.c */

/* An implicit method (issue 5): its own step and dense output over the
 * common object.  step() advances s->t and s->x to no more than lim and sets
 * s->tprev / s->xprev / s->hlast for interpolate(); the counters are
 * s->stats.  init() runs at jg_solver_init and reset() at jg_solver_reset,
 * after the common restart (s->t, s->x set). */
typedef struct jg__solver_ops {
    jg_status_t (*create)(jg_solver_t *s, jg_error_t *err);   /* s->impl */
    void (*free)(jg_solver_t *s);
    jg_status_t (*init)(jg_solver_t *s, jg_error_t *err);
    jg_status_t (*step)(jg_solver_t *s, double lim, jg_error_t *err);
    jg_status_t (*interpolate)(const jg_solver_t *s, double tq, double *xq);
    jg_status_t (*reset)(jg_solver_t *s, jg_error_t *err);
    /* optional: take s->proj / s->proj_user (jg_solver_set_projection) */
    jg_status_t (*set_projection)(jg_solver_t *s, jg_error_t *err);
} jg__solver_ops_t;

extern const jg__solver_ops_t jg__ode23s_ops, jg__lie_ops, jg__ode15s_ops;

struct jg_solver {
    const char *name;
    const jg__solver_ops_t *ops;   /* implicit methods; NULL: Runge-Kutta (tab) */
    void *impl;                    /* the implicit method's private state */
    /* solver Jacobian (jg_solver_set_jacobian): callback, its pattern (owned
     * copy; NULL = dense), the sparsing mask (owned, per pattern entry) */
    jg_jac_fn jac;
    void *jac_user;
    jg_proj_fn proj;               /* projection inside the step (ops->set_projection) */
    void *proj_user;
    cs_dl *jpat;
    unsigned char *jkeep;
    const jg_rk_tableau_t *tab;
    int fixed;
    int64_t n;
    jg_rhs_fn f;
    void *user;
    jg_solver_opts_t opts;      /* validated; zeros where defaults apply */
    double rtol, atol, hmax;    /* effective values */
    double t0, tstop, t;
    double tprev, hlast;        /* the last step is [tprev, tprev + hlast]; hlast 0: none */
    double h;                   /* variable step: next step to try, 0 = estimate it */
    double errold;              /* variable step: error norm of the last accepted step, 0: none */
    long long grid;             /* fixed step: index of the last grid point reached */
    int have_k0;                /* k[0] = f(t, x) */
    int fsal_pending;           /* k[s-1] = f(t, x), to become k[0] */
    double *x, *xprev, *xnew, *xs;
    double *k[JG__RK_MAX_STAGES];
    double *mem;
    jg_solver_stats_t stats;
};

static inline int jg__rk_call(jg_solver_t *s, double t, const double *x, double *dx)
{
    s->stats.fevals++;
    return s->f(t, x, dx, s->user);
}

/* solver.c */
/* Make k[0] = f(t, x) (FSAL swap or one evaluation); drops the last step's dense output. */
jg_status_t jg__rk_first_stage(jg_solver_t *s, jg_error_t *err);
/* Stages 2..s and xnew for a step of h ending at tnew; k[0] must hold f(t, x).
 * Returns f's nonzero code and its time in *tfail, else 0. */
int jg__rk_attempt(jg_solver_t *s, double h, double tnew, double *tfail);
/* Make xnew at tnew the current point. */
void jg__rk_accept(jg_solver_t *s, double tnew, double h);
/* f returned code < 0 at time t: f's own error when it set one, else JG_NUMERIC. */
jg_status_t jg__rk_rhs_error(const jg_solver_t *s, double t, int code, jg_error_t *err);

/* rk_fixed.c, rk_adaptive.c: one major step ending at no more than lim > t. */
jg_status_t jg__rk_step_fixed(jg_solver_t *s, double lim, jg_error_t *err);
jg_status_t jg__rk_step_adaptive(jg_solver_t *s, double lim, jg_error_t *err);
/* Snap tolerance of the fixed-step grid. */
double jg__rk_grid_tol(const jg_solver_t *s, double t);

#endif
