/* jacgraph bench: the graph algorithm against the matrix algorithm on one model
 * (the row of benchmarks/bench_linearize); the measuring code is
 * benchmarks/measure.c, shared with the benchmark. */
#include "measure.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph bench MODEL [--repeat N] [--reduce S] [--max-time S] [--no-matrix]\n"
    "                      [--no-fork] [--csv] [io options]\n"
    "\n"
    "Linearize MODEL with the Jacobian graph (with vertex elimination) and with the\n"
    "matrix-based block-by-block algorithm (without), each in its own child process,\n"
    "and print the paper's Table 1 and Table 2 columns for it, then the details:\n"
    "Jacobian graph size before and after elimination, exact bytes of the intermediate\n"
    "results (compressed-column storage of Ao, Bo, Co, Do, M against A_r, B_r, C_r, D_r),\n"
    "median time of each stage, peak RSS of each algorithm and the ratios graph/matrix.\n"
    "\n"
    "  --repeat N      timing runs per algorithm: at least N (default 5), more (up to 1000)\n"
    "                  until they took 0.5 s\n"
    "  --reduce S      graph elimination: markowitz (default), full, none, or any\n"
    "                  strategy of 'jacgraph strategies --list' (docs/strategies.md)\n"
    "  --order FILE    graph elimination in the order of FILE: --reduce order:FILE\n"
    "  --max-time S    stop repeating an algorithm once its runs took S seconds (default 60)\n"
    "  --no-matrix     graph algorithm only\n"
    "  --no-fork       measure in this process (no peak RSS)\n"
    "  --csv           print the CSV header and row instead of the tables\n"
    "  --input/--output/--open BLOCK:N|SIGNAL, --no-default-io, --op FILE as for linearize\n"
    "\n"
    "Exit status 0; 1 when the two algorithms' A, B, C, D differ by more than 1e-10;\n"
    "otherwise that of the failure, as for linearize (5: singular algebraic loop...);\n"
    "70 when a measuring process fails on its own (fork, temporary file, killed).\n";

int cmd_bench(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "bench"};
    cli_io_t io = {0};
    const char *model = NULL, *rep = NULL, *red = NULL, *mt = NULL, *order = NULL;
    int csv = 0, r;
    jgb_opts_t o;
    jgb_opts_default(&o);
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if (cli_flag(&a, "--no-matrix")) {
            o.matrix = 0;
            continue;
        }
        if (cli_flag(&a, "--no-fork")) {
            o.fork = 0;
            continue;
        }
        if (cli_flag(&a, "--csv")) {
            csv = 1;
            continue;
        }
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--repeat", &rep)) ||
            (r = cli_opt(&a, "--reduce", &red)) || (r = cli_opt(&a, "--max-time", &mt)) ||
            (r = cli_opt(&a, "--order", &order))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (rep) {
        char *end;
        long n = strtol(rep, &end, 10);
        if (*end || n < 1 || n > 1000000) return cli_usage(a.cmd, "--repeat must be a positive integer");
        o.repeat = (int)n;
    }
    if (red || order) {
        if ((r = cli_strategy(a.cmd, red, order, NULL, &o.strategy))) return r;
    }
    if (mt) {
        char *end;
        o.max_time = strtod(mt, &end);
        if (*end || !(o.max_time > 0)) return cli_usage(a.cmd, "--max-time must be a positive number");
    }
    /* Load once here for the usual errors and exit codes (the children load
     * the model again, each on its own). */
    jg_model_t *md;
    jg_program_t *p;
    jg_lin_t *l = NULL;
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    rc = cli_lin(p, &io, &l);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    if (rc) return rc;
    jg_lin_opts_t lo = {.nin = io.nin, .nout = io.nout, .nopen = io.nopen, .in = io.in,
                        .out = io.out, .open = io.open, .no_defaults = io.no_defaults};
    o.io = &lo;
    o.op_path = io.op;
    const char *base = strrchr(model, '/');
    char label[256];
    snprintf(label, sizeof label, "%s", base ? base + 1 : model);
    size_t n = strlen(label);
    if (n > 5 && !strcmp(label + n - 5, ".json")) label[n - 5] = '\0';
    jgb_source_t src = {.label = label, .path = model};
    jgb_row_t row;
    int bad = jgb_measure(&src, &o, &row);
    if (!row.ok && !row.mismatch) {
        /* the library's status (a singular loop: 5, as every command); 70
         * only for what failed outside it (fork, temporary file) */
        jg_error_t e = {.status = row.status ? row.status : JG_INTERNAL};
        snprintf(e.msg, sizeof e.msg, "%s", row.err);
        return cli_fail(&e);
    }
    if (csv) {
        jgb_csv_header(stdout);
        jgb_csv_row(stdout, &row);
    } else {
        printf("bench %s: graph algorithm (%s elimination) vs matrix algorithm; medians of %d/%d "
               "runs\n\n",
               label, o.strategy ? jg_graph_strategy_spec(o.strategy) : jg_graph_reduce_name(o.reduce),
               row.runs_graph, row.runs_matrix);
        jgb_table1_header(stdout);
        jgb_table1_row(stdout, &row);
        printf("\n");
        jgb_table2_header(stdout);
        jgb_table2_row(stdout, &row);
        printf("\n");
        jgb_detail_header(stdout);
        jgb_detail_row(stdout, &row);
        printf("\n");
        char b[3][32];
        double v[3] = {jgb_mem_ratio(&row), jgb_time_ratio(&row), jgb_rss_ratio(&row)};
        for (int k = 0; k < 3; k++) {
            if (isnan(v[k])) snprintf(b[k], sizeof b[k], "-");
            else snprintf(b[k], sizeof b[k], "%.3f", v[k]);
        }
        printf("graph/matrix: intermediate bytes %s, time %s, peak RSS increase %s; max difference "
               "%.1e\n",
               b[0], b[1], b[2], row.max_diff);
    }
    if (bad) fprintf(stderr, "jacgraph: error: %s\n", row.err);
    return bad ? EXIT_MISMATCH : 0;
}
