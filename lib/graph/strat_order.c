/* Strategy "order:FILE": the elimination order computed elsewhere, read
 * from FILE: vertex ids (jg_graph_vertex ids, 0-based, as `jacgraph graph
 * --json` writes them), one a line; blank lines and lines starting with '#'
 * are skipped.  A line naming an unknown vertex, a vertex that may not be
 * eliminated, or a vertex already named is refused with its line number. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strategy_impl.h"

static const char *why_kept(const jg_graph_t *g, int64_t v)
{
    const jg_gvert_t *V = &g->v[v];
    switch (V->kind) {
    case JG_V_STATE: return "a state";
    case JG_V_LIN_IN: return "a linearization input point";
    case JG_V_LIN_OUT: return "a linearization output point";
    default: return "an Algebraic Constraint's output (left to the LFT)";
    }
}

static jg_status_t order(jg_strat_run_t *r, int64_t **out, int64_t *n, jg_error_t *err)
{
    const jg_graph_t *g = r->g;
    const char *path = r->args;
    jg_status_t st = JG_OK;
    *out = NULL;
    *n = 0;
    if (!path[0]) return jg_error_set(err, JG_ARG, "order: expected order:FILE (vertex ids, one a line)");
    FILE *f = fopen(path, "r");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
    int64_t *ord = malloc(sizeof(int64_t) * (size_t)(g->nv + 1)), cnt = 0;
    int64_t *line_of = calloc((size_t)g->nv + 1, sizeof(int64_t));   /* 0: not named yet */
    char buf[256];
    int64_t line = 0;
    if (!ord || !line_of) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    while (fgets(buf, sizeof buf, f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !feof(f)) {
            st = jg_error_set(err, JG_PARSE, "%s:%lld: line too long", path, (long long)line);
            goto done;
        }
        char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\r' || *p == 0 || *p == '#') continue;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
        if (end == p || *end || errno) {
            p[strcspn(p, "\r\n")] = 0;
            st = jg_error_set(err, JG_PARSE, "%s:%lld: '%s' is not a vertex id", path,
                              (long long)line, p);
            goto done;
        }
        if (v < 0 || v >= g->nv) {
            st = jg_error_set(err, JG_ARG, "%s:%lld: unknown vertex %lld (the graph has vertices 0..%lld)",
                              path, (long long)line, v, (long long)g->nv - 1);
            goto done;
        }
        if (line_of[v]) {
            st = jg_error_set(err, JG_ARG, "%s:%lld: vertex %lld (%s) repeated (first on line %lld)", path,
                              (long long)line, v, jg_graph_vertex_label(g, v), (long long)line_of[v]);
            goto done;
        }
        if (!jg__strat_eliminable(g, v)) {
            st = jg_error_set(err, JG_ARG, "%s:%lld: vertex %lld (%s) is not eliminable: it is %s", path,
                              (long long)line, v, jg_graph_vertex_label(g, v), why_kept(g, v));
            goto done;
        }
        line_of[v] = line;
        ord[cnt++] = v;
    }
    if (ferror(f)) st = jg_error_set(err, JG_IO, "%s: read error", path);
done:
    fclose(f);
    free(line_of);
    if (st) {
        free(ord);
        return st;
    }
    *out = ord;
    *n = cnt;
    return JG_OK;
}

const jg_strategy_def_t jg__strat_order = {
    .name = "order",
    .help = "the order in a file (order:FILE): vertex ids, one a line",
    .args_help = "FILE",
    .order = order,
};
