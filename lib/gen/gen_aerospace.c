/* gen_aerospace.c -- `jacgraph generate aerospace`: flight-control-like hierarchies
 * of many small SubSystems (docs/generator.md, section 2). */
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

#define AERO_LEAF 12   /* blocks of a typical innermost SubSystem */

static void aero_action(jg__gen_sys_t *s)
{
    if (jg__gen_need_state(s)) {
        jg__gen_act_state(s);
        return;
    }
    int r = jg__gen_rin(RNG, 0, 99);
    if (r < 28) jg__gen_act_gain(s);
    else if (r < 50) jg__gen_act_sum(s);
    else if (r < 62) jg__gen_act_mux(s);
    else if (r < 72) jg__gen_act_demux(s);
    else if (r < 90) jg__gen_act_sel(s);
    else jg__gen_act_matrix(s);
}

static void aero_content(jg__gen_sys_t *s, int64_t B, int L, int nout, const int *ow, int64_t *om);

/* A child SubSystem with about b blocks (itself included), reading 1-3
 * signals of s and adding 1-3 outputs to it. */
static int64_t aero_child(jg__gen_sys_t *s, int64_t b, int L)
{
    jg__gen_t *g = s->g;
    int64_t before = g->nblocks;
    int nin = jg__gen_rin(RNG, 1, 3), nout = jg__gen_rin(RNG, 1, 3), in[3], ow[3], fb = -1;
    int64_t om[3];
    if (b < 10) nin = nout = 1;
    for (int i = 0; i < nin; i++) {
        in[i] = jg__gen_pick(s);
        fb = SG(in[i]).fb > fb ? SG(in[i]).fb : fb;
    }
    for (int k = 0; k < nout; k++) ow[k] = jg__gen_rpct(RNG, 40) ? 1 : jg__gen_vwidth[jg__gen_rin(RNG, 0, 5)];
    char name[16];
    jg__gen_new_name(s, "M", name);
    jg__gen_sys_t c;
    jg__gen_sub_open(s, &c, name);
    for (int i = 0; i < nin; i++) jg__gen_add_inport(&c, SG(in[i]).w, SG(in[i]).mag);
    aero_content(&c, b - (g->nblocks - before), L, nout, ow, om);
    jg__gen_sub_close(&c);
    for (int i = 0; i < nin; i++) jg__gen_connect(s, in[i], name, i + 1);
    for (int k = 0; k < nout; k++) jg__gen_add_sig(s, name, k + 1, ow[k], om[k], fb);
    return g->nblocks - before;
}

/* Content of s (Inports already made) with about B more blocks: children if
 * L > 0 and there is room, glue, feedback closure, then the Outports. */
static void aero_content(jg__gen_sys_t *s, int64_t B, int L, int nout, const int *ow, int64_t *om)
{
    jg__gen_t *g = s->g;
    int64_t end = g->nblocks + B, avail = B - 2 * nout;
    int c = 0;
    if (L > 0 && avail > 20) {
        c = jg__gen_iroot_ceil(avail / AERO_LEAF, L);
        if (c < 2) c = 2;
        if (c > 40) c = 40;
    }
    if (c) {
        int64_t kids = avail - 3 * c - 2, used = 0;
        for (int k = 0; k < c; k++) {
            for (int n = jg__gen_rin(RNG, 0, 2); n > 0; n--) aero_action(s);
            int64_t left = kids - used, b = left;
            if (k < c - 1) b = left / (c - k) * jg__gen_rin(RNG, 60, 140) / 100;
            if (b < 5) break;
            int Lc = L - 1;
            if (Lc > 0 && b <= 40 && jg__gen_rpct(RNG, 30)) Lc = 0;   /* some branches end early */
            used += aero_child(s, b, Lc);
        }
    }
    while (end - g->nblocks - s->npend - 2 * nout > 0) aero_action(s);
    jg__gen_close_pending(s);
    jg__gen_finish_outports(s, nout, ow, om);
}

void jg__gen_aerospace(jg__gen_t *g, int64_t N, const char *name)
{
    jg__gen_root_open(g, name, "jacgraph generate aerospace: flight-control-like hierarchy");
    jg__gen_sys_t s;
    jg__gen_sys_init(&s, g, 0);
    g->state_rate = 35;
    int nin = N < 30 ? 1 : N < 300 ? 2 : N < 100000 ? 3 : 4;
    int nout = N < 30 ? 1 : N < 300 ? 2 : 3;
    static const int iw[] = {3, 1, 4, 2}, ow[] = {3, 1, 6};
    for (int i = 0; i < nin; i++) jg__gen_add_inport(&s, iw[i], 100);
    int L = N < 40 ? 0 : 4;
    aero_content(&s, N - nin, L, nout, ow, NULL);
    jg__gen_root_close(&s);
    jg__gen_sys_free(&s);
}

