/* gen_random.c -- seeded random linear block diagrams for the property tests
 * (jacgraph/gen.h, jg_gen_random).
 *
 * A system (the root or a SubSystem) is built forwards: every new block takes
 * its inputs from signals that already exist in the system (the "pool"), so
 * the diagram is a DAG, except for two deliberate kinds of cycles:
 *   - feedback: a state-holding block (Integrator, StateSpace with D = 0,
 *     strictly proper TransferFcn) is created with its input "pending"; when
 *     the system is finished the input is connected to any signal, usually a
 *     later one, which closes a loop through the state;
 *   - algebraic loops (act_loop): a Sum, a chain of feedthrough blocks and a
 *     final Gain scaled so that the loop gain's infinity norm is <= 0.85.
 *     The loop's signals are hidden from the pool until the loop is closed, so
 *     nothing else joins the loop and each loop is one SCC.
 * Parameters are integers in hundredths printed exactly ("-0.35"), so the text
 * only depends on the PRNG (splitmix64) and integer arithmetic.  Unlike the
 * streamed kinds (gen_system.c) the systems are held in memory: a SubSystem's
 * text is complete only when its body is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

/* ------------------------------------------------------------------ text */

/* A value in hundredths, printed exactly: -35 -> "-0.35", 200 -> "2.00". */
static void sb_h(jg__gen_sb_t *b, int v)
{
    int a = v < 0 ? -v : v;
    jg__gen_sb_printf(b, "%s%d.%02d", v < 0 ? "-" : "", a / 100, a % 100);
}

static void sb_vec(jg__gen_sb_t *b, const int *v, int n)
{
    jg__gen_sb_cat(b, "[");
    for (int i = 0; i < n; i++) {
        if (i) jg__gen_sb_cat(b, ", ");
        sb_h(b, v[i]);
    }
    jg__gen_sb_cat(b, "]");
}

/* row-major rows x cols as nested rows (always nested, even 1 x n) */
static void sb_mat(jg__gen_sb_t *b, const int *v, int rows, int cols)
{
    jg__gen_sb_cat(b, "[");
    for (int r = 0; r < rows; r++) {
        if (r) jg__gen_sb_cat(b, ", ");
        sb_vec(b, v + r * cols, cols);
    }
    jg__gen_sb_cat(b, "]");
}

static void sb_ints(jg__gen_sb_t *b, const int *v, int n)
{
    jg__gen_sb_cat(b, "[");
    for (int i = 0; i < n; i++) jg__gen_sb_printf(b, "%s%d", i ? ", " : "", v[i]);
    jg__gen_sb_cat(b, "]");
}

/* hundredths in [-mag, mag], never zero */
static int rng_nz(jg__gen_rng_t *r, int mag)
{
    int v = jg__gen_rin(r, 1, mag);
    return jg__gen_rpct(r, 50) ? -v : v;
}

static int iabs(int v) { return v < 0 ? -v : v; }

/* ----------------------------------------------------------- the builder */

typedef struct {
    char src[48];     /* "Block:port" */
    int width;
    int hidden;       /* part of an algebraic loop under construction */
    int ndst;
    jg__gen_sb_t dst;         /* "\"B:1\", \"C:2\"" */
} sig_t;

typedef struct {
    char dst[48];     /* "Block:port" */
    int width;
    int needfix;      /* the driver must fix its own widths (infer_widths == 0) */
} pend_t;

typedef struct gen gen_t;

typedef struct sys {
    gen_t *g;
    struct sys *parent;
    int depth;
    jg__gen_sb_t blocks;
    int nblk;
    jg__gen_sb_t params;
    int nparams;
    sig_t *sig;
    int nsig, capsig;
    pend_t *pend;
    int npend, cappend;
    int hide_new;     /* building an algebraic loop: new signals start hidden */
    int nports;       /* the system's Inport signals are sig[0 .. nports-1] */
} sys_t;

struct gen {
    jg__gen_rng_t r;
    jg__gen_mem_t mem;
    jg_gen_random_opts_t o;
    jg_gen_random_info_t info;
    int next_id;
};

#define R (&s->g->r)
#define VEC (s->g->o.vectors)
#define INFER (s->g->o.infer_widths)

static void indent(jg__gen_sb_t *b, int depth)
{
    for (int i = 0; i < depth + 1; i++) jg__gen_sb_cat(b, "  ");
}

static int add_sig(sys_t *s, const char *blk, int port, int width, int hidden)
{
    if (s->nsig == s->capsig) {
        s->capsig = s->capsig ? 2 * s->capsig : 32;
        s->sig = jg__gen_realloc(&s->g->mem, s->sig, sizeof *s->sig * (size_t)s->capsig);
    }
    sig_t *x = &s->sig[s->nsig];
    memset(x, 0, sizeof *x);
    jg__gen_sb_init(&x->dst, &s->g->mem);
    snprintf(x->src, sizeof x->src, "%s:%d", blk, port);
    x->width = width;
    x->hidden = hidden || s->hide_new;
    if (width < 1 || width > 8)   /* the fixed-size arrays below assume this */
        jg__gen_fail(&s->g->mem, JG_INTERNAL, "random diagram: signal %s has width %d", x->src, width);
    if (width > 1) {
        s->g->info.nvector++;
        if (width > s->g->info.maxwidth) s->g->info.maxwidth = width;
    }
    return s->nsig++;
}

static void connect(sys_t *s, int sig, const char *blk, int port)
{
    sig_t *x = &s->sig[sig];
    jg__gen_sb_printf(&x->dst, "%s\"%s:%d\"", x->ndst ? ", " : "", blk, port);
    x->ndst++;
}

static void pending(sys_t *s, const char *blk, int port, int width, int needfix)
{
    if (s->npend == s->cappend) {
        s->cappend = s->cappend ? 2 * s->cappend : 8;
        s->pend = jg__gen_realloc(&s->g->mem, s->pend, sizeof *s->pend * (size_t)s->cappend);
    }
    pend_t *p = &s->pend[s->npend++];
    snprintf(p->dst, sizeof p->dst, "%s:%d", blk, port);
    p->width = width;
    p->needfix = needfix;
}

/* A fresh block name (unique in the whole model). */
static void new_name(sys_t *s, const char *prefix, char *name)
{
    snprintf(name, 40, "%s%d", prefix, ++s->g->next_id);
}

/* Start a block object in s->blocks; the caller appends ", \"Param\": ..."
 * and closes it with blk_close. Counts the block. */
static void blk_open(sys_t *s, const char *name, const char *type)
{
    if (s->nblk++) jg__gen_sb_cat(&s->blocks, ",\n");
    indent(&s->blocks, s->depth + 1);
    jg__gen_sb_printf(&s->blocks, "{\"name\": \"%s\", \"type\": \"%s\"", name, type);
    s->g->info.nblocks++;
}

static void blk_close(sys_t *s) { jg__gen_sb_cat(&s->blocks, "}"); }

/* An empty system of g at `depth` under `parent` (NULL: the root). */
static void sys_start(sys_t *s, gen_t *g, sys_t *parent, int depth)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->parent = parent;
    s->depth = depth;
    jg__gen_sb_init(&s->blocks, &g->mem);
    jg__gen_sb_init(&s->params, &g->mem);
}

static void sys_free(sys_t *s)
{
    jg__gen_sb_free(&s->blocks);
    jg__gen_sb_free(&s->params);
    for (int i = 0; i < s->nsig; i++) jg__gen_sb_free(&s->sig[i].dst);
    jg__gen_free(&s->g->mem, s->sig);
    jg__gen_free(&s->g->mem, s->pend);
}

/* Any visible signal: half the time one of the last four (chains), else
 * uniform (DAG fan-out). */
static int pick_any(sys_t *s)
{
    if (s->nports && jg__gen_rpct(R, 20)) {   /* an Inport nothing reads yet */
        int i = jg__gen_rin(R, 0, s->nports - 1);
        if (!s->sig[i].ndst && !s->sig[i].hidden) return i;
    }
    for (int t = 0; t < 8; t++) {
        int i = jg__gen_rpct(R, 50) ? s->nsig - 1 - jg__gen_rin(R, 0, s->nsig < 4 ? s->nsig - 1 : 3)
                               : jg__gen_rin(R, 0, s->nsig - 1);
        if (!s->sig[i].hidden) return i;
    }
    for (int i = s->nsig - 1; i >= 0; i--)
        if (!s->sig[i].hidden) return i;
    jg__gen_fail(&s->g->mem, JG_INTERNAL, "random diagram: no visible signal");
}

/* Write a Gain's "Gain" value, sometimes as a workspace name defined in this
 * system or an enclosing one. */
static void gain_value(sys_t *s, const int *k, int nk)
{
    jg__gen_sb_cat(&s->blocks, ", \"Gain\": ");
    if (jg__gen_rpct(R, 12)) {
        sys_t *ws = s;
        while (ws->parent && jg__gen_rpct(R, 40)) ws = ws->parent;
        char pname[40];
        snprintf(pname, sizeof pname, "k%d", ++s->g->next_id);
        jg__gen_sb_printf(&ws->params, "%s\"%s\": ", ws->nparams++ ? ", " : "", pname);
        if (nk == 1) sb_h(&ws->params, k[0]); else sb_vec(&ws->params, k, nk);
        jg__gen_sb_printf(&s->blocks, "\"%s\"", pname);
        s->g->info.nworkspace++;
        return;
    }
    if (nk == 1 && jg__gen_rpct(R, 80)) sb_h(&s->blocks, k[0]);
    else if (nk == 1) sb_vec(&s->blocks, k, 1);   /* [k]: a 1x1 array */
    else sb_vec(&s->blocks, k, nk);
}

/* Element-wise Gain: K scalar or nk values; output width max(nk, w). */
static int mk_gain(sys_t *s, int in, const int *k, int nk)
{
    char n[40];
    new_name(s, "G", n);
    blk_open(s, n, "Gain");
    gain_value(s, k, nk);
    if (jg__gen_rpct(R, 10)) jg__gen_sb_cat(&s->blocks, ", \"Multiplication\": \"Element-wise(K.*u)\"");
    blk_close(s);
    connect(s, in, n, 1);
    s->g->info.ngain++;
    int w = s->sig[in].width;
    return add_sig(s, n, 1, nk > w ? nk : w, 0);
}

/* Matrix(K*u) Gain, K rows x cols (cols = input width): fixes both widths. */
static int mk_gain_matrix(sys_t *s, int in, const int *k, int rows)
{
    char n[40];
    int cols = s->sig[in].width;
    new_name(s, "G", n);
    blk_open(s, n, "Gain");
    jg__gen_sb_cat(&s->blocks, ", \"Gain\": ");
    sb_mat(&s->blocks, k, rows, cols);
    jg__gen_sb_cat(&s->blocks, ", \"Multiplication\": \"Matrix(K*u)\"");
    blk_close(s);
    connect(s, in, n, 1);
    s->g->info.ngain++;
    return add_sig(s, n, 1, rows, 0);
}

/* Selector picking idx[0..n-1] (1-based) from `in`. */
static int mk_selector(sys_t *s, int in, const int *idx, int n)
{
    char nm[40];
    new_name(s, "Sel", nm);
    blk_open(s, nm, "Selector");
    jg__gen_sb_cat(&s->blocks, ", \"Indices\": ");
    sb_ints(&s->blocks, idx, n);
    if (jg__gen_rpct(R, 25)) jg__gen_sb_printf(&s->blocks, ", \"InputPortWidth\": %d", s->sig[in].width);
    blk_close(s);
    connect(s, in, nm, 1);
    s->g->info.nselector++;
    return add_sig(s, nm, 1, n, 0);
}

/* Demux of `in` into parts[0..np-1] (widths summing to the input width);
 * as "Outputs": np when the parts are equal (sometimes), else the widths.
 * Output signal ids go to out[]. */
static void mk_demux(sys_t *s, int in, const int *parts, int np, int *out)
{
    char nm[40];
    new_name(s, "Dmx", nm);
    blk_open(s, nm, "Demux");
    int equal = 1;
    for (int i = 1; i < np; i++) equal &= parts[i] == parts[0];
    if (equal && jg__gen_rpct(R, 70)) {
        jg__gen_sb_printf(&s->blocks, ", \"Outputs\": %d", np);
    } else {
        int w[8];
        for (int i = 0; i < np; i++) w[i] = parts[i];
        if (!equal || jg__gen_rpct(R, 50)) {
            /* one inherited (-1) part is allowed when it is the only unknown */
            int k = jg__gen_rin(R, 0, np - 1);
            if (jg__gen_rpct(R, 20)) w[k] = -1;
        }
        jg__gen_sb_cat(&s->blocks, ", \"Outputs\": ");
        sb_ints(&s->blocks, w, np);
    }
    blk_close(s);
    connect(s, in, nm, 1);
    s->g->info.ndemux++;
    for (int i = 0; i < np; i++) out[i] = add_sig(s, nm, i + 1, parts[i], 0);
}

/* Mux of in[0..n-1]. */
static int mk_mux(sys_t *s, const int *in, int n)
{
    char nm[40];
    int w[16], tot = 0;
    for (int i = 0; i < n; i++) tot += w[i] = s->sig[in[i]].width;
    new_name(s, "Mux", nm);
    blk_open(s, nm, "Mux");
    if (jg__gen_rpct(R, 20)) {
        if (jg__gen_rpct(R, 30)) w[jg__gen_rin(R, 0, n - 1)] = -1;
        jg__gen_sb_cat(&s->blocks, ", \"Inputs\": ");
        sb_ints(&s->blocks, w, n);
    } else {
        jg__gen_sb_printf(&s->blocks, ", \"Inputs\": %d", n);
    }
    blk_close(s);
    for (int i = 0; i < n; i++) connect(s, in[i], nm, i + 1);
    s->g->info.nmux++;
    return add_sig(s, nm, 1, tot, 0);
}

/* Random composition of w into np >= 2 parts (np <= w). */
static int compose(sys_t *s, int w, int *parts)
{
    int np = jg__gen_rin(R, 2, w < 4 ? w : 4);
    if (jg__gen_rpct(R, 40) && w % np == 0) {
        for (int i = 0; i < np; i++) parts[i] = w / np;
        return np;
    }
    int left = w;
    for (int i = 0; i < np - 1; i++) {
        parts[i] = jg__gen_rin(R, 1, left - (np - 1 - i));
        left -= parts[i];
    }
    parts[np - 1] = left;
    return np;
}

static int get_sig_w(sys_t *s, int w);

/* Adapt signal `in` to width w with routing (or a Gain / Sum). */
static int adapt(sys_t *s, int in, int w)
{
    int ws = s->sig[in].width;
    if (ws == w) return in;
    int idx[16];
    if (ws == 1) {
        int c = jg__gen_rin(R, 0, 2);
        if (c == 0) {   /* Selector repeating the only element */
            for (int i = 0; i < w; i++) idx[i] = 1;
            return mk_selector(s, in, idx, w);
        }
        if (c == 1) {   /* scalar u times vector K */
            int k[8];
            for (int i = 0; i < w; i++) k[i] = rng_nz(R, 120);
            return mk_gain(s, in, k, w);
        }
        int m[16];      /* Mux of scalars */
        m[0] = in;
        for (int i = 1; i < w; i++) m[i] = get_sig_w(s, 1);
        return mk_mux(s, m, w);
    }
    if (w == 1) {
        if (jg__gen_rpct(R, 70)) {
            idx[0] = jg__gen_rin(R, 1, ws);
            return mk_selector(s, in, idx, 1);
        }
        /* one-input Sum: the sum of the elements */
        char nm[40];
        new_name(s, "S", nm);
        blk_open(s, nm, "Sum");
        int c = jg__gen_rin(R, 0, 3);
        jg__gen_sb_cat(&s->blocks, c == 0 ? ", \"Inputs\": \"+\"" : c == 1 ? ", \"Inputs\": \"-\""
                           : c == 2 ? ", \"Inputs\": \"|+\"" : ", \"Inputs\": 1");
        blk_close(s);
        connect(s, in, nm, 1);
        s->g->info.nsum++;
        return add_sig(s, nm, 1, 1, 0);
    }
    int c = jg__gen_rin(R, 0, 2);
    if (c == 1 && ws % w == 0) {
        int parts[8] = {0}, out[8] = {0}, np = ws / w;
        if (np <= 8) {
            for (int i = 0; i < np; i++) parts[i] = w;
            mk_demux(s, in, parts, np, out);
            return out[jg__gen_rin(R, 0, np - 1)];
        }
    }
    if (c == 2) {
        int k[64];
        for (int i = 0; i < w * ws; i++) k[i] = jg__gen_rpct(R, 30) ? 0 : rng_nz(R, 100);
        k[0] = k[0] ? k[0] : 50;
        return mk_gain_matrix(s, in, k, w);
    }
    for (int i = 0; i < w; i++) idx[i] = jg__gen_rin(R, 1, ws);
    return mk_selector(s, in, idx, w);
}

/* A visible signal of width w: found in the pool, else adapted. */
static int get_sig_w(sys_t *s, int w)
{
    for (int t = 0; t < 6; t++) {
        int i = pick_any(s);
        if (s->sig[i].width == w) return i;
    }
    return adapt(s, pick_any(s), w);
}

static int rand_width(sys_t *s) { return VEC ? (jg__gen_rpct(R, 55) ? 1 : jg__gen_rin(R, 2, 4)) : 1; }

/* ------------------------------------------------------- LTI parameters */

/* Stable-ish A (n x n): negative diagonal, small coupling. */
static void rand_A(sys_t *s, int *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = i == j ? -jg__gen_rin(R, 50, 300) : jg__gen_rpct(R, 40) ? rng_nz(R, 80) : 0;
}

/* rows x cols, some zeros, at least one nonzero */
static void rand_sparse(sys_t *s, int *m, int rows, int cols, int mag, int zpct)
{
    int nz = 0;
    for (int i = 0; i < rows * cols; i++) {
        m[i] = jg__gen_rpct(R, zpct) ? 0 : rng_nz(R, mag);
        nz += m[i] != 0;
    }
    if (!nz) {
        int at = jg__gen_rin(R, 0, rows * cols - 1);   /* two statements: a fixed call order */
        m[at] = rng_nz(R, mag);
    }
}

/* Hurwitz denominator of degree n (1..3), coefficients in hundredths,
 * highest power first; the leading one 1.00 or random. */
static void rand_den(sys_t *s, int *d, int n)
{
    for (;;) {
        d[0] = jg__gen_rpct(R, 60) ? 100 : jg__gen_rin(R, 50, 250);
        for (int i = 1; i <= n; i++) d[i] = jg__gen_rin(R, 10, 400);
        /* cubic a3 s^3 + a2 s^2 + a1 s + a0: a2 a1 > a3 a0 (Routh) */
        if (n < 3 || (long long)d[1] * d[2] > (long long)d[0] * d[3]) return;
    }
}

typedef struct {
    int n, m, p;
    int a[9], b[64], c[64], d[64];
    int ic[3], nic;
    int noA;          /* no states: "A": [] */
    int omitD;        /* D absent: Simulink's default 1 (1x1 only) */
} ss_par_t;

/* Write a StateSpace block from q; in -> output signal (width p). */
static int mk_ss(sys_t *s, int in, const ss_par_t *q, const char *pend_why)
{
    char nm[40];
    new_name(s, "SS", nm);
    blk_open(s, nm, "StateSpace");
    jg__gen_sb_t *b = &s->blocks;
    if (q->noA) {
        jg__gen_sb_cat(b, ", \"A\": []");
        if (jg__gen_rpct(R, 50)) jg__gen_sb_cat(b, ", \"B\": [], \"C\": []");
    } else {
        jg__gen_sb_cat(b, ", \"A\": ");
        sb_mat(b, q->a, q->n, q->n);
        jg__gen_sb_cat(b, ", \"B\": ");
        sb_mat(b, q->b, q->n, q->m);
        jg__gen_sb_cat(b, ", \"C\": ");
        sb_mat(b, q->c, q->p, q->n);
    }
    if (!q->omitD) {
        jg__gen_sb_cat(b, ", \"D\": ");
        sb_mat(b, q->d, q->p, q->m);
    }
    if (!q->noA && q->nic == 1) {
        jg__gen_sb_cat(b, ", \"InitialCondition\": ");
        sb_h(b, q->ic[0]);
    } else if (!q->noA && q->nic > 1) {
        jg__gen_sb_cat(b, ", \"InitialCondition\": ");
        sb_vec(b, q->ic, q->nic);
    }
    blk_close(s);
    if (pend_why) pending(s, nm, 1, q->m, 0);
    else connect(s, in, nm, 1);
    s->g->info.nstatespace++;
    s->g->info.nstates += q->noA ? 0 : q->n;
    return add_sig(s, nm, 1, q->p, 0);
}

/* Random StateSpace parameters: m inputs, p outputs; hasD: 0 zero D,
 * 1 nonzero D (entries bounded by dmag hundredths), 2 either. */
static void rand_ss(sys_t *s, ss_par_t *q, int m, int p, int hasD, int dmag, int allow_noA)
{
    memset(q, 0, sizeof *q);
    q->m = m;
    q->p = p;
    q->noA = allow_noA && hasD != 0 && jg__gen_rpct(R, 12);
    q->n = q->noA ? 0 : jg__gen_rin(R, 1, 3);
    if (!q->noA) {
        rand_A(s, q->a, q->n);
        rand_sparse(s, q->b, q->n, m, 100, 25);
        rand_sparse(s, q->c, p, q->n, 100, 25);
        q->nic = jg__gen_rpct(R, 30) ? 0 : jg__gen_rpct(R, 50) ? 1 : q->n;
        for (int i = 0; i < q->nic; i++) q->ic[i] = jg__gen_rin(R, -150, 150);
    }
    if (hasD == 2) hasD = q->noA || jg__gen_rpct(R, 60);
    if (hasD) rand_sparse(s, q->d, p, m, dmag, 30);
    q->omitD = hasD && m == 1 && p == 1 && q->d[0] == 100 && !q->noA;
    if (hasD && m == 1 && p == 1 && !q->noA && jg__gen_rpct(R, 15)) {
        q->d[0] = 100;    /* D = 1: written by omitting D (Simulink's default) */
        q->omitD = 1;
    }
}

/* TransferFcn num/den: den degree 1..3; feedthrough 1: numerator of full
 * degree (D = b0/a0 != 0), 0: strictly proper, 2: either.  Returns the
 * output signal; |D| = dnorm[0] / dnorm[1] when D != 0. */
static int mk_tf(sys_t *s, int in, int feedthrough, int pend, long long *dnorm, int dmag)
{
    int n = jg__gen_rin(R, 1, 3), den[4], num[5], nn;
    rand_den(s, den, n);
    if (feedthrough == 2) feedthrough = jg__gen_rpct(R, 40);
    int deg = feedthrough ? n : jg__gen_rin(R, 0, n - 1);
    nn = 0;
    if (!feedthrough && jg__gen_rpct(R, 25)) num[nn++] = 0;   /* leading zero: no degree */
    for (int i = 0; i <= deg; i++) num[nn++] = i == 0 ? rng_nz(R, feedthrough ? dmag : 200)
                                                      : jg__gen_rpct(R, 20) ? 0 : rng_nz(R, 200);
    if (feedthrough) {
        /* |b0 / a0| <= dmag / 100 whatever the leading denominator coefficient */
        int b0 = (int)((long long)num[0] * den[0] / 100);
        if (b0 == 0) b0 = num[0] < 0 ? -1 : 1;
        num[0] = b0;
        if (dnorm) {
            dnorm[0] = iabs(num[0]);
            dnorm[1] = den[0];
        }
    }
    char nm[40];
    new_name(s, "TF", nm);
    blk_open(s, nm, "TransferFcn");
    jg__gen_sb_cat(&s->blocks, ", \"Numerator\": ");
    if (nn == 1 && jg__gen_rpct(R, 30)) sb_h(&s->blocks, num[0]);
    else sb_vec(&s->blocks, num, nn);
    jg__gen_sb_cat(&s->blocks, ", \"Denominator\": ");
    sb_vec(&s->blocks, den, n + 1);
    blk_close(s);
    if (pend) pending(s, nm, 1, 1, 0);
    else connect(s, in, nm, 1);
    s->g->info.ntransferfcn++;
    s->g->info.nstates += n;
    return add_sig(s, nm, 1, 1, 0);
}

/* ---------------------------------------------------------------- actions */

static void act_gain(sys_t *s)
{
    int in = pick_any(s), w = s->sig[in].width, k[64], c = jg__gen_rin(R, 0, 9);
    if (VEC && c == 9) {   /* Matrix(K*u) */
        int rows = jg__gen_rin(R, 1, 3);
        rand_sparse(s, k, rows, w, 120, 25);
        mk_gain_matrix(s, in, k, rows);
        return;
    }
    if (VEC && w > 1 && c >= 5) {   /* element-wise vector K */
        for (int i = 0; i < w; i++) k[i] = jg__gen_rpct(R, 4) ? 0 : rng_nz(R, 120);
        mk_gain(s, in, k, w);
        return;
    }
    if (VEC && w == 1 && c == 8) {   /* scalar u, vector K */
        int nk = jg__gen_rin(R, 2, 3);
        for (int i = 0; i < nk; i++) k[i] = rng_nz(R, 120);
        mk_gain(s, in, k, nk);
        return;
    }
    k[0] = jg__gen_rpct(R, 3) ? 0 : rng_nz(R, 150);
    mk_gain(s, in, k, 1);
}

/* Sum string of n signs, sometimes with '|' separators. */
static void sum_signs(sys_t *s, char *str, int n, int *sign)
{
    int k = 0;
    if (jg__gen_rpct(R, 15)) str[k++] = '|';
    for (int i = 0; i < n; i++) {
        sign[i] = jg__gen_rpct(R, 60) ? 1 : -1;
        str[k++] = sign[i] > 0 ? '+' : '-';
        if (i + 1 < n && jg__gen_rpct(R, 5)) str[k++] = '|';
    }
    str[k] = '\0';
}

/* Sum with inputs in[0..n-1] (widths w or 1); port `open` (or -1) is left
 * unconnected for the caller.  Returns the output signal (hidden if asked). */
static int mk_sum(sys_t *s, const int *in, int n, int w, int open, int hidden, char *name_out)
{
    char nm[40], str[16];
    int sign[8];
    new_name(s, "S", nm);
    blk_open(s, nm, "Sum");
    sum_signs(s, str, n, sign);
    int allplus = 1;
    for (int i = 0; i < n; i++) allplus &= sign[i] > 0;
    if (allplus && !strchr(str, '|') && jg__gen_rpct(R, 50)) jg__gen_sb_printf(&s->blocks, ", \"Inputs\": %d", n);
    else jg__gen_sb_printf(&s->blocks, ", \"Inputs\": \"%s\"", str);
    blk_close(s);
    for (int i = 0; i < n; i++)
        if (i != open) connect(s, in[i], nm, i + 1);
    s->g->info.nsum++;
    if (name_out) strcpy(name_out, nm);
    return add_sig(s, nm, 1, w, hidden);
}

static void act_sum(sys_t *s)
{
    int n = jg__gen_rin(R, 2, 3), in[3];
    int first = pick_any(s), w = s->sig[first].width, at = jg__gen_rin(R, 0, n - 1);
    for (int i = 0; i < n; i++)
        in[i] = i == at ? first : get_sig_w(s, w > 1 && jg__gen_rpct(R, 30) ? 1 : w);
    mk_sum(s, in, n, w, -1, 0, NULL);
}

/* Integrator: forward (input from the pool) or feedback (input pending). */
static void act_integrator(sys_t *s, int feedback)
{
    int in = -1, w;
    if (feedback) {
        w = rand_width(s);
    } else {
        in = pick_any(s);
        w = s->sig[in].width;
    }
    int ic[8], nic = 1;
    /* a feedback integrator's vector width must come from its IC unless
     * widths are left to inference */
    if (w > 1 && ((feedback && !INFER) || jg__gen_rpct(R, 50))) nic = w;
    for (int i = 0; i < nic; i++) ic[i] = jg__gen_rin(R, -200, 200);
    char nm[40];
    new_name(s, "X", nm);
    blk_open(s, nm, "Integrator");
    if (nic == 1 && jg__gen_rpct(R, 10)) {
        /* default InitialCondition 0 */
    } else {
        jg__gen_sb_cat(&s->blocks, ", \"InitialCondition\": ");
        if (nic == 1) sb_h(&s->blocks, ic[0]); else sb_vec(&s->blocks, ic, nic);
    }
    blk_close(s);
    if (feedback) pending(s, nm, 1, w, 1);
    else connect(s, in, nm, 1);
    s->g->info.nintegrator++;
    s->g->info.nstates += w;
    add_sig(s, nm, 1, w, 0);
}

static void act_statespace(sys_t *s, int feedback)
{
    ss_par_t q;
    int in = feedback ? -1 : pick_any(s);
    int m = feedback ? rand_width(s) : s->sig[in].width;
    if (m > 3) m = 3, in = feedback ? -1 : get_sig_w(s, 3);
    int p = VEC ? jg__gen_rin(R, 1, 3) : 1;
    rand_ss(s, &q, m, p, feedback ? 0 : 2, 120, !feedback);
    mk_ss(s, in, &q, feedback ? "feedback" : NULL);
}

static void act_tf(sys_t *s, int feedback)
{
    int in = feedback ? -1 : get_sig_w(s, 1);
    mk_tf(s, in, feedback ? 0 : 2, feedback, NULL, 150);
}

/* Roots as a real vector, or as [re im] rows when there is a complex pair
 * (re[i], im[i]) with im > 0 for the first of the pair. */
static void sb_roots(jg__gen_sb_t *b, const int *re, const int *im, int n, int cplx)
{
    if (!cplx) {
        sb_vec(b, re, n);
        return;
    }
    jg__gen_sb_cat(b, "[");
    for (int i = 0; i < n; i++) {
        int row[2] = {re[i], im[i]};
        if (i) jg__gen_sb_cat(b, ", ");
        sb_vec(b, row, 2);
    }
    jg__gen_sb_cat(b, "]");
}

/* ZeroPole: stable poles (a complex pair sometimes), zeros anywhere, gain.
 * Feedthrough (D = gain) exactly when there are as many zeros as poles. */
static void act_zeropole(sys_t *s, int feedback)
{
    int np = jg__gen_rin(R, 1, 3), nz = feedback ? jg__gen_rin(R, 0, np - 1) : jg__gen_rin(R, 0, np);
    int pre[3], pim[3] = {0}, zre[3], zim[3] = {0}, pc = 0, zc = 0;
    for (int i = 0; i < np; i++) pre[i] = -jg__gen_rin(R, 20, 400);
    if (np >= 2 && jg__gen_rpct(R, 50)) {
        int at = jg__gen_rin(R, 0, np - 2);
        pre[at + 1] = pre[at];
        pim[at] = jg__gen_rin(R, 10, 300);
        pim[at + 1] = -pim[at];
        pc = 1;
    }
    for (int i = 0; i < nz; i++) zre[i] = jg__gen_rin(R, -300, 300);
    if (nz >= 2 && jg__gen_rpct(R, 30)) {
        zre[1] = zre[0];
        zim[0] = jg__gen_rin(R, 10, 200);
        zim[1] = -zim[0];
        zc = 1;
    }
    int k = rng_nz(R, 200);
    char nm[40];
    new_name(s, "ZP", nm);
    blk_open(s, nm, "ZeroPole");
    jg__gen_sb_cat(&s->blocks, ", \"Zeros\": ");
    sb_roots(&s->blocks, zre, zim, nz, zc);
    jg__gen_sb_cat(&s->blocks, ", \"Poles\": ");
    sb_roots(&s->blocks, pre, pim, np, pc);
    jg__gen_sb_cat(&s->blocks, ", \"Gain\": ");
    sb_h(&s->blocks, k);
    blk_close(s);
    if (feedback) pending(s, nm, 1, 1, 0);
    else connect(s, get_sig_w(s, 1), nm, 1);
    s->g->info.nzeropole++;
    s->g->info.nstates += np;
    add_sig(s, nm, 1, 1, 0);
}

static void act_mux(sys_t *s)
{
    int n = jg__gen_rin(R, 2, 3), in[3], tot = 0;
    for (int i = 0; i < n; i++) {
        in[i] = pick_any(s);
        if (tot + s->sig[in[i]].width > 6 - (n - 1 - i)) in[i] = get_sig_w(s, 1);
        tot += s->sig[in[i]].width;
    }
    mk_mux(s, in, n);
}

static int pick_vector(sys_t *s)
{
    for (int t = 0; t < 8; t++) {
        int i = pick_any(s);
        if (s->sig[i].width > 1) return i;
    }
    return get_sig_w(s, jg__gen_rin(R, 2, 4));
}

static void act_demux(sys_t *s)
{
    int in = pick_vector(s), parts[8], out[8];
    int np = compose(s, s->sig[in].width, parts);
    mk_demux(s, in, parts, np, out);
}

static void act_selector(sys_t *s)
{
    int in = pick_any(s), ws = s->sig[in].width, n = jg__gen_rin(R, 1, 4), idx[4];
    for (int i = 0; i < n; i++) idx[i] = jg__gen_rin(R, 1, ws);
    if (n > 1 && jg__gen_rpct(R, 30)) idx[n - 1] = idx[0];   /* a repeated index */
    mk_selector(s, in, idx, n);
}

/* Split a vector with a Demux and recombine the parts in another order
 * (with an extra signal sometimes) with a Mux. */
static int split_recombine(sys_t *s, int in, int extra)
{
    int parts[8], out[8], m[8];
    int np = compose(s, s->sig[in].width, parts);
    mk_demux(s, in, parts, np, out);
    for (int i = 0; i < np; i++) m[i] = out[np - 1 - i];
    if (np > 2 && jg__gen_rpct(R, 50)) {   /* rotate instead of reverse */
        for (int i = 0; i < np; i++) m[i] = out[(i + 1) % np];
    }
    int nm = np;
    if (extra) m[nm++] = get_sig_w(s, 1);
    return mk_mux(s, m, nm);
}

static void act_constant(sys_t *s)
{
    int w = rand_width(s), v[4];
    for (int i = 0; i < w; i++) v[i] = jg__gen_rin(R, -100, 100);
    char nm[40];
    new_name(s, "C", nm);
    blk_open(s, nm, "Constant");
    jg__gen_sb_cat(&s->blocks, ", \"Value\": ");
    if (w == 1) sb_h(&s->blocks, v[0]); else sb_vec(&s->blocks, v, w);
    blk_close(s);
    s->g->info.nconstant++;
    add_sig(s, nm, 1, w, 0);
}

static void act_sink(sys_t *s)
{
    char nm[40];
    if (jg__gen_rpct(R, 50)) {
        new_name(s, "T", nm);
        blk_open(s, nm, "Terminator");
        blk_close(s);
        connect(s, pick_any(s), nm, 1);
    } else {
        int n = jg__gen_rin(R, 1, 2);
        new_name(s, "Scope", nm);
        blk_open(s, nm, "Scope");
        if (n > 1 || jg__gen_rpct(R, 30)) {
            if (jg__gen_rpct(R, 50)) jg__gen_sb_printf(&s->blocks, ", \"NumInputPorts\": \"%d\"", n);
            else jg__gen_sb_printf(&s->blocks, ", \"NumInputPorts\": %d", n);
        }
        blk_close(s);
        for (int i = 0; i < n; i++) connect(s, pick_any(s), nm, i + 1);
    }
    s->g->info.nsink++;
}

static void build_body(sys_t *s, int budget);

static void emit_body(sys_t *s, jg__gen_sb_t *out)
{
    /* "parameters", "blocks" and "lines" of system s, appended to out */
    if (s->nparams) jg__gen_sb_printf(out, ", \"parameters\": {%s}", s->params.s);
    jg__gen_sb_cat(out, ",\n");
    indent(out, s->depth);
    jg__gen_sb_cat(out, "\"blocks\": [\n");
    if (s->blocks.s) jg__gen_sb_catn(out, s->blocks.s, s->blocks.n);
    jg__gen_sb_cat(out, "\n");
    indent(out, s->depth);
    jg__gen_sb_cat(out, "],\n");
    indent(out, s->depth);
    jg__gen_sb_cat(out, "\"lines\": [");
    int first = 1;
    for (int i = 0; i < s->nsig; i++) {
        const sig_t *x = &s->sig[i];
        if (!x->ndst) continue;
        jg__gen_sb_cat(out, first ? "\n" : ",\n");
        first = 0;
        indent(out, s->depth + 1);
        if (x->ndst == 1) jg__gen_sb_printf(out, "{\"src\": \"%s\", \"dst\": %s}", x->src, x->dst.s);
        else jg__gen_sb_printf(out, "{\"src\": \"%s\", \"dst\": [%s]}", x->src, x->dst.s);
    }
    jg__gen_sb_cat(out, "\n");
    indent(out, s->depth);
    jg__gen_sb_cat(out, "]");
}

/* A SubSystem taking k pool signals; its inside is built with `budget`
 * blocks.  Returns the first of its output signals in s. */
static int mk_subsystem(sys_t *s, const int *in, int k, int budget, int nout_want,
                        int inner_gain_loop, long long *norm, int hide)
{
    char nm[40];
    new_name(s, "Sub", nm);
    sys_t t;
    sys_start(&t, s->g, s, s->depth + 1);
    s->g->info.nsubsystems++;
    s->g->info.nblocks++;   /* the SubSystem block itself (written below) */
    if (t.depth > s->g->info.depth) s->g->info.depth = t.depth;
    char pn[40];
    for (int i = 0; i < k; i++) {
        int w = s->sig[in[i]].width;
        snprintf(pn, sizeof pn, "In%d", i + 1);
        blk_open(&t, pn, "Inport");
        jg__gen_sb_printf(&t.blocks, ", \"Port\": %d", i + 1);
        if (jg__gen_rpct(R, 25)) jg__gen_sb_printf(&t.blocks, ", \"PortDimensions\": %d", w);
        blk_close(&t);
        add_sig(&t, pn, 1, w, 0);
    }
    t.nports = k;
    int outs[4], nout;
    if (inner_gain_loop) {
        /* In1 -> Gain -> Out1: a feedthrough element of an algebraic loop */
        int w = s->sig[in[0]].width, kk[4], nk = w > 1 && jg__gen_rpct(R, 50) ? w : 1, mx = 0;
        for (int i = 0; i < nk; i++) {
            kk[i] = rng_nz(R, 100);
            if (iabs(kk[i]) > mx) mx = iabs(kk[i]);
        }
        norm[0] = mx;
        norm[1] = 100;
        outs[0] = mk_gain(&t, 0, kk, nk);
        nout = 1;
        if (jg__gen_rpct(R, 40)) act_integrator(&t, 0);   /* a state beside the loop path */
    } else {
        build_body(&t, budget);
        nout = nout_want;
        for (int j = 0; j < nout; j++) {
            /* prefer unread signals near the end */
            int o = -1;
            for (int i = t.nsig - 1; i >= 0 && i >= t.nsig - 6; i--)
                if (!t.sig[i].ndst && jg__gen_rpct(R, 70)) {
                    o = i;
                    break;
                }
            outs[j] = o >= 0 ? o : pick_any(&t);
        }
    }
    for (int j = 0; j < nout; j++) {
        snprintf(pn, sizeof pn, "Out%d", j + 1);
        blk_open(&t, pn, "Outport");
        jg__gen_sb_printf(&t.blocks, ", \"Port\": %d", j + 1);
        if (jg__gen_rpct(R, 25)) jg__gen_sb_printf(&t.blocks, ", \"PortDimensions\": %d", t.sig[outs[j]].width);
        blk_close(&t);
        connect(&t, outs[j], pn, 1);
    }
    /* the SubSystem block in s */
    if (s->nblk++) jg__gen_sb_cat(&s->blocks, ",\n");
    indent(&s->blocks, s->depth + 1);
    jg__gen_sb_printf(&s->blocks, "{\"name\": \"%s\", \"type\": \"SubSystem\"", nm);
    emit_body(&t, &s->blocks);
    jg__gen_sb_cat(&s->blocks, "}");
    for (int i = 0; i < k; i++) connect(s, in[i], nm, i + 1);
    int first = -1;
    for (int j = 0; j < nout; j++) {
        int o = add_sig(s, nm, j + 1, t.sig[outs[j]].width, hide);
        if (j == 0) first = o;
    }
    sys_free(&t);
    return first;
}

static void act_subsystem(sys_t *s, int budget)
{
    int k = jg__gen_rpct(R, 8) ? 0 : jg__gen_rin(R, 1, 3), in[3];
    for (int i = 0; i < k; i++) in[i] = pick_any(s);
    mk_subsystem(s, in, k, budget, jg__gen_rpct(R, 5) ? 0 : jg__gen_rin(R, 1, 3), 0, NULL, 0);
}

/* An algebraic loop: Sum -> chain of feedthrough elements -> scaled Gain ->
 * back into the Sum. */
static void act_loop(sys_t *s)
{
    int w = VEC ? (jg__gen_rpct(R, 50) ? 1 : jg__gen_rin(R, 2, 3)) : 1;
    int n = jg__gen_rin(R, 2, 3), lp = jg__gen_rin(R, 0, n - 1), in[3];
    int first_other = 1;
    for (int i = 0; i < n; i++) {
        if (i == lp) continue;
        in[i] = get_sig_w(s, first_other || !jg__gen_rpct(R, 30) ? w : 1);
        first_other = 0;
    }
    int sig0 = s->nsig;
    char lname[40];
    int cur = mk_sum(s, in, n, w, lp, 1, lname);
    s->hide_new = 1;   /* nothing outside the loop may read its signals yet */
    long long num = 1, den = 1;   /* bound of the loop gain's infinity norm: num / den */
    int len = jg__gen_rin(R, 0, 3), fix_at = INFER ? -1 : jg__gen_rin(R, 0, len - 1);
    for (int e = 0; e < len; e++) {
        int c;
        if (e == fix_at) {
            c = jg__gen_rin(R, 0, w == 1 ? 2 : 1);   /* 0 Matrix gain, 1 StateSpace, 2 TF */
        } else {
            c = jg__gen_rin(R, 0, 8);
            if (c == 2 && w != 1) c = 3;
            if ((c == 4 || c == 5) && w == 1) c = 3;
            if (c == 7 && s->depth >= s->g->o.max_depth) c = 3;
            if (c == 8) c = 3;
        }
        int out;
        long long en[2] = {1, 1};   /* this element's norm bound en[0] / en[1] */
        if (c == 0) {          /* Matrix(K*u), w x w */
            int k[16];
            rand_sparse(s, k, w, w, 100 / w, 20);
            int mx = 0;
            for (int r = 0; r < w; r++) {
                int rs = 0;
                for (int j = 0; j < w; j++) rs += iabs(k[r * w + j]);
                if (rs > mx) mx = rs;
            }
            out = mk_gain_matrix(s, cur, k, w);
            en[0] = mx;
            en[1] = 100;
        } else if (c == 1) {   /* StateSpace with nonzero D, w -> w */
            ss_par_t q;
            rand_ss(s, &q, w, w, 1, 100 / w, 1);
            int mx = 0;
            for (int r = 0; r < w; r++) {
                int rs = 0;
                for (int j = 0; j < w; j++) rs += iabs(q.d[r * w + j]);
                if (rs > mx) mx = rs;
            }
            out = mk_ss(s, cur, &q, NULL);
            en[0] = mx;
            en[1] = 100;
        } else if (c == 2) {   /* TransferFcn with D != 0 */
            out = mk_tf(s, cur, 1, 0, en, 120);
        } else if (c == 3) {   /* element-wise Gain */
            int k[4], nk = w > 1 && jg__gen_rpct(R, 50) ? w : 1, mx = 0;
            for (int i = 0; i < nk; i++) {
                k[i] = rng_nz(R, 130);
                if (iabs(k[i]) > mx) mx = iabs(k[i]);
            }
            out = mk_gain(s, cur, k, nk);
            en[0] = mx;
            en[1] = 100;
        } else if (c == 4) {   /* Selector permutation with repeats */
            int idx[4];
            for (int i = 0; i < w; i++) idx[i] = jg__gen_rin(R, 1, w);
            out = mk_selector(s, cur, idx, w);
        } else if (c == 5) {   /* Demux / Mux round trip */
            out = split_recombine(s, cur, 0);
        } else if (c == 6) {   /* a second Sum with an outside input */
            int m = 2, at = jg__gen_rin(R, 0, 1), ins[2];
            ins[at] = cur;
            ins[1 - at] = get_sig_w(s, jg__gen_rpct(R, 30) ? 1 : w);
            out = mk_sum(s, ins, m, w, -1, 1, NULL);
        } else {               /* c == 7: through a SubSystem */
            int ins[1] = {cur};
            out = mk_subsystem(s, ins, 1, 0, 1, 1, en, 1);
        }
        cur = out;
        num *= en[0];
        den *= en[1];
    }
    /* the closing Gain g (hundredths): |g| / 100 * num / den <= 0.85, in
     * integers so that every machine makes the same choice */
    long long gm = 85 * den / num;
    int gmax = gm > 120 ? 120 : (int)gm;
    if (gmax < 1)
        jg__gen_fail(&s->g->mem, JG_INTERNAL, "random diagram: loop norm bound %lld/%lld too large", num, den);
    int g = jg__gen_rin(R, gmax / 3 > 0 ? gmax / 3 : 1, gmax);
    if (jg__gen_rpct(R, 50)) g = -g;
    int back;
    if (len == 0 && !INFER) {   /* Sum -> Matrix(K*u) with K = g I -> Sum */
        int k[16] = {0};
        for (int i = 0; i < w; i++) k[i * w + i] = g;
        back = mk_gain_matrix(s, cur, k, w);
    } else {
        back = mk_gain(s, cur, &g, 1);
    }
    connect(s, back, lname, lp + 1);
    s->hide_new = 0;
    for (int i = sig0; i < s->nsig; i++) s->sig[i].hidden = 0;
    s->g->info.nloops++;
}

/* Close the pending inputs of s (feedback paths). */
static void resolve_pending(sys_t *s)
{
    for (int i = 0; i < s->npend; i++) {
        pend_t p = s->pend[i];   /* copy: adapt() may add more pendings? (it does not) */
        int w = p.width, src;
        if (p.needfix && !INFER) {
            /* the driver fixes its own widths: Matrix gain, StateSpace, TF */
            int c = jg__gen_rin(R, 0, w == 1 ? 2 : 1);
            int in = pick_any(s);
            if (c == 0) {
                int k[64], ws = s->sig[in].width;
                rand_sparse(s, k, w, ws, 100, 25);
                src = mk_gain_matrix(s, in, k, w);
            } else if (c == 1) {
                ss_par_t q;
                if (s->sig[in].width > 3) in = get_sig_w(s, 3);
                rand_ss(s, &q, s->sig[in].width, w, 2, 100, 1);
                src = mk_ss(s, in, &q, NULL);
            } else {
                src = mk_tf(s, get_sig_w(s, 1), 2, 0, NULL, 150);
            }
        } else {
            src = jg__gen_rpct(R, 60) ? get_sig_w(s, w) : adapt(s, jg__gen_rin(R, 0, s->nsig - 1), w);
        }
        char blk[48];
        int port;
        const char *colon = strrchr(p.dst, ':');
        snprintf(blk, sizeof blk, "%.*s", (int)(colon - p.dst), p.dst);
        port = atoi(colon + 1);
        connect(s, src, blk, port);
        s->g->info.nfeedback++;
    }
    s->npend = 0;
}

static void build_body(sys_t *s, int budget)
{
    gen_t *g = s->g;
    int start = g->info.nblocks;
    if (!s->nsig) {   /* no Inports: start from a Constant or a state */
        if (jg__gen_rpct(R, 50)) act_constant(s); else act_integrator(s, 1);
    }
    while (g->info.nblocks - start < budget && g->info.nblocks < g->o.nblocks) {
        int left = budget - (g->info.nblocks - start);
        int c = jg__gen_rin(R, 0, 99);
        if (c < 17) act_gain(s);
        else if (c < 30) act_sum(s);
        else if (c < 37) act_integrator(s, 0);
        else if (c < 43) act_integrator(s, 1);
        else if (c < 48) act_statespace(s, 0);
        else if (c < 50) act_statespace(s, 1);
        else if (c < 53) act_tf(s, 0);
        else if (c < 54) act_zeropole(s, 0);
        else if (c < 55) act_tf(s, 1);
        else if (c < 56) act_zeropole(s, 1);
        else if (c < 60) { if (VEC) act_mux(s); else act_gain(s); }
        else if (c < 63) { if (VEC) act_demux(s); else act_sum(s); }
        else if (c < 67) { if (VEC) act_selector(s); else act_gain(s); }
        else if (c < 70) {
            if (VEC) {
                int in = pick_vector(s);
                split_recombine(s, in, s->sig[in].width < 6 && jg__gen_rpct(R, 30));
            } else {
                act_integrator(s, 0);
            }
        }
        else if (c < 72) act_constant(s);
        else if (c < 74) act_sink(s);
        else if (c < 84) {
            if (s->depth < g->o.max_depth && left >= 8) {
                int inner = jg__gen_rin(R, 3, left * 2 / 3 > 3 ? left * 2 / 3 : 3);
                if (inner > 3 && jg__gen_rpct(R, 50)) inner = jg__gen_rin(R, 3, inner);
                act_subsystem(s, inner);
            } else {
                act_gain(s);
            }
        } else if (c < 91) {
            if (g->o.loops) act_loop(s); else act_sum(s);
        } else {
            act_gain(s);
        }
    }
    resolve_pending(s);
}

/* ------------------------------------------------------------------ API */

void jg_gen_random_defaults(jg_gen_random_opts_t *o, uint64_t seed, int nblocks)
{
    memset(o, 0, sizeof *o);
    o->seed = seed;
    o->nblocks = nblocks;
    o->max_depth = 2;
    o->vectors = 1;
    o->loops = 1;
}

/* The whole model into *out (g->mem owns it); returns through the jump on
 * failure. */
static void build(gen_t *g, jg__gen_sb_t *out)
{
    const jg_gen_random_opts_t *opts = &g->o;
    sys_t root, *s = &root;
    sys_start(&root, g, NULL, 0);
    int nin = jg__gen_rpct(R, 4) ? 0 : jg__gen_rin(R, 1, 3), nout = jg__gen_rpct(R, 4) ? 0 : jg__gen_rin(R, 1, 3);
    char nm[40];
    for (int i = 0; i < nin; i++) {
        int w = i == 0 || !jg__gen_rpct(R, 50) ? rand_width(s) : 1;
        snprintf(nm, sizeof nm, "In%d", i + 1);
        blk_open(s, nm, "Inport");
        jg__gen_sb_printf(&s->blocks, ", \"Port\": %d", i + 1);
        if (w > 1 || jg__gen_rpct(R, 20)) jg__gen_sb_printf(&s->blocks, ", \"PortDimensions\": %d", w);
        blk_close(s);
        add_sig(s, nm, 1, w, 0);
    }
    s->nports = nin;
    build_body(s, g->o.nblocks - nin - nout);
    for (int j = 0; j < nout; j++) {
        int o = -1;
        for (int i = s->nsig - 1; i >= 0 && i >= s->nsig - 8; i--)
            if (!s->sig[i].ndst && jg__gen_rpct(R, 70)) {
                o = i;
                break;
            }
        if (o < 0) o = pick_any(s);
        snprintf(nm, sizeof nm, "Out%d", j + 1);
        blk_open(s, nm, "Outport");
        jg__gen_sb_printf(&s->blocks, ", \"Port\": %d", j + 1);
        blk_close(s);
        connect(s, o, nm, 1);
    }
    jg__gen_sb_printf(out,
              "{\"name\": \"gen_%llu\",\n  \"description\": \"gen_model seed %llu, %d blocks, "
              "depth %d, vectors %d, loops %d, infer_widths %d\"",
              (unsigned long long)opts->seed, (unsigned long long)opts->seed, opts->nblocks,
              g->o.max_depth, g->o.vectors, g->o.loops, g->o.infer_widths);
    emit_body(s, out);
    jg__gen_sb_cat(out, "\n}\n");
    sys_free(s);
}

/* build() under the failure jump: no local here changes after setjmp. */
static jg_status_t run(gen_t *g, jg__gen_sb_t *out, char **json)
{
    if (setjmp(g->mem.fail)) {
        jg__gen_free_all(&g->mem);
        return g->mem.st;
    }
    build(g, out);
    *json = jg__gen_release(&g->mem, out->s);
    jg__gen_free_all(&g->mem);   /* nothing is left; a guard against a leak */
    return JG_OK;
}

jg_status_t jg_gen_random(const jg_gen_random_opts_t *opts, char **json, jg_gen_random_info_t *info,
                          jg_error_t *err)
{
    jg_status_t st = JG_OK;
    *json = NULL;
    if (opts->nblocks < 1) return jg_error_set(err, JG_ARG, "random diagram: %d blocks", opts->nblocks);
    gen_t *g = calloc(1, sizeof *g);   /* on the heap: it outlives the jump unchanged */
    jg__gen_sb_t *out = calloc(1, sizeof *out);
    if (!g || !out) {
        st = jg_error_set(err, JG_NOMEM, "random diagram: out of memory");
        goto done;
    }
    g->o = *opts;
    if (g->o.max_depth < 0) g->o.max_depth = 0;
    g->r.s = opts->seed * 0x2545F4914F6CDD1Dull + 0x1234567ull;
    jg__gen_mem_init(&g->mem, err);
    jg__gen_sb_init(out, &g->mem);
    st = run(g, out, json);
    if (!st && info) *info = g->info;
done:
    free(out);
    free(g);
    return st;
}
