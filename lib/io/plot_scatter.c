/* SVG scatter plots with labelled points and their Pareto front (jacgraph/plot.h): cost against memory per strategy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/plot.h"
#include "io_impl.h"
#include "plot_impl.h"

enum { SC_W = 560, SC_H = 400, SC_LEFT = 90, SC_TOP = 64, SC_BOTTOM = 56, SC_LEGEND = 230, SC_GAP = 18 };

typedef struct {
    double lo[2], hi[2];
} view_t;

static double PX(const view_t *v, double x) { return SC_LEFT + (x - v->lo[0]) / (v->hi[0] - v->lo[0]) * SC_W; }
static double PY(const view_t *v, double y) { return SC_TOP + SC_H - (y - v->lo[1]) / (v->hi[1] - v->lo[1]) * SC_H; }

static int fin(double a, double b) { return isfinite(a) && isfinite(b) && fabs(a) < 1e300 && fabs(b) < 1e300; }

/* k is on the Pareto front when no other point is at most as large in both
 * coordinates and smaller in one (lower is better on both axes). */
static int on_front(int64_t n, const double *x, const double *y, int64_t k)
{
    for (int64_t l = 0; l < n; l++)
        if (l != k && fin(x[l], y[l]) && x[l] <= x[k] && y[l] <= y[k] && (x[l] < x[k] || y[l] < y[k])) return 0;
    return 1;
}

/* the first point equal to k (drawn once, labels joined), k itself when none */
static int64_t first_equal(const double *x, const double *y, int64_t k)
{
    for (int64_t l = 0; l < k; l++)
        if (x[l] == x[k] && y[l] == y[k]) return l;
    return k;
}

/* front points by increasing x (a handful: insertion sort) */
static void sort_by_x(int64_t *a, int64_t n, const double *x)
{
    for (int64_t t = 1; t < n; t++)
        for (int64_t s = t; s > 0 && x[a[s]] < x[a[s - 1]]; s--) {
            int64_t k = a[s];
            a[s] = a[s - 1];
            a[s - 1] = k;
        }
}

static void axis_ticks(FILE *f, const view_t *v, int ax)
{
    double span = v->hi[ax] - v->lo[ax], step = jg__plot_nice_step(span, ax ? 6 : 7);
    double amax = fmax(fabs(v->lo[ax]), fabs(v->hi[ax]));
    long long k0 = (long long)ceil(v->lo[ax] / step - 1e-9), k1 = (long long)floor(v->hi[ax] / step + 1e-9);
    char lab[64];
    for (long long k = k0; k <= k1 && k - k0 <= 100; k++) {
        double val = (double)k * step;
        jg__plot_tick_label(lab, sizeof lab, val, step, amax);
        if (ax == 0) {
            double X = PX(v, val);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>"
                       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
                    X, SC_TOP, X, SC_TOP + SC_H, X, SC_TOP + SC_H + 18, lab);
        } else {
            double Y = PY(v, val);
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
                    SC_LEFT, Y, SC_LEFT + SC_W, Y, SC_LEFT - 8, Y + 4, lab);
        }
    }
}

jg_status_t jg_plot_write_scatter_svg(FILE *f, int64_t n, const double *x, const double *y,
                                      const char *const *labels, const jg_plot_opts_t *o, jg_error_t *err)
{
    if (!f || n < 0 || (n && (!x || !y || !labels))) return jg_error_set(err, JG_ARG, "scatter plot: bad arguments");
    for (int64_t k = 0; k < n; k++)
        if (!labels[k]) return jg_error_set(err, JG_ARG, "scatter plot: label %lld is NULL", (long long)k);
    jg_plot_opts_t none = {0};
    if (!o) o = &none;
    int64_t *front = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!front) return jg_error_set(err, JG_NOMEM, "scatter plot: out of memory");
    /* the view: every finite point with a margin of 8 % (0 .. 1 without any) */
    view_t v = {{INFINITY, INFINITY}, {-INFINITY, -INFINITY}};
    int64_t skipped = 0, nfront = 0;
    for (int64_t k = 0; k < n; k++) {
        if (!fin(x[k], y[k])) {
            skipped++;
            continue;
        }
        v.lo[0] = fmin(v.lo[0], x[k]), v.hi[0] = fmax(v.hi[0], x[k]);
        v.lo[1] = fmin(v.lo[1], y[k]), v.hi[1] = fmax(v.hi[1], y[k]);
        if (on_front(n, x, y, k) && first_equal(x, y, k) == k) front[nfront++] = k;
    }
    for (int ax = 0; ax < 2; ax++) {
        if (!(v.lo[ax] <= v.hi[ax])) v.lo[ax] = 0, v.hi[ax] = 1;
        double span = v.hi[ax] - v.lo[ax], m = span > 0 ? 0.08 * span : fmax(1, fabs(v.lo[ax]) * 0.1);
        v.lo[ax] -= m, v.hi[ax] += m;
    }
    sort_by_x(front, nfront, x);
    int W = SC_LEFT + SC_W + SC_GAP + SC_LEGEND + 16, H = SC_TOP + SC_H + SC_BOTTOM;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    double cx = SC_LEFT + SC_W / 2.0;
    jg__plot_titles(f, cx, o->title, o->subtitle);
    axis_ticks(f, &v, 0);
    axis_ticks(f, &v, 1);
    jg__plot_axis_labels(f, cx, SC_TOP + SC_H + 42, SC_TOP + SC_H / 2.0, o->xlabel ? o->xlabel : "x",
                         o->ylabel ? o->ylabel : "y");
    /* the front as a staircase: what is reachable with at most that much of both */
    if (nfront > 0) {
        fputs("<path class=\"pareto\" fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" d=\"", f);
        for (int64_t t = 0; t < nfront; t++) {
            int64_t k = front[t];
            if (t == 0)
                fprintf(f, "M%.1f %.1f", PX(&v, x[k]), PY(&v, v.hi[1]));
            else
                fprintf(f, "L%.1f %.1f", PX(&v, x[k]), PY(&v, y[front[t - 1]]));
            fprintf(f, "L%.1f %.1f", PX(&v, x[k]), PY(&v, y[k]));
        }
        fprintf(f, "L%.1f %.1f\"/>\n", PX(&v, v.hi[0]), PY(&v, y[front[nfront - 1]]));
    }
    /* the points, numbered; equal points drawn once with every label */
    /* numbers of close points are stacked rather than drawn over each other */
    double *lab = malloc(sizeof(double) * 2 * (size_t)(n + 1));
    int64_t nlab = 0;
    fputs("<g class=\"points\">\n", f);
    for (int64_t k = 0, num = 0; k < n; k++) {
        if (!fin(x[k], y[k]) || first_equal(x, y, k) != k) continue;
        num++;
        int pf = on_front(n, x, y, k);
        double X = PX(&v, x[k]), Y = PY(&v, y[k]), LX = X + 7, LY = Y - 6;
        for (int64_t t = 0; lab && t < nlab; t++)
            if (fabs(lab[2 * t] - LX) < 20 && fabs(lab[2 * t + 1] - LY) < 11) {
                LY = lab[2 * t + 1] - 11;
                t = -1;   /* moved: check every label again */
            }
        if (lab) lab[2 * nlab] = LX, lab[2 * nlab + 1] = LY, nlab++;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"#1f77b4\" stroke-width=\"1.5\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#333\">%lld</text>\n",
                X, Y, pf ? "#2ca02c" : "white", LX, LY, (long long)num);
    }
    fputs("</g>\n", f);
    free(lab);
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
            SC_LEFT, SC_TOP, SC_W, SC_H);
    /* legend: number, labels of the point, its coordinates */
    int lx = SC_LEFT + SC_W + SC_GAP;
    fprintf(f, "<g class=\"legend\" font-size=\"11\">\n");
    double Y = SC_TOP + 12;
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#2ca02c\">filled: on the Pareto front</text>\n", lx, Y);
    for (int64_t k = 0, num = 0; k < n && Y < SC_TOP + SC_H + SC_BOTTOM - 20; k++) {
        if (!fin(x[k], y[k]) || first_equal(x, y, k) != k) continue;
        num++;
        Y += 15;
        fprintf(f, "<text x=\"%d\" y=\"%.1f\">%lld: ", lx, Y, (long long)num);
        for (int64_t l = k, c = 0; l < n; l++)
            if (fin(x[l], y[l]) && x[l] == x[k] && y[l] == y[k]) {
                if (c++) fputs(", ", f);
                jg__plot_xml_text(f, labels[l]);
            }
        fputs("</text>\n", f);
    }
    if (skipped) {
        Y += 15;
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#555\" font-style=\"italic\">%lld not finite, not drawn</text>\n",
                lx, Y, (long long)skipped);
    }
    fputs("</g>\n</svg>\n", f);
    free(front);
    if (ferror(f)) return jg_error_set(err, JG_IO, "write failed");
    return JG_OK;
}

jg_status_t jg_plot_save_scatter_svg(const char *path, int64_t n, const double *x, const double *y,
                                     const char *const *labels, const jg_plot_opts_t *o, jg_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    jg_status_t st = jg_plot_write_scatter_svg(f, n, x, y, labels, o, err);
    return jg__io_close(f, st != JG_OK, path, err);
}
