/* jacgraph/eval.h -- evaluating a compiled program: outputs in sorted order,
 * derivatives, block Jacobians.  Simulation and linearization both call these,
 * so a block's semantics live in exactly one place.
 *
 * A jg_eval_work_t holds the run-time vectors of one program: states x, external
 * inputs (root Inport values), signals y (every real block output element) and
 * block inputs u, plus each block's Jacobian values.  Create one per thread.
 */
#ifndef JACGRAPH_EVAL_H
#define JACGRAPH_EVAL_H
#include "jacgraph/export.h"
#include <stdint.h>
#include "jacgraph/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_eval_work jg_eval_work_t;

/* Errors: JG_NOMEM.  The work refers to p, which must outlive it.  x starts at
 * the initial states, inputs at zero.  Cost: O(states + signal elements). */
JG_API jg_status_t jg_eval_create(const jg_program_t *p, jg_eval_work_t **out, jg_error_t *err);
JG_API void jg_eval_free(jg_eval_work_t *w);

JG_API double *jg_eval_states(jg_eval_work_t *w);          /* nstates values, writable */
JG_API double *jg_eval_inputs(jg_eval_work_t *w);          /* root Inport values, port order, writable */
JG_API int64_t jg_eval_ninput_elems(const jg_eval_work_t *w);
JG_API int64_t jg_eval_input_offset(const jg_eval_work_t *w, int k);  /* root Inport k's first element */
JG_API const double *jg_eval_signals(const jg_eval_work_t *w);         /* real block outputs */

/* Evaluate every real block's outputs at time t in sorted order.  Algebraic
 * loops are solved by Newton's method with the analytic loop Jacobian, a line
 * search and Broyden updates, starting from the loop's previous values (exact
 * in one step for loops of linear blocks); a loop that does not converge is
 * JG_NONLINEAR_LOOP, a singular one JG_SINGULAR_LOOP (both name the loop's
 * blocks); a block domain error is JG_NUMERIC naming the block. */
JG_API jg_status_t jg_eval_outputs(jg_eval_work_t *w, double t, jg_error_t *err);
/* Derivatives dx[nstates] after jg_eval_outputs at the same point. */
JG_API jg_status_t jg_eval_derivatives(jg_eval_work_t *w, double *dx, jg_error_t *err);
/* Fill every block Jacobian part after jg_eval_outputs at the same point. */
JG_API jg_status_t jg_eval_jacobians(jg_eval_work_t *w, jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
