/* fz_import.h -- the Simulink import pipeline from memory for the fuzz
 * targets: a read tree converted to our JSON model (lib/import/convert.c) and
 * checked as a model (jg_model_from_json).  Header-only, static. */
#ifndef JG_FUZZ_IMPORT_H
#define JG_FUZZ_IMPORT_H
#include <jansson.h>
#include "jacgraph/jacgraph.h"
#include "import/import_impl.h"

/* The file name conversion sees: model references are looked up beside it,
 * and this directory does not exist, so a fuzzed ModelReference name never
 * opens a file. */
#define FZ_SOURCE "/nonexistent-jacgraph-fuzz/fuzz.mdl"

/* Limits small enough that a fuzzed file cannot ask for gigabytes or nest
 * the recursion deep (the refusals themselves are exercised too). */
static const jg__sl_limits_t fz_limits = {.max_part = (size_t)1 << 22, .max_depth = 200};

/* Convert tree t (freed by the caller) and build the model; the result is
 * dropped: only crashes, leaks and sanitizer reports count. */
static inline void fz_convert(const jg__sl_tree_t *t)
{
    jg_error_t err;
    jg__import_ctx_t ic = {.o = NULL, .base = json_object()};
    json_t *root = NULL;
    if (!ic.base) return;
    if (jg__sl_convert(&ic, t, FZ_SOURCE, &root, &err) == JG_OK) {
        jg_model_t *m = NULL;
        if (jg_model_from_json(root, FZ_SOURCE, &m, &err) == JG_OK) {   /* takes root */
            fz_say("import", "converted");
            jg_model_free(m);
        } else {
            fz_say("import", err.msg);
        }
    } else {
        fz_say("import", err.msg);
    }
    json_decref(ic.base);
}

/* Read buf as a Simulink file of any encoding (sniffed) and convert it. */
static inline void fz_import(const char *buf, size_t len)
{
    jg_error_t err;
    jg__sl_tree_t *t = NULL;
    if (jg__sl_parse(buf, len, FZ_SOURCE, &fz_limits, &t, &err) != JG_OK) {
        fz_say("import", err.msg);
        return;
    }
    fz_convert(t);
    jg__sl_tree_free(t);
}
#endif
