/* jacgraph/gen.h -- seeded synthetic models as JSON text (lib/gen).
 *
 * Two families, both in the JSON format of docs/model-format.md:
 *   - the kinds of `jacgraph generate` (docs/generator.md): aerospace, power
 *     and deep hierarchies of about N blocks with the structure of industrial
 *     models, and the stiff 2-D Brusselator of N states;
 *   - the random linear diagrams of the property tests (jg_gen_random): small
 *     models that exercise every linear block, routing, SubSystems, feedback
 *     and algebraic loops.
 * Every choice comes from one splitmix64 stream and integer arithmetic, so the
 * same options give the same bytes on every machine (a new version of the
 * generator may change them).  The generators never print; they report
 * failures through the returned status and err.
 */
#ifndef JACGRAPH_GEN_H
#define JACGRAPH_GEN_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of `jacgraph generate`.  The value is mixed into the seed, so each
 * kind draws from its own stream: the numbers are part of the output. */
typedef enum {
    JG_GEN_AEROSPACE = 0,   /* many small SubSystems, routing, few fed-back states */
    JG_GEN_POWER = 1,       /* bus networks: one linear algebraic loop per area */
    JG_GEN_DEEP = 2,        /* SubSystems nested 10-50 levels */
    JG_GEN_BRUSSELATOR = 3  /* stiff 2-D Brusselator, 25 blocks at every size */
} jg_gen_kind_t;

#define JG_GEN_MIN_BLOCKS 10
#define JG_GEN_MIN_STATES 18
#define JG_GEN_MAX_SIZE 10000000

typedef struct jg_gen_opts {
    jg_gen_kind_t kind;
    int64_t size;    /* blocks (JG_GEN_MIN_BLOCKS ..), or states for the Brusselator
                        (JG_GEN_MIN_STATES .., 2 nx ny: jg_gen_brusselator_grid);
                        at most JG_GEN_MAX_SIZE */
    uint64_t seed;   /* Brusselator: perturbs the initial values, 0 none */
    int depth;       /* deep only: nesting depth to aim for, 1..1000; 0 from the seed */
} jg_gen_opts_t;

/* What was written; counts are exact (jacgraph info agrees). */
typedef struct jg_gen_info {
    int64_t nblocks;      /* every block, SubSystems and ports included */
    int64_t nsubsystems;
    int64_t nstates;      /* continuous states */
    int64_t nloops;       /* algebraic loops (power) */
    int64_t ninputs, noutputs;   /* root Inports and Outports */
    int depth;            /* deepest SubSystem nesting, the root is 0 */
    int64_t nx, ny;       /* Brusselator grid, else 0 */
    uint64_t bytes;       /* JSON bytes written */
} jg_gen_info_t;

/* Defaults: kind, size and seed as given, depth 0. */
JG_API void jg_gen_opts_default(jg_gen_opts_t *o, jg_gen_kind_t kind, int64_t size, uint64_t seed);

/* "aerospace", "power", "deep", "brusselator"; NULL for another value. */
JG_API const char *jg_gen_kind_name(jg_gen_kind_t kind);

/* The kind named s (as jg_gen_kind_name).  JG_ARG when s names none. */
JG_API jg_status_t jg_gen_kind_parse(const char *s, jg_gen_kind_t *kind, jg_error_t *err);

/* The Brusselator's grid for a state count: states = 2 nx ny with nx the
 * largest divisor of states/2 not above its square root.  Returns 0, or -1
 * when states is odd, below JG_GEN_MIN_STATES or nx < 3 (then nx, ny are
 * untouched).  Cost O(sqrt(states)). */
JG_API int jg_gen_brusselator_grid(int64_t states, int64_t *nx, int64_t *ny);

/* Write the model of o to f as JSON (the model is named
 * "<kind>_n<size>_s<seed>").  The text is streamed: memory stays at a few
 * hundred kilobytes whatever the size; time about 1 s per 10^6 blocks, output
 * 100-120 bytes per block (30 per Brusselator state).  f stays open and is not
 * flushed.  info (may be NULL) receives the counts.
 * Errors: JG_ARG (size out of range, a Brusselator size that is no grid, depth
 * out of range or given for another kind), JG_IO (writing to f failed; part of
 * the model may have been written), JG_NOMEM. */
JG_API jg_status_t jg_gen_write(const jg_gen_opts_t *o, FILE *f, jg_gen_info_t *info, jg_error_t *err);

/* As jg_gen_write, into memory: *json receives a malloc'd NUL-terminated text
 * the caller frees, *len (may be NULL) its length.  On failure *json is NULL. */
JG_API jg_status_t jg_gen_model(const jg_gen_opts_t *o, char **json, size_t *len, jg_gen_info_t *info,
                                jg_error_t *err);

/* ---------------------------------------------- random linear diagrams */

/* Options of jg_gen_random.  What it builds (all linear, every block input
 * connected, widths consistent):
 *   - root Inports (1-3, vector ones with PortDimensions) and Outports (1-3);
 *   - SubSystems nested up to max_depth, with inner Inport/Outport blocks;
 *   - chains and DAGs of Gain (scalar, element-wise, scalar-u/vector-K and
 *     Matrix(K*u)), Sum (1-3 inputs, mixed signs, "|" separators, scalar
 *     expansion), Integrator (scalar/vector IC), StateSpace (with and without
 *     D, occasionally without states), TransferFcn (proper, Hurwitz
 *     denominators), ZeroPole (stable poles, complex pairs), Constant,
 *     Scope/Terminator sinks; rarely a model or SubSystem without inputs or
 *     outputs;
 *   - Mux/Demux/Selector routing (vectors split and recombined, Selector
 *     picking and repeating indices) when vectors is set;
 *   - feedback through Integrators / strictly proper StateSpace / TransferFcn;
 *   - when loops is set, linear algebraic loops: a Sum whose output comes back
 *     through Gains, StateSpace or TransferFcn with D, Selectors, Demux/Mux,
 *     a second Sum or a SubSystem, with no state in between; the infinity
 *     norm of the loop's feedthrough product is kept <= 0.85, so I - D M is
 *     never singular.  Each such loop is exactly one strongly connected
 *     component of the feedthrough graph (nloops counts them);
 *   - Gain values sometimes given as workspace names ("parameters" of the
 *     block's system or of an enclosing one).
 * infer_widths = 0 (the default) makes every width computable from upstream
 * without the compiler's stalled-propagation defaults: every feedback path
 * into an Integrator and every algebraic loop contains a block that fixes its
 * own widths (Matrix(K*u) Gain, StateSpace, TransferFcn).  infer_widths = 1
 * leaves those widths to propagation (scalar ICs on vector feedback
 * integrators, plain feedback paths): valid Simulink models that the
 * compiler's width propagation does not always resolve. */
typedef struct jg_gen_random_opts {
    uint64_t seed;
    int nblocks;        /* target number of blocks, all levels, ports and virtual included */
    int max_depth;      /* maximum SubSystem nesting (0: flat) */
    int vectors;        /* 1: vector signals and Mux/Demux/Selector routing; 0: all scalar */
    int loops;          /* 1: linear algebraic loops */
    int infer_widths;   /* 1: leave loop widths to propagation (see above) */
} jg_gen_random_opts_t;

/* What was generated (all counts over the whole hierarchy). */
typedef struct jg_gen_random_info {
    int nblocks;        /* blocks written, SubSystems and ports included */
    int64_t nstates;    /* continuous states the model must have */
    int nloops;         /* algebraic loops built (= expected jg_program_nloops) */
    int nsubsystems, depth;   /* SubSystems, deepest nesting reached */
    int ngain, nsum, nintegrator, nstatespace, ntransferfcn, nzeropole, nconstant, nsink;
    int nmux, ndemux, nselector;
    int nfeedback;      /* feedback paths closed into a state-holding block */
    int nvector;        /* signals of width > 1 */
    int maxwidth;
    int nworkspace;     /* parameters given by workspace name */
} jg_gen_random_info_t;

/* Defaults for everything but seed and nblocks: depth 2, vectors, loops. */
JG_API void jg_gen_random_defaults(jg_gen_random_opts_t *o, uint64_t seed, int nblocks);

/* Generate a random diagram.  *json receives a malloc'd NUL-terminated JSON
 * text the caller frees (NULL on failure); info may be NULL.  The model is
 * built in memory: time and memory linear in nblocks (about 100 bytes per
 * block).  Errors: JG_ARG (nblocks < 1), JG_NOMEM, JG_INTERNAL (a generator
 * invariant broke; the message says which). */
JG_API jg_status_t jg_gen_random(const jg_gen_random_opts_t *o, char **json, jg_gen_random_info_t *info,
                                 jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
