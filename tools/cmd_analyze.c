/* jacgraph analyze: answers about the linear model at an operating point
 * (poles, zeros, DC gain, controllability, minimal realization, transfer
 * functions) and its pictures (Bode, step, impulse, pole-zero map). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#ifndef M_PI   /* not in strict C11 */
#define M_PI 3.14159265358979323846
#endif

static const char help[] =
    "usage: jacgraph analyze MODEL [options]\n"
    "\n"
    "Linearize MODEL (the options of `linearize`) and describe the linear model:\n"
    "poles with damping and natural frequency, invariant zeros of the system and\n"
    "the zeros of each SISO channel, DC gain, controllability and observability,\n"
    "the order of a minimal realization; transfer functions and plots on request.\n"
    "\n"
    "  --input BLOCK:N, --output BLOCK:N, --open BLOCK:N, --no-default-io, --op FILE\n"
    "                      the linearization I/O and operating point (see linearize)\n"
    "  --method graph|matrix|perturb, --reduce S, --order FILE   as linearize\n"
    CLI_TIME_HELP
    "                      (a discrete model: poles and zeros in z, damping and\n"
    "                      natural frequency of log(z)/Ts, Bode up to pi/Ts, held\n"
    "                      step responses, the unit circle in --pzmap)\n"
    "  --delays pade:N|exact   TransportDelays as linearize: pade:N the Pade\n"
    "                      approximation of order N for every one; exact: the delays\n"
    "                      kept, and only what is exact for them is computed: --bode\n"
    "                      and --freq (the delays closed at each frequency); poles,\n"
    "                      zeros, gains, realizations and time responses are refused\n"
    "  --channel IN,OUT    a channel: input and output by name or 1-based index\n"
    "                      (repeatable; default every channel, up to 16 described\n"
    "                      and 12 drawn)\n"
    "  --tf                transfer functions of the channels: num/den and zpk\n"
    "  --minreal TOL       print a minimal realization (orthogonal staircase; a\n"
    "                      singular value counts above TOL times the norm of\n"
    "                      [A B]; default sqrt(eps) for the ranks)\n"
    "  --bode FILE.svg     magnitude (dB) and phase (degrees) of the channels over\n"
    "                      frequencies chosen from the poles and zeros\n"
    "  --step FILE.svg     unit step responses of the channels\n"
    "  --impulse FILE.svg  impulse responses of the channels\n"
    "  --pzmap FILE.svg    poles (x) and invariant zeros (o) in the complex plane\n"
    "  --freq W1,W2,...    the frequency response at these frequencies (rad/s):\n"
    "                      real and imaginary parts, magnitude (dB), phase (degrees)\n"
    "  --tfinal T          the time span of --step and --impulse (default from the\n"
    "                      slowest pole: 8 time constants)\n"
    "  --format text|json  output (default text); json: poles, zeros as [re, im]\n"
    "                      pairs, dc_gain as rows of outputs, one entry per channel\n"
    "  --digits N          significant digits of the text (default 6)\n"
    "  --out FILE          write the text or JSON to FILE instead of stdout\n";

typedef struct {
    int64_t in, out;
    jg_analysis_tf_t *tf;     /* minimal channel: poles, zeros, gain, polynomials */
} chan_t;

static const char *pick_name(char **names, int64_t k, char *buf, size_t n)
{
    if (names && names[k]) return names[k];
    snprintf(buf, n, "%lld", (long long)k + 1);
    return buf;
}

/* a name or a 1-based index among n names; -1 when none matches */
static int64_t find_name(char **names, int64_t n, const char *s, size_t len)
{
    for (int64_t k = 0; k < n; k++)
        if (names && names[k] && strlen(names[k]) == len && !strncmp(names[k], s, len)) return k;
    char buf[32], *end;
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    long v = strtol(buf, &end, 10);
    return *end || v < 1 || v > n ? -1 : v - 1;
}

/* "IN,OUT": names may hold commas ("Plant:1"), so every split is tried */
static int parse_channel(const jg_lin_sys_t *ls, int64_t nu, int64_t ny, const char *s, int64_t *in, int64_t *out)
{
    for (const char *c = strchr(s, ','); c; c = strchr(c + 1, ',')) {
        int64_t i = find_name(ls->input_names, nu, s, (size_t)(c - s));
        int64_t o = find_name(ls->output_names, ny, c + 1, strlen(c + 1));
        if (i >= 0 && o >= 0) {
            *in = i, *out = o;
            return 0;
        }
    }
    return -1;
}

/* ---- text */

static void root_text(FILE *f, double re, double im, int dg)
{
    if (im == 0) fprintf(f, "%.*g", dg, re);
    else fprintf(f, "%.*g %c %.*gi", dg, re, im < 0 ? '-' : '+', dg, fabs(im));
}

static void roots_line(FILE *f, int64_t n, const double *re, const double *im, int dg)
{
    if (n == 0) fputs("none", f);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        root_text(f, re[k], im[k], dg);
    }
    fputc('\n', f);
}

/* c[0] x^n + ... + c[n], leading zeros skipped */
static void poly_text(FILE *f, int64_t n, const double *c, const char *x, int dg)
{
    int first = 1;
    for (int64_t k = 0; k <= n; k++) {
        double v = c[k];
        int64_t pw = n - k;
        if (v == 0 && (pw > 0 || !first)) continue;
        double a = fabs(v);
        if (first) fputs(v < 0 ? "-" : "", f);
        else fputs(v < 0 ? " - " : " + ", f);
        if (a != 1 || pw == 0) fprintf(f, "%.*g%s", dg, a, pw ? " " : "");
        if (pw == 1) fputs(x, f);
        else if (pw > 1) fprintf(f, "%s^%lld", x, (long long)pw);
        first = 0;
    }
    if (first) fputs("0", f);
}

/* prod of (x - r) factors, conjugate pairs as quadratics */
static void factors_text(FILE *f, int64_t n, const double *re, const double *im, const char *x, int dg)
{
    if (n == 0) {
        fputs("1", f);
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        if (k) fputc(' ', f);
        if (im[k] != 0 && k + 1 < n && im[k + 1] == -im[k]) {
            double q[3] = {1, -2 * re[k], re[k] * re[k] + im[k] * im[k]};
            fputc('(', f);
            poly_text(f, 2, q, x, dg);
            fputc(')', f);
            k++;
        } else if (re[k] == 0 && im[k] == 0) {
            fputs(x, f);
        } else {
            fprintf(f, "(%s %c %.*g)", x, re[k] > 0 ? '-' : '+', dg, fabs(re[k]));
        }
    }
}

static void matrix_text(FILE *f, const char *name, int64_t r, int64_t c, const double *M, int dg)
{
    fprintf(f, "%s =\n", name);
    if (r == 0 || c == 0) fprintf(f, "  (%lld x %lld)\n", (long long)r, (long long)c);
    for (int64_t i = 0; i < r && c > 0; i++) {
        for (int64_t j = 0; j < c; j++) fprintf(f, " %*.*g", dg + 7, dg, M[i + j * r]);
        fputc('\n', f);
    }
}

/* ---- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs(v > 0 ? "\"inf\"" : v < 0 ? "\"-inf\"" : "null", f);
}

static void json_roots(FILE *f, int64_t n, const double *re, const double *im)
{
    fputc('[', f);
    for (int64_t k = 0; k < n; k++) {
        fputs(k ? ", [" : "[", f);
        json_num(f, re[k]);
        fputs(", ", f);
        json_num(f, im[k]);
        fputc(']', f);
    }
    fputc(']', f);
}

static void json_vec(FILE *f, int64_t n, const double *v)
{
    fputc('[', f);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        json_num(f, v[k]);
    }
    fputc(']', f);
}

/* rows of an r x c column-major matrix */
static void json_mat(FILE *f, int64_t r, int64_t c, const double *M)
{
    fputc('[', f);
    for (int64_t i = 0; i < r; i++) {
        fputs(i ? ", [" : "[", f);
        for (int64_t j = 0; j < c; j++) {
            if (j) fputs(", ", f);
            json_num(f, M[i + j * r]);
        }
        fputc(']', f);
    }
    fputc(']', f);
}

static void json_names(FILE *f, int64_t n, char **names)
{
    char buf[32];
    fputc('[', f);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        json_str(f, pick_name(names, k, buf, sizeof buf));
    }
    fputc(']', f);
}

/* The opening of analyze's JSON: the model, the point and the names. */
static void json_head(FILE *f, const char *title, const jg_lin_sys_t *ls, int64_t n, int64_t nu, int64_t ny)
{
    fputs("{\"model\": ", f);
    json_str(f, title);
    fprintf(f, ", \"t\": %.17g, \"ts\": %.17g,\n \"states\": ", ls->t, ls->Ts);
    json_names(f, n, ls->state_names);
    fputs(", \"inputs\": ", f);
    json_names(f, nu, ls->input_names);
    fputs(", \"outputs\": ", f);
    json_names(f, ny, ls->output_names);
}

/* ---- plots */

static char *chan_label(const jg_lin_sys_t *ls, const chan_t *c)
{
    char b1[32], b2[32];
    const char *i = pick_name(ls->input_names, c->in, b1, sizeof b1), *o = pick_name(ls->output_names, c->out, b2, sizeof b2);
    size_t n = strlen(i) + strlen(o) + 8;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s \xe2\x86\x92 %s", i, o);   /* IN → OUT */
    return s;
}

/* s: the model; NULL for one with internal delays (ls then gives the exact
 * response, on its own grid) */
static int save_bode(const char *path, const jg_lin_sys_t *ls, const jg_analysis_ss_t *s, const chan_t *ch,
                     int nch, const char *title, const char *sub, const double *pre, const double *pim,
                     jg_error_t *err)
{
    enum { NB = 500 };
    int64_t NW = NB, nx = ls->nx, ny = ls->ny - ls->ndelays, nu = ls->nu - ls->ndelays;
    double Ts = ls->Ts;
    int nd = nch < JG_PLOT_MAX_CURVES ? nch : JG_PLOT_MAX_CURVES;
    int64_t nroot = s ? nx : 0, nz = 0;
    for (int c = 0; c < nd; c++) nz += ch[c].tf ? ch[c].tf->nz : 0;
    double *zr = malloc(sizeof(double) * (size_t)(nz + 1)), *zi = malloc(sizeof(double) * (size_t)(nz + 1));
    double *w = malloc(sizeof(double) * (size_t)(NB + 9 * nx)), *mag = NULL, *ph = NULL, y[2][JG_PLOT_MAX_CURVES];
    char *names[JG_PLOT_MAX_CURVES] = {0};
    jg_plot_t *pl[2] = {NULL, NULL};
    jg_status_t st = JG_NOMEM;
    if (!zr || !zi || !w) goto done;
    nz = 0;
    for (int c = 0; c < nd; c++)
        for (int64_t k = 0; ch[c].tf && k < ch[c].tf->nz; k++) zr[nz] = ch[c].tf->zre[k], zi[nz++] = ch[c].tf->zim[k];
    if (s) jg_analysis_freqgrid(nroot, pre, pim, nz, zr, zi, Ts, NB, w);
    else if ((st = jg_analysis_lin_freqgrid(ls, NB, w, err))) goto done;
    /* a lightly damped pole's peak is narrower than the grid's step: add
     * points across it (relative width 2 zeta), then sort */
    for (int64_t k = 0; k < nroot; k++) {
        double wn, z;
        jg_analysis_damp(pre[k], pim[k], Ts, &wn, &z);
        if (!(fabs(z) < 0.2) || pim[k] < 0 || !(wn > w[0] && wn < w[NB - 1])) continue;
        for (int q = -4; q <= 4; q++) w[NW++] = wn * (1 + q * fmax(fabs(z), 1e-4) / 2);
    }
    for (int64_t a = 1; a < NW; a++)
        for (int64_t b = a; b > 0 && w[b - 1] > w[b]; b--) {
            double tmp = w[b];
            w[b] = w[b - 1];
            w[b - 1] = tmp;
        }
    st = JG_NOMEM;
    mag = malloc(sizeof(double) * (size_t)(nu * ny * NW + 1));
    ph = malloc(sizeof(double) * (size_t)(nu * ny * NW + 1));
    if (!mag || !ph) goto done;
    if ((st = s ? jg_analysis_bode(s, NW, w, mag, ph, err) : jg_analysis_lin_bode(ls, NW, w, mag, ph, err)))
        goto done;
    for (int c = 0; c < nd; c++)
        if (!(names[c] = chan_label(ls, &ch[c]))) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
            goto done;
        }
    /* a discrete response repeats beyond the Nyquist frequency: the grid ends
     * there, and a line says so */
    char nyq[64];
    snprintf(nyq, sizeof nyq, "Nyquist \xcf\x80/Ts = %.4g", M_PI / (Ts > 0 ? Ts : 1));
    jg_plot_opts_t o1 = {.title = title, .subtitle = sub, .xlabel = "frequency (rad/s)", .ylabel = "magnitude (dB)",
                         .xlog = 1, .xmark_label = Ts > 0 ? nyq : NULL, .xmark = M_PI / (Ts > 0 ? Ts : 1)};
    jg_plot_opts_t o2 = {.title = NULL, .xlabel = "frequency (rad/s)", .ylabel = "phase (degrees)", .xlog = 1,
                         .xmark_label = o1.xmark_label, .xmark = o1.xmark};
    if ((st = jg_plot_create(nch, (const char *const *)names, &o1, &pl[0], err)) ||
        (st = jg_plot_create(nch, (const char *const *)names, &o2, &pl[1], err)))
        goto done;
    for (int64_t k = 0; k < NW; k++) {
        for (int c = 0; c < nd; c++) {
            int64_t q = ch[c].in * ny + ch[c].out;
            y[0][c] = mag[q * NW + k];
            y[1][c] = ph[q * NW + k];
        }
        if ((st = jg_plot_add(pl[0], w[k], y[0], err)) || (st = jg_plot_add(pl[1], w[k], y[1], err))) goto done;
    }
    st = jg_plot_save_svg_stack((const jg_plot_t *const *)pl, 2, path, err);
done:
    if (st == JG_NOMEM) jg_error_set(err, JG_NOMEM, "out of memory");
    for (int c = 0; c < JG_PLOT_MAX_CURVES; c++) free(names[c]);
    jg_plot_free(pl[0]);
    jg_plot_free(pl[1]);
    free(zr), free(zi), free(w), free(mag), free(ph);
    return st;
}

static int save_time(const char *path, jg_analysis_resp_t kind, double tfinal, const jg_lin_sys_t *ls,
                     const jg_analysis_ss_t *s, const chan_t *ch, int nch, const char *title, const char *sub,
                     jg_error_t *err)
{
    int64_t nt = s->Ts > 0 ? (int64_t)llround(tfinal / s->Ts) + 1 : 1001;
    int nd = nch < JG_PLOT_MAX_CURVES ? nch : JG_PLOT_MAX_CURVES;
    double *t = malloc(sizeof(double) * (size_t)nt), *Y = malloc(sizeof(double) * (size_t)(nt * s->nu * s->ny + 1));
    double y[JG_PLOT_MAX_CURVES];
    char *names[JG_PLOT_MAX_CURVES] = {0};
    jg_plot_t *pl = NULL;
    jg_status_t st = JG_NOMEM;
    if (!t || !Y) goto done;
    if ((st = jg_analysis_timeresp(s, kind, tfinal, nt, t, Y, err))) goto done;
    for (int c = 0; c < nd; c++)
        if (!(names[c] = chan_label(ls, &ch[c]))) {
            st = JG_NOMEM;
            goto done;
        }
    jg_plot_opts_t o = {.title = title, .subtitle = sub, .xlabel = "time (s)",
                        .ylabel = kind == JG_ANALYSIS_STEP ? "step response" : "impulse response"};
    if ((st = jg_plot_create(nch, (const char *const *)names, &o, &pl, err))) goto done;
    for (int64_t k = 0; k < nt; k++) {
        for (int c = 0; c < nd; c++) y[c] = Y[(ch[c].in * s->ny + ch[c].out) * nt + k];
        if ((st = jg_plot_add(pl, t[k], y, err))) goto done;
        /* a discrete response holds its value until the next sample */
        if (s->Ts > 0 && k + 1 < nt && (st = jg_plot_add(pl, t[k + 1], y, err))) goto done;
    }
    st = jg_plot_save_svg(pl, path, err);
done:
    if (st == JG_NOMEM) jg_error_set(err, JG_NOMEM, "out of memory");
    for (int c = 0; c < JG_PLOT_MAX_CURVES; c++) free(names[c]);
    jg_plot_free(pl);
    free(t), free(Y);
    return st;
}

/* ---- --freq and models with internal delays */

/* "0.1,1,10" -> frequencies >= 0; the count, or -1 when malformed. */
static int parse_freqs(const char *s, double *w, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || n == max || !(v >= 0) || !isfinite(v)) return -1;
        w[n++] = v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n ? n : -1;
}

/* The frequency response of the channels at nw frequencies (exact with
 * internal delays), as text rows or a JSON array. */
static jg_status_t write_freqs(FILE *f, int json, const jg_lin_sys_t *ls, const chan_t *ch, int nch, int nw,
                               const double *w, int dg, jg_error_t *err)
{
    int64_t nc = (ls->nu - ls->ndelays) * (ls->ny - ls->ndelays), ny = ls->ny - ls->ndelays;
    size_t len = sizeof(double) * (size_t)(nc * nw + 1);
    double *re = malloc(len), *im = malloc(len), *mag = malloc(len), *ph = malloc(len);
    char b1[32], b2[32];
    jg_status_t st = JG_OK;
    if (!re || !im || !mag || !ph) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if ((st = jg_analysis_lin_freqresp(ls, nw, w, re, im, err)) || (st = jg_analysis_lin_bode(ls, nw, w, mag, ph, err)))
        goto done;
    if (json) fputs(",\n \"freqresp\": [", f);
    for (int c = 0; c < nch; c++) {
        int64_t q = (ch[c].in * ny + ch[c].out) * nw;
        const char *in = pick_name(ls->input_names, ch[c].in, b1, sizeof b1);
        const char *out = pick_name(ls->output_names, ch[c].out, b2, sizeof b2);
        if (json) {
            fputs(c ? ",\n  {\"input\": " : "\n  {\"input\": ", f);
            json_str(f, in);
            fputs(", \"output\": ", f);
            json_str(f, out);
            fputs(", \"w\": ", f);
            json_vec(f, nw, w);
            fputs(", \"re\": ", f);
            json_vec(f, nw, re + q);
            fputs(", \"im\": ", f);
            json_vec(f, nw, im + q);
            fputs(", \"mag_db\": ", f);
            json_vec(f, nw, mag + q);
            fputs(", \"phase_deg\": ", f);
            json_vec(f, nw, ph + q);
            fputc('}', f);
            continue;
        }
        fprintf(f, "\nfrequency response %s -> %s:\n  %*s %*s %*s %*s %*s\n", in, out, dg + 8, "w (rad/s)", dg + 8,
                "real", dg + 8, "imaginary", dg + 8, "magnitude (dB)", dg + 8, "phase (deg)");
        for (int k = 0; k < nw; k++)
            fprintf(f, "  %*.*g %*.*g %*.*g %*.*g %*.*g\n", dg + 8, dg, w[k], dg + 8, dg, re[q + k], dg + 8, dg,
                    im[q + k], dg + 8, dg, mag[q + k], dg + 8, dg, ph[q + k]);
    }
    if (json) fputs("]", f);
done:
    free(re), free(im), free(mag), free(ph);
    return st;
}

/* "N internal delays (NAME TAU s, ...)" */
static void delays_text(FILE *f, const jg_lin_sys_t *ls)
{
    char b[32];
    fprintf(f, "%lld internal delay%s (", (long long)ls->ndelays, ls->ndelays == 1 ? "" : "s");
    for (int64_t k = 0; k < ls->ndelays; k++)
        fprintf(f, "%s%s %g s", k ? ", " : "", pick_name(ls->input_names, ls->nu - ls->ndelays + k, b, sizeof b),
                ls->delays[k]);
    fputc(')', f);
}

static int positive(const char *cmd, const char *opt, const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    if (*end || !(*out > 0) || !isfinite(*out)) return cli_usage(cmd, "%s must be a positive number", opt);
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "analyze"};
    cli_io_t io = {0};
    cli_time_t tm = {0};
    const char *model = NULL, *method = "graph", *reduce = NULL, *order = NULL, *format = "text", *out = NULL,
               *digits_s = NULL, *minreal_s = NULL, *bode = NULL, *step = NULL, *impulse = NULL, *pzmap = NULL,
               *tfinal_s = NULL, *freq_s = NULL, *chan_s[256];
    int nchan_s = 0, want_tf = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        const char *v;
        if ((r = cli_opt(&a, "--channel", &v))) {
            if (r < 0) return EXIT_USAGE;
            if (nchan_s == 256) return cli_usage(a.cmd, "too many --channel options");
            chan_s[nchan_s++] = v;
            continue;
        }
        if ((r = cli_io_opt(&a, &io)) || (r = cli_time_opt(&a, &tm)) || (r = cli_opt(&a, "--method", &method)) ||
            (r = cli_opt(&a, "--reduce", &reduce)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--order", &order)) ||
            (r = cli_opt(&a, "--out", &out)) || (r = cli_opt(&a, "--digits", &digits_s)) ||
            (r = cli_opt(&a, "--minreal", &minreal_s)) || (r = cli_opt(&a, "--bode", &bode)) ||
            (r = cli_opt(&a, "--step", &step)) || (r = cli_opt(&a, "--impulse", &impulse)) ||
            (r = cli_opt(&a, "--pzmap", &pzmap)) || (r = cli_opt(&a, "--tfinal", &tfinal_s)) ||
            (r = cli_opt(&a, "--freq", &freq_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--tf")) {
            want_tf = 1;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    int m = jg_lin_method_parse(method), dg = 6;
    const jg_graph_strategy_t *red;
    if (m < 0) return cli_usage(a.cmd, "unknown --method '%s' (graph, matrix, perturb)", method);
    if ((r = cli_strategy(a.cmd, reduce, order, "markowitz", &red))) return r;
    if ((r = cli_time_check(a.cmd, &tm, &io))) return r;
    int json = !strcmp(format, "json");
    if (!json && strcmp(format, "text")) return cli_usage(a.cmd, "unknown --format '%s' (text, json)", format);
    if (digits_s) {
        char *end;
        long d = strtol(digits_s, &end, 10);
        if (*end || d < 1 || d > 17) return cli_usage(a.cmd, "--digits must be 1..17");
        dg = (int)d;
    }
    double tol = sqrt(DBL_EPSILON), tfinal = 0;
    if (minreal_s && (r = positive(a.cmd, "--minreal", minreal_s, &tol))) return r;
    if (tfinal_s && (r = positive(a.cmd, "--tfinal", tfinal_s, &tfinal))) return r;
    double freqs[256];
    int nfreq = 0;
    if (freq_s && (nfreq = parse_freqs(freq_s, freqs, 256)) < 0)
        return cli_usage(a.cmd, "--freq expects up to 256 frequencies >= 0 (rad/s) separated by commas, e.g. 0.1,1,10");

    jg_model_t *md = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *ls = NULL;
    jg_analysis_ss_t *s = NULL, *mr = NULL;
    chan_t *ch = NULL;
    int nalloc = 0;
    double *pre = NULL, *pim = NULL, *zre = NULL, *zim = NULL, *G = NULL, *ure = NULL, *uim = NULL, *ore = NULL,
           *oim = NULL;
    FILE *f = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if ((rc = cli_lin(p, &io, &l))) goto done;
    if (cli_lin_run(l, (jg_lin_method_t)m, red, &ls, NULL, &err)) goto fail;
    if ((rc = cli_time_apply(p, l, &tm, &ls))) goto done;
    /* internal delays (--delays exact): the delay-free part's poles, zeros,
     * gains and time responses are not the delayed system's; its frequency
     * response closed through the delays is exact */
    int64_t ndl = ls->ndelays, n = ls->nx, nu = ls->nu - ndl, ny = ls->ny - ndl;
    if (ndl > 0 && (!(bode || nfreq) || step || impulse || pzmap || want_tf || minreal_s)) {
        char what[64] = "";
        const char *asked[5] = {step ? "--step" : NULL, impulse ? "--impulse" : NULL, pzmap ? "--pzmap" : NULL,
                                want_tf ? "--tf" : NULL, minreal_s ? "--minreal" : NULL};
        for (int k = 0; k < 5; k++)
            if (asked[k]) snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", *what ? ", " : "", asked[k]);
        fprintf(stderr, "jacgraph: error: %s: the linear model has ", jg_program_name(p));
        delays_text(stderr, ls);
        fprintf(stderr, "%s%s: its poles, zeros, DC gain, controllability, minimal realization, transfer "
                        "functions and time responses are not those of the delay-free part; only the frequency "
                        "response is exact (--bode FILE.svg, --freq W1,W2,...); --delays pade:N approximates the "
                        "delays for the rest\n", *what ? ", asked for " : "", what);
        rc = jg_status_exit(JG_ARG);
        goto done;
    }
    if (!ndl && jg_analysis_ss_from_lin(ls, ls->Ts, &s, &err)) goto fail;
    /* channels: named ones, else every one (described up to 16) */
    int nch = 0, described = 1;
    nalloc = nchan_s ? nchan_s : (int)(nu * ny > 0 ? nu * ny : 1);
    ch = calloc((size_t)nalloc, sizeof *ch);
    if (!ch) goto nomem;
    for (int k = 0; k < nchan_s; k++) {
        if (parse_channel(ls, nu, ny, chan_s[k], &ch[nch].in, &ch[nch].out)) {
            rc = cli_usage(a.cmd, "--channel '%s': no input,output pair of that name or index "
                                  "(%lld inputs, %lld outputs)", chan_s[k], (long long)nu, (long long)ny);
            goto done;
        }
        nch++;
    }
    if (!nchan_s) {
        for (int64_t j = 0; j < nu; j++)
            for (int64_t i = 0; i < ny; i++) ch[nch].in = j, ch[nch].out = i, nch++;
        described = nch <= 16;
    }
    if ((bode || step || impulse || nfreq) && nch == 0) {
        rc = cli_usage(a.cmd, "the linear model has no input or no output: nothing to plot (linearization "
                              "points: --input BLOCK:N, --output BLOCK:N)");
        goto done;
    }
    pre = malloc(sizeof(double) * (size_t)(n + 1)), pim = malloc(sizeof(double) * (size_t)(n + 1));
    zre = malloc(sizeof(double) * (size_t)(n + 1)), zim = malloc(sizeof(double) * (size_t)(n + 1));
    ure = malloc(sizeof(double) * (size_t)(n + 1)), uim = malloc(sizeof(double) * (size_t)(n + 1));
    ore = malloc(sizeof(double) * (size_t)(n + 1)), oim = malloc(sizeof(double) * (size_t)(n + 1));
    G = malloc(sizeof(double) * (size_t)(nu * ny + 1));
    if (!pre || !pim || !zre || !zim || !ure || !uim || !ore || !oim || !G) goto nomem;
    int64_t nz = 0, rc_c = 0, rc_o = 0;
    int degen = 0;
    if (s && (jg_analysis_poles(s, pre, pim, &err) || jg_analysis_zeros(s, &nz, zre, zim, &degen, &err) ||
        jg_analysis_dcgain(s, G, &err) || jg_analysis_ctrb(s, tol, &rc_c, ure, uim, &err) ||
        jg_analysis_obsv(s, tol, &rc_o, ore, oim, &err) || jg_analysis_minreal(s, tol, &mr, &err)))
        goto fail;
    for (int c = 0; s && c < nch && (described || nchan_s); c++)
        if (jg_analysis_tf(s, ch[c].in, ch[c].out, tol, &ch[c].tf, &err)) goto fail;

    /* plots first: a bad path fails before any output */
    char sub[160];
    snprintf(sub, sizeof sub, "%s; linearized at t = %g", ndl ? "continuous, exact internal delays" : "continuous",
             ls->t);
    if (ls->Ts > 0) snprintf(sub, sizeof sub, "discrete, Ts = %g; linearized at t = %g", ls->Ts, ls->t);
    if (tm.delays == JG_LIN_DELAYS_PADE && !ndl)   /* the picture says what the delays are */
        snprintf(sub + strlen(sub), sizeof sub - strlen(sub), "; delays: Pade order %d", io.pade_order);
    const char *title = jg_program_name(p);
    if (bode && save_bode(bode, ls, s, ch, nch, title, sub, pre, pim, &err)) goto fail;
    if (step || impulse) {
        double tf = tfinal > 0 ? tfinal : jg_analysis_tfinal(n, pre, pim, s->Ts);
        if (s->Ts > 0) tf = fmax(s->Ts, s->Ts * round(tf / s->Ts));
        if (step && save_time(step, JG_ANALYSIS_STEP, tf, ls, s, ch, nch, title, sub, &err)) goto fail;
        if (impulse && save_time(impulse, JG_ANALYSIS_IMPULSE, tf, ls, s, ch, nch, title, sub, &err)) goto fail;
    }
    if (pzmap) {
        jg_plot_opts_t po = {.title = title, .subtitle = sub};
        if (jg_plot_save_pzmap_svg(pzmap, n, pre, pim, nz, zre, zim, s->Ts > 0, &po, &err)) goto fail;
    }

    f = out ? fopen(out, "w") : stdout;
    if (!f) {
        jg_error_set(&err, JG_IO, "%s: cannot write", out);
        goto fail;
    }
    const char *var = ls->Ts > 0 ? "z" : "s";
    char b1[32], b2[32];
    if (ndl) {   /* the delayed system: what it is, and what is exact */
        if (json) {
            json_head(f, title, ls, n, nu, ny);
            fputs(",\n \"delays\": [", f);
            for (int64_t k = 0; k < ndl; k++) {
                fputs(k ? ", {\"name\": " : "{\"name\": ", f);
                json_str(f, pick_name(ls->input_names, ls->nu - ndl + k, b1, sizeof b1));
                fputs(", \"tau\": ", f);
                json_num(f, ls->delays[k]);
                fputc('}', f);
            }
            fputc(']', f);
            if (nfreq && write_freqs(f, 1, ls, ch, nch, nfreq, freqs, dg, &err)) goto fail;
            fputs("}\n", f);
            goto written;
        }
        fprintf(f, "%s: linear model at t = %g (%s method), %lld input%s, %lld output%s, continuous, ", title, ls->t,
                jg_lin_method_name((jg_lin_method_t)m), (long long)nu, nu == 1 ? "" : "s", (long long)ny,
                ny == 1 ? "" : "s");
        delays_text(f, ls);
        fprintf(f, ";\nthe delay-free part has %lld state%s\n\n", (long long)n, n == 1 ? "" : "s");
        fputs("exact with the delays: the frequency response (--bode, --freq: the delays closed at each\n"
              "frequency).  Not computed: poles, zeros, DC gain, controllability, minimal realization,\n"
              "transfer functions, time responses (those of the delay-free part are not the delayed\n"
              "system's; --delays pade:N approximates the delays)\n", f);
        if (nfreq && write_freqs(f, 0, ls, ch, nch, nfreq, freqs, dg, &err)) goto fail;
        goto written;
    }
    if (json) {
        json_head(f, title, ls, n, nu, ny);
        fputs(",\n \"poles\": ", f);
        json_roots(f, n, pre, pim);
        fputs(",\n \"damping\": [", f);
        for (int64_t k = 0; k < n; k++) {
            double wn, z;
            jg_analysis_damp(pre[k], pim[k], ls->Ts, &wn, &z);
            if (k) fputs(", ", f);
            json_num(f, z);
        }
        fputs("],\n \"wn\": [", f);
        for (int64_t k = 0; k < n; k++) {
            double wn, z;
            jg_analysis_damp(pre[k], pim[k], ls->Ts, &wn, &z);
            if (k) fputs(", ", f);
            json_num(f, wn);
        }
        fputs("],\n \"zeros\": ", f);
        json_roots(f, nz, zre, zim);
        fprintf(f, ", \"zeros_degenerate\": %s,\n \"dc_gain\": ", degen ? "true" : "false");
        json_mat(f, ny, nu, G);
        fprintf(f, ",\n \"controllable\": {\"rank\": %lld, \"uncontrollable_modes\": ", (long long)rc_c);
        json_roots(f, n - rc_c, ure, uim);
        fprintf(f, "},\n \"observable\": {\"rank\": %lld, \"unobservable_modes\": ", (long long)rc_o);
        json_roots(f, n - rc_o, ore, oim);
        fprintf(f, "},\n \"minreal\": {\"tol\": %.17g, \"order\": %lld", tol, (long long)mr->nx);
        if (minreal_s) {
            fputs(", \"A\": ", f);
            json_mat(f, mr->nx, mr->nx, mr->A);
            fputs(", \"B\": ", f);
            json_mat(f, mr->nx, nu, mr->B);
            fputs(", \"C\": ", f);
            json_mat(f, ny, mr->nx, mr->C);
            fputs(", \"D\": ", f);
            json_mat(f, ny, nu, mr->D);
        }
        fputs("},\n \"channels\": [", f);
        for (int c = 0; c < nch && ch[c].tf; c++) {
            const jg_analysis_tf_t *t = ch[c].tf;
            fputs(c ? ",\n  {\"input\": " : "\n  {\"input\": ", f);
            json_str(f, pick_name(ls->input_names, ch[c].in, b1, sizeof b1));
            fputs(", \"output\": ", f);
            json_str(f, pick_name(ls->output_names, ch[c].out, b2, sizeof b2));
            fputs(", \"zeros\": ", f);
            json_roots(f, t->nz, t->zre, t->zim);
            fputs(", \"poles\": ", f);
            json_roots(f, t->np, t->pre, t->pim);
            fputs(", \"dc_gain\": ", f);
            json_num(f, G[ch[c].out + ch[c].in * ny]);
            if (want_tf) {
                fputs(", \"gain\": ", f);
                json_num(f, t->k);
                fputs(", \"num\": ", f);
                json_vec(f, t->np + 1, t->num);
                fputs(", \"den\": ", f);
                json_vec(f, t->np + 1, t->den);
            }
            fputc('}', f);
        }
        fputc(']', f);
        if (nfreq && write_freqs(f, 1, ls, ch, nch, nfreq, freqs, dg, &err)) goto fail;
        fputs("}\n", f);
        goto written;
    }
    char tsd[64] = "continuous";
    if (ls->Ts > 0) snprintf(tsd, sizeof tsd, "discrete (Ts = %g)", ls->Ts);
    fprintf(f, "%s: linear model at t = %g (%s method), %lld state%s, %lld input%s, %lld output%s, %s\n\n", title,
            ls->t, jg_lin_method_name((jg_lin_method_t)m), (long long)n, n == 1 ? "" : "s", (long long)nu,
            nu == 1 ? "" : "s", (long long)ny, ny == 1 ? "" : "s", tsd);
    fprintf(f, "poles (%lld):\n", (long long)n);
    if (n) fprintf(f, "  %*s %*s %*s %*s\n", dg + 8, "real", dg + 8, "imaginary", dg + 8, "damping", dg + 12,
                   "frequency (rad/s)");
    for (int64_t k = 0; k < n; k++) {
        double wn, z;
        jg_analysis_damp(pre[k], pim[k], ls->Ts, &wn, &z);
        fprintf(f, "  %*.*g %*.*g %*.*g %*.*g\n", dg + 8, dg, pre[k], dg + 8, dg, pim[k], dg + 8, dg, z, dg + 12, dg, wn);
    }
    fprintf(f, "\ninvariant zeros (%lld): ", (long long)nz);
    roots_line(f, nz, zre, zim, dg);
    if (degen) fputs("  (the system matrix is rank deficient at every s: no isolated zeros computed)\n", f);
    fprintf(f, "\nDC gain (rows: outputs, columns: inputs):\n");
    if (nu * ny == 0) fputs("  (no inputs or no outputs)\n", f);
    for (int64_t i = 0; i < ny && nu; i++) {
        fprintf(f, "  %-24s", pick_name(ls->output_names, i, b2, sizeof b2));
        for (int64_t j = 0; j < nu; j++) fprintf(f, " %*.*g", dg + 7, dg, G[i + j * ny]);
        fputc('\n', f);
    }
    fprintf(f, "\ncontrollable: %s (rank %lld of %lld)", rc_c == n ? "yes" : "no", (long long)rc_c, (long long)n);
    if (rc_c < n) {
        fputs("; uncontrollable modes: ", f);
        roots_line(f, n - rc_c, ure, uim, dg);
    } else {
        fputc('\n', f);
    }
    fprintf(f, "observable:   %s (rank %lld of %lld)", rc_o == n ? "yes" : "no", (long long)rc_o, (long long)n);
    if (rc_o < n) {
        fputs("; unobservable modes: ", f);
        roots_line(f, n - rc_o, ore, oim, dg);
    } else {
        fputc('\n', f);
    }
    fprintf(f, "minimal realization: order %lld (tolerance %g)\n", (long long)mr->nx, tol);
    if (minreal_s) {
        fputc('\n', f);
        matrix_text(f, "A", mr->nx, mr->nx, mr->A, dg);
        matrix_text(f, "B", mr->nx, nu, mr->B, dg);
        matrix_text(f, "C", ny, mr->nx, mr->C, dg);
        matrix_text(f, "D", ny, nu, mr->D, dg);
    }
    if (!(described || nchan_s))
        fprintf(f, "\n%lld channels: name some with --channel IN,OUT to see their zeros and transfer functions\n",
                (long long)(nu * ny));
    for (int c = 0; c < nch && ch[c].tf; c++) {
        const jg_analysis_tf_t *t = ch[c].tf;
        fprintf(f, "\nchannel %s -> %s:\n  zeros (%lld): ", pick_name(ls->input_names, ch[c].in, b1, sizeof b1),
                pick_name(ls->output_names, ch[c].out, b2, sizeof b2), (long long)t->nz);
        roots_line(f, t->nz, t->zre, t->zim, dg);
        fprintf(f, "  poles (%lld, minimal): ", (long long)t->np);
        roots_line(f, t->np, t->pre, t->pim, dg);
        if (!want_tf) continue;
        fputs("  G(", f);
        fputs(var, f);
        fputs(") = ", f);
        int64_t nn = 0;   /* terms of the numerator */
        for (int64_t k = 0; k <= t->np; k++) nn += t->num[k] != 0;
        if (nn > 1) fputc('(', f);
        poly_text(f, t->np, t->num, var, dg);
        fputs(nn > 1 ? ") / (" : " / (", f);
        poly_text(f, t->np, t->den, var, dg);
        fprintf(f, ")\n  zpk: %.*g", dg, t->k);
        if (t->nz) {
            fputc(' ', f);
            factors_text(f, t->nz, t->zre, t->zim, var, dg);
        }
        fputs(" / ", f);
        int64_t nf = t->np;   /* factors: a conjugate pair is one */
        for (int64_t k = 0; k < t->np; k++) nf -= t->pim[k] > 0;
        if (nf > 1) fputc('(', f);
        factors_text(f, t->np, t->pre, t->pim, var, dg);
        if (nf > 1) fputc(')', f);
        fputc('\n', f);
    }
    if (nfreq && write_freqs(f, 0, ls, ch, nch, nfreq, freqs, dg, &err)) goto fail;
written:
    if (f != stdout && fclose(f)) {
        f = NULL;
        jg_error_set(&err, JG_IO, "%s: write failed", out);
        goto fail;
    }
    f = NULL;
    goto done;
nomem:
    jg_error_set(&err, JG_NOMEM, "out of memory");
fail:
    rc = cli_fail(&err);
done:
    if (f && f != stdout) fclose(f);
    for (int c = 0; ch && c < nalloc; c++) jg_analysis_tf_free(ch[c].tf);
    free(ch);
    free(pre), free(pim), free(zre), free(zim), free(ure), free(uim), free(ore), free(oim), free(G);
    jg_analysis_ss_free(s);
    jg_analysis_ss_free(mr);
    jg_lin_sys_free(ls);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
