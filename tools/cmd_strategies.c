/* jacgraph strategies: every elimination strategy on one model, its counted costs, times and agreement with the matrix method. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph strategies MODEL [--strategies LIST|all] [--format text|csv|json]\n"
    "                                 [--plot FILE.svg] [--order-out DIR] [--order FILE]\n"
    "                                 [--time-limit S] [--tol T] [io options]\n"
    "\n"
    "Linearize MODEL with the Jacobian graph once per elimination strategy and print\n"
    "one row per strategy: what it eliminated, the graph left (vertices, edges,\n"
    "nonzeros, bytes), the peak of live nonzeros, the multiply-adds of the cost\n"
    "model (docs/strategies.md) split into inversions, scalings and products, the\n"
    "additions, the order of the LFT that solves what is left and the\n"
    "multiplications of its sparse LU, the times (symbolic elimination, numeric\n"
    "replay, a whole linearization), and the largest difference of A, B, C, D to\n"
    "the matrix method.  Then ratios: work (fma + lft_fma) and nonzeros against\n"
    "the best strategy of the table, fma against 'exact' and nonzeros against\n"
    "'exact:nnz' when those were run and proved optimal.  'optimal' is 1 for a\n"
    "result proved optimal, 'bound' a searching strategy's lower bound on its\n"
    "objective (the gap is fma - bound).\n"
    "\n"
    "  --strategies LIST  comma-separated strategy specs (default: none,markowitz,full);\n"
    "                     'all' runs every registered strategy (exact and exact:nnz\n"
    "                     where the graph is small enough; an order file needs\n"
    "                     order:FILE).  A spec's own commas stay with it:\n"
    "                     'lm,anneal:seed=1,budget=500' is two specs\n"
    "  --format F         text (default), csv or json\n"
    "  --plot FILE.svg    FMA against nonzeros after elimination, one point per\n"
    "                     strategy, the Pareto front marked\n"
    "  --order-out DIR    DIR/NAME.txt per strategy (DIR created if missing): the\n"
    "                     eliminated vertex ids in order, one a line (NAME: the\n"
    "                     spec, characters other than letters, digits, '.', '-'\n"
    "                     and '_' replaced by '_');\n"
    "                     with 'jacgraph graph MODEL --json FILE' anyone can replay\n"
    "                     it and recount the costs (benchmarks/recount.py)\n"
    "  --time-limit S     seconds for a searching strategy (branch and bound,\n"
    "                     annealing); with 'all', exact and exact:nnz beyond their\n"
    "                     size limit run as exact:bb and exact:nnz:bb (branch and\n"
    "                     bound) instead\n"
    "  --order FILE       also evaluate the order in FILE (the spec order:FILE):\n"
    "                     vertex ids one a line, as --order-out writes them\n"
    "  --tol T            largest accepted max_diff (default 1e-10)\n"
    "  --input/--output/--open BLOCK:N|SIGNAL, --no-default-io, --op FILE as for linearize\n"
    "\n"
    "Strategies (a spec NAME, NAME:ARGS or a tie-break chain A>B>C of criteria):\n";

/* One row of the table. */
typedef struct {
    char *spec;
    jg_graph_cost_t c;
    int64_t lft_order, lft_fma;
    double t_elim_ms, t_replay_ms, t_total_ms, t_strategy_ms, max_diff;
    int64_t *order, norder;
} row_t;

static const char *const columns[] = {
    "strategy", "eliminated", "vertices", "edges", "nnz", "bytes", "peak_nnz", "fma", "fma_inv", "fma_scale",
    "fma_prod", "adds", "lft_order", "lft_fma", "t_elim_ms", "t_replay_ms", "t_total_ms", "max_diff",
    "t_strategy_ms", "optimal", "bound", "work", "work_vs_best", "nnz_vs_best", "fma_vs_exact", "nnz_vs_exact"};
enum { NCOL = sizeof columns / sizeof columns[0] };

/* The ratios of row k (NAN: not computed). */
typedef struct {
    double work_best, nnz_best, fma_exact, nnz_exact;
} ratio_t;

static double ratio(double a, double b) { return b > 0 ? a / b : (a == 0 && b == 0 ? 1 : NAN); }

/* Column k of row r as text (CSV and text formats; JSON formats numbers itself). */
static void cell(char *buf, size_t n, const row_t *r, const ratio_t *q, int k)
{
    const jg_graph_cost_t *c = &r->c;
    long long iv[] = {0, c->eliminated, c->v_after, c->e_after, c->nnz_after, (long long)c->bytes, c->peak_nnz,
                      c->fma, c->fma_inv, c->fma_scale, c->fma_prod, c->adds, r->lft_order, r->lft_fma};
    if (k == 0)
        snprintf(buf, n, "%s", r->spec);
    else if (k < 14)
        snprintf(buf, n, "%lld", iv[k]);
    else if (k <= 16 || k == 18)
        snprintf(buf, n, "%.3f", k == 14 ? r->t_elim_ms : k == 15 ? r->t_replay_ms : k == 16 ? r->t_total_ms : r->t_strategy_ms);
    else if (k == 17)
        snprintf(buf, n, "%.3g", r->max_diff);
    else if (k == 19)
        snprintf(buf, n, "%d", c->optimal);
    else if (k == 20) {
        if (c->bound >= 0)
            snprintf(buf, n, "%.0f", c->bound);
        else
            buf[0] = '\0';
    } else if (k == 21)
        snprintf(buf, n, "%lld", (long long)(c->fma + r->lft_fma));
    else {
        double v = k == 22 ? q->work_best : k == 23 ? q->nnz_best : k == 24 ? q->fma_exact : q->nnz_exact;
        if (isfinite(v))
            snprintf(buf, n, "%.3f", v);
        else
            buf[0] = '\0';
    }
}

/* NAME.txt for a spec: characters other than [A-Za-z0-9._-] become '_'. */
static void order_name(char *buf, size_t n, const char *dir, const char *spec)
{
    int len = snprintf(buf, n, "%s/", dir);
    for (const char *s = spec; *s && (size_t)len + 5 < n; s++) {
        char ch = *s;
        int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                   ch == '-' || ch == '_';
        buf[len++] = keep ? ch : '_';
    }
    snprintf(buf + len, n - (size_t)len, ".txt");
}

static int write_order(const char *dir, const row_t *r)
{
    char path[4096];
    order_name(path, sizeof path, dir, r->spec);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "jacgraph: error: %s: cannot write: %s\n", path, strerror(errno));
        return 3;
    }
    for (int64_t k = 0; k < r->norder; k++) fprintf(f, "%lld\n", (long long)r->order[k]);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "jacgraph: error: %s: write failed\n", path);
        return 3;
    }
    return 0;
}

/* Split LIST at commas; a piece holding '=' but no ':' (an argument such as
 * budget=500) stays with the spec before it.  Returns the number of specs
 * (malloc'd strings in specs[]), -1 when out of memory. */
static int split_list(const char *list, char ***specs)
{
    int n = 0, cap = 8;
    char **v = malloc(sizeof *v * (size_t)cap);
    char *copy = strdup(list);
    if (!v || !copy) goto nomem;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n > 0 && strchr(tok, '=') && !strchr(tok, ':')) {
            size_t a = strlen(v[n - 1]), b = strlen(tok);
            char *j = realloc(v[n - 1], a + b + 2);
            if (!j) goto nomem;
            j[a] = ',';
            memcpy(j + a + 1, tok, b + 1);
            v[n - 1] = j;
            continue;
        }
        if (n == cap) {
            char **nv = realloc(v, sizeof *v * (size_t)(cap *= 2));
            if (!nv) goto nomem;
            v = nv;
        }
        if (!(v[n] = strdup(tok))) goto nomem;
        n++;
    }
    free(copy);
    *specs = v;
    return n;
nomem:
    for (int k = 0; v && k < n; k++) free(v[k]);
    free(v);
    free(copy);
    return -1;
}

/* 'all': every registered strategy that runs without arguments, and exact's
 * nonzero variant. */
static int all_specs(char ***specs)
{
    int n = jg_graph_strategy_count(), m = 0;
    char **v = calloc((size_t)n + 2, sizeof *v);
    if (!v) return -1;
    for (int k = 0; k < n; k++) {
        const char *name = jg_graph_strategy_name(k);
        if (!strcmp(name, "order")) continue;   /* needs order:FILE */
        v[m++] = strdup(name);
        if (!strcmp(name, "exact")) v[m++] = strdup("exact:nnz");
    }
    for (int k = 0; k < m; k++)
        if (!v[k]) {
            for (int j = 0; j < m; j++) free(v[j]);
            free(v);
            return -1;
        }
    *specs = v;
    return m;
}

/* Linearize with strategy s on a fresh linearizer, once to build, eliminate
 * and replay, then three times more that only replay, and compare with the
 * reference.  Returns a status; the row is filled on success. */
static jg_status_t run_one(const jg_program_t *p, const cli_io_t *io, const jg_graph_strategy_t *s,
                           const jg_lin_sys_t *ref, row_t *r, jg_error_t *err)
{
    jg_lin_t *l = NULL;
    jg_lin_sys_t *sys = NULL, *sys2 = NULL;
    jg_lin_stats_t st1, st2;
    const jg_graph_t *g;
    jg_lin_opts_t o = {.nin = io->nin, .nout = io->nout, .nopen = io->nopen, .in = io->in, .out = io->out,
                       .open = io->open, .no_defaults = io->no_defaults, .delays = (jg_lin_delays_t)io->delays,
                       .pade_order = io->pade_order};
    jg_status_t st = jg_lin_create(p, &o, &l, err);
    if (!st && io->op) st = jg_lin_read_op(l, io->op, err);
    if (!st) st = jg_lin_run_strategy(l, s, &sys, &st1, err);
    /* the replay: the fastest of three runs (one run is at the mercy of the machine) */
    double t_replay = INFINITY;
    for (int k = 0; k < 3 && !st; k++) {
        jg_lin_sys_free(sys2);
        sys2 = NULL;
        if (!(st = jg_lin_run_strategy(l, s, &sys2, &st2, err))) t_replay = fmin(t_replay, st2.t_replay);
    }
    if (!st) st = jg_lin_graph_strategy(l, s, &g, err);
    if (st) goto done;
    jg_graph_cost(g, &r->c);
    const int64_t *ord;
    r->norder = jg_graph_order(g, &ord);
    r->order = malloc(sizeof(int64_t) * (size_t)(r->norder + 1));
    if (!r->order) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if (r->norder) memcpy(r->order, ord, sizeof(int64_t) * (size_t)r->norder);
    r->lft_order = st1.lft_n;
    r->lft_fma = st1.lft_fma;
    r->t_elim_ms = 1e3 * r->c.t_elim;
    r->t_strategy_ms = 1e3 * r->c.t_strategy;
    r->t_replay_ms = 1e3 * t_replay;
    r->t_total_ms = 1e3 * st1.t_total;
    const char *which;
    r->max_diff = jg_lin_sys_diff(sys, ref, &which);
done:
    jg_lin_sys_free(sys);
    jg_lin_sys_free(sys2);
    jg_lin_free(l);
    return st;
}

static void print_text(const row_t *rows, const ratio_t *q, int n)
{
    static const char *const head[NCOL] = {
        "strategy", "elim", "V", "E", "nnz", "bytes", "peak_nnz", "fma", "fma_inv", "fma_scale", "fma_prod", "adds",
        "lft_n", "lft_fma", "t_elim_ms", "t_replay_ms", "t_total_ms", "max_diff", "t_strat_ms", "opt", "bound", "work",
        "work/best", "nnz/best", "fma/exact", "nnz/exact"};
    int w[NCOL];
    char buf[256];
    for (int k = 0; k < NCOL; k++) w[k] = (int)strlen(head[k]);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < NCOL; k++) {
            cell(buf, sizeof buf, &rows[i], &q[i], k);
            if (!buf[0]) snprintf(buf, sizeof buf, "-");
            if ((int)strlen(buf) > w[k]) w[k] = (int)strlen(buf);
        }
    for (int k = 0; k < NCOL; k++) printf(k ? " %*s" : "%-*s", w[k], head[k]);
    putchar('\n');
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < NCOL; k++) {
            cell(buf, sizeof buf, &rows[i], &q[i], k);
            if (!buf[0]) snprintf(buf, sizeof buf, "-");
            printf(k ? " %*s" : "%-*s", w[k], buf);
        }
        putchar('\n');
    }
}

static void print_csv(const row_t *rows, const ratio_t *q, int n)
{
    char buf[256];
    for (int k = 0; k < NCOL; k++) printf("%s%s", k ? "," : "", columns[k]);
    putchar('\n');
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < NCOL; k++) {
            cell(buf, sizeof buf, &rows[i], &q[i], k);
            if (k) putchar(',');
            if (k == 0 && strpbrk(buf, ",\"")) {   /* a spec with its own commas (RFC 4180) */
                putchar('"');
                for (const char *c = buf; *c; c++) {
                    if (*c == '"') putchar('"');
                    putchar(*c);
                }
                putchar('"');
            } else {
                fputs(buf, stdout);
            }
        }
        putchar('\n');
    }
}

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

static void print_json(const char *model, const row_t *rows, const ratio_t *q, int n)
{
    char buf[256];
    printf("{\"model\": ");
    json_str(stdout, model);
    printf(",\n\"strategies\": [");
    for (int i = 0; i < n; i++) {
        printf("%s\n  {", i ? "," : "");
        for (int k = 0; k < NCOL; k++) {
            cell(buf, sizeof buf, &rows[i], &q[i], k);
            printf("%s\"%s\": ", k ? ", " : "", columns[k]);
            if (k == 0)
                json_str(stdout, buf);
            else if (!buf[0] || (k == 17 && !isfinite(rows[i].max_diff)))
                printf("null");
            else
                printf("%s", buf);
        }
        printf("}");
    }
    printf("\n]}\n");
}

int cmd_strategies(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "strategies"};
    cli_io_t io = {0};
    const char *model = NULL, *list = NULL, *format = "text", *plot = NULL, *odir = NULL, *tls = NULL, *tols = NULL,
               *ofile = NULL;
    int r;
    while (a.i < argc) {
        if (cli_help(&a, help)) {
            for (int k = 0; k < jg_graph_strategy_count(); k++)
                printf("  %-14s %s%s\n", jg_graph_strategy_name(k), jg_graph_strategy_help(k),
                       jg_graph_strategy_is_criterion(k) ? " (criterion)" : "");
            printf("\nExit status 0; 1 when a strategy's max_diff exceeds --tol; 2 usage; otherwise\n"
                   "that of the first strategy that failed (all: a strategy that refuses the\n"
                   "graph, exact beyond its limit without --time-limit, is skipped with a note).\n");
            return 0;
        }
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--strategies", &list)) ||
            (r = cli_opt(&a, "--format", &format)) || (r = cli_opt(&a, "--plot", &plot)) ||
            (r = cli_opt(&a, "--order-out", &odir)) || (r = cli_opt(&a, "--time-limit", &tls)) ||
            (r = cli_opt(&a, "--tol", &tols)) || (r = cli_opt(&a, "--order", &ofile))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    int fmt = !strcmp(format, "text") ? 0 : !strcmp(format, "csv") ? 1 : !strcmp(format, "json") ? 2 : -1;
    if (fmt < 0) return cli_usage(a.cmd, "unknown --format '%s' (text, csv, json)", format);
    double tl = 0, tol = 1e-10;
    if (tls && ((r = cli_num(a.cmd, "--time-limit", tls, &tl)) || !(tl > 0)))
        return r ? r : cli_usage(a.cmd, "--time-limit must be positive");
    if (tols && ((r = cli_num(a.cmd, "--tol", tols, &tol)) || !(tol > 0)))
        return r ? r : cli_usage(a.cmd, "--tol must be positive");
    int all = list && !strcmp(list, "all");
    char **specs = NULL;
    int nspec = all ? all_specs(&specs) : split_list(list ? list : "none,markowitz,full", &specs);
    if (nspec < 0) {
        fprintf(stderr, "jacgraph: error: out of memory\n");
        return 70;
    }
    if (nspec == 0) {
        free(specs);
        return cli_usage(a.cmd, "--strategies names no strategy");
    }
    if (ofile) {   /* one more spec: order:FILE */
        char **ns = realloc(specs, sizeof *specs * (size_t)(nspec + 1));
        size_t len = strlen(ofile) + 7;
        char *o = malloc(len);
        if (ns) specs = ns;
        if (!ns || !o) {
            free(o);
            for (int k = 0; k < nspec; k++) free(specs[k]);
            free(specs);
            fprintf(stderr, "jacgraph: error: out of memory\n");
            return 70;
        }
        snprintf(o, len, "order:%s", ofile);
        specs[nspec++] = o;
    }
    int rc = 0, nrow = 0;
    jg_error_t err;
    jg_error_clear(&err);
    jg_graph_strategy_t **strat = calloc((size_t)nspec, sizeof *strat);
    row_t *rows = calloc((size_t)nspec, sizeof *rows);
    ratio_t *q = calloc((size_t)nspec, sizeof *q);
    jg_model_t *md = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *lref = NULL;
    jg_lin_sys_t *ref = NULL;
    if (!strat || !rows || !q) {
        rc = 70;
        fprintf(stderr, "jacgraph: error: out of memory\n");
        goto done;
    }
    /* every spec is parsed before anything runs: a typo costs nothing */
    for (int k = 0; k < nspec; k++) {
        if (jg_graph_strategy_parse(specs[k], &strat[k], &err)) {
            rc = cli_usage(a.cmd, "%s", err.msg);
            goto done;
        }
        if (tl > 0) jg_graph_strategy_set_time_limit(strat[k], tl);
    }
    if (odir && mkdir(odir, 0777) && errno != EEXIST) {
        fprintf(stderr, "jacgraph: error: %s: cannot create: %s\n", odir, strerror(errno));
        rc = 3;
        goto done;
    }
    if ((rc = cli_load(model, &md, &p))) goto done;
    if ((rc = cli_lin(p, &io, &lref))) goto done;
    if (jg_lin_run(lref, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &ref, NULL, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    for (int k = 0; k < nspec; k++) {
        row_t *row = &rows[nrow];
        jg_error_clear(&err);
        jg_status_t st = run_one(p, &io, strat[k], ref, row, &err);
        if (st == JG_ARG && all && tl > 0 && (!strcmp(specs[k], "exact") || !strcmp(specs[k], "exact:nnz"))) {
            /* beyond the dynamic program's size: branch and bound in the time given */
            const char *bb = specs[k][5] ? "exact:nnz:bb" : "exact:bb";
            jg_graph_strategy_t *sb = NULL;
            jg_error_t e2;
            jg_error_clear(&e2);
            if (!jg_graph_strategy_parse(bb, &sb, &e2)) {
                char *name = strdup(bb);
                jg_graph_strategy_set_time_limit(sb, tl);
                jg_graph_strategy_free(strat[k]);
                strat[k] = sb;
                if (name) {
                    free(specs[k]);
                    specs[k] = name;
                }
                jg_error_clear(&err);
                free(row->order);
                memset(row, 0, sizeof *row);
                st = run_one(p, &io, strat[k], ref, row, &err);
            }
        }
        if (st) {
            free(row->order);
            memset(row, 0, sizeof *row);
            if (all && st == JG_ARG) {   /* a strategy that refuses this graph */
                fprintf(stderr, "jacgraph strategies: %s skipped: %s\n", specs[k], err.msg);
                continue;
            }
            fprintf(stderr, "jacgraph: error: strategy '%s': %s\n", specs[k],
                    err.msg[0] ? err.msg : jg_strerror(st));
            if (!rc) rc = jg_status_exit(st);
            continue;
        }
        row->spec = specs[k];
        nrow++;
        if (!(row->max_diff <= tol)) {
            fprintf(stderr, "jacgraph strategies: %s: A, B, C, D differ from the matrix method's by %.3g (> %g)\n",
                    specs[k], row->max_diff, tol);
            if (!rc) rc = EXIT_MISMATCH;
        }
        if (odir) {
            int wr = write_order(odir, row);
            if (wr && !rc) rc = wr;
        }
    }
    /* ratios: work and nonzeros against the best of the table, fma against
     * exact's optimum and nonzeros against exact:nnz's */
    double best_work = INFINITY, best_nnz = INFINITY, ex_fma = NAN, ex_nnz = NAN;
    for (int i = 0; i < nrow; i++) {
        best_work = fmin(best_work, (double)(rows[i].c.fma + rows[i].lft_fma));
        best_nnz = fmin(best_nnz, (double)rows[i].c.nnz_after);
        if (!strncmp(rows[i].spec, "exact", 5) && !strstr(rows[i].spec, "nnz") && rows[i].c.optimal)
            ex_fma = (double)rows[i].c.fma;
        if (!strncmp(rows[i].spec, "exact:nnz", 9) && rows[i].c.optimal) ex_nnz = (double)rows[i].c.nnz_after;
    }
    for (int i = 0; i < nrow; i++) {
        q[i].work_best = ratio((double)(rows[i].c.fma + rows[i].lft_fma), best_work);
        q[i].nnz_best = ratio((double)rows[i].c.nnz_after, best_nnz);
        q[i].fma_exact = isnan(ex_fma) ? NAN : ratio((double)rows[i].c.fma, ex_fma);
        q[i].nnz_exact = isnan(ex_nnz) ? NAN : ratio((double)rows[i].c.nnz_after, ex_nnz);
    }
    if (nrow == 0)
        ;   /* every strategy failed: no empty table */
    else if (fmt == 0)
        print_text(rows, q, nrow);
    else if (fmt == 1)
        print_csv(rows, q, nrow);
    else
        print_json(model, rows, q, nrow);
    if (plot && nrow > 0) {
        double *x = malloc(sizeof(double) * (size_t)(nrow + 1)), *y = malloc(sizeof(double) * (size_t)(nrow + 1));
        const char **lab = malloc(sizeof(char *) * (size_t)(nrow + 1));
        jg_status_t pst = JG_NOMEM;
        if (x && y && lab) {
            for (int i = 0; i < nrow; i++) {
                x[i] = (double)rows[i].c.nnz_after;
                y[i] = (double)rows[i].c.fma;
                lab[i] = rows[i].spec;
            }
            char title[512];
            snprintf(title, sizeof title, "%s: elimination strategies", jg_program_name(p));
            jg_plot_opts_t po = {.title = title,
                                 .subtitle = "lower left is better: filled points are not beaten on both axes",
                                 .xlabel = "nonzeros after elimination",
                                 .ylabel = "multiply-adds of the elimination (fma)"};
            pst = jg_plot_save_scatter_svg(plot, nrow, x, y, lab, &po, &err);
        } else {
            jg_error_set(&err, JG_NOMEM, "out of memory");
        }
        if (pst) {
            int code = cli_fail(&err);
            if (!rc) rc = code;
        }
        free(x);
        free(y);
        free(lab);
    }
done:
    for (int k = 0; k < nspec; k++) {
        if (strat) jg_graph_strategy_free(strat[k]);
        free(specs[k]);
    }
    for (int i = 0; rows && i < nrow; i++) free(rows[i].order);
    free(specs);
    free(strat);
    free(rows);
    free(q);
    jg_lin_sys_free(ref);
    jg_lin_free(lref);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
