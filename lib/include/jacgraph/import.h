/* jacgraph/import.h -- reading models of every format: our JSON and Simulink
 * files (classic .mdl, OPC-text .mdl, .slx), with workspaces.
 *
 * The format is sniffed from the content, never from the extension: a zip
 * ("PK") is an SLX package, "# MathWorks OPC Text Package" an OPC-text MDL,
 * "Model {" / "Library {" a classic MDL, "{" our JSON.  A Simulink file is
 * converted to the equivalent JSON model (docs/model-format.md): blocks mapped
 * to jacgraph's block types (docs/simulink.md lists them and the defaults),
 * parameters kept as MATLAB expressions, mask parameters as SubSystem
 * "parameters", the model workspace as the root "parameters", the base
 * workspace (model callbacks, --workspace files) as "workspace" and --set
 * values as "overrides".
 */
#ifndef JACGRAPH_IMPORT_H
#define JACGRAPH_IMPORT_H
#include "jacgraph/export.h"
#include <stdio.h>
#include "jacgraph/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of jg_import_load.  Zero-initialize; every array may be empty. */
typedef struct jg_import_opts {
    const char *const *workspace;  /* --workspace FILE: MATLAB scripts (.m) or JSON objects, in order */
    int nworkspace;
    const char *const *set;        /* --set NAME=EXPR overrides, in order */
    int nset;
    const char *const *model_path; /* --model-path DIR: where ModelReference blocks look (after the file's folder) */
    int nmodel_path;
    const char *const *substitute; /* --substitute BLOCKPATH=FILE.json */
    int nsubstitute;
    /* Warnings (skipped script statements, UI-only blocks skipped): called
     * with one line of text; NULL: dropped. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    /* Limits (jacgraph/model.h): file_bytes bounds the JSON files read (the
     * model, workspaces, substitutes, referenced JSON models); the model keeps
     * them for jg_program_compile.  Zero fields: the defaults.  Simulink files
     * have their own bounds (docs/cli.md, "Limits"). */
    jg_limits_t limits;
} jg_import_opts_t;

/* Read a model file of any format and apply the options.  On success *out is
 * a new model (jg_model_free).  Errors: JG_IO (unreadable, a directory or a
 * FIFO), JG_PARSE (file:line:col or part:line:col), JG_MODEL (structure; for
 * unsupported content the message lists every unsupported block by path, type
 * and reason, one per line), JG_PARAM (workspace scripts, --set), JG_NOMEM.
 * Cost: linear in the file size. */
JG_API jg_status_t jg_import_load(const char *path, const jg_import_opts_t *o, jg_model_t **out,
                                  jg_error_t *err);

/* The same, but write the equivalent JSON model to `f` (pretty-printed)
 * instead of building the model: `jacgraph import`. */
JG_API jg_status_t jg_import_to_json(const char *path, const jg_import_opts_t *o, FILE *f,
                                     jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
