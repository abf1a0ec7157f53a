/* jacgraph: command-line front end; one subcommand per file. */
#define _DEFAULT_SOURCE 1   /* mallopt */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/plugin.h"

int cmd_jacobian(int argc, char **argv);   /* cmd_jacobian.c */

static const char usage[] =
    "usage: jacgraph COMMAND MODEL [options]\n"
    "\n"
    "Linearize Simulink-style block diagrams with a Jacobian graph.\n"
    "\n"
    "commands:\n"
    "  linearize   A, B, C, D at an operating point (graph, matrix or perturbation)\n"
    "  graph       the Jacobian graph as Graphviz dot / SVG\n"
    "  info        blocks, states, sorted order, algebraic loops, feedthrough\n"
    "  check       graph (each reduction) vs matrix vs perturbation\n"
    "  simulate    integrate a model and log states and signals to CSV\n"
    "  jacobian    the solver Jacobian df/dx: pattern, coloring, cost per method\n"
    "  generate    large seeded models (aerospace-like, power-network-like, deep)\n"
    "  bench       graph vs matrix algorithm on a model: sizes, memory, time\n"
    "  import      write a Simulink model (.mdl, .slx) as an equivalent JSON model\n"
    "\n"
    "global option, before or after COMMAND, repeatable:\n"
    "  --plugin FILE.so   load user-defined block types before the model (docs/plugins.md);\n"
    "                     a model's \"plugins\" list is also searched in JACGRAPH_PLUGIN_PATH\n"
    "\n"
    "MODEL is a JSON model, a Simulink .mdl (classic or OPC text) or an .slx file,\n"
    "told apart by content (docs/simulink.md).  Model options, repeatable, anywhere:\n"
    "  --workspace FILE       base-workspace values: a MATLAB script of assignments (.m)\n"
    "                         or a JSON object NAME -> value\n"
    "  --set NAME=EXPR        a value that overrides every workspace (masks included)\n"
    "  --model-path DIR       where Model blocks find referenced models\n"
    "  --substitute BLOCK=FILE.json   replace a block or SubSystem by a JSON subsystem\n"
    "\n"
    "'jacgraph COMMAND --help' describes each command.  Models: docs/model-format.md.\n"
    "Exit codes: 0 ok, 1 check disagreement, 2 usage, 3 file I/O, 4 invalid model,\n"
    "5 numerical failure (singular or nonlinear algebraic loop, domain error), 70 internal.\n";

/* OpenBLAS (openblas-pthread) would start a thread pool that spins on every
 * LAPACK call; our dense problems are loop blocks of a few dozen unknowns. */
void openblas_set_num_threads(int num_threads);

/* Take every "--plugin FILE" / "--plugin=FILE" out of argv and load the files
 * in order, so that each subcommand sees the plugins' block types when it
 * compiles its model.  Returns an exit code (0: go on). */
static int load_plugins(int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *file = NULL;
        if (!strcmp(argv[i], "--plugin")) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "jacgraph: option --plugin needs a value\nsee 'jacgraph --help'\n");
                return EXIT_USAGE;
            }
            file = argv[++i];
        } else if (!strncmp(argv[i], "--plugin=", 9)) {
            file = argv[i] + 9;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_plugin_load(file, &err)) return cli_fail(&err);
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int main(int argc, char **argv)
{
    openblas_set_num_threads(1);
    /* Keep freed memory in the heap instead of handing it back to the kernel:
     * on a large model the graph is built right after the JSON document is
     * freed, and reusing those pages instead of faulting in fresh ones is the
     * difference between 1 s and 3 s at a million blocks on this machine. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    int rc = load_plugins(&argc, argv);
    if (rc) return rc;
    if ((rc = cli_take_model_opts(&argc, argv))) return rc;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("jacgraph 0.1.0");
        return 0;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "linearize")) return cmd_linearize(argc - 1, argv + 1);
    if (!strcmp(cmd, "graph")) return cmd_graph(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "simulate")) return cmd_simulate(argc - 1, argv + 1);
    if (!strcmp(cmd, "jacobian")) return cmd_jacobian(argc - 1, argv + 1);
    if (!strcmp(cmd, "generate")) return cmd_generate(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
    fprintf(stderr, "jacgraph: unknown command '%s'\n\n%s", cmd, usage);
    return EXIT_USAGE;
}
