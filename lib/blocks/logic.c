/* Comparisons and Boolean logic: RelationalOperator and Logic, with 0/1
 * double outputs.
 *
 * Both are piecewise constant: their Jacobian parts are declared empty (the
 * direct feedthrough the sorted order needs, without a graph edge).
 * RelationalOperator registers zero crossings as Simulink does (ZeroCross
 * "on" by default): u1 - u2 per output element, and holds its result in a
 * discrete state between major steps, as Switch does (lib/blocks/
 * discontinuous.c), so its output changes only at the major step the
 * simulator places on the crossing.  Logic has no zero crossings in Simulink
 * (its inputs are usually comparisons that do); neither here.
 */
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"


/* Data-type and icon parameters Simulink saves with these blocks: every
 * output here is a double 0/1, so they are read (not reported as unknown)
 * and ignored. */
static int ignore_types(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[] = {"OutDataTypeStr", "LogicOutDataTypeMode", "LogicDataType",
                                        "InputSameDT", "AllPortsSameDT", "IconShape"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        jg__param_ignore(b, s, names[k]);
    }
    return JG_BLOCK_DONE;
}

/* ---------------------------------------------------- RelationalOperator */

/* RelationalOperator: y = (u1 op u2) element-wise with scalar expansion,
 * Operator (literal) "==", "~=", "<", "<=", ">=" (default) or ">"; the
 * one-input operators of newer releases (isInf, isNaN, isFinite) are
 * refused.  ZeroCross "on" (default) / "off". */
enum { REL_EQ, REL_NE, REL_LT, REL_LE, REL_GE, REL_GT };

typedef struct {
    int op;
    int zc;      /* zero crossings and the held result */
} rel_t;

static int rel_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[] = {"==", "~=", "<", "<=", ">=", ">"};
    rel_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *op = NULL;
    int r = jg_setup_str(b, s, "Operator", &op);
    if (r < 0) return JG_BLOCK_FAIL;
    d->op = r == 0 ? REL_GE : -1;
    for (int k = 0; r > 0 && k < 6; k++)
        if (!strcmp(op, names[k])) d->op = k;
    if (d->op < 0) {
        if (!strcmp(op, "isInf") || !strcmp(op, "isNaN") || !strcmp(op, "isFinite"))
            return jg_setup_error(b, s, JG_PARAM, "Operator",
                                  "the one-input operator \"%s\" is not supported: expected one "
                                  "of ==, ~=, <, <=, >=, >",
                                  op);
        return jg_setup_error(b, s, JG_PARAM, "Operator",
                              "expected one of ==, ~=, <, <=, >=, >, got \"%s\"", op);
    }
    const char *zc = NULL;
    r = jg_setup_str(b, s, "ZeroCross", &zc);
    if (r < 0) return JG_BLOCK_FAIL;
    d->zc = 1;
    if (r > 0) {
        if (!strcmp(zc, "off"))
            d->zc = 0;
        else if (strcmp(zc, "on"))
            return jg_setup_error(b, s, JG_PARAM, "ZeroCross", "expected \"on\" or \"off\", got \"%s\"",
                                  zc);
    }
    if (ignore_types(b, s) < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 2, 1);
}

static int rel_widths(jg_block_t *b, jg_setup_t *s)
{
    int r = jg_widths_elementwise(b, s);
    if (r != JG_BLOCK_DONE) return r;
    const rel_t *d = b->data;
    int64_t n = d->zc ? b->out_w[0] : 0;
    if (jg_setup_zc(b, s, n, NULL) < 0 || jg_setup_dstates(b, s, n) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static double rel_u(const jg_block_t *b, const jg_eval_t *e, int p, int64_t i)
{
    return e->u[p][b->in_w[p] == 1 ? 0 : i];
}

static int rel_value(const jg_block_t *b, const jg_eval_t *e, int64_t i)
{
    const rel_t *d = b->data;
    double u1 = rel_u(b, e, 0, i), u2 = rel_u(b, e, 1, i);
    switch (d->op) {
    case REL_EQ: return u1 == u2;
    case REL_NE: return u1 != u2;
    case REL_LT: return u1 < u2;
    case REL_LE: return u1 <= u2;
    case REL_GT: return u1 > u2;
    default: return u1 >= u2;
    }
}

static int rel_outputs(const jg_block_t *b, jg_eval_t *e)
{
    int held = e->sim && !e->major && jg_block_nd(b) > 0;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = held ? e->xd[i] : rel_value(b, e, i);
    return 0;
}

/* The simulator counts u1 - u2 reaching zero as crossed: at such an event
 * the held result is that of the side the difference went to (u1 > u2 after
 * a rising crossing), or the crossing to come would be taken for the same
 * one. */
static int rel_update(const jg_block_t *b, jg_eval_t *e)
{
    const rel_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nd(b); i++) {
        int v = rel_value(b, e, i);
        if (e->zc_fired && e->zc_fired[i] && rel_u(b, e, 0, i) == rel_u(b, e, 1, i)) {
            int up = e->zc_fired[i] > 0;
            switch (d->op) {
            case REL_EQ: v = 0; break;
            case REL_NE: v = 1; break;
            case REL_LT: case REL_LE: v = !up; break;
            default: v = up; break;
            }
        }
        e->xdw[i] = v;
    }
    return 0;
}

static int rel_zc(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < jg_block_nzc(b); i++) e->zcv[i] = rel_u(b, e, 0, i) - rel_u(b, e, 1, i);
    return 0;
}

const jg_block_type_t jg_block_relationaloperator = {
    .name = "RelationalOperator", .flags = 0,
    .setup = rel_setup, .widths = rel_widths, .pattern = jg_pattern_zero_slope,
    .outputs = rel_outputs, .jacobian = jg_jac_zero, .update = rel_update, .zc = rel_zc,
};

/* ----------------------------------------------------------------- Logic */

/* Logic: Operator (literal) "AND" (default), "OR", "NAND", "NOR", "XOR"
 * (odd number of true inputs), "NXOR" (even) or "NOT"; Inputs: the number of
 * input ports (2 default, 1 to 1024; a number, a numeric string or a
 * workspace name), ignored by NOT, which has one input.  A nonzero input is
 * true.  Element-wise with scalar expansion; one input (other than NOT)
 * reduces over its elements to a scalar, as Simulink does. */
enum { LOG_AND, LOG_OR, LOG_NAND, LOG_NOR, LOG_XOR, LOG_NXOR, LOG_NOT };

typedef struct {
    int op;
} logic_t;

static int logic_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[] = {"AND", "OR", "NAND", "NOR", "XOR", "NXOR", "NOT"};
    logic_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *op = NULL;
    int r = jg_setup_str(b, s, "Operator", &op);
    if (r < 0) return JG_BLOCK_FAIL;
    d->op = r == 0 ? LOG_AND : -1;
    for (int k = 0; r > 0 && k < 7; k++)
        if (!strcmp(op, names[k])) d->op = k;
    if (d->op < 0)
        return jg_setup_error(b, s, JG_PARAM, "Operator",
                              "expected one of AND, OR, NAND, NOR, XOR, NXOR, NOT, got \"%s\"", op);
    const char *str;
    double n;
    r = jg__param_port_count(b, s, 2, &n, &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (ignore_types(b, s) < 0) return JG_BLOCK_FAIL;
    if (d->op == LOG_NOT) return jg_setup_ports(b, s, 1, 1);
    if (!jg_is_int(n, 1, 1024)) return jg__param_port_count_error(b, s, r, str);
    return jg_setup_ports(b, s, (int)n, 1);
}

static int logic_widths(jg_block_t *b, jg_setup_t *s)
{
    const logic_t *d = b->data;
    if (d->op != LOG_NOT) return jg_widths_elementwise(b, s);
    return jg__widths_same(b, s);
}

static int logic_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const logic_t *d = b->data;
    int reduce = b->nin == 1 && d->op != LOG_NOT;
    int64_t ncand = reduce ? b->in_w[0] : b->nin;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int64_t ntrue = 0;
        for (int64_t k = 0; k < ncand; k++) {
            double u = reduce ? e->u[0][k] : e->u[k][b->in_w[k] == 1 ? 0 : i];
            ntrue += u != 0;
        }
        int v;
        switch (d->op) {
        case LOG_OR: v = ntrue > 0; break;
        case LOG_NAND: v = ntrue < ncand; break;
        case LOG_NOR: v = ntrue == 0; break;
        case LOG_XOR: v = ntrue % 2 == 1; break;
        case LOG_NXOR: v = ntrue % 2 == 0; break;
        case LOG_NOT: v = ntrue == 0; break;
        default: v = ntrue == ncand; break;
        }
        e->y[0][i] = v;
    }
    return 0;
}

const jg_block_type_t jg_block_logic = {
    .name = "Logic", .flags = 0,
    .setup = logic_setup, .widths = logic_widths, .pattern = jg_pattern_zero_slope,
    .outputs = logic_outputs, .jacobian = jg_jac_zero,
};
