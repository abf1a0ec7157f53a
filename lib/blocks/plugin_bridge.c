/* The bridge from the plugin ABI (jacgraph/plugin.h) to the block vtable (block_impl.h): the host
 * functions a plugin calls at setup and run time, and the trampolines of a plugin type's jg_block_type_t.
 *
 * A block instance's b->data is a pl_inst_t holding what the plugin declared
 * at setup.  The bridge is thin on purpose: contexts are copied field by field
 * from jg_eval_t, and Jacobian values are written by the plugin straight into
 * the parts' value arrays (the ABI's column-major / sorted-pattern order is
 * the compressed-column order); plugins without a Jacobian get plugin_fd.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin_impl.h"

/* One Jacobian part or the invariant pattern as the plugin declared it. */
typedef struct {
    int kind, rp, cp;
    int64_t nnz;               /* < 0: dense */
    int64_t *ri, *ci;          /* arena, sorted by column then row */
} pl_part_t;

/* A block instance: what setup declared. */
typedef struct {
    const jg__pltype_t *T;
    void *data;                /* the plugin's (set_data) */
    int nin, nout, ports_set;
    int64_t *in_w, *out_w;     /* declared widths, 0 until declared */
    unsigned char *ft;         /* per input: feedthrough (default parts only) */
    int64_t nx, nd, nzc;
    double *x0, *xd0;
    signed char *zdir;
    pl_part_t *part;
    int npart, cappart;
    int64_t ninv;
    pl_part_t inv;             /* pattern of dg/dx */
} pl_inst_t;

struct jg_plugin_setup {
    jg_block_t *b;
    jg_setup_t *s;
    pl_inst_t *in;
};

/* ------------------------------------------------------ API: setup side */

static int api_setup_error(jg_plugin_setup_t *s, const char *param, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jg_setup_error(s->b, s->s, JG_PARAM, param, "%s", msg);
    return -1;
}

/* A broken promise of the plugin (not of the model): JG_MODEL. */
static int plugin_error(jg_plugin_setup_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int plugin_error(jg_plugin_setup_t *s, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jg_setup_error(s->b, s->s, JG_MODEL, NULL, "plugin: %s", msg);
    return -1;
}

static int api_param(jg_plugin_setup_t *s, const char *name, const double **v, int64_t *rows,
                     int64_t *cols)
{
    jg_value_t val;
    int r = jg_setup_num(s->b, s->s, name, &val);
    if (r <= 0) return r;
    if (v) *v = val.x;
    if (rows) *rows = val.rows;
    if (cols) *cols = val.cols;
    return 1;
}

static int api_param_scalar(jg_plugin_setup_t *s, const char *name, double def, double *out)
{
    jg_value_t val;
    int r = jg_setup_num(s->b, s->s, name, &val);
    if (r < 0) return -1;
    if (r == 0) {
        *out = def;
        return 0;
    }
    if (jg_value_numel(&val) != 1)
        return api_setup_error(s, name, "expected a scalar, got %lldx%lld", (long long)val.rows,
                               (long long)val.cols);
    *out = val.x[0];
    return 0;
}

static int api_param_string(jg_plugin_setup_t *s, const char *name, const char **out)
{
    return jg_setup_str(s->b, s->s, name, out);
}

static int api_ports(jg_plugin_setup_t *s, int nin, int nout)
{
    pl_inst_t *in = s->in;
    if (in->ports_set) return plugin_error(s, "ports declared twice");
    if (nin < 0 || nout < 0 || nin > 4096 || nout > 4096)
        return plugin_error(s, "port counts %d, %d outside 0..4096", nin, nout);
    in->in_w = jg_setup_alloc(s->s, sizeof(int64_t) * (size_t)(nin + 1));
    in->out_w = jg_setup_alloc(s->s, sizeof(int64_t) * (size_t)(nout + 1));
    in->ft = jg_setup_alloc(s->s, (size_t)nin + 1);
    if (!in->in_w || !in->out_w || !in->ft) return jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
    for (int p = 0; p < nin; p++) in->ft[p] = 1;
    in->nin = nin;
    in->nout = nout;
    in->ports_set = 1;
    return 0;
}

static int api_input(jg_plugin_setup_t *s, int p, int64_t width, int feedthrough)
{
    pl_inst_t *in = s->in;
    if (p < 0 || p >= in->nin)
        return plugin_error(s, "input %d outside 0..%d (declare ports first)", p, in->nin - 1);
    if (width < 1) return plugin_error(s, "input %d: width %lld < 1", p, (long long)width);
    in->in_w[p] = width;
    in->ft[p] = feedthrough != 0;
    return 0;
}

static int api_output(jg_plugin_setup_t *s, int q, int64_t width)
{
    pl_inst_t *in = s->in;
    if (q < 0 || q >= in->nout)
        return plugin_error(s, "output %d outside 0..%d (declare ports first)", q, in->nout - 1);
    if (width < 1) return plugin_error(s, "output %d: width %lld < 1", q, (long long)width);
    in->out_w[q] = width;
    return 0;
}

static double *copy_or_zeros(jg_plugin_setup_t *s, int64_t n, const double *v)
{
    double *d = jg_setup_alloc(s->s, sizeof(double) * (size_t)(n + 1));
    if (!d) {
        jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
        return NULL;
    }
    if (v) memcpy(d, v, sizeof(double) * (size_t)n);
    return d;
}

static int api_states(jg_plugin_setup_t *s, int64_t nx, const double *x0)
{
    if (nx < 0) return plugin_error(s, "negative state count %lld", (long long)nx);
    if (!(s->in->x0 = copy_or_zeros(s, nx, x0))) return -1;
    s->in->nx = nx;
    return 0;
}

static int api_dstates(jg_plugin_setup_t *s, int64_t nd, const double *xd0)
{
    if (nd < 0) return plugin_error(s, "negative discrete state count %lld", (long long)nd);
    if (!(s->in->xd0 = copy_or_zeros(s, nd, xd0))) return -1;
    s->in->nd = nd;
    return 0;
}

static int api_zero_crossings(jg_plugin_setup_t *s, int64_t n, const signed char *dir)
{
    if (n < 0) return plugin_error(s, "negative zero-crossing count %lld", (long long)n);
    signed char *d = jg_setup_alloc(s->s, (size_t)n + 1);
    if (!d) return jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
    for (int64_t k = 0; k < n; k++) {
        d[k] = dir ? dir[k] : JG_PLUGIN_ZC_EITHER;
        if (d[k] < -1 || d[k] > 1) return plugin_error(s, "zero crossing %lld: direction %d", (long long)k, d[k]);
    }
    s->in->zdir = d;
    s->in->nzc = n;
    return 0;
}

/* Copy a declared pattern of an m x n matrix after checking it (in range,
 * sorted by column then row, no duplicates: the compressed-column order that
 * the ABI promises the values in). */
static int take_pattern(jg_plugin_setup_t *s, const char *what, int64_t m, int64_t n, int64_t nnz,
                        const int64_t *ri, const int64_t *ci, pl_part_t *out)
{
    out->nnz = nnz;
    out->ri = out->ci = NULL;
    if (nnz < 0) return 0;
    if (nnz > 0 && (!ri || !ci)) return plugin_error(s, "%s: NULL pattern with %lld entries", what, (long long)nnz);
    out->ri = jg_setup_alloc(s->s, sizeof(int64_t) * (size_t)(nnz + 1));
    out->ci = jg_setup_alloc(s->s, sizeof(int64_t) * (size_t)(nnz + 1));
    if (!out->ri || !out->ci) return jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
    for (int64_t k = 0; k < nnz; k++) {
        if (ri[k] < 0 || ri[k] >= m || ci[k] < 0 || ci[k] >= n)
            return plugin_error(s, "%s: entry %lld (%lld,%lld) outside %lldx%lld", what, (long long)k,
                                (long long)ri[k], (long long)ci[k], (long long)m, (long long)n);
        if (k && (ci[k] < ci[k - 1] || (ci[k] == ci[k - 1] && ri[k] <= ri[k - 1])))
            return plugin_error(s, "%s: entry %lld (%lld,%lld) out of order: entries must be sorted "
                                "by column, then row, without duplicates",
                                what, (long long)k, (long long)ri[k], (long long)ci[k]);
        out->ri[k] = ri[k];
        out->ci[k] = ci[k];
    }
    return 0;
}

static const char *const kind_name[] = {"A", "B", "C", "D"};

/* Rows and columns of a part from the declared sizes; -1 (message) when the
 * ports are wrong or their widths not declared yet. */
static int part_dims(jg_plugin_setup_t *s, int kind, int rp, int cp, int64_t *m, int64_t *n)
{
    const pl_inst_t *in = s->in;
    if (kind < 0 || kind > 3) return plugin_error(s, "Jacobian part kind %d (expected 0..3: A, B, C, D)", kind);
    int need_row = kind >= 2, need_col = kind == 1 || kind == 3;
    if (need_row ? (rp < 0 || rp >= in->nout) : rp != -1)
        return plugin_error(s, "Jacobian part %s: row port %d (expected %s)", kind_name[kind], rp,
                            need_row ? "an output port" : "-1");
    if (need_col ? (cp < 0 || cp >= in->nin) : cp != -1)
        return plugin_error(s, "Jacobian part %s: column port %d (expected %s)", kind_name[kind], cp,
                            need_col ? "an input port" : "-1");
    *m = need_row ? in->out_w[rp] : in->nx;
    *n = need_col ? in->in_w[cp] : in->nx;
    if (*m < 1 || *n < 1)
        return plugin_error(s, "Jacobian part %s: declare the ports' widths and the states first", kind_name[kind]);
    return 0;
}

static int add_part(jg_plugin_setup_t *s, int kind, int rp, int cp, int64_t nnz, const int64_t *ri,
                    const int64_t *ci)
{
    pl_inst_t *in = s->in;
    int64_t m = 0, n = 0;
    if (part_dims(s, kind, rp, cp, &m, &n)) return -1;
    if (in->npart == in->cappart) {   /* arena: grow by copying */
        int cap = in->cappart ? 2 * in->cappart : 8;
        pl_part_t *d = jg_setup_alloc(s->s, sizeof *d * (size_t)cap);
        if (!d) return jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
        if (in->npart) memcpy(d, in->part, sizeof *d * (size_t)in->npart);
        in->part = d;
        in->cappart = cap;
    }
    pl_part_t *P = &in->part[in->npart];
    P->kind = kind;
    P->rp = rp;
    P->cp = cp;
    char what[64];
    snprintf(what, sizeof what, "Jacobian part %d (%s)", in->npart, kind_name[kind]);
    if (take_pattern(s, what, m, n, nnz, ri, ci, P)) return -1;
    in->npart++;
    return 0;
}

static int api_jacobian_part(jg_plugin_setup_t *s, int kind, int rp, int cp, int64_t nnz,
                             const int64_t *ri, const int64_t *ci)
{
    return add_part(s, kind, rp, cp, nnz, ri, ci);
}

static int api_invariants(jg_plugin_setup_t *s, int64_t m, int64_t nnz, const int64_t *ri,
                          const int64_t *ci)
{
    pl_inst_t *in = s->in;
    if (m < 1) return plugin_error(s, "%lld invariants (expected at least 1)", (long long)m);
    if (in->nx < 1) return plugin_error(s, "invariants without continuous states (declare the states first)");
    if (take_pattern(s, "invariant Jacobian", m, in->nx, nnz, ri, ci, &in->inv)) return -1;
    in->ninv = m;
    return 0;
}

static void *api_alloc(jg_plugin_setup_t *s, size_t size)
{
    void *d = jg_setup_alloc(s->s, size ? size : 1);
    if (!d) jg_setup_error(s->b, s->s, JG_NOMEM, NULL, "out of memory");
    return d;
}

static void api_set_data(jg_plugin_setup_t *s, void *data) { s->in->data = data; }

/* ---------------------------------------------------- API: run-time side */

static int api_error(const jg_plugin_ctx_t *c, const char *fmt, ...)
{
    jg__plhost_t *h = c->host;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    h->reported = 1;
    return jg_eval_error(h->b, h->e, "%s", msg);
}

const jg_plugin_api_t jg__plugin_api = {
    .abi_version = JG_PLUGIN_ABI_VERSION,
    .param = api_param,
    .param_scalar = api_param_scalar,
    .param_string = api_param_string,
    .ports = api_ports,
    .input = api_input,
    .output = api_output,
    .states = api_states,
    .dstates = api_dstates,
    .zero_crossings = api_zero_crossings,
    .jacobian_part = api_jacobian_part,
    .invariants = api_invariants,
    .alloc = api_alloc,
    .set_data = api_set_data,
    .setup_error = api_setup_error,
    .error = api_error,
};

/* ------------------------------------------------------ vtable: compile */

static int pl_setup(jg_block_t *b, jg_setup_t *s)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    pl_inst_t *in = jg_setup_alloc(s, sizeof *in);
    if (!in) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    in->T = T;
    b->data = in;
    jg_plugin_setup_t ps = {b, s, in};
    int r = T->pt.setup(&ps, &jg__plugin_api);
    if (s->err && s->err->status != JG_OK) return JG_BLOCK_FAIL;
    if (r) return plugin_error(&ps, "setup failed (returned %d) without a message", r);
    for (int p = 0; p < in->nin; p++)
        if (in->in_w[p] < 1) return plugin_error(&ps, "input %d: width not declared", p);
    for (int q = 0; q < in->nout; q++)
        if (in->out_w[q] < 1) return plugin_error(&ps, "output %d: width not declared", q);
    if (in->nout && !T->pt.outputs) return plugin_error(&ps, "outputs declared but no outputs function");
    if (in->nx && !T->pt.derivatives) return plugin_error(&ps, "states declared but no derivatives function");
    if (in->nzc && !T->pt.zero_crossings)
        return plugin_error(&ps, "zero crossings declared but no zero_crossings function");
    if (in->ninv && !T->pt.invariants) return plugin_error(&ps, "invariants declared but no invariants function");
    if (T->pt.invariants) {   /* the host's switch, on every type that can project */
        const char *v;
        int k = jg_setup_str(b, s, "Projection", &v);
        if (k < 0) return JG_BLOCK_FAIL;
        if (k > 0 && strcmp(v, "on") && strcmp(v, "off"))
            return jg_setup_error(b, s, JG_PARAM, "Projection", "expected \"on\" or \"off\", got \"%s\"", v);
        if (k > 0 && !strcmp(v, "off")) in->ninv = 0;
    }
    if (jg_setup_ports(b, s, in->nin, in->nout) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (in->nd && jg_setup_dstates(b, s, in->nd) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (in->nzc) {
        if (jg_setup_zc(b, s, in->nzc, in->zdir) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    }
    return JG_BLOCK_DONE;
}

/* Widths are fixed by setup: set them, and check what the drivers give. */
static int pl_widths(jg_block_t *b, jg_setup_t *s)
{
    const pl_inst_t *in = b->data;
    for (int p = 0; p < in->nin; p++) {
        if (b->in_w[p] < 0) b->in_w[p] = in->in_w[p];
        if (b->in_w[p] != in->in_w[p])
            return jg_setup_error(b, s, JG_WIDTH, NULL, "input %d has width %lld but the block takes %lld",
                                  p + 1, (long long)b->in_w[p], (long long)in->in_w[p]);
    }
    for (int q = 0; q < in->nout; q++) b->out_w[q] = in->out_w[q];
    return jg_setup_states(b, s, in->nx) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int declare(jg_block_t *b, jg_setup_t *s, const pl_part_t *P)
{
    jg_jac_kind_t kind = (jg_jac_kind_t)P->kind;   /* the same numbering, A..D */
    return P->nnz < 0 ? jg_jac_dense(b, s, kind, P->rp, P->cp)
                      : jg_jac_pattern(b, s, kind, P->rp, P->cp, P->nnz, P->ri, P->ci);
}

static int pl_pattern(jg_block_t *b, jg_setup_t *s)
{
    pl_inst_t *in = b->data;
    if (in->npart) {
        for (int k = 0; k < in->npart; k++)
            if (declare(b, s, &in->part[k]) < 0) return -1;
    } else {   /* the documented defaults: everything that can depend, dense */
        pl_part_t P = {.nnz = -1};
        if (in->nx) {
            P.kind = JG_JAC_A, P.rp = -1, P.cp = -1;
            if (declare(b, s, &P) < 0) return -1;
            for (int p = 0; p < in->nin; p++) {
                P.kind = JG_JAC_B, P.rp = -1, P.cp = p;
                if (declare(b, s, &P) < 0) return -1;
            }
            for (int q = 0; q < in->nout; q++) {
                P.kind = JG_JAC_C, P.rp = q, P.cp = -1;
                if (declare(b, s, &P) < 0) return -1;
            }
        }
        for (int q = 0; q < in->nout; q++)
            for (int p = 0; p < in->nin; p++) {
                if (!in->ft[p]) continue;
                P.kind = JG_JAC_D, P.rp = q, P.cp = p;
                if (declare(b, s, &P) < 0) return -1;
            }
    }
    if (in->ninv) {   /* the invariant pattern as a compressed-column matrix */
        int64_t m = in->ninv, n = in->nx, nnz = in->inv.nnz < 0 ? m * n : in->inv.nnz;
        cs_dl *J = jg_setup_alloc(s, sizeof *J);
        int64_t *cp = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(n + 1));
        int64_t *ri = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(nnz + 1));
        if (!J || !cp || !ri) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        if (in->inv.nnz < 0) {
            for (int64_t j = 0; j <= n; j++) cp[j] = j * m;
            for (int64_t k = 0; k < nnz; k++) ri[k] = k % m;
        } else {
            for (int64_t k = 0; k < nnz; k++) {
                cp[in->inv.ci[k] + 1]++;
                ri[k] = in->inv.ri[k];
            }
            for (int64_t j = 0; j < n; j++) cp[j + 1] += cp[j];
        }
        *J = (cs_dl){.nzmax = nnz, .m = m, .n = n, .p = cp, .i = ri, .x = NULL, .nz = -1};
        jg_block_hyb_t *h = jg__block_hyb(b, s);
        if (!h) return JG_BLOCK_FAIL;
        h->ninv = m;
        h->inv_pat = J;
    }
    return 0;
}

/* ------------------------------------------------------ vtable: run time */

void jg__plugin_ctx(jg_plugin_ctx_t *c, jg__plhost_t *h, const jg_block_t *b, jg_eval_t *e)
{
    const pl_inst_t *in = b->data;
    h->b = b;
    h->e = e;
    h->reported = 0;
    *c = (jg_plugin_ctx_t){
        .t = e->t, .x = e->x, .u = e->u, .y = e->y, .dx = e->dx, .xd = e->xd, .xdw = e->xdw,
        .xw = e->xw, .zc = e->zcv, .zc_fired = e->zc_fired, .data = in->data, .path = b->path,
        .major = e->major, .first = e->first, .init = e->init, .sim = e->sim, .api = &jg__plugin_api,
        .host = h,
    };
}

/* A nonzero return: the plugin's message, or one saying which function failed. */
int jg__plugin_failed(const jg__plhost_t *h, const char *fn, int r)
{
    if (!h->reported) jg_eval_error(h->b, h->e, "%s() failed (returned %d)", fn, r);
    return -1;
}

static int pl_init(const jg_block_t *b, double *x0)
{
    const pl_inst_t *in = b->data;
    if (in->nx) memcpy(x0, in->x0, sizeof(double) * (size_t)in->nx);
    return 0;
}

static int pl_init_discrete(const jg_block_t *b, double *xd0)
{
    const pl_inst_t *in = b->data;
    if (in->nd) memcpy(xd0, in->xd0, sizeof(double) * (size_t)in->nd);
    return 0;
}

/* One run-time callback of the plugin's type on block b; a nonzero return is
 * reported with the callback's name. */
static int pl_call(const jg_block_t *b, jg_eval_t *e, int (*fn)(const jg_plugin_ctx_t *),
                   const char *what)
{
    jg_plugin_ctx_t c;
    jg__plhost_t h;
    jg__plugin_ctx(&c, &h, b, e);
    int r = fn(&c);
    return r ? jg__plugin_failed(&h, what, r) : 0;
}

static int pl_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    return T->pt.outputs ? pl_call(b, e, T->pt.outputs, "outputs") : 0;
}

static int pl_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    return pl_call(b, e, jg__pltype_of(b)->pt.derivatives, "derivatives");
}

static int pl_update(const jg_block_t *b, jg_eval_t *e)
{
    return pl_call(b, e, jg__pltype_of(b)->pt.update, "update");
}

static int pl_zc(const jg_block_t *b, jg_eval_t *e)
{
    return pl_call(b, e, jg__pltype_of(b)->pt.zero_crossings, "zero_crossings");
}

static int pl_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    if (!T->pt.jacobian) return jg__plugin_fd_jacobian(b, e);
    double *stackv[16] = {0};
    int heap = b->npart > 16;
    double **v = heap ? malloc(sizeof(double *) * (size_t)b->npart) : stackv;
    if (!v) return jg_eval_error(b, e, "out of memory");
    for (int k = 0; k < b->npart; k++) v[k] = e->jac[k]->x;
    jg_plugin_ctx_t c;
    jg__plhost_t h;
    jg__plugin_ctx(&c, &h, b, e);
    int r = T->pt.jacobian(&c, v);
    if (heap) free(v);
    return r ? jg__plugin_failed(&h, "jacobian", r) : 0;
}

/* g(x, t) and, when dg != NULL, dg/dx in jg_block_inv_pat(b)'s order: the plugin's
 * invariant_jacobian or central differences of its invariants. */
static int pl_invariants(const jg_block_t *b, jg_eval_t *e, double *g, cs_dl *dg)
{
    const jg__pltype_t *T = jg__pltype_of(b);
    jg_plugin_ctx_t c;
    jg__plhost_t h;
    jg__plugin_ctx(&c, &h, b, e);
    int r = T->pt.invariants(&c, g);
    if (r) return jg__plugin_failed(&h, "invariants", r);
    if (!dg) return 0;
    if (T->pt.invariant_jacobian) {
        r = T->pt.invariant_jacobian(&c, dg->x);
        return r ? jg__plugin_failed(&h, "invariant_jacobian", r) : 0;
    }
    return jg__plugin_fd_invariants(b, e, dg);
}

/* ------------------------------------------------------------ the vtable */

void jg__plugin_bridge(jg__pltype_t *T)
{
    const jg_plugin_type_t *t = &T->pt;
    T->bt = (jg_block_type_t){
        .name = T->name,
        .flags = t->jacobian ? 0u : (unsigned)JG_BT_JAC_PERTURB,
        .setup = pl_setup,
        .widths = pl_widths,
        .pattern = pl_pattern,
        .init = pl_init,
        .outputs = pl_outputs,
        .derivatives = t->derivatives ? pl_derivatives : NULL,
        .jacobian = pl_jacobian,
        .init_discrete = pl_init_discrete,
        .update = t->update ? pl_update : NULL,
        .zc = t->zero_crossings ? pl_zc : NULL,
        .invariants = t->invariants ? pl_invariants : NULL,
    };
}
