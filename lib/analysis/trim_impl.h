/* Private structure of jg_analysis_trim (lib/analysis): the variables, the
 * specification and the equations shared by the trim files. */
#ifndef JG_TRIM_IMPL_H
#define JG_TRIM_IMPL_H
#include "jacgraph/analysis.h"
#include "jacgraph/linearize.h"
#include "../linearize/lin_internal.h"
#include "../compile/program_impl.h"

/* A name a specification may use for several elements at once: a block with
 * states, a root Inport, an output point. */
typedef struct {
    const char *name;
    int64_t first, n;          /* elements first .. first + n - 1 of its kind */
} jg__trim_group_t;

/* Equation kinds: the rows of the residual. */
enum { JG__TRIM_EQ_DX = 0, JG__TRIM_EQ_DD, JG__TRIM_EQ_Y, JG__TRIM_EQ_YBOUND };

typedef struct {
    int kind;
    int64_t idx;               /* continuous state, discrete state or output element */
    char *name;
} jg__trim_eq_t;

/* The specification of every variable and output element; variables are
 * laid out [x (nx) | xd (nd) | u (nu)]. */
typedef struct {
    double *val, *lo, *hi;     /* nv: value (guess or known), bounds */
    unsigned char *known, *steady;   /* nv (steady: states only) */
    double *yval, *ylo, *yhi;  /* ny */
    unsigned char *yknown;
} jg__trim_spec_t;

struct jg_analysis_trim {
    const jg_program_t *p;
    jg_lin_t *l;
    jg_eval_work_t *w;         /* the linearizer's work: residuals and Jacobians agree */
    const jg_iospec_t *io;
    double tol;
    int max_iter;
    int64_t nx, nd, nu, ny, nv;
    int64_t *d_at;             /* per discrete state taking part: its index in the work's xd */
    int64_t *d_var;            /* per discrete state of the program (p->nd): its index among
                                  those taking part, -1 held */
    unsigned char *d_fd;       /* per discrete state taking part: JG__TRIM_FD_* */
    char *fd_types;            /* the block types differenced ("A, B"), NULL none */
    const char **vname;        /* per variable; name[kind] points into it or at yname */
    const char **yname;
    const char **name[4];      /* element names per kind (jg_analysis_trim_kind_t) */
    char **owned_names;        /* the ones built here (discrete states, inputs) */
    int64_t nowned;
    int ngroup[3];             /* per specification section: states, inputs, outputs */
    jg__trim_group_t *group[3];   /* first: a variable index (states, inputs), an output element */
    jg__trim_spec_t spec;
    double *v;                 /* the point: variables (nv) */
    double *y;                 /* output elements at the point */
    /* the last run */
    int64_t neq;
    jg__trim_eq_t *eq;
    double *res;
    jg_analysis_trim_info_t info;
    /* scratch for evaluations */
    double *dx, *xd_save, *x_save;
};

/* How the Jacobian treats a discrete state taking part: analytic (its
 * type's djacobian), or a forward difference of its column because the type
 * has none, and then also of its update rows in every column when the block
 * has inputs (its update depends on the other variables). */
enum { JG__TRIM_FD_NONE = 0, JG__TRIM_FD_COLUMN, JG__TRIM_FD_ROWS };

/* Problem data of one run (trim_solve.c), read by the Jacobian. */
typedef struct {
    jg_analysis_trim_t *t;
    int64_t m, n;              /* equations, unknowns */
    int64_t *unk;              /* per unknown: its variable */
    int64_t *col;              /* per variable: its unknown, -1 when known */
    int64_t *rowx, *rowy;      /* per continuous state / output element: its equation, -1 */
    int64_t *rowd;             /* per discrete state taking part: its equation, -1 */
    double *J;                 /* m x n, column-major */
    double *rp;                /* residuals at a perturbed point */
    double *vp;
} jg__trim_prob_t;

/* J at v, where the work is and the residuals are r (trim_jac.c): the graph
 * method's A, B, C, D, the blocks' analytic update Jacobians with the signal
 * connections for what involves discrete states, forward differences only for
 * the discrete states of types without djacobian (JG__TRIM_FD_*).  Counts
 * t->info.fevals and fd_columns; leaves the work at v.  Errors: those of
 * jg_lin_run and evaluation, JG_SINGULAR_LOOP, JG_NOMEM. */
jg_status_t jg__trim_jacobian(jg__trim_prob_t *P, double *v, const double *r, jg_error_t *err);

/* Allocate a specification for t's sizes (defaults unset); 0 ok, -1 no memory. */
int jg__trim_spec_alloc(const jg_analysis_trim_t *t, jg__trim_spec_t *s);
void jg__trim_spec_free(jg__trim_spec_t *s);
/* The default specification (see analysis.h) with_spec 0, or operspec's
 * defaults for a file (1), with values from the current point. */
void jg__trim_spec_defaults(const jg_analysis_trim_t *t, jg__trim_spec_t *s, int with_spec);

/* Put the variables v[nv] into the work, evaluate, and fill the outputs t->y
 * and, when res is not NULL, the residuals of t's equations.  Errors: those
 * of evaluation (the work is left at v). */
jg_status_t jg__trim_eval(jg_analysis_trim_t *t, const double *v, double *res, jg_error_t *err);

#endif
