/* jacgraph info: blocks, states, sorted order, algebraic loops, feedthrough. */
#include <string.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph info MODEL\n"
    "\n"
    "Print the compiled model: every block with its type, port widths, states and\n"
    "direct feedthrough; the state vector layout; the sorted order; the algebraic\n"
    "loops (strongly connected components of the direct-feedthrough graph).\n"
    "An output port whose lines carry a signal name lists it: signals {1: \"speed\"}.\n"
    "Names print as they are, except that a newline (or other control character)\n"
    "shows as a space; a '/' inside a block name is doubled in its path (a//b).\n";

/* A name on one line: control characters (the newline of a Simulink block
 * name) as spaces, padded to `w` columns of code points. */
static void put_name(const char *s, int w)
{
    for (; *s; s++) {
        putchar((unsigned char)*s < 0x20 ? ' ' : *s);
        w -= ((unsigned char)*s & 0xC0) != 0x80;
    }
    for (; w > 0; w--) putchar(' ');
}

int cmd_info(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "info"};
    const char *model = NULL;
    int r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage("info", "missing MODEL");
    jg_model_t *m;
    jg_program_t *p;
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    int32_t nb = jg_program_nblocks(p), ns;
    printf("model %s: %d blocks (%d non-virtual), %lld states, %d inputs, %d outputs, "
           "%d algebraic loop%s\n\n",
           jg_program_name(p), nb, jg_program_nreal(p), (long long)jg_program_nstates(p),
           jg_program_ninputs(p), jg_program_noutputs(p), jg_program_nloops(p),
           jg_program_nloops(p) == 1 ? "" : "s");
    printf("blocks:\n");
    for (int32_t b = 0; b < nb; b++) {
        int nin, nout;
        jg_program_block_nports(p, b, &nin, &nout);
        printf("  ");
        put_name(jg_program_block_path(p, b), 32);
        printf(" %-12s", jg_program_block_type(p, b));
        printf(" in [");
        for (int k = 0; k < nin; k++)
            printf("%s%lld%s", k ? " " : "", (long long)jg_program_port_width(p, b, 0, k),
                   jg_program_block_feedthrough(p, b, k) ? "*" : "");
        printf("] out [");
        for (int k = 0; k < nout; k++)
            printf("%s%lld", k ? " " : "", (long long)jg_program_port_width(p, b, 1, k));
        printf("]");
        int named = 0;
        for (int k = 0; k < nout; k++) {
            const char *sig = jg_program_signal_name(p, b, k);
            if (!sig) continue;
            printf("%s%d: \"", named++ ? ", " : " signals {", k + 1);
            put_name(sig, 0);
            printf("\"");
        }
        if (named) printf("}");
        if (jg_program_block_nstates(p, b)) printf(" states %lld", (long long)jg_program_block_nstates(p, b));
        if (jg_program_block_virtual(p, b)) printf(" virtual");
        printf("\n");
    }
    printf("  (input widths marked * have direct feedthrough)\n\nstates:\n");
    for (int64_t i = 0; i < jg_program_nstates(p); i++)
    {
        printf("  %lld  ", (long long)i + 1);
        put_name(jg_program_state_name(p, i), 0);
        printf("\n");
    }
    const int32_t *so = jg_program_sorted(p, &ns);
    printf("\nsorted order:\n");
    for (int32_t k = 0; k < ns; k++) {
        int l = jg_program_block_loop(p, so[k]);
        printf("  %d  ", k + 1);
        put_name(jg_program_block_path(p, so[k]), 0);
        if (l >= 0) printf("  (algebraic loop %d)", l + 1);
        printf("\n");
    }
    printf("\nalgebraic loops:%s\n", jg_program_nloops(p) ? "" : " none");
    for (int l = 0; l < jg_program_nloops(p); l++) {
        printf("  %d: ", l + 1);
        put_name(jg_program_loop_names(p, l), 0);
        printf("\n");
    }
    if (cli_nskipped()) {
        printf("\nleft out by the import (user interface only):\n");
        for (int k = 0; k < cli_nskipped(); k++) {
            printf("  ");
            put_name(cli_skipped(k), 0);
            printf("\n");
        }
    }
    jg_program_free(p);
    jg_model_free(m);
    return 0;
}
