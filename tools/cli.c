/* Shared CLI helpers: errors, loading, option scanning, I/O options. */
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

int cli_load(const char *path, jg_model_t **m, jg_program_t **p)
{
    jg_error_t err;
    jg_error_clear(&err);
    *m = NULL;
    *p = NULL;
    if (jg_model_read(path, m, &err)) return cli_fail(&err);
    /* the model's "plugins" list, before its block types are looked up */
    jg_status_t st = jg_plugin_load_model(*m, &err);
    if (!st) st = jg_program_compile(*m, p, &err);
    /* the program keeps nothing of the model: give its memory back before the
     * graph is built (a heap full of JSON nodes makes every later allocation
     * slower) */
    jg_model_free(*m);
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
                       .out = io->out, .open = io->open, .no_defaults = io->no_defaults};
    if (jg_lin_create(p, &o, l, &err)) return cli_fail(&err);
    if (io->op && jg_lin_read_op(*l, io->op, &err)) {
        jg_lin_free(*l);
        *l = NULL;
        return cli_fail(&err);
    }
    return 0;
}
