/* The element limit of a compiled model (jg_limits_t): every size a model declares, checked before it is allocated. */
#include "compile_impl.h"

static int64_t limit_of(const jg_setup_t *s)
{
    const jg__cctx_t *c = s->priv;
    return c->lim.elements;
}

jg_limits_t jg_setup_limits(const jg_setup_t *s)
{
    const jg__cctx_t *c = s->priv;
    return c->lim;
}

int jg_setup_check_size(jg_block_t *b, jg_setup_t *s, const char *param, int64_t n, const char *what)
{
    int64_t lim = limit_of(s);
    if (n >= 0 && n <= lim) return JG_BLOCK_DONE;
    return jg_setup_error(b, s, JG_MODEL, param,
                          "%lld %s exceed the limit of %lld elements per model (--max-elements)",
                          (long long)n, what, (long long)lim);
}

int jg__check_widths_known(jg__cctx_t *c, jg_setup_t *s, jg_block_t *b)
{
    for (int out = 0; out < 2; out++) {   /* the inputs, then the outputs */
        const int n = out ? b->nout : b->nin;
        const int64_t *w = out ? b->out_w : b->in_w;
        for (int k = 0; k < n; k++)
            if (w[k] > c->lim.elements) {
                jg_setup_error(b, s, JG_MODEL, NULL,
                               "%s %d has width %lld, beyond the limit of %lld elements per "
                               "signal (--max-elements)",
                               out ? "output" : "input", k + 1, (long long)w[k], (long long)c->lim.elements);
                return JG_BLOCK_FAIL;
            }
    }
    return JG_BLOCK_DONE;
}

jg_status_t jg__check_block_count(jg__cctx_t *c, int32_t nb)
{
    if (nb >= 0 && nb < INT32_MAX && nb <= c->lim.elements) return JG_OK;
    return jg_error_set(c->err, JG_MODEL,
                        "%s: %lld blocks, beyond the limit of %lld elements per model "
                        "(--max-elements)",
                        "the model", (long long)nb,
                        (long long)c->lim.elements);
}

/* After width propagation, before the signal vectors and patterns are laid
 * out: what the run-time vectors would hold, summed in a way that cannot
 * overflow (each term is at most the limit, checked as it is added). */
jg_status_t jg__check_totals(jg__cctx_t *c, jg_setup_t *s)
{
    const jg_program_t *p = c->p;
    int64_t lim = c->lim.elements, total = 0, nx = 0;
    for (int32_t id = 0; id < p->nblocks; id++) {
        jg_block_t *b = &p->blocks[id];
        if (jg__check_widths_known(c, s, b) != JG_BLOCK_DONE) return c->err->status;
        if (b->virt) continue;
        int64_t terms[3] = {b->nx, jg_block_nd(b), jg_block_nzc(b)};
        if ((nx += b->nx) > INT32_MAX)   /* jg_block_t's 32-bit state offsets */
            return jg_error_set(c->err, JG_MODEL,
                                "the model has more than %d continuous states (reached at block "
                                "'%s')",
                                INT32_MAX, b->path);
        for (int q = 0; q < b->nout; q++) {
            total += b->out_w[q] > 0 ? b->out_w[q] : 0;
            if (total > lim) goto over;
        }
        for (int k = 0; k < 3; k++) {
            total += terms[k];
            if (total > lim) goto over;
        }
        continue;
    over:
        return jg_error_set(c->err, JG_MODEL,
                            "the model needs more than %lld signal elements, states, discrete "
                            "states and zero crossings in all (reached at block '%s'): beyond the "
                            "limit (--max-elements)",
                            (long long)lim, b->path);
    }
    return JG_OK;
}
