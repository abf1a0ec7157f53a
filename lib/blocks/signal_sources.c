/* Signal sources of Simulink's Sources library: SignalGenerator, DigitalClock,
 * RepeatingSequence and BandLimitedWhiteNoise.
 *
 * Like the time sources (time_sources.c) they have no inputs and declare no
 * Jacobian parts: linearization sees their outputs at the operating point's
 * time as constants.  Vector parameters give a vector output, scalars expand.
 *
 * Discontinuous waveforms (SignalGenerator square and sawtooth, the period
 * wrap of RepeatingSequence) switch at major steps only, as Step does: a
 * discrete state per element holds the index of the current piece (period or
 * half period), in minor steps the output follows that held piece, and a zero
 * crossing (p - k)(p - k - 1), with p the continuous phase and k the held
 * index, rises where p leaves [k, k + 1] in either direction, so the
 * simulator places a major step on the switch time.  At major steps and in
 * linearization the output follows t.
 *
 * Random numbers are counter based and so reproducible across runs and
 * independent of the solver's evaluations: draw n of stream `seed` uses the
 * splitmix64 outputs 2n and 2n + 1 of that seed (Steele, Lea and Flood 2014:
 * z = seed + j 0x9E3779B97F4A7C15 through the splitmix64 finalizer), turned
 * into uniforms in (0, 1) from their top 53 bits, and, for a normal draw,
 * into N(0, 1) by Box-Muller (sqrt(-2 ln u1) cos(2 pi u2)).  MATLAB's own
 * generators are not reproduced: the sequences differ from Simulink's.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "block_impl.h"
#include "random.h"

#define TWO_PI 6.283185307179586476925286766559

/* Only the simulation time drives these sources. */
static int sim_time_only(jg_block_t *b, jg_setup_t *s)
{
    return jg__param_literal(b, s, "TimeSource", "Use simulation time",
                             "an external time input is not supported");
}

/* ---------------------------------------------------- counter-based noise */

/* ---------------------------------------------------------- held pieces */

/* The zero-crossing signal of a piecewise waveform with phase p and held
 * piece k: negative inside [k, k + 1], rising through zero where p leaves it. */
static double piece_zc(double p, double k)
{
    return (p - k) * (p - k - 1);
}

/* One rising zero crossing and one held piece per element. */
static int pieces_declare(jg_block_t *b, jg_setup_t *s, int64_t w)
{
    signed char *dir = jg_setup_alloc(s, (size_t)w + 1);
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memset(dir, JG_ZC_RISING, (size_t)w);
    if (jg_setup_zc(b, s, w, dir) < 0 || jg_setup_dstates(b, s, w) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

/* ------------------------------------------------------- SignalGenerator */

/* SignalGenerator: WaveForm (literal) "sine" (default), "square", "sawtooth"
 * or "random"; Amplitude A (1) and Frequency F (1), in Units (literal)
 * "Hertz" (default) or "rad/sec" (f = F / 2 pi Hz); TimeSource "Use
 * simulation time" only.  As Simulink's generated code computes them, with
 * p = f t and r = p - floor(p):
 *   sine      A sin(2 pi f t)   (rad/sec: A sin(F t))
 *   square    A where r >= 0.5, else -A   (-A over the first half period)
 *   sawtooth  A (1 - 2 r)       (from A down to -A, jumping back to A)
 *   random    uniform in [-A, A], a new draw at every major step, held in
 *             minor steps (draw n of stream 0x5EED + element index); F unused.
 * Square and sawtooth switch at major steps (see the top of this file); their
 * pieces are half periods (square, phase 2 p) and periods (sawtooth). */
enum { WF_SINE, WF_SQUARE, WF_SAWTOOTH, WF_RANDOM };

typedef struct {
    int64_t w;
    jg_value_t amp, freq;
    int wave, hertz;
} sg_t;

static int sg_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[2] = {"Amplitude", "Frequency"};
    static const double defs[2] = {1, 1};
    static const char *const waves[4] = {"sine", "square", "sawtooth", "random"};
    sg_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v[2];
    if ((d->w = jg__param_vectors(b, s, names, defs, 2, v)) < 0) return JG_BLOCK_FAIL;
    d->amp = v[0];
    d->freq = v[1];
    const char *str = "sine";
    if (jg_setup_str(b, s, "WaveForm", &str) < 0) return JG_BLOCK_FAIL;
    d->wave = -1;
    for (int k = 0; k < 4; k++)
        if (!strcmp(str, waves[k])) d->wave = k;
    if (d->wave < 0)
        return jg_setup_error(b, s, JG_PARAM, "WaveForm",
                              "expected \"sine\", \"square\", \"sawtooth\" or \"random\", got \"%s\"",
                              str);
    str = "Hertz";
    if (jg_setup_str(b, s, "Units", &str) < 0) return JG_BLOCK_FAIL;
    if (strcmp(str, "Hertz") && strcmp(str, "rad/sec"))
        return jg_setup_error(b, s, JG_PARAM, "Units", "expected \"Hertz\" or \"rad/sec\", got \"%s\"",
                              str);
    d->hertz = !strcmp(str, "Hertz");
    if (sim_time_only(b, s) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 0, 1);
}

static int sg_widths(jg_block_t *b, jg_setup_t *s)
{
    const sg_t *d = b->data;
    b->out_w[0] = d->w;
    if (d->wave == WF_SQUARE || d->wave == WF_SAWTOOTH) return pieces_declare(b, s, d->w);
    if (d->wave == WF_RANDOM) return jg_setup_dstates(b, s, 1) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
    return JG_BLOCK_DONE;
}

/* The phase whose integer part is the piece: f t (sawtooth), 2 f t (square). */
static double sg_phase(const sg_t *d, int64_t i, double t)
{
    double f = d->hertz ? jg__param_at(&d->freq, i) : jg__param_at(&d->freq, i) / TWO_PI;
    return (d->wave == WF_SQUARE ? 2 : 1) * f * t;
}

static int sg_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const sg_t *d = b->data;
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < d->w; i++) {
        double A = jg__param_at(&d->amp, i), F = jg__param_at(&d->freq, i), y;
        switch (d->wave) {
        case WF_SINE:
            y = A * sin((d->hertz ? TWO_PI * F : F) * e->t);
            break;
        case WF_SQUARE: {
            double k = held ? e->xd[i] : floor(sg_phase(d, i, e->t));
            y = fmod(k, 2) != 0 ? A : -A;   /* odd half period: r >= 0.5 */
            break;
        }
        case WF_SAWTOOTH: {
            double p = sg_phase(d, i, e->t), k = held ? e->xd[i] : floor(p);
            y = A * (1 - 2 * (p - k));
            break;
        }
        default: {   /* random: draw xd[0] at a major step, the last one in between */
            double n = e->xd[0] - (held && e->xd[0] > 0 ? 1 : 0);
            y = A * (2 * jg__rand_uniform(UINT64_C(0x5EED) + (uint64_t)i, (uint64_t)n) - 1);
            break;
        }
        }
        e->y[0][i] = y;
    }
    return 0;
}

static int sg_update(const jg_block_t *b, jg_eval_t *e)
{
    const sg_t *d = b->data;
    if (d->wave == WF_RANDOM) {
        if (!e->init) e->xdw[0] += 1;
        return 0;
    }
    if (d->wave == WF_SINE) return 0;
    for (int64_t i = 0; i < d->w; i++) e->xdw[i] = floor(sg_phase(d, i, e->t));
    return 0;
}

static int sg_zc(const jg_block_t *b, jg_eval_t *e)
{
    const sg_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nzc(b); i++) e->zcv[i] = piece_zc(sg_phase(d, i, e->t), e->xd[i]);
    return 0;
}

const jg_block_type_t jg_block_signalgenerator = {
    .name = "SignalGenerator", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = sg_setup, .widths = sg_widths, .outputs = sg_outputs,
    .update = sg_update, .zc = sg_zc,
};

/* ---------------------------------------------------------- DigitalClock */

/* DigitalClock: y = t at the block's sample hits, held in between; a
 * discrete source, SampleTime default 1 (Simulink's). */
static int dclock_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 0, 1);
}

static int dclock_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    if (isnan(b->ts.period)) b->ts = (jg_ts_t){1, 0};   /* no SampleTime given */
    b->out_w[0] = 1;
    return JG_BLOCK_DONE;
}

static int dclock_outputs(const jg_block_t *b, jg_eval_t *e)
{
    (void)b;
    e->y[0][0] = e->t;
    return 0;
}

const jg_block_type_t jg_block_digitalclock = {
    .name = "DigitalClock", .flags = JG_BT_SOURCE | JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = dclock_setup, .widths = dclock_widths, .outputs = dclock_outputs,
};

/* ----------------------------------------------------- RepeatingSequence */

/* RepeatingSequence (the library block simulink/Sources/Repeating Sequence):
 * rep_seq_t ([0 2]) times, non-decreasing, with last > first, and rep_seq_y
 * ([0 2]) values, as many.  y = interp1(rep_seq_t, rep_seq_y, t0 + mod(t -
 * t0, T)) with t0 the first time and T = last - first: piecewise linear,
 * repeated with period T (before t0 too).  A repeated time is a jump; the
 * output there takes the later value.  The period wrap switches at a major
 * step (a zero crossing, see the top of this file); jumps inside the table
 * happen wherever the steps fall. */
typedef struct {
    int64_t n;
    const double *t, *y;
    double t0, T;
} rs_t;

static int rs_setup(jg_block_t *b, jg_setup_t *s)
{
    static const double two[2] = {0, 2};
    rs_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t tv = {0, 0, NULL}, yv = {0, 0, NULL};
    if (jg_setup_num(b, s, "rep_seq_t", &tv) < 0 || jg_setup_num(b, s, "rep_seq_y", &yv) < 0)
        return JG_BLOCK_FAIL;
    d->t = tv.x ? tv.x : two;
    d->y = yv.x ? yv.x : two;
    if (!tv.x) tv.rows = 1, tv.cols = 2;
    if (!yv.x) yv.rows = 1, yv.cols = 2;
    d->n = jg_value_numel(&tv);
    if (d->n < 2 || (tv.rows != 1 && tv.cols != 1))
        return jg_setup_error(b, s, JG_PARAM, "rep_seq_t",
                              "expected a vector of at least 2 times, got %lldx%lld",
                              (long long)tv.rows, (long long)tv.cols);
    if (jg_value_numel(&yv) != d->n || (yv.rows != 1 && yv.cols != 1))
        return jg_setup_error(b, s, JG_PARAM, "rep_seq_y",
                              "expected a vector of %lld values (one per time in rep_seq_t), got "
                              "%lldx%lld",
                              (long long)d->n, (long long)yv.rows, (long long)yv.cols);
    for (int64_t k = 0; k < d->n; k++) {
        if (!isfinite(d->t[k]) || !isfinite(d->y[k]))
            return jg_setup_error(b, s, JG_PARAM, isfinite(d->t[k]) ? "rep_seq_y" : "rep_seq_t",
                                  "element %lld is not a finite number", (long long)k + 1);
        if (k > 0 && d->t[k] < d->t[k - 1])
            return jg_setup_error(b, s, JG_PARAM, "rep_seq_t",
                                  "element %lld (%g) is before element %lld (%g): expected "
                                  "non-decreasing times",
                                  (long long)k + 1, d->t[k], (long long)k, d->t[k - 1]);
    }
    d->t0 = d->t[0];
    d->T = d->t[d->n - 1] - d->t0;
    if (!(d->T > 0))
        return jg_setup_error(b, s, JG_PARAM, "rep_seq_t",
                              "the last time must be after the first (the period is last - first)");
    return jg_setup_ports(b, s, 0, 1);
}

static int rs_widths(jg_block_t *b, jg_setup_t *s)
{
    b->out_w[0] = 1;
    return pieces_declare(b, s, 1);
}

/* The table at tau in [t0, t0 + T]: the last segment starting at or before
 * tau, so a repeated time takes the later value.  Past the end (minor steps
 * beyond a wrap, until the simulator cuts the step there) the last segment
 * continues: the solver then integrates a smooth function up to the event. */
static double rs_table(const rs_t *d, double tau)
{
    int64_t n = d->n;
    if (!(tau > d->t[0])) tau = d->t[0];
    if (tau >= d->t[n - 1]) {
        if (tau == d->t[n - 1] || d->t[n - 1] == d->t[n - 2]) return d->y[n - 1];
        return d->y[n - 2] + (tau - d->t[n - 2]) / (d->t[n - 1] - d->t[n - 2]) * (d->y[n - 1] - d->y[n - 2]);
    }
    int64_t lo = 0, hi = d->n - 1;   /* t[lo] <= tau < t[hi] */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (d->t[mid] <= tau) lo = mid;
        else hi = mid;
    }
    double f = (tau - d->t[lo]) / (d->t[lo + 1] - d->t[lo]);
    return d->y[lo] + f * (d->y[lo + 1] - d->y[lo]);
}

static int rs_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const rs_t *d = b->data;
    double p = (e->t - d->t0) / d->T;
    double k = e->sim && !e->major ? e->xd[0] : floor(p);
    /* t0 + mod(t - t0, T), computed from the period index */
    e->y[0][0] = rs_table(d, e->t - k * d->T);
    return 0;
}

static int rs_update(const jg_block_t *b, jg_eval_t *e)
{
    const rs_t *d = b->data;
    e->xdw[0] = floor((e->t - d->t0) / d->T);
    return 0;
}

static int rs_zc(const jg_block_t *b, jg_eval_t *e)
{
    const rs_t *d = b->data;
    e->zcv[0] = piece_zc((e->t - d->t0) / d->T, e->xd[0]);
    return 0;
}

const jg_block_type_t jg_block_repeatingsequence = {
    .name = "RepeatingSequence", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = rs_setup, .widths = rs_widths, .outputs = rs_outputs,
    .update = rs_update, .zc = rs_zc,
};

/* ------------------------------------------------- BandLimitedWhiteNoise */

/* BandLimitedWhiteNoise (the library block simulink/Sources/Band-Limited
 * White Noise): Cov (0.1, the noise power), Ts (0.1, the sample time, which
 * replaces any SampleTime), seed (23341; integers from 0 to 2^53).  A
 * discrete source: at hit n = round(t / Ts) element i outputs
 * sqrt(Cov_i / Ts) N(0, 1), draw n of stream seed_i (see the top of this
 * file), held until the next hit.  Cov and seed are scalars or vectors of
 * the output width (a vector seed gives a vector output). */
typedef struct {
    int64_t w;
    jg_value_t cov, seed;
    double ts;
} wn_t;

static int wn_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[2] = {"Cov", "seed"};
    static const double defs[2] = {0.1, 23341};
    wn_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v[2], ts;
    if ((d->w = jg__param_vectors(b, s, names, defs, 2, v)) < 0) return JG_BLOCK_FAIL;
    d->cov = v[0];
    d->seed = v[1];
    for (int64_t i = 0; i < jg_value_numel(&d->cov); i++)
        if (d->cov.x[i] < 0)
            return jg_setup_error(b, s, JG_PARAM, "Cov", "element %lld is %g: expected a noise power >= 0",
                                  (long long)i + 1, d->cov.x[i]);
    for (int64_t i = 0; i < jg_value_numel(&d->seed); i++)
        if (!jg_is_int(d->seed.x[i], 0, 0x1p53))
            return jg_setup_error(b, s, JG_PARAM, "seed",
                                  "element %lld is %g: expected an integer from 0 to 2^53",
                                  (long long)i + 1, d->seed.x[i]);
    if (jg_setup_num_def(b, s, "Ts", &ts, 0.1) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&ts) != 1 || !(ts.x[0] > 0) || !isfinite(ts.x[0]))
        return jg_setup_error(b, s, JG_PARAM, "Ts", "expected a sample time > 0");
    d->ts = ts.x[0];
    return jg_setup_ports(b, s, 0, 1);
}

static int wn_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    const wn_t *d = b->data;
    b->ts = (jg_ts_t){d->ts, 0};
    b->out_w[0] = d->w;
    return JG_BLOCK_DONE;
}

static int wn_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const wn_t *d = b->data;
    double n = nearbyint(e->t / d->ts);
    uint64_t k = n > 0 && n < 0x1p63 ? (uint64_t)n : 0;   /* before t = 0: draw 0 */
    for (int64_t i = 0; i < d->w; i++)
        e->y[0][i] = sqrt(jg__param_at(&d->cov, i) / d->ts) * jg__rand_normal((uint64_t)jg__param_at(&d->seed, i), k);
    return 0;
}

const jg_block_type_t jg_block_bandlimitedwhitenoise = {
    .name = "BandLimitedWhiteNoise", .flags = JG_BT_SOURCE | JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = wn_setup, .widths = wn_widths, .outputs = wn_outputs,
};
