/* pt_plugins.c -- plugins for tests/test_plugin.c, one source compiled into
 * several shared modules (tests/meson.build), selected by a macro:
 *
 *   PT_GOOD       types "PTCube" (an input, direct feedthrough, default
 *                 Jacobian parts filled by the host's perturbation),
 *                 "PTSaw" (zero crossing + update resetting its state) and
 *                 "PTRigid" (Euler's free rigid body with two invariants and
 *                 no invariant Jacobian: the host's central differences)
 *   PT_NOINIT     exports the version only        -> missing symbol
 *   PT_NOVERSION  exports the init only           -> missing symbol
 *   PT_VERSION    ABI version 99                  -> version mismatch
 *   PT_BUILTIN    registers "Gain"                -> duplicate (built in)
 *   PT_DUPPLUGIN  registers "PredPrey"            -> duplicate (by plugin ...)
 *   PT_DUPSELF    registers "PTTwice" twice       -> duplicate (by itself)
 *   PT_INITFAIL   init returns 3                  -> init failed
 */
#include <math.h>
#include "jacgraph/plugin.h"

#if defined(PT_VERSION)
JG_PLUGIN_EXPORT const unsigned jacgraph_plugin_abi_version = 99;
#elif !defined(PT_NOVERSION)
JG_PLUGIN_ABI;
#endif

__attribute__((unused)) static int nothing_setup(jg_plugin_setup_t *s, const jg_plugin_api_t *api)
{
    return api->ports(s, 0, 0);
}

#if defined(PT_GOOD)
/* PTCube: y = u^3 + x, x' = u - x (x(0) = X0 parameter, default 0). */
static int cube_setup(jg_plugin_setup_t *s, const jg_plugin_api_t *api)
{
    double x0;
    if (api->param_scalar(s, "X0", 0.0, &x0)) return -1;
    if (api->ports(s, 1, 1) || api->input(s, 0, 1, 1) || api->output(s, 0, 1) || api->states(s, 1, &x0))
        return -1;
    return 0;
}
static int cube_outputs(const jg_plugin_ctx_t *c)
{
    double u = c->u[0][0];
    c->y[0][0] = u * u * u + c->x[0];
    return 0;
}
static int cube_derivatives(const jg_plugin_ctx_t *c)
{
    c->dx[0] = c->u[0][0] - c->x[0];
    return 0;
}

/* PTSaw: x' = 1, reset to 0 when x rises through Level (default 0.5). */
static int saw_setup(jg_plugin_setup_t *s, const jg_plugin_api_t *api)
{
    double *level = api->alloc(s, sizeof *level);
    if (!level || api->param_scalar(s, "Level", 0.5, level)) return -1;
    static const signed char dir[] = {JG_PLUGIN_ZC_RISING};
    if (api->ports(s, 0, 1) || api->output(s, 0, 1) || api->states(s, 1, NULL) ||
        api->zero_crossings(s, 1, dir))
        return -1;
    api->set_data(s, level);
    return 0;
}
static int saw_outputs(const jg_plugin_ctx_t *c)
{
    c->y[0][0] = c->x[0];
    return 0;
}
static int saw_derivatives(const jg_plugin_ctx_t *c)
{
    c->dx[0] = 1;
    return 0;
}
static int saw_zc(const jg_plugin_ctx_t *c)
{
    c->zc[0] = c->x[0] - *(const double *)c->data;
    return 0;
}
static int saw_update(const jg_plugin_ctx_t *c)
{
    if (c->zc_fired && c->zc_fired[0] > 0) c->xw[0] = 0;
    return 0;
}

/* PTRigid: I1 w1' = (I2 - I3) w2 w3 (cyclic), inertias I = [2, 1, 2/3];
 * invariants 2E = sum I_i w_i^2 and |L|^2 = sum (I_i w_i)^2 at their
 * initial values.  Output: w (3). */
typedef struct {
    double I[3], e0, l0;
} rigid_t;
static int rigid_setup(jg_plugin_setup_t *s, const jg_plugin_api_t *api)
{
    rigid_t *r = api->alloc(s, sizeof *r);
    if (!r) return -1;
    r->I[0] = 2, r->I[1] = 1, r->I[2] = 2.0 / 3;
    double w0[3] = {0.8, 0.6, 0.1};   /* near the unstable middle axis: it tumbles */
    const double *v;
    int64_t rows, cols;
    int k = api->param(s, "InitialCondition", &v, &rows, &cols);
    if (k < 0) return -1;
    if (k > 0) {
        if (rows * cols != 3) return api->setup_error(s, "InitialCondition", "expected 3 values");
        for (int i = 0; i < 3; i++) w0[i] = v[i];
    }
    r->e0 = r->l0 = 0;
    for (int i = 0; i < 3; i++) {
        r->e0 += r->I[i] * w0[i] * w0[i];
        r->l0 += r->I[i] * r->I[i] * w0[i] * w0[i];
    }
    if (api->ports(s, 0, 1) || api->output(s, 0, 3) || api->states(s, 3, w0) ||
        api->invariants(s, 2, -1, NULL, NULL))
        return -1;
    api->set_data(s, r);
    return 0;
}
static int rigid_outputs(const jg_plugin_ctx_t *c)
{
    for (int i = 0; i < 3; i++) c->y[0][i] = c->x[i];
    return 0;
}
static int rigid_derivatives(const jg_plugin_ctx_t *c)
{
    const rigid_t *r = c->data;
    const double *w = c->x, *I = r->I;
    c->dx[0] = (I[1] - I[2]) * w[1] * w[2] / I[0];
    c->dx[1] = (I[2] - I[0]) * w[2] * w[0] / I[1];
    c->dx[2] = (I[0] - I[1]) * w[0] * w[1] / I[2];
    return 0;
}
static int rigid_invariants(const jg_plugin_ctx_t *c, double *g)
{
    const rigid_t *r = c->data;
    double e = 0, l = 0;
    for (int i = 0; i < 3; i++) {
        e += r->I[i] * c->x[i] * c->x[i];
        l += r->I[i] * r->I[i] * c->x[i] * c->x[i];
    }
    g[0] = e - r->e0;
    g[1] = l - r->l0;
    return 0;
}
#endif

JG_PLUGIN_EXPORT int jacgraph_plugin_init(jg_plugin_registry_t *r);

#if !defined(PT_NOINIT)
JG_PLUGIN_EXPORT int jacgraph_plugin_init(jg_plugin_registry_t *r)
{
#if defined(PT_GOOD)
    static const jg_plugin_type_t cube = {.name = "PTCube", .setup = cube_setup, .outputs = cube_outputs,
                                          .derivatives = cube_derivatives};
    static const jg_plugin_type_t saw = {.name = "PTSaw", .setup = saw_setup, .outputs = saw_outputs,
                                         .derivatives = saw_derivatives, .update = saw_update,
                                         .zero_crossings = saw_zc};
    static const jg_plugin_type_t rigid = {.name = "PTRigid", .setup = rigid_setup, .outputs = rigid_outputs,
                                           .derivatives = rigid_derivatives, .invariants = rigid_invariants};
    if (r->register_type(r, &cube) || r->register_type(r, &saw) || r->register_type(r, &rigid)) return 1;
    return 0;
#elif defined(PT_BUILTIN)
    static const jg_plugin_type_t t = {.name = "Gain", .setup = nothing_setup};
    return r->register_type(r, &t);
#elif defined(PT_DUPPLUGIN)
    static const jg_plugin_type_t t = {.name = "PredPrey", .setup = nothing_setup};
    return r->register_type(r, &t);
#elif defined(PT_DUPSELF)
    static const jg_plugin_type_t t = {.name = "PTTwice", .setup = nothing_setup};
    (void)r->register_type(r, &t);
    (void)r->register_type(r, &t);
    return 0;   /* ignoring the failure does not make the host accept it */
#elif defined(PT_INITFAIL)
    static const jg_plugin_type_t t = {.name = "PTNever", .setup = nothing_setup};
    (void)r->register_type(r, &t);
    return 3;
#else
    static const jg_plugin_type_t t = {.name = "PTUnused", .setup = nothing_setup};
    return r->register_type(r, &t);
#endif
}
#endif
