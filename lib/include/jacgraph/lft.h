/* jacgraph/lft.h -- the linear-fractional transformation on sparse matrices
 * (Han, Mosterman & Zhang, "A Graph Algorithm for Linearizing Simulink
 * Models", Section 2):
 *
 *     F(P11, P12, P21, P22, M) = P11 + P12 M (I - P22 M)^-1 P21
 *
 * With P = [Ao Bo; Co Do] and the connection matrix M this is the model
 * Jacobian of Fig. 1; with a reduced Jacobian graph M is the identity (Fig. 4).
 * I - P22 M is factorized once with CXSparse's sparse LU (AMD ordering,
 * partial pivoting); every column of P21 is then solved as a sparse right-hand
 * side (cs_dl_spsolve), so its cost is the set of signals it reaches, not the
 * order of the matrix.  KLU, tried first, has no sparse right-hand side: a
 * 100,000-block model spent a second in dense solves.  All matrices are
 * CXSparse cs_dl in compressed-column form.
 */
#ifndef JACGRAPH_LFT_H
#define JACGRAPH_LFT_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include <suitesparse/cs.h>   /* Debian, SuiteSparse >= 5: no -I needed */
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_lft_info {
    int64_t n;          /* order of I - P22 M */
    int64_t nnz_lu;     /* nonzeros of its LU factors */
    double rcond;       /* min over U's columns of |pivot| / max |entry| of that column of K (1 when n == 0) */
    double cond;        /* estimated condition of I - P22 M loop by loop: the largest over the
                           diagonal blocks of its block triangular form (the algebraic loops)
                           of the 1-norm condition after power-of-two equilibration (Hager's
                           estimate); max(1, |d|) / |1 - d| for a signal with diagonal 1 - d
                           alone.  1 when n == 0, NaN when it could not be computed */
    int64_t cond_row;   /* a row of I - P22 M in the worst block, -1 when cond == 1 */
} jg_lft_info_t;

/* *F is a new matrix (cs_dl_spfree).  M == NULL means the identity.  Exact
 * zeros of the result are dropped.  Errors: JG_SINGULAR_LOOP when I - P22 M is
 * singular or a pivot is below 1e-14 times the largest entry of its column
 * (the message is generic: callers
 * add which loop), JG_NUMERIC when the factors overflow (NaN or Inf), JG_ARG
 * on mismatched sizes, JG_NOMEM.  Cost: one sparse LU of
 * I - P22 M plus, per nonempty column of P21, two sparse triangular solves over
 * its reach and the product of the result with P12 M. */
JG_API jg_status_t jg_lft(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                          const cs_dl *M, cs_dl **F, jg_lft_info_t *info, jg_error_t *err);

/* Bytes held by a compressed-column cs_dl (struct, pointers, indices, values). */
JG_API size_t jg_lft_csc_bytes(const cs_dl *A);

#ifdef __cplusplus
}
#endif
#endif
