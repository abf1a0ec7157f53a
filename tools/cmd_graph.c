/* jacgraph graph: the Jacobian graph as Graphviz dot and SVG. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

/* Graphviz's dot layout is superlinear: a few thousand vertices take minutes.
 * Above this many vertices --svg needs --force. */
#define SVG_MAX_VERTICES 2000

static const char help[] =
    "usage: jacgraph graph MODEL [--dot FILE] [--svg FILE [--force]] [--json FILE]\n"
    "                            [--reduced | --reduce S] [io options]\n"
    "\n"
    "Write the Jacobian graph of MODEL (Han, Mosterman & Zhang, \"A Graph\n"
    "Algorithm for Linearizing Simulink Models\", Def. 1): states as circles,\n"
    "algebraic variables (block inputs and outputs) as boxes, linearization I/O\n"
    "points dashed; edges labelled with their value (1x1) or their size.\n"
    "\n"
    "  --dot FILE        Graphviz dot (through cgraph)\n"
    "  --svg FILE        SVG rendered with Graphviz dot layout (gvc); refused for a\n"
    "                    graph of more than 2000 vertices (the layout takes minutes):\n"
    "                    try --reduced, or --dot and another layout engine\n"
    "  --force           --svg whatever the size\n"
    "  --json FILE       the graph before elimination as JSON (vertex ids, names,\n"
    "                    kinds, widths, which are eliminable; every edge's pattern\n"
    "                    and values at the operating point, 0-based): with an\n"
    "                    order from 'jacgraph strategies --order-out' anyone can\n"
    "                    replay an elimination and recount its cost\n"
    "                    (docs/strategies.md)\n"
    "  --reduced         after the paper's Markowitz elimination\n"
    "  --reduce S        after elimination S: none, markowitz, full, or any strategy\n"
    "                    of 'jacgraph strategies --list' (docs/strategies.md)\n"
    "  --order FILE      after eliminating the vertices of FILE in its order (ids one\n"
    "                    a line, as --json numbers them): --reduce order:FILE\n"
    "  --input/--output/--open BLOCK:N|SIGNAL, --no-default-io, --op FILE as for linearize\n"
    "\n"
    "Prints the graph size, e.g. \"V:21 E:26\".\n";

/* --svg FILE while Graphviz lays out: an interrupted run leaves no empty or
 * partial file (the library creates it before the layout). */
static const char *volatile svg_pending;
static volatile int svg_existed;   /* keep a file of the user's that is not yet truncated */

static void drop_svg(int sig)
{
    struct stat sb;
    const char *path = svg_pending;
    if (path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (!svg_existed || sb.st_size == 0))
        unlink(path);
    signal(sig, SIG_DFL);
    raise(sig);
}

int cmd_graph(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "graph"};
    cli_io_t io = {0};
    const char *model = NULL, *dot = NULL, *svg = NULL, *reduce = NULL, *json = NULL, *order = NULL;
    int reduced = 0, force = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--dot", &dot)) ||
            (r = cli_opt(&a, "--svg", &svg)) || (r = cli_opt(&a, "--reduce", &reduce)) ||
            (r = cli_opt(&a, "--json", &json)) || (r = cli_opt(&a, "--order", &order))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--reduced")) {
            reduced = 1;
            continue;
        }
        if (cli_flag(&a, "--force")) {
            force = 1;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    const jg_graph_strategy_t *strat;
    if ((r = cli_strategy(a.cmd, reduce, order, reduced ? "markowitz" : "none", &strat))) return r;
    int red = strcmp(jg_graph_strategy_spec(strat), "none") != 0;
    jg_model_t *md;
    jg_program_t *p;
    jg_lin_t *l = NULL;
    const jg_graph_t *g;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if ((rc = cli_lin(p, &io, &l))) goto done;
    if (json) {   /* the graph before elimination, whatever --reduce says */
        const jg_graph_t *g0;
        if (jg_lin_graph(l, JG_GRAPH_REDUCE_NONE, &g0, &err) || jg_io_save_graph_json(json, g0, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
    }
    if (jg_lin_graph_strategy(l, strat, &g, &err)) {
        rc = cli_fail(&err);
        goto done;
    }
    jg_graph_stats_t st;
    jg_graph_stats(g, &st);
    char title[512];
    snprintf(title, sizeof title, "%s: Jacobian graph%s%s (V:%lld E:%lld)", jg_program_name(p),
             red ? ", reduced by " : "", red ? jg_graph_strategy_spec(strat) : "",
             (long long)st.v_after, (long long)st.e_after);
    long long nv = red ? st.v_after : st.v_before;   /* the graph drawn */
    if (svg && !force && nv > SVG_MAX_VERTICES) {   /* refused before any file is written */
        jg_error_set(&err, JG_ARG,
                     "%s: the graph has %lld vertices: Graphviz would take minutes to lay out more "
                     "than %d; try --reduced (the graph after elimination), --dot FILE, or --force",
                     svg, nv, SVG_MAX_VERTICES);
        rc = cli_fail(&err);
        goto done;
    }
    struct sigaction sa = {.sa_handler = drop_svg}, old_int, old_term, old_hup;
    sigemptyset(&sa.sa_mask);
    if (svg) {
        struct stat sb;
        svg_existed = lstat(svg, &sb) == 0;
        svg_pending = svg;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        sigaction(SIGHUP, &sa, &old_hup);
        /* a signal ignored at startup (nohup, a background job) stays ignored */
        if (old_int.sa_handler == SIG_IGN) sigaction(SIGINT, &old_int, NULL);
        if (old_term.sa_handler == SIG_IGN) sigaction(SIGTERM, &old_term, NULL);
        if (old_hup.sa_handler == SIG_IGN) sigaction(SIGHUP, &old_hup, NULL);
    }
    jg_status_t wst = (dot || svg) ? jg_io_write_graph(g, title, dot, svg, &err) : JG_OK;
    if (svg) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        svg_pending = NULL;
    }
    if (wst) {
        rc = cli_fail(&err);
        goto done;
    }
    if (red)
        printf("V:%lld E:%lld -> V:%lld E:%lld (%s)\n", (long long)st.v_before,
               (long long)st.e_before, (long long)st.v_after, (long long)st.e_after,
               jg_graph_strategy_spec(strat));
    else
        printf("V:%lld E:%lld\n", (long long)st.v_before, (long long)st.e_before);
done:
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
