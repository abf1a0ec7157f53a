/* import_impl.h -- private interface of lib/import: the Simulink -> JSON
 * conversion, the block and library tables, and the options' context. */
#ifndef JG_IMPORT_IMPL_H
#define JG_IMPORT_IMPL_H
#include <jansson.h>
#include "jacgraph/import.h"
#include "../model/model_internal.h"
#include "jacgraph/expr.h"
#include "sltree.h"

/* ---- block table (blockmap.c) ---- */

/* One parameter carried from a Simulink block to a jacgraph block: the
 * Simulink name, the jacgraph name (NULL: the same) and the built-in default
 * (what Simulink uses when neither the block nor the file's
 * BlockParameterDefaults give a value; NULL: no default, omitted). */
typedef struct jg__sl_pmap {
    const char *sl, *jg, *def;
} jg__sl_pmap_t;

enum {
    JG__SLB_VIRTUAL = 1 << 0,   /* routing only: no SampleTime written */
    JG__SLB_NO_TS = 1 << 1,     /* the block has no SampleTime of its own */
    JG__SLB_SKIP = 1 << 2,      /* UI only: skipped and listed */
    JG__SLB_CUSTOM = 1 << 3,    /* convert.c handles it (see its switch) */
    JG__SLB_TEMPLATE = 1 << 4   /* expands through the template named by `jg` (a key of
                                   the library templates, "BlockType:<type>") */
};

#define JG__SL_MAXP 16
typedef struct jg__sl_bmap {
    const char *sl;             /* Simulink BlockType, or library path for links */
    const char *jg;             /* jacgraph block type */
    unsigned flags;
    const char *ts_def;         /* built-in SampleTime default (NULL: "-1") */
    jg__sl_pmap_t p[JG__SL_MAXP];
} jg__sl_bmap_t;

/* The entry of a BlockType, NULL when unknown. */
const jg__sl_bmap_t *jg__sl_block_find(const char *blocktype);
/* The entry of a library block by SourceBlock path (newlines and repeated
 * blanks folded to one space), NULL when not in the library table. */
const jg__sl_bmap_t *jg__sl_library_find(const char *source_block);
/* How a library template reads the instance's literal dialog values (NULL:
 * absent) to choose among its variants. */
typedef const char *(*jg__sl_param_fn)(const void *ctx, const char *key);
/* A library block that is an expansion into a SubSystem: its JSON template
 * (docs/simulink.md) for the instance whose dialog values `get(ctx, key)`
 * reads, NULL when the library block is not one or no variant fits them. */
const char *jg__sl_library_template(const char *source_block, jg__sl_param_fn get,
                                    const void *ctx);
/* Why a known library block (or the variant the instance asks for) cannot be
 * imported, NULL when it is not a refused one. */
const char *jg__sl_library_refused(const char *source_block);
/* The reason a BlockType cannot be imported (S-Function, ...), NULL if none
 * is known. */
const char *jg__sl_unsupported_reason(const char *blocktype);
/* Why a supported BlockType's instance cannot be imported because of a
 * setting the jacgraph block lacks (Delay's ExternalReset...), NULL when its
 * settings `get(ctx, key)` (literal dialog values, NULL: absent) are
 * supported. */
const char *jg__sl_block_refused(const char *blocktype, jg__sl_param_fn get, const void *ctx);
/* Tables for docs and tests: entry k, NULL past the end. */
const jg__sl_bmap_t *jg__sl_block_entry(size_t k);
const jg__sl_bmap_t *jg__sl_library_entry(size_t k);

/* ---- conversion (convert.c) ---- */

typedef struct jg__import_ctx {
    const jg_import_opts_t *o;
    json_t *base;                /* base workspace being built: NAME -> value */
    /* model references being converted (cycle detection): canonical paths */
    const char *stack[64];
    int depth;
} jg__import_ctx_t;

/* Convert a read tree into a JSON model (new reference in *out).  `path` is
 * the file (model references are looked up beside it).  Unsupported blocks
 * are all collected and reported in one JG_MODEL error. */
jg_status_t jg__sl_convert(jg__import_ctx_t *ic, const jg__sl_tree_t *t, const char *path,
                           json_t **out, jg_error_t *err);

/* Load any model file into a JSON document (Simulink converted; JSON parsed
 * with jansson's allocator).  Used for the top file and model references. */
jg_status_t jg__import_json(jg__import_ctx_t *ic, const char *path, json_t **out,
                            jg_error_t *err);

/* A value of the expression evaluator as JSON: numbers and matrices as
 * numbers and row arrays, non-finite entries and strings as MATLAB text. */
json_t *jg__import_value_json(const jg_expr_value_t *v);
/* A Simulink dialog string as JSON: a plain number becomes a JSON number,
 * anything else stays the expression text. */
json_t *jg__import_param_json(const char *s);
/* The workspace scripts' warning callback (jg_expr_ws_run): "source:line: msg"
 * to the jg_import_opts_t ctx's warn hook, if any (import.c). */
void jg__import_script_warn(void *ctx, const char *source, int line, const char *msg);

/* Replace the block at `blockpath` (in our path syntax: names joined by '/',
 * a '/' inside a name doubled) of the document by the SubSystem read from
 * `file` (at most file_limit bytes); its Inport/Outport counts must equal
 * the ports the block has. */
jg_status_t jg__import_substitute(json_t *root, const char *blockpath, const char *file,
                                  uint64_t file_limit, jg_error_t *err);

#endif
