/* HitCrossing (as in Simulink): registers the zero crossing u - HitCrossingOffset
 * per element, so the simulator places a major step where the input crosses
 * the offset, and (ShowOutputPort, default on) outputs 1 at that major step,
 * 0 at every other step.
 *
 * Parameters: HitCrossingOffset (0; a scalar or one value per element),
 * HitCrossingDirection (literal "rising", "falling" or "either", default
 * "either"), ShowOutputPort ("on" default, or "off": no output, the block
 * only makes the solver step on the crossing).
 *
 * How the pulse is made.  The outputs of a major step are computed (and
 * logged) before update() runs, so a flag that update() sets from
 * e->zc_fired would only show one major step later.  Instead a discrete
 * state per element keeps the sign of u - offset at the last major step
 * (update() stores it), and outputs() compares it with the current sign at a
 * major step: the step the simulator places just after the crossing sees the
 * sign changed and outputs 1; the next update() stores the new sign, and the
 * output is 0 again.  A crossing counts when the signal reaches or passes the
 * offset in the direction (from below: rising, from above: falling); leaving
 * the offset is no new crossing.  In minor steps and in linearization the
 * output is 0.  Without zero-crossing location the pulse comes at the first
 * major step after the crossing.
 *
 * Jacobian: the output is a pulse, not a smooth function of u: one d part
 * with zero values.  It is declared only for the direct feedthrough (the
 * output compares the current input), as Sign's. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    jg_value_t off;
    signed char dir;   /* JG_ZC_* */
    int show;
} hit_t;

static double offset(const hit_t *d, int64_t i)
{
    return jg_value_numel(&d->off) == 1 ? d->off.x[0] : d->off.x[i];
}

static int hit_setup(jg_block_t *b, jg_setup_t *s)
{
    hit_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "HitCrossingOffset", &d->off, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->off) == 0)
        return jg_setup_error(b, s, JG_PARAM, "HitCrossingOffset", "expected a non-empty value");
    for (int64_t i = 0; i < jg_value_numel(&d->off); i++)
        if (!isfinite(d->off.x[i]))
            return jg_setup_error(b, s, JG_PARAM, "HitCrossingOffset",
                                  "element %lld is %g: expected a finite number", (long long)i + 1,
                                  d->off.x[i]);
    const char *str = NULL;
    int r = jg_setup_str(b, s, "HitCrossingDirection", &str);
    if (r < 0) return JG_BLOCK_FAIL;
    d->dir = JG_ZC_EITHER;
    if (r > 0) {
        int k = jg_setup_zc_dir(b, s, "HitCrossingDirection", str);
        if (k == -2) return JG_BLOCK_FAIL;
        d->dir = (signed char)k;
    }
    jg_value_t num;
    r = jg_setup_str_or_num(b, s, "ShowOutputPort", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    d->show = 1;
    if (r == 1 && (!strcmp(str, "on") || !strcmp(str, "off")))
        d->show = str[1] == 'n';
    else if (r == 2 && jg_value_numel(&num) == 1 && (num.x[0] == 0 || num.x[0] == 1))
        d->show = num.x[0] == 1;
    else if (r != 0)
        return jg_setup_error(b, s, JG_PARAM, "ShowOutputPort", "expected \"on\" or \"off\" (or 1 / 0)");
    return jg_setup_ports(b, s, 1, d->show ? 1 : 0);
}

/* Width: the input's, or numel(HitCrossingOffset) with a scalar input. */
static int hit_widths(jg_block_t *b, jg_setup_t *s)
{
    const hit_t *d = b->data;
    int64_t no = jg_value_numel(&d->off);
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = no;
    }
    int64_t w = b->in_w[0];
    if (no != 1 && w != 1 && no != w)
        return jg_setup_error(b, s, JG_WIDTH, "HitCrossingOffset",
                              "has %lld elements but the input has width %lld", (long long)no,
                              (long long)w);
    int64_t n = no > w ? no : w;
    if (d->show) b->out_w[0] = n;
    signed char *dir = jg_setup_alloc(s, (size_t)n);
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memset(dir, d->dir, (size_t)n);
    if (jg_setup_zc(b, s, n, dir) < 0 || jg_setup_dstates(b, s, n) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int hit_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (!b->nout) return 0;
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static double sgn(double v)
{
    return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
}

static double hit_value(const jg_block_t *b, const jg_eval_t *e, int64_t i)
{
    return e->u[0][b->in_w[0] == 1 ? 0 : i] - offset(b->data, i);
}

static int hit_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const hit_t *d = b->data;
    if (!b->nout) return 0;
    int live = e->sim && e->major && !e->first;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double was = e->xd[i], now = sgn(hit_value(b, e, i));
        int up = was < 0 && now >= 0, down = was > 0 && now <= 0;
        int hit = d->dir == JG_ZC_RISING ? up : d->dir == JG_ZC_FALLING ? down : up || down;
        e->y[0][i] = live && hit ? 1.0 : 0.0;
    }
    return 0;
}

static int hit_update(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < jg_block_nd(b); i++) e->xdw[i] = sgn(hit_value(b, e, i));
    return 0;
}

static int hit_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    if (!b->npart) return 0;
    cs_dl *m = e->jac[0];
    for (int64_t q = 0; q < m->p[m->n]; q++) m->x[q] = 0.0;
    return 0;
}

static int hit_zc(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < jg_block_nzc(b); i++) e->zcv[i] = hit_value(b, e, i);
    return 0;
}

const jg_block_type_t jg_block_hitcrossing = {
    .name = "HitCrossing", .flags = 0,
    .setup = hit_setup, .widths = hit_widths, .pattern = hit_pattern,
    .outputs = hit_outputs, .jacobian = hit_jacobian, .update = hit_update, .zc = hit_zc,
};
