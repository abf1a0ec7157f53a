/* gen_brusselator.c -- `jacgraph generate brusselator`: the stiff 2-D Brusselator
 * with diffusion as 25 blocks on vectors (docs/generator.md, section 7). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

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
int jg_gen_brusselator_grid(int64_t n, int64_t *nx, int64_t *ny)
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
static void out_dec4(jg__gen_t *g, int64_t v)
{
    int64_t a = v < 0 ? -v : v;
    char frac[8];
    int d = 4;
    int64_t f = a % 10000;
    while (d > 0 && f % 10 == 0) f /= 10, d--;
    if (d == 0) jg__gen_out(g, "%s%" PRId64, v < 0 ? "-" : "", a / 10000);
    else {
        snprintf(frac, sizeof frac, "%0*" PRId64, d, f);
        jg__gen_out(g, "%s%" PRId64 ".%s", v < 0 ? "-" : "", a / 10000, frac);
    }
}

/* the 1e-4 units of c w (1 - w)^(3/2) at w = k / n; IEEE operations only
 * (sqrt is correctly rounded), so every machine rounds alike */
static int64_t bruss_ic(int c, int64_t k, int64_t n)
{
    double w = (double)k / (double)n, r = 1.0 - w;
    return (int64_t)llround(1e4 * c * w * r * sqrt(r));
}

static void bruss_selector(jg__gen_sys_t *s, const char *name, int64_t nx, int64_t ny, int di, int dj)
{
    const int64_t M = nx * ny;
    jg__gen_blk_begin(s, name, "Selector");
    jg__gen_outs(s->g, ",\"Indices\":[");
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            int64_t ii = (i + di + nx) % nx, jj = (j + dj + ny) % ny;
            jg__gen_out(s->g, "%s%" PRId64, i || j ? "," : "", ii + nx * jj + 1);
        }
    jg__gen_out(s->g, "],\"InputPortWidth\":%" PRId64, M);
    jg__gen_blk_end(s);
}

static void bruss_gain(jg__gen_sys_t *s, const char *name, int64_t k10000)
{
    jg__gen_blk_begin(s, name, "Gain");
    jg__gen_outs(s->g, ",\"Gain\":");
    out_dec4(s->g, k10000);
    jg__gen_blk_end(s);
}

static void bruss_integrator(jg__gen_sys_t *s, const char *name, int c, int along_x, int64_t nx, int64_t ny)
{
    jg__gen_blk_begin(s, name, "Integrator");
    jg__gen_outs(s->g, ",\"InitialCondition\":[");
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            int64_t v = along_x ? bruss_ic(c, i + 1, nx) : bruss_ic(c, j + 1, ny);
            if (s->g->seed) v += jg__gen_rin(RNG, -100, 100);
            if (v < 0) v = 0;   /* concentrations: the perturbation near the boundary */
            if (i || j) jg__gen_outs(s->g, ",");
            out_dec4(s->g, v);
        }
    jg__gen_outs(s->g, "]");
    jg__gen_blk_end(s);
    s->g->nstates += nx * ny;
}

void jg__gen_brusselator(jg__gen_t *g, int64_t nx, int64_t ny, const char *name)
{
    char desc[160];
    snprintf(desc, sizeof desc,
             "jacgraph generate brusselator: 2-D Brusselator with diffusion, %" PRId64 "x%" PRId64
             " periodic grid, A = 1, B = 3.4, alpha = 0.1",
             nx, ny);
    jg__gen_root_open(g, name, desc);
    jg__gen_sys_t s0, *s = &s0;
    jg__gen_sys_init(s, g, 0);
    /* 1e-4 units: alpha nx^2 = nx^2 / 10 = 1000 nx^2 units */
    const int64_t ax = 1000 * nx * nx, ay = 1000 * ny * ny;
    bruss_integrator(s, "U", 22, 0, nx, ny);   /* u0 varies along y */
    bruss_integrator(s, "V", 27, 1, nx, ny);   /* v0 along x */
    static const char *const sel[8] = {"UE", "UW", "UN", "US", "VE", "VW", "VN", "VS"};
    static const int dij[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int k = 0; k < 8; k++) {
        bruss_selector(s, sel[k], nx, ny, dij[k % 4][0], dij[k % 4][1]);
        jg__gen_link(s, k < 4 ? "U:1" : "V:1", sel[k], 1);
    }
    static const char *const sx[4] = {"SUX", "SUY", "SVX", "SVY"};
    static const char *const gx[4] = {"GUX", "GUY", "GVX", "GVY"};
    for (int k = 0; k < 4; k++) {
        jg__gen_blk_begin(s, sx[k], "Sum");
        jg__gen_outs(g, ",\"Inputs\":\"++\"");
        jg__gen_blk_end(s);
        char src[8];
        snprintf(src, sizeof src, "%s:1", sel[2 * k]);
        jg__gen_link(s, src, sx[k], 1);
        snprintf(src, sizeof src, "%s:1", sel[2 * k + 1]);
        jg__gen_link(s, src, sx[k], 2);
        bruss_gain(s, gx[k], k % 2 ? ay : ax);
        snprintf(src, sizeof src, "%s:1", sx[k]);
        jg__gen_link(s, src, gx[k], 1);
    }
    bruss_gain(s, "KU", -(44000 + 2 * (ax + ay)));  /* -(B + 1) - 2 alpha (nx^2 + ny^2) */
    jg__gen_link(s, "U:1", "KU", 1);
    bruss_gain(s, "KV", -2 * (ax + ay));
    jg__gen_link(s, "V:1", "KV", 1);
    bruss_gain(s, "KB", 34000);                     /* B */
    jg__gen_link(s, "U:1", "KB", 1);
    jg__gen_blk_begin(s, "P", "Product");                   /* u^2 v */
    jg__gen_outs(g, ",\"Inputs\":\"***\"");
    jg__gen_blk_end(s);
    jg__gen_link(s, "U:1", "P", 1);
    jg__gen_link(s, "U:1", "P", 2);
    jg__gen_link(s, "V:1", "P", 3);
    jg__gen_blk_begin(s, "A", "Constant");
    jg__gen_outs(g, ",\"Value\":1");
    jg__gen_blk_end(s);
    static const char *const du[5] = {"A:1", "P:1", "KU:1", "GUX:1", "GUY:1"};
    static const char *const dv[5] = {"KB:1", "P:1", "KV:1", "GVX:1", "GVY:1"};
    jg__gen_sum_of(s, "DU", "+++++", du);
    jg__gen_link(s, "DU:1", "U", 1);
    jg__gen_sum_of(s, "DV", "+-+++", dv);
    jg__gen_link(s, "DV:1", "V", 1);
    jg__gen_root_close(s);
    jg__gen_sys_free(s);
}

