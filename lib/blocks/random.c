/* Random sources: RandomNumber (normal: Mean, Variance) and
 * UniformRandomNumber (uniform in [Minimum, Maximum]), each with a Seed, and
 * the counter-based generator they draw from (random.h).
 *
 * The generator is the one BandLimitedWhiteNoise uses (signal_sources.c keeps
 * its own static copy; the formulas are the same): splitmix64 keyed by the
 * seed and the draw index, so the sequence of a block depends on its Seed
 * only.  MATLAB's 'v4' generator is not reproduced: the numbers differ from
 * Simulink's, their distribution does not.
 *
 * Parameters are scalars or vectors of one common length (scalars expand);
 * that length is the output width.  Seed: integers from 0 to 2^53.  Element
 * i of draw n (the n-th sample hit, n = 0 at the first one) is the draw
 * n w + i of stream Seed_i (w the width), so a scalar seed still gives
 * distinct elements.  A discrete SampleTime makes a new draw at each hit,
 * held in between (Simulink's default is inherited, which for a source is
 * continuous: then, as Simulink does, a new draw at each major step, held
 * in minor steps).  A discrete state counts the draws.  No inputs, no
 * Jacobian: linearization sees the first draw as a constant. */
#include <math.h>
#include <stdint.h>
#include "block_impl.h"
#include "random.h"

#define TWO_PI 6.283185307179586476925286766559

double jg__rand_uniform(uint64_t seed, uint64_t j)
{
    uint64_t z = seed + (j + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

double jg__rand_normal(uint64_t seed, uint64_t n)
{
    double u1 = jg__rand_uniform(seed, 2 * n), u2 = jg__rand_uniform(seed, 2 * n + 1);
    return sqrt(-2 * log(u1)) * cos(TWO_PI * u2);
}

typedef struct {
    int normal;        /* RandomNumber; else UniformRandomNumber */
    jg_value_t a, b;   /* Mean, Variance / Minimum, Maximum */
    jg_value_t seed;
    int64_t w;
} rnd_t;

static int rnd_setup(jg_block_t *b, jg_setup_t *s, int normal)
{
    static const char *const nnames[3] = {"Mean", "Variance", "Seed"};
    static const char *const unames[3] = {"Minimum", "Maximum", "Seed"};
    static const double ndefs[3] = {0, 1, 0}, udefs[3] = {-1, 1, 0};
    const char *const *names = normal ? nnames : unames;
    const double *defs = normal ? ndefs : udefs;
    rnd_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->normal = normal;
    jg_value_t v[3];
    if ((d->w = jg__param_vectors(b, s, names, defs, 3, v)) < 0) return JG_BLOCK_FAIL;
    d->a = v[0], d->b = v[1], d->seed = v[2];
    for (int64_t i = 0; i < d->w; i++) {
        if (normal && jg__param_at(&d->b, i) < 0)
            return jg_setup_error(b, s, JG_PARAM, "Variance", "element %lld is %g: expected >= 0",
                                  (long long)i + 1, jg__param_at(&d->b, i));
        if (!normal && !(jg__param_at(&d->a, i) <= jg__param_at(&d->b, i)))
            return jg_setup_error(b, s, JG_PARAM, "Maximum",
                                  "element %lld is %g, below Minimum %g", (long long)i + 1,
                                  jg__param_at(&d->b, i), jg__param_at(&d->a, i));
    }
    for (int64_t i = 0; i < jg_value_numel(&d->seed); i++)
        if (!jg_is_int(d->seed.x[i], 0, 0x1p53))
            return jg_setup_error(b, s, JG_PARAM, "Seed",
                                  "element %lld is %g: expected an integer from 0 to 2^53",
                                  (long long)i + 1, d->seed.x[i]);
    return jg_setup_ports(b, s, 0, 1);
}

static int normal_setup(jg_block_t *b, jg_setup_t *s) { return rnd_setup(b, s, 1); }
static int uniform_setup(jg_block_t *b, jg_setup_t *s) { return rnd_setup(b, s, 0); }

static int rnd_widths(jg_block_t *b, jg_setup_t *s)
{
    const rnd_t *d = b->data;
    b->out_w[0] = d->w;
    return jg_setup_dstates(b, s, 1) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

/* Draw xd[0] at a hit or major step; in a continuous block's minor steps the
 * previous one (still the output of the last major step). */
static int rnd_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const rnd_t *d = b->data;
    int held = e->sim && !e->major && e->xd[0] > 0;
    uint64_t n = (uint64_t)e->xd[0] - (held ? 1 : 0);
    for (int64_t i = 0; i < d->w; i++) {
        uint64_t seed = (uint64_t)jg__param_at(&d->seed, i), j = n * (uint64_t)d->w + (uint64_t)i;
        double a = jg__param_at(&d->a, i), c = jg__param_at(&d->b, i);
        e->y[0][i] = d->normal ? a + sqrt(c) * jg__rand_normal(seed, j)
                               : a + (c - a) * jg__rand_uniform(seed, j);
    }
    return 0;
}

static int rnd_update(const jg_block_t *b, jg_eval_t *e)
{
    (void)b;
    if (!e->init) e->xdw[0] += 1;
    return 0;
}

const jg_block_type_t jg_block_randomnumber = {
    .name = "RandomNumber", .flags = JG_BT_SOURCE,
    .setup = normal_setup, .widths = rnd_widths, .outputs = rnd_outputs, .update = rnd_update,
};

const jg_block_type_t jg_block_uniformrandomnumber = {
    .name = "UniformRandomNumber", .flags = JG_BT_SOURCE,
    .setup = uniform_setup, .widths = rnd_widths, .outputs = rnd_outputs, .update = rnd_update,
};
