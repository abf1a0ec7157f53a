/* iopoints.h -- linearization I/O points resolved on a compiled program (internal).
 *
 * Semantics (docs/cli.md): an input point on signal BLOCK:N adds w to the
 * signal as its consumers see it; an output point measures the value driven
 * onto BLOCK:N (before any perturbation or opening on that same signal); an
 * opening cuts the signal from its consumers, which then see only the input
 * perturbations on it or downstream of it.  By default the inputs are the root
 * Inports and the outputs what the root Outports read (their signal with the
 * perturbations on it, like any consumer).
 */
#ifndef JG_LINEARIZE_IOPOINTS_H
#define JG_LINEARIZE_IOPOINTS_H
#include "../eval/eval_impl.h"

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

/* Resolve points given as "BLOCK:N" strings (NULL lists = defaults).  Errors
 * name the offending point: unknown block, port out of range, duplicate. */
jg_status_t jg__iospec_create(const jg_program_t *p, int nin, const char *const *in, int nout,
                              const char *const *out, int nopen, const char *const *open,
                              int defaults, jg_iospec_t **spec, jg_error_t *err);
void jg__iospec_free(jg_iospec_t *s);

#endif
