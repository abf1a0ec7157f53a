/* eval_internal.h -- lib/eval's interface for the later stages (graph,
 * linearize, sim): linearization I/O points resolved to element-level
 * connections, evaluating with them, read access to the block Jacobian
 * values, and the hybrid calls of the simulation loop.  Not installed.  It
 * includes only public headers, so a later module that includes it sees none
 * of eval's private structures (eval_impl.h).
 *
 * I/O point semantics (docs/cli.md): an input point on signal BLOCK:N adds w
 * to the signal as its consumers see it; an output point measures the value
 * driven onto BLOCK:N (before any perturbation or opening on that same
 * signal); an opening cuts the signal from its consumers, which then see only
 * the input perturbations on it or downstream of it.  By default the inputs
 * are the root Inports and the outputs what the root Outports read (their
 * signal with the perturbations on it, like any consumer).
 */
#ifndef JG_EVAL_INTERNAL_H
#define JG_EVAL_INTERNAL_H
#include <stdint.h>
#include <cs.h>
#include "jacgraph/eval.h"

/* ------------------------------------------------ I/O points (iopoints.c) */

typedef struct jg_iopoint {
    const char *name;        /* "In1", "Controller/Sum1:1" */
    int64_t gport;           /* global output port of the signal */
    int64_t width;
    int64_t off;             /* first element in w (inputs) or z (outputs) */
    int as_consumer;         /* root Outport: measures what the Outport reads */
} jg_iopoint_t;

typedef struct jg_iospec {
    int nin, nout;
    jg_iopoint_t *in, *out;
    int64_t nw, nz;
    /* per element of u (block inputs, nu of them) followed by z (nz): the signal
     * element read (-1 cut/unconnected) plus injected w elements */
    int64_t *src, *inj_ptr, *inj_idx;
    char **w_name, **z_name;   /* per element names */
} jg_iospec_t;

/* Resolve points given as "BLOCK:N" strings or signal names (NULL lists =
 * defaults).  Errors name the offending point: unknown block or signal, port
 * out of range, duplicate.  The result refers to p (which must outlive it) and
 * is freed with jg__iospec_free.  Cost: O(block input elements) when every
 * point is on a real block's output, a trace through the routing otherwise. */
jg_status_t jg__iospec_create(const jg_program_t *p, int nin, const char *const *in, int nout,
                              const char *const *out, int nopen, const char *const *open,
                              int defaults, jg_iospec_t **spec, jg_error_t *err);
/* As jg__iospec_create, plus ncut cut blocks cut[] (block ids, one input and
 * one output port each: the TransportDelays of linearization with exact
 * delays).  Cut k opens the block's output signal and puts an input point
 * named by the block path on it, and measures what the block's input reads
 * with an output point of the same name; these points come after all others,
 * so w and z end with the cut elements, cut by cut.  An output point on a cut
 * signal measures that input point.  Extra errors (JG_ARG): an opening or an
 * input point on a cut signal. */
jg_status_t jg__iospec_create_cut(const jg_program_t *p, int nin, const char *const *in, int nout,
                                  const char *const *out, int nopen, const char *const *open,
                                  int defaults, int32_t ncut, const int32_t *cut,
                                  jg_iospec_t **spec, jg_error_t *err);
/* Accepts NULL. */
void jg__iospec_free(jg_iospec_t *s);

/* From now on w's block inputs read io's connections plus the input
 * perturbations wv[io->nw] (neither owned; both must outlive the setting):
 * jg_eval_outputs then takes the block-by-block path.  io NULL: the program's
 * own connections again. */
void jg__eval_use_iospec(jg_eval_work_t *w, const jg_iospec_t *io, const double *wv);

/* For a work that evaluates many points on one connection (a linearizer's,
 * from its second run on, and its clones): on = 1 lets jg_eval_outputs use
 * the fused evaluation plan on the connection set (I/O points included), built
 * on the next evaluation, bit for bit the block-by-block path's signals; 0:
 * the plan only on the program's own connection (the default: building it
 * costs more than one block-by-block evaluation).  O(1). */
void jg__eval_plan_any(jg_eval_work_t *w, int on);

/* --------------------------------------------- block Jacobians (eval.c) */

/* From the next jg_eval_jacobians on, compute the parts of the blocks whose
 * parts are constant (JG_BT_PURE_LINEAR types outside discrete rates: Gain,
 * Sum, UnaryMinus) only once: later calls keep the values of the first.
 * For a caller that never writes those parts (a linearizer); a caller that
 * zeroes parts (held discrete blocks) must not.  O(1); the second call after
 * it O(blocks) more (the list of the others). */
void jg__eval_const_jacobians(jg_eval_work_t *w);
/* The values of Jacobian part k, numbered over the whole program (blocks in
 * id order, each block's parts in declaration order), as filled by the last
 * jg_eval_jacobians; the pattern is the block's part pattern.  Writable so
 * that a caller may zero the parts of held blocks.  O(1). */
double *jg__eval_jac_values(const jg_eval_work_t *w, int64_t k);
/* Block b's parts (pattern and the values above), npart of them. */
cs_dl *const *jg__eval_parts(const jg_eval_work_t *w, int32_t b);
/* Block b's discrete-linearization Jacobians at the work's current point
 * (block_impl.h: djacobian; ad, bd[p], cd[q] dense row-major, zeroed by the
 * caller).  Errors: JG_MODEL naming the block when its type has none, a
 * block's own error.  O(block). */
jg_status_t jg__eval_djacobian(jg_eval_work_t *w, int32_t b, double *ad, double *const *bd,
                               double *const *cd, jg_error_t *err);
/* The program w evaluates. */
const jg_program_t *jg__eval_program(const jg_eval_work_t *w);
/* 1 when the blocks of discrete rate r execute at the current point (a
 * block whose rate is not hit holds its outputs). */
int jg__eval_rate_hit(const jg_eval_work_t *w, int r);
/* Evaluate as the simulation does (sim = 1) and in a major step (major = 1)
 * or a minor one; linearization keeps the defaults 0, 0. */
void jg__eval_set_mode(jg_eval_work_t *w, int sim, int major);
/* The simulation loop's view (lib/sim/simulate.c), each O(1): */
/* per discrete rate, p->nrates + 1 flags, writable: 1 when the rate's blocks
 * execute at the current point (default all 1; the loop sets them per major
 * step and clears them for the minor steps in between) */
unsigned char *jg__eval_rate_hits(jg_eval_work_t *w);
/* evaluate as the simulation does (1) or as linearization does (0) */
void jg__eval_set_sim(jg_eval_work_t *w, int sim);
/* Build the work's evaluation plan now, before any evaluation (otherwise the
 * first jg_eval_outputs with the program's own connection builds it): the
 * simulation compiles it with the rest of its set-up.  Nothing is evaluated.
 * Errors: JG_NOMEM.  Cost: O(n log n) in the blocks, plus O(signals + block
 * Jacobian entries). */
jg_status_t jg__eval_prepare(jg_eval_work_t *w, jg_error_t *err);
/* a major step (major = 1; first = 1 at t0) or a minor one (0, 0) */
void jg__eval_set_major(jg_eval_work_t *w, int major, int first);
/* the discrete states (p->nd), as the blocks' update() left them */
const double *jg__eval_dstates(const jg_eval_work_t *w);
/* the same, writable: a caller that solves for discrete states (trim) sets
 * them before jg_eval_outputs */
double *jg__eval_dstates_w(jg_eval_work_t *w);
/* The block outputs (jg_eval_signals), writable: they are the starting points
 * of the nonlinear algebraic loops' solver, which a caller evaluating at
 * several nearby points (perturbation) restores so that each evaluation starts
 * from the same point (algloop.c). */
double *jg__eval_signals_w(jg_eval_work_t *w);

/* ------------------------------------------------- hybrid steps (eval.c) */

/* update() of the blocks due now, in sorted order: continuous-time blocks
 * always, discrete ones whose rate hits; init = 1: the initialisation call at
 * t0 (every block with update).  fired: per zero-crossing signal of the
 * program +1/-1/0, or NULL.  x is the continuous state vector to modify
 * (resets). */
jg_status_t jg__eval_update(jg_eval_work_t *w, int init, const signed char *fired, jg_error_t *err);
/* The zero-crossing signals (p->nzc) after jg_eval_outputs at the same point. */
jg_status_t jg__eval_zc(jg_eval_work_t *w, double *z, jg_error_t *err);

#endif
