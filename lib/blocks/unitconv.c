/* UnitConversion: y = a u + b converting a signal from InputUnit to
 * OutputUnit (Simulink's Unit Conversion block, whose units the importer
 * takes from the ports around it).
 *
 * A unit is a product of symbols with integer powers: "uV", "m/s^2",
 * "N*m", "kg.m^2", "1/s", "(m/s)^2", "1" (dimensionless).  A symbol is one
 * of the table below, optionally after an SI prefix (p n u µ m c h k M G) where
 * the table allows one ("mm", "kPa", "uV", "MHz"; "min" is minutes, not
 * milli-inches: an exact symbol wins over a prefix).  Every symbol is a scale
 * s times SI base units (m, kg, s, A, K, and two dimensions of their own:
 * rad for angles, count for counts), so a conversion exists when both units
 * reduce to the same base dimensions: a = s_in / s_out.  Angles stay a
 * dimension (rad, deg, rev, rpm = rev/min) so that Hz does not silently
 * become rad/s; counts (count) convert to nothing but counts.
 *
 * The temperatures degC and degF are affine (value in K = s u + offset) and
 * only stand alone: y = a u + b with a = s_in / s_out and
 * b = (offset_in - offset_out) / s_out; inside a product (degC/s) they are
 * refused, as a rate of change of an affine scale is ambiguous.  K and degR
 * are plain scales.
 *
 * The Jacobian is the constant a on the diagonal (affine: JG_BT_LINEAR; not
 * pure-linear because of b).  Errors at setup: an unknown symbol (naming the
 * unit and the parameter), a malformed unit, or units of different
 * dimensions (naming both units and their dimensions).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "block_impl.h"

enum { D_M, D_KG, D_S, D_A, D_K, D_RAD, D_COUNT, ND };
static const char *const dim_name[ND] = {"m", "kg", "s", "A", "K", "rad", "count"};

typedef struct {
    const char *sym;
    double scale, offset;     /* value in SI = scale * value + offset */
    signed char dim[ND];
    int prefix;               /* SI prefixes allowed */
} unit_def_t;

#define PI 3.14159265358979323846
/*            m  kg  s  A  K rad count */
static const unit_def_t units[] = {
    {"1", 1, 0, {0, 0, 0, 0, 0, 0, 0}, 0},
    {"m", 1, 0, {1, 0, 0, 0, 0, 0, 0}, 1},
    {"g", 1e-3, 0, {0, 1, 0, 0, 0, 0, 0}, 1},
    {"s", 1, 0, {0, 0, 1, 0, 0, 0, 0}, 1},
    {"A", 1, 0, {0, 0, 0, 1, 0, 0, 0}, 1},
    {"K", 1, 0, {0, 0, 0, 0, 1, 0, 0}, 1},
    {"rad", 1, 0, {0, 0, 0, 0, 0, 1, 0}, 1},
    {"count", 1, 0, {0, 0, 0, 0, 0, 0, 1}, 0},
    {"V", 1, 0, {2, 1, -3, -1, 0, 0, 0}, 1},
    {"W", 1, 0, {2, 1, -3, 0, 0, 0, 0}, 1},
    {"Ohm", 1, 0, {2, 1, -3, -2, 0, 0, 0}, 1},
    {"ohm", 1, 0, {2, 1, -3, -2, 0, 0, 0}, 1},
    {"\xce\xa9", 1, 0, {2, 1, -3, -2, 0, 0, 0}, 1},   /* Ω */
    {"Hz", 1, 0, {0, 0, -1, 0, 0, 0, 0}, 1},
    {"N", 1, 0, {1, 1, -2, 0, 0, 0, 0}, 1},
    {"Pa", 1, 0, {-1, 1, -2, 0, 0, 0, 0}, 1},
    {"J", 1, 0, {2, 1, -2, 0, 0, 0, 0}, 1},
    {"bar", 1e5, 0, {-1, 1, -2, 0, 0, 0, 0}, 1},
    {"L", 1e-3, 0, {3, 0, 0, 0, 0, 0, 0}, 1},
    {"min", 60, 0, {0, 0, 1, 0, 0, 0, 0}, 0},
    {"h", 3600, 0, {0, 0, 1, 0, 0, 0, 0}, 0},
    {"hr", 3600, 0, {0, 0, 1, 0, 0, 0, 0}, 0},
    {"deg", PI / 180, 0, {0, 0, 0, 0, 0, 1, 0}, 0},
    {"rev", 2 * PI, 0, {0, 0, 0, 0, 0, 1, 0}, 0},
    {"rpm", 2 * PI / 60, 0, {0, 0, -1, 0, 0, 1, 0}, 0},
    {"ft", 0.3048, 0, {1, 0, 0, 0, 0, 0, 0}, 0},
    {"in", 0.0254, 0, {1, 0, 0, 0, 0, 0, 0}, 0},
    {"yd", 0.9144, 0, {1, 0, 0, 0, 0, 0, 0}, 0},
    {"mi", 1609.344, 0, {1, 0, 0, 0, 0, 0, 0}, 0},
    {"mph", 0.44704, 0, {1, 0, -1, 0, 0, 0, 0}, 0},
    {"kph", 1 / 3.6, 0, {1, 0, -1, 0, 0, 0, 0}, 0},
    {"lbm", 0.45359237, 0, {0, 1, 0, 0, 0, 0, 0}, 0},
    {"lbf", 4.4482216152605, 0, {1, 1, -2, 0, 0, 0, 0}, 0},
    {"psi", 6894.757293168361, 0, {-1, 1, -2, 0, 0, 0, 0}, 0},
    {"atm", 101325, 0, {-1, 1, -2, 0, 0, 0, 0}, 0},
    {"degC", 1, 273.15, {0, 0, 0, 0, 1, 0, 0}, 0},
    {"degF", 5.0 / 9.0, 459.67 * 5.0 / 9.0, {0, 0, 0, 0, 1, 0, 0}, 0},
    {"degR", 5.0 / 9.0, 0, {0, 0, 0, 0, 1, 0, 0}, 0},
};

static const struct {
    const char *p;
    double f;
} prefixes[] = {{"p", 1e-12}, {"n", 1e-9}, {"u", 1e-6}, {"\xc2\xb5", 1e-6}, {"\xce\xbc", 1e-6},
                {"m", 1e-3},  {"c", 1e-2}, {"h", 1e2},  {"k", 1e3},         {"M", 1e6},
                {"G", 1e9}};

/* A parsed unit: scale, offset (affine temperatures only) and dimension. */
typedef struct {
    double scale, offset;
    int dim[ND];
} unit_t;

typedef struct {
    const char *p;
    const char *err;       /* static reason on failure */
    char bad[64];          /* the symbol that failed */
} parser_t;

static void skip_ws(parser_t *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t') ps->p++;
}

static int sym_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* Look a symbol up: exact first, then prefix + prefixable symbol. */
static const unit_def_t *find_symbol(const char *s, size_t n, double *factor)
{
    *factor = 1;
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (strlen(units[k].sym) == n && !strncmp(units[k].sym, s, n)) return &units[k];
    for (size_t j = 0; j < sizeof prefixes / sizeof *prefixes; j++) {
        size_t pl = strlen(prefixes[j].p);
        if (pl >= n || strncmp(prefixes[j].p, s, pl)) continue;
        for (size_t k = 0; k < sizeof units / sizeof *units; k++)
            if (units[k].prefix && strlen(units[k].sym) == n - pl &&
                !strncmp(units[k].sym, s + pl, n - pl)) {
                *factor = prefixes[j].f;
                return &units[k];
            }
    }
    return NULL;
}

/* Counts what the affine rule needs: symbols with an offset, and products
 * or powers (after which an offset has no meaning). */
typedef struct {
    int naffine, ncompound;
} affine_t;

static int parse_product(parser_t *ps, unit_t *u, int depth, affine_t *af);

/* factor := symbol | '(' product ')', then an optional '^' integer. */
static int parse_factor(parser_t *ps, unit_t *u, int depth, affine_t *af)
{
    skip_ws(ps);
    if (*ps->p == '(') {
        if (depth > 16) return ps->err = "parentheses nested too deeply", -1;
        ps->p++;
        if (parse_product(ps, u, depth + 1, af) < 0) return -1;
        skip_ws(ps);
        if (*ps->p != ')') return ps->err = "a '(' is not closed", -1;
        ps->p++;
    } else {
        const char *s = ps->p;
        while (sym_char((unsigned char)*ps->p)) ps->p++;
        size_t n = (size_t)(ps->p - s);
        if (!n) return ps->err = "expected a unit symbol", -1;
        double f;
        const unit_def_t *d = find_symbol(s, n, &f);
        if (!d) {
            snprintf(ps->bad, sizeof ps->bad, "%.*s", (int)(n < 60 ? n : 60), s);
            return ps->err = "unknown unit symbol", -1;
        }
        u->scale = f * d->scale;
        u->offset = d->offset;
        for (int k = 0; k < ND; k++) u->dim[k] = d->dim[k];
        if (d->offset != 0) af->naffine++;
    }
    skip_ws(ps);
    if (*ps->p == '^') {
        ps->p++;
        skip_ws(ps);
        int neg = 0;
        if (*ps->p == '-' || *ps->p == '+') neg = *ps->p++ == '-';
        if (*ps->p < '0' || *ps->p > '9') return ps->err = "expected an integer power after '^'", -1;
        int e = 0;
        while (*ps->p >= '0' && *ps->p <= '9' && e < 100) e = 10 * e + (*ps->p++ - '0');
        if (e >= 100) return ps->err = "power too large", -1;
        if (neg) e = -e;
        u->scale = pow(u->scale, e);
        for (int k = 0; k < ND; k++) u->dim[k] *= e;
        if (e != 1) af->ncompound++;
    }
    return 0;
}

/* product := factor (('*' | '.' | '/') factor)* */
static int parse_product(parser_t *ps, unit_t *u, int depth, affine_t *af)
{
    if (parse_factor(ps, u, depth, af) < 0) return -1;
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '*' && op != '.' && op != '/') return 0;
        ps->p++;
        unit_t v;
        if (parse_factor(ps, &v, depth, af) < 0) return -1;
        af->ncompound++;
        u->scale = op == '/' ? u->scale / v.scale : u->scale * v.scale;
        for (int k = 0; k < ND; k++) u->dim[k] += op == '/' ? -v.dim[k] : v.dim[k];
    }
}

/* Parse unit text; on failure an error naming the parameter. */
static int parse_unit(jg_block_t *b, jg_setup_t *s, const char *param, const char *text, unit_t *u)
{
    parser_t ps = {.p = text};
    affine_t af = {0, 0};
    memset(u, 0, sizeof *u);
    if (parse_product(&ps, u, 0, &af) == 0) {
        skip_ws(&ps);
        if (*ps.p) ps.err = "unexpected text";
    }
    if (ps.err) {
        if (ps.bad[0])
            return jg_setup_error(b, s, JG_PARAM, param,
                                  "unit \"%s\": unknown unit symbol '%s' (known: SI prefixes p n u "
                                  "m c h k M G on m g s A K rad V W Ohm Hz N Pa J bar L; 1 count "
                                  "min h deg rev rpm ft in yd mi mph kph lbm lbf psi atm degC "
                                  "degF degR; products, quotients and integer powers of them)",
                                  text, ps.bad);
        return jg_setup_error(b, s, JG_PARAM, param, "unit \"%s\": %s at offset %d", text, ps.err,
                              (int)(ps.p - text));
    }
    if (af.naffine && af.ncompound)
        return jg_setup_error(b, s, JG_PARAM, param,
                              "unit \"%s\": degC and degF are affine and must stand alone "
                              "(use K or degR in products and powers)",
                              text);
    return 0;
}

/* "kg m^2 s^-3 A^-1" (or "1"). */
static void dim_text(const unit_t *u, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < ND && len + 1 < n; k++) {
        if (!u->dim[k]) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " " : "", dim_name[k]);
        if (u->dim[k] != 1 && len < n) len += (size_t)snprintf(buf + len, n - len, "^%d", u->dim[k]);
    }
    if (!len) snprintf(buf, n, "1");
}

typedef struct {
    double a, b;
} unitconv_t;

static int unitconv_setup(jg_block_t *b, jg_setup_t *s)
{
    unitconv_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    static const char *const names[2] = {"InputUnit", "OutputUnit"};
    const char *text[2];
    unit_t u[2];
    for (int k = 0; k < 2; k++) {
        int r = jg_setup_str(b, s, names[k], &text[k]);
        if (r < 0) return JG_BLOCK_FAIL;
        if (r == 0)
            return jg_setup_error(b, s, JG_PARAM, names[k], "missing: expected a unit such as \"V\"");
        if (parse_unit(b, s, names[k], text[k], &u[k]) < 0) return JG_BLOCK_FAIL;
    }
    if (memcmp(u[0].dim, u[1].dim, sizeof u[0].dim)) {
        char d0[96], d1[96];
        dim_text(&u[0], d0, sizeof d0);
        dim_text(&u[1], d1, sizeof d1);
        return jg_setup_error(b, s, JG_PARAM, "OutputUnit",
                              "cannot convert from \"%s\" (%s) to \"%s\" (%s): the dimensions "
                              "differ",
                              text[0], d0, text[1], d1);
    }
    d->a = u[0].scale / u[1].scale;
    d->b = (u[0].offset - u[1].offset) / u[1].scale;
    return jg_setup_ports(b, s, 1, 1);
}

static int unitconv_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int unitconv_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const unitconv_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = d->a * e->u[0][i] + d->b;
    return 0;
}

static int unitconv_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const unitconv_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = d->a;
    return 0;
}

const jg_block_type_t jg_block_unitconversion = {
    .name = "UnitConversion", .flags = JG_BT_LINEAR,
    .setup = unitconv_setup, .widths = jg__widths_same, .pattern = unitconv_pattern,
    .outputs = unitconv_outputs, .jacobian = unitconv_jacobian,
};
