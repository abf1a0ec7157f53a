/* lin_internal.h -- lib/linearize's interface for the later stages
 * (analysis): the evaluation work and the I/O points a jg_lin_t linearizes
 * with, so that a caller iterating on the operating point (trim) evaluates
 * residuals on the very work whose Jacobians jg_lin_run replays.  Not
 * installed; includes only public headers and internal interfaces. */
#ifndef JG_LIN_INTERNAL_H
#define JG_LIN_INTERNAL_H
#include "jacgraph/linearize.h"
#include "../eval/eval_internal.h"
#include "../model/model_internal.h"
#include <cs.h>

/* The work l evaluates on (states, inputs, discrete states, signals); owned by
 * l.  Its I/O connections are l's points (jg__eval_use_iospec), with zero input
 * perturbations. */
jg_eval_work_t *jg__lin_work(jg_lin_t *l);
/* l's resolved I/O points: inputs w (columns of B, D), outputs z (rows of C, D). */
const jg_iospec_t *jg__lin_iospec(const jg_lin_t *l);

/* The hybrid linear model at l's operating point (hybrid.c), sparse:
 *   continuous states   x' = Ax x + Bx u
 *   signals             y  = Cx x + Cd xd + Dy u   (block outputs, ny)
 *   discrete states     xd[k+1] = Ad xd + Bd u     (at their rates)
 *   connections         u  = M y + W w,  z = Mz y + Wz w  (l's I/O points)
 * where y_rate[i] is the rate index (into rates, periods fastest first) of
 * the block producing signal i and d_rate[k] that of discrete state k, -1
 * continuous (or constant).  The discrete states are those of non-source
 * blocks at a discrete rate (block_impl.h: djacobian), named "PATH" or
 * "PATH(k)"; others are held.  Errors: JG_ARG naming a block with a sample
 * time offset, JG_MODEL naming a block without djacobian, those of
 * evaluation, JG_NOMEM.  Cost: one evaluation with Jacobians, O(nnz). */
typedef struct jg__lin_hybrid {
    int64_t nx, nu, ny, nw, nz, nd;
    cs_dl *Ax, *Bx, *Cx, *Dy, *M, *W, *Mz, *Wz, *Ad, *Bd, *Cd;
    int32_t nrates;
    double *rates;          /* periods, fastest first */
    int32_t *y_rate, *d_rate;
    int64_t *d_at;          /* per discrete state: its index in the program's (p->nd) */
    char **d_name;
    double t;
} jg__lin_hybrid_t;
jg_status_t jg__lin_hybrid(jg_lin_t *l, jg__lin_hybrid_t **out, jg_error_t *err);
/* The same with flags: JG__LIN_HYBRID_PARTIAL takes the discrete states of
 * every block at a discrete rate whose type has djacobian (sources too),
 * holds those of the other blocks instead of refusing them, and accepts
 * sample time offsets -- for a caller evaluating every rate at once (trim),
 * which treats the held ones itself. */
enum { JG__LIN_HYBRID_PARTIAL = 1 };
jg_status_t jg__lin_hybrid_ex(jg_lin_t *l, unsigned flags, jg__lin_hybrid_t **out, jg_error_t *err);
void jg__lin_hybrid_free(jg__lin_hybrid_t *h);

/* A reader of operating point objects (jg_lin_read_op's format,
 * docs/model-format.md) in a compact document d: "t", "states" (a block's
 * path or PATH(k)) and "inputs" (root Inport names) checked against p's
 * layout and handed over one value at a time, put(ctx, j, x) with j 0 for
 * t, 1 + i for state i, 1 + nx + e for input element e (jg_eval_input_offset's
 * layout); put returns nonzero when out of memory.  params_ok: a
 * "parameters" key is allowed and left to the caller.  Errors: JG_ARG, the
 * message starting with where(ctx) (the file, or the file and the point) and
 * naming the entry; JG_NOMEM.  Names are resolved once per distinct key of d
 * (a batch reads ten thousand points naming the same states), so a reader
 * serves one document: jg__lin_op_reader_init, set where, put and ctx, then
 * jg__lin_op_read per object, jg__lin_op_reader_free. */
typedef struct jg__lin_op_reader {
    const jg__jdoc_t *d;
    int params_ok;
    jg__jkey_t k_t, k_states, k_inputs, k_params;   /* d's keys (0: none in d) */
    int64_t *st_off, *st_n;   /* per key of d: first state, count (st_n 0: not resolved yet) */
    int64_t *in_off, *in_n;   /* the same for the root Inports (in_n -1: none) */
    const char *(*where)(void *ctx);
    int (*put)(void *ctx, int64_t j, double x);
    void *ctx;
} jg__lin_op_reader_t;
/* JG_NOMEM when out of memory (R then needs no free). */
jg_status_t jg__lin_op_reader_init(jg__lin_op_reader_t *R, const jg__jdoc_t *d, int params_ok);
void jg__lin_op_reader_free(jg__lin_op_reader_t *R);
/* The object obj (a value of R's document) read for program p.  O(its
 * entries) once its names are resolved. */
jg_status_t jg__lin_op_read(jg__lin_op_reader_t *R, const jg_program_t *p, const jg__jv_t *obj,
                            jg_error_t *err);
/* The states an operating point's "states" entry `key` names in p: a block
 * with states by its path (*n its states), else one state by its name (the
 * element "PATH(k)", *n = 1); the first one's index, -1 when none.  O(length
 * of key) through the block's path, O(states) for a name found no other way. */
int64_t jg__lin_op_state(const jg_program_t *p, const char *key, int64_t *n);
/* The root Inport named `key` in an "inputs" entry: its first element
 * (jg_eval_input_offset's layout), *n its width; -1 when none.  O(root Inports). */
int64_t jg__lin_op_input(const jg_program_t *p, const char *key, int64_t *n);

/* The names of l's results (states, input points, output points) as a
 * jg_lin_sys_t of its sizes with no matrices, for jg__lin_share_names.
 * Errors: JG_NOMEM. */
jg_status_t jg__lin_names(const jg_lin_t *l, jg_lin_sys_t **out, jg_error_t *err);
/* From now on l's results (jg_lin_run) take their names from `names` (from
 * jg__lin_names of l, or of a linearizer of the same structure and I/O
 * points; it must outlive them) instead of copies: names_shared = 1.  Not
 * for results with cut TransportDelays (those rename).  NULL: copies again.
 * For many results of one linearization set-up (a batch): no names per
 * point.  O(1). */
void jg__lin_share_names(jg_lin_t *l, const jg_lin_sys_t *names);

/* 1 when l holds the elimination of reduction r, or of strategy s when s is
 * not NULL (built, and replayed at least once): what jg_lin_clone shares. */
int jg__lin_eliminated(const jg_lin_t *l, jg_graph_reduce_t r, const jg_graph_strategy_t *s);

/* The name of element k (0-based) of a block's n states, malloc'd: "PATH"
 * when n is 1, else "PATH(k+1)", as jg_program_state_name names continuous
 * ones.  NULL when out of memory. */
char *jg__lin_element_name(const char *path, int64_t n, int64_t k);

#endif
