/* jacgraph linearize: A, B, C, D at an operating point. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/simulate.h"

/* "1,2.5,10" -> increasing times; the count, or -1 when malformed. */
static int parse_times(const char *s, double *t, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || n == max || (n && !(v > t[n - 1])) || !(v >= 0)) return -1;
        t[n++] = v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n ? n : -1;
}

static const char help[] =
    "usage: jacgraph linearize MODEL [options]\n"
    "\n"
    "Linearize MODEL at an operating point and print A, B, C, D with the names of\n"
    "the states, inputs and outputs.\n"
    "\n"
    "  --method graph|matrix|perturb   algorithm (default graph: the Jacobian graph)\n"
    "  --reduce markowitz|none|full    vertex elimination for --method graph\n"
    "                                  (default markowitz, the paper's heuristic)\n"
    "  --op FILE           operating point: {\"t\": T, \"states\": {...}, \"inputs\": {...}}\n"
    "                      (default: t = 0, initial states, zero inputs)\n"
    "  --input BLOCK:N     linearization input on output port N of BLOCK (repeatable);\n"
    "                      a signal name (a named line, unique in the model) works too\n"
    "  --output BLOCK:N    linearization output on output port N of BLOCK, or a signal name\n"
    "  --open BLOCK:N      open the loop at that signal (repeatable), or a signal name\n"
    "  --no-default-io     do not use the root Inports/Outports as inputs/outputs\n"
    "  --format text|json|mm   output format (default text)\n"
    "  --out PATH          write to PATH instead of stdout (mm: file prefix, required)\n"
    "  --digits N          significant digits of the text format (default 6)\n"
    "  --at T1,T2,...      simulate (ode45, default tolerances) to each time and\n"
    "                      linearize there with the numeric replay; one system\n"
    "                      per snapshot (json: an array; mm: PREFIX_tK_*)\n"
    "  --stats             graph sizes before/after elimination, memory and time of\n"
    "                      the graph and the matrix algorithms (runs both); after the\n"
    "                      matrices in the text format, on stderr with json and mm\n";

static void print_stats(FILE *f, jg_graph_reduce_t r, const jg_lin_stats_t *g, const jg_lin_stats_t *m)
{
    const jg_graph_stats_t *gs = &g->graph;
    fprintf(f, "Jacobian graph (%s): V:%lld E:%lld -> V:%lld E:%lld, %lld vertices eliminated, "
               "%lld replay operations\n",
            jg_graph_reduce_name(r), (long long)gs->v_before, (long long)gs->e_before,
            (long long)gs->v_after, (long long)gs->e_after, (long long)gs->eliminated,
            (long long)gs->ops);
    double red = m->bytes_matrix ? 100.0 * ((double)g->bytes_lft - (double)m->bytes_matrix) /
                                       (double)m->bytes_matrix
                                 : 0;
    fprintf(f, "intermediate memory: graph algorithm %zu bytes (LFT operands; graph structure "
               "%zu bytes), matrix algorithm %zu bytes (Ao, Bo, Co, Do, M): %+.2f%%\n",
            g->bytes_lft, gs->bytes_graph, m->bytes_matrix, red);
    fprintf(f, "LFT order: graph %lld, matrix %lld\n", (long long)g->lft_n, (long long)m->lft_n);
    fprintf(f, "time (ms): graph: jacobians %.3f, build %.3f, eliminate %.3f, replay %.3f, "
               "lft %.3f, total %.3f; matrix: jacobians %.3f, assemble %.3f, lft %.3f, total %.3f\n",
            1e3 * g->t_eval, 1e3 * g->t_build, 1e3 * g->t_elim, 1e3 * g->t_replay,
            1e3 * g->t_lft, 1e3 * g->t_total, 1e3 * m->t_eval, 1e3 * m->t_build, 1e3 * m->t_lft,
            1e3 * m->t_total);
}

int cmd_linearize(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "linearize"};
    cli_io_t io = {0};
    const char *model = NULL, *method = "graph", *reduce = "markowitz", *format = "text",
               *out = NULL, *digits_s = NULL, *at_s = NULL;
    int stats = 0, r;
    while (a.i < argc) {
        if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
            fputs(help, stdout);
            return 0;
        }
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--method", &method)) ||
            (r = cli_opt(&a, "--reduce", &reduce)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--out", &out)) || (r = cli_opt(&a, "--digits", &digits_s)) ||
            (r = cli_opt(&a, "--at", &at_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--stats")) {
            stats = 1;
            continue;
        }
        if (argv[a.i][0] == '-' && argv[a.i][1]) return cli_usage(a.cmd, "unknown option '%s'", argv[a.i]);
        if (model) return cli_usage(a.cmd, "more than one MODEL ('%s' and '%s')", model, argv[a.i]);
        model = argv[a.i++];
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    int m = jg_lin_method_parse(method), red = jg_graph_reduce_parse(reduce), digits = 6;
    if (m < 0) return cli_usage(a.cmd, "unknown --method '%s' (graph, matrix, perturb)", method);
    if (red < 0) return cli_usage(a.cmd, "unknown --reduce '%s' (markowitz, none, full)", reduce);
    if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "mm"))
        return cli_usage(a.cmd, "unknown --format '%s' (text, json, mm)", format);
    if (!strcmp(format, "mm") && !out) return cli_usage(a.cmd, "--format mm needs --out PREFIX");
    if (digits_s) {
        char *end;
        long d = strtol(digits_s, &end, 10);
        if (*end || d < 1 || d > 17) return cli_usage(a.cmd, "--digits must be 1..17");
        digits = (int)d;
    }
    double at[256];
    int nat = 0;
    if (at_s && (nat = parse_times(at_s, at, 256)) < 0)
        return cli_usage(a.cmd, "--at expects increasing times separated by commas, e.g. 1,2.5,10");
    jg_model_t *md;
    jg_program_t *p;
    jg_lin_t *l = NULL;
    jg_sim_t *sim = NULL;
    jg_lin_sys_t *s = NULL, *sm = NULL;
    jg_lin_stats_t st, stm;
    jg_error_t err;
    jg_error_clear(&err);
    FILE *f = NULL;
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if ((rc = cli_lin(p, &io, &l))) goto done;
    if (nat) {   /* snapshots: simulate there, then the numeric replay at each */
        jg_sim_opts_t so = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = at[nat - 1]};
        if (jg_sim_create(p, &so, &sim, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
    }
    if (strcmp(format, "mm")) {
        f = out ? fopen(out, "w") : stdout;
        if (!f) {
            jg_error_set(&err, JG_IO, "%s: cannot write", out);
            rc = cli_fail(&err);
            goto done;
        }
    }
    if (nat && !strcmp(format, "json")) fputs("[\n", f);
    for (int k = 0; k < (nat ? nat : 1); k++) {
        if (nat) {
            if (jg_sim_run(sim, at[k], NULL, NULL, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            memcpy(jg_lin_states(l), jg_sim_states(sim),
                   sizeof(double) * (size_t)jg_program_nstates(p));
            jg_lin_set_time(l, jg_sim_time(sim));
        }
        jg_lin_sys_free(s);
        s = NULL;
        if (jg_lin_run(l, (jg_lin_method_t)m, (jg_graph_reduce_t)red, &s, &st, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        int first = k == 0;
        if (first && stats && jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &sm, &stm, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if (first && stats && m != JG_LIN_GRAPH) {   /* the comparison needs the graph figures */
            jg_lin_sys_t *sg = NULL;
            if (jg_lin_run(l, JG_LIN_GRAPH, (jg_graph_reduce_t)red, &sg, &st, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            jg_lin_sys_free(sg);
        }
        /* json and mm files hold only the system: the statistics the
         * comparison runs were for go to stderr, never nowhere */
        if (first && stats && strcmp(format, "text")) print_stats(stderr, (jg_graph_reduce_t)red, &st, &stm);
        if (!strcmp(format, "mm")) {
            char prefix[4096];
            if (nat) snprintf(prefix, sizeof prefix, "%s_t%d", out, k + 1);
            else snprintf(prefix, sizeof prefix, "%s", out);
            if (jg_io_write_linsys_mm(prefix, s, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            continue;
        }
        if (!strcmp(format, "json")) {
            if (k) fputs(",\n", f);
            if (jg_io_write_linsys_json(f, s, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            continue;
        }
        if (k) fputc('\n', f);
        fprintf(f, "%s: linearized at t = %g by the %s method%s%s%s\n", jg_program_name(p), s->t,
                jg_lin_method_name((jg_lin_method_t)m), m == JG_LIN_GRAPH ? " (" : "",
                m == JG_LIN_GRAPH ? jg_graph_reduce_name((jg_graph_reduce_t)red) : "",
                m == JG_LIN_GRAPH ? " elimination)" : "");
        fprintf(f, "states: %lld, inputs: %lld, outputs: %lld\n\n", (long long)s->nx,
                (long long)s->nu, (long long)s->ny);
        if (jg_io_write_linsys_text(f, s, digits, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if (first && stats) {
            fputc('\n', f);
            print_stats(f, (jg_graph_reduce_t)red, &st, &stm);
        }
    }
    if (nat && !strcmp(format, "json")) fputs("]\n", f);
done:
    if (f && f != stdout && fclose(f) && !rc) {
        jg_error_set(&err, JG_IO, "%s: write failed", out);
        rc = cli_fail(&err);
    }
    jg_lin_sys_free(s);
    jg_lin_sys_free(sm);
    jg_sim_free(sim);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
