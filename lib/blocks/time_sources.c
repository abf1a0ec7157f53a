/* Time-driven sources: Step, SineWave, Ramp, Clock, PulseGenerator and
 * FromWorkspace (a time table read from a CSV file).
 *
 * Their outputs depend on the time e->t only, never on states or inputs: they
 * have no inputs and declare no Jacobian parts.  Linearization therefore sees
 * them as constants at the operating point's time, which is correct (a source
 * contributes its output vertex and nothing else).  They carry JG_BT_LINEAR
 * because a block without inputs or states is trivially affine in them.
 *
 * Parameters that describe the output (Step Before/After/Time, SineWave
 * Amplitude/Bias/Frequency/Phase, Ramp Slope/StartTime/InitialOutput,
 * PulseGenerator Amplitude/Period/PulseWidth/PhaseDelay) are each a scalar or a
 * vector; all non-scalar ones must have the same number of elements n, and the
 * output has width n (1 when all are scalars), scalars applying to every
 * element -- Simulink's scalar expansion of source parameters.
 *
 * Discontinuous sources (Step, PulseGenerator) switch exactly at their switch
 * times: Step gives After for t >= Time.  Step holds its output over minor
 * steps and registers a zero crossing at Time, as Simulink's does (see Step
 * below).  PulseGenerator sees the time only, so a Runge-Kutta step whose last
 * stage lands on a switch time already uses the new value there (Simulink
 * holds such outputs over minor steps); with ode1 its switch is exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"
#include "../model/model_internal.h"

/* ------------------------------------------- vector parameters, expansion */

typedef struct {
    const char *name;
    double def;
} vparam_t;

/* Read np scalar-or-vector parameters with defaults into out[]; returns the
 * output width (the common numel of the non-scalar ones, or 1), or -1 after
 * an error naming the parameter. */
static int64_t vparams(jg_block_t *b, jg_setup_t *s, const vparam_t *ps, int np, jg_value_t *out)
{
    int64_t w = 1;
    int wk = -1;   /* which parameter fixed w */
    for (int k = 0; k < np; k++) {
        if (jg_setup_num_def(b, s, ps[k].name, &out[k], ps[k].def) < 0) return -1;
        int64_t n = jg_value_numel(&out[k]);
        if (n == 0) {
            jg_setup_error(b, s, JG_PARAM, ps[k].name, "expected a non-empty value");
            return -1;
        }
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(out[k].x[i])) {
                jg_setup_error(b, s, JG_PARAM, ps[k].name, "element %lld is %g: expected a finite number",
                               (long long)i + 1, out[k].x[i]);
                return -1;
            }
        if (n == 1) continue;
        if (wk >= 0 && n != w) {
            jg_setup_error(b, s, JG_PARAM, ps[k].name,
                           "has %lld elements but %s has %lld (only scalars expand)", (long long)n,
                           ps[wk].name, (long long)w);
            return -1;
        }
        w = n;
        wk = k;
    }
    return w;
}

/* Optional literal "SineType"/"PulseType": only "Time based" is supported. */
static int time_based_only(jg_block_t *b, jg_setup_t *s, const char *param)
{
    const char *v = NULL;
    int r = jg_setup_str(b, s, param, &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && strcmp(v, "Time based"))
        return jg_setup_error(b, s, JG_PARAM, param,
                              "expected \"Time based\" (sample-based sources are not supported), "
                              "got \"%s\"", v);
    return JG_BLOCK_DONE;
}

/* Sources whose width was fixed in setup: data starts with the width. */
typedef struct {
    int64_t w;
    jg_value_t p[4];
} vsrc_t;

static vsrc_t *vsrc_setup(jg_block_t *b, jg_setup_t *s, const vparam_t *ps, int np)
{
    vsrc_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        return NULL;
    }
    b->data = d;
    d->w = vparams(b, s, ps, np, d->p);
    if (d->w < 0) return NULL;
    if (jg_setup_ports(b, s, 0, 1) < 0) return NULL;
    return d;
}

static int vsrc_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    b->out_w[0] = ((const vsrc_t *)b->data)->w;
    return JG_BLOCK_DONE;
}

/* ------------------------------------------------------------------ Step */

/* Step: y = Before for t < Time, After for t >= Time (element-wise).
 * Parameters Time (1), Before (0), After (1).
 *
 * In simulation the switch happens at a major step, as in Simulink: one zero
 * crossing t - Time (rising) per element places a major step at Time, and a
 * discrete state per element (1 once switched, set by update()) holds the
 * output over the minor steps in between, so no integration step straddles
 * the jump.  At major steps, and in linearization, the output follows t. */
static const vparam_t step_params[] = {{"Time", 1}, {"Before", 0}, {"After", 1}};

static int step_setup(jg_block_t *b, jg_setup_t *s)
{
    const vsrc_t *d = vsrc_setup(b, s, step_params, 3);
    if (!d) return JG_BLOCK_FAIL;
    signed char *dir = jg_setup_alloc(s, (size_t)d->w);
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memset(dir, JG_ZC_RISING, (size_t)d->w);
    if (jg_setup_zc(b, s, d->w, dir) < 0 || jg_setup_dstates(b, s, d->w) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int step_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < d->w; i++) {
        int after = held ? e->xd[i] != 0 : e->t >= jg__param_at(&d->p[0], i);
        e->y[0][i] = after ? jg__param_at(&d->p[2], i) : jg__param_at(&d->p[1], i);
    }
    return 0;
}

static int step_update(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) e->xdw[i] = e->t >= jg__param_at(&d->p[0], i);
    return 0;
}

static int step_zc(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) e->zcv[i] = e->t - jg__param_at(&d->p[0], i);
    return 0;
}

const jg_block_type_t jg_block_step = {
    .name = "Step", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = step_setup, .widths = vsrc_widths, .outputs = step_outputs,
    .update = step_update, .zc = step_zc,
};

/* -------------------------------------------------------------- SineWave */

/* SineWave (time based): y = Amplitude sin(Frequency t + Phase) + Bias, with
 * Frequency in rad/s and Phase in rad.  Parameters Amplitude (1), Bias (0),
 * Frequency (1), Phase (0); optional literal SineType "Time based". */
static const vparam_t sine_params[] = {
    {"Amplitude", 1}, {"Bias", 0}, {"Frequency", 1}, {"Phase", 0}};

static int sine_setup(jg_block_t *b, jg_setup_t *s)
{
    if (!vsrc_setup(b, s, sine_params, 4)) return JG_BLOCK_FAIL;
    return time_based_only(b, s, "SineType");
}

static int sine_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++)
        e->y[0][i] = jg__param_at(&d->p[0], i) * sin(jg__param_at(&d->p[2], i) * e->t + jg__param_at(&d->p[3], i)) +
                     jg__param_at(&d->p[1], i);
    return 0;
}

const jg_block_type_t jg_block_sinewave = {
    .name = "SineWave", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = sine_setup, .widths = vsrc_widths, .outputs = sine_outputs,
};

/* ------------------------------------------------------------------ Ramp */

/* Ramp: y = InitialOutput for t < StartTime, and
 * InitialOutput + Slope (t - StartTime) from StartTime on (continuous, with a
 * kink at StartTime).  Parameters Slope (1), StartTime (0), InitialOutput (0). */
static const vparam_t ramp_params[] = {{"Slope", 1}, {"StartTime", 0}, {"InitialOutput", 0}};

static int ramp_setup(jg_block_t *b, jg_setup_t *s)
{
    return vsrc_setup(b, s, ramp_params, 3) ? JG_BLOCK_DONE : JG_BLOCK_FAIL;
}

static int ramp_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) {
        double t0 = jg__param_at(&d->p[1], i), y0 = jg__param_at(&d->p[2], i);
        e->y[0][i] = e->t < t0 ? y0 : y0 + jg__param_at(&d->p[0], i) * (e->t - t0);
    }
    return 0;
}

const jg_block_type_t jg_block_ramp = {
    .name = "Ramp", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = ramp_setup, .widths = vsrc_widths, .outputs = ramp_outputs,
};

/* ----------------------------------------------------------------- Clock */

/* Clock: y = t, a scalar.  No parameters. */
static int clock_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 0, 1);
}

static int clock_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    b->out_w[0] = 1;
    return JG_BLOCK_DONE;
}

static int clock_outputs(const jg_block_t *b, jg_eval_t *e)
{
    (void)b;
    e->y[0][0] = e->t;
    return 0;
}

const jg_block_type_t jg_block_clock = {
    .name = "Clock", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = clock_setup, .widths = clock_widths, .outputs = clock_outputs,
};

/* -------------------------------------------------------- PulseGenerator */

/* PulseGenerator (time based): for t >= PhaseDelay the output is Amplitude
 * while (t - PhaseDelay) mod Period < PulseWidth/100 * Period, else 0; before
 * PhaseDelay it is 0.  So each period starts "on" (at PhaseDelay + k Period)
 * and switches off PulseWidth percent into it.  Parameters Amplitude (1),
 * Period (10, > 0), PulseWidth (50, percent of the period, 0 to 100),
 * PhaseDelay (0); optional literal PulseType "Time based". */
static const vparam_t pulse_params[] = {
    {"Amplitude", 1}, {"Period", 10}, {"PulseWidth", 50}, {"PhaseDelay", 0}};

static int pulse_setup(jg_block_t *b, jg_setup_t *s)
{
    vsrc_t *d = vsrc_setup(b, s, pulse_params, 4);
    if (!d) return JG_BLOCK_FAIL;
    for (int64_t i = 0; i < d->w; i++) {
        if (!(jg__param_at(&d->p[1], i) > 0))
            return jg_setup_error(b, s, JG_PARAM, "Period", "element %lld is %g: expected a positive period",
                                  (long long)(jg_value_numel(&d->p[1]) == 1 ? 1 : i + 1),
                                  jg__param_at(&d->p[1], i));
        double pw = jg__param_at(&d->p[2], i);
        if (!(pw >= 0 && pw <= 100))
            return jg_setup_error(b, s, JG_PARAM, "PulseWidth",
                                  "element %lld is %g: expected a percentage of the period from 0 to 100",
                                  (long long)(jg_value_numel(&d->p[2]) == 1 ? 1 : i + 1), pw);
    }
    return time_based_only(b, s, "PulseType");
}

static int pulse_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const vsrc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) {
        double per = jg__param_at(&d->p[1], i), delay = jg__param_at(&d->p[3], i), on = 0;
        if (e->t >= delay) {
            double r = fmod(e->t - delay, per);   /* exact for the given doubles */
            on = r < jg__param_at(&d->p[2], i) / 100 * per;
        }
        e->y[0][i] = on ? jg__param_at(&d->p[0], i) : 0.0;
    }
    return 0;
}

const jg_block_type_t jg_block_pulsegenerator = {
    .name = "PulseGenerator", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = pulse_setup, .widths = vsrc_widths, .outputs = pulse_outputs,
};

/* --------------------------------------------------------- FromWorkspace */

/* FromWorkspace: a time table read at compile time from the CSV file named by
 * the literal parameter File (a path; a relative one is taken from the working
 * directory).  The first line is a header (its fields are not interpreted,
 * but their count fixes the columns); every further non-blank line is
 * "t, y1, ..., yn" with the same number of fields, finite numbers, and times
 * that increase strictly.  The output has width n.  Between rows the output is
 * interpolated linearly; before the first time it holds the first row's
 * values, after the last time the last row's.  Errors name file:line. */
typedef struct {
    int64_t n, m;   /* data rows, values per row (output width) */
    double *t;      /* n times */
    double *v;      /* n x m values, row-major */
} fw_t;

/* Split line (modified in place) at commas into at most max fields, trimmed of
 * blanks; returns the number of fields (which may exceed max: counted only). */
static int64_t split_fields(char *line, char **fld, int64_t max)
{
    int64_t n = 0;
    char *p = line;
    for (;;) {
        char *c = strchr(p, ',');
        if (c) *c = 0;
        while (*p == ' ' || *p == '\t') p++;
        char *end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
        if (n < max) fld[n] = p;
        n++;
        if (!c) break;
        p = c + 1;
    }
    return n;
}

static int blank(const char *l)
{
    for (; *l; l++)
        if (*l != ' ' && *l != '\t') return 0;
    return 1;
}

static int fw_setup(jg_block_t *b, jg_setup_t *s)
{
    fw_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *path = NULL;
    int r = jg_setup_str(b, s, "File", &path);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, "File",
                              "missing: expected the path of a CSV file (a header row, then "
                              "time and the output values on each row)");
    size_t len = 0;
    char *text = NULL;
    jg_error_t ferr;
    jg_error_clear(&ferr);
    /* bounded by the model's file limit: /dev/zero is a file name too */
    errno = 0;
    if (jg__read_file(path, jg_setup_limits(s).file_bytes, &text, &len, &ferr)) {
        if (ferr.status == JG_IO && errno != EFBIG)   /* cannot open or read */
            return jg_setup_error(b, s, JG_IO, "File", "cannot read '%s': %s", path,
                                  strerror(errno ? errno : EIO));
        return jg_setup_error(b, s, ferr.status, "File", "%s", ferr.msg);
    }
    int rc = JG_BLOCK_DONE;
    char **fld = NULL;
    int64_t ncol = 0, nrow = 0, cap = 0;
    double *rows = NULL;   /* ncol values per row: time, then the outputs */
    long line = 0;
    long prev_line = 0;
    char *p = text;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3;   /* UTF-8 byte order mark */
    while (*p || line == 0) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        char *cr = p + strlen(p);
        if (cr > p && cr[-1] == '\r') cr[-1] = 0;
        line++;
        if (line == 1) {   /* the header */
            if (blank(p)) {
                rc = jg_setup_error(b, s, JG_PARAM, "File",
                                    "%s:1: expected a header row (time, then one column per "
                                    "output element), found %s",
                                    path, nl || *p ? "a blank line" : "an empty file");
                goto done;
            }
            ncol = split_fields(p, NULL, 0);
            if (ncol < 2) {
                rc = jg_setup_error(b, s, JG_PARAM, "File",
                                    "%s:1: the header has 1 column: expected time and at least "
                                    "one output column",
                                    path);
                goto done;
            }
            fld = malloc(sizeof *fld * (size_t)ncol);
            if (!fld) {
                rc = jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
                goto done;
            }
        } else if (!blank(p)) {
            int64_t nf = split_fields(p, fld, ncol);
            if (nf != ncol) {
                rc = jg_setup_error(b, s, JG_PARAM, "File",
                                    "%s:%ld: %lld fields, but the header has %lld columns", path,
                                    line, (long long)nf, (long long)ncol);
                goto done;
            }
            if (nrow == cap) {
                cap = cap ? 2 * cap : 64;
                double *nr = realloc(rows, sizeof(double) * (size_t)(cap * ncol));
                if (!nr) {
                    rc = jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
                    goto done;
                }
                rows = nr;
            }
            double *row = rows + nrow * ncol;
            for (int64_t k = 0; k < ncol; k++) {
                char *end = NULL;
                errno = 0;
                double v = strtod(fld[k], &end);
                if (!*fld[k] || *end) {
                    rc = jg_setup_error(b, s, JG_PARAM, "File",
                                        "%s:%ld: field %lld '%s' is not a number", path, line,
                                        (long long)k + 1, fld[k]);
                    goto done;
                }
                if (!isfinite(v)) {
                    rc = jg_setup_error(b, s, JG_PARAM, "File",
                                        "%s:%ld: field %lld '%s' is not a finite number", path,
                                        line, (long long)k + 1, fld[k]);
                    goto done;
                }
                row[k] = v;
            }
            if (nrow > 0 && !(row[0] > row[-ncol])) {
                rc = jg_setup_error(b, s, JG_PARAM, "File",
                                    "%s:%ld: time %.17g is not after %.17g on line %ld (times "
                                    "must increase strictly)",
                                    path, line, row[0], row[-ncol], prev_line);
                goto done;
            }
            prev_line = line;
            nrow++;
        }
        if (!nl) break;
        p = nl + 1;
    }
    if (nrow == 0) {
        rc = jg_setup_error(b, s, JG_PARAM, "File", "%s: no data rows after the header", path);
        goto done;
    }
    d->n = nrow;
    d->m = ncol - 1;
    d->t = jg_setup_alloc(s, sizeof(double) * (size_t)nrow);
    d->v = jg_setup_alloc(s, sizeof(double) * (size_t)(nrow * d->m));
    if (!d->t || !d->v) {
        rc = jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < nrow; k++) {
        d->t[k] = rows[k * ncol];
        memcpy(d->v + k * d->m, rows + k * ncol + 1, sizeof(double) * (size_t)d->m);
    }
    rc = jg_setup_ports(b, s, 0, 1);
done:
    free(rows);
    free(fld);
    free(text);
    return rc;
}

static int fw_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    b->out_w[0] = ((const fw_t *)b->data)->m;
    return JG_BLOCK_DONE;
}

static int fw_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const fw_t *d = b->data;
    double t = e->t, *y = e->y[0];
    int64_t m = d->m;
    if (!(t > d->t[0]) || d->n == 1) {   /* at or before the first row (NaN too) */
        memcpy(y, d->v, sizeof(double) * (size_t)m);
        return 0;
    }
    if (t >= d->t[d->n - 1]) {
        memcpy(y, d->v + (d->n - 1) * m, sizeof(double) * (size_t)m);
        return 0;
    }
    int64_t lo = 0, hi = d->n - 1;   /* t[lo] < t < t[hi] ... find t[lo] <= t < t[lo+1] */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (d->t[mid] <= t) lo = mid;
        else hi = mid;
    }
    double f = (t - d->t[lo]) / (d->t[lo + 1] - d->t[lo]);
    const double *a = d->v + lo * m, *c = a + m;
    for (int64_t i = 0; i < m; i++) y[i] = (1 - f) * a[i] + f * c[i];
    return 0;
}

const jg_block_type_t jg_block_fromworkspace = {
    .name = "FromWorkspace", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = fw_setup, .widths = fw_widths, .outputs = fw_outputs,
};
