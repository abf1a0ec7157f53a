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
 * CXSparse cs_dl in compressed-column form.  At many operating points,
 * jg_lft_analyze once and jg_lft_refactor per point do the same with the
 * ordering, pivot sequence and reaches fixed: only the arithmetic is repeated,
 * and the result is still the bits jg_lft gives.
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
    int64_t lu_fma;     /* multiplications (divisions included) of that LU, counted from
                           its factors: sum over pivots J of (|L(:,J)| - 1) |U(J,:)| */
    double rcond;       /* min over U's columns of |pivot| / max |entry| of that column of K (1 when n == 0) */
    double cond;        /* estimated condition of I - P22 M loop by loop: the largest over the
                           diagonal blocks of its block triangular form (the algebraic loops)
                           of the 1-norm condition after power-of-two equilibration (Hager's
                           estimate); max(1, |d|) / |1 - d| for a signal with diagonal 1 - d
                           alone.  1 when n == 0, NaN when it could not be computed */
    int64_t cond_row;   /* a row of I - P22 M in the worst block, -1 when cond == 1 */
    int fallback;       /* jg_lft_refactor: 0 replayed on the recorded pivots; factorized
                           afresh because 1 a recorded pivot was no longer partial
                           pivoting's choice, 2 an operand's pattern differed */
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

/* Many operating points on fixed patterns: the symbolic work of jg_lft once,
 * the arithmetic per point.
 *
 * jg_lft_analyze records, at the operands' values, everything of jg_lft that
 * depends on the patterns only or on the pivot choice: the operands' patterns,
 * the patterns of P12 M, P22 M and K = I - P22 M with the maps that fill them,
 * K's AMD ordering, the pivot sequence of its LU (partial pivoting), the
 * topological order of every column's reach in that LU, the reach of every
 * column of P21 through L and U, and the (sorted) pattern of each column of F.
 * *sym is new (jg_lft_sym_free) and read-only afterwards: threads share it.
 * Errors: JG_SINGULAR_LOOP when K is singular at these values (analyze at
 * another point, or call jg_lft), JG_ARG on mismatched sizes or a triplet
 * operand, JG_INTERNAL when the replay would not reproduce CSparse's LU (a
 * bug), JG_NOMEM.  Cost: one jg_lft plus the reaches: memory O(nnz(L + U) +
 * the total reach of the columns of K and P21 + nnz of F's pattern). */
typedef struct jg_lft_sym jg_lft_sym_t;
/* Per-thread numeric work of one analysis: values of K, L, U, F and dense
 * scratch, allocated once by jg_lft_num_create (jg_lft_num_free). */
typedef struct jg_lft_num jg_lft_num_t;
JG_API jg_status_t jg_lft_analyze(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21,
                                  const cs_dl *P22, const cs_dl *M, jg_lft_sym_t **sym,
                                  jg_error_t *err);
JG_API void jg_lft_sym_free(jg_lft_sym_t *sym);
/* 1 when the operands have sym's patterns (jg_lft_refactor replays them), else 0.
 * Cost: O(nnz of the operands). */
JG_API int jg_lft_sym_matches(const jg_lft_sym_t *sym, const cs_dl *P11, const cs_dl *P12,
                              const cs_dl *P21, const cs_dl *P22, const cs_dl *M);
/* Bytes held by an analysis (0 for NULL). */
JG_API size_t jg_lft_sym_bytes(const jg_lft_sym_t *sym);
/* *num is new, for sym (which must outlive it).  Errors: JG_ARG (sym NULL),
 * JG_NOMEM.  Cost: O(nnz(K + L + U) + nnz of F's pattern + rows of F). */
JG_API jg_status_t jg_lft_num_create(const jg_lft_sym_t *sym, jg_lft_num_t **num, jg_error_t *err);
JG_API void jg_lft_num_free(jg_lft_num_t *num);
/* jg_lft at new values of operands with sym's patterns: *F is the same matrix,
 * bit for bit, that jg_lft gives at these values.  The LU is replayed on the
 * recorded pivots while each is the one partial pivoting would choose here;
 * when one is not (it became small against its column: info->fallback 1) or
 * an operand's pattern differs from the analysed one (info->fallback 2), this
 * point is factorized afresh by jg_lft.  *F belongs to num and stays valid until the
 * next call on num or jg_lft_num_free (never free it).  Errors: those of
 * jg_lft (same messages), JG_ARG when num belongs to another analysis.
 * Allocates nothing except in the fallback and the condition estimate (info
 * non-NULL).  Cost: the multiply-adds of the LU and of the solves over their
 * recorded reaches plus O(nnz of the operands and of F's pattern); no
 * ordering, search or sort. */
JG_API jg_status_t jg_lft_refactor(const jg_lft_sym_t *sym, jg_lft_num_t *num, const cs_dl *P11,
                                   const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                                   const cs_dl *M, const cs_dl **F, jg_lft_info_t *info,
                                   jg_error_t *err);

/* Bytes held by a compressed-column cs_dl (struct, pointers, indices, values). */
JG_API size_t jg_lft_csc_bytes(const cs_dl *A);

#ifdef __cplusplus
}
#endif
#endif
