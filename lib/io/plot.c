/* SVG line plots of simulation results (jacgraph/plot.h): a bounded in-memory
 * recorder and a hand-written SVG writer (a panel with legend, 1-2-5 ticks or
 * decades on a log x axis; panels stacked in one document). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/plot.h"
#include "io_impl.h"
#include "plot_impl.h"
#include "../core/str.h"

struct jg_plot {
    int64_t ncurves;       /* as given to jg_plot_create */
    int nc;                /* stored and drawn: min(ncurves, JG_PLOT_MAX_CURVES) */
    char **names;          /* nc names */
    char *title, *subtitle, *xlabel, *ylabel;
    char *xmark_label;     /* NULL: no vertical marker */
    double xmark;
    double xmin, xmax;     /* axis range asked for (xmin < xmax), else NaN */
    int xlog;              /* log10 x axis */
    int64_t cap;           /* rows kept at most (even) */
    int64_t n, alloc;      /* rows kept, rows allocated */
    double *buf;           /* n rows of (x, y_0..y_nc-1) */
    int64_t count, stride; /* points seen; rows kept are those with index % stride == 0 */
    double *last;          /* the last point seen (one row) */
};

/* ---- layout (pixels) */
enum {
    PLOT_W = 720,     /* plot area */
    PLOT_H = 420,
    MARGIN_L = 84,
    MARGIN_T = 64,
    MARGIN_B = 56,
    LEGEND_GAP = 18,
    LEGEND_ROW = 18,
    NAME_CHARS = 40,  /* legend names longer than this are shown by their end */
    FULL_PLOT_POINTS = 2000 /* curves with more kept points are decimated per column */
};
#define BIG 1e300     /* |y| beyond this is treated as non-finite */

static const char *const palette[JG_PLOT_MAX_CURVES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#7b4173"};

void jg_plot_free(jg_plot_t *pl)
{
    if (!pl) return;
    for (int k = 0; pl->names && k < pl->nc; k++) free(pl->names[k]);
    free(pl->names);
    free(pl->title);
    free(pl->subtitle);
    free(pl->xlabel);
    free(pl->ylabel);
    free(pl->xmark_label);
    free(pl->buf);
    free(pl->last);
    free(pl);
}

jg_status_t jg_plot_create(int64_t ncurves, const char *const *names, const jg_plot_opts_t *o,
                           jg_plot_t **out, jg_error_t *err)
{
    *out = NULL;
    if (ncurves < 0) return jg_error_set(err, JG_ARG, "plot: negative number of curves %lld",
                                         (long long)ncurves);
    jg_plot_opts_t d = {0};
    if (!o) o = &d;
    jg_plot_t *pl = calloc(1, sizeof *pl);
    if (!pl) return jg_error_set(err, JG_NOMEM, "out of memory");
    pl->ncurves = ncurves;
    pl->nc = ncurves < JG_PLOT_MAX_CURVES ? (int)ncurves : JG_PLOT_MAX_CURVES;
    pl->cap = o->max_points > 0 ? o->max_points : JG_PLOT_DEFAULT_POINTS;
    if (pl->cap < 16) pl->cap = 16;
    pl->cap += pl->cap & 1;   /* even: halving keeps the rows on the new stride */
    pl->stride = 1;
    pl->xmin = pl->xmax = NAN;
    pl->xlog = o->xlog != 0;
    if (o->xmin < o->xmax && isfinite(o->xmin) && isfinite(o->xmax) && (!pl->xlog || o->xmin > 0)) {
        pl->xmin = o->xmin;
        pl->xmax = o->xmax;
    }
    pl->names = calloc((size_t)pl->nc + 1, sizeof(char *));
    pl->last = malloc(sizeof(double) * (size_t)(pl->nc + 1));
    if (!pl->names || !pl->last) goto nomem;
    for (int k = 0; k < pl->nc; k++) {
        if (!names || !names[k]) {
            jg_plot_free(pl);
            return jg_error_set(err, JG_ARG, "plot: curve %d has no name", k + 1);
        }
        if (!(pl->names[k] = jg__strdup(names[k]))) goto nomem;
    }
    if ((o->title && !(pl->title = jg__strdup(o->title))) ||
        (o->subtitle && !(pl->subtitle = jg__strdup(o->subtitle))) ||
        !(pl->xlabel = jg__strdup(o->xlabel ? o->xlabel : "time")) ||
        (o->ylabel && !(pl->ylabel = jg__strdup(o->ylabel))))
        goto nomem;
    if (o->xmark_label && isfinite(o->xmark) && (!pl->xlog || o->xmark > 0)) {
        if (!(pl->xmark_label = jg__strdup(o->xmark_label))) goto nomem;
        pl->xmark = o->xmark;
    }
    *out = pl;
    return JG_OK;
nomem:
    jg_plot_free(pl);
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

int64_t jg_plot_count(const jg_plot_t *pl) { return pl->count; }
int64_t jg_plot_stride(const jg_plot_t *pl) { return pl->stride; }

jg_status_t jg_plot_add(jg_plot_t *pl, double x, const double *y, jg_error_t *err)
{
    const int64_t w = pl->nc + 1;
    if (pl->count % pl->stride == 0) {
        if (pl->n == pl->cap) {
            /* keep rows 0, 2, 4, ...: the indices that are multiples of 2 stride */
            for (int64_t i = 1; 2 * i < pl->n; i++)
                memcpy(pl->buf + i * w, pl->buf + 2 * i * w, sizeof(double) * (size_t)w);
            pl->n = (pl->n + 1) / 2;
            pl->stride *= 2;
        }
        if (pl->count % pl->stride == 0) {
            if (pl->n == pl->alloc) {
                int64_t na = pl->alloc ? 2 * pl->alloc : 1024;
                if (na > pl->cap) na = pl->cap;
                double *nb = realloc(pl->buf, sizeof(double) * (size_t)(na * w));
                if (!nb) return jg_error_set(err, JG_NOMEM, "out of memory");
                pl->buf = nb;
                pl->alloc = na;
            }
            double *r = pl->buf + pl->n++ * w;
            r[0] = x;
            for (int k = 0; k < pl->nc; k++) r[k + 1] = y[k];
        }
    }
    pl->last[0] = x;
    for (int k = 0; k < pl->nc; k++) pl->last[k + 1] = y[k];
    pl->count++;
    return JG_OK;
}

/* ---- drawing helpers */

/* Rows to draw: the kept ones, then the last point when it was not kept. */
static int64_t nrows(const jg_plot_t *pl)
{
    return pl->n + (pl->count > 0 && (pl->count - 1) % pl->stride != 0);
}
static const double *row(const jg_plot_t *pl, int64_t i)
{
    return i < pl->n ? pl->buf + i * (pl->nc + 1) : pl->last;
}

static int good(double v) { return isfinite(v) && fabs(v) <= BIG; }

/* x in axis units: log10 on a log axis (x <= 0: not drawn) */
static double xv(const jg_plot_t *pl, double x) { return pl->xlog ? (x > 0 ? log10(x) : NAN) : x; }

/* A 1-2-5 step giving about `target` intervals over span (> 0). */
double jg__plot_nice_step(double span, int target)
{
    double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Tick label for v on a grid of `step` (a 1-2-5 step) whose values reach
 * magnitude amax: plain decimals with as many places as the step needs when
 * 1e-4 <= amax < 1e6 (or up to 10 digits in all for a fine grid far from 0,
 * "1000000.1"), else a mantissa with enough digits and a short exponent
 * ("2.5e-7", "1.2e8"). */
void jg__plot_tick_label(char *buf, size_t n, double v, double step, double amax)
{
    if (fabs(v) < step * 1e-6) v = 0;
    int es = (int)floor(log10(step) + 1e-9);
    int places = es < 0 ? -es : 0, intdigits = amax >= 1 ? (int)floor(log10(amax)) + 1 : 1;
    if (amax >= 1e-4 && (amax < 1e6 || (amax < 1e10 && places > 0 && intdigits + places <= 10))) {
        snprintf(buf, n, "%.*f", places, v);
        return;
    }
    int digits = (int)floor(log10(amax)) - es + 1;
    if (digits < 1) digits = 1;
    if (digits > 15) digits = 15;
    char tmp[64];
    if (v == 0) {
        snprintf(buf, n, "0");
        return;
    }
    snprintf(tmp, sizeof tmp, "%.*e", digits - 1, v);
    /* "2.0e+05" -> "2e5", "1.50e-07" -> "1.5e-7" */
    char *e = strchr(tmp, 'e'), mant[40];
    size_t ml = (size_t)(e - tmp);
    memcpy(mant, tmp, ml);
    mant[ml] = '\0';
    if (strchr(mant, '.')) {
        while (ml > 0 && mant[ml - 1] == '0') mant[--ml] = '\0';
        if (ml > 0 && mant[ml - 1] == '.') mant[--ml] = '\0';
    }
    snprintf(buf, n, "%se%d", mant, atoi(e + 1));
}

void jg__plot_titles(FILE *f, double cx, const char *title, const char *subtitle)
{
    if (title) {
        fprintf(f, "<text class=\"title\" x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" "
                   "font-weight=\"bold\">", cx);
        jg__plot_xml_text(f, title);
        fputs("</text>\n", f);
    }
    if (subtitle) {
        fprintf(f, "<text class=\"subtitle\" x=\"%g\" y=\"44\" text-anchor=\"middle\" fill=\"#555\">", cx);
        jg__plot_xml_text(f, subtitle);
        fputs("</text>\n", f);
    }
}

void jg__plot_axis_labels(FILE *f, double cx, double y_x, double cy, const char *xlabel, const char *ylabel)
{
    fprintf(f, "<text class=\"xlabel\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">", cx, y_x);
    jg__plot_xml_text(f, xlabel);
    fputs("</text>\n", f);
    fprintf(f, "<text class=\"ylabel\" x=\"20\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 20 %g)\">", cy, cy);
    jg__plot_xml_text(f, ylabel);
    fputs("</text>\n", f);
}

/* Text content or attribute value, XML-escaped; control characters become '?'. */
void jg__plot_xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': case '\r': fputc(' ', f); break;   /* Simulink names have newlines */
        default: fputc(c < 0x20 && c != '\t' ? '?' : c, f);
        }
    }
}

/* Code points of a UTF-8 string (continuation bytes not counted). */
static int64_t u8len(const char *s)
{
    int64_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A legend name: whole, or "…" and its last NAME_CHARS - 1 code points. */
static void legend_name(FILE *f, const char *s)
{
    int64_t len = u8len(s);
    if (len <= NAME_CHARS) {
        jg__plot_xml_text(f, s);
        return;
    }
    int64_t skip = len - (NAME_CHARS - 1);
    while (*s && skip > 0) {
        s++;
        if (((unsigned char)*s & 0xC0) != 0x80) skip--;
    }
    fputs("\xe2\x80\xa6", f);
    jg__plot_xml_text(f, s);
}

static const char *ordinal(int64_t k)
{
    int64_t h = k % 100, t = k % 10;
    if (h >= 11 && h <= 13) return "th";
    return t == 1 ? "st" : t == 2 ? "nd" : t == 3 ? "rd" : "th";
}

/* Dash pattern of curve k: the last palette entries, and curves drawn over an
 * equal earlier one (long gaps let it show through). */
static const char *dash(int k, int same)
{
    if (same >= 0) return " stroke-dasharray=\"5 7\"";
    return k >= 10 ? " stroke-dasharray=\"6 3\"" : "";
}

typedef struct {
    double x0, x1, y0, y1;   /* data ranges of the axes */
    double left, top, w, h;  /* plot area */
} frame_t;

static double px(const frame_t *fr, double x) { return fr->left + (x - fr->x0) / (fr->x1 - fr->x0) * fr->w; }
static double py(const frame_t *fr, double y) { return fr->top + fr->h - (y - fr->y0) / (fr->y1 - fr->y0) * fr->h; }

/* Polyline output: points accumulate into one <polyline>; a break ends it. */
typedef struct {
    FILE *f;
    const frame_t *fr;
    int64_t npts;
    double lastx, lasty;     /* pixel coordinates of the previous point */
} poly_t;

static void poly_point(poly_t *p, double x, double y)
{
    double X = px(p->fr, x), Y = py(p->fr, y);
    if (p->npts == 0) fprintf(p->f, "<polyline points=\"");
    else if (fabs(X - p->lastx) < 0.05 && fabs(Y - p->lasty) < 0.05) return;
    fprintf(p->f, "%s%.1f,%.1f", p->npts ? " " : "", X, Y);
    p->lastx = X;
    p->lasty = Y;
    p->npts++;
}

static void poly_break(poly_t *p)
{
    if (p->npts == 1) {
        /* a lone point: a dot the polyline would not show */
        fprintf(p->f, "\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" stroke=\"none\" fill=\"currentColor\"/>\n",
                p->lastx, p->lasty);
    } else if (p->npts > 1) {
        fprintf(p->f, "\"/>\n");
    }
    p->npts = 0;
}

/* One curve: every finite point when there are few, else per pixel column
 * the minimum and the maximum in time order (the extremes survive). */
static void draw_curve(FILE *f, const jg_plot_t *pl, int k, const frame_t *fr)
{
    int64_t m = nrows(pl);
    poly_t p = {f, fr, 0, 0, 0};
    if (m <= FULL_PLOT_POINTS) {
        for (int64_t i = 0; i < m; i++) {
            const double *r = row(pl, i);
            if (good(xv(pl, r[0])) && good(r[k + 1])) poly_point(&p, xv(pl, r[0]), r[k + 1]);
            else poly_break(&p);
        }
        poly_break(&p);
        return;
    }
    int64_t col = -1, imin = -1, imax = -1;
    double vmin = 0, vmax = 0;
    for (int64_t i = 0; i <= m; i++) {
        const double *r = i < m ? row(pl, i) : NULL;
        int ok = r && good(xv(pl, r[0])) && good(r[k + 1]);
        int64_t c = -1;
        if (ok) {
            double t = (xv(pl, r[0]) - fr->x0) / (fr->x1 - fr->x0) * fr->w;
            c = t < 0 ? 0 : t > fr->w ? (int64_t)fr->w : (int64_t)t;
        }
        if (imin >= 0 && (!ok || c != col)) {   /* flush the column */
            int64_t a = imin < imax ? imin : imax, b = imin < imax ? imax : imin;
            poly_point(&p, xv(pl, row(pl, a)[0]), row(pl, a)[k + 1]);
            if (b != a) poly_point(&p, xv(pl, row(pl, b)[0]), row(pl, b)[k + 1]);
            imin = imax = -1;
        }
        if (!ok) {
            poly_break(&p);
            continue;
        }
        double v = r[k + 1];
        if (imin < 0) {
            col = c;
            imin = imax = i;
            vmin = vmax = v;
        } else if (v < vmin) {
            vmin = v;
            imin = i;
        } else if (v > vmax) {
            vmax = v;
            imax = i;
        }
    }
    poly_break(&p);
}

/* What a panel's drawing needs, computed before the document's size is known. */
typedef struct {
    frame_t fr;
    double xlo, xhi, y0, y1, xs, ys;
    int same[JG_PLOT_MAX_CURVES];
    int legend_w, legend_rows, W, H, have_data;
} layout_t;

static void layout(const jg_plot_t *pl, layout_t *L)
{
    const int64_t m = nrows(pl);
    /* data ranges over the finite values */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int64_t i = 0; i < m; i++) {
        const double *r = row(pl, i);
        double x = xv(pl, r[0]);
        if (!good(x)) continue;
        int any = 0;
        for (int k = 0; k < pl->nc; k++) {
            if (!good(r[k + 1])) continue;
            any = 1;
            if (r[k + 1] < ylo) ylo = r[k + 1];
            if (r[k + 1] > yhi) yhi = r[k + 1];
        }
        if (any || pl->nc == 0) {
            if (x < xlo) xlo = x;
            if (x > xhi) xhi = x;
        }
    }
    int have_data = xlo <= xhi && (ylo <= yhi || pl->nc == 0);
    if (pl->xmin < pl->xmax) {
        xlo = fmin(xlo, xv(pl, pl->xmin));
        xhi = fmax(xhi, xv(pl, pl->xmax));
    }
    if (pl->xmark_label && have_data) {   /* the marker inside the axis */
        xlo = fmin(xlo, xv(pl, pl->xmark));
        xhi = fmax(xhi, xv(pl, pl->xmark));
    }
    if (!(xlo <= xhi)) xlo = 0, xhi = 1;
    if (!(ylo <= yhi)) ylo = 0, yhi = 1;
    if (xhi == xlo) {
        double d = xlo != 0 ? fabs(xlo) * 0.1 : 1;
        xlo -= d, xhi += d;
    }
    if (yhi == ylo) {
        double d = ylo != 0 ? fabs(ylo) * 0.1 : 1;
        ylo -= d, yhi += d;
    }
    /* y axis: widened to whole 1-2-5 steps; x axis: the data range */
    double ys = jg__plot_nice_step(yhi - ylo, 6);
    double y0 = floor(ylo / ys) * ys, y1 = ceil(yhi / ys) * ys;
    if (y1 <= y0) y1 = y0 + ys;
    double xs = jg__plot_nice_step(xhi - xlo, 8);

    /* curves equal to an earlier one (an Outport and a Scope on the same
     * signal) would hide it: they are dashed and the legend says so */
    int *same = L->same;
    for (int k = 0; k < pl->nc; k++) {
        same[k] = -1;
        for (int j = 0; j < k && same[k] < 0; j++) {
            if (same[j] >= 0) continue;
            int64_t i = 0;
            for (; i < m; i++) {
                double a = row(pl, i)[k + 1], b = row(pl, i)[j + 1];
                if (!(a == b || (isnan(a) && isnan(b)))) break;
            }
            if (i == m && m > 0) same[k] = j;
        }
    }
    /* legend width from the longest entry */
    int64_t chars = 0;
    for (int k = 0; k < pl->nc; k++) {
        int64_t c = u8len(pl->names[k]);
        if (c > NAME_CHARS) c = NAME_CHARS;
        if (same[k] >= 0) {
            int64_t c2 = u8len(pl->names[same[k]]);
            c += 3 + (c2 > NAME_CHARS ? NAME_CHARS : c2);
        }
        if (c > chars) chars = c;
    }
    int legend_w = (int)(chars * 7) + 48;
    if (pl->ncurves > pl->nc && legend_w < 190) legend_w = 190;
    if (legend_w < 100) legend_w = 100;
    frame_t fr = {xlo, xhi, y0, y1, MARGIN_L, MARGIN_T, PLOT_W, PLOT_H};
    int W = MARGIN_L + PLOT_W + LEGEND_GAP + legend_w + 16, H = MARGIN_T + PLOT_H + MARGIN_B;
    int legend_rows = pl->nc + (pl->ncurves > pl->nc);
    if (MARGIN_T + legend_rows * LEGEND_ROW + 24 > H) H = MARGIN_T + legend_rows * LEGEND_ROW + 24;
    L->fr = fr;
    L->xlo = xlo, L->xhi = xhi, L->y0 = y0, L->y1 = y1, L->xs = xs, L->ys = ys;
    L->legend_w = legend_w, L->legend_rows = legend_rows, L->W = W, L->H = H, L->have_data = have_data;
}

static void svg_open(FILE *f, int W, int H)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
               "font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
}

/* A panel; `clip` names its clip path (unique in the document). */
static void draw(const jg_plot_t *pl, const layout_t *L, FILE *f, const char *clip)
{
    const frame_t fr = L->fr;
    const double xlo = L->xlo, xhi = L->xhi, y0 = L->y0, y1 = L->y1, xs = L->xs, ys = L->ys;
    const int *same = L->same;
    const int legend_w = L->legend_w, legend_rows = L->legend_rows, have_data = L->have_data;
    fprintf(f, "<defs><clipPath id=\"%s\"><rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>"
               "</clipPath></defs>\n",
            clip, fr.left, fr.top, fr.w, fr.h);
    /* title and subtitle */
    double cx = fr.left + fr.w / 2;
    if (pl->title) {
        fprintf(f, "<text class=\"title\" x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" "
                   "font-weight=\"bold\">",
                cx);
        jg__plot_xml_text(f, pl->title);
        fputs("</text>\n", f);
    }
    int thinned = pl->stride > 1;
    if (pl->subtitle || thinned || !have_data) {
        fprintf(f, "<text class=\"subtitle\" x=\"%g\" y=\"44\" text-anchor=\"middle\" fill=\"#555\">", cx);
        const char *sep = "";
        if (pl->subtitle) {
            jg__plot_xml_text(f, pl->subtitle);
            sep = "; ";
        }
        if (thinned) {
            fprintf(f, "%severy %lld%s of %lld points kept", sep, (long long)pl->stride,
                    ordinal(pl->stride), (long long)pl->count);
            sep = "; ";
        }
        if (!have_data) fprintf(f, "%sno finite values to draw", sep);
        fputs("</text>\n", f);
    }
    /* grid, ticks and labels */
    char lab[64];
    fprintf(f, "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    double yamax = fmax(fabs(y0), fabs(y1));
    double xamax = fmax(fabs(xlo), fabs(xhi));
    long long kx0 = 1, kx1 = 0, ky0 = 1, ky1 = 0;   /* no ticks when the grid is beyond 1e15 steps */
    if (fabs(xlo / xs) < 1e15 && fabs(xhi / xs) < 1e15)
        kx0 = (long long)ceil(xlo / xs - 1e-9), kx1 = (long long)floor(xhi / xs + 1e-9);
    if (pl->xlog) {   /* decades, and 2..9 times each as a fainter grid */
        kx0 = (long long)ceil(xlo - 1e-9), kx1 = (long long)floor(xhi + 1e-9);
        for (long long k = (long long)floor(xlo); k <= kx1 && kx1 - kx0 < 40; k++)
            for (int q = 2; q <= 9; q++) {
                double v = (double)k + log10(q);
                if (v > xlo && v < xhi)
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#f0f0f0\"/>\n",
                            px(&fr, v), fr.top, px(&fr, v), fr.top + fr.h);
            }
    }
    if (fabs(y0 / ys) < 1e15 && fabs(y1 / ys) < 1e15) ky0 = llround(y0 / ys), ky1 = llround(y1 / ys);
    if (kx1 - kx0 > 100) kx1 = kx0 + 100;
    if (ky1 - ky0 > 100) ky1 = ky0 + 100;
    const double xstep = pl->xlog ? 1 : xs;
    for (long long k = kx0; k <= kx1; k++) {
        double X = px(&fr, (double)k * xstep);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\"/>\n", X, fr.top, X, fr.top + fr.h);
    }
    for (long long k = ky0; k <= ky1; k++) {
        double Y = py(&fr, (double)k * ys);
        fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\"/>\n", fr.left, Y, fr.left + fr.w, Y);
    }
    fprintf(f, "</g>\n<g class=\"ticks\" fill=\"#333\">\n");
    for (long long k = kx0; k <= kx1; k++) {
        double X = px(&fr, (double)k * xstep), B = fr.top + fr.h;
        if (pl->xlog) {   /* labels on every decade, or every few beyond 10 */
            long long every = (kx1 - kx0 + 9) / 10;
            if (every > 1 && (k - kx0) % every) {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#333\"/>\n", X, B, X, B + 5);
                continue;
            }
            double v = pow(10, (double)k);
            jg__plot_tick_label(lab, sizeof lab, v, v, v);
        } else {
            jg__plot_tick_label(lab, sizeof lab, (double)k * xs, xs, xamax);
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#333\"/>"
                   "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                X, B, X, B + 5, X, B + 18, lab);
    }
    for (long long k = ky0; k <= ky1; k++) {
        double Y = py(&fr, (double)k * ys);
        jg__plot_tick_label(lab, sizeof lab, (double)k * ys, ys, yamax);
        fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#333\"/>"
                   "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                fr.left - 5, Y, fr.left, Y, fr.left - 8, Y + 4, lab);
    }
    fprintf(f, "</g>\n");
    fprintf(f, "<text class=\"xlabel\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">", cx, fr.top + fr.h + 42);
    jg__plot_xml_text(f, pl->xlabel);
    fputs("</text>\n", f);
    if (pl->ylabel) {
        double yc = fr.top + fr.h / 2;
        fprintf(f, "<text class=\"ylabel\" x=\"20\" y=\"%g\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 20 %g)\">",
                yc, yc);
        jg__plot_xml_text(f, pl->ylabel);
        fputs("</text>\n", f);
    }
    /* curves */
    fprintf(f, "<g clip-path=\"url(#%s)\" fill=\"none\" stroke-width=\"1.5\" "
               "stroke-linejoin=\"round\" stroke-linecap=\"round\">\n", clip);
    for (int k = 0; k < pl->nc; k++) {
        fprintf(f, "<g class=\"curve\" id=\"curve%d\" stroke=\"%s\" color=\"%s\"%s><title>", k + 1,
                palette[k], palette[k], dash(k, same[k]));
        jg__plot_xml_text(f, pl->names[k]);
        fputs("</title>\n", f);
        draw_curve(f, pl, k, &fr);
        fputs("</g>\n", f);
    }
    fputs("</g>\n", f);
    if (pl->xmark_label) {   /* label left of the line when it is at the right edge */
        double X = px(&fr, xv(pl, pl->xmark));
        int right = X > fr.left + fr.w / 2;
        fprintf(f, "<g class=\"xmark\"><line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#777\" "
                   "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%g\" text-anchor=\"%s\" fill=\"#555\">",
                X, fr.top, X, fr.top + fr.h, right ? X - 5 : X + 5, fr.top + 16, right ? "end" : "start");
        jg__plot_xml_text(f, pl->xmark_label);
        fputs("</text></g>\n", f);
    }
    fprintf(f, "<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" "
               "stroke=\"#333\"/>\n",
            fr.left, fr.top, fr.w, fr.h);
    /* legend */
    double lx = fr.left + fr.w + LEGEND_GAP, ly = fr.top;
    if (legend_rows) {
        fprintf(f, "<g class=\"legend\">\n<rect x=\"%g\" y=\"%g\" width=\"%d\" height=\"%d\" fill=\"white\" "
                   "stroke=\"#bbb\"/>\n",
                lx, ly, legend_w, legend_rows * LEGEND_ROW + 10);
        for (int k = 0; k < pl->nc; k++) {
            double Y = ly + 5 + LEGEND_ROW * (k + 0.5);
            fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                       "<text class=\"legend-name\" x=\"%g\" y=\"%g\">",
                    lx + 8, Y, lx + 32, Y, palette[k], dash(k, same[k]), lx + 38, Y + 4);
            legend_name(f, pl->names[k]);
            if (same[k] >= 0) {
                fputs("<tspan class=\"same-as\" fill=\"#555\" dx=\"6\">= ", f);
                legend_name(f, pl->names[same[k]]);
                fputs("</tspan>", f);
            }
            fputs("</text>\n", f);
        }
        if (pl->ncurves > pl->nc) {
            double Y = ly + 5 + LEGEND_ROW * (pl->nc + 0.5);
            fprintf(f, "<text class=\"legend-note\" x=\"%g\" y=\"%g\" fill=\"#555\" font-style=\"italic\">"
                       "first %d of %lld curves shown</text>\n",
                    lx + 8, Y + 4, pl->nc, (long long)pl->ncurves);
        }
        fputs("</g>\n", f);
    }
}

jg_status_t jg_plot_write_svg(const jg_plot_t *pl, FILE *f, jg_error_t *err)
{
    return jg_plot_write_svg_stack(&pl, 1, f, err);
}

jg_status_t jg_plot_write_svg_stack(const jg_plot_t *const *pl, int n, FILE *f, jg_error_t *err)
{
    if (n < 1 || n > 64 || !pl) return jg_error_set(err, JG_ARG, "plot: %d panels (1 to 64)", n);
    layout_t L[64];
    int W = 0, H = 0;
    for (int k = 0; k < n; k++) {
        if (!pl[k]) return jg_error_set(err, JG_ARG, "plot: panel %d is NULL", k + 1);
        layout(pl[k], &L[k]);
        W = L[k].W > W ? L[k].W : W;
        H += L[k].H;
    }
    svg_open(f, W, H);
    int y = 0;
    for (int k = 0; k < n; k++) {
        char clip[32];
        snprintf(clip, sizeof clip, k ? "plotarea%d" : "plotarea", k + 1);
        if (n > 1) fprintf(f, "<g class=\"panel\" transform=\"translate(0 %d)\">\n", y);
        draw(pl[k], &L[k], f, clip);
        if (n > 1) fputs("</g>\n", f);
        y += L[k].H;
    }
    fputs("</svg>\n", f);
    if (ferror(f)) return jg_error_set(err, JG_IO, "write failed");
    return JG_OK;
}

jg_status_t jg_plot_save_svg(const jg_plot_t *pl, const char *path, jg_error_t *err)
{
    return jg_plot_save_svg_stack(&pl, 1, path, err);
}

jg_status_t jg_plot_save_svg_stack(const jg_plot_t *const *pl, int n, const char *path, jg_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    jg_status_t st = jg_plot_write_svg_stack(pl, n, f, err);
    if (fclose(f) && !st) st = JG_IO;
    if (st == JG_IO) jg_error_set(err, JG_IO, "%s: write failed", path);
    if (st) jg__io_discard(path);
    return st;
}
