/* plot_impl.h -- drawing helpers shared by the SVG plot writers of lib/io
 * (plot.c: line plots; plot_pz.c: pole-zero maps). */
#ifndef JG_IO_PLOT_IMPL_H
#define JG_IO_PLOT_IMPL_H
#include <stddef.h>
#include <stdio.h>

/* A 1-2-5 step giving about `target` intervals over span (> 0). */
double jg__plot_nice_step(double span, int target);
/* Tick label for v on a grid of `step` whose values reach magnitude amax. */
void jg__plot_tick_label(char *buf, size_t n, double v, double step, double amax);
/* Text content or attribute value, XML-escaped. */
void jg__plot_xml_text(FILE *f, const char *s);
/* The title (y = 24, bold) and subtitle (y = 44, grey) centred at x = cx;
 * either may be NULL. */
void jg__plot_titles(FILE *f, double cx, const char *title, const char *subtitle);
/* The x label centred at (cx, y_x) and the y label rotated at (20, cy). */
void jg__plot_axis_labels(FILE *f, double cx, double y_x, double cy, const char *xlabel, const char *ylabel);

#endif
