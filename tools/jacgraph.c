/* jacgraph: command-line front end; one subcommand per file. */
#define _DEFAULT_SOURCE 1   /* mallopt */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

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
    "  generate    large seeded models (aerospace-like, power-network-like, deep)\n"
    "  bench       graph vs matrix algorithm on a model: sizes, memory, time\n"
    "\n"
    "'jacgraph COMMAND --help' describes each command.  Models: docs/model-format.md.\n"
    "Exit codes: 0 ok, 1 check disagreement, 2 usage, 3 file I/O, 4 invalid model,\n"
    "5 numerical failure (singular or nonlinear algebraic loop, domain error), 70 internal.\n";

/* OpenBLAS (openblas-pthread) would start a thread pool that spins on every
 * LAPACK call; our dense problems are loop blocks of a few dozen unknowns. */
void openblas_set_num_threads(int num_threads);

int main(int argc, char **argv)
{
    openblas_set_num_threads(1);
    /* Keep freed memory in the heap instead of handing it back to the kernel:
     * on a large model the graph is built right after the JSON document is
     * freed, and reusing those pages instead of faulting in fresh ones is the
     * difference between 1 s and 3 s at a million blocks on this machine. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
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
    if (!strcmp(cmd, "generate")) return cmd_generate(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "jacgraph: unknown command '%s'\n\n%s", cmd, usage);
    return EXIT_USAGE;
}
