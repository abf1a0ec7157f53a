/* jacgraph/plugin.h -- user-defined block types from shared libraries: the
 * S-function analogue (docs/plugins.md walks through a complete plugin,
 * examples/plugins/predprey.c).
 *
 * A plugin is a shared library that exports two symbols:
 *
 *     JG_PLUGIN_ABI;                                        (the version, a macro)
 *     JG_PLUGIN_EXPORT int jacgraph_plugin_init(jg_plugin_registry_t *r);
 *
 * The host (jg_plugin_load, the CLI's --plugin FILE.so, a model's "plugins"
 * list) checks jacgraph_plugin_abi_version against JG_PLUGIN_ABI_VERSION
 * before calling any plugin code, then calls jacgraph_plugin_init, which
 * registers block types with r->register_type(r, &type).  Those types are then
 * used by name ("type": "PredPrey") exactly like the built-in ones in the
 * model the plugin was loaded into -- and only there: plugins belong to a
 * model, not to the process.
 *
 * The plugin needs nothing but this header: every host service is reached
 * through the function table jg_plugin_api_t (r->api, and again in every setup
 * call and run-time context), so a plugin links against no jacgraph library
 * and the host executable exports no symbols.
 *
 * ABI rules.  JG_PLUGIN_ABI_VERSION changes whenever a struct of this header
 * changes layout or a function its meaning; there is no partial
 * compatibility: a plugin built against another version is refused at load
 * ("ABI version 2, this jacgraph supports 1").  The version is a plain
 * unsigned integer so the check needs no plugin code to run.
 *
 * Life cycle of a plugin block instance (mirrors lib/compile/block_impl.h):
 *   compile time  setup(s, api) once per instance: read parameters
 *                 (api->param*, resolved in the model workspace like a
 *                 built-in block's), declare ports, widths, states,
 *                 discrete states, zero crossings, Jacobian parts and
 *                 invariants, keep parsed data (api->alloc + api->set_data).
 *   run time      outputs, derivatives, update, jacobian, zero_crossings,
 *                 invariants, invariant_jacobian -- each gets a
 *                 jg_plugin_ctx_t valid for that call only.  They may be
 *                 called in any order and from several threads at once (one
 *                 per simulation/linearization work): keep them free of
 *                 mutable global state; the instance data is read-only at
 *                 run time.
 *
 * Return values: 0 success; nonzero failure.  A run-time function explains a
 * failure with api->error(c, ...) (the message names the block and time);
 * setup with api->setup_error(s, param, ...) (names block and parameter).
 *
 * Host side: a model holds the plugins loaded into it (its plugin set: the
 * files and their block types); every program compiled from the model shares
 * the set, which is released -- the files dlclose'd -- when the model and all
 * those programs are freed.  A file loaded into several models is opened and
 * its jacgraph_plugin_init called once per model: keep init free of side
 * effects other than registering types.  Loading changes the model: it is not
 * thread-safe with other uses of the same model, and must precede compiling
 * it.  Different models may load plugins in different threads.
 */
#ifndef JACGRAPH_PLUGIN_H
#define JACGRAPH_PLUGIN_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include "jacgraph/status.h"
#include "jacgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JG_PLUGIN_ABI_VERSION 1u

#if defined(__GNUC__)
#define JG_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define JG_PLUGIN_EXPORT
#endif

/* Put this once at file scope in a plugin: defines the version symbol. */
#define JG_PLUGIN_ABI \
    JG_PLUGIN_EXPORT const unsigned jacgraph_plugin_abi_version = JG_PLUGIN_ABI_VERSION

typedef struct jg_plugin_setup jg_plugin_setup_t;       /* opaque: one instance at setup */
typedef struct jg_plugin_api jg_plugin_api_t;
typedef struct jg_plugin_registry jg_plugin_registry_t;

/* Zero-crossing directions (as the built-in blocks'). */
enum { JG_PLUGIN_ZC_EITHER = 0, JG_PLUGIN_ZC_RISING = 1, JG_PLUGIN_ZC_FALLING = -1 };

/* Kinds of block Jacobian parts: A = df/dx, B = df/du_p, C = dy_q/dx,
 * D = dy_q/du_p (f the derivatives, y the outputs, u the inputs). */
enum { JG_PLUGIN_JAC_A = 0, JG_PLUGIN_JAC_B = 1, JG_PLUGIN_JAC_C = 2, JG_PLUGIN_JAC_D = 3 };

/* Run-time context: what the block sees in one call.  Pointers are valid for
 * the call only; fields not listed for a function are NULL there. */
typedef struct jg_plugin_ctx {
    double t;
    const double *x;            /* nx continuous states */
    const double *const *u;     /* u[p][k]: input port p, element k */
    double *const *y;           /* outputs(): y[q][k] to write */
    double *dx;                 /* derivatives(): nx values to write */
    const double *xd;           /* nd discrete states (read-only but in update) */
    double *xdw;                /* update(): the discrete states, writable */
    double *xw;                 /* update(): the continuous states, writable (resets) */
    double *zc;                 /* zero_crossings(): nzc values to write */
    const signed char *zc_fired;/* update(): per zc signal +1 rose / -1 fell, NULL: none */
    void *data;                 /* what setup passed to api->set_data */
    const char *path;           /* the block's path ("Plant/PP"), for messages */
    int major;                  /* 1 at a major time step, 0 in minor steps */
    int first;                  /* 1 at the first major step */
    int init;                   /* update(): 1 for the initialisation call at t0 */
    int sim;                    /* 1 in simulation, 0 in linearization */
    const jg_plugin_api_t *api;
    void *host;                 /* the host's; do not touch */
} jg_plugin_ctx_t;

/* A block type.  Every function but setup is optional where noted; the
 * registry copies the struct and the name. */
typedef struct jg_plugin_type {
    const char *name;           /* BlockType as models spell it: letters, digits, '_' */
    /* required: parameters and sizes (see jg_plugin_api_t's setup section) */
    int (*setup)(jg_plugin_setup_t *s, const jg_plugin_api_t *api);
    /* required when the block has outputs: y = g(t, x, u, xd) */
    int (*outputs)(const jg_plugin_ctx_t *c);
    /* required when it has continuous states: dx = f(t, x, u, xd) */
    int (*derivatives)(const jg_plugin_ctx_t *c);
    /* optional: at major steps (continuous-time block) or sample hits
     * (discrete one), after all outputs: write xdw, reset xw */
    int (*update)(const jg_plugin_ctx_t *c);
    /* optional: the values of the declared Jacobian parts.  jac[k] is part
     * k's values in declaration order: a dense part column-major (rows x
     * cols, rows fastest), a pattern part in the order of its entries (which
     * are sorted by column, then row).  Without it the host fills the parts
     * by central differences of outputs() and derivatives() (docs/plugins.md). */
    int (*jacobian)(const jg_plugin_ctx_t *c, double *const *jac);
    /* required when it declares zero crossings: write c->zc */
    int (*zero_crossings)(const jg_plugin_ctx_t *c);
    /* optional: invariants of the continuous states (projection, as Simulink's
     * mdlProjection): g[0..m-1] = g(x, t), zero on the exact solution.
     * Required when the block declares invariants. */
    int (*invariants)(const jg_plugin_ctx_t *c, double *g);
    /* optional: dg/dx (m x nx) in the invariant pattern's order (dense:
     * column-major).  Without it the host uses central differences. */
    int (*invariant_jacobian)(const jg_plugin_ctx_t *c, double *dg);
} jg_plugin_type_t;

struct jg_plugin_api {
    unsigned abi_version;       /* JG_PLUGIN_ABI_VERSION of the host */

    /* ---- setup: only inside jg_plugin_type_t.setup ----
     * Each returns 0 on success and -1 after recording an error that names
     * the block (return -1 from setup then), unless said otherwise. */

    /* Numeric parameter `name`: a number, a (nested) array, or the name of a
     * workspace entry.  *v points to rows*cols values, row-major, owned by
     * the host for the program's lifetime.  Returns 1 present, 0 absent
     * (outputs untouched), -1 error. */
    int (*param)(jg_plugin_setup_t *s, const char *name, const double **v, int64_t *rows,
                 int64_t *cols);
    /* A scalar parameter with a default for when it is absent. */
    int (*param_scalar)(jg_plugin_setup_t *s, const char *name, double def, double *out);
    /* A literal string parameter (not looked up in the workspace): 1, 0, -1. */
    int (*param_string)(jg_plugin_setup_t *s, const char *name, const char **out);
    /* Port counts (default 0 and 0). */
    int (*ports)(jg_plugin_setup_t *s, int nin, int nout);
    /* Input port p (0-based): its width (>= 1, fixed) and whether the
     * outputs read it at the same time step (direct feedthrough; it only
     * matters for the default Jacobian parts, see jacobian_part). */
    int (*input)(jg_plugin_setup_t *s, int p, int64_t width, int feedthrough);
    /* Output port q (0-based): its width (>= 1, fixed). */
    int (*output)(jg_plugin_setup_t *s, int q, int64_t width);
    /* nx continuous states with their initial values (x0 NULL: zeros; copied). */
    int (*states)(jg_plugin_setup_t *s, int64_t nx, const double *x0);
    /* nd discrete states (modes, buffers) with initial values (NULL: zeros). */
    int (*dstates)(jg_plugin_setup_t *s, int64_t nd, const double *xd0);
    /* n zero-crossing signals with their JG_PLUGIN_ZC_* directions (NULL: either). */
    int (*zero_crossings)(jg_plugin_setup_t *s, int64_t n, const signed char *dir);
    /* Declare Jacobian part k (k counts calls from 0): kind JG_PLUGIN_JAC_*,
     * row_port q for C/D (-1 for A/B), col_port p for B/D (-1 for A/C).
     * nnz < 0: dense; else nnz entries (ri[k], ci[k]) sorted by column, then
     * row, without duplicates; nnz = 0 is an empty part.  Call after ports,
     * input, output and states.  Declaring no part at all gives the
     * defaults: A dense, B dense per input, C dense per output (when nx > 0)
     * and D dense for each (output, feedthrough input) -- in that order, C
     * and D output by output, B and D input by input.  Declare one empty part
     * for a block without any Jacobian entry.  A D part for port p is what
     * makes p direct feedthrough for algebraic-loop detection. */
    int (*jacobian_part)(jg_plugin_setup_t *s, int kind, int row_port, int col_port,
                         int64_t nnz, const int64_t *ri, const int64_t *ci);
    /* m invariants of the continuous states (projection, mdlProjection) and the
     * pattern of dg/dx (m x nx) as in jacobian_part.  Call after states.  The
     * host adds the parameter "Projection": "on" (default) | "off" to every
     * block of a type with invariants; "off" drops them for that instance. */
    int (*invariants)(jg_plugin_setup_t *s, int64_t m, int64_t nnz, const int64_t *ri,
                      const int64_t *ci);
    /* Zeroed memory that lives as long as the compiled program; NULL when out
     * of memory (an error is recorded). */
    void *(*alloc)(jg_plugin_setup_t *s, size_t size);
    /* The instance data handed to every run-time call as c->data. */
    void (*set_data)(jg_plugin_setup_t *s, void *data);
    /* Record a setup error "block 'PATH' (TYPE)[, parameter 'P']: MESSAGE";
     * param may be NULL.  Returns -1. */
    int (*setup_error)(jg_plugin_setup_t *s, const char *param, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

    /* ---- run time ---- */

    /* Record a run-time error "block 'PATH' (TYPE) at t = T: MESSAGE" (a
     * domain error: the simulation or linearization stops with it).  Returns -1. */
    int (*error)(const jg_plugin_ctx_t *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
};

struct jg_plugin_registry {
    unsigned abi_version;       /* JG_PLUGIN_ABI_VERSION of the host */
    const jg_plugin_api_t *api;
    /* Register a block type (copied, name included).  Returns 0, or -1 for a
     * name that is already taken (built-in or another plugin's), an invalid
     * name or a missing setup; the host then refuses the whole plugin with
     * that message, whatever init returns. */
    int (*register_type)(jg_plugin_registry_t *r, const jg_plugin_type_t *t);
    void *host;                 /* the host's; do not touch */
};

/* The plugin's entry point (exported, with JG_PLUGIN_EXPORT). */
typedef int (*jg_plugin_init_fn)(jg_plugin_registry_t *r);

/* ======================================================================
 * Host side: loading plugins (libjacgraph; plugins do not call these).
 * ====================================================================== */

/* Load plugin `file` (a path; dlopen semantics for names without '/') into
 * model m and register its block types there: m and the programs compiled
 * from it afterwards know them, no other model does.  Loading a file already
 * loaded into m does nothing.  On failure nothing of the plugin stays
 * registered.  Errors, each naming the file as given:
 *   JG_ARG   no model, or an empty file name
 *   JG_IO    "plugin 'F': cannot load: <dlerror text>"
 *   JG_MODEL "plugin 'F': missing symbol 'jacgraph_plugin_abi_version' (...)"
 *            "plugin 'F': missing symbol 'jacgraph_plugin_init' (...)"
 *            "plugin 'F': ABI version V, this jacgraph supports version 1 (...)"
 *            "plugin 'F': block type 'T' is already registered (built in)"
 *            "plugin 'F': block type 'T' is already registered (by plugin 'G')"
 *              (G loaded into the same model)
 *            "plugin 'F': jacgraph_plugin_init failed (returned N)"
 *   JG_NOMEM.
 * Cost: dlopen plus the plugin's init.  Not thread-safe with other uses of m. */
JG_API jg_status_t jg_plugin_load(jg_model_t *m, const char *file, jg_error_t *err);

/* Load the plugins model m names in its top-level "plugins" array of strings
 * into m.  An entry with a '/' is a path (relative to the model file's
 * directory); a bare NAME is skipped when a plugin file NAME.so (or NAME) is
 * already loaded into m, else looked up as DIR/NAME.so in the directories of
 * the environment variable JACGRAPH_PLUGIN_PATH (':'-separated).  Errors:
 * those of jg_plugin_load; JG_MODEL "model 'M': \"plugins\" must be an array
 * of strings"; JG_MODEL "model 'M' needs plugin 'NAME': no NAME.so in
 * JACGRAPH_PLUGIN_PATH (...); load it with --plugin FILE.so". */
JG_API jg_status_t jg_plugin_load_model(jg_model_t *m, jg_error_t *err);

/* The plugin files loaded into m, in load order (names as given to
 * jg_plugin_load): their number (0 for NULL) and file k (NULL out of range),
 * valid while m lives.  O(1). */
JG_API int jg_plugin_count(const jg_model_t *m);
JG_API const char *jg_plugin_file(const jg_model_t *m, int k);

#ifdef __cplusplus
}
#endif
#endif
