/* sparsing_impl.h -- what the sparsing measure and the automatic choice share
 * (lib/sim/sparsing_measure.c, lib/sim/sparsing_auto.c; internal). */
#ifndef JG_SIM_SPARSING_IMPL_H
#define JG_SIM_SPARSING_IMPL_H
#include "jacgraph/sparsing.h"

/* Everything about J and h that does not depend on the sparsing. Dense
 * matrices are n x n column-major. */
typedef struct {
    int64_t n;
    double h;
    double *Jd;      /* J */
    double *B0i;     /* (I - hJ)^-1 */
    double *GB;      /* [I - (I-hJ)^-1 (I+hJ)] (I-hJ)^-1, for eq. (2)'s trace */
    double *lam;     /* 2n: l_i = 1/(1 - h mu_i), re, im */
    double C1, C2;
    int64_t nslow;
    double rho0, phi0_max;
    int64_t nosc0;
} jg__sparsing_base_t;

/* Check J, h, S and fill b (zeroed first; free with jg__sparsing_base_free
 * even on failure).  Errors as jg_sparsing_measure. Cost ~ 15 n^3. */
jg_status_t jg__sparsing_base_init(jg__sparsing_base_t *b, const cs_dl *J, double h, double S,
                                   jg_error_t *err);
void jg__sparsing_base_free(jg__sparsing_base_t *b);

/* C = A B for n x n column-major matrices (C distinct from A and B). */
void jg__sparsing_matmul(int64_t n, const double *A, const double *B, double *C);

/* The dense A of J and keep (NULL: all kept) into Ad (n x n). */
void jg__sparsing_dense_a(const cs_dl *J, const unsigned char *keep, double *Ad);

/* tr E and tr(E^2) for the dense sparsing Ad; Bi (n x n) receives
 * (I - hA)^-1 and W (n x n) is scratch.  JG_NUMERIC when I - hA is singular.
 * Cost ~ 4 n^3. */
jg_status_t jg__sparsing_traces(const jg__sparsing_base_t *b, const double *Ad, double *Bi,
                                double *W, double *trE, double *trE2, jg_error_t *err);

/* Eigenvalues of M1 = I + h Bi J (Bi from jg__sparsing_traces) into lamt (2n:
 * re, im), W (n x n) scratch.  JG_NUMERIC when dgeev fails.  Cost ~ 12 n^3. */
jg_status_t jg__sparsing_eig_m1(const jg__sparsing_base_t *b, const double *Bi, double *W,
                                double *lamt, jg_error_t *err);

#endif
