/* jacgraph generate: large seeded models with the structure of real ones
 * (aerospace flight control, power networks, deep hierarchies), written as
 * JSON in the format of docs/model-format.md.  See docs/generator.md.
 *
 * The output is streamed: a system's blocks are printed as they are made
 * (a SubSystem's content right where the SubSystem stands), and only the
 * lines of the systems on the current nesting path are kept in memory, so a
 * model of 10^6 blocks needs a few hundred kilobytes.  Everything comes from
 * one splitmix64 stream and integer arithmetic; parameters are integers in
 * hundredths printed as short decimals, so a seed gives the same bytes on
 * every machine.
 *
 * Every model is valid and linear, and its widths are decided by forward
 * propagation alone: vector root Inports have PortDimensions, and every
 * cycle of the diagram contains a block that fixes its own widths (a
 * Matrix(K*u) Gain, a TransferFcn or a StateSpace), so the compiler never
 * needs its stalled-propagation defaults.  Cycles only close through blocks
 * without direct feedthrough (Integrator, strictly proper TransferFcn,
 * StateSpace with D = 0), except in the power kind's bus networks, which are
 * algebraic loops of Gains and Sums made diagonally dominant (row sums of
 * |loop gain| <= 0.8). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "jacgraph/io.h"
#include "cli.h"

static const char help[] =
    "usage: jacgraph generate KIND --blocks N [--seed S] [--out FILE] [--format F] [--depth D] [--quiet]\n"
    "       jacgraph generate brusselator --states N [--seed S] [--out FILE] [--format F] [--quiet]\n"
    "\n"
    "Write a seeded synthetic model (JSON, or a Simulink MDL/SLX file) with about\n"
    "N blocks, SubSystems and their Inport/Outport blocks included.  KIND:\n"
    "  aerospace  many small SubSystems (3-20 blocks, nested 2-4 deep) of Gains,\n"
    "             Sums and Mux/Demux/Selector routing on vectors of width 2-6, one\n"
    "             state per ~35 blocks (Integrator, TransferFcn, StateSpace) with\n"
    "             feedback through the states\n"
    "  power      areas of 10-50 buses (Sums with many inputs) coupled by line\n"
    "             admittances (Gains): one diagonally dominant linear algebraic\n"
    "             loop per area; generator SubSystems (2-4 states) on most buses;\n"
    "             areas grouped into cells joined by tie-line dynamics\n"
    "  deep       SubSystems nested 10-50 levels (chains and trees), signals\n"
    "             passed down and up through the ports, an Integrator with\n"
    "             feedback through the lower levels at every level\n"
    "  brusselator  the stiff 2-D Brusselator with diffusion (Hairer & Wanner II,\n"
    "             BRUSS-2D) on an nx x ny periodic grid, N = 2 nx ny states in two\n"
    "             vector Integrators, 25 blocks at every size; nx is the largest\n"
    "             divisor of N/2 not above sqrt(N/2) and must be at least 3\n"
    "             (98 = 2x7x7, 100 = 2x5x10, 1000 = 2x20x25, 100000 = 2x200x250)\n"
    "\n"
    "  --blocks N   target block count (10 .. 10^7; suffix k or M allowed: 10k, 1M)\n"
    "  --states N   brusselator: the number of states (18 .. 10^7, k and M allowed)\n"
    "  --seed S     seed (unsigned 64-bit, default 1); same seed, same bytes;\n"
    "               brusselator: perturbs the initial values by up to 0.01 (0: none)\n"
    "  --out FILE   write to FILE (default: standard output; mdl and slx need a FILE)\n"
    "  --format F   json (default), mdl (classic Simulink MDL, 8.1 layout) or slx\n"
    "               (Simulink SLX package, R2019b layout); without --format, an\n"
    "               --out FILE ending in .mdl or .slx chooses that format\n"
    "  --depth D    deep: nesting depth to aim for (default 10..50 from the seed)\n"
    "  --quiet      no summary line on standard error\n";

/* ------------------------------------------------------------ PRNG, buffers */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rnext(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int rin(rng_t *r, int lo, int hi)
{
    if (hi <= lo) return lo;
    return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1));
}

static int rpct(rng_t *r, int pct) { return rin(r, 0, 99) < pct; }

/* nonzero hundredths in [lo, hi] with a random sign */
static int rsgn(rng_t *r, int lo, int hi)
{
    int v = rin(r, lo, hi);
    return rpct(r, 50) ? -v : v;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "jacgraph generate: out of memory\n");
        exit(70);
    }
    return q;
}

typedef struct {
    char *s;
    size_t n, cap;
} sb_t;

static void sb_printf(sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb_t *b, const char *fmt, ...)
{
    for (;;) {
        size_t room = b->cap - b->n;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            fprintf(stderr, "jacgraph generate: formatting failed\n");
            exit(70);
        }
        if (b->s && (size_t)n < room) {
            b->n += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + (size_t)n + 1) cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
}

/* hundredths as a short exact decimal: 200 -> "2", -35 -> "-0.35", 50 -> "0.5" */
static const char *fh(char *buf, int v)
{
    int a = v < 0 ? -v : v;
    const char *sg = v < 0 ? "-" : "";
    if (a % 100 == 0) snprintf(buf, 24, "%s%d", sg, a / 100);
    else if (a % 10 == 0) snprintf(buf, 24, "%s%d.%d", sg, a / 100, a % 100 / 10);
    else snprintf(buf, 24, "%s%d.%02d", sg, a / 100, a % 100);
    return buf;
}

/* ---------------------------------------------------------------- output */

enum { K_AERO, K_POWER, K_DEEP, K_BRUSS };

typedef struct {
    FILE *f;
    int ioerr;
    uint64_t bytes;
    rng_t r;
    int kind;
    int64_t nblocks, nsub, nstates, nloops, ninputs, noutputs;
    int depth;
    int state_rate;   /* one state per this many blocks (aerospace, deep leaves) */
    int pw_full;      /* power: generator SubSystems, reference and measurement ports */
    uint64_t seed;    /* brusselator: 0 = the unperturbed initial values */
} gen_t;

static void out(gen_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(gen_t *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(g->f, fmt, ap);
    va_end(ap);
    if (n < 0) g->ioerr = 1;
    else g->bytes += (uint64_t)n;
}

static void outs(gen_t *g, const char *s)
{
    size_t n = strlen(s);
    if (fwrite(s, 1, n, g->f) != n) g->ioerr = 1;
    g->bytes += n;
}

static void out_h(gen_t *g, int v)
{
    char b[24];
    outs(g, fh(b, v));
}

static void out_vec(gen_t *g, const int *v, int n)
{
    outs(g, "[");
    for (int i = 0; i < n; i++) {
        if (i) outs(g, ",");
        out_h(g, v[i]);
    }
    outs(g, "]");
}

/* rows x cols, row-major, always as nested rows */
static void out_mat(gen_t *g, const int *v, int rows, int cols)
{
    outs(g, "[");
    for (int r = 0; r < rows; r++) {
        if (r) outs(g, ",");
        out_vec(g, v + r * cols, cols);
    }
    outs(g, "]");
}

/* ---------------------------------------------------------------- systems */

#define MAGCAP INT64_C(1000000000000000)

typedef struct {
    char src[24];     /* "Block:port" */
    int w;            /* width */
    int uses;
    int fb;           /* latest pending state block this signal depends on, -1 none */
    int64_t mag;      /* bound on the sum of |gains| from the sources, hundredths */
} sig_t;

typedef struct {
    char blk[16];     /* a state block whose input is closed at the end (feedback) */
    int w, after, id;
} pend_t;

typedef struct sys {
    gen_t *g;
    int depth, id, nblk, nin, nout;
    sig_t *sig;
    int nsig, capsig;
    pend_t *pend;
    int npend, cappend;
    sb_t lines;
    int nlines;
} sys_t;

#define RNG (&s->g->r)
#define SG(i) (s->sig[i])

static int ind(const sys_t *s) { return s->depth < 12 ? s->depth : 12; }

static void sys_init(sys_t *s, gen_t *g, int depth)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->depth = depth;
    if (depth > g->depth) g->depth = depth;
}

static void sys_free(sys_t *s)
{
    free(s->sig);
    free(s->pend);
    free(s->lines.s);
}

static void write_lines(sys_t *s)
{
    if (s->lines.n) outs(s->g, s->lines.s);
}

/* Start a block: the caller adds ",\"Param\":..." and calls blk_end. */
static void blk_begin(sys_t *s, const char *name, const char *type)
{
    out(s->g, "%s\n%*s{\"name\":\"%s\",\"type\":\"%s\"", s->nblk++ ? "," : "", ind(s) + 1, "",
        name, type);
    s->g->nblocks++;
}

static void blk_end(sys_t *s) { outs(s->g, "}"); }

static void new_name(sys_t *s, const char *prefix, char *name)
{
    snprintf(name, 16, "%s%d", prefix, ++s->id);
}

/* One line src -> "dst:port". */
static void link(sys_t *s, const char *src, const char *dst, int port)
{
    sb_printf(&s->lines, "%s\n%*s{\"src\":\"%s\",\"dst\":\"%s:%d\"}", s->nlines++ ? "," : "",
              ind(s) + 1, "", src, dst, port);
}

static void connect(sys_t *s, int sig, const char *blk, int port)
{
    link(s, SG(sig).src, blk, port);
    SG(sig).uses++;
}

static int add_sig(sys_t *s, const char *blk, int port, int w, int64_t mag, int fb)
{
    if (s->nsig == s->capsig) {
        s->capsig = s->capsig ? 2 * s->capsig : 32;
        s->sig = xrealloc(s->sig, sizeof *s->sig * (size_t)s->capsig);
    }
    sig_t *x = &s->sig[s->nsig];
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

static void root_open(gen_t *g, const char *name, const char *desc)
{
    out(g, "{\n\"name\":\"%s\",\n\"description\":\"%s\",\n\"blocks\":[", name, desc);
}

static void root_close(sys_t *s)
{
    outs(s->g, "\n],\n\"lines\":[");
    write_lines(s);
    outs(s->g, "\n]\n}\n");
}

/* Write the SubSystem block `name` into s and open it as c. */
static void sub_open(sys_t *s, sys_t *c, const char *name)
{
    blk_begin(s, name, "SubSystem");
    outs(s->g, ",\"blocks\":[");
    sys_init(c, s->g, s->depth + 1);
    s->g->nsub++;
}

static void sub_close(sys_t *c)
{
    out(c->g, "\n%*s],\"lines\":[", ind(c), "");
    write_lines(c);
    outs(c->g, "]}");
    sys_free(c);
}

/* Inport number ++nin of width w (PortDimensions when a vector). */
static int add_inport(sys_t *s, int w, int64_t mag)
{
    char n[16];
    snprintf(n, sizeof n, "I%d", ++s->nin);
    blk_begin(s, n, "Inport");
    out(s->g, ",\"Port\":%d", s->nin);
    /* at the root always: a root Inport without it is scalar only by default */
    if (w > 1 || s->depth == 0) out(s->g, ",\"PortDimensions\":%d", w);
    blk_end(s);
    if (s->depth == 0) s->g->ninputs++;
    return add_sig(s, n, 1, w, mag, -1);
}

/* Outport number ++nout driven by a source string of width w. */
static void add_outport_src(sys_t *s, const char *src, int w)
{
    char n[16];
    snprintf(n, sizeof n, "O%d", ++s->nout);
    blk_begin(s, n, "Outport");
    out(s->g, ",\"Port\":%d", s->nout);
    if (w > 1) out(s->g, ",\"PortDimensions\":%d", w);
    blk_end(s);
    link(s, src, n, 1);
    if (s->depth == 0) s->g->noutputs++;
}

static void add_outport(sys_t *s, int sig)
{
    SG(sig).uses++;
    add_outport_src(s, SG(sig).src, SG(sig).w);
}

/* ------------------------------------------------------ primitive blocks */

/* element-wise Gain, k[0..nk-1] (nk 1 or the input width, or a vector with a
 * scalar input) */
static int mk_gainv(sys_t *s, int in, const int *k, int nk)
{
    char n[16];
    new_name(s, "G", n);
    blk_begin(s, n, "Gain");
    outs(s->g, ",\"Gain\":");
    if (nk == 1) out_h(s->g, k[0]);
    else out_vec(s->g, k, nk);
    blk_end(s);
    connect(s, in, n, 1);
    int km = 0;
    for (int i = 0; i < nk; i++) km = abs(k[i]) > km ? abs(k[i]) : km;
    int w = SG(in).w > nk ? SG(in).w : nk;
    return add_sig(s, n, 1, w, mag_scale(SG(in).mag, km), SG(in).fb);
}

static int mk_gain(sys_t *s, int in, int k) { return mk_gainv(s, in, &k, 1); }

/* Matrix(K*u) Gain, K rows x (input width): fixes both widths. */
static int mk_gainm_named(sys_t *s, int in, const int *k, int rows, const char *prefix)
{
    char n[16];
    int cols = SG(in).w, rmax = 0;
    new_name(s, prefix, n);
    blk_begin(s, n, "Gain");
    outs(s->g, ",\"Gain\":");
    out_mat(s->g, k, rows, cols);
    outs(s->g, ",\"Multiplication\":\"Matrix(K*u)\"");
    blk_end(s);
    connect(s, in, n, 1);
    for (int r = 0; r < rows; r++) {
        int t = 0;
        for (int c = 0; c < cols; c++) t += abs(k[r * cols + c]);
        rmax = t > rmax ? t : rmax;
    }
    return add_sig(s, n, 1, rows, mag_scale(SG(in).mag, rmax), SG(in).fb);
}

static int mk_gainm(sys_t *s, int in, const int *k, int rows)
{
    return mk_gainm_named(s, in, k, rows, "G");
}

/* Sum of in[0..n-1] with signs sg[] (+1/-1); widths equal or 1. */
static int mk_sum(sys_t *s, const int *in, const int *sg, int n)
{
    char nm[16], str[40];
    int w = 1, fb = -1;
    int64_t mag = 0;
    for (int i = 0; i < n; i++) {
        str[i] = sg[i] > 0 ? '+' : '-';
        w = SG(in[i]).w > w ? SG(in[i]).w : w;
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
        mag += SG(in[i]).mag;
    }
    str[n] = '\0';
    new_name(s, "S", nm);
    blk_begin(s, nm, "Sum");
    out(s->g, ",\"Inputs\":\"%s\"", str);
    blk_end(s);
    for (int i = 0; i < n; i++) connect(s, in[i], nm, i + 1);
    return add_sig(s, nm, 1, w, mag, fb);
}

static int mk_mux(sys_t *s, const int *in, int n)
{
    char nm[16];
    int w = 0, fb = -1;
    int64_t mag = 0;
    for (int i = 0; i < n; i++) {
        w += SG(in[i]).w;
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
        mag = SG(in[i]).mag > mag ? SG(in[i]).mag : mag;
    }
    new_name(s, "X", nm);
    blk_begin(s, nm, "Mux");
    out(s->g, ",\"Inputs\":%d", n);
    blk_end(s);
    for (int i = 0; i < n; i++) connect(s, in[i], nm, i + 1);
    return add_sig(s, nm, 1, w, mag, fb);
}

/* Demux into parts[0..np-1]; the output signals go to o[]. */
static void mk_demux(sys_t *s, int in, const int *parts, int np, int *o)
{
    char nm[16];
    int equal = 1;
    for (int i = 1; i < np; i++) equal &= parts[i] == parts[0];
    new_name(s, "D", nm);
    blk_begin(s, nm, "Demux");
    if (equal) {
        out(s->g, ",\"Outputs\":%d", np);
    } else {
        outs(s->g, ",\"Outputs\":[");
        for (int i = 0; i < np; i++) out(s->g, "%s%d", i ? "," : "", parts[i]);
        outs(s->g, "]");
    }
    blk_end(s);
    connect(s, in, nm, 1);
    int64_t mag = SG(in).mag;
    int fb = SG(in).fb;
    for (int i = 0; i < np; i++) o[i] = add_sig(s, nm, i + 1, parts[i], mag, fb);
}

/* Selector of idx[0..n-1] (1-based) from a signal of width w. */
static int mk_sel(sys_t *s, int in, const int *idx, int n)
{
    char nm[16];
    new_name(s, "P", nm);
    blk_begin(s, nm, "Selector");
    outs(s->g, ",\"Indices\":[");
    for (int i = 0; i < n; i++) out(s->g, "%s%d", i ? "," : "", idx[i]);
    out(s->g, "],\"InputPortWidth\":%d", SG(in).w);
    blk_end(s);
    connect(s, in, nm, 1);
    return add_sig(s, nm, 1, n, SG(in).mag, SG(in).fb);
}

/* A Gain bringing a large magnitude bound back to about 1.5. */
static int tame(sys_t *s, int i)
{
    if (SG(i).mag <= 300) return i;
    int64_t k = 15000 / SG(i).mag;
    if (k < 1) k = 1;
    return mk_gain(s, i, rpct(RNG, 70) ? (int)k : -(int)k);
}

/* A signal to read: preferably one nothing reads yet, recent ones more often. */
static int pick_raw(sys_t *s)
{
    int n = s->nsig;
    if (s->nin && rpct(RNG, 30)) {   /* an Inport nothing reads yet */
        int i = rin(RNG, 0, s->nin - 1);
        if (!SG(i).uses) return i;
    }
    if (rpct(RNG, 60))
        for (int i = n - 1; i >= 0 && i >= n - 8; i--)
            if (!SG(i).uses) return i;
    if (rpct(RNG, 50))
        for (int t = 0; t < 4; t++) {
            int i = rin(RNG, 0, n - 1);
            if (!SG(i).uses) return i;
        }
    if (rpct(RNG, 60)) return n - 1 - rin(RNG, 0, (n < 5 ? n : 5) - 1);
    return rin(RNG, 0, n - 1);
}

static int pick(sys_t *s)
{
    if (!s->nsig) {   /* a system without inputs: start from a Constant */
        char nm[16];
        new_name(s, "C", nm);
        blk_begin(s, nm, "Constant");
        outs(s->g, ",\"Value\":1");
        blk_end(s);
        add_sig(s, nm, 1, 1, 100, -1);
    }
    return tame(s, pick_raw(s));
}

static void rand_matrix(sys_t *s, int *k, int rows, int cols, int mag)
{
    for (int r = 0; r < rows; r++) {
        int nz = 0;
        for (int c = 0; c < cols; c++) {
            k[r * cols + c] = rpct(RNG, 35) ? 0 : rsgn(RNG, 10, mag);
            nz += k[r * cols + c] != 0;
        }
        if (!nz) k[r * cols + rin(RNG, 0, cols - 1)] = rsgn(RNG, 10, mag);
    }
}

/* Make signal `in` width w with routing or a Gain. */
static int adapt(sys_t *s, int in, int w)
{
    int ws = SG(in).w, idx[8], k[64];
    if (ws == w) return in;
    if (ws == 1) {
        if (rpct(RNG, 50)) {
            for (int i = 0; i < w; i++) idx[i] = 1;
            return mk_sel(s, in, idx, w);
        }
        for (int i = 0; i < w; i++) k[i] = rsgn(RNG, 20, 120);
        return mk_gainv(s, in, k, w);
    }
    int c = rin(RNG, 0, 9);
    if (w == 1 && c < 8) {
        idx[0] = rin(RNG, 1, ws);
        return mk_sel(s, in, idx, 1);
    }
    if (c < 6) {
        for (int i = 0; i < w; i++) idx[i] = rin(RNG, 1, ws);
        return mk_sel(s, in, idx, w);
    }
    rand_matrix(s, k, w, ws, 100);
    return mk_gainm(s, in, k, w);
}

/* A signal of width w: from the pool if one turns up, else adapted. */
static int get_w(sys_t *s, int w)
{
    for (int t = 0; t < 5; t++) {
        int i = pick(s);
        if (SG(i).w == w) return i;
    }
    return adapt(s, pick(s), w);
}

/* ----------------------------------------------------------- state blocks */

static void pending(sys_t *s, const char *blk, int w)
{
    if (s->npend == s->cappend) {
        s->cappend = s->cappend ? 2 * s->cappend : 8;
        s->pend = xrealloc(s->pend, sizeof *s->pend * (size_t)s->cappend);
    }
    pend_t *p = &s->pend[s->npend];
    snprintf(p->blk, sizeof p->blk, "%s", blk);
    p->w = w;
    p->after = s->nsig;
    p->id = s->npend++;
}

/* Integrator of width w; in < 0: input closed later (feedback). */
static int mk_integrator(sys_t *s, int in, int w)
{
    char n[16];
    int ic[8];
    new_name(s, "N", n);
    blk_begin(s, n, "Integrator");
    for (int i = 0; i < w; i++) ic[i] = rin(RNG, -100, 100);
    outs(s->g, ",\"InitialCondition\":");
    if (w == 1) out_h(s->g, ic[0]);
    else out_vec(s->g, ic, w);   /* a vector IC fixes the width */
    blk_end(s);
    s->g->nstates += w;
    if (in < 0) {
        pending(s, n, w);
        return add_sig(s, n, 1, w, 100, s->npend - 1);
    }
    connect(s, in, n, 1);
    return add_sig(s, n, 1, w, 100, SG(in).fb);
}

/* Hurwitz denominator of degree n (1 or 2), highest power first. */
static void rand_den(sys_t *s, int *d, int n)
{
    d[0] = rpct(RNG, 60) ? 100 : rin(RNG, 20, 200);
    for (int i = 1; i <= n; i++) d[i] = rin(RNG, 20, 400);
}

/* SISO TransferFcn; in < 0: pending and strictly proper. */
static int mk_tf(sys_t *s, int in, int feedthrough)
{
    char n[16];
    int nd = rin(RNG, 1, 2), den[3], num[3], nn = 0;
    rand_den(s, den, nd);
    if (in < 0) feedthrough = 0;
    int deg = feedthrough ? nd : rin(RNG, 0, nd - 1);
    for (int i = 0; i <= deg; i++) num[nn++] = rsgn(RNG, 20, 150);
    new_name(s, "T", n);
    blk_begin(s, n, "TransferFcn");
    outs(s->g, ",\"Numerator\":");
    out_vec(s->g, num, nn);
    outs(s->g, ",\"Denominator\":");
    out_vec(s->g, den, nd + 1);
    blk_end(s);
    s->g->nstates += nd;
    if (in < 0) {
        pending(s, n, 1);
        return add_sig(s, n, 1, 1, 100, s->npend - 1);
    }
    connect(s, in, n, 1);
    int64_t mag = 100 + (feedthrough ? mag_scale(SG(in).mag, 100 * abs(num[0]) / den[0] + 1) : 0);
    return add_sig(s, n, 1, 1, mag, SG(in).fb);
}

/* StateSpace with m inputs, p outputs, 1-2 states; in < 0: pending, D = 0. */
static int mk_ss(sys_t *s, int in, int m, int p, int hasD)
{
    char nm[16];
    int n = rin(RNG, 1, 2), a[4], b[8], c[8], d[16] = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = i == j ? -rin(RNG, 50, 300) : rpct(RNG, 50) ? rsgn(RNG, 10, 80) : 0;
    rand_matrix(s, b, n, m, 100);
    rand_matrix(s, c, p, n, 100);
    if (in < 0) hasD = 0;
    if (hasD) rand_matrix(s, d, p, m, 60);
    new_name(s, "Q", nm);
    blk_begin(s, nm, "StateSpace");
    outs(s->g, ",\"A\":");
    out_mat(s->g, a, n, n);
    outs(s->g, ",\"B\":");
    out_mat(s->g, b, n, m);
    outs(s->g, ",\"C\":");
    out_mat(s->g, c, p, n);
    outs(s->g, ",\"D\":");
    out_mat(s->g, d, p, m);   /* all zeros when !hasD: an absent D would mean 1 */
    blk_end(s);
    s->g->nstates += n;
    if (in < 0) {
        pending(s, nm, m);
        return add_sig(s, nm, 1, p, 100, s->npend - 1);
    }
    connect(s, in, nm, 1);
    int64_t mag = 100 + (hasD ? mag_scale(SG(in).mag, 60 * m) : 0);
    return add_sig(s, nm, 1, p, mag, SG(in).fb);
}

/* Close every pending state input with a Matrix(K*u) Gain "F" reading a later
 * signal, preferably one that depends on the state (a feedback loop). */
static void close_pending(sys_t *s)
{
    for (int q = 0; q < s->npend; q++) {
        pend_t p = s->pend[q];
        int src = -1, nmatch = 0;
        for (int i = s->nsig - 1; i > p.after; i--)
            if (SG(i).fb == p.id && rin(RNG, 0, nmatch++) == 0) src = i;
        if (src < 0 && p.after + 1 < s->nsig) src = rin(RNG, p.after + 1, s->nsig - 1);
        if (src < 0) src = rin(RNG, 0, s->nsig - 1);
        int ws = SG(src).w, k[64];
        /* row abs sums about 1 / mag: the loop gain stays moderate */
        int64_t lim = 12000 / SG(src).mag;
        if (lim < 10) lim = 10;
        if (lim > 150) lim = 150;
        for (int r = 0; r < p.w; r++) {
            int nz = 0;
            for (int c = 0; c < ws; c++) {
                k[r * ws + c] = rpct(RNG, 40) ? 0 : -rin(RNG, 1, (int)lim / ws + 1);
                nz += k[r * ws + c] != 0;
            }
            if (!nz) k[r * ws + rin(RNG, 0, ws - 1)] = -rin(RNG, 1, (int)lim / ws + 1);
        }
        int f = mk_gainm_named(s, src, k, p.w, "F");
        connect(s, f, p.blk, 1);
    }
    s->npend = 0;
}

/* ------------------------------------------------------ generic actions */

static const int vwidth[] = {2, 3, 3, 3, 4, 6};

static void act_gain(sys_t *s)
{
    int in = pick(s), w = SG(in).w, k[8];
    if (w > 1 && rpct(RNG, 35)) {
        for (int i = 0; i < w; i++) k[i] = rsgn(RNG, 10, 150);
        mk_gainv(s, in, k, w);
    } else {
        mk_gain(s, in, rsgn(RNG, 10, 150));
    }
}

static void act_sum(sys_t *s)
{
    int n = rpct(RNG, 70) ? 2 : 3, in[3], sg[3];
    in[0] = pick(s);
    int w = SG(in[0]).w;
    for (int i = 1; i < n; i++) in[i] = w > 1 && rpct(RNG, 20) ? get_w(s, 1) : get_w(s, w);
    for (int i = 0; i < n; i++) sg[i] = rpct(RNG, 65) ? 1 : -1;
    mk_sum(s, in, sg, n);
}

static void act_mux(sys_t *s)
{
    int n = rin(RNG, 2, 3), in[3], tot = 0, k = 0;
    for (int i = 0; i < n; i++) {
        int room = 6 - tot - (n - 1 - i);
        if (room < 1) break;
        int x = pick(s);
        if (SG(x).w > room) x = adapt(s, x, rin(RNG, 1, room));
        in[k++] = x;
        tot += SG(x).w;
    }
    if (k >= 2) mk_mux(s, in, k);
}

static void act_demux(sys_t *s)
{
    int in = -1;
    for (int t = 0; t < 6 && in < 0; t++) {
        int x = pick(s);
        if (SG(x).w >= 2) in = x;
    }
    if (in < 0) in = adapt(s, pick(s), vwidth[rin(RNG, 0, 5)]);
    int w = SG(in).w, parts[8], o[8], np;
    if (rpct(RNG, 50)) {
        np = w;   /* into scalars */
        for (int i = 0; i < np; i++) parts[i] = 1;
    } else {
        np = rin(RNG, 2, w < 3 ? w : 3);
        int left = w;
        for (int i = 0; i < np - 1; i++) {
            parts[i] = rin(RNG, 1, left - (np - 1 - i));
            left -= parts[i];
        }
        parts[np - 1] = left;
    }
    mk_demux(s, in, parts, np, o);
}

static void act_sel(sys_t *s)
{
    int in = -1, idx[8];
    for (int t = 0; t < 6 && in < 0; t++) {
        int x = pick(s);
        if (SG(x).w >= 2) in = x;
    }
    if (in < 0) {
        act_mux(s);
        return;
    }
    int w = SG(in).w, n = rpct(RNG, 50) ? 1 : rin(RNG, 2, w < 6 ? w : 6);
    for (int i = 0; i < n; i++) idx[i] = rin(RNG, 1, w);
    mk_sel(s, in, idx, n);
}

static void act_matrix(sys_t *s)
{
    int in = pick(s), k[64];
    int rows = SG(in).w == 3 && rpct(RNG, 60) ? 3 : rin(RNG, 1, 3);
    rand_matrix(s, k, rows, SG(in).w, 100);
    mk_gainm(s, in, k, rows);
}

/* a state block: mostly with its input closed later through feedback */
static void act_state(sys_t *s)
{
    int r = rin(RNG, 0, 99), fbk = rpct(RNG, 75);
    if (r < 45) {
        int w = rpct(RNG, 50) ? 1 : rin(RNG, 2, 3);
        mk_integrator(s, fbk ? -1 : get_w(s, w), w);
    } else if (r < 75) {
        mk_tf(s, fbk ? -1 : get_w(s, 1), rpct(RNG, 50));
    } else {
        int m = rin(RNG, 1, 3), p = rin(RNG, 1, 3);
        mk_ss(s, fbk ? -1 : get_w(s, m), m, p, rpct(RNG, 40));
    }
}

static int need_state(const sys_t *s)
{
    return s->g->nstates * s->g->state_rate < s->g->nblocks;
}

/* The Outports of a system: nout signals of widths ow[], magnitudes to om[]. */
/* x plus up to `max` signals nothing reads yet (of x's width, or scalars),
 * so that few outputs are left dangling; tamed. */
static int absorb(sys_t *s, int x, int max)
{
    int in[8] = {x}, sg[8] = {1}, n = 1, w = SG(x).w;
    if (max > 7) max = 7;
    for (int i = s->nsig - 1; i >= 0 && n <= max; i--)
        if (!SG(i).uses && i != x && (SG(i).w == w || SG(i).w == 1)) {
            in[n] = tame(s, i);
            sg[n++] = rpct(RNG, 70) ? 1 : -1;
        }
    if (n > 1) x = mk_sum(s, in, sg, n);
    return tame(s, x);
}

static void finish_outports(sys_t *s, int nout, const int *ow, int64_t *om)
{
    for (int k = 0; k < nout; k++) {
        int x = absorb(s, get_w(s, ow[k]), 6);
        if (om) om[k] = SG(x).mag;
        add_outport(s, x);
    }
}

/* smallest c >= 1 with c^L >= x */
static int iroot_ceil(int64_t x, int L)
{
    int c = 1;
    for (;; c++) {
        int64_t p = 1;
        for (int i = 0; i < L && p < x; i++) p *= c;
        if (p >= x || c > 1000) return c;
    }
}

/* --------------------------------------------------------------- aerospace */

#define AERO_LEAF 12   /* blocks of a typical innermost SubSystem */

static void aero_action(sys_t *s)
{
    if (need_state(s)) {
        act_state(s);
        return;
    }
    int r = rin(RNG, 0, 99);
    if (r < 28) act_gain(s);
    else if (r < 50) act_sum(s);
    else if (r < 62) act_mux(s);
    else if (r < 72) act_demux(s);
    else if (r < 90) act_sel(s);
    else act_matrix(s);
}

static void aero_content(sys_t *s, int64_t B, int L, int nout, const int *ow, int64_t *om);

/* A child SubSystem with about b blocks (itself included), reading 1-3
 * signals of s and adding 1-3 outputs to it. */
static int64_t aero_child(sys_t *s, int64_t b, int L)
{
    gen_t *g = s->g;
    int64_t before = g->nblocks;
    int nin = rin(RNG, 1, 3), nout = rin(RNG, 1, 3), in[3], ow[3], fb = -1;
    int64_t om[3];
    if (b < 10) nin = nout = 1;
    for (int i = 0; i < nin; i++) {
        in[i] = pick(s);
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
    }
    for (int k = 0; k < nout; k++) ow[k] = rpct(RNG, 40) ? 1 : vwidth[rin(RNG, 0, 5)];
    char name[16];
    new_name(s, "M", name);
    sys_t c;
    sub_open(s, &c, name);
    for (int i = 0; i < nin; i++) add_inport(&c, SG(in[i]).w, SG(in[i]).mag);
    aero_content(&c, b - (g->nblocks - before), L, nout, ow, om);
    sub_close(&c);
    for (int i = 0; i < nin; i++) connect(s, in[i], name, i + 1);
    for (int k = 0; k < nout; k++) add_sig(s, name, k + 1, ow[k], om[k], fb);
    return g->nblocks - before;
}

/* Content of s (Inports already made) with about B more blocks: children if
 * L > 0 and there is room, glue, feedback closure, then the Outports. */
static void aero_content(sys_t *s, int64_t B, int L, int nout, const int *ow, int64_t *om)
{
    gen_t *g = s->g;
    int64_t end = g->nblocks + B, avail = B - 2 * nout;
    int c = 0;
    if (L > 0 && avail > 20) {
        c = iroot_ceil(avail / AERO_LEAF, L);
        if (c < 2) c = 2;
        if (c > 40) c = 40;
    }
    if (c) {
        int64_t kids = avail - 3 * c - 2, used = 0;
        for (int k = 0; k < c; k++) {
            for (int n = rin(RNG, 0, 2); n > 0; n--) aero_action(s);
            int64_t left = kids - used, b = left;
            if (k < c - 1) b = left / (c - k) * rin(RNG, 60, 140) / 100;
            if (b < 5) break;
            int Lc = L - 1;
            if (Lc > 0 && b <= 40 && rpct(RNG, 30)) Lc = 0;   /* some branches end early */
            used += aero_child(s, b, Lc);
        }
    }
    while (end - g->nblocks - s->npend - 2 * nout > 0) aero_action(s);
    close_pending(s);
    finish_outports(s, nout, ow, om);
}

static void gen_aerospace(gen_t *g, int64_t N, const char *name)
{
    root_open(g, name, "jacgraph generate aerospace: flight-control-like hierarchy");
    sys_t s;
    sys_init(&s, g, 0);
    g->state_rate = 35;
    int nin = N < 30 ? 1 : N < 300 ? 2 : N < 100000 ? 3 : 4;
    int nout = N < 30 ? 1 : N < 300 ? 2 : 3;
    static const int iw[] = {3, 1, 4, 2}, ow[] = {3, 1, 6};
    for (int i = 0; i < nin; i++) add_inport(&s, iw[i], 100);
    int L = N < 40 ? 0 : 4;
    aero_content(&s, N - nin, L, nout, ow, NULL);
    root_close(&s);
    sys_free(&s);
}

/* ------------------------------------------------------------------ power */

#define PW_MAXDEG 16

/* A generator (machine) SubSystem: inputs bus voltage v (and a reference),
 * output the injection.  Speed W and angle A Integrators, governor TF:
 * no direct feedthrough from v to the injection. */
static void power_gen(sys_t *s, const char *name, int ref, int angle)
{
    gen_t *g = s->g;
    rng_t *r = &g->r;
    sys_t c;
    char b[24];
    sub_open(s, &c, name);
    add_inport(&c, 1, 100);
    if (ref) add_inport(&c, 1, 100);
    int tf2 = rpct(r, 30);
    blk_begin(&c, "Pe", "Gain");
    out(g, ",\"Gain\":%s", fh(b, rin(r, 20, 150)));
    blk_end(&c);
    blk_begin(&c, "Ac", "Sum");
    outs(g, ",\"Inputs\":\"+--\"");
    blk_end(&c);
    blk_begin(&c, "W", "Integrator");
    out(g, ",\"InitialCondition\":%s", fh(b, rin(r, -50, 50)));
    blk_end(&c);
    blk_begin(&c, "Dw", "Gain");   /* Matrix(K*u): fixes the width in the W loop */
    out(g, ",\"Gain\":[[%s]],\"Multiplication\":\"Matrix(K*u)\"", fh(b, rin(r, 20, 200)));
    blk_end(&c);
    blk_begin(&c, "Rw", "Gain");
    out(g, ",\"Gain\":%s", fh(b, rin(r, 50, 300)));
    blk_end(&c);
    if (ref) {
        blk_begin(&c, "Gv", "Sum");
        outs(g, ",\"Inputs\":\"+-\"");
        blk_end(&c);
    }
    blk_begin(&c, "Tg", "TransferFcn");
    int num = rin(r, 50, 150) * (ref ? 1 : -1), den[3];
    if (tf2) {
        den[0] = 100;
        den[1] = rin(r, 50, 400);
        den[2] = rin(r, 50, 400);
        out(g, ",\"Numerator\":[%s]", fh(b, num));
        outs(g, ",\"Denominator\":");
        out_vec(g, den, 3);
    } else {
        out(g, ",\"Numerator\":[%s]", fh(b, num));
        den[0] = rin(r, 20, 300);
        den[1] = 100;
        outs(g, ",\"Denominator\":");
        out_vec(g, den, 2);
    }
    blk_end(&c);
    if (angle) {
        blk_begin(&c, "A", "Integrator");
        out(g, ",\"InitialCondition\":%s", fh(b, rin(r, -30, 30)));
        blk_end(&c);
    }
    blk_begin(&c, "Go", "Gain");
    out(g, ",\"Gain\":%s", fh(b, rin(r, 20, 150)));
    blk_end(&c);
    add_outport_src(&c, "Go:1", 1);
    g->nstates += 1 + (tf2 ? 2 : 1) + angle;
    link(&c, "I1:1", "Pe", 1);
    link(&c, "Tg:1", "Ac", 1);
    link(&c, "Pe:1", "Ac", 2);
    link(&c, "Dw:1", "Ac", 3);
    link(&c, "Ac:1", "W", 1);
    link(&c, "W:1", "Dw", 1);
    link(&c, "W:1", "Rw", 1);
    if (ref) {
        link(&c, "I2:1", "Gv", 1);
        link(&c, "Rw:1", "Gv", 2);
        link(&c, "Gv:1", "Tg", 1);
    } else {
        link(&c, "Rw:1", "Tg", 1);
    }
    if (angle) {
        link(&c, "W:1", "A", 1);
        link(&c, "A:1", "Go", 1);
    } else {
        link(&c, "W:1", "Go", 1);
    }
    sub_close(&c);
}

/* An area: nb buses, v_i = k_i (injections + sum_j g_ij v_j - y_i v_i), with
 * k_i (y_i + sum_j |g_ij|) <= 0.8: one diagonally dominant linear algebraic
 * loop.  Ports: I1 tie injection into bus 1 (scalar), I2 generator references
 * (width 3); O1 voltage of bus 1, O2 three bus voltages (width 3). */
static void power_area(sys_t *s, int64_t B)
{
    gen_t *g = s->g;
    rng_t *r = &g->r;
    int full = g->pw_full;
    char b[24], nm[32], src[32];
    add_inport(s, 1, 100);
    if (full) add_inport(s, 3, 100);
    /* blocks: ports (+ measurement Mux), 3 per bus (Sum, k Gain, load Gain),
     * 2 per line, a generator: SubSystem of 12 (+1 with the angle state) and
     * its reference Selector, or one TransferFcn in small models */
    int fixed = full ? 5 : 2, genpct = full ? 65 : 70, gensz = full ? 13 : 1;
    int64_t avail = B - fixed;
    int nb = 1;
    while (nb < 200) {   /* largest ring that leaves room for the expected generators */
        int64_t n1 = nb + 1, ring = n1 == 2 ? 1 : n1;
        if (3 * n1 + 2 * ring + n1 * genpct * gensz / 100 > avail) break;
        nb++;
    }
    if (nb == 1 && avail >= 3 * 2 + 2) nb = 2;
    int(*adj)[PW_MAXDEG] = xrealloc(NULL, sizeof *adj * (size_t)nb);
    int(*adm)[PW_MAXDEG] = xrealloc(NULL, sizeof *adm * (size_t)nb);
    int *deg = calloc((size_t)nb, sizeof *deg), *gen = calloc((size_t)nb, sizeof *gen);
    if (!deg || !gen) {
        fprintf(stderr, "jacgraph generate: out of memory\n");
        exit(70);
    }
#define PW_EDGE(a_, b_)                                  \
    do {                                                 \
        int v_ = rin(r, 20, 150);                        \
        adj[a_][deg[a_]] = b_, adm[a_][deg[a_]++] = v_;  \
        adj[b_][deg[b_]] = a_, adm[b_][deg[b_]++] = v_;  \
    } while (0)
    if (nb == 2) PW_EDGE(0, 1);
    if (nb >= 3)
        for (int i = 0; i < nb; i++) PW_EDGE(i, (i + 1) % nb);
    int64_t cnt = 3 * nb + 2 * (nb == 1 ? 0 : nb == 2 ? 1 : nb);
    /* gen[i]: 0 none, 1 generator, 2 generator with an angle state (full) */
    for (int i = 0; i < nb; i++) {
        if (!rpct(r, genpct)) continue;
        gen[i] = full && rpct(r, 50) ? 2 : 1;
        cnt += full ? gensz + gen[i] - 1 : 1;
    }
    for (int i = nb - 1; i >= 0 && cnt > avail; i--)   /* over budget: fewer machines */
        if (gen[i]) {
            cnt -= full ? gensz + gen[i] - 1 : 1;
            gen[i] = 0;
        }
    /* under budget: chords (2 blocks each), then machines on more buses */
    for (int t = 0; nb >= 4 && cnt + 2 <= avail && t < 8 * nb; t++) {
        int x = rin(r, 0, nb - 1), y = rin(r, 0, nb - 1), dup = x == y;
        for (int d = 0; d < deg[x] && !dup; d++) dup = adj[x][d] == y;
        if (!dup && deg[x] < PW_MAXDEG && deg[y] < PW_MAXDEG) {
            PW_EDGE(x, y);
            cnt += 2;
        }
    }
#undef PW_EDGE
    for (int i = 0; i < nb && cnt + (full ? gensz : 1) <= avail; i++)
        if (!gen[i]) {
            gen[i] = 1;
            cnt += full ? gensz : 1;
        }
    int anygen = 0;
    for (int i = 0; i < nb; i++) anygen |= gen[i];
    if (!anygen) gen[nb - 1] = 1;   /* at least one machine (state), even if over budget */
    for (int i = 0; i < nb; i++) {
        int y = rin(r, 10, 100), tot = y;
        for (int d = 0; d < deg[i]; d++) tot += adm[i][d];
        int k = 8000 / tot;   /* k (y + sum g) <= 0.8 exactly, in hundredths */
        if (k > 200) k = 200;
        /* bus: [generator] [tie] -load +lines */
        char str[PW_MAXDEG + 4];
        int n = 0;
        if (gen[i]) str[n++] = '+';
        if (i == 0) str[n++] = '+';
        str[n++] = '-';
        for (int d = 0; d < deg[i]; d++) str[n++] = '+';
        str[n] = '\0';
        snprintf(nm, sizeof nm, "B%d", i + 1);
        blk_begin(s, nm, "Sum");
        out(g, ",\"Inputs\":\"%s\"", str);
        blk_end(s);
        int port = 1;
        if (gen[i]) {
            snprintf(src, sizeof src, "%s%d:1", full ? "M" : "T", i + 1);
            link(s, src, nm, port++);
        }
        if (i == 0) link(s, "I1:1", nm, port++);
        snprintf(src, sizeof src, "L%d:1", i + 1);
        link(s, src, nm, port++);
        for (int d = 0; d < deg[i]; d++) {
            snprintf(src, sizeof src, "Y%d_%d:1", i + 1, adj[i][d] + 1);
            link(s, src, nm, port++);
        }
        snprintf(nm, sizeof nm, "K%d", i + 1);   /* Matrix(K*u): fixes the loop widths */
        blk_begin(s, nm, "Gain");
        out(g, ",\"Gain\":[[%s]],\"Multiplication\":\"Matrix(K*u)\"", fh(b, k));
        blk_end(s);
        snprintf(src, sizeof src, "B%d:1", i + 1);
        link(s, src, nm, 1);
        snprintf(src, sizeof src, "K%d:1", i + 1);
        snprintf(nm, sizeof nm, "L%d", i + 1);
        blk_begin(s, nm, "Gain");
        out(g, ",\"Gain\":%s", fh(b, y));
        blk_end(s);
        link(s, src, nm, 1);
        for (int d = 0; d < deg[i]; d++) {   /* line j -> i reads v_j */
            snprintf(nm, sizeof nm, "Y%d_%d", i + 1, adj[i][d] + 1);
            blk_begin(s, nm, "Gain");
            out(g, ",\"Gain\":%s", fh(b, adm[i][d]));
            blk_end(s);
            snprintf(src, sizeof src, "K%d:1", adj[i][d] + 1);
            link(s, src, nm, 1);
        }
        if (gen[i] && full) {
            snprintf(nm, sizeof nm, "R%d", i + 1);
            blk_begin(s, nm, "Selector");
            out(g, ",\"Indices\":[%d],\"InputPortWidth\":3", rin(r, 1, 3));
            blk_end(s);
            link(s, "I2:1", nm, 1);
            snprintf(nm, sizeof nm, "M%d", i + 1);
            power_gen(s, nm, 1, gen[i] == 2);
            snprintf(src, sizeof src, "K%d:1", i + 1);
            link(s, src, nm, 1);
            snprintf(src, sizeof src, "R%d:1", i + 1);
            link(s, src, nm, 2);
        } else if (gen[i]) {   /* small models: the machine as a lag */
            snprintf(nm, sizeof nm, "T%d", i + 1);
            blk_begin(s, nm, "TransferFcn");
            out(g, ",\"Numerator\":[%s]", fh(b, rin(r, 20, 150)));
            out(g, ",\"Denominator\":[%s,1]", fh(b, rin(r, 20, 300)));
            blk_end(s);
            g->nstates++;
            snprintf(src, sizeof src, "K%d:1", i + 1);
            link(s, src, nm, 1);
        }
    }
    g->nloops++;
    if (full) {
        blk_begin(s, "X", "Mux");
        outs(g, ",\"Inputs\":3");
        blk_end(s);
        for (int q = 0; q < 3; q++) {
            snprintf(src, sizeof src, "K%d:1", q * nb / 3 + 1);
            link(s, src, "X", q + 1);
        }
    }
    add_outport_src(s, "K1:1", 1);
    if (full) add_outport_src(s, "X:1", 3);
    free(adj);
    free(adm);
    free(deg);
    free(gen);
}

/* A grid system with the area's ports: an area, or a cell of 2-8 grid
 * systems joined in a ring by tie lines (difference of boundary voltages
 * through a lag TransferFcn: no feedthrough, so every area stays its own
 * algebraic loop). */
static void power_grid(sys_t *s, int64_t B)
{
    gen_t *g = s->g;
    rng_t *r = &g->r;
    int64_t area_max = rin(r, 250, 800);
    if (B <= area_max || !g->pw_full) {
        power_area(s, B);
        return;
    }
    char nm[32], src[32], b[24];
    int64_t c64 = B / 500;
    int cmax = rin(r, 4, 8);
    int c = c64 < 2 ? 2 : c64 > cmax ? cmax : (int)c64;
    int nt = c == 2 ? 1 : c;
    add_inport(s, 1, 100);
    add_inport(s, 3, 100);
    int64_t glue = 2 + c + 2 * nt + 2 + 2, kids = B - glue, used = 0;
    for (int k = 0; k < c; k++) {
        int64_t left = kids - used, bk = left;
        if (k < c - 1) bk = left / (c - k) * rin(r, 70, 130) / 100;
        sys_t ch;
        int64_t before = g->nblocks;
        snprintf(nm, sizeof nm, "C%d", k + 1);
        sub_open(s, &ch, nm);
        power_grid(&ch, bk - 1);
        sub_close(&ch);
        used += g->nblocks - before;
        snprintf(src, sizeof src, "U%d:1", k + 1);
        link(s, src, nm, 1);
        link(s, "I2:1", nm, 2);
    }
    for (int t = 0; t < nt; t++) {
        int a = t, bb = (t + 1) % c;
        snprintf(nm, sizeof nm, "E%d", t + 1);
        blk_begin(s, nm, "Sum");
        outs(g, ",\"Inputs\":\"+-\"");
        blk_end(s);
        snprintf(src, sizeof src, "C%d:1", a + 1);
        link(s, src, nm, 1);
        snprintf(src, sizeof src, "C%d:1", bb + 1);
        link(s, src, nm, 2);
        snprintf(nm, sizeof nm, "T%d", t + 1);
        blk_begin(s, nm, "TransferFcn");
        out(g, ",\"Numerator\":[%s]", fh(b, rin(r, 20, 100)));
        out(g, ",\"Denominator\":[%s,1]", fh(b, rin(r, 10, 200)));
        blk_end(s);
        g->nstates++;
        snprintf(src, sizeof src, "E%d:1", t + 1);
        link(s, src, nm, 1);
    }
    for (int k = 0; k < c; k++) {   /* tie injections into child k */
        char str[8];
        int n = 0;
        snprintf(nm, sizeof nm, "U%d", k + 1);
        if (k == 0) {
            str[n++] = '+';
            link(s, "I1:1", nm, n);
        }
        for (int t = 0; t < nt; t++) {
            int a = t, bb = (t + 1) % c;
            if (a != k && bb != k) continue;
            str[n++] = a == k ? '-' : '+';
            snprintf(src, sizeof src, "T%d:1", t + 1);
            link(s, src, nm, n);
        }
        str[n] = '\0';
        blk_begin(s, nm, "Sum");
        out(g, ",\"Inputs\":\"%s\"", str);
        blk_end(s);
    }
    blk_begin(s, "Z", "Sum");   /* measurements: the children's, averaged */
    out(g, ",\"Inputs\":%d", c);
    blk_end(s);
    for (int k = 0; k < c; k++) {
        snprintf(src, sizeof src, "C%d:2", k + 1);
        link(s, src, "Z", k + 1);
    }
    blk_begin(s, "ZG", "Gain");
    out(g, ",\"Gain\":%s", fh(b, 100 / c));
    blk_end(s);
    link(s, "Z:1", "ZG", 1);
    add_outport_src(s, "C1:1", 1);
    add_outport_src(s, "ZG:1", 3);
}

static void gen_power(gen_t *g, int64_t N, const char *name)
{
    root_open(g, name, "jacgraph generate power: bus networks with algebraic loops");
    sys_t s;
    sys_init(&s, g, 0);
    g->pw_full = N >= 150;
    power_grid(&s, N);
    root_close(&s);
    sys_free(&s);
}

/* ------------------------------------------------------------------- deep */

#define DEEP_LVL 10   /* blocks a level needs at least (with its ports) */

static void deep_action(sys_t *s)
{
    if (need_state(s)) {
        int w = rin(RNG, 1, 2);
        mk_integrator(s, rpct(RNG, 70) ? -1 : get_w(s, w), w);
        return;
    }
    int r = rin(RNG, 0, 99);
    if (r < 40) act_gain(s);
    else if (r < 70) act_sum(s);
    else if (r < 80) act_sel(s);
    else if (r < 88) act_mux(s);
    else act_matrix(s);
}

static void deep_content(sys_t *s, int64_t B, int L, int wm, int64_t *om);

/* Child SubSystem of about b blocks: input 1 the main signal, input 2 the
 * bypass one (passed straight down); outputs main (width wm) and bypass. */
static int64_t deep_child(sys_t *s, int64_t b, int L, int main_in, int byp_in, int wm,
                          int *out_main, int *out_byp)
{
    gen_t *g = s->g;
    int64_t before = g->nblocks, om[2];
    char name[16];
    int fb = SG(main_in).fb > SG(byp_in).fb ? SG(main_in).fb : SG(byp_in).fb;
    int wb = SG(byp_in).w;
    new_name(s, "M", name);
    sys_t c;
    sub_open(s, &c, name);
    add_inport(&c, SG(main_in).w, SG(main_in).mag);
    add_inport(&c, wb, SG(byp_in).mag);
    deep_content(&c, b - (g->nblocks - before), L, wm, om);
    sub_close(&c);
    connect(s, main_in, name, 1);
    connect(s, byp_in, name, 2);
    *out_main = add_sig(s, name, 1, wm, om[0], fb);
    *out_byp = add_sig(s, name, 2, wb, om[1], fb);
    return g->nblocks - before;
}

/* s has I1 (main, sig 0) and I2 (bypass, sig 1); about B more blocks. */
static void deep_content(sys_t *s, int64_t B, int L, int wm, int64_t *om)
{
    gen_t *g = s->g;
    int64_t end = g->nblocks + B;
    if (L <= 0 || B < 2 * DEEP_LVL) {
        /* innermost level: some dynamics on the main signal; the bypass gets
         * one real block, so a signal crosses every level down and up */
        mk_gain(s, 0, rsgn(RNG, 30, 120));
        while (end - g->nblocks - s->npend - 4 > 0) deep_action(s);
        close_pending(s);
        int y = absorb(s, get_w(s, wm), 6);
        om[0] = SG(y).mag;
        add_outport(s, y);
        int k = mk_gain(s, 1, rsgn(RNG, 30, 100));
        om[1] = SG(k).mag;
        add_outport(s, k);
        return;
    }
    int64_t need = (int64_t)L * DEEP_LVL, local;
    int c = 1;
    if (B - 20 >= 2 * need) {
        int64_t cm = (B - 20) / need;
        c = rin(RNG, 2, cm > 4 ? 4 : (int)cm);
        local = rin(RNG, 10, 20);
    } else {
        local = B / (L + 1);
        if (local < DEEP_LVL) local = DEEP_LVL;
    }
    int64_t lstart = g->nblocks;
    /* this level: main -> Gain -> (+ Integrator fed back from below) */
    int x = mk_gain(s, 0, rsgn(RNG, 30, 120));
    {   /* every level has a state, fed back from what the levels below return */
        int w = SG(x).w, in[2] = {x, mk_integrator(s, -1, w)}, sg[2] = {1, rpct(RNG, 50) ? 1 : -1};
        x = mk_sum(s, in, sg, 2);
    }
    while (g->nblocks - lstart < local / 2 - 2) deep_action(s);
    x = tame(s, x);
    int64_t kids = end - g->nblocks - (local - (g->nblocks - lstart)), used = 0;
    int mo[4], bo[4];
    for (int k = 0; k < c; k++) {
        int64_t left = kids - used, b = left;
        if (k < c - 1) b = left / (c - k) * rin(RNG, 80, 120) / 100;
        int wk = rpct(RNG, 70) ? SG(x).w : rin(RNG, 1, 3);
        int in = adapt(s, x, wk);
        int wo = rpct(RNG, 70) ? wk : rin(RNG, 1, 3);
        used += deep_child(s, b, L - 1, in, 1, wo, &mo[k], &bo[k]);
    }
    /* back up: the children's main outputs (and extra bypasses) summed */
    int in[8], sg[8], n = 0;
    for (int k = 0; k < c; k++) {
        in[n] = tame(s, adapt(s, mo[k], wm));
        sg[n++] = rpct(RNG, 70) ? 1 : -1;
        if (k) {
            in[n] = adapt(s, bo[k], wm);
            sg[n++] = 1;
        }
    }
    int y = n > 1 ? mk_sum(s, in, sg, n) : in[0];
    while (end - g->nblocks - s->npend - 3 > 0) deep_action(s);
    close_pending(s);
    y = absorb(s, adapt(s, y, wm), 6);
    om[0] = SG(y).mag;
    add_outport(s, y);
    om[1] = SG(bo[0]).mag;   /* the bypass goes straight up */
    add_outport(s, bo[0]);
}

static void gen_deep(gen_t *g, int64_t N, int depth, const char *name)
{
    root_open(g, name, "jacgraph generate deep: deeply nested SubSystems");
    sys_t s;
    sys_init(&s, g, 0);
    g->state_rate = 15;
    int D = depth > 0 ? depth : rin(&g->r, 10, 50);
    int64_t cap = (N - 10) / DEEP_LVL;
    if (D > cap) D = cap < 0 ? 0 : (int)cap;
    add_inport(&s, 3, 100);
    add_inport(&s, 2, 100);
    int64_t om[2];
    deep_content(&s, N - 2, D, 3, om);
    root_close(&s);
    sys_free(&s);
}

/* ------------------------------------------------------------ brusselator */

/* The 2-D Brusselator with diffusion (Hairer & Wanner II, IV.10, "BRUSS-2D"
 * without its forcing term) on an nx x ny periodic grid of the unit square:
 *
 *   u' = A + u^2 v - (B + 1) u + alpha (u_xx + u_yy)
 *   v' =     B u - u^2 v       + alpha (v_xx + v_yy)
 *
 * A = 1, B = 3.4, alpha = 0.1, five-point differences with dx = 1/nx,
 * dy = 1/ny.  Two Integrators of width M = nx ny hold u and v; the four
 * neighbours of every grid point are Selectors (virtual: they become the
 * connection pattern, not blocks of their own in the graph); the Laplacian's
 * centre terms are folded into the diagonal Gains KU and KV:
 *
 *   DU = A + P + KU u + GUX (UE + UW) + GUY (UN + US),   P = u u v
 *   DV = KB u - P + KV v + GVX (VE + VW) + GVY (VN + VS)
 *
 * with GUX = GVX = alpha nx^2, GUY = GVY = alpha ny^2, KB = B,
 * KU = -(B + 1) - 2 alpha (nx^2 + ny^2), KV = -2 alpha (nx^2 + ny^2).
 * 25 blocks whatever the size.  All of these are exact decimals of integers
 * (nx^2 / 10, ...), printed from integer arithmetic, so a reader that
 * computes them in double (benchmarks/stiff_hand.c) gets the same bits.
 * Element k = i + nx j (i along x, j along y, 0-based) is the grid point
 * ((i + 1)/nx, (j + 1)/ny).  Initial values: Hairer's
 * u0 = 22 y (1 - y)^(3/2), v0 = 27 x (1 - x)^(3/2), rounded to 1e-4, plus
 * (seed != 0) a perturbation drawn uniformly from -0.01 .. 0.01 in steps of
 * 1e-4 per element, clipped at 0 (concentrations). */

/* The grid of a state count: n = 2 nx ny, nx the largest divisor of n/2 with
 * nx^2 <= n/2.  Returns 0, or -1 when n is odd or nx < 3. */
static int bruss_grid(int64_t n, int64_t *nx, int64_t *ny)
{
    if (n < 18 || n % 2) return -1;
    int64_t m = n / 2, best = 0;
    for (int64_t d = 1; d * d <= m; d++)
        if (m % d == 0) best = d;
    if (best < 3) return -1;
    *nx = best;
    *ny = m / best;
    return 0;
}

/* v / 10^4 as a short exact decimal (v an integer) */
static void out_dec4(gen_t *g, int64_t v)
{
    int64_t a = v < 0 ? -v : v;
    char frac[8];
    int d = 4;
    int64_t f = a % 10000;
    while (d > 0 && f % 10 == 0) f /= 10, d--;
    if (d == 0) out(g, "%s%" PRId64, v < 0 ? "-" : "", a / 10000);
    else {
        snprintf(frac, sizeof frac, "%0*" PRId64, d, f);
        out(g, "%s%" PRId64 ".%s", v < 0 ? "-" : "", a / 10000, frac);
    }
}

/* the 1e-4 units of c w (1 - w)^(3/2) at w = k / n; IEEE operations only
 * (sqrt is correctly rounded), so every machine rounds alike */
static int64_t bruss_ic(int c, int64_t k, int64_t n)
{
    double w = (double)k / (double)n, r = 1.0 - w;
    return (int64_t)llround(1e4 * c * w * r * sqrt(r));
}

static void bruss_selector(sys_t *s, const char *name, int64_t nx, int64_t ny, int di, int dj)
{
    const int64_t M = nx * ny;
    blk_begin(s, name, "Selector");
    outs(s->g, ",\"Indices\":[");
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            int64_t ii = (i + di + nx) % nx, jj = (j + dj + ny) % ny;
            out(s->g, "%s%" PRId64, i || j ? "," : "", ii + nx * jj + 1);
        }
    out(s->g, "],\"InputPortWidth\":%" PRId64, M);
    blk_end(s);
}

static void bruss_gain(sys_t *s, const char *name, int64_t k10000)
{
    blk_begin(s, name, "Gain");
    outs(s->g, ",\"Gain\":");
    out_dec4(s->g, k10000);
    blk_end(s);
}

static void bruss_integrator(sys_t *s, const char *name, int c, int along_x, int64_t nx, int64_t ny)
{
    blk_begin(s, name, "Integrator");
    outs(s->g, ",\"InitialCondition\":[");
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            int64_t v = along_x ? bruss_ic(c, i + 1, nx) : bruss_ic(c, j + 1, ny);
            if (s->g->seed) v += rin(RNG, -100, 100);
            if (v < 0) v = 0;   /* concentrations: the perturbation near the boundary */
            if (i || j) outs(s->g, ",");
            out_dec4(s->g, v);
        }
    outs(s->g, "]");
    blk_end(s);
    s->g->nstates += nx * ny;
}

static void gen_brusselator(gen_t *g, int64_t nx, int64_t ny, const char *name)
{
    char desc[160];
    snprintf(desc, sizeof desc,
             "jacgraph generate brusselator: 2-D Brusselator with diffusion, %" PRId64 "x%" PRId64
             " periodic grid, A = 1, B = 3.4, alpha = 0.1",
             nx, ny);
    root_open(g, name, desc);
    sys_t s0, *s = &s0;
    sys_init(s, g, 0);
    /* 1e-4 units: alpha nx^2 = nx^2 / 10 = 1000 nx^2 units */
    const int64_t ax = 1000 * nx * nx, ay = 1000 * ny * ny;
    bruss_integrator(s, "U", 22, 0, nx, ny);   /* u0 varies along y */
    bruss_integrator(s, "V", 27, 1, nx, ny);   /* v0 along x */
    static const char *const sel[8] = {"UE", "UW", "UN", "US", "VE", "VW", "VN", "VS"};
    static const int dij[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int k = 0; k < 8; k++) {
        bruss_selector(s, sel[k], nx, ny, dij[k % 4][0], dij[k % 4][1]);
        link(s, k < 4 ? "U:1" : "V:1", sel[k], 1);
    }
    static const char *const sx[4] = {"SUX", "SUY", "SVX", "SVY"};
    static const char *const gx[4] = {"GUX", "GUY", "GVX", "GVY"};
    for (int k = 0; k < 4; k++) {
        blk_begin(s, sx[k], "Sum");
        outs(g, ",\"Inputs\":\"++\"");
        blk_end(s);
        char src[8];
        snprintf(src, sizeof src, "%s:1", sel[2 * k]);
        link(s, src, sx[k], 1);
        snprintf(src, sizeof src, "%s:1", sel[2 * k + 1]);
        link(s, src, sx[k], 2);
        bruss_gain(s, gx[k], k % 2 ? ay : ax);
        snprintf(src, sizeof src, "%s:1", sx[k]);
        link(s, src, gx[k], 1);
    }
    bruss_gain(s, "KU", -(44000 + 2 * (ax + ay)));  /* -(B + 1) - 2 alpha (nx^2 + ny^2) */
    link(s, "U:1", "KU", 1);
    bruss_gain(s, "KV", -2 * (ax + ay));
    link(s, "V:1", "KV", 1);
    bruss_gain(s, "KB", 34000);                     /* B */
    link(s, "U:1", "KB", 1);
    blk_begin(s, "P", "Product");                   /* u^2 v */
    outs(g, ",\"Inputs\":\"***\"");
    blk_end(s);
    link(s, "U:1", "P", 1);
    link(s, "U:1", "P", 2);
    link(s, "V:1", "P", 3);
    blk_begin(s, "A", "Constant");
    outs(g, ",\"Value\":1");
    blk_end(s);
    blk_begin(s, "DU", "Sum");
    outs(g, ",\"Inputs\":\"+++++\"");
    blk_end(s);
    link(s, "A:1", "DU", 1);
    link(s, "P:1", "DU", 2);
    link(s, "KU:1", "DU", 3);
    link(s, "GUX:1", "DU", 4);
    link(s, "GUY:1", "DU", 5);
    link(s, "DU:1", "U", 1);
    blk_begin(s, "DV", "Sum");
    outs(g, ",\"Inputs\":\"+-+++\"");
    blk_end(s);
    link(s, "KB:1", "DV", 1);
    link(s, "P:1", "DV", 2);
    link(s, "KV:1", "DV", 3);
    link(s, "GVX:1", "DV", 4);
    link(s, "GVY:1", "DV", 5);
    link(s, "DV:1", "V", 1);
    root_close(s);
    sys_free(s);
}

/* ------------------------------------------------------------------ command */

static int parse_count(const char *v, int64_t *n)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || errno) return -1;
    if (*end == 'k' || *end == 'K') x *= 1000, end++;
    else if (*end == 'M' || *end == 'm') x *= 1000000, end++;
    if (*end) return -1;
    *n = x;
    return 0;
}

int cmd_generate(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "generate"};
    const char *kind_s = NULL, *blocks_s = NULL, *seed_s = "1", *out_s = NULL, *depth_s = NULL;
    const char *states_s = NULL, *format_s = NULL;
    int quiet = 0, r;
    while (a.i < argc) {
        if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
            fputs(help, stdout);
            return 0;
        }
        if ((r = cli_opt(&a, "--blocks", &blocks_s)) || (r = cli_opt(&a, "--seed", &seed_s)) ||
            (r = cli_opt(&a, "--out", &out_s)) || (r = cli_opt(&a, "--depth", &depth_s)) ||
            (r = cli_opt(&a, "--states", &states_s)) || (r = cli_opt(&a, "--format", &format_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--quiet") || cli_flag(&a, "-q")) {
            quiet = 1;
            continue;
        }
        if (argv[a.i][0] == '-' && argv[a.i][1]) return cli_usage(a.cmd, "unknown option '%s'", argv[a.i]);
        if (kind_s) return cli_usage(a.cmd, "more than one KIND ('%s' and '%s')", kind_s, argv[a.i]);
        kind_s = argv[a.i++];
    }
    if (!kind_s) return cli_usage(a.cmd, "missing KIND (aerospace, power, deep, brusselator)");
    int kind;
    if (!strcmp(kind_s, "aerospace")) kind = K_AERO;
    else if (!strcmp(kind_s, "power")) kind = K_POWER;
    else if (!strcmp(kind_s, "deep")) kind = K_DEEP;
    else if (!strcmp(kind_s, "brusselator")) kind = K_BRUSS;
    else return cli_usage(a.cmd, "unknown KIND '%s' (aerospace, power, deep, brusselator)", kind_s);
    int64_t N, nx = 0, ny = 0;
    if (kind == K_BRUSS) {
        /* its block count is fixed: the size is the number of states */
        if (blocks_s) return cli_usage(a.cmd, "brusselator takes --states N, not --blocks");
        if (!states_s) return cli_usage(a.cmd, "missing --states N");
        if (parse_count(states_s, &N) || N < 18 || N > 10000000)
            return cli_usage(a.cmd, "--states must be an integer from 18 to 10000000 (10k, 1M), not '%s'",
                             states_s);
        if (bruss_grid(N, &nx, &ny)) {
            int64_t lo = N - 1, hi = N + 1;
            while (lo >= 18 && bruss_grid(lo, &nx, &ny)) lo--;
            while (bruss_grid(hi, &nx, &ny)) hi++;
            if (lo >= 18)
                return cli_usage(a.cmd, "--states %lld is not 2 nx ny with 3 <= nx <= ny (nx the largest "
                                        "such divisor); nearest: %lld or %lld", (long long)N, (long long)lo,
                                 (long long)hi);
            return cli_usage(a.cmd, "--states %lld is not 2 nx ny with 3 <= nx <= ny; nearest: %lld",
                             (long long)N, (long long)hi);
        }
    } else if (states_s) return cli_usage(a.cmd, "--states applies to KIND brusselator only");
    else if (!blocks_s) return cli_usage(a.cmd, "missing --blocks N");
    else if (parse_count(blocks_s, &N) || N < 10 || N > 10000000)
        return cli_usage(a.cmd, "--blocks must be an integer from 10 to 10000000 (10k, 1M), not '%s'",
                         blocks_s);
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_s, &end, 10);
    if (end == seed_s || *end || errno || seed_s[0] == '-')
        return cli_usage(a.cmd, "--seed must be an unsigned integer, not '%s'", seed_s);
    int depth = 0;
    if (depth_s) {
        long d = strtol(depth_s, &end, 10);
        if (end == depth_s || *end || d < 1 || d > 1000)
            return cli_usage(a.cmd, "--depth must be an integer from 1 to 1000, not '%s'", depth_s);
        if (kind != K_DEEP) return cli_usage(a.cmd, "--depth applies to KIND deep only");
        depth = (int)d;
    }

    /* Simulink formats: the JSON text is made in memory, then converted */
    int slfmt = 0;
    if (out_s && !strcmp(out_s, "-")) out_s = NULL;
    if (format_s) {
        if (!strcmp(format_s, "mdl")) slfmt = JG_SL_WRITE_MDL;
        else if (!strcmp(format_s, "slx")) slfmt = JG_SL_WRITE_SLX;
        else if (strcmp(format_s, "json"))
            return cli_usage(a.cmd, "--format must be json, mdl or slx, not '%s'", format_s);
    } else if (out_s) {
        size_t n = strlen(out_s);
        if (n > 4 && !strcmp(out_s + n - 4, ".mdl")) slfmt = JG_SL_WRITE_MDL;
        else if (n > 4 && !strcmp(out_s + n - 4, ".slx")) slfmt = JG_SL_WRITE_SLX;
    }
    if (slfmt && !out_s) return cli_usage(a.cmd, "--format %s needs --out FILE", format_s);

    gen_t g;
    memset(&g, 0, sizeof g);
    g.kind = kind;
    g.seed = seed;
    /* the kind is mixed into the seed: the three kinds use different streams */
    g.r.s = (uint64_t)seed * 0x2545F4914F6CDD1Dull + (uint64_t)kind;
    static char buf[1 << 20];
    char *mem = NULL;
    size_t memlen = 0;
    if (slfmt) {
        g.f = open_memstream(&mem, &memlen);
        if (!g.f) {
            fprintf(stderr, "jacgraph generate: out of memory\n");
            return 70;
        }
    } else if (out_s) {
        g.f = fopen(out_s, "w");
        if (!g.f) {
            fprintf(stderr, "jacgraph: error: cannot write '%s': %s\n", out_s, strerror(errno));
            return 3;
        }
    } else g.f = stdout;
    if (!slfmt) setvbuf(g.f, buf, _IOFBF, sizeof buf);
    char name[64];
    snprintf(name, sizeof name, "%s_n%lld_s%llu", kind_s, (long long)N, seed);
    if (kind == K_AERO) gen_aerospace(&g, N, name);
    else if (kind == K_POWER) gen_power(&g, N, name);
    else if (kind == K_BRUSS) gen_brusselator(&g, nx, ny, name);
    else gen_deep(&g, N, depth, name);
    int bad = g.ioerr || fflush(g.f) != 0 || ferror(g.f);
    if (out_s || slfmt) bad |= fclose(g.f) != 0;
    if (bad) {
        free(mem);
        fprintf(stderr, "jacgraph: error: writing '%s' failed\n", out_s ? out_s : "<stdout>");
        return 3;
    }
    if (slfmt) {
        jg_error_t err;
        jg_status_t st = jg_io_write_simulink(mem, memlen, slfmt, out_s, &err);
        free(mem);
        if (st != JG_OK) {
            fprintf(stderr, "jacgraph: error: %s\n", err.msg);
            return jg_status_exit(st);
        }
        struct stat sb;
        if (!stat(out_s, &sb)) g.bytes = (uint64_t)sb.st_size;
    }
    if (!quiet) {
        fprintf(stderr, "jacgraph generate %s --seed %llu: %lld blocks (%lld SubSystems), %lld "
                        "states, depth %d, %lld inputs, %lld outputs",
                kind_s, seed, (long long)g.nblocks, (long long)g.nsub, (long long)g.nstates,
                g.depth, (long long)g.ninputs, (long long)g.noutputs);
        if (kind == K_POWER) fprintf(stderr, ", %lld algebraic loops", (long long)g.nloops);
        if (kind == K_BRUSS) fprintf(stderr, ", grid %lldx%lld", (long long)nx, (long long)ny);
        fprintf(stderr, ", %.1f MB\n", (double)g.bytes / 1e6);
    }
    return 0;
}
