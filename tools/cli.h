/* cli.h -- shared pieces of the jacgraph subcommands (option parsing, loading,
 * error printing).  Only the CLI prints; the library returns statuses. */
#ifndef JG_TOOLS_CLI_H
#define JG_TOOLS_CLI_H
#include <stdio.h>
#include "jacgraph/jacgraph.h"

/* Exit codes (docs/cli.md): also the values of jg_status_exit(). */
enum { EXIT_OK = 0, EXIT_MISMATCH = 1, EXIT_USAGE = 2 };

/* Print "jacgraph: error: <msg>" and return the status's exit code. */
int cli_fail(const jg_error_t *err);
/* Print a usage error ("jacgraph CMD: msg; see jacgraph CMD --help"), return 2. */
/* --solver and --jacobian names (NULL: auto) into o's enums; on an unknown
 * name prints "jacgraph: error: unknown solver 'X' (valid: ...)" and returns
 * the exit code (2), else 0. */
int cli_sim_methods(const char *solver, const char *jacobian, jg_sim_opts_t *o);
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Take the model options (--workspace FILE, --set NAME=EXPR, --model-path DIR,
 * --substitute BLOCK=FILE, --plugin FILE.so; anywhere on the command line,
 * repeatable) out of argv; cli_load applies them.  Returns an exit code (0: go on). */
int cli_take_model_opts(int *argc, char **argv);
const jg_import_opts_t *cli_import_opts(void);
/* Blocks the last cli_load left out (user-interface blocks of a Simulink
 * file): "path (Type): reason". */
int cli_nskipped(void);
const char *cli_skipped(int k);

/* Read (any format: JSON, .mdl, .slx) and compile MODEL; prints compile warnings to stderr.  Returns an exit
 * code (0 on success).  *m is NULL on return: the model is freed once compiled. */
int cli_load(const char *path, jg_model_t **m, jg_program_t **p);

/* Option scanner over argv: "--name value" or "--name=value". */
typedef struct {
    int argc, i;
    char **argv;
    const char *cmd;
} cli_args_t;

/* If argv[i] is option `name` (with a value), set *val, advance and return 1;
 * missing value: usage error, returns -1.  Otherwise 0. */
int cli_opt(cli_args_t *a, const char *name, const char **val);
/* If argv[i] is flag `name`, advance and return 1. */
int cli_flag(cli_args_t *a, const char *name);
/* If argv[i] is --help or -h, print help to stdout and return 1. */
int cli_help(cli_args_t *a, const char *help);
/* argv[i] is no option of the command: the operand `what` (MODEL, KIND) into
 * *val, advancing, and 0; an unknown option or a second operand is a usage
 * error (printed), EXIT_USAGE. */
int cli_operand(cli_args_t *a, const char *what, const char **val);

/* Linearization I/O options collected from --input/--output/--open. */
typedef struct {
    int nin, nout, nopen;
    const char *in[256], *out[256], *open[256];
    int no_defaults;
    const char *op;
    int delays, pade_order;   /* jg_lin_opts_t's (linearize --delays) */
} cli_io_t;

/* Consume one I/O option (--input, --output, --open, --no-default-io, --op);
 * 1 consumed, 0 not an I/O option, -1 usage error (printed). */
int cli_io_opt(cli_args_t *a, cli_io_t *io);
/* Create the linearizer with the I/O options and operating point; exit code. */
int cli_lin(const jg_program_t *p, const cli_io_t *io, jg_lin_t **l);

int cmd_linearize(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_import(int argc, char **argv);

#endif
