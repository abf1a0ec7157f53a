/* jacgraph jacobian: the solver Jacobian J_x = df/dx of a model (Simulink,
 * "Choose a Jacobian Method") by one of the five methods, its pattern, its
 * column coloring and the cost of one Jacobian in evaluations of f; optionally
 * a spy plot of the pattern. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"

int cmd_jacobian(int argc, char **argv);

static const char help[] =
    "usage: jacgraph jacobian MODEL [options]\n"
    "\n"
    "The solver Jacobian J_x = df/dx of MODEL's continuous states, as the implicit\n"
    "solvers of 'jacgraph simulate' use it: f is the model's derivatives with its\n"
    "outputs evaluated first, discrete blocks holding their outputs.  Prints J_x with\n"
    "the state names, its structural pattern (from the Jacobian graph), the number of\n"
    "colors (structurally orthogonal column groups), the evaluations of f one\n"
    "Jacobian costs, and the method used and why.\n"
    "\n"
    "  --method M          auto (default), full-perturbation, sparse-perturbation,\n"
    "                      full-analytical, sparse-analytical\n"
    "  --at T              simulate to time T first (default: the initial state at\n"
    "                      the start time)\n"
    "  --start T0          start time (default 0)\n"
    "  --solver NAME       solver of the --at run (default ode45)\n"
    "  --rtol R --atol A   its tolerances (default 1e-6, 1e-9)\n"
    "  --format F          text (default), json, mm (Matrix Market of J_x on stdout,\n"
    "                      state names in comments)\n"
    "  --pattern-svg FILE  spy plot of the pattern: one square per entry (black:\n"
    "                      nonzero here, grey: structural zero), state names as\n"
    "                      labels up to 40 states\n";

static int parse_num(const char *cmd, const char *opt, const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end || !isfinite(x)) return cli_usage(cmd, "%s expects a number, got '%s'", opt, s);
    *v = x;
    return 0;
}

/* What the outputs need. */
typedef struct {
    const jg_program_t *p;
    const jg_sjac_t *sj;
    const cs_dl *J;       /* values in jg_sjac_pattern */
    const char *requested;
    double t;
} res_t;

static int64_t nnz_values(const cs_dl *J)
{
    int64_t k = 0;
    for (int64_t q = 0; q < J->p[J->n]; q++) k += J->x[q] != 0;
    return k;
}

static const char *cost_note(const jg_sjac_t *sj)
{
    switch (jg_sjac_method(sj)) {
    case JG_SJAC_FULL_PERTURBATION: return "one forward difference per state";
    case JG_SJAC_SPARSE_PERTURBATION: return "one forward difference per color";
    default: return "analytical: one output evaluation, the block Jacobians, a replay of the graph";
    }
}

/* ------------------------------------------------------------------ text */

static void print_text(FILE *f, const res_t *r)
{
    const jg_program_t *p = r->p;
    const jg_sjac_t *sj = r->sj;
    const cs_dl *S = jg_sjac_structure(sj), *J = r->J;
    const int64_t n = jg_sjac_nstates(sj), nnz = S->p[n];
    fprintf(f, "model %s: %lld state%s at t = %.17g\n", jg_program_name(p), (long long)n,
            n == 1 ? "" : "s", r->t);
    fprintf(f, "method: %s (%s)\n", jg_sjac_method_name(jg_sjac_method(sj)), jg_sjac_reason(sj));
    fprintf(f, "pattern: %lld of %lld entries (%.3g%%), at most %lld in a row; %lld nonzero here\n",
            (long long)nnz, (long long)(n * n), n ? 100.0 * (double)nnz / ((double)n * (double)n) : 0.0,
            (long long)jg_sjac_max_row_nnz(sj), (long long)nnz_values(J));
    fprintf(f, "colors: %lld (structurally orthogonal column groups; lower bound %lld)\n",
            (long long)jg_sjac_ncolors(sj), (long long)jg_sjac_max_row_nnz(sj));
    fprintf(f, "f evaluations per Jacobian: %lld (%s)\n", (long long)jg_sjac_fevals_per_jacobian(sj),
            cost_note(sj));
    if (n == 0) {
        fprintf(f, "\nJ_x = [] (no continuous states)\n");
        return;
    }
    fprintf(f, "\nJ_x = df/dx (row: the derivative of a state, column: a state):\n");
    if (n <= 12) {
        int w = 10, lw = 0;
        for (int64_t i = 0; i < n; i++) {
            int l = (int)strlen(jg_program_state_name(p, i));
            if (l > lw) lw = l;
            if (l + 2 > w) w = l + 2;
        }
        double *D = calloc((size_t)(n * n), sizeof(double));
        if (!D) return;
        for (int64_t c = 0; c < n; c++)
            for (int64_t q = J->p[c]; q < J->p[c + 1]; q++) D[J->i[q] + c * n] = J->x[q];
        fprintf(f, "  %*s", lw, "");
        for (int64_t c = 0; c < n; c++) fprintf(f, "%*s", w, jg_program_state_name(p, c));
        fputc('\n', f);
        for (int64_t i = 0; i < n; i++) {
            fprintf(f, "  %-*s", lw, jg_program_state_name(p, i));
            for (int64_t c = 0; c < n; c++) {
                double v = D[i + c * n];
                if (v == 0) fprintf(f, "%*s", w, "0");
                else fprintf(f, "%*.6g", w, v);
            }
            fputc('\n', f);
        }
        free(D);
        return;
    }
    for (int64_t c = 0; c < n; c++)
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++)
            if (J->x[q] != 0)
                fprintf(f, "  (%s, %s)  %.17g\n", jg_program_state_name(p, J->i[q]),
                        jg_program_state_name(p, c), J->x[q]);
}

/* ------------------------------------------------------------ json / mm */

static int print_json(FILE *f, const res_t *r)
{
    const jg_program_t *p = r->p;
    const jg_sjac_t *sj = r->sj;
    const cs_dl *S = jg_sjac_structure(sj), *J = r->J;
    const int64_t n = jg_sjac_nstates(sj);
    const int64_t *color = jg_sjac_colors(sj);
    json_t *o = json_object(), *names = json_array(), *pat = json_object(), *jm = json_object();
    json_t *pi = json_array(), *pj = json_array(), *ji = json_array(), *jj = json_array(),
           *jx = json_array(), *col = json_array();
    int bad = !o || !names || !pat || !jm || !pi || !pj || !ji || !jj || !jx || !col;
    for (int64_t k = 0; !bad && k < n; k++) {
        bad |= json_array_append_new(names, json_string(jg_program_state_name(p, k)));
        bad |= json_array_append_new(col, json_integer(color[k]));
        for (int64_t q = S->p[k]; q < S->p[k + 1]; q++) {
            bad |= json_array_append_new(pi, json_integer(S->i[q]));
            bad |= json_array_append_new(pj, json_integer(k));
        }
        for (int64_t q = J->p[k]; q < J->p[k + 1]; q++) {
            if (J->x[q] == 0) continue;
            bad |= json_array_append_new(ji, json_integer(J->i[q]));
            bad |= json_array_append_new(jj, json_integer(k));
            bad |= json_array_append_new(jx, json_real(J->x[q]));
        }
    }
    if (!bad) {
        json_object_set_new(o, "model", json_string(jg_program_name(p)));
        json_object_set_new(o, "t", json_real(r->t));
        json_object_set_new(o, "states", names);
        json_object_set_new(o, "requested", json_string(r->requested));
        json_object_set_new(o, "method", json_string(jg_sjac_method_name(jg_sjac_method(sj))));
        json_object_set_new(o, "reason", json_string(jg_sjac_reason(sj)));
        json_object_set_new(o, "n", json_integer(n));
        json_object_set_new(o, "pattern_nnz", json_integer(S->p[n]));
        json_object_set_new(o, "max_row_nnz", json_integer(jg_sjac_max_row_nnz(sj)));
        json_object_set_new(o, "colors", json_integer(jg_sjac_ncolors(sj)));
        json_object_set_new(o, "fevals_per_jacobian", json_integer(jg_sjac_fevals_per_jacobian(sj)));
        json_object_set_new(pat, "i", pi);
        json_object_set_new(pat, "j", pj);
        json_object_set_new(o, "pattern", pat);
        json_object_set_new(o, "color", col);
        json_object_set_new(jm, "rows", json_integer(n));
        json_object_set_new(jm, "cols", json_integer(n));
        json_object_set_new(jm, "i", ji);
        json_object_set_new(jm, "j", jj);
        json_object_set_new(jm, "x", jx);
        json_object_set_new(o, "J", jm);
        bad = json_dumpf(o, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0;
        fputc('\n', f);
        json_decref(o);
        return bad;
    }
    json_decref(o);
    json_decref(names);
    json_decref(pat);
    json_decref(jm);
    json_decref(pi);
    json_decref(pj);
    json_decref(ji);
    json_decref(jj);
    json_decref(jx);
    json_decref(col);
    return 1;
}

static void print_mm(FILE *f, const res_t *r)
{
    const jg_sjac_t *sj = r->sj;
    const cs_dl *J = r->J;
    const int64_t n = jg_sjac_nstates(sj);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% jacgraph solver Jacobian J_x = df/dx of %s at t = %.17g\n", jg_program_name(r->p),
            r->t);
    fprintf(f, "%% method %s (%s)\n", jg_sjac_method_name(jg_sjac_method(sj)), jg_sjac_reason(sj));
    for (int64_t k = 0; k < n; k++) {   /* line breaks in names would end the comment */
        fprintf(f, "%% state %lld: ", (long long)k + 1);
        for (const char *c = jg_program_state_name(r->p, k); *c; c++)
            fputc((unsigned char)*c < 0x20 ? ' ' : *c, f);
        fputc('\n', f);
    }
    fprintf(f, "%lld %lld %lld\n", (long long)n, (long long)n, (long long)nnz_values(J));
    for (int64_t c = 0; c < n; c++)
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++)
            if (J->x[q] != 0)
                fprintf(f, "%lld %lld %.17g\n", (long long)J->i[q] + 1, (long long)c + 1, J->x[q]);
}

/* ------------------------------------------------------------- spy plot */

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

/* J(i, j) in the method's pattern (0 when not stored). */
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

static int write_svg(const char *path, const res_t *r, jg_error_t *err)
{
    const jg_program_t *p = r->p;
    const jg_sjac_t *sj = r->sj;
    const cs_dl *S = jg_sjac_structure(sj);
    const int64_t n = jg_sjac_nstates(sj);
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
            (long long)n, (long long)S->p[n], (long long)jg_sjac_ncolors(sj),
            (long long)jg_sjac_max_row_nnz(sj));
    fprintf(f, "<text x=\"20\" y=\"36\" font-size=\"11\" fill=\"#555\">%s at t = %.6g; black: "
               "nonzero, grey: structural zero</text>\n",
            jg_sjac_method_name(jg_sjac_method(sj)), r->t);
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
            double v = value_at(r->J, i, c);
            fprintf(f, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"%s\"/>\n",
                    mx + (double)c * cell + gap, my + (double)i * cell + gap, cell - 2 * gap,
                    cell - 2 * gap, v != 0 ? "black" : "#bbb");
        }
    fprintf(f, "</g>\n</svg>\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        remove(path);
        return jg_error_set(err, JG_IO, "%s: write failed", path);
    }
    return JG_OK;
}

int cmd_jacobian(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "jacobian"};
    const char *model = NULL, *method = "auto", *format = "text", *svg = NULL, *v;
    jg_sim_opts_t o = {.solver = "ode45", .so = {.rtol = 1e-6, .atol = 1e-9}};
    double at = NAN;
    int r;
    while (a.i < argc) {
        if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
            fputs(help, stdout);
            return 0;
        }
        struct {
            const char *name;
            double *dst;
        } nums[] = {{"--at", &at}, {"--start", &o.t0}, {"--rtol", &o.so.rtol}, {"--atol", &o.so.atol}};
        int matched = 0;
        for (size_t k = 0; k < sizeof nums / sizeof *nums && !matched; k++) {
            if ((r = cli_opt(&a, nums[k].name, &v))) {
                if (r < 0 || parse_num(a.cmd, nums[k].name, v, nums[k].dst)) return EXIT_USAGE;
                matched = 1;
            }
        }
        if (matched) continue;
        if ((r = cli_opt(&a, "--method", &method)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--pattern-svg", &svg)) || (r = cli_opt(&a, "--solver", &o.solver))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (argv[a.i][0] == '-' && argv[a.i][1]) return cli_usage(a.cmd, "unknown option '%s'", argv[a.i]);
        if (model) return cli_usage(a.cmd, "more than one MODEL ('%s' and '%s')", model, argv[a.i]);
        model = argv[a.i++];
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "mm"))
        return cli_usage(a.cmd, "unknown --format '%s' (text, json, mm)", format);
    if (svg && !*svg) return cli_usage(a.cmd, "--pattern-svg expects a file name");
    if (isnan(at)) at = o.t0;
    if (at < o.t0) return cli_usage(a.cmd, "--at %g is before the start time %g", at, o.t0);
    o.tstop = at;
    o.jacobian = method;   /* jg_sim_create checks the name before any run */
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    jg_sjac_t *sj = NULL;
    cs_dl *J = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    /* the point: the simulation's, so that discrete blocks hold what they
     * held there (at the start time: after the first major step) */
    if (jg_sim_create(p, &o, &s, &err) || jg_sim_run(s, at, NULL, NULL, &err) ||
        jg_sjac_create(p, method, jg_sim_work(s), &sj, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    if (!(J = jg_sjac_alloc(sj))) {
        jg_error_set(&err, JG_NOMEM, "out of memory");
        rc = cli_fail(&err);
        goto done;
    }
    double t = jg_sim_time(s);
    if (jg_sjac_eval(sj, t, jg_sim_states(s), NULL, J, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    res_t res = {.p = p, .sj = sj, .J = J, .requested = method, .t = t};
    if (!strcmp(format, "json")) {
        if (print_json(stdout, &res)) {
            jg_error_set(&err, JG_NOMEM, "out of memory writing JSON");
            rc = cli_fail(&err);
            goto done;
        }
    } else if (!strcmp(format, "mm")) {
        print_mm(stdout, &res);
    } else {
        print_text(stdout, &res);
    }
    if (fflush(stdout) || ferror(stdout)) {
        jg_error_set(&err, JG_IO, "stdout: write failed");
        rc = cli_fail(&err);
        goto done;
    }
    if (svg && write_svg(svg, &res, &err)) rc = cli_fail(&err);
done:
    cs_dl_spfree(J);
    jg_sjac_free(sj);
    jg_sim_free(s);
    jg_program_free(p);
    return rc;
}
