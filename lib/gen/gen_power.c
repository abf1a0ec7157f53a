/* gen_power.c -- `jacgraph generate power`: bus networks, one diagonally dominant
 * linear algebraic loop per area, machines and tie lines (docs/generator.md,
 * section 2).  The bus networks are the only algebraic loops the generator
 * makes: row sums of |loop gain| <= 0.8. */
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

#define PW_MAXDEG 16

/* A generator (machine) SubSystem: inputs bus voltage v (and a reference),
 * output the injection.  Speed W and angle A Integrators, governor TF:
 * no direct feedthrough from v to the injection. */
static void power_gen(jg__gen_sys_t *s, const char *name, int ref, int angle)
{
    jg__gen_t *g = s->g;
    jg__gen_rng_t *r = &g->r;
    jg__gen_sys_t c;
    char b[24];
    jg__gen_sub_open(s, &c, name);
    jg__gen_add_inport(&c, 1, 100);
    if (ref) jg__gen_add_inport(&c, 1, 100);
    int tf2 = jg__gen_rpct(r, 30);
    jg__gen_blk_begin(&c, "Pe", "Gain");
    jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, jg__gen_rin(r, 20, 150)));
    jg__gen_blk_end(&c);
    jg__gen_blk_begin(&c, "Ac", "Sum");
    jg__gen_outs(g, ",\"Inputs\":\"+--\"");
    jg__gen_blk_end(&c);
    jg__gen_blk_begin(&c, "W", "Integrator");
    jg__gen_out(g, ",\"InitialCondition\":%s", jg__gen_fh(b, jg__gen_rin(r, -50, 50)));
    jg__gen_blk_end(&c);
    jg__gen_blk_begin(&c, "Dw", "Gain");   /* Matrix(K*u): fixes the width in the W loop */
    jg__gen_out(g, ",\"Gain\":[[%s]],\"Multiplication\":\"Matrix(K*u)\"", jg__gen_fh(b, jg__gen_rin(r, 20, 200)));
    jg__gen_blk_end(&c);
    jg__gen_blk_begin(&c, "Rw", "Gain");
    jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, jg__gen_rin(r, 50, 300)));
    jg__gen_blk_end(&c);
    if (ref) {
        jg__gen_blk_begin(&c, "Gv", "Sum");
        jg__gen_outs(g, ",\"Inputs\":\"+-\"");
        jg__gen_blk_end(&c);
    }
    jg__gen_blk_begin(&c, "Tg", "TransferFcn");
    int num = jg__gen_rin(r, 50, 150) * (ref ? 1 : -1), den[3];
    if (tf2) {
        den[0] = 100;
        den[1] = jg__gen_rin(r, 50, 400);
        den[2] = jg__gen_rin(r, 50, 400);
        jg__gen_out(g, ",\"Numerator\":[%s]", jg__gen_fh(b, num));
        jg__gen_outs(g, ",\"Denominator\":");
        jg__gen_out_vec(g, den, 3);
    } else {
        jg__gen_out(g, ",\"Numerator\":[%s]", jg__gen_fh(b, num));
        den[0] = jg__gen_rin(r, 20, 300);
        den[1] = 100;
        jg__gen_outs(g, ",\"Denominator\":");
        jg__gen_out_vec(g, den, 2);
    }
    jg__gen_blk_end(&c);
    if (angle) {
        jg__gen_blk_begin(&c, "A", "Integrator");
        jg__gen_out(g, ",\"InitialCondition\":%s", jg__gen_fh(b, jg__gen_rin(r, -30, 30)));
        jg__gen_blk_end(&c);
    }
    jg__gen_blk_begin(&c, "Go", "Gain");
    jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, jg__gen_rin(r, 20, 150)));
    jg__gen_blk_end(&c);
    jg__gen_add_outport_src(&c, "Go:1", 1);
    g->nstates += 1 + (tf2 ? 2 : 1) + angle;
    jg__gen_link(&c, "I1:1", "Pe", 1);
    jg__gen_link(&c, "Tg:1", "Ac", 1);
    jg__gen_link(&c, "Pe:1", "Ac", 2);
    jg__gen_link(&c, "Dw:1", "Ac", 3);
    jg__gen_link(&c, "Ac:1", "W", 1);
    jg__gen_link(&c, "W:1", "Dw", 1);
    jg__gen_link(&c, "W:1", "Rw", 1);
    if (ref) {
        jg__gen_link(&c, "I2:1", "Gv", 1);
        jg__gen_link(&c, "Rw:1", "Gv", 2);
        jg__gen_link(&c, "Gv:1", "Tg", 1);
    } else {
        jg__gen_link(&c, "Rw:1", "Tg", 1);
    }
    if (angle) {
        jg__gen_link(&c, "W:1", "A", 1);
        jg__gen_link(&c, "A:1", "Go", 1);
    } else {
        jg__gen_link(&c, "W:1", "Go", 1);
    }
    jg__gen_sub_close(&c);
}

/* TransferFcn "T<k>" num/(den s + 1) fed by src: a machine (small models) or
 * a tie line as a first-order lag, num in [20, num_hi], den in [den_lo, den_hi]. */
static void power_lag(jg__gen_sys_t *s, int k, const char *src, int num_hi, int den_lo, int den_hi)
{
    jg__gen_t *g = s->g;
    char b[24], nm[32];
    snprintf(nm, sizeof nm, "T%d", k);
    jg__gen_blk_begin(s, nm, "TransferFcn");
    jg__gen_out(g, ",\"Numerator\":[%s]", jg__gen_fh(b, jg__gen_rin(&g->r, 20, num_hi)));
    jg__gen_out(g, ",\"Denominator\":[%s,1]", jg__gen_fh(b, jg__gen_rin(&g->r, den_lo, den_hi)));
    jg__gen_blk_end(s);
    g->nstates++;
    jg__gen_link(s, src, nm, 1);
}

/* An area: nb buses, v_i = k_i (injections + sum_j g_ij v_j - y_i v_i), with
 * k_i (y_i + sum_j |g_ij|) <= 0.8: one diagonally dominant linear algebraic
 * loop.  Ports: I1 tie injection into bus 1 (scalar), I2 generator references
 * (width 3); O1 voltage of bus 1, O2 three bus voltages (width 3). */
static void power_area(jg__gen_sys_t *s, int64_t B)
{
    jg__gen_t *g = s->g;
    jg__gen_rng_t *r = &g->r;
    int full = g->pw_full;
    char b[24], nm[32], src[32];
    jg__gen_add_inport(s, 1, 100);
    if (full) jg__gen_add_inport(s, 3, 100);
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
    int(*adj)[PW_MAXDEG] = jg__gen_realloc(&g->mem, NULL, sizeof *adj * (size_t)nb);
    int(*adm)[PW_MAXDEG] = jg__gen_realloc(&g->mem, NULL, sizeof *adm * (size_t)nb);
    int *deg = jg__gen_calloc(&g->mem, (size_t)nb, sizeof *deg);
    int *gen = jg__gen_calloc(&g->mem, (size_t)nb, sizeof *gen);
#define PW_EDGE(a_, b_)                                  \
    do {                                                 \
        int v_ = jg__gen_rin(r, 20, 150);                        \
        adj[a_][deg[a_]] = b_, adm[a_][deg[a_]++] = v_;  \
        adj[b_][deg[b_]] = a_, adm[b_][deg[b_]++] = v_;  \
    } while (0)
    if (nb == 2) PW_EDGE(0, 1);
    if (nb >= 3)
        for (int i = 0; i < nb; i++) PW_EDGE(i, (i + 1) % nb);
    int64_t cnt = 3 * nb + 2 * (nb == 1 ? 0 : nb == 2 ? 1 : nb);
    /* gen[i]: 0 none, 1 generator, 2 generator with an angle state (full) */
    for (int i = 0; i < nb; i++) {
        if (!jg__gen_rpct(r, genpct)) continue;
        gen[i] = full && jg__gen_rpct(r, 50) ? 2 : 1;
        cnt += full ? gensz + gen[i] - 1 : 1;
    }
    for (int i = nb - 1; i >= 0 && cnt > avail; i--)   /* over budget: fewer machines */
        if (gen[i]) {
            cnt -= full ? gensz + gen[i] - 1 : 1;
            gen[i] = 0;
        }
    /* under budget: chords (2 blocks each), then machines on more buses */
    for (int t = 0; nb >= 4 && cnt + 2 <= avail && t < 8 * nb; t++) {
        int x = jg__gen_rin(r, 0, nb - 1), y = jg__gen_rin(r, 0, nb - 1), dup = x == y;
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
        int y = jg__gen_rin(r, 10, 100), tot = y;
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
        jg__gen_blk_begin(s, nm, "Sum");
        jg__gen_out(g, ",\"Inputs\":\"%s\"", str);
        jg__gen_blk_end(s);
        int port = 1;
        if (gen[i]) {
            snprintf(src, sizeof src, "%s%d:1", full ? "M" : "T", i + 1);
            jg__gen_link(s, src, nm, port++);
        }
        if (i == 0) jg__gen_link(s, "I1:1", nm, port++);
        snprintf(src, sizeof src, "L%d:1", i + 1);
        jg__gen_link(s, src, nm, port++);
        for (int d = 0; d < deg[i]; d++) {
            snprintf(src, sizeof src, "Y%d_%d:1", i + 1, adj[i][d] + 1);
            jg__gen_link(s, src, nm, port++);
        }
        snprintf(nm, sizeof nm, "K%d", i + 1);   /* Matrix(K*u): fixes the loop widths */
        jg__gen_blk_begin(s, nm, "Gain");
        jg__gen_out(g, ",\"Gain\":[[%s]],\"Multiplication\":\"Matrix(K*u)\"", jg__gen_fh(b, k));
        jg__gen_blk_end(s);
        snprintf(src, sizeof src, "B%d:1", i + 1);
        jg__gen_link(s, src, nm, 1);
        snprintf(src, sizeof src, "K%d:1", i + 1);
        snprintf(nm, sizeof nm, "L%d", i + 1);
        jg__gen_blk_begin(s, nm, "Gain");
        jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, y));
        jg__gen_blk_end(s);
        jg__gen_link(s, src, nm, 1);
        for (int d = 0; d < deg[i]; d++) {   /* line j -> i reads v_j */
            snprintf(nm, sizeof nm, "Y%d_%d", i + 1, adj[i][d] + 1);
            jg__gen_blk_begin(s, nm, "Gain");
            jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, adm[i][d]));
            jg__gen_blk_end(s);
            snprintf(src, sizeof src, "K%d:1", adj[i][d] + 1);
            jg__gen_link(s, src, nm, 1);
        }
        if (gen[i] && full) {
            snprintf(nm, sizeof nm, "R%d", i + 1);
            jg__gen_blk_begin(s, nm, "Selector");
            jg__gen_out(g, ",\"Indices\":[%d],\"InputPortWidth\":3", jg__gen_rin(r, 1, 3));
            jg__gen_blk_end(s);
            jg__gen_link(s, "I2:1", nm, 1);
            snprintf(nm, sizeof nm, "M%d", i + 1);
            power_gen(s, nm, 1, gen[i] == 2);
            snprintf(src, sizeof src, "K%d:1", i + 1);
            jg__gen_link(s, src, nm, 1);
            snprintf(src, sizeof src, "R%d:1", i + 1);
            jg__gen_link(s, src, nm, 2);
        } else if (gen[i]) {   /* small models: the machine as a lag */
            snprintf(src, sizeof src, "K%d:1", i + 1);
            power_lag(s, i + 1, src, 150, 20, 300);
        }
    }
    g->nloops++;
    if (full) {
        jg__gen_blk_begin(s, "X", "Mux");
        jg__gen_outs(g, ",\"Inputs\":3");
        jg__gen_blk_end(s);
        for (int q = 0; q < 3; q++) {
            snprintf(src, sizeof src, "K%d:1", q * nb / 3 + 1);
            jg__gen_link(s, src, "X", q + 1);
        }
    }
    jg__gen_add_outport_src(s, "K1:1", 1);
    if (full) jg__gen_add_outport_src(s, "X:1", 3);
    jg__gen_free(&g->mem, adj);
    jg__gen_free(&g->mem, adm);
    jg__gen_free(&g->mem, deg);
    jg__gen_free(&g->mem, gen);
}

/* A grid system with the area's ports: an area, or a cell of 2-8 grid
 * systems joined in a ring by tie lines (difference of boundary voltages
 * through a lag TransferFcn: no feedthrough, so every area stays its own
 * algebraic loop). */
static void power_grid(jg__gen_sys_t *s, int64_t B)
{
    jg__gen_t *g = s->g;
    jg__gen_rng_t *r = &g->r;
    int64_t area_max = jg__gen_rin(r, 250, 800);
    if (B <= area_max || !g->pw_full) {
        power_area(s, B);
        return;
    }
    char nm[32], src[32], b[24];
    int64_t c64 = B / 500;
    int cmax = jg__gen_rin(r, 4, 8);
    int c = c64 < 2 ? 2 : c64 > cmax ? cmax : (int)c64;
    int nt = c == 2 ? 1 : c;
    jg__gen_add_inport(s, 1, 100);
    jg__gen_add_inport(s, 3, 100);
    int64_t glue = 2 + c + 2 * nt + 2 + 2, kids = B - glue, used = 0;
    for (int k = 0; k < c; k++) {
        int64_t left = kids - used, bk = left;
        if (k < c - 1) bk = left / (c - k) * jg__gen_rin(r, 70, 130) / 100;
        jg__gen_sys_t ch;
        int64_t before = g->nblocks;
        snprintf(nm, sizeof nm, "C%d", k + 1);
        jg__gen_sub_open(s, &ch, nm);
        power_grid(&ch, bk - 1);
        jg__gen_sub_close(&ch);
        used += g->nblocks - before;
        snprintf(src, sizeof src, "U%d:1", k + 1);
        jg__gen_link(s, src, nm, 1);
        jg__gen_link(s, "I2:1", nm, 2);
    }
    for (int t = 0; t < nt; t++) {
        int a = t, bb = (t + 1) % c;
        snprintf(nm, sizeof nm, "E%d", t + 1);
        jg__gen_blk_begin(s, nm, "Sum");
        jg__gen_outs(g, ",\"Inputs\":\"+-\"");
        jg__gen_blk_end(s);
        snprintf(src, sizeof src, "C%d:1", a + 1);
        jg__gen_link(s, src, nm, 1);
        snprintf(src, sizeof src, "C%d:1", bb + 1);
        jg__gen_link(s, src, nm, 2);
        snprintf(src, sizeof src, "E%d:1", t + 1);
        power_lag(s, t + 1, src, 100, 10, 200);
    }
    for (int k = 0; k < c; k++) {   /* tie injections into child k */
        char str[8];
        int n = 0;
        snprintf(nm, sizeof nm, "U%d", k + 1);
        if (k == 0) {
            str[n++] = '+';
            jg__gen_link(s, "I1:1", nm, n);
        }
        for (int t = 0; t < nt; t++) {
            int a = t, bb = (t + 1) % c;
            if (a != k && bb != k) continue;
            str[n++] = a == k ? '-' : '+';
            snprintf(src, sizeof src, "T%d:1", t + 1);
            jg__gen_link(s, src, nm, n);
        }
        str[n] = '\0';
        jg__gen_blk_begin(s, nm, "Sum");
        jg__gen_out(g, ",\"Inputs\":\"%s\"", str);
        jg__gen_blk_end(s);
    }
    jg__gen_blk_begin(s, "Z", "Sum");   /* measurements: the children's, averaged */
    jg__gen_out(g, ",\"Inputs\":%d", c);
    jg__gen_blk_end(s);
    for (int k = 0; k < c; k++) {
        snprintf(src, sizeof src, "C%d:2", k + 1);
        jg__gen_link(s, src, "Z", k + 1);
    }
    jg__gen_blk_begin(s, "ZG", "Gain");
    jg__gen_out(g, ",\"Gain\":%s", jg__gen_fh(b, 100 / c));
    jg__gen_blk_end(s);
    jg__gen_link(s, "Z:1", "ZG", 1);
    jg__gen_add_outport_src(s, "C1:1", 1);
    jg__gen_add_outport_src(s, "ZG:1", 3);
}

void jg__gen_power(jg__gen_t *g, int64_t N, const char *name)
{
    jg__gen_root_open(g, name, "jacgraph generate power: bus networks with algebraic loops");
    jg__gen_sys_t s;
    jg__gen_sys_init(&s, g, 0);
    g->pw_full = N >= 150;
    power_grid(&s, N);
    jg__gen_root_close(&s);
    jg__gen_sys_free(&s);
}

