/* Signal selection and conversion: MultiPortSwitch, Width, and the
 * pass-through blocks SignalConversion, Reshape, SignalSpecification and
 * DataTypeConversion.
 *
 * Every signal here is a 1-D vector of doubles, so the conversions are
 * identities: virtual blocks (route() maps element k to element k, as Mux
 * does in lib/blocks/routing.c) that cost nothing in the graph.
 * DataTypeConversion to an integer, fixed-point or boolean type is not an
 * identity in Simulink (it rounds and saturates): such an instance becomes
 * a real block in setup(), which clears b->virt (the compiler decides
 * virtual blocks per instance before setup from the type's flags, and reads
 * b->virt again after it).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

/* ------------------------------------------------------- MultiPortSwitch */

/* MultiPortSwitch: input 1 is the control (a scalar), inputs 2.. the data.
 * Inputs: the number of data ports (3 default; a number or numeric string);
 * lists of case values ("{1,2,3}") and DataPortOrder "Specify indices" are
 * not supported.  DataPortOrder "One-based contiguous" (default) or
 * "Zero-based contiguous" (the older zeroidx "on"/"off" when DataPortOrder is
 * absent).  The control selects data port fix(control) (truncated toward
 * zero, as Simulink).  Out of range: DataPortForDefault "Last data port"
 * (default) or "Additional data port" (one more data port, the last);
 * DiagnosticForDefault "Error" (default: an evaluation error), "Warning" or
 * "None" (both take the default port: the library does not print).
 * Data inputs: element-wise with scalar expansion (Sum's rule); one data port
 * (Simulink's Index Vector) selects an element of its vector instead.
 *
 * Switching like Switch: the selection (the truncated control, clamped to
 * one below / above the valid range) is held in a discrete state between
 * major steps, and two zero-crossing signals, control - lower and upper -
 * control for the bounds of the held selection's interval, turn negative
 * where it changes (ZeroCross "off" disables both).  Simulink's Multiport
 * Switch has no zero crossings: its output changes inside solver steps.
 * Jacobian: the control's part is empty; one part per data port, 1 on the
 * selected one, 0 on the others. */
typedef struct {
    int ndata;        /* data ports, the additional one included */
    int base;         /* 0 or 1: the control value of the first data port */
    int additional;   /* DataPortForDefault "Additional data port" */
    int error;        /* DiagnosticForDefault "Error" */
    int zc;
    int64_t nsel;     /* selectable ports or elements (widths) */
} msw_t;

static int msw_setup(jg_block_t *b, jg_setup_t *s)
{
    msw_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *str = NULL;
    jg_value_t num;
    double n = 3;
    /* a list of case values ("{1,2,3}", a MATLAB cell array) is not a count */
    int r = jg_setup_str(b, s, "Inputs", &str);
    if (r < 0) jg_error_clear(s->err);   /* a number: read below */
    if (r > 0 && str[strspn(str, " ")] == '{')
        return jg_setup_error(b, s, JG_PARAM, "Inputs",
                              "expected a count of data ports from 1 to 1024, got \"%s\" (lists "
                              "of case values are not supported)",
                              str);
    r = jg_setup_str_or_num(b, s, "Inputs", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        char *end = NULL;
        n = strtod(str, &end);
        if (end == str || *end) n = -1;
    } else if (r == 2) {
        n = jg_value_numel(&num) == 1 ? num.x[0] : -1;
    }
    if (!jg_is_int(n, 1, 1024)) {
        if (r == 1)
            return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                  "expected a count of data ports from 1 to 1024, got \"%s\" (lists "
                                  "of case values are not supported)",
                                  str);
        return jg_setup_error(b, s, JG_PARAM, "Inputs",
                              "expected a count of data ports from 1 to 1024 (lists of case values "
                              "are not supported)");
    }
    const char *v = NULL;
    d->base = 1;
    r = jg_setup_str(b, s, "DataPortOrder", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(v, "Zero-based contiguous"))
            d->base = 0;
        else if (strcmp(v, "One-based contiguous"))
            return jg_setup_error(b, s, JG_PARAM, "DataPortOrder",
                                  "expected \"One-based contiguous\" or \"Zero-based contiguous\", "
                                  "got \"%s\" (specified indices are not supported)",
                                  v);
        if (jg__param_ignore(b, s, "zeroidx") < 0) return JG_BLOCK_FAIL;
    } else {
        r = jg_setup_str(b, s, "zeroidx", &v);
        if (r < 0) return JG_BLOCK_FAIL;
        if (r > 0) {
            if (!strcmp(v, "on"))
                d->base = 0;
            else if (strcmp(v, "off"))
                return jg_setup_error(b, s, JG_PARAM, "zeroidx",
                                      "expected \"on\" or \"off\", got \"%s\"", v);
        }
    }
    r = jg_setup_str(b, s, "DataPortForDefault", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(v, "Additional data port"))
            d->additional = 1;
        else if (strcmp(v, "Last data port"))
            return jg_setup_error(b, s, JG_PARAM, "DataPortForDefault",
                                  "expected \"Last data port\" or \"Additional data port\", got "
                                  "\"%s\"",
                                  v);
    }
    d->error = 1;
    r = jg_setup_str(b, s, "DiagnosticForDefault", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(v, "Warning") || !strcmp(v, "None"))
            d->error = 0;
        else if (strcmp(v, "Error"))
            return jg_setup_error(b, s, JG_PARAM, "DiagnosticForDefault",
                                  "expected \"Error\", \"Warning\" or \"None\", got \"%s\"", v);
    }
    d->zc = 1;
    r = jg_setup_str(b, s, "ZeroCross", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(v, "off"))
            d->zc = 0;
        else if (strcmp(v, "on"))
            return jg_setup_error(b, s, JG_PARAM, "ZeroCross", "expected \"on\" or \"off\", got \"%s\"",
                                  v);
    }
    static const char *const ignored[] = {"OutDataTypeStr", "OutMin", "OutMax", "RndMeth",
                                          "SaturateOnIntegerOverflow", "InputSameDT", "LockScale",
                                          "AllowDiffInputSizes"};
    for (size_t k = 0; k < sizeof ignored / sizeof *ignored; k++)
        if (jg__param_ignore(b, s, ignored[k]) < 0) return JG_BLOCK_FAIL;
    d->ndata = (int)n + d->additional;
    if (d->additional && n == 1)
        return jg_setup_error(b, s, JG_PARAM, "DataPortForDefault",
                              "\"Additional data port\" needs at least 2 data ports (one data port "
                              "selects elements of its vector)");
    return jg_setup_ports(b, s, 1 + d->ndata, 1);
}

static int msw_widths(jg_block_t *b, jg_setup_t *s)
{
    msw_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    if (b->in_w[0] != 1)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "the control input (port 1) has width %lld: expected a scalar",
                              (long long)b->in_w[0]);
    if (d->ndata == 1) {   /* Index Vector: an element of the data vector */
        b->out_w[0] = 1;
        if (b->in_w[1] < 0) {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[1] = 1;
        }
        d->nsel = b->in_w[1];
    } else {   /* element-wise over the data ports */
        int64_t w = -1;
        int unknown = 0;
        for (int p = 1; p < b->nin; p++) {
            if (b->in_w[p] < 0) {
                unknown++;
            } else if (b->in_w[p] != 1) {
                if (w > 1 && b->in_w[p] != w)
                    return jg_setup_error(b, s, JG_WIDTH, NULL,
                                          "data input %d (port %d) has width %lld but another has "
                                          "width %lld (only scalars expand)",
                                          p, p + 1, (long long)b->in_w[p], (long long)w);
                w = b->in_w[p];
            }
        }
        if (w > 1) b->out_w[0] = w;
        if (unknown) {
            if (!s->force) return JG_BLOCK_AGAIN;
            for (int p = 1; p < b->nin; p++)
                if (b->in_w[p] < 0) b->in_w[p] = w > 1 ? w : 1;
        }
        b->out_w[0] = w > 1 ? w : 1;
        d->nsel = d->ndata - d->additional;
    }
    /* both fall when the control leaves the held interval */
    static const signed char dir[2] = {JG_ZC_FALLING, JG_ZC_FALLING};
    int64_t n = d->zc ? 2 : 0;
    if (jg_setup_zc(b, s, n, dir) < 0 || jg_setup_dstates(b, s, n ? 1 : 0) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int msw_pattern(jg_block_t *b, jg_setup_t *s)
{
    /* the control: feedthrough with slope 0 (a dense zero column, see jg_jac_zero) */
    if (jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0) return -1;
    for (int p = 1; p < b->nin; p++) {
        int k = b->in_w[p] == b->out_w[0] ? jg_jac_diag(b, s, JG_JAC_D, 0, p)
                                           : jg_jac_dense(b, s, JG_JAC_D, 0, p);
        if (k < 0) return -1;
    }
    return 0;
}

/* The selection class of control value u: fix(u), clamped to base - 1 (below
 * the range) and base + nsel (above; NaN too). */
static double msw_class(const msw_t *d, double u)
{
    double lo = d->base - 1, hi = (double)(d->base + d->nsel);
    double c = trunc(u);
    return c >= lo && c <= hi ? c : c < lo ? lo : hi;
}

/* The interval of control values of class c: (lower, upper) bounds with the
 * zero crossings there (infinite: none). */
static void msw_bounds(const msw_t *d, double c, double *lower, double *upper)
{
    double lo = d->base - 1, hi = (double)(d->base + d->nsel);
    if (c <= lo) {   /* fix(u) < base: u < base for base 1, u <= -1 for base 0 */
        *lower = -INFINITY;
        *upper = d->base ? 1.0 : -1.0;
    } else if (c >= hi) {   /* fix(u) >= hi (>= 1): u >= hi */
        *lower = hi;
        *upper = INFINITY;
    } else if (c > 0) {
        *lower = c;
        *upper = c + 1;
    } else if (c < 0) {
        *lower = c - 1;
        *upper = c;
    } else {
        *lower = -1;
        *upper = 1;
    }
}

/* The selected data port (0-based among the data ports) or element, or -1
 * when out of range with DiagnosticForDefault "Error". */
static int64_t msw_select(const msw_t *d, double c)
{
    int64_t k = (int64_t)(c - d->base);
    if (k >= 0 && k < d->nsel) return k;
    if (d->error) return -1;
    return d->ndata == 1 ? d->nsel - 1 : d->ndata - 1;
}

/* The selection at this evaluation (held in a simulation's minor steps), or
 * -1 after an evaluation error. */
static int64_t msw_current(const jg_block_t *b, jg_eval_t *e)
{
    const msw_t *d = b->data;
    int held = e->sim && !e->major && jg_block_nd(b) > 0;
    double u = e->u[0][0], c = held ? e->xd[0] : msw_class(d, u);
    int64_t k = msw_select(d, c);
    if (k < 0) {
        int64_t last = d->base + d->nsel - 1;
        jg_eval_error(b, e,
                      "control input %g selects no data %s (valid: %d to %lld, truncated toward "
                      "zero; DiagnosticForDefault is \"Error\")",
                      u, d->ndata == 1 ? "element" : "port", d->base, (long long)last);
    }
    return k;
}

static int msw_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const msw_t *d = b->data;
    int64_t k = msw_current(b, e);
    if (k < 0) return -1;
    jg_jac_zero(b, e);
    if (d->ndata == 1) {
        e->y[0][0] = e->u[1][k];
        return 0;
    }
    int p = 1 + (int)k;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = e->u[p][b->in_w[p] == 1 ? 0 : i];
    return 0;
}

static int msw_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const msw_t *d = b->data;
    int64_t k = msw_current(b, e);
    if (k < 0) return -1;
    jg_jac_zero(b, e);
    if (d->ndata == 1) {   /* part 1: a 1 x w row, entry j is column j */
        for (int64_t j = 0; j < b->in_w[1]; j++) e->jac[1]->x[j] = j == k ? 1.0 : 0.0;
        return 0;
    }
    /* parts 1..ndata: diagonal or an expanded column, entry i either way */
    for (int p = 1; p < b->nin; p++)
        for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[p]->x[i] = p == 1 + k ? 1.0 : 0.0;
    return 0;
}

/* The simulator counts a signal that reaches zero as crossed: a control that
 * lands exactly on a bound of the held interval (fix() puts it inside when
 * the interval is closed there) moves on to the interval it was heading
 * for, or the crossing to come would be taken for the same one. */
static int msw_update(const jg_block_t *b, jg_eval_t *e)
{
    const msw_t *d = b->data;
    double u = e->u[0][0], c = msw_class(d, u), lower, upper;
    if (e->zc_fired && c == e->xd[0]) {
        msw_bounds(d, c, &lower, &upper);
        if (e->zc_fired[0] && u <= lower)
            c = msw_class(d, nextafter(lower, -INFINITY));
        else if (e->zc_fired[1] && u >= upper)
            c = msw_class(d, nextafter(upper, INFINITY));
    }
    e->xdw[0] = c;
    return 0;
}

static int msw_zc(const jg_block_t *b, jg_eval_t *e)
{
    double lower, upper, u = e->u[0][0];
    msw_bounds(b->data, e->xd[0], &lower, &upper);
    e->zcv[0] = isinf(lower) ? 1.0 : u - lower;
    e->zcv[1] = isinf(upper) ? 1.0 : upper - u;
    return 0;
}

const jg_block_type_t jg_block_multiportswitch = {
    .name = "MultiPortSwitch", .flags = 0,
    .setup = msw_setup, .widths = msw_widths, .pattern = msw_pattern,
    .outputs = msw_outputs, .jacobian = msw_jacobian, .update = msw_update, .zc = msw_zc,
};

/* ----------------------------------------------------------------- Width */

/* Width: the number of elements of its input, a constant (constant sample
 * time, no direct feedthrough, no Jacobian). */
static int width_setup(jg_block_t *b, jg_setup_t *s)
{
    if (jg__param_ignore(b, s, "OutDataTypeMode") < 0 || jg__param_ignore(b, s, "DataType") < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int width_widths(jg_block_t *b, jg_setup_t *s)
{
    b->out_w[0] = 1;
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    return JG_BLOCK_DONE;
}

static int width_outputs(const jg_block_t *b, jg_eval_t *e)
{
    e->y[0][0] = (double)b->in_w[0];
    return 0;
}

const jg_block_type_t jg_block_width = {
    .name = "Width", .flags = JG_BT_LINEAR | JG_BT_CONSTANT,
    .setup = width_setup, .widths = width_widths, .outputs = width_outputs,
};

/* ------------------------------------------- virtual pass-through blocks */

static int identity_route(const jg_block_t *b, int outport, int64_t elem, int *inport,
                          int64_t *inelem)
{
    (void)b;
    (void)outport;
    *inport = 0;
    *inelem = elem;
    return 0;
}

/* SignalConversion: ConversionOutput (any: signal copy, virtual or
 * nonvirtual bus) and OutDataTypeStr are accepted and ignored. */
static int sigconv_setup(jg_block_t *b, jg_setup_t *s)
{
    if (jg__param_ignore(b, s, "ConversionOutput") < 0 || jg__param_ignore(b, s, "OutDataTypeStr") < 0 ||
        jg__param_ignore(b, s, "OverrideOpt") < 0)
        return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

const jg_block_type_t jg_block_signalconversion = {
    .name = "SignalConversion", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = sigconv_setup, .widths = jg__widths_same, .route = identity_route,
};

/* Reshape: OutputDimensionality "1-D array" (default), "Column vector (2-D)",
 * "Row vector (2-D)" or "Customize" (OutputDimensions, whose product must be
 * the width); signals are 1-D vectors here, so the widths are unchanged.
 * "Derive from reference input port" (a second input) is not supported. */
typedef struct {
    int64_t numel;   /* Customize: prod(OutputDimensions); -1 otherwise */
} reshape_t;

static int reshape_setup(jg_block_t *b, jg_setup_t *s)
{
    reshape_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->numel = -1;
    static const char *const dimensionality[4] = {"1-D array", "Column vector (2-D)",
                                                  "Row vector (2-D)", "Customize"};
    int k = jg__param_choice(b, s, "OutputDimensionality", dimensionality, 4,
                             "\"1-D array\", \"Column vector (2-D)\", \"Row vector (2-D)\" or "
                             "\"Customize\"");
    if (k < 0) return JG_BLOCK_FAIL;
    jg_value_t dims;
    int rd = jg_setup_num(b, s, "OutputDimensions", &dims);
    if (rd < 0) return JG_BLOCK_FAIL;
    if (k == 3) {   /* Customize */
        if (rd == 0 || jg_value_numel(&dims) == 0)
            return jg_setup_error(b, s, JG_PARAM, "OutputDimensions",
                                  "missing: \"Customize\" needs the output dimensions");
        d->numel = 1;
        for (int64_t k = 0; k < jg_value_numel(&dims); k++) {
            if (!jg_is_int(dims.x[k], 1, 1e9))
                return jg_setup_error(b, s, JG_PARAM, "OutputDimensions",
                                      "element %lld is %g: expected a positive integer",
                                      (long long)k + 1, dims.x[k]);
            d->numel *= (int64_t)dims.x[k];
            if (d->numel > (int64_t)1 << 40)
                return jg_setup_error(b, s, JG_PARAM, "OutputDimensions", "too many elements");
        }
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int reshape_widths(jg_block_t *b, jg_setup_t *s)
{
    const reshape_t *d = b->data;
    if (b->in_w[0] < 0 && b->out_w[0] < 0 && d->numel > 0) b->in_w[0] = d->numel;
    int r = jg__widths_same(b, s);
    if (r != JG_BLOCK_DONE) return r;
    if (d->numel > 0 && b->in_w[0] != d->numel)
        return jg_setup_error(b, s, JG_WIDTH, "OutputDimensions",
                              "have %lld elements but the input has width %lld",
                              (long long)d->numel, (long long)b->in_w[0]);
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_reshape = {
    .name = "Reshape", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = reshape_setup, .widths = reshape_widths, .route = identity_route,
};

/* SignalSpecification: Dimensions -1 (inherited, default) or the signal's
 * dimensions, whose product must be its width; the data type, range,
 * sample time and signal type options are accepted and ignored. */
static int sigspec_setup(jg_block_t *b, jg_setup_t *s)
{
    reshape_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->numel = -1;
    jg_value_t dims;
    int r = jg_setup_num(b, s, "Dimensions", &dims);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && !(jg_value_numel(&dims) == 1 && dims.x[0] == -1)) {
        if (jg_value_numel(&dims) == 0)
            return jg_setup_error(b, s, JG_PARAM, "Dimensions",
                                  "expected -1 (inherited) or positive dimensions");
        d->numel = 1;
        for (int64_t k = 0; k < jg_value_numel(&dims); k++) {
            if (!jg_is_int(dims.x[k], 1, 1e9))
                return jg_setup_error(b, s, JG_PARAM, "Dimensions",
                                      "element %lld is %g: expected -1 (inherited) or positive "
                                      "integer dimensions",
                                      (long long)k + 1, dims.x[k]);
            d->numel *= (int64_t)dims.x[k];
            if (d->numel > (int64_t)1 << 40)
                return jg_setup_error(b, s, JG_PARAM, "Dimensions", "too many elements");
        }
    }
    static const char *const ignored[] = {"OutDataTypeStr", "OutMin", "OutMax", "SampleTime",
                                          "SignalType", "SamplingMode", "VarSizeSig",
                                          "BusOutputAsStruct", "LockScale"};
    for (size_t k = 0; k < sizeof ignored / sizeof *ignored; k++)
        if (jg__param_ignore(b, s, ignored[k]) < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int sigspec_widths(jg_block_t *b, jg_setup_t *s)
{
    const reshape_t *d = b->data;
    if (b->in_w[0] < 0 && b->out_w[0] < 0 && d->numel > 0) b->in_w[0] = d->numel;
    int r = jg__widths_same(b, s);
    if (r != JG_BLOCK_DONE) return r;
    if (d->numel > 0 && b->in_w[0] != d->numel)
        return jg_setup_error(b, s, JG_WIDTH, "Dimensions",
                              "declare %lld elements but the signal has width %lld",
                              (long long)d->numel, (long long)b->in_w[0]);
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_signalspecification = {
    .name = "SignalSpecification", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = sigspec_setup, .widths = sigspec_widths, .route = identity_route,
};

/* ---------------------------------------------------- DataTypeConversion */

/* DataTypeConversion: OutDataTypeStr names the output type (the older
 * OutDataTypeMode / OutDataType pair when it is absent).  "double", "single"
 * (its rounding to single precision is ignored), "Inherit: ..." and the
 * default: a virtual pass-through.  An integer type (int8 ... uint64),
 * "boolean" or a binary-point fixed-point type fixdt(Signed, WordLength,
 * FractionLength): a real block that rounds (RndMeth "Floor", "Zero"
 * (default), "Nearest" (half up), "Round" (half away from zero), "Ceiling",
 * "Convergent" (half to even) or "Simplest" (taken as "Zero")) to the type's
 * resolution and, with SaturateOnIntegerOverflow "on" (default), saturates
 * to its range, or else wraps; boolean is u ~= 0.  Its slope is 0 (an empty
 * d part).  ConvertRealWorld, LockScale, OutMin and OutMax are accepted and
 * ignored.  Other types (fixdt with slope and bias, aliases, enumerations)
 * are refused. */
enum { RM_FLOOR, RM_ZERO, RM_NEAREST, RM_ROUND, RM_CEILING, RM_CONVERGENT };

typedef struct {
    int boolean;
    int rnd;
    int saturate;
    double scale;        /* the resolution 2^-FractionLength */
    double lo, hi;       /* stored-integer range */
    double span;         /* hi - lo + 1, for wrapping */
} dtc_t;

/* The integer type of name t: 1 and its range, 0 not an integer type name. */
static int int_type(const char *t, double *lo, double *hi)
{
    static const struct {
        const char *name;
        int bits, sign;
    } types[] = {{"int8", 8, 1},   {"uint8", 8, 0},   {"int16", 16, 1}, {"uint16", 16, 0},
                 {"int32", 32, 1}, {"uint32", 32, 0}, {"int64", 64, 1}, {"uint64", 64, 0}};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        if (!strcmp(t, types[k].name)) {
            int bits = types[k].bits;
            *lo = types[k].sign ? -ldexp(1, bits - 1) : 0;
            *hi = types[k].sign ? ldexp(1, bits - 1) - 1 : ldexp(1, bits) - 1;
            return 1;
        }
    return 0;
}

/* fixdt(s, wl, fl) with integer arguments: 1 and the range and scale, 0 not
 * of that form. */
static int fixdt_type(const char *t, double *lo, double *hi, double *scale)
{
    long a[4];
    int n = 0;
    const char *c = t + strlen("fixdt(");
    if (strncmp(t, "fixdt(", 6)) return 0;
    for (;;) {
        while (*c == ' ') c++;
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c || n == 4) return 0;
        a[n++] = v;
        c = end;
        while (*c == ' ') c++;
        if (*c == ',') {
            c++;
            continue;
        }
        if (*c == ')' && c[1] == '\0') break;
        return 0;
    }
    if (n != 3 || (a[0] != 0 && a[0] != 1) || a[1] < 1 || a[1] > 64 || a[2] < -1024 || a[2] > 1024)
        return 0;
    int bits = (int)a[1];
    *lo = a[0] ? -ldexp(1, bits - 1) : 0;
    *hi = a[0] ? ldexp(1, bits - 1) - 1 : ldexp(1, bits) - 1;
    *scale = ldexp(1, -(int)a[2]);
    return 1;
}

static int dtc_setup(jg_block_t *b, jg_setup_t *s)
{
    dtc_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *t = NULL, *param = "OutDataTypeStr";
    int r = jg_setup_str(b, s, "OutDataTypeStr", &t);
    if (r < 0) return JG_BLOCK_FAIL;
    const char *mode = NULL, *dt = NULL;
    int rm = jg_setup_str(b, s, "OutDataTypeMode", &mode);
    int rt = jg_setup_str(b, s, "OutDataType", &dt);
    if (rm < 0 || rt < 0) return JG_BLOCK_FAIL;
    if (r == 0 && rm > 0) {   /* before OutDataTypeStr (R2007b and older) */
        param = "OutDataTypeMode";
        t = mode;
        if (!strcmp(mode, "Specify via dialog")) {
            param = "OutDataType";
            t = rt > 0 ? dt : "";
        }
    }
    if (!t || !strncmp(t, "Inherit", 7) || !strcmp(t, "double") || !strcmp(t, "single") ||
        !strcmp(t, "auto")) {
        static const char *const ignored[] = {"RndMeth", "SaturateOnIntegerOverflow",
                                              "ConvertRealWorld", "LockScale", "OutMin", "OutMax",
                                              "OutScaling", "SampleTime"};
        for (size_t k = 0; k < sizeof ignored / sizeof *ignored; k++)
            if (jg__param_ignore(b, s, ignored[k]) < 0) return JG_BLOCK_FAIL;
        return jg_setup_ports(b, s, 1, 1);   /* stays virtual */
    }
    d->scale = 1;
    if (!strcmp(t, "boolean")) {
        d->boolean = 1;
    } else if (!int_type(t, &d->lo, &d->hi) && !fixdt_type(t, &d->lo, &d->hi, &d->scale)) {
        return jg_setup_error(b, s, JG_PARAM, param,
                              "unsupported output data type \"%s\": expected double, single, "
                              "boolean, int8 ... uint64, fixdt(signed, word length, fraction "
                              "length) or \"Inherit: ...\"",
                              t);
    }
    d->span = d->hi - d->lo + 1;
    static const char *const rnames[] = {"Floor", "Zero", "Nearest", "Round", "Ceiling",
                                         "Convergent"};
    const char *v = NULL;
    d->rnd = RM_ZERO;
    r = jg_setup_str(b, s, "RndMeth", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && strcmp(v, "Simplest")) {
        d->rnd = -1;
        for (int k = 0; k < 6; k++)
            if (!strcmp(v, rnames[k])) d->rnd = k;
        if (d->rnd < 0)
            return jg_setup_error(b, s, JG_PARAM, "RndMeth",
                                  "expected one of Floor, Zero, Nearest, Round, Ceiling, "
                                  "Convergent, Simplest, got \"%s\"",
                                  v);
    }
    d->saturate = 1;
    r = jg_setup_str(b, s, "SaturateOnIntegerOverflow", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(v, "off"))
            d->saturate = 0;
        else if (strcmp(v, "on"))
            return jg_setup_error(b, s, JG_PARAM, "SaturateOnIntegerOverflow",
                                  "expected \"on\" or \"off\", got \"%s\"", v);
    }
    static const char *const ignored[] = {"ConvertRealWorld", "LockScale", "OutMin", "OutMax",
                                          "OutScaling"};
    for (size_t k = 0; k < sizeof ignored / sizeof *ignored; k++)
        if (jg__param_ignore(b, s, ignored[k]) < 0) return JG_BLOCK_FAIL;
    b->virt = 0;   /* a real block: it rounds */
    return jg_setup_ports(b, s, 1, 1);
}

static double dtc_round(int rnd, double v)
{
    switch (rnd) {
    case RM_FLOOR: return floor(v);
    case RM_CEILING: return ceil(v);
    case RM_NEAREST: return floor(v + 0.5);
    case RM_ROUND: return round(v);
    case RM_CONVERGENT: {   /* half to even */
        double r = round(v);
        return fabs(v - trunc(v)) == 0.5 ? 2 * round(v / 2) : r;
    }
    default: return trunc(v);
    }
}

static int dtc_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const dtc_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][i], v;
        if (d->boolean) {
            e->y[0][i] = u != 0;
            continue;
        }
        if (isnan(u)) {   /* Simulink converts NaN to integer 0 */
            e->y[0][i] = 0;
            continue;
        }
        v = dtc_round(d->rnd, u / d->scale);
        if (v < d->lo || v > d->hi) {
            if (d->saturate || isinf(v)) {
                v = v < d->lo ? d->lo : d->hi;
            } else {
                v = fmod(v - d->lo, d->span);
                v = (v < 0 ? v + d->span : v) + d->lo;
            }
        }
        e->y[0][i] = v * d->scale;
    }
    return 0;
}


const jg_block_type_t jg_block_datatypeconversion = {
    .name = "DataTypeConversion", .flags = JG_BT_VIRTUAL,
    .setup = dtc_setup, .widths = jg__widths_same, .pattern = jg_pattern_zero_slope,
    .outputs = dtc_outputs, .jacobian = jg_jac_zero, .route = identity_route,
};
