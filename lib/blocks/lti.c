/* StateSpace, TransferFcn and ZeroPole: continuous LTI systems x' = Ax + Bu,
 * y = Cx + Du.  TransferFcn and ZeroPole are realized in MATLAB's controllable
 * canonical form at setup and kept as its coefficients (O(degree)). */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    int64_t n, m, p;          /* states, input width, output width */
    jg_value_t a, b, c, d;    /* row-major n x n, n x m, p x n, p x m */
    jg_value_t ic;            /* scalar or n initial states */
    int ka, kb, kc, kd;       /* part indices, -1 for an all-zero matrix */
} ss_t;

/* A zero-filled rows x cols value in the arena (x == NULL when empty). */
static int value_zeros(jg_setup_t *s, jg_value_t *v, int64_t rows, int64_t cols)
{
    v->rows = rows;
    v->cols = cols;
    v->x = NULL;
    if (rows * cols == 0) return 0;
    v->x = jg_setup_alloc(s, sizeof(double) * (size_t)(rows * cols));
    return v->x ? 0 : -1;
}

static int ss_alloc(jg_block_t *b, jg_setup_t *s, ss_t **out)
{
    ss_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->ka = d->kb = d->kc = d->kd = -1;
    *out = d;
    return JG_BLOCK_DONE;
}

/* ------------------------------------------------------------ StateSpace */

/* B (n rows, by_rows) or C (n columns) of a state-space block with n states
 * from A: non-empty and n along that side, or empty when A is (n = 0). */
static int ss_side(jg_block_t *b, jg_setup_t *s, const char *name, const jg_value_t *M, int64_t n,
                   int by_rows)
{
    if (n == 0) {
        if (jg_value_numel(M) == 0) return JG_BLOCK_DONE;
        return jg_setup_error(b, s, JG_PARAM, name,
                              "expected an empty matrix because A is empty (no states), "
                              "got %lldx%lld",
                              (long long)M->rows, (long long)M->cols);
    }
    if (jg_value_numel(M) == 0)
        return jg_setup_error(b, s, JG_PARAM, name, "expected %lld %s (rows of A), got an empty matrix",
                              (long long)n, by_rows ? "rows" : "columns");
    if ((by_rows ? M->rows : M->cols) != n)
        return jg_setup_error(b, s, JG_PARAM, name, "expected %lldx%lld (%s), got %lldx%lld",
                              (long long)(by_rows ? n : M->rows), (long long)(by_rows ? M->cols : n),
                              by_rows ? "rows of A x input width" : "output width x rows of A",
                              (long long)M->rows, (long long)M->cols);
    return JG_BLOCK_DONE;
}

/* A, B, C, D and InitialCondition of a state-space block, checked (shared
 * with DiscreteStateSpace, lib/blocks/discrete.c). */
int jg_setup_ss_matrices(jg_block_t *b, jg_setup_t *s, jg_ss_matrices_t *d)
{
    *d = (jg_ss_matrices_t){{0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}, 0, 0, 0};
    /* Absent matrices take Simulink's default 1 (files saved by Simulink omit
     * parameters at their default); next to an empty A, absent B and C are empty. */
    if (jg_setup_num_def(b, s, "A", &d->a, 1.0) < 0) return JG_BLOCK_FAIL;
    d->n = jg_value_numel(&d->a) == 0 ? 0 : d->a.rows;
    if (d->n > 0) {
        if (jg_setup_num_def(b, s, "B", &d->b, 1.0) < 0) return JG_BLOCK_FAIL;
        if (jg_setup_num_def(b, s, "C", &d->c, 1.0) < 0) return JG_BLOCK_FAIL;
    } else {
        if (jg_setup_num(b, s, "B", &d->b) < 0) return JG_BLOCK_FAIL;
        if (jg_setup_num(b, s, "C", &d->c) < 0) return JG_BLOCK_FAIL;
    }
    if (jg_setup_num_def(b, s, "D", &d->d, 1.0) < 0) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "InitialCondition", &d->ic, 0.0) < 0) return JG_BLOCK_FAIL;
    const jg_value_t *A = &d->a, *B = &d->b, *C = &d->c, *D = &d->d;
    /* n from A, m from B, p from C; D must agree with both */
    if (d->n > 0 && A->rows != A->cols)
        return jg_setup_error(b, s, JG_PARAM, "A", "expected a square matrix, got %lldx%lld",
                              (long long)A->rows, (long long)A->cols);
    if (ss_side(b, s, "B", B, d->n, 1) || ss_side(b, s, "C", C, d->n, 0)) return JG_BLOCK_FAIL;
    if (d->n > 0) {
        d->m = B->cols;
        d->p = C->rows;
        if (D->rows != d->p || D->cols != d->m)
            return jg_setup_error(b, s, JG_PARAM, "D",
                                  "expected %lldx%lld (rows of C x columns of B), got %lldx%lld",
                                  (long long)d->p, (long long)d->m, (long long)D->rows,
                                  (long long)D->cols);
    } else {
        /* no states: y = D u, and D alone gives the widths */
        if (jg_value_numel(D) == 0)
            return jg_setup_error(b, s, JG_PARAM, "D",
                                  "expected a non-empty matrix: with an empty A, D gives the "
                                  "input and output widths");
        d->m = D->cols;
        d->p = D->rows;
    }
    int64_t nic = jg_value_numel(&d->ic);
    if (nic != 1 && nic != d->n)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition",
                              "expected a scalar or %lld elements (one per row of A), got %lld",
                              (long long)d->n, (long long)nic);
    return JG_BLOCK_DONE;
}

static int statespace_setup(jg_block_t *b, jg_setup_t *s)
{
    ss_t *d = NULL;
    if (ss_alloc(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    jg_ss_matrices_t mx;
    if (jg_setup_ss_matrices(b, s, &mx) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    d->a = mx.a, d->b = mx.b, d->c = mx.c, d->d = mx.d, d->ic = mx.ic;
    d->n = mx.n, d->m = mx.m, d->p = mx.p;
    return jg_setup_ports(b, s, 1, 1);
}

int jg_setup_ss_input(jg_block_t *b, jg_setup_t *s, int64_t m, int64_t n, int siso)
{
    if (b->in_w[0] < 0) b->in_w[0] = m;
    if (b->in_w[0] == m) return JG_BLOCK_DONE;
    if (siso)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but a transfer function takes a scalar",
                              (long long)b->in_w[0]);
    return jg_setup_error(b, s, JG_WIDTH, NULL,
                          "input has width %lld but the system has %lld inputs (columns of %s)",
                          (long long)b->in_w[0], (long long)m, n > 0 ? "B and D" : "D");
}

/* The matrices fix both widths: the input is set, not waited for. */
static int ss_widths(jg_block_t *b, jg_setup_t *s)
{
    ss_t *d = b->data;
    if (jg_setup_ss_input(b, s, d->m, d->n, 0) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    b->out_w[0] = d->p;
    return jg_setup_states(b, s, d->n) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

/* Patterns are the nonzeros of the matrices: a zero D declares no part, which
 * is what makes the block non-feedthrough for algebraic-loop detection. */
static int ss_pattern(jg_block_t *b, jg_setup_t *s)
{
    ss_t *d = b->data;
    if (d->n > 0) {
        if (jg_value_nnz(&d->a) && (d->ka = jg_jac_from_value(b, s, JG_JAC_A, -1, -1, &d->a)) < 0)
            return -1;
        if (jg_value_nnz(&d->b) && (d->kb = jg_jac_from_value(b, s, JG_JAC_B, -1, 0, &d->b)) < 0)
            return -1;
        if (jg_value_nnz(&d->c) && (d->kc = jg_jac_from_value(b, s, JG_JAC_C, 0, -1, &d->c)) < 0)
            return -1;
    }
    if (jg_value_nnz(&d->d) && (d->kd = jg_jac_from_value(b, s, JG_JAC_D, 0, 0, &d->d)) < 0)
        return -1;
    return 0;
}

static int ss_init(const jg_block_t *b, double *x0)
{
    const ss_t *d = b->data;
    int scalar = jg_value_numel(&d->ic) == 1;
    for (int64_t i = 0; i < d->n; i++) x0[i] = d->ic.x[scalar ? 0 : i];
    return 0;
}

static int ss_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const ss_t *d = b->data;
    jg_affine(e->y[0], d->p, d->c.x, e->x, d->n, d->d.x, e->u[0], d->m);
    return 0;
}

static int ss_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    const ss_t *d = b->data;
    jg_affine(e->dx, d->n, d->a.x, e->x, d->n, d->b.x, e->u[0], d->m);
    return 0;
}

static int ss_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const ss_t *d = b->data;
    if (d->ka >= 0) jg_jac_fill_from_value(e->jac[d->ka], &d->a);
    if (d->kb >= 0) jg_jac_fill_from_value(e->jac[d->kb], &d->b);
    if (d->kc >= 0) jg_jac_fill_from_value(e->jac[d->kc], &d->c);
    if (d->kd >= 0) jg_jac_fill_from_value(e->jac[d->kd], &d->d);
    return 0;
}

const jg_block_type_t jg_block_statespace = {
    .name = "StateSpace", .flags = JG_BT_LINEAR,
    .setup = statespace_setup, .widths = ss_widths, .pattern = ss_pattern,
    .init = ss_init, .outputs = ss_outputs, .derivatives = ss_derivatives,
    .jacobian = ss_jacobian,
};

/* ----------------------------------------------------- SISO realization */

/* Realize num(s)/den(s) (coefficients highest power first) as the
 * controllable canonical form that MATLAB's tf2ss returns, so that state
 * names and linearization results match what MATLAB users compare against.
 * With den normalized to [1 a1 ... an] and num padded to [b0 b1 ... bn]:
 *     A = [-a1 -a2 ... -an]     B = e1 (n x 1)
 *         [  1   0 ...   0]     C = [b1 - b0 a1, ..., bn - b0 an]
 *         [      ...      ]     D = b0
 *         [  0 ...   1   0]
 * Leading zeros of num are dropped (they carry no degree); n = 0 is a gain. */
/* The companion form's coefficients: n, the normalized denominator
 * a[0..n) = a1..an (A's first row is -a), C in c[0..n) and D = *d0 (arena
 * arrays).  Errors name num_param / den_param. */
static int tf_coeffs(jg_block_t *b, jg_setup_t *s, const double *num, int64_t nnum,
                     const double *den, int64_t nden, const char *num_param,
                     const char *den_param, int64_t *n_out, double **a_out, double **c_out,
                     double *d0)
{
    if (nden == 0 || den[0] == 0)
        return jg_setup_error(b, s, JG_PARAM, den_param,
                              "expected a nonzero leading coefficient (highest power first)");
    while (nnum > 0 && num[0] == 0) {
        num++;
        nnum--;
    }
    int64_t n = nden - 1;
    if (nnum > nden)
        return jg_setup_error(b, s, JG_PARAM, num_param,
                              "numerator degree %lld exceeds denominator degree %lld: expected "
                              "a proper transfer function",
                              (long long)nnum - 1, (long long)n);
    double *a = jg_setup_alloc(s, sizeof(double) * (size_t)(n + 1));
    double *c = jg_setup_alloc(s, sizeof(double) * (size_t)(n + 1));
    if (!a || !c) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    double lead = den[0];
    /* padded, normalized numerator coefficient k (0..n) */
#define NUMK(k) ((k) < nden - nnum ? 0.0 : num[(k) - (nden - nnum)] / lead)
    double b0 = NUMK(0);
    for (int64_t j = 0; j < n; j++) {
        a[j] = den[j + 1] / lead;
        c[j] = NUMK(j + 1) - b0 * a[j];
    }
#undef NUMK
    /* dividing by a tiny leading coefficient can overflow (1e-310: every
     * coefficient Inf); the realization would be Inf */
    int overflow = !isfinite(b0);
    for (int64_t j = 0; j < n; j++) overflow |= !isfinite(a[j]) || !isfinite(c[j]);
    if (overflow)
        return jg_setup_error(b, s, JG_PARAM, den_param,
                              "the coefficients divided by the leading coefficient %g overflow: "
                              "expected a leading coefficient of a scale closer to the others",
                              lead);
    *n_out = n;
    *a_out = a;
    *c_out = c;
    *d0 = b0;
    return JG_BLOCK_DONE;
}

int jg_setup_tf_realize(jg_block_t *b, jg_setup_t *s, jg_ss_matrices_t *d, const double *num,
                        int64_t nnum, const double *den, int64_t nden, const char *num_param,
                        const char *den_param)
{
    int64_t n;
    double *a, *c, d0;
    if (tf_coeffs(b, s, num, nnum, den, nden, num_param, den_param, &n, &a, &c, &d0) !=
        JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    /* the dense n x n A of the discrete blocks: bounded before it is made */
    if (jg_setup_check_size(b, s, den_param, n > 3037000499LL ? INT64_MAX : n * n,
                            "entries of the dense state-space realization (degree squared)") !=
        JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    if (value_zeros(s, &d->a, n, n) || value_zeros(s, &d->b, n, 1) ||
        value_zeros(s, &d->c, 1, n) || value_zeros(s, &d->d, 1, 1) ||
        value_zeros(s, &d->ic, 1, 1))
        return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    d->d.x[0] = d0;
    for (int64_t j = 0; j < n; j++) {
        d->a.x[j] = -a[j];
        d->c.x[j] = c[j];
    }
    for (int64_t i = 1; i < n; i++) d->a.x[i * n + i - 1] = 1;
    if (n > 0) d->b.x[0] = 1;
    d->n = n;
    d->m = d->p = 1;
    return JG_BLOCK_DONE;
}

/* ------------------------------------- TransferFcn and ZeroPole, sparse */

/* The same controllable canonical form kept as its 2n + 1 coefficients: A is
 * the first row -a plus the subdiagonal of ones, B = e1, so storage and every
 * evaluation are O(n), not the O(n^2) of the dense matrices (a degree of 5000
 * took minutes per linearization, 50000 did not fit in memory). */
typedef struct {
    int64_t n;
    double *a, *c, d0;        /* A's first row is -a; C; D */
    int ka, kb, kc, kd;       /* part indices, -1 for an all-zero part */
} tf_t;

static int tf_realize(jg_block_t *b, jg_setup_t *s, const double *num, int64_t nnum,
                      const double *den, int64_t nden, const char *num_param,
                      const char *den_param)
{
    tf_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->ka = d->kb = d->kc = d->kd = -1;
    if (tf_coeffs(b, s, num, nnum, den, nden, num_param, den_param, &d->n, &d->a, &d->c,
                  &d->d0) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int tf_widths(jg_block_t *b, jg_setup_t *s)
{
    const tf_t *d = b->data;
    if (jg_setup_ss_input(b, s, 1, d->n, 1) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    b->out_w[0] = 1;
    return jg_setup_states(b, s, d->n) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int tf_pattern(jg_block_t *b, jg_setup_t *s)
{
    tf_t *d = b->data;
    int64_t n = d->n, nz = 0, nc = 0;
    if (d->d0 != 0) {
        const int64_t zero = 0;
        if ((d->kd = jg_jac_pattern(b, s, JG_JAC_D, 0, 0, 1, &zero, &zero)) < 0) return -1;
    }
    if (n == 0) return 0;
    int64_t *ri = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(2 * n));
    int64_t *ci = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(2 * n));
    if (!ri || !ci) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory"), -1;
    for (int64_t j = 0; j < n; j++)
        if (d->a[j] != 0) ri[nz] = 0, ci[nz++] = j;
    for (int64_t i = 1; i < n; i++) ri[nz] = i, ci[nz++] = i - 1;
    if (nz && (d->ka = jg_jac_pattern(b, s, JG_JAC_A, -1, -1, nz, ri, ci)) < 0) return -1;
    const int64_t zero = 0;
    if ((d->kb = jg_jac_pattern(b, s, JG_JAC_B, -1, 0, 1, &zero, &zero)) < 0) return -1;
    for (int64_t j = 0; j < n; j++)
        if (d->c[j] != 0) ri[nc] = 0, ci[nc++] = j;
    if (nc && (d->kc = jg_jac_pattern(b, s, JG_JAC_C, 0, -1, nc, ri, ci)) < 0) return -1;
    return 0;
}

static int tf_init(const jg_block_t *b, double *x0)
{
    const tf_t *d = b->data;
    for (int64_t i = 0; i < d->n; i++) x0[i] = 0;
    return 0;
}

static int tf_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const tf_t *d = b->data;
    double acc = 0;
    for (int64_t j = 0; j < d->n; j++) acc += d->c[j] * e->x[j];
    e->y[0][0] = acc + d->d0 * e->u[0][0];
    return 0;
}

static int tf_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    const tf_t *d = b->data;
    int64_t n = d->n;
    if (n == 0) return 0;
    double acc = 0;
    for (int64_t j = 0; j < n; j++) acc -= d->a[j] * e->x[j];
    e->dx[0] = acc + e->u[0][0];
    for (int64_t i = 1; i < n; i++) e->dx[i] = e->x[i - 1];
    return 0;
}

/* Values by position in the compressed columns: the pattern is the one
 * tf_pattern declared, whatever order the entries were stored in. */
static int tf_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const tf_t *d = b->data;
    if (d->ka >= 0) {
        cs_dl *A = e->jac[d->ka];
        for (int64_t j = 0; j < A->n; j++)
            for (int64_t k = A->p[j]; k < A->p[j + 1]; k++)
                A->x[k] = (A->i[k] == 0 ? -d->a[j] : 0) + (A->i[k] == j + 1 ? 1 : 0);
    }
    if (d->kb >= 0) e->jac[d->kb]->x[0] = 1;
    if (d->kc >= 0) {
        cs_dl *C = e->jac[d->kc];
        for (int64_t j = 0; j < C->n; j++)
            for (int64_t k = C->p[j]; k < C->p[j + 1]; k++) C->x[k] = d->c[j];
    }
    if (d->kd >= 0) e->jac[d->kd]->x[0] = d->d0;
    return 0;
}

int jg_setup_num_mat_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                         const double *def, int64_t rows, int64_t cols)
{
    int r = jg_setup_num(b, s, name, v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0) {
        if (value_zeros(s, v, rows, cols))
            return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        if (rows * cols != 0) memcpy(v->x, def, sizeof(double) * (size_t)(rows * cols));
    }
    return JG_BLOCK_DONE;
}

int jg_setup_num_vec_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                         const double *def, int64_t ndef)
{
    return jg_setup_num_mat_def(b, s, name, v, def, 1, ndef);
}

int jg_setup_poly_param(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                        const double *def, int64_t ndef)
{
    if (jg_setup_num_vec_def(b, s, name, v, def, ndef) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (jg_value_numel(v) == 0 || (v->rows != 1 && v->cols != 1))
        return jg_setup_error(b, s, JG_PARAM, name,
                              "expected a non-empty vector of coefficients, highest power first "
                              "(one output only), got %lldx%lld",
                              (long long)v->rows, (long long)v->cols);
    return JG_BLOCK_DONE;
}

/* ----------------------------------------------------------- TransferFcn */

static const double tf_num_def[] = {1}, tf_den_def[] = {1, 1};   /* Simulink: 1/(s+1) */

static int transferfcn_setup(jg_block_t *b, jg_setup_t *s)
{
    jg_value_t num, den;
    if (jg_setup_poly_param(b, s, "Numerator", &num, tf_num_def, 1) != JG_BLOCK_DONE ||
        jg_setup_poly_param(b, s, "Denominator", &den, tf_den_def, 2) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    return tf_realize(b, s, num.x, jg_value_numel(&num), den.x, jg_value_numel(&den),
                      "Numerator", "Denominator");
}

const jg_block_type_t jg_block_transferfcn = {
    .name = "TransferFcn", .flags = JG_BT_LINEAR,
    .setup = transferfcn_setup, .widths = tf_widths, .pattern = tf_pattern,
    .init = tf_init, .outputs = tf_outputs, .derivatives = tf_derivatives,
    .jacobian = tf_jacobian,
};

/* -------------------------------------------------------------- ZeroPole */

/* Monic polynomial with the given roots, highest power first (deg + 1
 * coefficients).  With complex_ok, roots are a real vector, or a k x 2 matrix
 * (k >= 2) of rows [re im]; a root with im != 0 needs its conjugate among the
 * rows so that the coefficients are real.  1 x 2 stays two real roots: a
 * complex pair always takes two rows.  Without (DiscreteZeroPole), only a
 * vector of finite real roots. */
static int roots_poly(jg_block_t *b, jg_setup_t *s, const char *name, const jg_value_t *v,
                      int complex_ok, double **coef, int64_t *deg)
{
    int64_t k = jg_value_numel(v);
    int cplx = complex_ok && v->rows >= 2 && v->cols == 2;
    if (k > 0 && !cplx && v->rows != 1 && v->cols != 1) {
        if (!complex_ok)
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "expected a vector of real roots, got a %lldx%lld matrix "
                                  "(complex roots are not supported here)",
                                  (long long)v->rows, (long long)v->cols);
        return jg_setup_error(b, s, JG_PARAM, name,
                              "expected a vector of real roots or a k x 2 matrix of [re im] "
                              "rows, got %lldx%lld",
                              (long long)v->rows, (long long)v->cols);
    }
    int64_t nroot = cplx ? v->rows : k;
    double *c = jg_setup_alloc(s, sizeof(double) * (size_t)(nroot + 1));
    char *used = jg_setup_alloc(s, (size_t)nroot + 1);
    if (!c || !used) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    int64_t len = 1;    /* c[0 .. len-1] */
    c[0] = 1;
    for (int64_t r = 0; r < nroot; r++) {
        if (used[r]) continue;
        double re = cplx ? v->x[2 * r] : v->x[r], im = cplx ? v->x[2 * r + 1] : 0;
        if (!complex_ok && !isfinite(re))
            return jg_setup_error(b, s, JG_PARAM, name, "element %lld is not a finite number",
                                  (long long)r + 1);
        if (im == 0) {               /* times (s - re) */
            c[len] = 0;
            for (int64_t j = len; j > 0; j--) c[j] -= re * c[j - 1];
            len++;
            used[r] = 1;
            continue;
        }
        /* the conjugate: equal up to rounding of what was typed */
        double tol = 1e-9 * (fabs(re) + fabs(im));
        int64_t q = r + 1;
        for (; q < nroot; q++)
            if (!used[q] && fabs(v->x[2 * q] - re) <= tol && fabs(v->x[2 * q + 1] + im) <= tol)
                break;
        if (q == nroot)
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "complex root %g%+gi (row %lld) has no conjugate %g%+gi: "
                                  "expected real coefficients",
                                  re, im, (long long)r + 1, re, -im);
        used[r] = used[q] = 1;
        /* times (s - z)(s - conj z) = s^2 - 2 re s + |z|^2 */
        double s1 = -2 * re, s0 = re * re + im * im;
        c[len] = c[len + 1] = 0;
        for (int64_t j = len + 1; j > 0; j--)
            c[j] += s1 * c[j - 1] + (j >= 2 ? s0 * c[j - 2] : 0);
        len += 2;
    }
    *coef = c;
    *deg = len - 1;
    return JG_BLOCK_DONE;
}

int jg_setup_zpk_poly(jg_block_t *b, jg_setup_t *s, const jg_value_t *z, const jg_value_t *p,
                      double gain, int complex_ok, double **num, int64_t *nz, double **den,
                      int64_t *np)
{
    if (roots_poly(b, s, "Zeros", z, complex_ok, num, nz) != JG_BLOCK_DONE ||
        roots_poly(b, s, "Poles", p, complex_ok, den, np) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    if (*nz > *np)
        return jg_setup_error(b, s, JG_PARAM, "Zeros",
                              "%lld zeros but only %lld poles: expected a proper system (no "
                              "more zeros than poles)",
                              (long long)*nz, (long long)*np);
    for (int64_t j = 0; j <= *nz; j++) (*num)[j] *= gain;
    return JG_BLOCK_DONE;
}

static const double zp_zeros_def[] = {1}, zp_poles_def[] = {0, -1}, zp_gain_def[] = {1};

static int zeropole_setup(jg_block_t *b, jg_setup_t *s)
{
    jg_value_t z, p, k;   /* Simulink defaults: (s - 1) / (s (s + 1)) */
    if (jg_setup_num_vec_def(b, s, "Zeros", &z, zp_zeros_def, 1) != JG_BLOCK_DONE ||
        jg_setup_num_vec_def(b, s, "Poles", &p, zp_poles_def, 2) != JG_BLOCK_DONE ||
        jg_setup_num_vec_def(b, s, "Gain", &k, zp_gain_def, 1) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    if (jg_value_numel(&k) != 1)
        return jg_setup_error(b, s, JG_PARAM, "Gain",
                              "expected a scalar (one output only), got %lldx%lld",
                              (long long)k.rows, (long long)k.cols);
    double *num, *den;
    int64_t nz, np;
    if (jg_setup_zpk_poly(b, s, &z, &p, k.x[0], 1, &num, &nz, &den, &np) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    return tf_realize(b, s, num, nz + 1, den, np + 1, "Zeros", "Poles");
}

const jg_block_type_t jg_block_zeropole = {
    .name = "ZeroPole", .flags = JG_BT_LINEAR,
    .setup = zeropole_setup, .widths = tf_widths, .pattern = tf_pattern,
    .init = tf_init, .outputs = tf_outputs, .derivatives = tf_derivatives,
    .jacobian = tf_jacobian,
};
