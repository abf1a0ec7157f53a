/* Shared CLI helpers: errors, loading, option scanning, I/O options. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/plugin.h"

int cli_fail(const jg_error_t *err)
{
    fprintf(stderr, "jacgraph: error: %s\n", err->msg[0] ? err->msg : jg_strerror(err->status));
    return jg_status_exit(err->status);
}

int cli_sim_methods(const char *solver, const char *jacobian, jg_sim_opts_t *o)
{
    jg_error_t err = {0};
    int m = solver ? jg_solver_method_parse(solver) : JG_SOLVER_AUTO;
    if (m < 0) {
        jg_error_set(&err, JG_ARG, "unknown solver '%s' (valid: %s)", solver, jg_solver_names());
        return cli_fail(&err);
    }
    int j = jacobian ? jg_solverjac_method_parse(jacobian) : JG_SOLVERJAC_AUTO;
    if (j < 0) {
        jg_error_set(&err, JG_ARG, "unknown solver Jacobian method '%s' (valid: %s)", jacobian,
                     jg_solverjac_method_names());
        return cli_fail(&err);
    }
    o->solver = (jg_solver_method_t)m;
    o->jacobian = (jg_solverjac_method_t)j;
    return 0;
}

int cli_sim_at(const char *cmd, double *at, const char *solver, const char *jacobian, jg_sim_opts_t *o)
{
    if (isnan(*at)) *at = o->t0;
    if (*at < o->t0) return cli_usage(cmd, "--at %g is before the start time %g", *at, o->t0);
    o->tstop = *at;
    return cli_sim_methods(solver, jacobian, o);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "jacgraph %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'jacgraph %s --help'\n", cmd);
    return EXIT_USAGE;
}

/* The model options of every command (--workspace, --set, --model-path,
 * --substitute, --plugin), taken out of argv by main (cli_take_model_opts). */
static const char *opt_ws[256], *opt_set[256], *opt_mp[256], *opt_sub[256], *opt_plugin[256];
static int nplugin;
static void warn_line(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "jacgraph: warning: %s\n", msg);
}
static jg_import_opts_t import_opts = {.workspace = opt_ws, .set = opt_set, .model_path = opt_mp,
                                       .substitute = opt_sub, .warn = warn_line};
static char *skipped_blocks[1024];
static int nskipped_blocks;

const jg_import_opts_t *cli_import_opts(void) { return &import_opts; }
int cli_plugins(const char *const **files)
{
    *files = opt_plugin;
    return nplugin;
}
int cli_nskipped(void) { return nskipped_blocks; }
const char *cli_skipped(int k) { return k >= 0 && k < nskipped_blocks ? skipped_blocks[k] : NULL; }

/* --max-file-size BYTES and --max-elements N (docs/cli.md, "Limits"): a
 * positive integer, written plainly or as 1e8; k, M, G suffixes (powers of
 * 1024) for bytes.  1 taken, 0 not this option, -1 after a usage error. */
static int take_limit(int argc, char **argv, int *i)
{
    static const char *names[2] = {"--max-file-size", "--max-elements"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(names[k]);
        const char *val = NULL;
        if (!strcmp(argv[*i], names[k])) {
            if (*i + 1 >= argc) {
                fprintf(stderr, "jacgraph: option %s needs a value\nsee 'jacgraph --help'\n", names[k]);
                return -1;
            }
            val = argv[++*i];
        } else if (!strncmp(argv[*i], names[k], n) && argv[*i][n] == '=') {
            val = argv[*i] + n + 1;
        } else {
            continue;
        }
        char *end;
        double v = strtod(val, &end);
        double scale = 1;
        if (k == 0 && *end && !end[1]) {
            scale = *end == 'k' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 0;
            if (scale) end++;
            else scale = 1;
        }
        v *= scale;
        /* 2^62: far beyond any machine, and the sums stay in int64_t */
        if (end == val || *end || !(v >= 1) || v > 4611686018427387904.0 || v != floor(v)) {
            fprintf(stderr,
                    "jacgraph: %s expects a positive whole number%s, got '%s'\nsee 'jacgraph --help'\n",
                    names[k], k == 0 ? " of bytes (k, M, G: times 1024^1..3)" : "", val);
            return -1;
        }
        if (k == 0) import_opts.limits.file_bytes = (uint64_t)v;
        else import_opts.limits.elements = (int64_t)v;
        return 1;
    }
    return 0;
}

int cli_take_model_opts(int *argc, char **argv)
{
    static const struct {
        const char *name;
        const char **list;
        int *n;
    } opts[] = {{"--workspace", opt_ws, &import_opts.nworkspace},
                {"--set", opt_set, &import_opts.nset},
                {"--model-path", opt_mp, &import_opts.nmodel_path},
                {"--substitute", opt_sub, &import_opts.nsubstitute},
                {"--plugin", opt_plugin, &nplugin}};
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        int taken = take_limit(*argc, argv, &i);
        if (taken < 0) return EXIT_USAGE;
        for (size_t k = 0; k < sizeof opts / sizeof *opts && !taken; k++) {
            size_t n = strlen(opts[k].name);
            const char *val = NULL;
            if (!strcmp(argv[i], opts[k].name)) {
                if (i + 1 >= *argc) {
                    fprintf(stderr, "jacgraph: option %s needs a value\nsee 'jacgraph --help'\n",
                            opts[k].name);
                    return EXIT_USAGE;
                }
                val = argv[++i];
            } else if (!strncmp(argv[i], opts[k].name, n) && argv[i][n] == '=') {
                val = argv[i] + n + 1;
            } else {
                continue;
            }
            if (*opts[k].n == 256) {
                fprintf(stderr, "jacgraph: more than 256 %s options\n", opts[k].name);
                return EXIT_USAGE;
            }
            opts[k].list[(*opts[k].n)++] = val;
            taken = 1;
        }
        if (!taken) argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int cli_load(const char *path, jg_model_t **m, jg_program_t **p)
{
    jg_error_t err;
    jg_error_clear(&err);
    *m = NULL;
    *p = NULL;
    if (jg_import_load(path, &import_opts, m, &err)) return cli_fail(&err);
    for (size_t k = 0; k < jg_model_nskipped(*m) && nskipped_blocks < 1024; k++)
        skipped_blocks[nskipped_blocks++] = strdup(jg_model_skipped(*m, k));
    /* --plugin files, then the model's "plugins" list, before its block
     * types are looked up */
    jg_status_t st = JG_OK;
    for (int k = 0; k < nplugin && !st; k++) st = jg_plugin_load(*m, opt_plugin[k], &err);
    if (!st) st = jg_plugin_load_model(*m, &err);
    /* the program keeps nothing of the model: the compiler gives its memory
     * back as soon as it has read it (a large model's document and the
     * compiler's later stages then share memory) */
    if (!st) st = jg_program_compile_free_model(*m, p, &err);
    else jg_model_free(*m);
    *m = NULL;
    if (st) return cli_fail(&err);
    for (int k = 0; k < jg_program_nwarnings(*p); k++)
        fprintf(stderr, "jacgraph: warning: %s\n", jg_program_warning(*p, k));
    return 0;
}

int cli_opt(cli_args_t *a, const char *name, const char **val)
{
    const char *s = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(s, name, n)) return 0;
    if (s[n] == '=') {
        *val = s + n + 1;
        a->i++;
        return 1;
    }
    if (s[n] != '\0') return 0;
    if (a->i + 1 >= a->argc) {
        cli_usage(a->cmd, "option %s needs a value", name);
        return -1;
    }
    *val = a->argv[a->i + 1];
    a->i += 2;
    return 1;
}

int cli_flag(cli_args_t *a, const char *name)
{
    if (strcmp(a->argv[a->i], name)) return 0;
    a->i++;
    return 1;
}

int cli_help(cli_args_t *a, const char *help)
{
    if (!cli_flag(a, "--help") && !cli_flag(a, "-h")) return 0;
    fputs(help, stdout);
    return 1;
}

int cli_operand(cli_args_t *a, const char *what, const char **val)
{
    const char *s = a->argv[a->i];
    if (s[0] == '-' && s[1]) return cli_usage(a->cmd, "unknown option '%s'", s);
    if (*val) return cli_usage(a->cmd, "more than one %s ('%s' and '%s')", what, *val, s);
    *val = s;
    a->i++;
    return 0;
}

int cli_num(const char *cmd, const char *opt, const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end || !isfinite(x)) return cli_usage(cmd, "%s expects a finite number, got '%s'", opt, s);
    *v = x;
    return 0;
}

int cli_nums(cli_args_t *a, const cli_num_t *tab, size_t n)
{
    const char *v;
    for (size_t k = 0; k < n; k++) {
        int r = cli_opt(a, tab[k].name, &v);
        if (!r) continue;
        if (r < 0 || cli_num(a->cmd, tab[k].name, v, tab[k].dst)) return -1;
        if (tab[k].pos && !(*tab[k].dst > 0))
            return cli_usage(a->cmd, "%s expects a positive number, got '%s'", tab[k].name, v), -1;
        return 1;
    }
    return 0;
}

int cli_io_opt(cli_args_t *a, cli_io_t *io)
{
    const char *v;
    int r;
    if ((r = cli_opt(a, "--input", &v))) {
        if (r < 0) return -1;
        if (io->nin == 256) return cli_usage(a->cmd, "too many --input options"), -1;
        io->in[io->nin++] = v;
        return 1;
    }
    if ((r = cli_opt(a, "--output", &v))) {
        if (r < 0) return -1;
        if (io->nout == 256) return cli_usage(a->cmd, "too many --output options"), -1;
        io->out[io->nout++] = v;
        return 1;
    }
    if ((r = cli_opt(a, "--open", &v))) {
        if (r < 0) return -1;
        if (io->nopen == 256) return cli_usage(a->cmd, "too many --open options"), -1;
        io->open[io->nopen++] = v;
        return 1;
    }
    if ((r = cli_opt(a, "--op", &v))) {
        if (r < 0) return -1;
        io->op = v;
        return 1;
    }
    if (cli_flag(a, "--no-default-io")) {
        io->no_defaults = 1;
        return 1;
    }
    return 0;
}

int cli_lin(const jg_program_t *p, const cli_io_t *io, jg_lin_t **l)
{
    jg_error_t err;
    jg_error_clear(&err);
    jg_lin_opts_t o = {.nin = io->nin, .nout = io->nout, .nopen = io->nopen, .in = io->in,
                       .out = io->out, .open = io->open, .no_defaults = io->no_defaults,
                       .delays = (jg_lin_delays_t)io->delays, .pade_order = io->pade_order,
                       .threads = io->jobs, .prepare_graph = io->graph};
    if (jg_lin_create(p, &o, l, &err)) return cli_fail(&err);
    jg_lin_set_warn(*l, warn_line, NULL);   /* ill-conditioned loops */
    if (io->op && jg_lin_read_op(*l, io->op, &err)) {
        jg_lin_free(*l);
        *l = NULL;
        return cli_fail(&err);
    }
    return 0;
}

int cli_time_opt(cli_args_t *a, cli_time_t *t)
{
    int r;
    if ((r = cli_opt(a, "--rate", &t->rate_s)) || (r = cli_opt(a, "--rate-conversion", &t->rconv_s)) ||
        (r = cli_opt(a, "--ts", &t->ts_s)) || (r = cli_opt(a, "--c2d", &t->c2d_s)) ||
        (r = cli_opt(a, "--delays", &t->delays_s)))
        return r;
    return 0;
}

int cli_time_check(const char *cmd, cli_time_t *t, cli_io_t *io)
{
    t->ro = (jg_analysis_rate_opts_t){.method = JG_ANALYSIS_ZOH};
    t->c2d_ts = t->c2d_w = 0;
    t->c2d_m = JG_ANALYSIS_ZOH;
    t->want_rate = 0;
    t->delays = JG_LIN_DELAYS_BLOCK;
    if (t->rate_s) {
        char *end;
        t->ro.rate = strtod(t->rate_s, &end);
        if (!*t->rate_s || *end || !(t->ro.rate >= 0) || !isfinite(t->ro.rate))
            return cli_usage(cmd, "--rate must be a sample time >= 0 (0: continuous)");
        t->want_rate = t->ro.rate > 0 ? 1 : -1;
    }
    if (t->rconv_s) {
        int rm = jg_analysis_c2d_parse(t->rconv_s, &t->ro.prewarp);
        if (rm != JG_ANALYSIS_ZOH && rm != JG_ANALYSIS_TUSTIN)
            return cli_usage(cmd, "unknown --rate-conversion '%s' (zoh, tustin, prewarp:W with W > 0)", t->rconv_s);
        t->ro.method = (jg_analysis_c2d_t)rm;
    }
    if (t->c2d_s && !t->ts_s) return cli_usage(cmd, "--c2d goes with --ts T");
    if (t->ts_s) {
        char *end;
        t->c2d_ts = strtod(t->ts_s, &end);
        if (!*t->ts_s || *end || !(t->c2d_ts > 0) || !isfinite(t->c2d_ts))
            return cli_usage(cmd, "--ts must be a positive sample time");
        if (t->c2d_s && (t->c2d_m = jg_analysis_c2d_parse(t->c2d_s, &t->c2d_w)) < 0)
            return cli_usage(cmd, "unknown --c2d '%s' (zoh, foh, tustin, prewarp:W with W > 0)", t->c2d_s);
        if (t->want_rate > 0) return cli_usage(cmd, "--ts converts a continuous result: not with --rate");
    }
    if (t->delays_s) {   /* the discrete path refuses them in the library, naming a delay */
        jg_lin_delays_t dm;
        if (jg_lin_delays_parse(t->delays_s, &dm, &io->pade_order))
            return cli_usage(cmd, "unknown --delays '%s' (pade:N with N = 0..10, exact)", t->delays_s);
        t->delays = io->delays = (int)dm;
        if (dm == JG_LIN_DELAYS_EXACT && t->ts_s)
            return cli_usage(cmd, "--delays exact: --ts cannot discretize a model with internal delays");
        if (t->want_rate > 0) return cli_usage(cmd, "--delays: continuous time only, not with --rate");
    }
    return 0;
}

int cli_time_apply(const jg_program_t *p, jg_lin_t *l, const cli_time_t *t, jg_lin_sys_t **s)
{
    jg_error_t err;
    jg_error_clear(&err);
    jg_lin_sys_t *sd = NULL;
    /* discrete time: asked for, or a model with discrete states (unless --rate 0) */
    if (t->want_rate > 0 || (!t->want_rate && jg_analysis_has_discrete(p))) {
        if (jg_analysis_lin_discrete(l, &t->ro, &sd, &err)) return cli_fail(&err);
        jg_lin_sys_free(*s);
        *s = sd;
    }
    if (t->ts_s) {
        if ((*s)->Ts > 0) {
            jg_error_set(&err, JG_ARG, "the model linearizes to discrete time (Ts = %g): --ts converts "
                         "continuous results; use --rate for another sample time", (*s)->Ts);
            return cli_fail(&err);
        }
        if (jg_analysis_lin_convert(*s, t->c2d_ts, (jg_analysis_c2d_t)t->c2d_m, t->c2d_w, &sd, &err))
            return cli_fail(&err);
        jg_lin_sys_free(*s);
        *s = sd;
    }
    return 0;
}

/* ----------------------------------------------------------- strategies */

static jg_graph_strategy_t *cli_strat;

static void free_strategy(void)
{
    jg_graph_strategy_free(cli_strat);
    cli_strat = NULL;
}

int cli_strategy(const char *cmd, const char *reduce, const char *order, const char *def,
                 const jg_graph_strategy_t **s)
{
    char spec[4200];
    jg_error_t err;
    jg_error_clear(&err);
    *s = NULL;
    if (reduce && order) return cli_usage(cmd, "--reduce and --order: give one of them");
    if (order) snprintf(spec, sizeof spec, "order:%s", order);
    else snprintf(spec, sizeof spec, "%s", reduce ? reduce : def);
    static int registered;
    if (!registered) registered = !atexit(free_strategy);
    jg_graph_strategy_free(cli_strat);
    cli_strat = NULL;
    if (jg_graph_strategy_parse(spec, &cli_strat, &err)) {
        if (err.status == JG_NOMEM) return cli_fail(&err);
        return cli_usage(cmd, "--reduce: %s", err.msg);
    }
    *s = cli_strat;
    return 0;
}

jg_status_t cli_lin_run(jg_lin_t *l, jg_lin_method_t m, const jg_graph_strategy_t *s, jg_lin_sys_t **out,
                        jg_lin_stats_t *st, jg_error_t *err)
{
    if (m == JG_LIN_GRAPH) return jg_lin_run_strategy(l, s, out, st, err);
    return jg_lin_run(l, m, JG_GRAPH_REDUCE_NONE, out, st, err);
}
