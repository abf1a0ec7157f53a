/* LookupNDDirect: Simulink's Direct Lookup Table (n-D) for 1-D and 2-D
 * tables selecting one element: the inputs are zero-based indices.
 *
 * 1-D: y = Table(k + 1) with k = clamp(fix(u), 0, n - 1), element-wise on a
 * vector input.  2-D: y = Table(i + 1, j + 1), u1 the row index i (table
 * dimension 1) and u2 the column index j (dimension 2), element-wise with
 * scalar expansion.  fix() truncates toward zero, as Simulink casts a
 * floating-point index to an integer; an index outside the table is clipped
 * to its first or last entry (a NaN index counts as 0), unless
 * DiagnosticForOutOfRangeInput is "Error", which stops the run instead.
 *
 * Parameters: NumberOfTableDimensions (1 or 2; Simulink's default 2), Table
 * (a vector for 1-D, a matrix for 2-D), InputsSelectThisObjectFromTable
 * ("Element" only: selecting a column or a 2-D matrix is refused),
 * TableIsInput ("off" only: a table fed through a port is refused) and
 * DiagnosticForOutOfRangeInput ("None", "Warning" -- the default -- or
 * "Error"; the library prints nothing, so "Warning" clips as "None" does).
 *
 * The output is piecewise constant in the inputs: its Jacobian is zero.  Its
 * d parts (one per input, diagonal, or a column for a scalar that expands)
 * are declared with their full pattern and filled with zeros, as Sign's: the
 * compiler derives direct feedthrough from d parts with entries, and without
 * it the block could be sorted before its drivers and read last step's
 * indices.  Like Rounding, the block registers no zero crossings: Simulink's
 * has none.
 */
#include <math.h>
#include <string.h>
#include "block_impl.h"

enum { DIAG_NONE, DIAG_WARNING, DIAG_ERROR };

typedef struct {
    int dims;
    int diag;
    jg_value_t table;   /* row-major */
    int64_t n[2];       /* extent along each indexed dimension */
} direct_t;

/* A parameter that, when present, must be the literal want (what else it
 * could be is not supported: why). */
static int only_literal(jg_block_t *b, jg_setup_t *s, const char *param, const char *want,
                        const char *why)
{
    const char *str = NULL;
    int r = jg_setup_str(b, s, param, &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && strcmp(str, want))
        return jg_setup_error(b, s, JG_PARAM, param, "is \"%s\": only \"%s\" is supported (%s)",
                              str, want, why);
    return JG_BLOCK_DONE;
}

static int direct_setup(jg_block_t *b, jg_setup_t *s)
{
    direct_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t nd;
    if (jg_setup_num_def(b, s, "NumberOfTableDimensions", &nd, 2) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&nd) != 1 || !jg_is_int(nd.x[0], 1, 30))
        return jg_setup_error(b, s, JG_PARAM, "NumberOfTableDimensions",
                              "expected 1 or 2 (a number of table dimensions)");
    if (nd.x[0] > 2)
        return jg_setup_error(b, s, JG_PARAM, "NumberOfTableDimensions",
                              "is %g: only 1-D and 2-D direct lookup tables are supported",
                              nd.x[0]);
    d->dims = (int)nd.x[0];

    if (only_literal(b, s, "InputsSelectThisObjectFromTable", "Element",
                     "selecting a column, vector or 2-D matrix of the table is not") ||
        only_literal(b, s, "TableIsInput", "off",
                     "the table must be the Table parameter, not an input signal"))
        return JG_BLOCK_FAIL;
    const char *str = NULL;
    int r;
    d->diag = DIAG_WARNING;
    r = jg_setup_str(b, s, "DiagnosticForOutOfRangeInput", &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(str, "None"))
            d->diag = DIAG_NONE;
        else if (!strcmp(str, "Error"))
            d->diag = DIAG_ERROR;
        else if (strcmp(str, "Warning"))
            return jg_setup_error(b, s, JG_PARAM, "DiagnosticForOutOfRangeInput",
                                  "expected \"None\", \"Warning\" or \"Error\", got \"%s\"", str);
    }

    r = jg_setup_num(b, s, "Table", &d->table);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 &&
        jg_setup_check_size(b, s, "Table", jg_value_numel(&d->table), "table entries") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* from an expression (zeros(n, n)): sized by the element limit */
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, "Table", "missing: expected %s",
                              d->dims == 1 ? "a vector of output values"
                                           : "a matrix of output values");
    if (jg_value_numel(&d->table) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Table", "expected a non-empty table");
    if (d->dims == 1) {
        if (d->table.rows != 1 && d->table.cols != 1)
            return jg_setup_error(b, s, JG_PARAM, "Table",
                                  "is %lldx%lld: a 1-D table must be a vector "
                                  "(NumberOfTableDimensions is 1)",
                                  (long long)d->table.rows, (long long)d->table.cols);
        d->n[0] = jg_value_numel(&d->table);
    } else {
        d->n[0] = d->table.rows;
        d->n[1] = d->table.cols;
    }
    return jg_setup_ports(b, s, d->dims, 1);
}

static int direct_widths(jg_block_t *b, jg_setup_t *s)
{
    const direct_t *d = b->data;
    if (d->dims == 2) return jg_widths_elementwise(b, s);
    return jg__widths_same(b, s);
}

/* One d part per input with its pattern (filled with zeros): feedthrough. */
static int direct_pattern(jg_block_t *b, jg_setup_t *s)
{
    for (int p = 0; p < b->nin; p++) {
        int r = b->in_w[p] == b->out_w[0] ? jg_jac_diag(b, s, JG_JAC_D, 0, p)
                                          : jg_jac_dense(b, s, JG_JAC_D, 0, p);
        if (r < 0) return -1;
    }
    return 0;
}

/* The zero-based index of u along an extent of n entries, clipped; -1 after
 * jg_eval_error when the diagnostic is "Error" and u is out of range. */
static int64_t direct_index(const jg_block_t *b, jg_eval_t *e, double u, int64_t n, int port)
{
    const direct_t *d = b->data;
    double k = trunc(u);   /* NaN stays NaN: neither comparison below holds */
    if (d->diag == DIAG_ERROR && !(k >= 0 && k <= (double)(n - 1))) {
        jg_eval_error(b, e,
                      "input %d is %g, outside the table's indices 0 to %lld "
                      "(DiagnosticForOutOfRangeInput is \"Error\")",
                      port + 1, u, (long long)(n - 1));
        return -1;
    }
    if (!(k > 0)) return 0;   /* negative, zero or NaN */
    return k >= (double)(n - 1) ? n - 1 : (int64_t)k;
}

static int direct_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const direct_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int64_t r = direct_index(b, e, e->u[0][b->in_w[0] == 1 ? 0 : i], d->n[0], 0);
        if (r < 0) return -1;
        if (d->dims == 1) {
            e->y[0][i] = d->table.x[r];
            continue;
        }
        int64_t c = direct_index(b, e, e->u[1][b->in_w[1] == 1 ? 0 : i], d->n[1], 1);
        if (c < 0) return -1;
        e->y[0][i] = d->table.x[r * d->table.cols + c];
    }
    return 0;
}

static int direct_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int k = 0; k < b->npart; k++) {   /* slope 0 everywhere */
        cs_dl *m = e->jac[k];
        for (int64_t q = 0; q < m->p[m->n]; q++) m->x[q] = 0.0;
    }
    return 0;
}

const jg_block_type_t jg_block_lookupnddirect = {
    .name = "LookupNDDirect", .flags = 0,
    .setup = direct_setup, .widths = direct_widths, .pattern = direct_pattern,
    .outputs = direct_outputs, .jacobian = direct_jacobian,
};
