/* gen.h -- seeded random generator of LINEAR block diagrams as JSON model text
 * (the native format of jg_model_parse), for property tests and benchmarks.
 *
 * The generator is plain C (no libjacgraph dependency) with its own PRNG
 * (splitmix64) and prints parameters from integers (hundredths), so the same
 * options give byte-identical text on every machine.
 *
 * What it builds (all linear, every block input connected, widths consistent):
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
 *     component of the feedthrough graph (gen_info_t.nloops counts them).
 *   - Gain values sometimes given as workspace names ("parameters" of the
 *     block's system or of an enclosing one).
 *
 * infer_widths = 0 (the default) makes every width computable from upstream
 * without the compiler's stalled-propagation defaults: every feedback path
 * into an Integrator and every algebraic loop contains a block that fixes its
 * own widths (Matrix(K*u) Gain, StateSpace, TransferFcn).  infer_widths = 1
 * leaves those widths to propagation (scalar ICs on vector feedback
 * integrators, plain feedback paths): still valid Simulink models, but see the
 * bugs reported with tests/test_property.c.
 */
#ifndef JG_TESTS_GEN_H
#define JG_TESTS_GEN_H
#include <stdint.h>

typedef struct gen_opts {
    uint64_t seed;
    int nblocks;        /* target number of blocks, all levels, ports and virtual included */
    int max_depth;      /* maximum SubSystem nesting (0: flat) */
    int vectors;        /* 1: vector signals and Mux/Demux/Selector routing; 0: all scalar */
    int loops;          /* 1: linear algebraic loops */
    int infer_widths;   /* 1: leave loop widths to propagation (see above) */
} gen_opts_t;

/* What was generated (all counts over the whole hierarchy). */
typedef struct gen_info {
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
} gen_info_t;

/* Defaults for everything but seed and nblocks: depth 2, vectors, loops. */
void gen_opts_default(gen_opts_t *o, uint64_t seed, int nblocks);

/* Generate a model.  Returns a malloc'd NUL-terminated JSON text (the caller
 * frees it); info may be NULL.  Aborts with a message on out of memory. */
char *gen_model(const gen_opts_t *o, gen_info_t *info);

/* FNV-1a 64 of a string (to compare generator output across machines). */
uint64_t gen_hash(const char *s);

#endif
