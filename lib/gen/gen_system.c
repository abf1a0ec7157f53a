/* gen_system.c -- the streamed system builder of `jacgraph generate`: ports,
 * SubSystems, primitive blocks, state blocks with feedback, the generic actions.
 *
 * A system's blocks are printed as they are made (a SubSystem's content right
 * where the SubSystem stands); its lines are kept until the system closes.
 * Every model is valid and linear, and its widths are decided by forward
 * propagation alone: vector root Inports have PortDimensions, and every
 * cycle of the diagram contains a block that fixes its own widths (a
 * Matrix(K*u) Gain, a TransferFcn or a StateSpace), so the compiler never
 * needs its stalled-propagation defaults.  Cycles only close through blocks
 * without direct feedthrough (Integrator, strictly proper TransferFcn,
 * StateSpace with D = 0), except in the power kind's bus networks
 * (gen_power.c).  Parameters are integers in hundredths printed as short
 * decimals. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

#define MAGCAP INT64_C(1000000000000000)

/* hundredths as a short exact decimal: 200 -> "2", -35 -> "-0.35", 50 -> "0.5" */
const char *jg__gen_fh(char *buf, int v)
{
    int a = v < 0 ? -v : v;
    const char *sg = v < 0 ? "-" : "";
    if (a % 100 == 0) snprintf(buf, 24, "%s%d", sg, a / 100);
    else if (a % 10 == 0) snprintf(buf, 24, "%s%d.%d", sg, a / 100, a % 100 / 10);
    else snprintf(buf, 24, "%s%d.%02d", sg, a / 100, a % 100);
    return buf;
}

void jg__gen_out(jg__gen_t *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(g->f, fmt, ap);
    va_end(ap);
    if (n < 0) g->ioerr = 1;
    else g->bytes += (uint64_t)n;
}

void jg__gen_outs(jg__gen_t *g, const char *s)
{
    size_t n = strlen(s);
    if (fwrite(s, 1, n, g->f) != n) g->ioerr = 1;
    g->bytes += n;
}

static void out_h(jg__gen_t *g, int v)
{
    char b[24];
    jg__gen_outs(g, jg__gen_fh(b, v));
}

void jg__gen_out_vec(jg__gen_t *g, const int *v, int n)
{
    jg__gen_outs(g, "[");
    for (int i = 0; i < n; i++) {
        if (i) jg__gen_outs(g, ",");
        out_h(g, v[i]);
    }
    jg__gen_outs(g, "]");
}

/* rows x cols, row-major, always as nested rows */
static void out_mat(jg__gen_t *g, const int *v, int rows, int cols)
{
    jg__gen_outs(g, "[");
    for (int r = 0; r < rows; r++) {
        if (r) jg__gen_outs(g, ",");
        jg__gen_out_vec(g, v + r * cols, cols);
    }
    jg__gen_outs(g, "]");
}

static int ind(const jg__gen_sys_t *s) { return s->depth < 12 ? s->depth : 12; }

void jg__gen_sys_init(jg__gen_sys_t *s, jg__gen_t *g, int depth)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->depth = depth;
    jg__gen_sb_init(&s->lines, &g->mem);
    if (depth > g->depth) g->depth = depth;
}

void jg__gen_sys_free(jg__gen_sys_t *s)
{
    jg__gen_free(&s->g->mem, s->sig);
    jg__gen_free(&s->g->mem, s->pend);
    jg__gen_sb_free(&s->lines);
}

static void write_lines(jg__gen_sys_t *s)
{
    if (s->lines.n) jg__gen_outs(s->g, s->lines.s);
}

/* Start a block: the caller adds ",\"Param\":..." and calls blk_end. */
void jg__gen_blk_begin(jg__gen_sys_t *s, const char *name, const char *type)
{
    jg__gen_out(s->g, "%s\n%*s{\"name\":\"%s\",\"type\":\"%s\"", s->nblk++ ? "," : "", ind(s) + 1, "",
        name, type);
    s->g->nblocks++;
}

void jg__gen_blk_end(jg__gen_sys_t *s) { jg__gen_outs(s->g, "}"); }

void jg__gen_new_name(jg__gen_sys_t *s, const char *prefix, char *name)
{
    snprintf(name, 16, "%s%d", prefix, ++s->id);
}

/* One line src -> "dst:port". */
void jg__gen_link(jg__gen_sys_t *s, const char *src, const char *dst, int port)
{
    jg__gen_sb_printf(&s->lines, "%s\n%*s{\"src\":\"%s\",\"dst\":\"%s:%d\"}", s->nlines++ ? "," : "",
              ind(s) + 1, "", src, dst, port);
}

void jg__gen_sum_of(jg__gen_sys_t *s, const char *name, const char *signs, const char *const *src)
{
    jg__gen_blk_begin(s, name, "Sum");
    jg__gen_out(s->g, ",\"Inputs\":\"%s\"", signs);
    jg__gen_blk_end(s);
    for (int k = 0; signs[k]; k++) jg__gen_link(s, src[k], name, k + 1);
}

void jg__gen_connect(jg__gen_sys_t *s, int sig, const char *blk, int port)
{
    jg__gen_link(s, SG(sig).src, blk, port);
    SG(sig).uses++;
}

int jg__gen_add_sig(jg__gen_sys_t *s, const char *blk, int port, int w, int64_t mag, int fb)
{
    if (s->nsig == s->capsig) {
        s->capsig = s->capsig ? 2 * s->capsig : 32;
        s->sig = jg__gen_realloc(&s->g->mem, s->sig, sizeof *s->sig * (size_t)s->capsig);
    }
    jg__gen_sig_t *x = &s->sig[s->nsig];
    snprintf(x->src, sizeof x->src, "%s:%d", blk, port);
    x->w = w;
    x->uses = 0;
    x->fb = fb;
    x->mag = mag < 1 ? 1 : mag > MAGCAP ? MAGCAP : mag;
    return s->nsig++;
}

static int64_t mag_scale(int64_t m, int k)
{
    int64_t r = (m * (k < 0 ? -k : k) + 99) / 100;
    return r < 1 ? 1 : r > MAGCAP ? MAGCAP : r;
}

void jg__gen_root_open(jg__gen_t *g, const char *name, const char *desc)
{
    jg__gen_out(g, "{\n\"name\":\"%s\",\n\"description\":\"%s\",\n\"blocks\":[", name, desc);
}

void jg__gen_root_close(jg__gen_sys_t *s)
{
    jg__gen_outs(s->g, "\n],\n\"lines\":[");
    write_lines(s);
    jg__gen_outs(s->g, "\n]\n}\n");
}

/* Write the SubSystem block `name` into s and open it as c. */
void jg__gen_sub_open(jg__gen_sys_t *s, jg__gen_sys_t *c, const char *name)
{
    jg__gen_blk_begin(s, name, "SubSystem");
    jg__gen_outs(s->g, ",\"blocks\":[");
    jg__gen_sys_init(c, s->g, s->depth + 1);
    s->g->nsub++;
}

void jg__gen_sub_close(jg__gen_sys_t *c)
{
    jg__gen_out(c->g, "\n%*s],\"lines\":[", ind(c), "");
    write_lines(c);
    jg__gen_outs(c->g, "]}");
    jg__gen_sys_free(c);
}

/* Inport number ++nin of width w (PortDimensions when a vector). */
int jg__gen_add_inport(jg__gen_sys_t *s, int w, int64_t mag)
{
    char n[16];
    snprintf(n, sizeof n, "I%d", ++s->nin);
    jg__gen_blk_begin(s, n, "Inport");
    jg__gen_out(s->g, ",\"Port\":%d", s->nin);
    /* at the root always: a root Inport without it is scalar only by default */
    if (w > 1 || s->depth == 0) jg__gen_out(s->g, ",\"PortDimensions\":%d", w);
    jg__gen_blk_end(s);
    if (s->depth == 0) s->g->ninputs++;
    return jg__gen_add_sig(s, n, 1, w, mag, -1);
}

/* Outport number ++nout driven by a source string of width w. */
void jg__gen_add_outport_src(jg__gen_sys_t *s, const char *src, int w)
{
    char n[16];
    snprintf(n, sizeof n, "O%d", ++s->nout);
    jg__gen_blk_begin(s, n, "Outport");
    jg__gen_out(s->g, ",\"Port\":%d", s->nout);
    if (w > 1) jg__gen_out(s->g, ",\"PortDimensions\":%d", w);
    jg__gen_blk_end(s);
    jg__gen_link(s, src, n, 1);
    if (s->depth == 0) s->g->noutputs++;
}

void jg__gen_add_outport(jg__gen_sys_t *s, int sig)
{
    SG(sig).uses++;
    jg__gen_add_outport_src(s, SG(sig).src, SG(sig).w);
}

/* ------------------------------------------------------ primitive blocks */

/* element-wise Gain, k[0..nk-1] (nk 1 or the input width, or a vector with a
 * scalar input) */
static int mk_gainv(jg__gen_sys_t *s, int in, const int *k, int nk)
{
    char n[16];
    jg__gen_new_name(s, "G", n);
    jg__gen_blk_begin(s, n, "Gain");
    jg__gen_outs(s->g, ",\"Gain\":");
    if (nk == 1) out_h(s->g, k[0]);
    else jg__gen_out_vec(s->g, k, nk);
    jg__gen_blk_end(s);
    jg__gen_connect(s, in, n, 1);
    int km = 0;
    for (int i = 0; i < nk; i++) km = abs(k[i]) > km ? abs(k[i]) : km;
    int w = SG(in).w > nk ? SG(in).w : nk;
    return jg__gen_add_sig(s, n, 1, w, mag_scale(SG(in).mag, km), SG(in).fb);
}

int jg__gen_mk_gain(jg__gen_sys_t *s, int in, int k) { return mk_gainv(s, in, &k, 1); }

/* Matrix(K*u) Gain, K rows x (input width): fixes both widths. */
static int mk_gainm_named(jg__gen_sys_t *s, int in, const int *k, int rows, const char *prefix)
{
    char n[16];
    int cols = SG(in).w, rmax = 0;
    jg__gen_new_name(s, prefix, n);
    jg__gen_blk_begin(s, n, "Gain");
    jg__gen_outs(s->g, ",\"Gain\":");
    out_mat(s->g, k, rows, cols);
    jg__gen_outs(s->g, ",\"Multiplication\":\"Matrix(K*u)\"");
    jg__gen_blk_end(s);
    jg__gen_connect(s, in, n, 1);
    for (int r = 0; r < rows; r++) {
        int t = 0;
        for (int c = 0; c < cols; c++) t += abs(k[r * cols + c]);
        rmax = t > rmax ? t : rmax;
    }
    return jg__gen_add_sig(s, n, 1, rows, mag_scale(SG(in).mag, rmax), SG(in).fb);
}

static int mk_gainm(jg__gen_sys_t *s, int in, const int *k, int rows)
{
    return mk_gainm_named(s, in, k, rows, "G");
}

/* A block of `type` named prefix<id> with the "Inputs" parameter inputs (JSON
 * text) fed by in[0..n-1]; its output signal has width w, magnitude mag. */
static int mk_fan_in(jg__gen_sys_t *s, const char *prefix, const char *type, const char *inputs,
                     const int *in, int n, int w, int64_t mag, int fb)
{
    char nm[16];
    jg__gen_new_name(s, prefix, nm);
    jg__gen_blk_begin(s, nm, type);
    jg__gen_out(s->g, ",\"Inputs\":%s", inputs);
    jg__gen_blk_end(s);
    for (int i = 0; i < n; i++) jg__gen_connect(s, in[i], nm, i + 1);
    return jg__gen_add_sig(s, nm, 1, w, mag, fb);
}

/* Sum of in[0..n-1] with signs sg[] (+1/-1); widths equal or 1. */
int jg__gen_mk_sum(jg__gen_sys_t *s, const int *in, const int *sg, int n)
{
    char str[40];
    int w = 1, fb = -1;
    int64_t mag = 0;
    for (int i = 0; i < n; i++) {
        str[i] = sg[i] > 0 ? '+' : '-';
        w = SG(in[i]).w > w ? SG(in[i]).w : w;
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
        mag += SG(in[i]).mag;
    }
    str[n] = '\0';
    char inputs[44];
    snprintf(inputs, sizeof inputs, "\"%s\"", str);
    return mk_fan_in(s, "S", "Sum", inputs, in, n, w, mag, fb);
}

static int mk_mux(jg__gen_sys_t *s, const int *in, int n)
{
    int w = 0, fb = -1;
    int64_t mag = 0;
    for (int i = 0; i < n; i++) {
        w += SG(in[i]).w;
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
        mag = SG(in[i]).mag > mag ? SG(in[i]).mag : mag;
    }
    char inputs[16];
    snprintf(inputs, sizeof inputs, "%d", n);
    return mk_fan_in(s, "X", "Mux", inputs, in, n, w, mag, fb);
}

/* Demux into parts[0..np-1]; the output signals go to o[]. */
static void mk_demux(jg__gen_sys_t *s, int in, const int *parts, int np, int *o)
{
    char nm[16];
    int equal = 1;
    for (int i = 1; i < np; i++) equal &= parts[i] == parts[0];
    jg__gen_new_name(s, "D", nm);
    jg__gen_blk_begin(s, nm, "Demux");
    if (equal) {
        jg__gen_out(s->g, ",\"Outputs\":%d", np);
    } else {
        jg__gen_outs(s->g, ",\"Outputs\":[");
        for (int i = 0; i < np; i++) jg__gen_out(s->g, "%s%d", i ? "," : "", parts[i]);
        jg__gen_outs(s->g, "]");
    }
    jg__gen_blk_end(s);
    jg__gen_connect(s, in, nm, 1);
    int64_t mag = SG(in).mag;
    int fb = SG(in).fb;
    for (int i = 0; i < np; i++) o[i] = jg__gen_add_sig(s, nm, i + 1, parts[i], mag, fb);
}

/* Selector of idx[0..n-1] (1-based) from a signal of width w. */
static int mk_sel(jg__gen_sys_t *s, int in, const int *idx, int n)
{
    char nm[16];
    jg__gen_new_name(s, "P", nm);
    jg__gen_blk_begin(s, nm, "Selector");
    jg__gen_outs(s->g, ",\"Indices\":[");
    for (int i = 0; i < n; i++) jg__gen_out(s->g, "%s%d", i ? "," : "", idx[i]);
    jg__gen_out(s->g, "],\"InputPortWidth\":%d", SG(in).w);
    jg__gen_blk_end(s);
    jg__gen_connect(s, in, nm, 1);
    return jg__gen_add_sig(s, nm, 1, n, SG(in).mag, SG(in).fb);
}

/* A Gain bringing a large magnitude bound back to about 1.5. */
int jg__gen_tame(jg__gen_sys_t *s, int i)
{
    if (SG(i).mag <= 300) return i;
    int64_t k = 15000 / SG(i).mag;
    if (k < 1) k = 1;
    return jg__gen_mk_gain(s, i, jg__gen_rpct(RNG, 70) ? (int)k : -(int)k);
}

/* A signal to read: preferably one nothing reads yet, recent ones more often. */
static int pick_raw(jg__gen_sys_t *s)
{
    int n = s->nsig;
    if (s->nin && jg__gen_rpct(RNG, 30)) {   /* an Inport nothing reads yet */
        int i = jg__gen_rin(RNG, 0, s->nin - 1);
        if (!SG(i).uses) return i;
    }
    if (jg__gen_rpct(RNG, 60))
        for (int i = n - 1; i >= 0 && i >= n - 8; i--)
            if (!SG(i).uses) return i;
    if (jg__gen_rpct(RNG, 50))
        for (int t = 0; t < 4; t++) {
            int i = jg__gen_rin(RNG, 0, n - 1);
            if (!SG(i).uses) return i;
        }
    if (jg__gen_rpct(RNG, 60)) return n - 1 - jg__gen_rin(RNG, 0, (n < 5 ? n : 5) - 1);
    return jg__gen_rin(RNG, 0, n - 1);
}

int jg__gen_pick(jg__gen_sys_t *s)
{
    if (!s->nsig) {   /* a system without inputs: start from a Constant */
        char nm[16];
        jg__gen_new_name(s, "C", nm);
        jg__gen_blk_begin(s, nm, "Constant");
        jg__gen_outs(s->g, ",\"Value\":1");
        jg__gen_blk_end(s);
        jg__gen_add_sig(s, nm, 1, 1, 100, -1);
    }
    return jg__gen_tame(s, pick_raw(s));
}

static void rand_matrix(jg__gen_sys_t *s, int *k, int rows, int cols, int mag)
{
    for (int r = 0; r < rows; r++) {
        int nz = 0;
        for (int c = 0; c < cols; c++) {
            k[r * cols + c] = jg__gen_rpct(RNG, 35) ? 0 : jg__gen_rsgn(RNG, 10, mag);
            nz += k[r * cols + c] != 0;
        }
        if (!nz) k[r * cols + jg__gen_rin(RNG, 0, cols - 1)] = jg__gen_rsgn(RNG, 10, mag);
    }
}

/* Make signal `in` width w with routing or a Gain. */
int jg__gen_adapt(jg__gen_sys_t *s, int in, int w)
{
    int ws = SG(in).w, idx[8], k[64];
    if (ws == w) return in;
    if (ws == 1) {
        if (jg__gen_rpct(RNG, 50)) {
            for (int i = 0; i < w; i++) idx[i] = 1;
            return mk_sel(s, in, idx, w);
        }
        for (int i = 0; i < w; i++) k[i] = jg__gen_rsgn(RNG, 20, 120);
        return mk_gainv(s, in, k, w);
    }
    int c = jg__gen_rin(RNG, 0, 9);
    if (w == 1 && c < 8) {
        idx[0] = jg__gen_rin(RNG, 1, ws);
        return mk_sel(s, in, idx, 1);
    }
    if (c < 6) {
        for (int i = 0; i < w; i++) idx[i] = jg__gen_rin(RNG, 1, ws);
        return mk_sel(s, in, idx, w);
    }
    rand_matrix(s, k, w, ws, 100);
    return mk_gainm(s, in, k, w);
}

/* A signal of width w: from the pool if one turns up, else adapted. */
int jg__gen_get_w(jg__gen_sys_t *s, int w)
{
    for (int t = 0; t < 5; t++) {
        int i = jg__gen_pick(s);
        if (SG(i).w == w) return i;
    }
    return jg__gen_adapt(s, jg__gen_pick(s), w);
}

/* ----------------------------------------------------------- state blocks */

static void pending(jg__gen_sys_t *s, const char *blk, int w)
{
    if (s->npend == s->cappend) {
        s->cappend = s->cappend ? 2 * s->cappend : 8;
        s->pend = jg__gen_realloc(&s->g->mem, s->pend, sizeof *s->pend * (size_t)s->cappend);
    }
    jg__gen_pend_t *p = &s->pend[s->npend];
    snprintf(p->blk, sizeof p->blk, "%s", blk);
    p->w = w;
    p->after = s->nsig;
    p->id = s->npend++;
}

/* The output signal (width wout) of the state block n with `nstates` states
 * and an input of width win: in < 0, the input is closed later (pending);
 * else driven by in, its magnitude 100 plus the feedthrough (ft != 0: in's
 * magnitude scaled by ft). */
static int state_out(jg__gen_sys_t *s, const char *n, int in, int win, int wout, int nstates, int ft)
{
    s->g->nstates += nstates;
    if (in < 0) {
        pending(s, n, win);
        return jg__gen_add_sig(s, n, 1, wout, 100, s->npend - 1);
    }
    jg__gen_connect(s, in, n, 1);
    int64_t mag = 100 + (ft ? mag_scale(SG(in).mag, ft) : 0);
    return jg__gen_add_sig(s, n, 1, wout, mag, SG(in).fb);
}

/* Integrator of width w; in < 0: input closed later (feedback). */
int jg__gen_mk_integrator(jg__gen_sys_t *s, int in, int w)
{
    char n[16];
    int ic[8];
    jg__gen_new_name(s, "N", n);
    jg__gen_blk_begin(s, n, "Integrator");
    for (int i = 0; i < w; i++) ic[i] = jg__gen_rin(RNG, -100, 100);
    jg__gen_outs(s->g, ",\"InitialCondition\":");
    if (w == 1) out_h(s->g, ic[0]);
    else jg__gen_out_vec(s->g, ic, w);   /* a vector IC fixes the width */
    jg__gen_blk_end(s);
    return state_out(s, n, in, w, w, w, 0);
}

/* Hurwitz denominator of degree n (1 or 2), highest power first. */
static void rand_den(jg__gen_sys_t *s, int *d, int n)
{
    d[0] = jg__gen_rpct(RNG, 60) ? 100 : jg__gen_rin(RNG, 20, 200);
    for (int i = 1; i <= n; i++) d[i] = jg__gen_rin(RNG, 20, 400);
}

/* SISO TransferFcn; in < 0: pending and strictly proper. */
static int mk_tf(jg__gen_sys_t *s, int in, int feedthrough)
{
    char n[16];
    int nd = jg__gen_rin(RNG, 1, 2), den[3], num[3], nn = 0;
    rand_den(s, den, nd);
    if (in < 0) feedthrough = 0;
    int deg = feedthrough ? nd : jg__gen_rin(RNG, 0, nd - 1);
    for (int i = 0; i <= deg; i++) num[nn++] = jg__gen_rsgn(RNG, 20, 150);
    jg__gen_new_name(s, "T", n);
    jg__gen_blk_begin(s, n, "TransferFcn");
    jg__gen_outs(s->g, ",\"Numerator\":");
    jg__gen_out_vec(s->g, num, nn);
    jg__gen_outs(s->g, ",\"Denominator\":");
    jg__gen_out_vec(s->g, den, nd + 1);
    jg__gen_blk_end(s);
    return state_out(s, n, in, 1, 1, nd, feedthrough ? 100 * abs(num[0]) / den[0] + 1 : 0);
}

/* StateSpace with m inputs, p outputs, 1-2 states; in < 0: pending, D = 0. */
static int mk_ss(jg__gen_sys_t *s, int in, int m, int p, int hasD)
{
    char nm[16];
    int n = jg__gen_rin(RNG, 1, 2), a[4], b[8], c[8], d[16] = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = i == j ? -jg__gen_rin(RNG, 50, 300) : jg__gen_rpct(RNG, 50) ? jg__gen_rsgn(RNG, 10, 80) : 0;
    rand_matrix(s, b, n, m, 100);
    rand_matrix(s, c, p, n, 100);
    if (in < 0) hasD = 0;
    if (hasD) rand_matrix(s, d, p, m, 60);
    jg__gen_new_name(s, "Q", nm);
    jg__gen_blk_begin(s, nm, "StateSpace");
    jg__gen_outs(s->g, ",\"A\":");
    out_mat(s->g, a, n, n);
    jg__gen_outs(s->g, ",\"B\":");
    out_mat(s->g, b, n, m);
    jg__gen_outs(s->g, ",\"C\":");
    out_mat(s->g, c, p, n);
    jg__gen_outs(s->g, ",\"D\":");
    out_mat(s->g, d, p, m);   /* all zeros when !hasD: an absent D would mean 1 */
    jg__gen_blk_end(s);
    return state_out(s, nm, in, m, p, n, hasD ? 60 * m : 0);
}

/* Close every pending state input with a Matrix(K*u) Gain "F" reading a later
 * signal, preferably one that depends on the state (a feedback loop). */
void jg__gen_close_pending(jg__gen_sys_t *s)
{
    for (int q = 0; q < s->npend; q++) {
        jg__gen_pend_t p = s->pend[q];
        int src = -1, nmatch = 0;
        for (int i = s->nsig - 1; i > p.after; i--)
            if (SG(i).fb == p.id && jg__gen_rin(RNG, 0, nmatch++) == 0) src = i;
        if (src < 0 && p.after + 1 < s->nsig) src = jg__gen_rin(RNG, p.after + 1, s->nsig - 1);
        if (src < 0) src = jg__gen_rin(RNG, 0, s->nsig - 1);
        int ws = SG(src).w, k[64];
        /* row abs sums about 1 / mag: the loop gain stays moderate */
        int64_t lim = 12000 / SG(src).mag;
        if (lim < 10) lim = 10;
        if (lim > 150) lim = 150;
        for (int r = 0; r < p.w; r++) {
            int nz = 0;
            for (int c = 0; c < ws; c++) {
                k[r * ws + c] = jg__gen_rpct(RNG, 40) ? 0 : -jg__gen_rin(RNG, 1, (int)lim / ws + 1);
                nz += k[r * ws + c] != 0;
            }
            if (!nz) k[r * ws + jg__gen_rin(RNG, 0, ws - 1)] = -jg__gen_rin(RNG, 1, (int)lim / ws + 1);
        }
        int f = mk_gainm_named(s, src, k, p.w, "F");
        jg__gen_connect(s, f, p.blk, 1);
    }
    s->npend = 0;
}

/* ------------------------------------------------------ generic actions */

const int jg__gen_vwidth[6] = {2, 3, 3, 3, 4, 6};

void jg__gen_act_gain(jg__gen_sys_t *s)
{
    int in = jg__gen_pick(s), w = SG(in).w, k[8];
    if (w > 1 && jg__gen_rpct(RNG, 35)) {
        for (int i = 0; i < w; i++) k[i] = jg__gen_rsgn(RNG, 10, 150);
        mk_gainv(s, in, k, w);
    } else {
        jg__gen_mk_gain(s, in, jg__gen_rsgn(RNG, 10, 150));
    }
}

void jg__gen_act_sum(jg__gen_sys_t *s)
{
    int n = jg__gen_rpct(RNG, 70) ? 2 : 3, in[3], sg[3];
    in[0] = jg__gen_pick(s);
    int w = SG(in[0]).w;
    for (int i = 1; i < n; i++) in[i] = w > 1 && jg__gen_rpct(RNG, 20) ? jg__gen_get_w(s, 1) : jg__gen_get_w(s, w);
    for (int i = 0; i < n; i++) sg[i] = jg__gen_rpct(RNG, 65) ? 1 : -1;
    jg__gen_mk_sum(s, in, sg, n);
}

void jg__gen_act_mux(jg__gen_sys_t *s)
{
    int n = jg__gen_rin(RNG, 2, 3), in[3], tot = 0, k = 0;
    for (int i = 0; i < n; i++) {
        int room = 6 - tot - (n - 1 - i);
        if (room < 1) break;
        int x = jg__gen_pick(s);
        if (SG(x).w > room) x = jg__gen_adapt(s, x, jg__gen_rin(RNG, 1, room));
        in[k++] = x;
        tot += SG(x).w;
    }
    if (k >= 2) mk_mux(s, in, k);
}

void jg__gen_act_demux(jg__gen_sys_t *s)
{
    int in = -1;
    for (int t = 0; t < 6 && in < 0; t++) {
        int x = jg__gen_pick(s);
        if (SG(x).w >= 2) in = x;
    }
    if (in < 0) in = jg__gen_adapt(s, jg__gen_pick(s), jg__gen_vwidth[jg__gen_rin(RNG, 0, 5)]);
    int w = SG(in).w, parts[8], o[8], np;
    if (jg__gen_rpct(RNG, 50)) {
        np = w;   /* into scalars */
        for (int i = 0; i < np; i++) parts[i] = 1;
    } else {
        np = jg__gen_rin(RNG, 2, w < 3 ? w : 3);
        int left = w;
        for (int i = 0; i < np - 1; i++) {
            parts[i] = jg__gen_rin(RNG, 1, left - (np - 1 - i));
            left -= parts[i];
        }
        parts[np - 1] = left;
    }
    mk_demux(s, in, parts, np, o);
}

void jg__gen_act_sel(jg__gen_sys_t *s)
{
    int in = -1, idx[8];
    for (int t = 0; t < 6 && in < 0; t++) {
        int x = jg__gen_pick(s);
        if (SG(x).w >= 2) in = x;
    }
    if (in < 0) {
        jg__gen_act_mux(s);
        return;
    }
    int w = SG(in).w, n = jg__gen_rpct(RNG, 50) ? 1 : jg__gen_rin(RNG, 2, w < 6 ? w : 6);
    for (int i = 0; i < n; i++) idx[i] = jg__gen_rin(RNG, 1, w);
    mk_sel(s, in, idx, n);
}

void jg__gen_act_matrix(jg__gen_sys_t *s)
{
    int in = jg__gen_pick(s), k[64];
    int rows = SG(in).w == 3 && jg__gen_rpct(RNG, 60) ? 3 : jg__gen_rin(RNG, 1, 3);
    rand_matrix(s, k, rows, SG(in).w, 100);
    mk_gainm(s, in, k, rows);
}

/* a state block: mostly with its input closed later through feedback */
void jg__gen_act_state(jg__gen_sys_t *s)
{
    int r = jg__gen_rin(RNG, 0, 99), fbk = jg__gen_rpct(RNG, 75);
    if (r < 45) {
        int w = jg__gen_rpct(RNG, 50) ? 1 : jg__gen_rin(RNG, 2, 3);
        jg__gen_mk_integrator(s, fbk ? -1 : jg__gen_get_w(s, w), w);
    } else if (r < 75) {
        mk_tf(s, fbk ? -1 : jg__gen_get_w(s, 1), jg__gen_rpct(RNG, 50));
    } else {
        int m = jg__gen_rin(RNG, 1, 3), p = jg__gen_rin(RNG, 1, 3);
        mk_ss(s, fbk ? -1 : jg__gen_get_w(s, m), m, p, jg__gen_rpct(RNG, 40));
    }
}

int jg__gen_need_state(const jg__gen_sys_t *s)
{
    return s->g->nstates * s->g->state_rate < s->g->nblocks;
}

/* The Outports of a system: nout signals of widths ow[], magnitudes to om[]. */
/* x plus up to `max` signals nothing reads yet (of x's width, or scalars),
 * so that few outputs are left dangling; tamed. */
int jg__gen_absorb(jg__gen_sys_t *s, int x, int max)
{
    int in[8] = {x}, sg[8] = {1}, n = 1, w = SG(x).w;
    if (max > 7) max = 7;
    for (int i = s->nsig - 1; i >= 0 && n <= max; i--)
        if (!SG(i).uses && i != x && (SG(i).w == w || SG(i).w == 1)) {
            in[n] = jg__gen_tame(s, i);
            sg[n++] = jg__gen_rpct(RNG, 70) ? 1 : -1;
        }
    if (n > 1) x = jg__gen_mk_sum(s, in, sg, n);
    return jg__gen_tame(s, x);
}

void jg__gen_finish_outports(jg__gen_sys_t *s, int nout, const int *ow, int64_t *om)
{
    for (int k = 0; k < nout; k++) {
        int x = jg__gen_absorb(s, jg__gen_get_w(s, ow[k]), 6);
        if (om) om[k] = SG(x).mag;
        jg__gen_add_outport(s, x);
    }
}

/* smallest c >= 1 with c^L >= x */
int jg__gen_iroot_ceil(int64_t x, int L)
{
    int c = 1;
    for (;; c++) {
        int64_t p = 1;
        for (int i = 0; i < L && p < x; i++) p *= c;
        if (p >= x || c > 1000) return c;
    }
}

