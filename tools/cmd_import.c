/* jacgraph import: a Simulink model (or a JSON one, with the model options
 * applied) written as the equivalent JSON model. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph import MODEL [-o model.json] [--workspace FILE] [--set NAME=EXPR]\n"
    "                       [--model-path DIR] [--substitute BLOCK=FILE.json]\n"
    "\n"
    "Read a Simulink model (classic or OPC-text .mdl, .slx; the format is told by the\n"
    "content) and write the equivalent JSON model (docs/model-format.md) to -o FILE or\n"
    "standard output.  Block parameters stay MATLAB expressions where the file has them;\n"
    "the values the workspaces gave (model callbacks, --workspace files) are written as\n"
    "\"workspace\", --set values as \"overrides\", so that 'jacgraph linearize model.json'\n"
    "and 'jacgraph linearize MODEL' give the same result.  Blocks that cannot be\n"
    "imported are listed together (exit 4).  What is supported: docs/simulink.md.\n";

int cmd_import(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "import"};
    const char *model = NULL, *out = NULL;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        int r;
        if ((r = cli_opt(&a, "-o", &out)) || (r = cli_opt(&a, "--out", &out))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage("import", "missing MODEL");
    FILE *f = stdout;
    if (out && strcmp(out, "-")) {
        f = fopen(out, "w");
        if (!f) {
            fprintf(stderr, "jacgraph: error: %s: cannot write: %s\n", out, strerror(errno));
            return 3;
        }
    }
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = jg_import_to_json(model, cli_import_opts(), f, &err);
    if (f != stdout && fclose(f) && !st) st = jg_error_set(&err, JG_IO, "%s: write error", out);
    if (st) {
        struct stat sb;   /* nothing half-written; never remove a device (-o /dev/null) */
        if (f != stdout && lstat(out, &sb) == 0 && S_ISREG(sb.st_mode)) remove(out);
        return cli_fail(&err);
    }
    return 0;
}
