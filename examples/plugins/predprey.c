/* predprey.c -- the predator-prey block of Simulink's mdlProjection example
 * (MathWorks, Simulink documentation, "mdlProjection") as a jacgraph plugin:
 * the worked example of docs/plugins.md.
 *
 *     x' =  a x (1 - y)        a = 1, c = 2 by default
 *     y' = -c y (1 - x)
 *
 * The exact solution keeps x^-c e^(c x) y^-a e^(a y) = d constant (d = 121.85
 * in mdlProjection's example; docs/references.md, section 2.2).  The block
 * declares that invariant in log form,
 *
 *     g(x, y) = c x - c ln x + a y - a ln y - ln d = 0,
 *
 * because the product form spans orders of magnitude along an orbit (e^(c x)
 * alone goes from 1 to e^8 for x in (0, 4)), so its residual and gradient are
 * badly scaled, while the log form's gradient (c - c/x, a - a/y) is O(1) and
 * its residual is the relative error of the product.  jacgraph then projects
 * the states onto g = 0 after every solver step (the host's "Projection"
 * parameter, "on" by default, switches it per block).
 *
 * Parameters: a, c (scalars), InitialCondition [x0, y0] (default [3, 1]),
 * d (default: the invariant's value at the initial condition; for [3, 1] it is
 * e^7/9 = 121.848..., the example's 121.85 rounded).  One output, [x; y]; no inputs.
 *
 * Two types are registered: "PredPrey" with its analytic Jacobians, and
 * "PredPreyFD" -- the same block without jacobian() and
 * invariant_jacobian() and without declared Jacobian parts, to show (and
 * test) the host's central-difference fallback and default parts.
 *
 * Build: cc -shared -fPIC -I<jacgraph>/lib/include predprey.c -o predprey.so -lm
 * (examples/meson.build does this).  The plugin links no jacgraph library. */
#include <math.h>
#include "jacgraph/plugin.h"

JG_PLUGIN_ABI;

typedef struct {
    double a, c, lnd;
} pp_t;

static int setup(jg_plugin_setup_t *s, const jg_plugin_api_t *api, int analytic)
{
    pp_t *p = api->alloc(s, sizeof *p);
    if (!p) return -1;
    if (api->param_scalar(s, "a", 1.0, &p->a) || api->param_scalar(s, "c", 2.0, &p->c)) return -1;
    if (!(p->a > 0)) return api->setup_error(s, "a", "expected a positive number, got %g", p->a);
    if (!(p->c > 0)) return api->setup_error(s, "c", "expected a positive number, got %g", p->c);
    double x0[2] = {3, 1};
    const double *ic;
    int64_t rows, cols;
    int k = api->param(s, "InitialCondition", &ic, &rows, &cols);
    if (k < 0) return -1;
    if (k > 0) {
        if (rows * cols != 2)
            return api->setup_error(s, "InitialCondition", "expected [x0, y0], got %lldx%lld",
                                    (long long)rows, (long long)cols);
        x0[0] = ic[0];
        x0[1] = ic[1];
    }
    if (!(x0[0] > 0 && x0[1] > 0))
        return api->setup_error(s, "InitialCondition", "populations must be positive, got [%g, %g]",
                                x0[0], x0[1]);
    /* d: given, or the level of the initial condition */
    double lnd0 = p->c * x0[0] - p->c * log(x0[0]) + p->a * x0[1] - p->a * log(x0[1]), d;
    if (api->param_scalar(s, "d", exp(lnd0), &d)) return -1;
    if (!(d > 0)) return api->setup_error(s, "d", "expected a positive number, got %g", d);
    p->lnd = log(d);

    if (api->ports(s, 0, 1) || api->output(s, 0, 2) || api->states(s, 2, x0)) return -1;
    if (analytic) {
        /* part 0: A = df/dx, dense 2x2; part 1: C = dy/dx = I, the diagonal */
        static const int64_t diag[] = {0, 1};
        if (api->jacobian_part(s, JG_PLUGIN_JAC_A, -1, -1, -1, NULL, NULL) ||
            api->jacobian_part(s, JG_PLUGIN_JAC_C, 0, -1, 2, diag, diag))
            return -1;
    }
    /* one invariant, dg/dx dense 1x2 */
    if (api->invariants(s, 1, -1, NULL, NULL)) return -1;
    api->set_data(s, p);
    return 0;
}

static int setup_analytic(jg_plugin_setup_t *s, const jg_plugin_api_t *api) { return setup(s, api, 1); }
static int setup_fd(jg_plugin_setup_t *s, const jg_plugin_api_t *api) { return setup(s, api, 0); }

static int outputs(const jg_plugin_ctx_t *c)
{
    c->y[0][0] = c->x[0];
    c->y[0][1] = c->x[1];
    return 0;
}

static int derivatives(const jg_plugin_ctx_t *c)
{
    const pp_t *p = c->data;
    double x = c->x[0], y = c->x[1];
    c->dx[0] = p->a * x * (1 - y);
    c->dx[1] = -p->c * y * (1 - x);
    return 0;
}

/* jac[0]: A column-major, [dfx/dx dfy/dx dfx/dy dfy/dy]; jac[1]: C's diagonal. */
static int jacobian(const jg_plugin_ctx_t *c, double *const *jac)
{
    const pp_t *p = c->data;
    double x = c->x[0], y = c->x[1];
    jac[0][0] = p->a * (1 - y);
    jac[0][1] = p->c * y;
    jac[0][2] = -p->a * x;
    jac[0][3] = -p->c * (1 - x);
    jac[1][0] = 1;
    jac[1][1] = 1;
    return 0;
}

static int invariants(const jg_plugin_ctx_t *c, double *g)
{
    const pp_t *p = c->data;
    double x = c->x[0], y = c->x[1];
    if (!(x > 0 && y > 0))
        return c->api->error(c, "invariant undefined for non-positive populations (%g, %g)", x, y);
    g[0] = p->c * x - p->c * log(x) + p->a * y - p->a * log(y) - p->lnd;
    return 0;
}

static int invariant_jacobian(const jg_plugin_ctx_t *c, double *dg)
{
    const pp_t *p = c->data;
    dg[0] = p->c - p->c / c->x[0];
    dg[1] = p->a - p->a / c->x[1];
    return 0;
}

JG_PLUGIN_EXPORT int jacgraph_plugin_init(jg_plugin_registry_t *r);
JG_PLUGIN_EXPORT int jacgraph_plugin_init(jg_plugin_registry_t *r)
{
    static const jg_plugin_type_t analytic = {
        .name = "PredPrey",
        .setup = setup_analytic,
        .outputs = outputs,
        .derivatives = derivatives,
        .jacobian = jacobian,
        .invariants = invariants,
        .invariant_jacobian = invariant_jacobian,
    };
    static const jg_plugin_type_t fd = {
        .name = "PredPreyFD",
        .setup = setup_fd,
        .outputs = outputs,
        .derivatives = derivatives,
        .invariants = invariants,
    };
    if (r->register_type(r, &analytic)) return 1;
    return r->register_type(r, &fd) ? 1 : 0;
}
