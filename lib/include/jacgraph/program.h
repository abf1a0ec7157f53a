/* jacgraph/program.h -- a compiled model: flat, typed, sorted, with widths and
 * Jacobian patterns (the "compilation" and "link" phases of Simulink, "How
 * Simulink Works").
 *
 * jg_program_compile flattens the hierarchy, resolves parameters in the model
 * workspace, propagates signal widths, traces every input element of a real
 * block through virtual routing (SubSystem ports, Mux, Demux, Selector) to the
 * block output element that drives it, declares the block Jacobian patterns,
 * derives direct feedthrough, and computes the sorted order and the algebraic
 * loops (strongly connected components of the direct-feedthrough graph, igraph).
 *
 * State layout (documented in docs/model-format.md): blocks in the order they
 * appear in the file, depth first (a SubSystem's blocks where the SubSystem
 * stands), each block's states contiguous.  A block with one state names it by
 * its path ("Plant/x1", "Plant/a//b" for a block named "a/b"); a block with
 * n > 1 states names element k "path(k)".
 */
#ifndef JACGRAPH_PROGRAM_H
#define JACGRAPH_PROGRAM_H
#include "jacgraph/export.h"
#include <stdint.h>
#include "jacgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_program jg_program_t;

/* Compile a model.  The program does not refer to the model afterwards.
 * Errors: JG_MODEL (unknown block type, unknown port, two drivers...),
 * JG_PARAM, JG_WIDTH, JG_NOMEM.  Cost: O(blocks + signal elements) plus the
 * SCC computation, O(V + E) on the feedthrough graph. */
JG_API jg_status_t jg_program_compile(const jg_model_t *m, jg_program_t **out, jg_error_t *err);
/* jg_program_compile, then jg_model_free(m) -- with m freed as soon as the
 * compiler has read the last of it (after connecting the lines), so that the
 * model's document and the second half of the compilation (patterns, sort)
 * share memory: the peak of a large model drops by up to the document's
 * size.  m is freed on every return, failures included; the result and the
 * errors are jg_program_compile's.  Cost: jg_program_compile's. */
JG_API jg_status_t jg_program_compile_free_model(jg_model_t *m, jg_program_t **out,
                                                 jg_error_t *err);
JG_API void jg_program_free(jg_program_t *p);

JG_API const char *jg_program_name(const jg_program_t *p);

/* Blocks: every block of the model, virtual ones included, in file order. */
JG_API int32_t jg_program_nblocks(const jg_program_t *p);
JG_API const char *jg_program_block_path(const jg_program_t *p, int32_t b);
JG_API const char *jg_program_block_type(const jg_program_t *p, int32_t b);
JG_API int jg_program_block_virtual(const jg_program_t *p, int32_t b);
JG_API int64_t jg_program_block_nstates(const jg_program_t *p, int32_t b);
JG_API int jg_program_block_nports(const jg_program_t *p, int32_t b, int *nin, int *nout);
JG_API int64_t jg_program_port_width(const jg_program_t *p, int32_t b, int is_output, int port);
/* 1 when input port `port` (0-based) of block b has direct feedthrough. */
JG_API int jg_program_block_feedthrough(const jg_program_t *p, int32_t b, int port);
/* Block id by path ("Controller/Sum1"), -1 when there is none.  A path is
 * the block names from the root down joined by '/', with a '/' inside a name
 * doubled (Simulink's getfullname convention): block "a/b" of SubSystem "S"
 * is "S/a//b".  Names may hold anything else (':', newlines, spaces...).
 * Cost: O(length of path) expected (hash table). */
JG_API int32_t jg_program_find_block(const jg_program_t *p, const char *path);
/* Signal name of output port `port` (0-based) of block b: the "name" of the
 * lines leaving it, NULL when they have none (or b, port is out of range).
 * Valid while p lives. */
JG_API const char *jg_program_signal_name(const jg_program_t *p, int32_t b, int port);
/* The output port whose lines are named `name`, searched in every system of
 * the model: *block and *port (0-based) are set on success.  A name must be
 * unique model-wide to be found.  Errors (JG_ARG, message in err, *block and
 * *port untouched): "no signal named 'x'"; "signal name 'x' is ambiguous: 2
 * output ports carry it: 'A:1', 'S/B:1'" listing the candidates as BLOCK:N.
 * Cost: O(output ports of the model) per call. */
JG_API jg_status_t jg_program_find_signal(const jg_program_t *p, const char *name, int32_t *block,
                                          int *port, jg_error_t *err);
/* Number of real (non-virtual) blocks. */
JG_API int32_t jg_program_nreal(const jg_program_t *p);

/* States. */
JG_API int64_t jg_program_nstates(const jg_program_t *p);
/* Discrete states (held by linearization), zero-crossing signals, discrete
 * sample rates (distinct [period, offset] pairs, fastest first). */
JG_API int64_t jg_program_ndstates(const jg_program_t *p);
JG_API int64_t jg_program_nzc(const jg_program_t *p);
JG_API int32_t jg_program_nrates(const jg_program_t *p);
/* Rate k's period and offset; returns 0, -1 when k is out of range. */
JG_API int jg_program_rate(const jg_program_t *p, int32_t k, double *period, double *offset);
/* Block b's resolved sample time (period -1 never: 0 continuous, INFINITY
 * constant, > 0 discrete). */
JG_API void jg_program_block_sample_time(const jg_program_t *p, int32_t b, double *period, double *offset);
/* Name of state i ("Plant/x1", "Plant/ss(2)"); valid while p lives. */
JG_API const char *jg_program_state_name(const jg_program_t *p, int64_t i);
/* Initial state vector (x0[nstates]). */
JG_API jg_status_t jg_program_initial_states(const jg_program_t *p, double *x0, jg_error_t *err);

/* Sorted order of the real blocks; blocks of one algebraic loop are adjacent. */
JG_API const int32_t *jg_program_sorted(const jg_program_t *p, int32_t *n);
/* Algebraic loops: ids of the blocks on loop k, in sorted order. */
JG_API int jg_program_nloops(const jg_program_t *p);
JG_API const int32_t *jg_program_loop(const jg_program_t *p, int k, int32_t *n);
/* Loop index of block b, -1 when it is on none. */
JG_API int jg_program_block_loop(const jg_program_t *p, int32_t b);
/* "A, B, C" for messages (static-lifetime string owned by p). */
JG_API const char *jg_program_loop_names(const jg_program_t *p, int k);

/* Root Inport / Outport blocks by port number (0-based index k). */
JG_API int jg_program_ninputs(const jg_program_t *p);
JG_API int jg_program_noutputs(const jg_program_t *p);
JG_API int32_t jg_program_input_block(const jg_program_t *p, int k);
JG_API int32_t jg_program_output_block(const jg_program_t *p, int k);

/* Warnings found while compiling (unconnected inputs...). */
JG_API int jg_program_nwarnings(const jg_program_t *p);
JG_API const char *jg_program_warning(const jg_program_t *p, int i);

#ifdef __cplusplus
}
#endif
#endif
