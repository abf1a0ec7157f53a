/* Private structures of jg_solver (lib/sim): the registry's ops tables, Butcher tableaus, the
 * step-size controller and the solver object. */
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

/* The rules of a step-size controller (stepctl.c applies them; see there and
 * jacgraph/solver.h).  One accepted or rejected step of size hh with error
 * norm en (the RMS of jg__stepctl_norm, accepted when <= 1) gives the next
 * step to try as hh times a factor safety en^(-1/k) -- with pi set
 * safety en^(-alpha) en_prev^beta once a previous norm is known, beta = 0.2/k,
 * alpha = 1/k - 0.75 beta -- bounded by fac_min, fac_max after an accepted
 * step and below by rej_min after a rejected one. */
typedef struct jg__stepctl {
    int k;               /* order of the error estimate + 1 */
    int pi;              /* PI controller with the last accepted norm, else elementary */
    double safety;       /* the error norm aimed at, as safety^k */
    double fac_min, fac_max;   /* bounds of the factor after an accepted step */
    double rej_min;      /* the smallest factor after a failed error test */
    int halve_again;     /* a second failed test in one step halves h (MATLAB's ode23s) */
    int hold_after_fail; /* accepted after a rejection: propose the same step, else
                            at most the same (the factor capped at 1) */
} jg__stepctl_t;

/* One method: an entry of the registry (JG__SOLVER_LIST, solver.c).  Every
 * solver is one of these, explicit or implicit.  step() advances s->t and
 * s->x to no more than lim > s->t and sets s->tprev / s->xprev / s->hlast for
 * interpolate(), which is called only for tprev < tq < t (the ends are
 * copies); the counters are s->stats.  The common object is set up before
 * create() (s->x, s->xprev, s->xnew, s->xs and, for a tableau, its stage
 * vectors s->k) and init() / reset() run after the common restart (s->t, s->x
 * set).  REQUIRED: name, step, interpolate; the rest is OPTIONAL (NULL: nothing
 * to do). */
typedef struct jg__solver_ops {
    const char *name;
    int fixed;                   /* steps on the grid t0 + k fixed_step (jg__solver_grid_next) */
    int time_only;               /* no continuous states and no f: time advances only */
    const jg_rk_tableau_t *tab;  /* an explicit Runge-Kutta method's tableau (s->k, s->tab) */
    /* the step-size controller, for a method that proposes its next step in
     * s->h by it (the projection's retry follows it too); NULL otherwise */
    const jg__stepctl_t *ctl;
    jg_status_t (*step)(jg_solver_t *s, double lim, jg_error_t *err);
    jg_status_t (*interpolate)(const jg_solver_t *s, double tq, double *xq);
    jg_status_t (*create)(jg_solver_t *s, jg_error_t *err);   /* s->impl */
    void (*free)(jg_solver_t *s);
    jg_status_t (*init)(jg_solver_t *s, jg_error_t *err);
    jg_status_t (*reset)(jg_solver_t *s, jg_error_t *err);
    /* take s->proj / s->proj_user (jg_solver_set_projection) */
    jg_status_t (*set_projection)(jg_solver_t *s, jg_error_t *err);
} jg__solver_ops_t;

/* The registry, in the order of jg_solver_names(): adding a solver is one
 * file defining jg__NAME_ops, one line here, one in lib/meson.build, and its
 * constant in jg_solver_method_t (jacgraph/solver.h) with its name in
 * solver.c's method_names (test_solver checks that every constant creates a
 * solver of that name). */
#define JG__SOLVER_LIST(X)                                                                             \
    X(ode1)     /* rk_fixed.c */                                                                       \
    X(ode2)                                                                                            \
    X(ode3)                                                                                            \
    X(ode4)                                                                                            \
    X(ode5)                                                                                            \
    X(ode23)    /* rk_adaptive.c */                                                                    \
    X(ode45)                                                                                           \
    X(discrete) /* rk_fixed.c */                                                                       \
    X(ode23s)   /* rosenbrock.c */                                                                     \
    X(lie)      /* linimplicit.c */                                                                    \
    X(ode15s)   /* cvode.c */
#define JG__SOLVER_DECLARE(id) extern const jg__solver_ops_t jg__##id##_ops;
JG__SOLVER_LIST(JG__SOLVER_DECLARE)
#undef JG__SOLVER_DECLARE

struct jg_solver {
    const char *name;
    jg_solver_method_t method;
    const jg__solver_ops_t *ops;
    void *impl;                    /* the method's private state (ops->create) */
    /* solver Jacobian (jg_solver_set_jacobian): callback, its pattern (owned
     * copy; NULL = dense), the sparsing mask (owned, per pattern entry) */
    jg_jac_fn jac;
    void *jac_user;
    jg_proj_fn proj;               /* projection inside the step (ops->set_projection) */
    void *proj_user;
    cs_dl *jpat;
    unsigned char *jkeep;
    const jg_rk_tableau_t *tab;    /* ops->tab */
    int fixed;                     /* ops->fixed */
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

/* solver.c: what every method shares */
/* f returned code < 0 at time t: f's own error when it set one, else JG_NUMERIC. */
jg_status_t jg__rk_rhs_error(const jg_solver_t *s, double t, int code, jg_error_t *err);
/* Make s->xnew at tnew the current point after a step of h (s->xprev, s->x
 * and s->xnew rotate) and count it. */
void jg__solver_accept(jg_solver_t *s, double tnew, double h);
/* Fixed step: the end of the next step from s->t towards lim > s->t, the next
 * grid point t0 + k fixed_step or lim when that comes first; *grid is the
 * index of the grid point reached (s->grid, or one more), to store on success. */
double jg__solver_grid_next(const jg_solver_t *s, double lim, long long *grid);
/* Snap tolerance of the fixed-step grid. */
double jg__rk_grid_tol(const jg_solver_t *s, double t);

/* rk_stages.c: the Runge-Kutta stage loop and dense output */
/* Make k[0] = f(t, x) (FSAL swap or one evaluation); drops the last step's dense output. */
jg_status_t jg__rk_first_stage(jg_solver_t *s, jg_error_t *err);
/* Stages 2..s and xnew for a step of h ending at tnew; k[0] must hold f(t, x).
 * Returns f's nonzero code and its time in *tfail, else 0. */
int jg__rk_attempt(jg_solver_t *s, double h, double tnew, double *tfail);
/* Make xnew at tnew the current point. */
void jg__rk_accept(jg_solver_t *s, double tnew, double h);
/* The tableau's continuous extension (ops->interpolate of every tableau). */
jg_status_t jg__rk_interpolate(const jg_solver_t *s, double tq, double *xq);

/* rk_fixed.c, rk_adaptive.c: one major step ending at no more than lim > t (ops->step). */
jg_status_t jg__rk_step_fixed(jg_solver_t *s, double lim, jg_error_t *err);
jg_status_t jg__rk_step_adaptive(jg_solver_t *s, double lim, jg_error_t *err);

/* stepctl.c: the error norm and step-size control of the variable-step methods */
/* The RMS over i of v_i / (atol + rtol max(|x_i|, |y_i|)) (y may be x); 0 for n = 0.  Cost: O(n). */
double jg__stepctl_norm(const jg_solver_t *s, const double *v, const double *x, const double *y);
/* The attempt of a step h from s->t towards lim: *hh and its end *tnew, h
 * stretched by up to 10% or shortened to end at lim (*clipped: shortened).
 * Errors: JG_NUMERIC "step size too small" when h is below 16 eps |t|. */
jg_status_t jg__stepctl_attempt(const jg_solver_t *s, double h, double lim, double *hh, double *tnew,
                                int *clipped, jg_error_t *err);
/* A step of hh, attempted as the proposal h, passed its error test with norm
 * en: set s->h, the next proposal (at most hmax), and the PI memory
 * s->errold.  failed: a rejection came before it in this step. */
void jg__stepctl_accepted(const jg__stepctl_t *c, jg_solver_t *s, double en, double h, double hh, int clipped,
                          int failed);
/* A step of hh failed its error test with norm en (> 1, or NaN): the step to
 * retry with.  failed: not the first rejection in this step. */
double jg__stepctl_rejected(const jg__stepctl_t *c, double en, double hh, int failed);

#endif
