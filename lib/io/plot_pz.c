/* SVG pole-zero maps (jacgraph/plot.h): poles as x, zeros as o in the complex
 * plane with equal axis scales, the unit circle for discrete models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/plot.h"
#include "io_impl.h"
#include "plot_impl.h"

enum { PZ_SIDE = 480, PZ_LEFT = 84, PZ_TOP = 64, PZ_BOTTOM = 56, PZ_LEGEND = 170, PZ_GAP = 18 };

typedef struct {
    double x0, y0, half;     /* centre and half-width of the (square) view */
} view_t;

static double PX(const view_t *v, double x) { return PZ_LEFT + (x - (v->x0 - v->half)) / (2 * v->half) * PZ_SIDE; }
static double PY(const view_t *v, double y) { return PZ_TOP + PZ_SIDE - (y - (v->y0 - v->half)) / (2 * v->half) * PZ_SIDE; }

static int fin(double a, double b) { return isfinite(a) && isfinite(b) && fabs(a) < 1e300 && fabs(b) < 1e300; }

/* roots equal to root k among the first k (drawn once, with a count) */
static int64_t seen_before(int64_t k, const double *re, const double *im)
{
    int64_t c = 0;
    for (int64_t l = 0; l < k; l++)
        if (fabs(re[l] - re[k]) <= 1e-9 * fmax(1, fabs(re[k])) && fabs(im[l] - im[k]) <= 1e-9 * fmax(1, fabs(im[k])))
            c++;
    return c;
}

static void markers(FILE *f, const view_t *v, int64_t n, const double *re, const double *im, int pole)
{
    for (int64_t k = 0; k < n; k++) {
        if (!fin(re[k], im[k]) || seen_before(k, re, im)) continue;
        double X = PX(v, re[k]), Y = PY(v, im[k]);
        if (pole)
            fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>\n", X - 5, Y - 5, X + 5, Y + 5,
                    X - 5, Y + 5, X + 5, Y - 5);
        else
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>\n", X, Y);
        int64_t mult = 1;
        for (int64_t l = k + 1; l < n; l++)
            if (fabs(re[l] - re[k]) <= 1e-9 * fmax(1, fabs(re[k])) && fabs(im[l] - im[k]) <= 1e-9 * fmax(1, fabs(im[k])))
                mult++;
        if (mult > 1)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\" fill=\"currentColor\" font-size=\"11\">%lld</text>\n",
                    X + 7, Y - 6, (long long)mult);
    }
}

jg_status_t jg_plot_write_pzmap_svg(FILE *f, int64_t np, const double *pre, const double *pim, int64_t nz,
                                    const double *zre, const double *zim, int unit_circle, const jg_plot_opts_t *o,
                                    jg_error_t *err)
{
    if (!f || np < 0 || nz < 0 || (np && (!pre || !pim)) || (nz && (!zre || !zim)))
        return jg_error_set(err, JG_ARG, "pole-zero map: bad arguments");
    jg_plot_opts_t none = {0};
    if (!o) o = &none;
    /* the view: every finite root, the origin, the unit circle when asked */
    double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
    int64_t skipped = 0;
    for (int64_t k = 0; k < np + nz; k++) {
        double a = k < np ? pre[k] : zre[k - np], b = k < np ? pim[k] : zim[k - np];
        if (!fin(a, b)) {
            skipped++;
            continue;
        }
        xlo = fmin(xlo, a), xhi = fmax(xhi, a), ylo = fmin(ylo, b), yhi = fmax(yhi, b);
    }
    if (unit_circle) xlo = fmin(xlo, -1), xhi = fmax(xhi, 1), ylo = fmin(ylo, -1), yhi = fmax(yhi, 1);
    view_t v = {(xlo + xhi) / 2, (ylo + yhi) / 2, fmax(xhi - xlo, yhi - ylo) / 2 * 1.15};
    if (!(v.half > 0)) v.half = 1;
    double step = jg__plot_nice_step(2 * v.half, 8);
    int W = PZ_LEFT + PZ_SIDE + PZ_GAP + PZ_LEGEND + 16, H = PZ_TOP + PZ_SIDE + PZ_BOTTOM;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    fprintf(f, "<defs><clipPath id=\"pzarea\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath></defs>\n",
            PZ_LEFT, PZ_TOP, PZ_SIDE, PZ_SIDE);
    double cx = PZ_LEFT + PZ_SIDE / 2.0;
    jg__plot_titles(f, cx, o->title, o->subtitle);
    /* grid and ticks, the same step on both axes */
    double lo[2] = {v.x0 - v.half, v.y0 - v.half}, hi[2] = {v.x0 + v.half, v.y0 + v.half};
    char lab[64];
    for (int ax = 0; ax < 2; ax++) {
        long long k0 = (long long)ceil(lo[ax] / step - 1e-9), k1 = (long long)floor(hi[ax] / step + 1e-9);
        double amax = fmax(fabs(lo[ax]), fabs(hi[ax]));
        for (long long k = k0; k <= k1 && k - k0 <= 100; k++) {
            double val = (double)k * step;
            jg__plot_tick_label(lab, sizeof lab, val, step, amax);
            if (ax == 0) {
                double X = PX(&v, val);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                           "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
                        X, PZ_TOP, X, PZ_TOP + PZ_SIDE, X, PZ_TOP + PZ_SIDE + 18, lab);
            } else {
                double Y = PY(&v, val);
                fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                           "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
                        PZ_LEFT, Y, PZ_LEFT + PZ_SIDE, Y, PZ_LEFT - 8, Y + 4, lab);
            }
        }
    }
    jg__plot_axis_labels(f, cx, PZ_TOP + PZ_SIDE + 42, PZ_TOP + PZ_SIDE / 2.0, o->xlabel ? o->xlabel : "real",
                         o->ylabel ? o->ylabel : "imaginary");
    /* axes through 0, the unit circle, the roots */
    fprintf(f, "<g clip-path=\"url(#pzarea)\" fill=\"none\">\n"
               "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\"/>"
               "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n",
            PZ_LEFT, PY(&v, 0), PZ_LEFT + PZ_SIDE, PY(&v, 0), PX(&v, 0), PZ_TOP, PX(&v, 0), PZ_TOP + PZ_SIDE);
    if (unit_circle)
        fprintf(f, "<circle class=\"unit-circle\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke=\"#555\" "
                   "stroke-dasharray=\"6 4\"/>\n",
                PX(&v, 0), PY(&v, 0), PZ_SIDE / (2 * v.half));
    fputs("<g class=\"zeros\" stroke=\"#d62728\" color=\"#d62728\" stroke-width=\"2\">\n", f);
    markers(f, &v, nz, zre, zim, 0);
    fputs("</g>\n<g class=\"poles\" stroke=\"#1f77b4\" color=\"#1f77b4\" stroke-width=\"2\">\n", f);
    markers(f, &v, np, pre, pim, 1);
    fputs("</g>\n</g>\n", f);
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
            PZ_LEFT, PZ_TOP, PZ_SIDE, PZ_SIDE);
    /* legend */
    int lx = PZ_LEFT + PZ_SIDE + PZ_GAP, rows = 2 + (unit_circle != 0) + (skipped > 0);
    fprintf(f, "<g class=\"legend\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"white\" stroke=\"#bbb\"/>\n",
            lx, PZ_TOP, PZ_LEGEND, rows * 18 + 10);
    double Y = PZ_TOP + 5 + 9;
    fprintf(f, "<path d=\"M%d %.1fL%d %.1fM%d %.1fL%d %.1f\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
               "<text x=\"%d\" y=\"%.1f\">poles (%lld)</text>\n",
            lx + 15, Y - 5, lx + 25, Y + 5, lx + 15, Y + 5, lx + 25, Y - 5, lx + 38, Y + 4, (long long)np);
    Y += 18;
    fprintf(f, "<circle cx=\"%d\" cy=\"%.1f\" r=\"5\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>"
               "<text x=\"%d\" y=\"%.1f\">zeros (%lld)</text>\n",
            lx + 20, Y, lx + 38, Y + 4, (long long)nz);
    if (unit_circle) {
        Y += 18;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>"
                   "<text x=\"%d\" y=\"%.1f\">unit circle</text>\n",
                lx + 8, Y, lx + 32, Y, lx + 38, Y + 4);
    }
    if (skipped) {
        Y += 18;
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#555\" font-style=\"italic\">%lld not finite, not drawn</text>\n",
                lx + 8, Y + 4, (long long)skipped);
    }
    fputs("</g>\n</svg>\n", f);
    if (ferror(f)) return jg_error_set(err, JG_IO, "write failed");
    return JG_OK;
}

jg_status_t jg_plot_save_pzmap_svg(const char *path, int64_t np, const double *pre, const double *pim, int64_t nz,
                                   const double *zre, const double *zim, int unit_circle, const jg_plot_opts_t *o,
                                   jg_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    jg_status_t st = jg_plot_write_pzmap_svg(f, np, pre, pim, nz, zre, zim, unit_circle, o, err);
    if (fclose(f) && !st) st = JG_IO;
    if (st == JG_IO) jg_error_set(err, JG_IO, "%s: write failed", path);
    if (st) jg__io_discard(path);
    return st;
}
