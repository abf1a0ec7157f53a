/* A spy plot of the solver Jacobian's structural pattern as SVG: one square
 * per entry, black where J_x is nonzero at this point, grey elsewhere. */
#include <math.h>
#include <string.h>
#include "jacgraph/io.h"
#include "io_impl.h"

static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

/* J(i, j) in the method's pattern (0 when not stored); rows sorted within
 * each column, as jg_solverjac_alloc lays them out. */
static double value_at(const cs_dl *J, int64_t i, int64_t j)
{
    int64_t lo = J->p[j], hi = J->p[j + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (J->i[mid] == i) return J->x[mid];
        if (J->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

jg_status_t jg_io_write_jacobian_svg(const char *path, const jg_program_t *p, const jg_solverjac_t *sj,
                                     const cs_dl *J, double t, jg_error_t *err)
{
    if (!path || !p || !sj || !J || !J->p || (!J->x && J->p[J->n]) || J->nz != -1 ||
        J->n != jg_solverjac_nstates(sj) || J->m != J->n)
        return jg_error_set(err, JG_ARG, "jg_io_write_jacobian_svg: NULL or mis-shaped argument");
    const cs_dl *S = jg_solverjac_structure(sj);
    const int64_t n = jg_solverjac_nstates(sj);
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    int labels = n > 0 && n <= 40;
    double cell = n ? fmin(24.0, fmax(480.0 / (double)n, 0.005)) : 24.0, side = cell * (double)n;
    int lw = 0;
    for (int64_t k = 0; labels && k < n; k++) {
        int l = (int)strlen(jg_program_state_name(p, k));
        if (l > lw) lw = l;
    }
    double fs = labels ? fmin(12.0, fmax(7.0, 0.8 * cell)) : 0;
    double mx = 20 + (labels ? 0.6 * fs * lw + 6 : 0), my = 48 + (labels ? 0.6 * fs * lw + 6 : 0);
    double W = mx + side + 20, H = my + side + 20;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.2f %.2f\" font-family=\"sans-serif\">\n",
            ceil(W), ceil(H), W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"20\" y=\"20\" font-size=\"14\">");
    svg_text(f, jg_program_name(p));
    fprintf(f, ": J_x pattern, %lld states, %lld entries, %lld colors (lower bound %lld)</text>\n",
            (long long)n, (long long)S->p[n], (long long)jg_solverjac_ncolors(sj),
            (long long)jg_solverjac_max_row_nnz(sj));
    fprintf(f, "<text x=\"20\" y=\"36\" font-size=\"11\" fill=\"#555\">%s at t = %.6g; black: "
               "nonzero, grey: structural zero</text>\n",
            jg_solverjac_method_name(jg_solverjac_method(sj)), t);
    fprintf(f, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"none\" "
               "stroke=\"#888\" stroke-width=\"0.5\"/>\n",
            mx, my, side, side);
    for (int64_t k = 0; labels && k < n; k++) {
        const char *name = jg_program_state_name(p, k);
        double c = (double)k * cell + 0.5 * cell + 0.35 * fs;
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"end\">", mx - 4,
                my + c, fs);
        svg_text(f, name);
        fprintf(f, "</text>\n<text transform=\"translate(%.2f %.2f) rotate(-90)\" font-size=\"%.1f\">",
                mx + c, my - 4, fs);
        svg_text(f, name);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "<g stroke=\"none\">\n");
    double gap = cell >= 4 ? 0.08 * cell : 0;   /* neighbours stay apart when they can */
    for (int64_t c = 0; c < n; c++)
        for (int64_t q = S->p[c]; q < S->p[c + 1]; q++) {
            int64_t i = S->i[q];
            double v = value_at(J, i, c);
            fprintf(f, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"%s\"/>\n",
                    mx + (double)c * cell + gap, my + (double)i * cell + gap, cell - 2 * gap,
                    cell - 2 * gap, v != 0 ? "black" : "#bbb");
        }
    fprintf(f, "</g>\n</svg>\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        jg__io_discard(path);
        return jg_error_set(err, JG_IO, "%s: write failed", path);
    }
    return JG_OK;
}
