/* Private structure of jg_lin (lib/linearize). */
#ifndef JG_LIN_IMPL_H
#define JG_LIN_IMPL_H
#include "jacgraph/linearize.h"
#include "jacgraph/lft.h"
#include "../graph/graph_internal.h"   /* also eval's eval_internal.h: I/O points, parts */
#include "../compile/program_impl.h"

struct jg_lin {
    const jg_program_t *p;
    jg_iospec_t *io;
    jg_eval_work_t *w;
    double t;
    double *wv;             /* input perturbations (zero at the operating point) */
    jg_graph_t *g[3];       /* per reduction, built on first use */
};

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
/* Central differences of the whole model: F directly (perturb.c). */
jg_status_t jg__lin_perturb(jg_lin_t *l, cs_dl **F, jg_error_t *err);
/* Split F ((nx+nz) x (nx+nw)) into a new jg_lin_sys_t (linsys.c). */
jg_status_t jg__lin_sys_from(const jg_lin_t *l, const cs_dl *F, jg_lin_sys_t **out,
                            jg_error_t *err);
/* Triplet helper: append (i, j, x) growing T; 0 ok, -1 out of memory. */
int jg__entry(cs_dl *T, int64_t i, int64_t j, double x);

#endif
