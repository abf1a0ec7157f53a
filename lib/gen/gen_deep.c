/* gen_deep.c -- `jacgraph generate deep`: SubSystems nested 10-50 levels with a
 * fed-back state at every level (docs/generator.md, section 2). */
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

#define DEEP_LVL 10   /* blocks a level needs at least (with its ports) */

static void deep_action(jg__gen_sys_t *s)
{
    if (jg__gen_need_state(s)) {
        int w = jg__gen_rin(RNG, 1, 2);
        jg__gen_mk_integrator(s, jg__gen_rpct(RNG, 70) ? -1 : jg__gen_get_w(s, w), w);
        return;
    }
    int r = jg__gen_rin(RNG, 0, 99);
    if (r < 40) jg__gen_act_gain(s);
    else if (r < 70) jg__gen_act_sum(s);
    else if (r < 80) jg__gen_act_sel(s);
    else if (r < 88) jg__gen_act_mux(s);
    else jg__gen_act_matrix(s);
}

static void deep_content(jg__gen_sys_t *s, int64_t B, int L, int wm, int64_t *om);

/* Child SubSystem of about b blocks: input 1 the main signal, input 2 the
 * bypass one (passed straight down); outputs main (width wm) and bypass. */
static int64_t deep_child(jg__gen_sys_t *s, int64_t b, int L, int main_in, int byp_in, int wm,
                          int *out_main, int *out_byp)
{
    jg__gen_t *g = s->g;
    int64_t before = g->nblocks, om[2];
    char name[16];
    int fb = SG(main_in).fb > SG(byp_in).fb ? SG(main_in).fb : SG(byp_in).fb;
    int wb = SG(byp_in).w;
    jg__gen_new_name(s, "M", name);
    jg__gen_sys_t c;
    jg__gen_sub_open(s, &c, name);
    jg__gen_add_inport(&c, SG(main_in).w, SG(main_in).mag);
    jg__gen_add_inport(&c, wb, SG(byp_in).mag);
    deep_content(&c, b - (g->nblocks - before), L, wm, om);
    jg__gen_sub_close(&c);
    jg__gen_connect(s, main_in, name, 1);
    jg__gen_connect(s, byp_in, name, 2);
    *out_main = jg__gen_add_sig(s, name, 1, wm, om[0], fb);
    *out_byp = jg__gen_add_sig(s, name, 2, wb, om[1], fb);
    return g->nblocks - before;
}

/* s has I1 (main, sig 0) and I2 (bypass, sig 1); about B more blocks. */
static void deep_content(jg__gen_sys_t *s, int64_t B, int L, int wm, int64_t *om)
{
    jg__gen_t *g = s->g;
    int64_t end = g->nblocks + B;
    if (L <= 0 || B < 2 * DEEP_LVL) {
        /* innermost level: some dynamics on the main signal; the bypass gets
         * one real block, so a signal crosses every level down and up */
        jg__gen_mk_gain(s, 0, jg__gen_rsgn(RNG, 30, 120));
        while (end - g->nblocks - s->npend - 4 > 0) deep_action(s);
        jg__gen_close_pending(s);
        int y = jg__gen_absorb(s, jg__gen_get_w(s, wm), 6);
        om[0] = SG(y).mag;
        jg__gen_add_outport(s, y);
        int k = jg__gen_mk_gain(s, 1, jg__gen_rsgn(RNG, 30, 100));
        om[1] = SG(k).mag;
        jg__gen_add_outport(s, k);
        return;
    }
    int64_t need = (int64_t)L * DEEP_LVL, local;
    int c = 1;
    if (B - 20 >= 2 * need) {
        int64_t cm = (B - 20) / need;
        c = jg__gen_rin(RNG, 2, cm > 4 ? 4 : (int)cm);
        local = jg__gen_rin(RNG, 10, 20);
    } else {
        local = B / (L + 1);
        if (local < DEEP_LVL) local = DEEP_LVL;
    }
    int64_t lstart = g->nblocks;
    /* this level: main -> Gain -> (+ Integrator fed back from below) */
    int x = jg__gen_mk_gain(s, 0, jg__gen_rsgn(RNG, 30, 120));
    {   /* every level has a state, fed back from what the levels below return */
        int w = SG(x).w, in[2] = {x, jg__gen_mk_integrator(s, -1, w)}, sg[2] = {1, jg__gen_rpct(RNG, 50) ? 1 : -1};
        x = jg__gen_mk_sum(s, in, sg, 2);
    }
    while (g->nblocks - lstart < local / 2 - 2) deep_action(s);
    x = jg__gen_tame(s, x);
    int64_t kids = end - g->nblocks - (local - (g->nblocks - lstart)), used = 0;
    int mo[4], bo[4];
    for (int k = 0; k < c; k++) {
        int64_t left = kids - used, b = left;
        if (k < c - 1) b = left / (c - k) * jg__gen_rin(RNG, 80, 120) / 100;
        int wk = jg__gen_rpct(RNG, 70) ? SG(x).w : jg__gen_rin(RNG, 1, 3);
        int in = jg__gen_adapt(s, x, wk);
        int wo = jg__gen_rpct(RNG, 70) ? wk : jg__gen_rin(RNG, 1, 3);
        used += deep_child(s, b, L - 1, in, 1, wo, &mo[k], &bo[k]);
    }
    /* back up: the children's main outputs (and extra bypasses) summed */
    int in[8], sg[8], n = 0;
    for (int k = 0; k < c; k++) {
        in[n] = jg__gen_tame(s, jg__gen_adapt(s, mo[k], wm));
        sg[n++] = jg__gen_rpct(RNG, 70) ? 1 : -1;
        if (k) {
            in[n] = jg__gen_adapt(s, bo[k], wm);
            sg[n++] = 1;
        }
    }
    int y = n > 1 ? jg__gen_mk_sum(s, in, sg, n) : in[0];
    while (end - g->nblocks - s->npend - 3 > 0) deep_action(s);
    jg__gen_close_pending(s);
    y = jg__gen_absorb(s, jg__gen_adapt(s, y, wm), 6);
    om[0] = SG(y).mag;
    jg__gen_add_outport(s, y);
    om[1] = SG(bo[0]).mag;   /* the bypass goes straight up */
    jg__gen_add_outport(s, bo[0]);
}

void jg__gen_deep(jg__gen_t *g, int64_t N, int depth, const char *name)
{
    jg__gen_root_open(g, name, "jacgraph generate deep: deeply nested SubSystems");
    jg__gen_sys_t s;
    jg__gen_sys_init(&s, g, 0);
    g->state_rate = 15;
    int D = depth > 0 ? depth : jg__gen_rin(&g->r, 10, 50);
    int64_t cap = (N - 10) / DEEP_LVL;
    if (D > cap) D = cap < 0 ? 0 : (int)cap;
    jg__gen_add_inport(&s, 3, 100);
    jg__gen_add_inport(&s, 2, 100);
    int64_t om[2];
    deep_content(&s, N - 2, D, 3, om);
    jg__gen_root_close(&s);
    jg__gen_sys_free(&s);
}

