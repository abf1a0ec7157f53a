/* jacgraph trim: an operating point from a specification (steady states,
 * known inputs and outputs, bounds), written as an --op file. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/analysis.h"

static const char help[] =
    "usage: jacgraph trim MODEL [options]\n"
    "\n"
    "Find an operating point of MODEL: states with dx/dt = 0 (continuous) and\n"
    "x = update(x, u) (discrete), inputs and outputs as specified, by\n"
    "Levenberg-Marquardt with the Jacobian graph's A, B, C, D and the blocks'\n"
    "analytic update Jacobians at every iterate.  Prints the point and the\n"
    "residual of every equation.\n"
    "\n"
    "  --spec FILE        specification (JSON, every key optional):\n"
    "                     {\"states\":  {NAME: {\"value\": v, \"known\": true|false,\n"
    "                                         \"min\": a, \"max\": b, \"steady\": true|false}},\n"
    "                      \"inputs\":  {NAME: {\"value\", \"known\", \"min\", \"max\"}},\n"
    "                      \"outputs\": {NAME: {\"value\", \"known\", \"min\", \"max\"}}}\n"
    "                     NAME: a block path (all its elements: a number or an array)\n"
    "                     or one element PATH(k), as in --op files.  Not mentioned:\n"
    "                     free (inputs too), states steady.  Without --spec: inputs\n"
    "                     known at their --op values, states free and steady.\n"
    "  --op FILE          starting guess (an operating-point file, as linearize --op)\n"
    "  --output BLOCK:N   an output point besides the root Outports (repeatable),\n"
    "                     or a signal name; the spec names it as given\n"
    "  --out FILE         write the point as an operating-point file for\n"
    "                     linearize --op (discrete states are not part of it)\n"
    "  --tol TOL          largest |residual| accepted (default 1e-9)\n"
    "  --max-iter N       iterations (default 100)\n"
    "\n"
    "Exit 5 when no point meets the specification: the best point found is\n"
    "printed (and written with --out) and the error lists the violated\n"
    "specifications.  Exit 2 for a bad specification (unknown names are\n"
    "reported with the nearest known one).\n";

static void print_kind(FILE *f, const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind,
                       const char *title, int width)
{
    int64_t n = jg_analysis_trim_count(t, kind);
    if (!n) return;
    fprintf(f, "%s:\n", title);
    for (int64_t k = 0; k < n; k++) {
        int known;
        double v = jg_analysis_trim_value(t, kind, k, &known);
        fprintf(f, "  %-*s  %-22.15g  %s\n", width, jg_analysis_trim_name(t, kind, k), v,
                known ? "known" : kind == JG_ANALYSIS_TRIM_OUTPUT ? "" : "free");
    }
}

static void report(FILE *f, const char *model, const jg_analysis_trim_t *t)
{
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(t, &in);
    fprintf(f, "%s: %s after %d iteration%s (%lld unknowns, %lld equations, largest residual %.3g)\n",
            model, in.converged ? "operating point found" : "NO operating point meets the specification; best point",
            in.iterations, in.iterations == 1 ? "" : "s", (long long)in.nunknowns,
            (long long)in.nequations, in.max_residual);
    fprintf(f, "t = %.17g\n\n", jg_analysis_trim_time(t));
    int width = 8;
    for (int kind = 0; kind < 4; kind++)
        for (int64_t k = 0; k < jg_analysis_trim_count(t, (jg_analysis_trim_kind_t)kind); k++) {
            int w = (int)strlen(jg_analysis_trim_name(t, (jg_analysis_trim_kind_t)kind, k));
            if (w > width && w < 60) width = w;
        }
    print_kind(f, t, JG_ANALYSIS_TRIM_STATE, "states", width);
    print_kind(f, t, JG_ANALYSIS_TRIM_DSTATE, "discrete states", width);
    print_kind(f, t, JG_ANALYSIS_TRIM_INPUT, "inputs", width);
    print_kind(f, t, JG_ANALYSIS_TRIM_OUTPUT, "outputs", width);
    if (jg_analysis_trim_nequations(t)) fprintf(f, "residuals:\n");
    for (int64_t e = 0; e < jg_analysis_trim_nequations(t); e++) {
        double r;
        const char *name = jg_analysis_trim_equation(t, e, &r);
        fprintf(f, "  %-*s  %.3g\n", width + 7, name, r);
    }
    if (in.fd_columns)
        fprintf(f, "(%lld Jacobian columns by differences: discrete states of block types without an "
                   "analytic update Jacobian: %s)\n",
                (long long)in.fd_columns, in.fd_types ? in.fd_types : "?");
}

int cmd_trim(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "trim"};
    const char *model = NULL, *spec = NULL, *op = NULL, *out = NULL, *tol_s = NULL, *iter_s = NULL, *v;
    const char *outs[256];
    int nout = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_opt(&a, "--output", &v))) {
            if (r < 0) return EXIT_USAGE;
            if (nout == 256) return cli_usage(a.cmd, "too many --output options");
            outs[nout++] = v;
            continue;
        }
        if ((r = cli_opt(&a, "--spec", &spec)) || (r = cli_opt(&a, "--op", &op)) ||
            (r = cli_opt(&a, "--out", &out)) || (r = cli_opt(&a, "--tol", &tol_s)) ||
            (r = cli_opt(&a, "--max-iter", &iter_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    jg_analysis_trim_opts_t o = {.nout = nout, .out = outs};
    char *end;
    if (tol_s) {
        o.tol = strtod(tol_s, &end);
        if (*end || !(o.tol > 0)) return cli_usage(a.cmd, "--tol must be a positive number");
    }
    if (iter_s) {
        long n = strtol(iter_s, &end, 10);
        if (*end || n < 1 || n > 1000000) return cli_usage(a.cmd, "--max-iter must be 1..1000000");
        o.max_iter = (int)n;
    }
    jg_model_t *md;
    jg_program_t *p;
    jg_analysis_trim_t *t = NULL;
    jg_error_t err, werr;
    jg_error_clear(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if (jg_analysis_trim_create(p, &o, &t, &err) || (op && jg_analysis_trim_read_op(t, op, &err)) ||
        (spec && jg_analysis_trim_read_spec(t, spec, &err))) {
        rc = cli_fail(&err);
        goto done;
    }
    jg_status_t st = jg_analysis_trim_run(t, &err);
    jg_analysis_trim_info_t in;
    jg_analysis_trim_info(t, &in);
    /* the best point is reported even when it misses the specification */
    if (in.finished) report(stdout, jg_program_name(p), t);
    jg_error_clear(&werr);
    if (in.finished && out && jg_analysis_trim_write_op(t, out, &werr)) {
        rc = cli_fail(&werr);
        if (!st) goto done;
    }
    if (st) rc = cli_fail(&err);
done:
    jg_analysis_trim_free(t);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
