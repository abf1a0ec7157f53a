/* jacgraph/plot.h -- a small SVG line-plot writer for simulation results:
 * curves y_k(x) sampled at common x values (time), drawn in one panel with a
 * legend, axes with 1-2-5 tick steps, axis labels, a title and a subtitle.
 *
 * Usage: jg_plot_create -> jg_plot_add at every output point (x increasing)
 * -> jg_plot_write_svg / jg_plot_save_svg -> jg_plot_free.  Several plots
 * stack into one document (jg_plot_save_svg_stack); a pole-zero map is its
 * own writer (jg_plot_save_pzmap_svg), and so is a labelled scatter plot with
 * its Pareto front (jg_plot_save_scatter_svg).
 *
 * The recorder keeps its data in memory, bounded: at most max_points points
 * (default JG_PLOT_DEFAULT_POINTS); when a run produces more, only every k-th
 * point is kept, k a power of two chosen as the run goes (the subtitle says
 * so), plus the very last point.  At most JG_PLOT_MAX_CURVES curves are
 * stored and drawn (the first ones; the legend says how many were left out).
 * Non-finite values (and |y| > 1e300) are not drawn: the curve is broken
 * there.  A curve of more than 2000 kept points is drawn through the minimum
 * and the maximum of each pixel column of the 720-pixel-wide plot area, in
 * time order (at most ~1440 points: extremes survive, files stay small for
 * runs of any length).  A curve equal to an earlier one (an Outport and a
 * Scope on the same signal) is dashed so that both show, and its legend
 * entry says "= NAME".  Ticks: 1-2-5 steps, the y axis widened to whole
 * steps, the x axis the data's range (or opts xmin..xmax).
 *
 * The library never prints; a jg_plot_t is not thread-safe, separate objects
 * are independent.
 */
#ifndef JACGRAPH_PLOT_H
#define JACGRAPH_PLOT_H
#include "jacgraph/export.h"
#include <stdint.h>
#include <stdio.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JG_PLOT_MAX_CURVES 12
#define JG_PLOT_DEFAULT_POINTS 200000

typedef struct jg_plot jg_plot_t;

/* Labels and limits; every field may be 0/NULL (the default). */
typedef struct jg_plot_opts {
    const char *title;      /* top line, e.g. the model name; NULL: none */
    const char *subtitle;   /* second line; NULL: none ("every k-th of N points
                               kept" is appended when points were dropped) */
    const char *xlabel;     /* NULL: "time" */
    const char *ylabel;     /* NULL: none */
    int64_t max_points;     /* points kept in memory; <= 0: JG_PLOT_DEFAULT_POINTS
                               (values below 16 are raised to 16) */
    double xmin, xmax;      /* when xmin < xmax (both finite), the x axis
                               covers this range and the data's (a run that
                               stopped early shows it); otherwise the data's */
    int xlog;               /* 1: logarithmic x axis (labelled decades, a
                               fainter grid at 2..9 times each); x <= 0 is
                               not drawn (frequency responses) */
    const char *xmark_label;  /* not NULL: a dashed vertical line at x = xmark
                               (finite; > 0 on a log axis), labelled with it at
                               its top, inside the axis range (e.g. the Nyquist
                               frequency of a discrete-time Bode plot) */
    double xmark;
} jg_plot_opts_t;

/* Create a recorder for ncurves curves named names[0..ncurves-1] (ncurves
 * >= 0; only the first JG_PLOT_MAX_CURVES are stored).  The strings of o and
 * names are copied: the caller keeps ownership of its own.  *out is NULL on
 * failure.  Errors: JG_ARG (ncurves < 0, a NULL name), JG_NOMEM.
 * Cost: O(ncurves + length of the names); the point buffer grows on demand. */
JG_API jg_status_t jg_plot_create(int64_t ncurves, const char *const *names, const jg_plot_opts_t *o,
                                  jg_plot_t **out, jg_error_t *err);
/* Free the recorder and everything it owns (names, labels, points); NULL is
 * allowed.  No errors.  Cost: O(curves stored). */
JG_API void jg_plot_free(jg_plot_t *pl);

/* Record a point: x and the ncurves values y[] (only the first
 * JG_PLOT_MAX_CURVES are read; y may be NULL when ncurves is 0).  x should not
 * decrease from one call to the next (points are drawn in call order).  The
 * values are copied.  Errors: JG_NOMEM (the recorder is unchanged).
 * Cost: amortized O(curves stored); O(max_points) once each time the buffer
 * is thinned (at most log2(total points / max_points) times). */
JG_API jg_status_t jg_plot_add(jg_plot_t *pl, double x, const double *y, jg_error_t *err);

/* Points passed to jg_plot_add so far, and the current thinning factor k
 * (1: every point kept; else a power of two).  No errors.  Cost: O(1). */
JG_API int64_t jg_plot_count(const jg_plot_t *pl);
JG_API int64_t jg_plot_stride(const jg_plot_t *pl);

/* Write the plot as a standalone SVG 1.1 document to f (the caller opens and
 * closes it; nothing is flushed or closed here).  A plot without points or
 * without finite values has its frame, labels and legend but no curves.
 * Errors: JG_IO "write failed" when f reports an error (ferror).
 * Cost: O(points kept x curves stored^2) time at worst (the test for equal
 * curves; O(points kept x curves) when they differ early), no allocation; the
 * output is O(curves x plot width) bytes whatever the number of points. */
JG_API jg_status_t jg_plot_write_svg(const jg_plot_t *pl, FILE *f, jg_error_t *err);

/* jg_plot_write_svg to the file at path (created or truncated).  A partly
 * written regular file is removed on failure.  Errors: JG_IO naming the file
 * ("PATH: cannot write", "PATH: write failed").  Cost: as above. */
JG_API jg_status_t jg_plot_save_svg(const jg_plot_t *pl, const char *path, jg_error_t *err);

/* n plots (1..64) stacked top to bottom in one SVG document, each panel with
 * its own title, labels and legend, as wide as the widest (a Bode diagram:
 * magnitude over phase).  Errors: JG_ARG (n out of range, a NULL panel),
 * JG_IO as above.  Cost: the sum of the panels'. */
JG_API jg_status_t jg_plot_write_svg_stack(const jg_plot_t *const *pl, int n, FILE *f, jg_error_t *err);
JG_API jg_status_t jg_plot_save_svg_stack(const jg_plot_t *const *pl, int n, const char *path,
                                          jg_error_t *err);

/* A pole-zero map: np poles drawn as x, nz zeros as o, in the complex plane
 * with equal scales on both axes, the axes through 0 and, when unit_circle
 * is set (a discrete model), the unit circle dashed.  The legend counts
 * poles and zeros; o->title and o->subtitle head the plot (the axis labels
 * are "real" and "imaginary" unless o->xlabel / o->ylabel say otherwise;
 * the other fields are unused).  Non-finite roots are left out (the legend
 * says how many).  Errors: JG_ARG (negative counts, NULL arrays), JG_IO.
 * Cost: O(np + nz). */
JG_API jg_status_t jg_plot_write_pzmap_svg(FILE *f, int64_t np, const double *pre, const double *pim,
                                           int64_t nz, const double *zre, const double *zim,
                                           int unit_circle, const jg_plot_opts_t *o, jg_error_t *err);
/* The same into the file at path (a partial file is removed on failure);
 * JG_IO names the file. */
JG_API jg_status_t jg_plot_save_pzmap_svg(const char *path, int64_t np, const double *pre, const double *pim,
                                          int64_t nz, const double *zre, const double *zim, int unit_circle,
                                          const jg_plot_opts_t *o, jg_error_t *err);

/* A scatter plot of n labelled points (x[k], y[k]) where lower is better on
 * both axes (a strategy's cost against its memory): every point numbered
 * and listed in the legend with its label (equal points drawn once, their
 * labels joined), the points that no other point beats on both axes (the
 * Pareto front) filled and joined by a dashed staircase.  o's title,
 * subtitle, xlabel and ylabel are used (the axes are linear, the data's
 * range with a margin).  Non-finite points are left out (the legend says
 * how many).  Labels are copied into the document, not kept.  Errors:
 * JG_ARG (n < 0, NULL arrays or label), JG_NOMEM, JG_IO.  Cost: O(n^2). */
JG_API jg_status_t jg_plot_write_scatter_svg(FILE *f, int64_t n, const double *x, const double *y,
                                             const char *const *labels, const jg_plot_opts_t *o,
                                             jg_error_t *err);
/* The same into the file at path (a partial regular file is removed on
 * failure); JG_IO names the file. */
JG_API jg_status_t jg_plot_save_scatter_svg(const char *path, int64_t n, const double *x, const double *y,
                                            const char *const *labels, const jg_plot_opts_t *o,
                                            jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
