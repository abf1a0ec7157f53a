/* TransportDelay: y(t) = u(t - DelayTime).
 *
 * Simulation (e->sim = 1) keeps a history of (t, u) recorded at every major
 * step by update() in the block's discrete states, a ring buffer:
 *   xd[0] head (slot of the oldest point), xd[1] count, xd[2 + i] 1 once
 *   element i reads the history (its mode), then BufferSize slots of
 *   1 + width doubles: the time, then u.
 * The output interpolates that history linearly at t - T: InitialOutput
 * before the first point, the newest point held after it (T shorter than the
 * step).  Points that no future query can need are dropped as time moves on;
 * a history that still does not fit is a run-time error (raise BufferSize)
 * rather than a silently wrong output.  The jump from InitialOutput to the
 * first recorded input, at t_first + T, is a zero crossing: in minor steps an
 * element keeps InitialOutput until a major step has switched its mode, so
 * the step that crosses it integrates a smooth input and the simulator
 * places a major step there (as Relay does).
 *
 * A delay has no finite-dimensional linearization, so every linearization
 * path (e->sim = 0) sees the Pade approximation of exp(-sT) of order
 * PadeOrder instead: y = C x + D u with PadeOrder continuous states per
 * element (order 0: y = u).  Those states are declared and integrated in
 * simulation too, where they do not touch the output, so that a snapshot
 * linearization during a run finds them at a meaningful value.  Linearization
 * with --delays cuts the block out instead (lib/linearize/delays.c: exact
 * internal delays, or one Pade order for all through the realization below).
 *
 * Realization.  The (n, n) Pade approximant of exp(-σ) is p(-σ)/p(σ) with
 * p(σ) = Σ c_k σ^k, c_k = (2n-k)! n! / ((2n)! k! (n-k)!).  In σ = sT it is
 * realized like TransferFcn (MATLAB's tf2ss controllable form: A' first row
 * -α, ones below the diagonal, B' = e1, C' = β_j - β_0 α_j, D = β_0 =
 * (-1)^n, with p(σ)/c_n = [1 α1 .. αn] and p(-σ)/c_n = [β0 .. βn] in
 * descending powers); then A = A'/T, B = B'/T keep the entries O(1/T)
 * whatever T is, where the companion form in s would carry 1/T^n.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "block_impl.h"

#define MAX_PADE JG__PADE_MAX   /* beyond this the approximant only adds rounding */

typedef struct {
    jg_value_t delay, init;   /* DelayTime, InitialOutput: scalar or per element */
    int64_t n;                /* common numel (1: all scalar) */
    int64_t bufsize;          /* BufferSize: history points */
    int order;                /* PadeOrder */
    double alpha[MAX_PADE + 1], cp[MAX_PADE + 1], dp;   /* α_1..α_n, C'_1..C'_n, D */
} td_t;

/* α, C' and D of the normalized Pade realization of order n (linearization's
 * --delays pade:N closes the cut delays with the same one). */
void jg__transportdelay_pade(int n, double *alpha, double *cp, double *dp)
{
    double c[MAX_PADE + 1];
    c[0] = 1;
    for (int k = 0; k < n; k++) c[k + 1] = c[k] * (n - k) / ((double)(2 * n - k) * (k + 1));
    *dp = n % 2 ? -1.0 : 1.0;
    for (int j = 1; j <= n; j++) {
        int k = n - j;                     /* power of σ of coefficient j */
        double a = c[k] / c[n], b = (k % 2 ? -a : a);   /* ±a exactly: zeros stay zeros */
        alpha[j] = a;
        cp[j] = b - *dp * a;
    }
}

static void pade(td_t *d) { jg__transportdelay_pade(d->order, d->alpha, d->cp, &d->dp); }

static int td_setup(jg_block_t *b, jg_setup_t *s)
{
    td_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v;
    if (jg_setup_num_def(b, s, "DelayTime", &d->delay, 1.0) < 0) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "InitialOutput", &d->init, 0.0) < 0) return JG_BLOCK_FAIL;
    const jg_value_t *pv[2] = {&d->delay, &d->init};
    static const char *const pn[2] = {"DelayTime", "InitialOutput"};
    d->n = 1;
    for (int k = 0; k < 2; k++) {
        int64_t m = jg_value_numel(pv[k]);
        if (m == 0) return jg_setup_error(b, s, JG_PARAM, pn[k], "expected a non-empty value");
        if (m == 1) continue;
        if (d->n > 1 && m != d->n)
            return jg_setup_error(b, s, JG_PARAM, pn[k],
                                  "has %lld elements but DelayTime has %lld (only scalars expand)",
                                  (long long)m, (long long)d->n);
        d->n = m;
    }
    for (int64_t i = 0; i < jg_value_numel(&d->delay); i++)
        if (!(d->delay.x[i] > 0) || !isfinite(d->delay.x[i]))
            return jg_setup_error(b, s, JG_PARAM, "DelayTime",
                                  "element %lld is %g: expected a finite delay > 0",
                                  (long long)i + 1, d->delay.x[i]);
    if (jg_setup_num_def(b, s, "BufferSize", &v, 1024) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&v) != 1 || !jg_is_int(v.x[0], 2, 1e8))
        return jg_setup_error(b, s, JG_PARAM, "BufferSize",
                              "expected an integer number of points from 2 to 1e8");
    d->bufsize = (int64_t)v.x[0];
    if (jg_setup_num_def(b, s, "PadeOrder", &v, 0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&v) != 1 || !jg_is_int(v.x[0], 0, MAX_PADE))
        return jg_setup_error(b, s, JG_PARAM, "PadeOrder", "expected an integer from 0 to %d",
                              MAX_PADE);
    d->order = (int)v.x[0];
    pade(d);
    /* the Pade model's entries are alpha_j / T and 1 / T: a delay whose
     * reciprocal (times the largest alpha) overflows, or a subnormal one,
     * would put Inf into A and B */
    double amax = 1;
    for (int j = 1; j <= d->order; j++) amax = fmax(amax, d->alpha[j]);
    for (int64_t i = 0; i < jg_value_numel(&d->delay); i++) {
        double T = d->delay.x[i];
        if (T < DBL_MIN || (d->order > 0 && !isfinite(amax / T)))
            return jg_setup_error(b, s, JG_PARAM, "DelayTime",
                                  "element %lld is %g: too small (expected at least %g%s, so "
                                  "that the reciprocal of the delay stays finite)",
                                  (long long)i + 1, T,
                                  d->order > 0 ? fmax(DBL_MIN, amax / DBL_MAX) : DBL_MIN,
                                  d->order > 0 ? " with this PadeOrder" : "");
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int td_widths(jg_block_t *b, jg_setup_t *s)
{
    const td_t *d = b->data;
    /* The history must be recorded at every major step: the block is
     * continuous whatever drives it (with PadeOrder 0 it has no states that
     * would make it so).  NAN is the compiler's "no SampleTime given". */
    if (isnan(b->ts.period))
        b->ts = (jg_ts_t){0, 0};
    else if (b->ts.period != 0)
        return jg_setup_error(b, s, JG_PARAM, "SampleTime",
                              "a TransportDelay is continuous: expected 0 or no SampleTime, "
                              "got %g",
                              b->ts.period);
    if (b->out_w[0] < 0) {
        if (d->n > 1)
            b->out_w[0] = d->n;
        else if (b->in_w[0] >= 0)
            b->out_w[0] = b->in_w[0];
        else if (s->force)
            b->out_w[0] = 1;
        else
            return JG_BLOCK_AGAIN;
    }
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = b->out_w[0];   /* unconnected, or a loop: follow the parameters */
    }
    int64_t w = b->out_w[0];
    if (b->in_w[0] != w)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but DelayTime/InitialOutput have %lld elements",
                              (long long)b->in_w[0], (long long)w);
    if (jg_setup_states(b, s, (int64_t)d->order * w) < 0) return JG_BLOCK_FAIL;
    /* one rising zero crossing per element at t = t_first + T, where the
     * output jumps from InitialOutput to the first recorded input */
    signed char *dir = jg_setup_alloc(s, (size_t)w);
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memset(dir, JG_ZC_RISING, (size_t)w);
    if (jg_setup_zc(b, s, w, dir) < 0) return JG_BLOCK_FAIL;
    if (d->bufsize > (INT64_MAX / 8 - 2 - w) / (1 + w))
        return jg_setup_error(b, s, JG_PARAM, "BufferSize", "%lld points of width %lld are too many",
                              (long long)d->bufsize, (long long)w);
    if (jg_setup_check_size(b, s, "BufferSize", 2 + w + d->bufsize * (1 + w),
                            "discrete states ((BufferSize + 1) x width + width + 2)") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* the same check as jg_setup_dstates, naming the parameter */
    return jg_setup_dstates(b, s, 2 + w + d->bufsize * (1 + w)) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

/* Parts in this order: a, b, c (order > 0), d.  Element i owns states
 * i n .. i n + n - 1. */
static int td_pattern(jg_block_t *b, jg_setup_t *s)
{
    const td_t *d = b->data;
    int64_t n = d->order, w = b->out_w[0];
    if (n > 0) {
        int64_t na = w * (2 * n - 1), nc = 0;
        for (int j = 1; j <= n; j++) nc += d->cp[j] != 0;
        int64_t *ri = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(na + w * nc + 1));
        int64_t *ci = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(na + w * nc + 1));
        if (!ri || !ci) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        int64_t k = 0;
        for (int64_t i = 0; i < w; i++) {
            for (int64_t j = 0; j < n; j++) {   /* first row of A' */
                ri[k] = i * n;
                ci[k++] = i * n + j;
            }
            for (int64_t j = 1; j < n; j++) {   /* ones below the diagonal */
                ri[k] = i * n + j;
                ci[k++] = i * n + j - 1;
            }
        }
        if (jg_jac_pattern(b, s, JG_JAC_A, -1, -1, k, ri, ci) < 0) return -1;
        k = 0;
        for (int64_t i = 0; i < w; i++) {
            ri[k] = i * n;
            ci[k++] = i;
        }
        if (jg_jac_pattern(b, s, JG_JAC_B, -1, 0, k, ri, ci) < 0) return -1;
        k = 0;
        for (int64_t i = 0; i < w; i++)
            for (int j = 1; j <= n; j++)
                if (d->cp[j] != 0) {
                    ri[k] = i;
                    ci[k++] = i * n + j - 1;
                }
        if (jg_jac_pattern(b, s, JG_JAC_C, 0, -1, k, ri, ci) < 0) return -1;
    }
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

/* States at the Pade model's equilibrium for a constant input InitialOutput:
 * the output starts at InitialOutput in every mode. */
static int td_init(const jg_block_t *b, double *x0)
{
    const td_t *d = b->data;
    int64_t n = d->order;
    for (int64_t i = 0; i < b->out_w[0]; i++)
        for (int64_t j = 0; j < n; j++)
            x0[i * n + j] = j == n - 1 ? jg__param_at(&d->init, i) / d->alpha[n] : 0.0;
    return 0;
}

/* ---- the history (simulation) */

static double *slot(const jg_block_t *b, double *xd, int64_t k)   /* k-th oldest point */
{
    const td_t *d = b->data;
    int64_t s = ((int64_t)xd[0] + k) % d->bufsize, w = b->out_w[0];
    return xd + 2 + w + s * (1 + w);
}

static int td_sim_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const td_t *d = b->data;
    double *xd = (double *)e->xd;   /* read only here */
    if (!xd)
        return jg_eval_error(b, e, "no history buffer (discrete states) in simulation");
    int64_t cnt = (int64_t)xd[1];
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double tau = e->t - jg__param_at(&d->delay, i);
        if (cnt == 0 || tau < slot(b, xd, 0)[0] || (!e->major && xd[2 + i] == 0)) {
            e->y[0][i] = jg__param_at(&d->init, i);
            continue;
        }
        /* the last point at or before tau */
        int64_t lo = 0, hi = cnt - 1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (slot(b, xd, mid)[0] <= tau)
                lo = mid;
            else
                hi = mid - 1;
        }
        const double *p0 = slot(b, xd, lo);
        if (lo == cnt - 1) {   /* beyond the newest point: hold it */
            e->y[0][i] = p0[1 + i];
            continue;
        }
        const double *p1 = slot(b, xd, lo + 1);
        double f = (tau - p0[0]) / (p1[0] - p0[0]);
        e->y[0][i] = p0[1 + i] + f * (p1[1 + i] - p0[1 + i]);
    }
    return 0;
}

static int td_outputs(const jg_block_t *b, jg_eval_t *e)
{
    if (e->sim) return td_sim_outputs(b, e);
    const td_t *d = b->data;
    int64_t n = d->order;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double y = d->dp * e->u[0][i];
        for (int64_t j = 0; j < n; j++) y += d->cp[j + 1] * e->x[i * n + j];
        e->y[0][i] = y;
    }
    return 0;
}

static int td_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    const td_t *d = b->data;
    int64_t n = d->order;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double T = jg__param_at(&d->delay, i), s = e->u[0][i];
        const double *x = e->x + i * n;
        for (int64_t j = 0; j < n; j++) s -= d->alpha[j + 1] * x[j];
        e->dx[i * n] = s / T;
        for (int64_t j = 1; j < n; j++) e->dx[i * n + j] = x[j - 1] / T;
    }
    return 0;
}

/* Record (t, u) at a major step.  Outputs are computed at times after the
 * previous major step at the earliest (dense output and zero-crossing
 * location go back over the last step), so only the point at or before
 * t_prev - max(T) and later ones can still be read; older ones go. */
static int td_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    const td_t *d = b->data;
    double *xd = e->xdw;
    if (!xd) return jg_eval_error(b, e, "no history buffer (discrete states) in simulation");
    int64_t w = b->out_w[0], cnt = (int64_t)xd[1];
    double t = e->t, tmax = 0;
    for (int64_t i = 0; i < jg_value_numel(&d->delay); i++) tmax = fmax(tmax, d->delay.x[i]);
    while (cnt > 0 && slot(b, xd, cnt - 1)[0] > t) cnt--;   /* a restart in the past */
    if (cnt > 0 && slot(b, xd, cnt - 1)[0] == t) cnt--;     /* the same step again */
    double oldest_query = (cnt > 0 ? slot(b, xd, cnt - 1)[0] : t) - tmax;
    while (cnt >= 2 && slot(b, xd, 1)[0] <= oldest_query) {
        xd[0] = (double)(((int64_t)xd[0] + 1) % d->bufsize);
        cnt--;
    }
    if (cnt == d->bufsize) {
        xd[1] = (double)cnt;
        return jg_eval_error(b, e,
                             "the delay needs the input since t = %g, more than BufferSize = %lld "
                             "points at this step size: raise BufferSize",
                             slot(b, xd, 0)[0], (long long)d->bufsize);
    }
    double *p = slot(b, xd, cnt);
    p[0] = t;
    for (int64_t i = 0; i < w; i++) p[1 + i] = e->u[0][i];
    xd[1] = (double)(cnt + 1);
    for (int64_t i = 0; i < w; i++) xd[2 + i] = t - jg__param_at(&d->delay, i) >= slot(b, xd, 0)[0];
    return 0;
}

/* t - T - t_first: negative until the first recorded input reaches the
 * output (continuous in t: xd only changes at major steps).  Pruning moves
 * the oldest point only once every element is past its crossing, and the
 * signals stay positive then. */
static int td_zc(const jg_block_t *b, jg_eval_t *e)
{
    const td_t *d = b->data;
    const double *xd = e->xd;
    int have = xd && xd[1] > 0;
    double t_first = have ? slot(b, (double *)xd, 0)[0] : 0;
    for (int64_t i = 0; i < b->out_w[0]; i++)
        e->zcv[i] = have ? e->t - jg__param_at(&d->delay, i) - t_first : -jg__param_at(&d->delay, i);
    return 0;
}

/* The Jacobian of what outputs() computes: the Pade model in linearization;
 * in simulation the output reads only the history (c = 0, d = 0: a loop
 * through the delay is solved in one step). */
static int td_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const td_t *d = b->data;
    int64_t n = d->order;
    int k = 0;
    if (n > 0) {
        const cs_dl *A = e->jac[k++], *B = e->jac[k++], *C = e->jac[k++];
        for (int64_t c = 0; c < A->n; c++)
            for (int64_t q = A->p[c]; q < A->p[c + 1]; q++) {
                int64_t r = A->i[q], i = r / n, lr = r % n, lc = c % n;
                double T = jg__param_at(&d->delay, i);
                A->x[q] = lr == 0 ? -d->alpha[lc + 1] / T : 1.0 / T;
            }
        for (int64_t c = 0; c < B->n; c++)
            for (int64_t q = B->p[c]; q < B->p[c + 1]; q++) B->x[q] = 1.0 / jg__param_at(&d->delay, c);
        for (int64_t c = 0; c < C->n; c++)
            for (int64_t q = C->p[c]; q < C->p[c + 1]; q++)
                C->x[q] = e->sim ? 0.0 : d->cp[c % n + 1];
    }
    const cs_dl *D = e->jac[k];
    for (int64_t q = 0; q < D->p[D->n]; q++) D->x[q] = e->sim ? 0.0 : d->dp;
    return 0;
}

const jg_block_type_t jg_block_transportdelay = {
    .name = "TransportDelay", .flags = JG_BT_LINEAR,
    .setup = td_setup, .widths = td_widths, .pattern = td_pattern,
    .init = td_init, .outputs = td_outputs, .derivatives = td_derivatives,
    .jacobian = td_jacobian, .update = td_update, .zc = td_zc,
};

double jg__transportdelay_time(const jg_block_t *b, int64_t i)
{
    if (!b || b->type != &jg_block_transportdelay || !b->data || i < 0 || i >= b->out_w[0])
        return NAN;
    return jg__param_at(&((const td_t *)b->data)->delay, i);
}
