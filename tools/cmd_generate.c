/* jacgraph generate: the command line of the model generators (lib/gen,
 * jacgraph/gen.h): seeded models with the structure of real ones (aerospace
 * flight control, power networks, deep hierarchies) and the stiff Brusselator,
 * written as JSON or, through jg_io_write_simulink, as MDL or SLX.  See
 * docs/generator.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "jacgraph/gen.h"
#include "jacgraph/io.h"
#include "cli.h"

static const char help[] =
    "usage: jacgraph generate KIND --blocks N [--seed S] [--out FILE] [--format F] [--depth D] [--quiet]\n"
    "       jacgraph generate brusselator --states N [--seed S] [--out FILE] [--format F] [--quiet]\n"
    "\n"
    "Write a seeded synthetic model (JSON, or a Simulink MDL/SLX file) with about\n"
    "N blocks, SubSystems and their Inport/Outport blocks included.  KIND:\n"
    "  aerospace  many small SubSystems (3-20 blocks, nested 2-4 deep) of Gains,\n"
    "             Sums and Mux/Demux/Selector routing on vectors of width 2-6, one\n"
    "             state per ~35 blocks (Integrator, TransferFcn, StateSpace) with\n"
    "             feedback through the states\n"
    "  power      areas of 10-50 buses (Sums with many inputs) coupled by line\n"
    "             admittances (Gains): one diagonally dominant linear algebraic\n"
    "             loop per area; generator SubSystems (2-4 states) on most buses;\n"
    "             areas grouped into cells joined by tie-line dynamics\n"
    "  deep       SubSystems nested 10-50 levels (chains and trees), signals\n"
    "             passed down and up through the ports, an Integrator with\n"
    "             feedback through the lower levels at every level\n"
    "  brusselator  the stiff 2-D Brusselator with diffusion (Hairer & Wanner II,\n"
    "             BRUSS-2D) on an nx x ny periodic grid, N = 2 nx ny states in two\n"
    "             vector Integrators, 25 blocks at every size; nx is the largest\n"
    "             divisor of N/2 not above sqrt(N/2) and must be at least 3\n"
    "             (98 = 2x7x7, 100 = 2x5x10, 1000 = 2x20x25, 100000 = 2x200x250)\n"
    "\n"
    "  --blocks N   target block count (10 .. 10^7; suffix k or M allowed: 10k, 1M)\n"
    "  --states N   brusselator: the number of states (18 .. 10^7, k and M allowed)\n"
    "  --seed S     seed (unsigned 64-bit, default 1); same seed, same bytes;\n"
    "               brusselator: perturbs the initial values by up to 0.01 (0: none)\n"
    "  --out FILE   write to FILE (default: standard output; mdl and slx need a FILE)\n"
    "  --format F   json (default), mdl (classic Simulink MDL, 8.1 layout) or slx\n"
    "               (Simulink SLX package, R2019b layout); without --format, an\n"
    "               --out FILE ending in .mdl or .slx chooses that format\n"
    "  --depth D    deep: nesting depth to aim for (default 10..50 from the seed)\n"
    "  --quiet      no summary line on standard error\n";

/* ------------------------------------------------------------------ command */

static int parse_count(const char *v, int64_t *n)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || errno) return -1;
    if (*end == 'k' || *end == 'K') x *= 1000, end++;
    else if (*end == 'M' || *end == 'm') x *= 1000000, end++;
    if (*end) return -1;
    *n = x;
    return 0;
}

int cmd_generate(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "generate"};
    const char *kind_s = NULL, *blocks_s = NULL, *seed_s = "1", *out_s = NULL, *depth_s = NULL;
    const char *states_s = NULL, *format_s = NULL;
    int quiet = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_opt(&a, "--blocks", &blocks_s)) || (r = cli_opt(&a, "--seed", &seed_s)) ||
            (r = cli_opt(&a, "--out", &out_s)) || (r = cli_opt(&a, "--depth", &depth_s)) ||
            (r = cli_opt(&a, "--states", &states_s)) || (r = cli_opt(&a, "--format", &format_s))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if (cli_flag(&a, "--quiet") || cli_flag(&a, "-q")) {
            quiet = 1;
            continue;
        }
        if ((r = cli_operand(&a, "KIND", &kind_s))) return r;
    }
    if (!kind_s) return cli_usage(a.cmd, "missing KIND (aerospace, power, deep, brusselator)");
    jg_gen_kind_t kind;
    if (jg_gen_kind_parse(kind_s, &kind, NULL))
        return cli_usage(a.cmd, "unknown KIND '%s' (aerospace, power, deep, brusselator)", kind_s);
    int64_t N, nx = 0, ny = 0;
    if (kind == JG_GEN_BRUSSELATOR) {
        /* its block count is fixed: the size is the number of states */
        if (blocks_s) return cli_usage(a.cmd, "brusselator takes --states N, not --blocks");
        if (!states_s) return cli_usage(a.cmd, "missing --states N");
        if (parse_count(states_s, &N) || N < 18 || N > 10000000)
            return cli_usage(a.cmd, "--states must be an integer from 18 to 10000000 (10k, 1M), not '%s'",
                             states_s);
        if (jg_gen_brusselator_grid(N, &nx, &ny)) {
            int64_t lo = N - 1, hi = N + 1;
            while (lo >= 18 && jg_gen_brusselator_grid(lo, &nx, &ny)) lo--;
            while (jg_gen_brusselator_grid(hi, &nx, &ny)) hi++;
            if (lo >= 18)
                return cli_usage(a.cmd, "--states %lld is not 2 nx ny with 3 <= nx <= ny (nx the largest "
                                        "such divisor); nearest: %lld or %lld", (long long)N, (long long)lo,
                                 (long long)hi);
            return cli_usage(a.cmd, "--states %lld is not 2 nx ny with 3 <= nx <= ny; nearest: %lld",
                             (long long)N, (long long)hi);
        }
    } else if (states_s) return cli_usage(a.cmd, "--states applies to KIND brusselator only");
    else if (!blocks_s) return cli_usage(a.cmd, "missing --blocks N");
    else if (parse_count(blocks_s, &N) || N < 10 || N > 10000000)
        return cli_usage(a.cmd, "--blocks must be an integer from 10 to 10000000 (10k, 1M), not '%s'",
                         blocks_s);
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_s, &end, 10);
    if (end == seed_s || *end || errno || seed_s[0] == '-')
        return cli_usage(a.cmd, "--seed must be an unsigned integer, not '%s'", seed_s);
    int depth = 0;
    if (depth_s) {
        long d = strtol(depth_s, &end, 10);
        if (end == depth_s || *end || d < 1 || d > 1000)
            return cli_usage(a.cmd, "--depth must be an integer from 1 to 1000, not '%s'", depth_s);
        if (kind != JG_GEN_DEEP) return cli_usage(a.cmd, "--depth applies to KIND deep only");
        depth = (int)d;
    }

    /* the format: --format, else the extension of --out */
    int slfmt = 0;
    if (out_s && !strcmp(out_s, "-")) out_s = NULL;
    if (format_s) {
        if (!strcmp(format_s, "mdl")) slfmt = JG_SL_WRITE_MDL;
        else if (!strcmp(format_s, "slx")) slfmt = JG_SL_WRITE_SLX;
        else if (strcmp(format_s, "json"))
            return cli_usage(a.cmd, "--format must be json, mdl or slx, not '%s'", format_s);
    } else if (out_s) {
        size_t n = strlen(out_s);
        if (n > 4 && !strcmp(out_s + n - 4, ".mdl")) slfmt = JG_SL_WRITE_MDL;
        else if (n > 4 && !strcmp(out_s + n - 4, ".slx")) slfmt = JG_SL_WRITE_SLX;
    }
    if (slfmt && !out_s) return cli_usage(a.cmd, "--format %s needs --out FILE", format_s);

    jg_gen_opts_t o;
    jg_gen_opts_default(&o, kind, N, seed);
    o.depth = depth;
    jg_gen_info_t info;
    jg_error_t err;
    jg_status_t st;
    if (slfmt) {
        /* Simulink formats: the JSON text is made in memory, then converted */
        char *mem = NULL;
        size_t memlen = 0;
        st = jg_gen_model(&o, &mem, &memlen, &info, &err);
        if (!st) st = jg_io_write_simulink(mem, memlen, slfmt, out_s, &err);
        free(mem);
        if (st != JG_OK) {
            fprintf(stderr, "jacgraph: error: %s\n", err.msg);
            return jg_status_exit(st);
        }
        struct stat sb;
        if (!stat(out_s, &sb)) info.bytes = (uint64_t)sb.st_size;
    } else {
        static char buf[1 << 20];
        FILE *f = stdout;
        if (out_s && !(f = fopen(out_s, "w"))) {
            fprintf(stderr, "jacgraph: error: cannot write '%s': %s\n", out_s, strerror(errno));
            return 3;
        }
        setvbuf(f, buf, _IOFBF, sizeof buf);
        st = jg_gen_write(&o, f, &info, &err);
        int bad = fflush(f) != 0 || ferror(f);
        if (out_s) bad |= fclose(f) != 0;
        if (st == JG_IO || (!st && bad)) {
            fprintf(stderr, "jacgraph: error: writing '%s' failed\n", out_s ? out_s : "<stdout>");
            return 3;
        }
        if (st) {
            fprintf(stderr, "jacgraph: error: %s\n", err.msg);
            return jg_status_exit(st);
        }
    }
    if (!quiet) {
        fprintf(stderr, "jacgraph generate %s --seed %llu: %lld blocks (%lld SubSystems), %lld "
                        "states, depth %d, %lld inputs, %lld outputs",
                kind_s, seed, (long long)info.nblocks, (long long)info.nsubsystems, (long long)info.nstates,
                info.depth, (long long)info.ninputs, (long long)info.noutputs);
        if (kind == JG_GEN_POWER) fprintf(stderr, ", %lld algebraic loops", (long long)info.nloops);
        if (kind == JG_GEN_BRUSSELATOR) fprintf(stderr, ", grid %lldx%lld", (long long)info.nx, (long long)info.ny);
        fprintf(stderr, ", %.1f MB\n", (double)info.bytes / 1e6);
    }
    return 0;
}
