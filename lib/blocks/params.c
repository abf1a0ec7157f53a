/* Parameter readers shared by several block types: on/off switches, limits that may be infinite, literal choices, port counts and ignored parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

void *jg__setup_data(jg_block_t *b, jg_setup_t *s, size_t size)
{
    void *d = jg_setup_alloc(s, size);
    if (!d) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        return NULL;
    }
    b->data = d;
    return d;
}

int jg__param_limit(jg_block_t *b, jg_setup_t *s, const char *name, double def, jg_value_t *out)
{
    const char *str = NULL;
    int r = jg_setup_str_or_num(b, s, name, &str, out);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        /* JSON has no infinity: the literal stands for it */
        if (!strcmp(str, "inf") || !strcmp(str, "Inf") || !strcmp(str, "+inf"))
            def = INFINITY;
        else if (!strcmp(str, "-inf") || !strcmp(str, "-Inf"))
            def = -INFINITY;
        else
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "unknown workspace name '%s' (expected a number, \"inf\", "
                                  "\"-inf\" or a workspace parameter)",
                                  str);
    }
    if (r != 2) {
        out->rows = out->cols = 1;
        if (!(out->x = jg_setup_alloc(s, sizeof(double))))
            return jg_setup_error(b, s, JG_NOMEM, name, "out of memory");
        out->x[0] = def;
    }
    if (jg_value_numel(out) == 0) return jg_setup_error(b, s, JG_PARAM, name, "expected a non-empty value");
    for (int64_t i = 0; i < jg_value_numel(out); i++)
        if (isnan(out->x[i]))
            return jg_setup_error(b, s, JG_PARAM, name, "element %lld is NaN", (long long)i + 1);
    return JG_BLOCK_DONE;
}

int jg__param_onoff(jg_block_t *b, jg_setup_t *s, const char *name, int def, int *out)
{
    const char *str = NULL;
    jg_value_t num;
    int r = jg_setup_str_or_num(b, s, name, &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    *out = def;
    if (r == 0) return JG_BLOCK_DONE;
    /* Simulink saves check boxes as "on"/"off"; JSON models may write 1/0 */
    if (r == 1 && (!strcmp(str, "on") || !strcmp(str, "off"))) {
        *out = str[1] == 'n';
        return JG_BLOCK_DONE;
    }
    if (r == 2 && jg_value_numel(&num) == 1 && (num.x[0] == 0 || num.x[0] == 1)) {
        *out = num.x[0] == 1;
        return JG_BLOCK_DONE;
    }
    return jg_setup_error(b, s, JG_PARAM, name, "expected \"on\" or \"off\" (or 1 / 0)");
}

int jg__param_choice(jg_block_t *b, jg_setup_t *s, const char *name, const char *const *opts, int n,
                     const char *expected)
{
    const char *v = NULL;
    int r = jg_setup_str(b, s, name, &v);
    if (r < 0) return -1;
    if (r == 0) return 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(v, opts[k])) return k;
    jg_setup_error(b, s, JG_PARAM, name, "expected %s, got \"%s\"", expected, v);
    return -1;
}

int jg__param_literal(jg_block_t *b, jg_setup_t *s, const char *name, const char *want,
                      const char *why)
{
    char expected[512];
    snprintf(expected, sizeof expected, "\"%s\" (%s)", want, why);
    return jg__param_choice(b, s, name, &want, 1, expected) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

int jg__param_ordered(jg_block_t *b, jg_setup_t *s, const jg_value_t *lo, const jg_value_t *hi,
                      int64_t n, const char *lo_name, const char *hi_name)
{
    for (int64_t i = 0; i < n; i++) {
        double l = jg__param_at(lo, i), h = jg__param_at(hi, i);
        if (!(l <= h))
            return jg_setup_error(b, s, JG_PARAM, lo_name,
                                  "element %lld is %g, above %s %g: expected %s <= %s",
                                  (long long)i + 1, l, hi_name, h, lo_name, hi_name);
    }
    return JG_BLOCK_DONE;
}

int jg__widths_delay(jg_block_t *b, jg_setup_t *s, const char *const *names, const int64_t *sizes,
                     int np, const char *role, const char *from)
{
    if (b->out_w[0] < 0) {
        int k = 0;
        while (k < np && sizes[k] <= 1) k++;
        if (k < np)
            b->out_w[0] = sizes[k];
        else if (b->in_w[0] > 0)
            b->out_w[0] = b->in_w[0];
        else if (s->force)
            b->out_w[0] = 1;   /* a loop through the delay: follow the scalar parameters */
        else
            return JG_BLOCK_AGAIN;
    }
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = b->out_w[0];
    }
    int64_t w = b->out_w[0];
    if (b->in_w[0] != w)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but the %s has width %lld (from %s or the input)",
                              (long long)b->in_w[0], role, (long long)w, from);
    for (int k = 0; k < np; k++)
        if (sizes[k] > 1 && sizes[k] != w)
            return jg_setup_error(b, s, JG_PARAM, names[k],
                                  "expected a scalar or %lld elements, got %lld", (long long)w,
                                  (long long)sizes[k]);
    return JG_BLOCK_DONE;
}

int jg__param_ignore(jg_block_t *b, jg_setup_t *s, const char *name)
{
    const char *str;
    if (jg_setup_str(b, s, name, &str) < 0) jg_error_clear(s->err);   /* not a string: fine too */
    return JG_BLOCK_DONE;
}

int jg__param_port_count(jg_block_t *b, jg_setup_t *s, double def, double *n, const char **str)
{
    jg_value_t num;
    *n = def;
    *str = NULL;
    int r = jg_setup_str_or_num(b, s, "Inputs", str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        char *end = NULL;
        *n = strtod(*str, &end);
        if (end == *str || *end) *n = -1;
    } else if (r == 2) {
        *n = jg_value_numel(&num) == 1 ? num.x[0] : -1;
    }
    return r;
}

int jg__param_port_count_error(jg_block_t *b, jg_setup_t *s, int r, const char *str)
{
    if (r == 1)
        return jg_setup_error(b, s, JG_PARAM, "Inputs",
                              "expected a count of input ports from 1 to 1024, got \"%s\"", str);
    return jg_setup_error(b, s, JG_PARAM, "Inputs", "expected a count of input ports from 1 to 1024");
}

int jg__widths_same(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (b->out_w[0] >= 0) {
            b->in_w[0] = b->out_w[0];   /* a reader fixed the width: pass it back */
        } else {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[0] = 1;
        }
    }
    b->out_w[0] = b->in_w[0];
    return JG_BLOCK_DONE;
}

int64_t jg__param_vectors(jg_block_t *b, jg_setup_t *s, const char *const *names,
                          const double *defs, int np, jg_value_t *out)
{
    int64_t w = 1;
    int wk = -1;
    for (int k = 0; k < np; k++) {
        if (jg_setup_num_def(b, s, names[k], &out[k], defs[k]) < 0) return -1;
        int64_t n = jg_value_numel(&out[k]);
        if (n == 0) {
            jg_setup_error(b, s, JG_PARAM, names[k], "expected a non-empty value");
            return -1;
        }
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(out[k].x[i])) {
                jg_setup_error(b, s, JG_PARAM, names[k], "element %lld is %g: expected a finite number",
                               (long long)i + 1, out[k].x[i]);
                return -1;
            }
        if (n == 1) continue;
        if (wk >= 0 && n != w) {
            jg_setup_error(b, s, JG_PARAM, names[k],
                           "has %lld elements but %s has %lld (only scalars expand)", (long long)n,
                           names[wk], (long long)w);
            return -1;
        }
        w = n;
        wk = k;
    }
    return w;
}

int jg__widths_param(jg_block_t *b, jg_setup_t *s, int64_t np, const char *pname, int pass_back)
{
    if (b->in_w[0] < 0) {
        if (pass_back && np == 1 && b->out_w[0] >= 0) {
            b->in_w[0] = b->out_w[0];   /* a reader fixed the width: pass it back */
        } else {
            if (pass_back && np > 1) b->out_w[0] = np;   /* u is 1 or np wide: known already */
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[0] = np;   /* nothing drives the width: follow the parameters */
        }
    }
    int64_t w = b->in_w[0];
    if (np != 1 && w != 1 && np != w)
        return jg_setup_error(b, s, JG_WIDTH, pname, "has %lld elements but the input has width %lld",
                              (long long)np, (long long)w);
    b->out_w[0] = np > w ? np : w;
    return JG_BLOCK_DONE;
}
