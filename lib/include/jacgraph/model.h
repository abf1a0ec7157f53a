/* jacgraph/model.h -- a block-diagram model as written (hierarchical JSON).
 *
 * The native format is documented in docs/model-format.md.  Reading checks the
 * JSON syntax (errors give file:line:col) and the shape of the document
 * (blocks, lines, names); block semantics are checked by jg_program_compile.
 */
#ifndef JACGRAPH_MODEL_H
#define JACGRAPH_MODEL_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_model jg_model_t;

/* Limits on sizes that come from input (docs/cli.md, "Limits"), so that a
 * few hundred bytes of model cannot ask for gigabytes.  A zero field takes
 * the default below.  file_bytes bounds every file read whole (JSON models,
 * workspace and substitute files, FromWorkspace tables); a larger file fails
 * with JG_IO.  elements bounds every size a model declares -- one signal's
 * width, one block's continuous or discrete states or zero crossings, the
 * storage a block derives from its parameters (a Transport Delay's buffer,
 * a dense realization) -- and also the sum over the model of signal
 * elements, states, discrete states and zero crossings, and the number of
 * blocks; beyond it compiling fails with JG_MODEL naming the block. */
#define JG_LIMIT_FILE_BYTES ((uint64_t)256 << 20)   /* 256 MiB */
#define JG_LIMIT_ELEMENTS ((int64_t)10000000)       /* 10^7 */
typedef struct jg_limits {
    uint64_t file_bytes;
    int64_t elements;
} jg_limits_t;

/* The limits of lim with the defaults applied (lim may be NULL).  O(1). */
JG_API jg_limits_t jg_limits_resolve(const jg_limits_t *lim);

/* Read a model file.  On success *out is a new model the caller frees with
 * jg_model_free.  Errors: JG_IO (unreadable), JG_PARSE (file:line:col),
 * JG_MODEL (document shape: path of the offending element).  Cost: O(file). */
JG_API jg_status_t jg_model_read(const char *path, jg_model_t **out, jg_error_t *err);
/* The same under the limits lim (NULL: defaults), which the model keeps for
 * jg_program_compile.  A file larger than lim->file_bytes fails with JG_IO
 * before it is parsed. */
JG_API jg_status_t jg_model_read_limits(const char *path, const jg_limits_t *lim,
                                        jg_model_t **out, jg_error_t *err);
/* The limits jg_program_compile applies to m (defaults until set).  O(1). */
JG_API void jg_model_set_limits(jg_model_t *m, const jg_limits_t *lim);
JG_API jg_limits_t jg_model_limits(const jg_model_t *m);

/* Same from a string; `source` names it in messages (e.g. "<stdin>"). */
JG_API jg_status_t jg_model_parse(const char *text, const char *source, jg_model_t **out,
                                  jg_error_t *err);

/* Build a model from a document already in memory (a jansson json_t in the
 * format of docs/model-format.md; lib/import builds one from a Simulink
 * file).  The reference to root is taken over, also on failure: the model
 * copies the document into its own compact form and drops the reference
 * (the caller's own references keep the tree).  Checks as jg_model_parse;
 * `source` names it in messages.  Cost: O(document). */
struct json_t;
JG_API jg_status_t jg_model_from_json(struct json_t *root, const char *source, jg_model_t **out,
                                      jg_error_t *err);

/* Blocks an importer left out of the model (user-interface blocks of a
 * Simulink file: its "skipped" list): count and entry k as
 * "path (Type): reason", valid while m lives. */
JG_API size_t jg_model_nskipped(const jg_model_t *m);
JG_API const char *jg_model_skipped(const jg_model_t *m, size_t k);

/* The plugins the model needs (its "plugins" field, docs/model-format.md):
 * their number, 0 without the field, -1 when it is not an array of non-empty
 * strings (the reader leaves that to the loader, jg_plugin_load_model); name
 * k, valid while m lives, NULL past the end.  Cost: O(count), O(1). */
JG_API ptrdiff_t jg_model_nplugins(const jg_model_t *m);
JG_API const char *jg_model_plugin(const jg_model_t *m, size_t k);

JG_API const char *jg_model_name(const jg_model_t *m);     /* "name" field, or the file stem */
JG_API const char *jg_model_source(const jg_model_t *m);   /* file name given to read/parse */
JG_API void jg_model_free(jg_model_t *m);                  /* NULL is fine */

#ifdef __cplusplus
}
#endif
#endif
