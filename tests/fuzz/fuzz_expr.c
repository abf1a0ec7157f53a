/* Fuzz target "expr": the MATLAB expression evaluator -- the input evaluated
 * as one expression over a small workspace, then run as a script of
 * assignments (jg_expr_ws_run) into a fresh workspace chained to it. */
#include "fuzz.h"
#include "jacgraph/jacgraph.h"

/* Names the input may read: a scalar, a row, a matrix, a string. */
static jg_expr_ws_t *base_ws(void)
{
    static const char script[] = "k = 2; v = [1 2 3]; M = [1 2; 3 4]; s = 'abc'; e = [];";
    jg_expr_ws_t *ws = jg_expr_ws_create();
    if (ws && jg_expr_ws_run(ws, script, "base", NULL, NULL, NULL, NULL)) {
        jg_expr_ws_free(ws);
        ws = NULL;
    }
    return ws;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    char *src = fz_cstr(data, size);
    jg_expr_ws_t *base = base_ws(), *ws = jg_expr_ws_create();
    if (!src || !base || !ws) goto done;
    jg_expr_ws_chain_t chain = {.ws = base, .parent = NULL, .parent_ctx = NULL};
    jg_expr_value_t v = {0};
    jg_expr_error_t e;
    /* limits far below the defaults: an input that would spend seconds of
     * arithmetic under the sanitizers is refused after milliseconds, and the
     * refusal paths are exercised the same way */
    const jg_expr_limits_t lim = {.elements = 1 << 16, .work = 1 << 22};
    jg_expr_ws_set_limits(ws, &lim);
    if (jg_expr_eval_limits(src, &lim, jg_expr_ws_lookup, &chain, &v, &e) == JG_OK) fz_say("expr", "evaluated");
    else fz_say("expr", e.msg);
    jg_expr_value_clear(&v);
    double x;
    (void)jg_expr_is_number(src, &x);
    jg_expr_ws_run(ws, src, "fuzz.m", jg_expr_ws_lookup, &chain, NULL, NULL);
done:
    jg_expr_ws_free(ws);
    jg_expr_ws_free(base);
    free(src);
    return 0;
}
