/* Backlash: a system with play.  The output moves with the input only while
 * the input pushes on an edge of a deadband of width BacklashWidth centred on
 * the output; inside the band the output holds (Simulink's Backlash block).
 *
 * Per element, with h = BacklashWidth / 2 and yh the output at the last major
 * step (a discrete state, initially InitialOutput), the play operator is
 *   y = max(u - h, min(yh, u + h)),
 * i.e. engaged positive (y = u - h) once u passes yh + h, engaged negative
 * (y = u + h) once u passes yh - h, disengaged (y = yh) in between.  A second
 * discrete state per element is the mode (+1, -1 engaged, 0 disengaged),
 * decided at each major step by update().  As the switching blocks of
 * discontinuous.c do, the mode holds between major steps: in minor steps a
 * disengaged element outputs yh even if u has left the band, and zero
 * crossings at the band edges, u - (yh + h) rising and u - (yh - h) falling,
 * make the simulator place a major step where the input engages, so no
 * integration step straddles the kink.  An engaged element follows the play
 * operator in minor steps too (it disengages smoothly where u turns); its own
 * edge signal is then a positive (negative) constant that cannot cross, and
 * only the opposite edge stays armed (u sweeping the whole band within one
 * step).  At t0, an input outside the band starts engaged (Simulink:
 * "the output at the start is the input minus or plus half the width").
 *
 * Parameters: BacklashWidth (1; >= 0) and InitialOutput (0), each a scalar or
 * one value per element.  Linearization (at the held states): gain 1 where
 * the element is engaged (u outside [yh - h, yh + h], or on the edge it is
 * engaged on), 0 inside the band. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    jg_value_t width, y0;
    int64_t np;        /* common numel of the parameters (1: scalars) */
    int which;         /* the parameter that set np */
} backlash_t;

static const char *const names[2] = {"BacklashWidth", "InitialOutput"};

static int backlash_setup(jg_block_t *b, jg_setup_t *s)
{
    static const double defs[2] = {1, 0};
    backlash_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t *v[2] = {&d->width, &d->y0};
    d->np = 1;
    for (int k = 0; k < 2; k++) {
        if (jg_setup_num_def(b, s, names[k], v[k], defs[k]) < 0) return JG_BLOCK_FAIL;
        int64_t m = jg_value_numel(v[k]);
        if (m == 0) return jg_setup_error(b, s, JG_PARAM, names[k], "expected a non-empty value");
        for (int64_t i = 0; i < m; i++)
            if (!isfinite(v[k]->x[i]))
                return jg_setup_error(b, s, JG_PARAM, names[k],
                                      "element %lld is %g: expected a finite number", (long long)i + 1,
                                      v[k]->x[i]);
        if (m == 1) continue;
        if (d->np > 1 && m != d->np)
            return jg_setup_error(b, s, JG_PARAM, names[k],
                                  "has %lld elements but %s has %lld (only scalars expand)",
                                  (long long)m, names[d->which], (long long)d->np);
        d->np = m;
        d->which = k;
    }
    for (int64_t i = 0; i < jg_value_numel(&d->width); i++)
        if (d->width.x[i] < 0)
            return jg_setup_error(b, s, JG_PARAM, "BacklashWidth",
                                  "element %lld is %g: expected a width >= 0", (long long)i + 1,
                                  d->width.x[i]);
    return jg_setup_ports(b, s, 1, 1);
}

/* Width max(input, parameters); a scalar input expands.  States: yh, then the
 * modes; zero crossings: the upper edges, then the lower ones. */
static int backlash_widths(jg_block_t *b, jg_setup_t *s)
{
    const backlash_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = d->np;
    }
    int64_t w = b->in_w[0];
    if (d->np != 1 && w != 1 && d->np != w)
        return jg_setup_error(b, s, JG_WIDTH, names[d->which],
                              "has %lld elements but the input has width %lld", (long long)d->np,
                              (long long)w);
    w = d->np > w ? d->np : w;
    b->out_w[0] = w;
    signed char *dir = jg_setup_alloc(s, (size_t)(2 * w));
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int64_t i = 0; i < w; i++) {
        dir[i] = JG_ZC_RISING;
        dir[w + i] = JG_ZC_FALLING;
    }
    if (jg_setup_dstates(b, s, 2 * w) < 0 || jg_setup_zc(b, s, 2 * w, dir) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int backlash_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int backlash_init_discrete(const jg_block_t *b, double *xd0)
{
    const backlash_t *d = b->data;
    int64_t w = b->out_w[0];
    for (int64_t i = 0; i < w; i++) {
        xd0[i] = jg__param_at(&d->y0, i);
        xd0[w + i] = 0;
    }
    return 0;
}

static double in(const jg_block_t *b, const jg_eval_t *e, int64_t i)
{
    return e->u[0][b->in_w[0] == 1 ? 0 : i];
}

static double play(double u, double h, double yh)
{
    return fmax(u - h, fmin(yh, u + h));
}

static int backlash_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const backlash_t *d = b->data;
    int64_t w = b->out_w[0];
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < w; i++) {
        double yh = e->xd[i];
        e->y[0][i] = held && e->xd[w + i] == 0 ? yh : play(in(b, e, i), jg__param_at(&d->width, i) / 2, yh);
    }
    return 0;
}

/* The new mode: engaged where u is past an edge, or on the edge it was engaged
 * on (or whose crossing fired now: it is heading out); else disengaged. */
static int mode_of(double u, double h, double yh, double was, int fired_up, int fired_down)
{
    if (u - h > yh) return 1;
    if (u + h < yh) return -1;
    if (u - h == yh && (was > 0 || fired_up)) return 1;
    if (u + h == yh && (was < 0 || fired_down)) return -1;
    return 0;
}

static int backlash_update(const jg_block_t *b, jg_eval_t *e)
{
    const backlash_t *d = b->data;
    int64_t w = b->out_w[0];
    if (e->init) return 0;
    for (int64_t i = 0; i < w; i++) {
        double u = in(b, e, i), h = jg__param_at(&d->width, i) / 2, yh = e->xd[i];
        int up = e->zc_fired && e->zc_fired[i] > 0, down = e->zc_fired && e->zc_fired[w + i] < 0;
        e->xdw[w + i] = mode_of(u, h, yh, e->xd[w + i], up, down);
        e->xdw[i] = play(u, h, yh);
    }
    return 0;
}

static int backlash_zc(const jg_block_t *b, jg_eval_t *e)
{
    const backlash_t *d = b->data;
    int64_t w = b->out_w[0];
    for (int64_t i = 0; i < w; i++) {
        double u = in(b, e, i), h = jg__param_at(&d->width, i) / 2, yh = e->xd[i], m = e->xd[w + i];
        e->zcv[i] = m > 0 ? 1.0 : u - (yh + h);
        e->zcv[w + i] = m < 0 ? -1.0 : u - (yh - h);
    }
    return 0;
}

static int backlash_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const backlash_t *d = b->data;
    int64_t w = b->out_w[0];
    cs_dl *m = e->jac[0];
    for (int64_t i = 0; i < w; i++) {
        double u = in(b, e, i), h = jg__param_at(&d->width, i) / 2;
        double g = mode_of(u, h, e->xd[i], e->xd[w + i], 0, 0) != 0 ? 1.0 : 0.0;
        /* diagonal: column i holds (i, i); a scalar input: one column of w rows */
        if (b->in_w[0] == w) m->x[m->p[i]] = g;
        else m->x[i] = g;
    }
    return 0;
}

const jg_block_type_t jg_block_backlash = {
    .name = "Backlash", .flags = 0,
    .setup = backlash_setup, .widths = backlash_widths, .pattern = backlash_pattern,
    .init_discrete = backlash_init_discrete, .outputs = backlash_outputs,
    .jacobian = backlash_jacobian, .update = backlash_update, .zc = backlash_zc,
};
