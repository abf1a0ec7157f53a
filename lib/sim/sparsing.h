/* Sparsing of the solver Jacobian for the linearly implicit Euler method
 * ("Sparsing of Jacobians"; lib/sim/sparsing.c). */
#ifndef JG_SIM_SPARSING_H
#define JG_SIM_SPARSING_H
#include <cs.h>
#include "jacgraph/status.h"

/* Choose entries of J (n x n compressed-column) to drop for the step h:
 * keep[q] = 0 for a dropped entry q, 1 otherwise (nnz entries, caller's
 * array).  Off-diagonal entries are dropped in increasing order of their
 * estimated eigenvalue change h |d lambda_k| while, for every eigenvalue k,
 * the sum over the dropped entries stays <= tol (zeros of the pattern are
 * always dropped).  *ndrop: how many nonzero entries were dropped; *worst:
 * the largest such sum.  Errors: JG_ARG for more than 4000 states (dense
 * eigenvectors), JG_NUMERIC when dgeev fails, JG_NOMEM.  Cost: O(n^3 + nnz n). */
jg_status_t jg__sparsing_select(const cs_dl *J, double h, double tol, unsigned char *keep,
                                int64_t *ndrop, double *worst, jg_error_t *err);

#endif
