/* gen_model -- print a random linear block diagram (jg_gen_random, lib/gen) as JSON.
 *
 * usage: gen_model SEED NBLOCKS [DEPTH] [--no-vectors] [--no-loops] [--infer-widths] [-q]
 *   e.g. gen_model 1 10000 2 > m10k.json
 * DEPTH is the maximum SubSystem nesting (default 2).  The model's
 * "description" names the options; a summary of what was generated goes to
 * stderr (-q: none).  The same arguments give the same bytes on any machine. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/gen.h"

static int usage(void)
{
    fprintf(stderr, "usage: gen_model SEED NBLOCKS [DEPTH] [--no-vectors] [--no-loops] "
                    "[--infer-widths] [-q] > model.json\n");
    return 2;
}

int main(int argc, char **argv)
{
    jg_gen_random_opts_t o;
    int npos = 0;
    uint64_t seed = 0;
    long nb = 0, depth = 2;
    int vectors = 1, loops = 1, infer = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--no-vectors")) vectors = 0;
        else if (!strcmp(argv[i], "--no-loops")) loops = 0;
        else if (!strcmp(argv[i], "--infer-widths")) infer = 1;
        else if (!strcmp(argv[i], "-q")) quiet = 1;
        else if (argv[i][0] == '-' && argv[i][1] && (argv[i][1] < '0' || argv[i][1] > '9')) return usage();
        else {
            if (npos == 0) {
                seed = strtoull(argv[i], &end, 10);
                if (*end || !*argv[i]) return usage();
            } else if (npos == 1 || npos == 2) {
                long v = strtol(argv[i], &end, 10);
                if (*end || !*argv[i] || v < 0 || v > 100000000) return usage();
                if (npos == 1) nb = v; else depth = v;
            } else {
                return usage();
            }
            npos++;
        }
    }
    if (npos < 2 || nb < 1) return usage();
    jg_gen_random_defaults(&o, seed, (int)nb);
    o.max_depth = (int)depth;
    o.vectors = vectors;
    o.loops = loops;
    o.infer_widths = infer;
    jg_gen_random_info_t info;
    char *text = NULL;
    jg_error_t err;
    if (jg_gen_random(&o, &text, &info, &err)) {
        fprintf(stderr, "gen_model: %s\n", err.msg);
        return jg_status_exit(err.status);
    }
    fputs(text, stdout);
    free(text);
    if (!quiet)
        fprintf(stderr,
                "gen_model: seed %" PRIu64 ": %d blocks, %" PRId64 " states, %d algebraic loops, "
                "%d subsystems (depth %d), %d feedback paths, %d vector signals (max width %d)\n",
                seed, info.nblocks, info.nstates, info.nloops, info.nsubsystems, info.depth,
                info.nfeedback, info.nvector, info.maxwidth);
    return fflush(stdout) ? 1 : 0;
}
