/* jacgraph: command-line front end; one subcommand per file. */
#include "blas.h"
#include "heap.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"

int cmd_jacobian(int argc, char **argv);   /* cmd_jacobian.c */
int cmd_sparsing(int argc, char **argv);   /* cmd_sparsing.c */
int cmd_trim(int argc, char **argv);       /* cmd_trim.c */
int cmd_analyze(int argc, char **argv);    /* cmd_analyze.c */
int cmd_strategies(int argc, char **argv); /* cmd_strategies.c */
int cmd_batch(int argc, char **argv);      /* cmd_batch.c */

static const char usage[] =
    "usage: jacgraph COMMAND MODEL [options]\n"
    "\n"
    "Linearize Simulink-style block diagrams with a Jacobian graph.\n"
    "\n"
    "commands:\n"
    "  linearize   A, B, C, D at an operating point (graph, matrix or perturbation)\n"
    "  batch       A, B, C, D at many operating points and parameter values, on\n"
    "              every core, into one JSON Lines, MAT or HDF5 file\n"
    "  trim        an operating point from a specification (steady states, known\n"
    "              inputs and outputs, bounds), written for linearize --op\n"
    "  analyze     poles, zeros, DC gain, controllability, minimal realization,\n"
    "              transfer functions; Bode, step, impulse and pole-zero plots\n"
    "  graph       the Jacobian graph as Graphviz dot / SVG / JSON\n"
    "  strategies  every elimination strategy on a model: counted costs, sizes,\n"
    "              times, agreement with the matrix method, a Pareto plot\n"
    "  info        blocks, states, sorted order, algebraic loops, feedthrough\n"
    "  check       graph (each reduction) vs matrix vs perturbation\n"
    "  simulate    integrate a model and log states and signals to CSV\n"
    "  jacobian    the solver Jacobian df/dx: pattern, coloring, cost per method\n"
    "  sparsing    how dropping Jacobian entries changes the linearly implicit Euler step\n"
    "  generate    large seeded models (aerospace-like, power-network-like, deep)\n"
    "  bench       graph vs matrix algorithm on a model: sizes, memory, time\n"
    "  import      write a Simulink model (.mdl, .slx) as an equivalent JSON model\n"
    "\n"
    "global option, before or after COMMAND, repeatable:\n"
    "  --plugin FILE.so   load user-defined block types into the model (docs/plugins.md);\n"
    "                     a model's \"plugins\" list is also searched in JACGRAPH_PLUGIN_PATH\n"
    "\n"
    "MODEL is a JSON model, a Simulink .mdl (classic or OPC text) or an .slx file,\n"
    "told apart by content (docs/simulink.md).  Model options, repeatable, anywhere:\n"
    "  --workspace FILE       base-workspace values: a MATLAB script of assignments (.m)\n"
    "                         or a JSON object NAME -> value\n"
    "  --set NAME=EXPR        a value that overrides every workspace (masks included)\n"
    "  --model-path DIR       where Model blocks find referenced models\n"
    "  --substitute BLOCK=FILE.json   replace a block or SubSystem by a JSON subsystem\n"
    "  --max-file-size BYTES  largest JSON model or data file read (default 256M)\n"
    "  --max-elements N       largest signal width, state count, buffer, and their sum\n"
    "                         over the model (default 10000000); docs/cli.md \"Limits\"\n"
    "\n"
    "'jacgraph COMMAND --help' describes each command.  Models: docs/model-format.md.\n"
    "Exit codes: 0 ok, 1 check disagreement, 2 usage, 3 file I/O, 4 invalid model,\n"
    "5 numerical failure (singular or nonlinear algebraic loop, domain error),\n"
    "70 out of memory or internal error.\n";

int main(int argc, char **argv)
{
    cli_blas_quiet();   /* one BLAS thread, its idle pool ended (blas.c) */
    cli_heap_init();
    int rc = cli_take_model_opts(&argc, argv);   /* --plugin too */
    if (rc) return rc;
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
    if (!strcmp(cmd, "batch")) return cmd_batch(argc - 1, argv + 1);
    if (!strcmp(cmd, "trim")) return cmd_trim(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyze")) return cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "graph")) return cmd_graph(argc - 1, argv + 1);
    if (!strcmp(cmd, "strategies")) return cmd_strategies(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "simulate")) return cmd_simulate(argc - 1, argv + 1);
    if (!strcmp(cmd, "jacobian")) return cmd_jacobian(argc - 1, argv + 1);
    if (!strcmp(cmd, "sparsing")) return cmd_sparsing(argc - 1, argv + 1);
    if (!strcmp(cmd, "generate")) return cmd_generate(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
    fprintf(stderr, "jacgraph: unknown command '%s'\n\n%s", cmd, usage);
    return EXIT_USAGE;
}
