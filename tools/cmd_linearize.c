/* jacgraph linearize: A, B, C, D at an operating point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/simulate.h"
#include "jacgraph/analysis.h"
#include "jacgraph/batch.h"   /* jg_batch_ncores: --jobs default */

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
CLI_STRATEGY_HELP
    "  --op FILE           operating point: {\"t\": T, \"states\": {...}, \"inputs\": {...}}\n"
    "                      (default: t = 0, initial states, zero inputs)\n"
    "  --input BLOCK:N     linearization input on output port N of BLOCK (repeatable);\n"
    "                      a signal name (a named line, unique in the model) works too\n"
    "  --output BLOCK:N    linearization output on output port N of BLOCK, or a signal name\n"
    "  --open BLOCK:N      open the loop at that signal (repeatable), or a signal name\n"
    "  --no-default-io     do not use the root Inports/Outports as inputs/outputs\n"
    "  --delays pade:N|exact   TransportDelays: pade:N the Pade approximation of order N\n"
    "                      (0..10; 0: y = u) for every one, whatever its PadeOrder;\n"
    "                      exact: no approximation, the delay-free system with one delay\n"
    "                      channel per delay element (its last inputs and outputs) and\n"
    "                      the delays (json: \"InternalDelay\"; m: setDelayModel); continuous\n"
    "                      time only, not with --format mm or --ts\n"
    "  --format text|json|mm|m|py|mat   output format (default text): m a MATLAB/Octave\n"
    "                      script (sys = ss(A, B, C, D, Ts) with the names), py a Python\n"
    "                      script (NumPy/SciPy arrays, control.ss when python-control\n"
    "                      imports), mat a MAT-file (A, B, C, D, Ts, StateName, ...)\n"
    "  --out PATH          write to PATH instead of stdout (mm: file prefix, required;\n"
    "                      mat: required)\n"
    "  --sparse auto|always|never   sparse matrices in m, py and mat (default auto:\n"
    "                      beyond 100x100 elements with at most 10% nonzero)\n"
    "  --digits N          significant digits of the text format (default 6)\n"
    "  --at T1,T2,...      simulate to each time and linearize there with the\n"
    "                      numeric replay; one system per snapshot (json: an array;\n"
    "                      mm: PREFIX_tK_*; m, py, mat: variables A_tK, ..., sys_tK).\n"
    "                      Each time is its own simulation from the start (--op's\n"
    "                      t, states and inputs, else t = 0 and the initial states),\n"
    "                      so its result does not depend on the other times\n"
    "  --solver NAME       --at: the solver (default ode45; see simulate --help)\n"
    "  --rtol R, --atol A  --at: tolerances (default 1e-3, 1e-6)\n"
    "  --max-step H        --at: largest step (default (T - t0) / 50 for time T)\n"
    CLI_TIME_HELP
    "  --jobs N            threads for the sparse solves of the LFT (default: every\n"
    "                      core); taken only by a large LFT (models of some 10^4\n"
    "                      blocks and up), from 20,000 blocks by the graph build\n"
    "                      beside the evaluation's set-up, and by --format mm for\n"
    "                      a matrix of 32,768 entries or more (at most 4); the same\n"
    "                      result whatever N\n"
    "  --stats             graph sizes before/after elimination, memory and time of\n"
    "                      the graph and the matrix algorithms (runs both); after the\n"
    "                      matrices in the text format, on stderr with json and mm\n";

static void print_stats(FILE *f, const jg_graph_strategy_t *r, const jg_lin_stats_t *g, const jg_lin_stats_t *m)
{
    const jg_graph_stats_t *gs = &g->graph;
    fprintf(f, "Jacobian graph (%s): V:%lld E:%lld -> V:%lld E:%lld, %lld vertices eliminated, "
               "%lld replay operations\n",
            jg_graph_strategy_spec(r), (long long)gs->v_before, (long long)gs->e_before,
            (long long)gs->v_after, (long long)gs->e_after, (long long)gs->eliminated,
            (long long)gs->ops);
    double red = m->bytes_matrix ? 100.0 * ((double)g->bytes_lft - (double)m->bytes_matrix) /
                                       (double)m->bytes_matrix
                                 : 0;
    fprintf(f, "intermediate memory: graph algorithm %zu bytes (LFT operands; graph structure "
               "%zu bytes), matrix algorithm %zu bytes (Ao, Bo, Co, Do, M): %+.2f%%\n",
            g->bytes_lft, gs->bytes_graph, m->bytes_matrix, red);
    fprintf(f, "LFT order: graph %lld, matrix %lld\n", (long long)g->lft_n, (long long)m->lft_n);
    fprintf(f, "condition estimate: graph %.3g%s, matrix %.3g (warning above %.0e)\n", g->cond,
            g->pivot_fallback ? " (a pivot of the elimination was ill-conditioned here: "
                                "solved without elimination)"
                              : "",
            m->cond, JG_LIN_COND_WARN);
    fprintf(f, "time (ms): graph: jacobians %.3f%s, build %.3f%s, eliminate %.3f, replay %.3f, "
               "lft %.3f, total %.3f; matrix: jacobians %.3f, assemble %.3f, lft %.3f, total %.3f\n",
            1e3 * g->t_eval, g->build_overlap == 1 ? " (beside the build)" : "", 1e3 * g->t_build,
            g->build_overlap == 2 ? " (beside the set-up)" : "", 1e3 * g->t_elim, 1e3 * g->t_replay,
            1e3 * g->t_lft, 1e3 * g->t_total, 1e3 * m->t_eval, 1e3 * m->t_build, 1e3 * m->t_lft,
            1e3 * m->t_total);
}

/* --method perturb: its own error estimate (jg_lin_stats_t.perturb_err). */
static void print_perturb_err(FILE *f, double e)
{
    fprintf(f, "perturbation: estimated error %.3g (largest error estimate of an entry over "
               "max(1, largest magnitude) of its matrix)\n", e);
}

int cmd_linearize(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "linearize"};
    cli_io_t io = {0};
    cli_time_t tm = {0};
    const char *model = NULL, *method = "graph", *reduce = NULL, *format = "text",
               *out = NULL, *digits_s = NULL, *at_s = NULL, *order = NULL,
               *jobs_s = NULL;
    const char *solver_s = NULL, *rtol_s = NULL, *atol_s = NULL, *hmax_s = NULL;
    int stats = 0, r;
    const char *sparse_s = "auto";
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_io_opt(&a, &io)) || (r = cli_time_opt(&a, &tm)) || (r = cli_opt(&a, "--method", &method)) ||
            (r = cli_opt(&a, "--reduce", &reduce)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--order", &order)) || (r = cli_opt(&a, "--sparse", &sparse_s)) ||
            (r = cli_opt(&a, "--out", &out)) || (r = cli_opt(&a, "--digits", &digits_s)) ||
            (r = cli_opt(&a, "--at", &at_s)) || (r = cli_opt(&a, "--solver", &solver_s)) ||
            (r = cli_opt(&a, "--rtol", &rtol_s)) || (r = cli_opt(&a, "--atol", &atol_s)) ||
            (r = cli_opt(&a, "--max-step", &hmax_s)) || (r = cli_opt(&a, "--jobs", &jobs_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--stats")) {
            stats = 1;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    int m = jg_lin_method_parse(method), digits = 6;
    const jg_graph_strategy_t *red;
    if (m < 0) return cli_usage(a.cmd, "unknown --method '%s' (graph, matrix, perturb)", method);
    if ((r = cli_strategy(a.cmd, reduce, order, "markowitz", &red))) return r;
    if ((r = cli_time_check(a.cmd, &tm, &io))) return r;
    if (tm.delays == JG_LIN_DELAYS_EXACT && !strcmp(format, "mm"))
        return cli_usage(a.cmd, "--delays exact: --format mm cannot hold the delays (json, m, py, mat, text can)");
    static const char *const formats[] = {"text", "json", "mm", "m", "py", "mat"};
    int fmt = -1;
    for (int k = 0; k < 6; k++)
        if (!strcmp(format, formats[k])) fmt = k;
    if (fmt < 0) return cli_usage(a.cmd, "unknown --format '%s' (text, json, mm, m, py, mat)", format);
    if (!strcmp(format, "mm") && !out) return cli_usage(a.cmd, "--format mm needs --out PREFIX");
    if (!strcmp(format, "mat") && !out) return cli_usage(a.cmd, "--format mat needs --out FILE (binary)");
    jg_io_export_opts_t xo = {.sparse = JG_IO_SPARSE_AUTO};
    if (!strcmp(sparse_s, "always")) xo.sparse = JG_IO_SPARSE_ALWAYS;
    else if (!strcmp(sparse_s, "never")) xo.sparse = JG_IO_SPARSE_NEVER;
    else if (strcmp(sparse_s, "auto")) return cli_usage(a.cmd, "unknown --sparse '%s' (auto, always, never)", sparse_s);
    io.jobs = jg_batch_ncores();
    io.graph = m == JG_LIN_GRAPH;
    if (jobs_s) {
        char *end;
        long j = strtol(jobs_s, &end, 10);
        if (!*jobs_s || *end || j < 1 || j > 1024) return cli_usage(a.cmd, "--jobs must be 1..1024");
        io.jobs = (int)j;
    }
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
    if (!nat && (solver_s || rtol_s || atol_s || hmax_s))
        return cli_usage(a.cmd, "--solver, --rtol, --atol and --max-step go with --at");
    jg_sim_opts_t so = {.solver = JG_SOLVER_ODE45};
    if (solver_s && (r = cli_sim_methods(solver_s, NULL, &so))) return r;
    const char *const tol_names[3] = {"--rtol", "--atol", "--max-step"};
    const char *const tol_vals[3] = {rtol_s, atol_s, hmax_s};
    double *const tol_dst[3] = {&so.so.rtol, &so.so.atol, &so.so.max_step};
    for (int k = 0; k < 3; k++) {
        char *end;
        if (!tol_vals[k]) continue;
        *tol_dst[k] = strtod(tol_vals[k], &end);
        if (*end || !(*tol_dst[k] > 0) || !isfinite(*tol_dst[k]))
            return cli_usage(a.cmd, "%s must be a positive number", tol_names[k]);
    }
    double *x0 = NULL, *u0 = NULL, t0 = 0;
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
    if (nat) {   /* snapshots start where --op puts the model (the linearizer read it) */
        size_t nx = (size_t)jg_program_nstates(p), nu = 0;
        for (int k = 0; k < jg_program_ninputs(p); k++)
            nu += (size_t)jg_program_port_width(p, jg_program_input_block(p, k), 1, 0);
        x0 = malloc(sizeof(double) * (nx + 1));
        u0 = malloc(sizeof(double) * (nu + 1));
        if (!x0 || !u0) {
            jg_error_set(&err, JG_NOMEM, "out of memory");
            rc = cli_fail(&err);
            goto done;
        }
        memcpy(x0, jg_lin_states(l), sizeof(double) * nx);
        memcpy(u0, jg_lin_inputs(l), sizeof(double) * nu);
        t0 = jg_lin_time(l);
        if (at[0] < t0) {
            rc = cli_usage(a.cmd, "--at %g is before the operating point's t = %g", at[0], t0);
            goto done;
        }
    }
    if (strcmp(format, "mm") && strcmp(format, "mat")) {
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
            /* every time its own run from t0: one long run to the last time
             * would take a step size (its default largest step too) from the
             * others, and the state at a time would depend on them */
            jg_sim_free(sim);
            sim = NULL;
            so.t0 = t0;
            so.tstop = at[k];
            if (jg_sim_create(p, &so, &sim, &err) || (io.op && jg_sim_set_states(sim, x0, &err))) {
                rc = cli_fail(&err);
                goto done;
            }
            memcpy(jg_eval_inputs(jg_sim_work(sim)), u0,
                   sizeof(double) * (size_t)jg_eval_ninput_elems(jg_sim_work(sim)));
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
        if (cli_lin_run(l, (jg_lin_method_t)m, red, &s, &st, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if ((rc = cli_time_apply(p, l, &tm, &s))) goto done;
        int first = k == 0;
        if (first && stats && jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &sm, &stm, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        double perturb_err = st.perturb_err;   /* the graph run below overwrites st */
        if (first && stats && m != JG_LIN_GRAPH) {   /* the comparison needs the graph figures */
            jg_lin_sys_t *sg = NULL;
            if (jg_lin_run_strategy(l, red, &sg, &st, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            jg_lin_sys_free(sg);
        }
        /* json and mm files hold only the system: the statistics the
         * comparison runs were for go to stderr, never nowhere */
        if (first && stats && strcmp(format, "text")) {
            print_stats(stderr, red, &st, &stm);
            if (m == JG_LIN_PERTURB) print_perturb_err(stderr, perturb_err);
        }
        if (!strcmp(format, "mm")) {
            char prefix[4096];
            if (nat) snprintf(prefix, sizeof prefix, "%s_t%d", out, k + 1);
            else snprintf(prefix, sizeof prefix, "%s", out);
            if (jg_io_write_linsys_mm_threads(prefix, s, io.jobs, &err)) {
                rc = cli_fail(&err);
                goto done;
            }
            continue;
        }
        if (fmt >= 3) {   /* m, py, mat: one set of variables per snapshot */
            char sfx[32] = "";
            if (nat > 1) snprintf(sfx, sizeof sfx, "_t%d", k + 1);
            xo.suffix = sfx;
            xo.model = jg_program_name(p);
            if (k && fmt != 5) fputc('\n', f);
            jg_status_t ws = fmt == 3 ? jg_io_write_linsys_m(f, s, &xo, &err)
                           : fmt == 4 ? jg_io_write_linsys_py(f, s, &xo, &err)
                                      : jg_io_write_linsys_mat(out, s, &xo, k > 0, &err);
            if (ws) {
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
                m == JG_LIN_GRAPH ? jg_graph_strategy_spec(red) : "",
                m == JG_LIN_GRAPH ? " elimination)" : "");
        if (s->Ts > 0) fprintf(f, "discrete time, Ts = %g\n", s->Ts);
        fprintf(f, "states: %lld, inputs: %lld, outputs: %lld\n\n", (long long)s->nx,
                (long long)s->nu, (long long)s->ny);
        if (jg_io_write_linsys_text(f, s, digits, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        if (first && stats) {
            fputc('\n', f);
            print_stats(f, red, &st, &stm);
            if (m == JG_LIN_PERTURB) print_perturb_err(f, perturb_err);
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
    free(x0);
    free(u0);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
