/* Fuzz target "model": a JSON model read (jg_model_parse), compiled
 * (jg_program_compile) and linearized at its default operating point by the
 * graph method and the block-by-block matrix method. */
#include "fuzz.h"
#include "jacgraph/jacgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    char *text = fz_cstr(data, size);
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    if (!text) goto done;
    /* a model's "plugins" list is only loaded by jg_plugin_load_model (the
     * CLI), never here: fuzzed names cannot dlopen anything */
    if (jg_model_parse(text, "fuzz.json", &m, &err) || jg_program_compile(m, &p, &err) ||
        jg_lin_create(p, NULL, &l, &err)) {
        fz_say("model", err.msg);
        goto done;
    }
    static const jg_lin_method_t methods[] = {JG_LIN_GRAPH, JG_LIN_MATRIX};
    for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
        jg_lin_sys_t *s = NULL;
        if (jg_lin_run(l, methods[k], JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err) == JG_OK) {
            fz_say("model", "linearized");
            jg_lin_sys_free(s);
        } else {
            fz_say("model", err.msg);
        }
    }
done:
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    free(text);
    return 0;
}
