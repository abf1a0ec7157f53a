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
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --solver and --jacobian names (NULL: auto) into o's enums; on an unknown
 * name prints "jacgraph: error: unknown solver 'X' (valid: ...)" and returns
 * the exit code (2), else 0. */
int cli_sim_methods(const char *solver, const char *jacobian, jg_sim_opts_t *o);
/* The point of the commands that simulate to --at T first (jacobian,
 * sparsing): *at (NaN: the start time o->t0; before it a usage error) becomes
 * o's stop time; then cli_sim_methods.  Returns the exit code (0: go on). */
int cli_sim_at(const char *cmd, double *at, const char *solver, const char *jacobian, jg_sim_opts_t *o);

/* Take the model options (--workspace FILE, --set NAME=EXPR, --model-path DIR,
 * --substitute BLOCK=FILE, --plugin FILE.so; anywhere on the command line,
 * repeatable) out of argv; cli_load applies them.  Returns an exit code (0: go on). */
int cli_take_model_opts(int *argc, char **argv);
const jg_import_opts_t *cli_import_opts(void);
/* The --plugin files taken (*files, valid until exit); returns their number. */
int cli_plugins(const char *const **files);
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

/* S as a finite number into *v; else the usage error "OPT expects a finite
 * number, got 'S'" (printed) and EXIT_USAGE. */
int cli_num(const char *cmd, const char *opt, const char *s, double *v);
/* One numeric option of a command's table; pos: only positive values (the
 * library reads 0 as "the default", so a 0 given would be silently ignored). */
typedef struct {
    const char *name;
    double *dst;
    int pos;
} cli_num_t;
/* If argv[i] is one of the n options of tab, its value into *dst, advancing,
 * and 1; 0 when it is none of them; -1 after a usage error (printed). */
int cli_nums(cli_args_t *a, const cli_num_t *tab, size_t n);

/* Linearization I/O options collected from --input/--output/--open. */
typedef struct {
    int nin, nout, nopen;
    const char *in[256], *out[256], *open[256];
    int no_defaults;
    const char *op;
    int delays, pade_order;   /* jg_lin_opts_t's (--delays: cli_time_check) */
    int jobs;                 /* jg_lin_opts_t.threads (linearize --jobs; 0: one) */
    int graph;                /* jg_lin_opts_t.prepare_graph (linearize --method graph) */
} cli_io_t;

/* Consume one I/O option (--input, --output, --open, --no-default-io, --op);
 * 1 consumed, 0 not an I/O option, -1 usage error (printed). */
int cli_io_opt(cli_args_t *a, cli_io_t *io);
/* Create the linearizer with the I/O options and operating point; exit code. */
int cli_lin(const jg_program_t *p, const cli_io_t *io, jg_lin_t **l);

/* The time-domain options of linearize and analyze: --rate TS,
 * --rate-conversion zoh|tustin|prewarp:W, --ts T with --c2d METHOD, and
 * --delays pade:N|exact.  CLI_TIME_HELP is their help text. */
typedef struct {
    const char *rate_s, *rconv_s, *ts_s, *c2d_s, *delays_s;   /* as given */
    jg_analysis_rate_opts_t ro;   /* --rate, --rate-conversion */
    int want_rate;                /* 1: --rate > 0, -1: --rate 0, 0: not given */
    double c2d_ts, c2d_w;         /* --ts, --c2d's prewarp frequency */
    int c2d_m;                    /* --c2d (jg_analysis_c2d_t) */
    int delays;                   /* jg_lin_delays_t of --delays */
} cli_time_t;
#define CLI_TIME_HELP                                                                          \
    "  --rate TS           discrete-time model at sample time TS (a model with discrete\n"     \
    "                      states at one rate gets that rate without it; several rates\n"     \
    "                      need it; 0: continuous, the discrete states held)\n"               \
    "  --rate-conversion zoh|tustin|prewarp:W   how each rate is converted to the\n"          \
    "                      next (default zoh; prewarp: Tustin exact at W rad/s)\n"            \
    "  --ts T --c2d zoh|foh|tustin|prewarp:W   convert a continuous result to\n"              \
    "                      discrete time with sample time T (default zoh)\n"
/* Consume one of those options: 1 consumed, 0 not one, -1 usage error (printed). */
int cli_time_opt(cli_args_t *a, cli_time_t *t);
/* After the options: check and decode them (usage errors printed, the same
 * for every command), --delays into io.  Returns an exit code (0: go on). */
int cli_time_check(const char *cmd, cli_time_t *t, cli_io_t *io);
/* A jg_lin_run result *s of l (p's linearizer) turned into the linear model
 * the options ask for: discrete linearization when --rate TS > 0 is given or
 * the model has discrete states (unless --rate 0), then --ts/--c2d.  *s is
 * replaced (the old one freed).  Errors printed; returns an exit code. */
int cli_time_apply(const jg_program_t *p, jg_lin_t *l, const cli_time_t *t, jg_lin_sys_t **s);

/* The vertex elimination of --reduce SPEC and --order FILE (jacgraph/graph.h's
 * strategies: "markowitz", "lm", "momr>lm>reverse", ...; --order FILE is
 * "order:FILE"; neither: SPEC def) into *s, owned by the CLI (freed at exit).
 * An unknown strategy is a usage error listing the known ones (printed):
 * returns EXIT_USAGE, else 0. */
int cli_strategy(const char *cmd, const char *reduce, const char *order, const char *def,
                 const jg_graph_strategy_t **s);
#define CLI_STRATEGY_HELP                                                                      \
    "  --reduce S          vertex elimination of the graph method: markowitz (default,\n"   \
    "                      the paper's rule), none, full, or any strategy of\n"              \
    "                      'jacgraph strategies --list' (lm, minfill, mincost, momr>lm,\n"    \
    "                      exact, ...; docs/strategies.md)\n"                               \
    "  --order FILE        eliminate in the order of FILE (vertex ids, one a line, as\n"   \
    "                      'jacgraph graph --json' numbers them): --reduce order:FILE\n"
/* jg_lin_run with the graph method's elimination by s (the other methods
 * ignore it). */
jg_status_t cli_lin_run(jg_lin_t *l, jg_lin_method_t m, const jg_graph_strategy_t *s, jg_lin_sys_t **out,
                        jg_lin_stats_t *st, jg_error_t *err);

int cmd_linearize(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_import(int argc, char **argv);

#endif
