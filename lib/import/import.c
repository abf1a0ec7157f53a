/* Loading a model of any format: sniffing, Simulink conversion, workspaces
 * (--workspace scripts and JSON objects, --set overrides), block
 * substitution, model references' cycle check. */
#define _GNU_SOURCE 1   /* asprintf */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "import_impl.h"

/* What the first bytes say the file is. */
typedef enum { FMT_JSON, FMT_SIMULINK, FMT_UNKNOWN } fmt_t;

static fmt_t sniff(const char *path, jg_error_t *err, jg_status_t *st)
{
    struct stat sb;
    *st = JG_OK;
    if (stat(path, &sb)) {
        *st = jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
        return FMT_UNKNOWN;
    }
    if (!S_ISREG(sb.st_mode)) {
        /* a directory or FIFO is no model (opening a FIFO would block) */
        *st = jg_error_set(err, JG_MODEL, "%s: is a %s, not a model file", path,
                           S_ISDIR(sb.st_mode) ? "directory" : S_ISFIFO(sb.st_mode) ? "FIFO" : "device or socket");
        return FMT_UNKNOWN;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        *st = errno == ENOMEM ? jg_error_set(err, JG_NOMEM, "%s: out of memory opening the file", path)
                              : jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
        return FMT_UNKNOWN;
    }
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (n >= 2 && buf[0] == 'P' && buf[1] == 'K') return FMT_SIMULINK;
    size_t k = 0;
    if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF)
        k = 3;   /* UTF-8 byte order mark */
    while (k < n && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r' || buf[k] == '\n')) k++;
    if (k < n && buf[k] == '{') return FMT_JSON;
    if (!strncmp(buf + k, "# MathWorks OPC Text Package", 28) || !strncmp(buf + k, "Model", 5) ||
        !strncmp(buf + k, "Library", 7) || buf[k] == '#')
        return FMT_SIMULINK;
    *st = jg_error_set(err, JG_PARSE,
                       "%s: not a model: expected a JSON object, a Simulink .mdl (\"Model {\") or "
                       "an .slx package",
                       path);
    return FMT_UNKNOWN;
}

static uint64_t file_limit(const jg_import_opts_t *o)
{
    return jg_limits_resolve(o ? &o->limits : NULL).file_bytes;
}

/* A JSON document of at most `limit` bytes: read whole, then parsed. */
static jg_status_t read_json_file(const char *path, uint64_t limit, json_t **out, jg_error_t *err)
{
    json_error_t je;
    char *buf = NULL;
    size_t len = 0;
    memset(&je, 0, sizeof je);
    *out = NULL;
    jg_status_t st = jg__read_file(path, limit, &buf, &len, err);
    if (st) return st;
    *out = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!*out && json_error_code(&je) != json_error_out_of_memory) {
        /* a failed allocation jansson reports as a syntax error does not
         * repeat (as in lib/model): parse again, and a moved error is memory */
        json_error_t je2;
        memset(&je2, 0, sizeof je2);
        *out = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je2);
        if (!*out && (je2.line != je.line || je2.column != je.column || strcmp(je2.text, je.text)))
            je.text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    }
    free(buf);
    if (!*out) {
        /* an empty message with no syntax error code: jansson ran out of memory */
        if (json_error_code(&je) == json_error_out_of_memory ||
            (!je.text[0] && json_error_code(&je) != json_error_invalid_syntax))
            return jg_error_set(err, JG_NOMEM, "%s: out of memory parsing JSON", path);
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column,
                            je.text[0] ? je.text : "malformed JSON");
    }
    if (!json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return jg_error_set(err, JG_MODEL, "%s: the document must be a JSON object", path);
    }
    return JG_OK;
}

jg_status_t jg__import_json(jg__import_ctx_t *ic, const char *path, json_t **out, jg_error_t *err)
{
    jg_status_t st;
    *out = NULL;
    fmt_t f = sniff(path, err, &st);
    if (f == FMT_UNKNOWN) return st;
    if (f == FMT_JSON) return read_json_file(path, file_limit(ic->o), out, err);
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    for (int k = 0; k < ic->depth; k++)
        if (!strcmp(ic->stack[k], real))
            return jg_error_set(err, JG_MODEL, "%s: model references form a cycle (%s refers back to it)",
                                path, ic->depth ? ic->stack[ic->depth - 1] : path);
    if (ic->depth == (int)(sizeof ic->stack / sizeof *ic->stack))
        return jg_error_set(err, JG_MODEL, "%s: model references nested too deeply", path);
    jg__sl_tree_t *t = NULL;
    if ((st = jg__sl_read(path, NULL, &t, err))) return st;
    char *mine = strdup(real);
    if (!mine) {
        jg__sl_tree_free(t);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    ic->stack[ic->depth++] = mine;
    st = jg__sl_convert(ic, t, path, out, err);
    ic->depth--;
    free(mine);
    jg__sl_tree_free(t);
    return st;
}

/* ---- substitution ---- */

/* Split our path syntax into names ("a//b/c" -> "a/b", "c"); returns the
 * count, names malloc'd into v (at most nmax). */
static int split_path(const char *p, char **v, int nmax)
{
    int n = 0;
    while (*p && n < nmax) {
        size_t cap = strlen(p) + 1, len = 0;
        char *s = malloc(cap);
        if (!s) break;
        while (*p) {
            if (*p == '/' && p[1] == '/') {
                s[len++] = '/';
                p += 2;
            } else if (*p == '/') {
                p++;
                break;
            } else {
                s[len++] = *p++;
            }
        }
        s[len] = 0;
        v[n++] = s;
    }
    return n;
}

/* Inputs and outputs of a block as its system's lines see it. */
static void count_ports(const json_t *sys, const char *name, int *nin, int *nout)
{
    size_t n = strlen(name), i;
    json_t *l;
    *nin = *nout = 0;
    json_array_foreach(json_object_get(sys, "lines"), i, l) {
        const char *s = json_string_value(json_object_get(l, "src"));
        if (s && !strncmp(s, name, n) && s[n] == ':') {
            int p = atoi(s + n + 1);
            if (p > *nout) *nout = p;
        }
        json_t *d = json_object_get(l, "dst");
        size_t k, cnt = json_is_array(d) ? json_array_size(d) : 1;
        for (k = 0; k < cnt; k++) {
            const char *ds = json_string_value(json_is_array(d) ? json_array_get(d, k) : d);
            if (ds && !strncmp(ds, name, n) && ds[n] == ':') {
                int p = atoi(ds + n + 1);
                if (p > *nin) *nin = p;
            }
        }
    }
}

static int count_type(const json_t *sys, const char *type)
{
    size_t i;
    json_t *b;
    int n = 0;
    json_array_foreach(json_object_get(sys, "blocks"), i, b) {
        const char *t = json_string_value(json_object_get(b, "type"));
        if (t && !strcmp(t, type)) n++;
    }
    return n;
}

jg_status_t jg__import_substitute(json_t *root, const char *blockpath, const char *file,
                                  uint64_t limit, jg_error_t *err)
{
    char *names[256];
    int n = split_path(blockpath, names, 256);
    jg_status_t st = JG_OK;
    json_t *sys = root, *blk = NULL, *sub = NULL;
    for (int k = 0; k < n; k++) {
        size_t i;
        json_t *b;
        blk = NULL;
        json_array_foreach(json_object_get(sys, "blocks"), i, b) {
            const char *nm = json_string_value(json_object_get(b, "name"));
            if (nm && !strcmp(nm, names[k])) {
                blk = b;
                break;
            }
        }
        if (!blk) {
            st = jg_error_set(err, JG_ARG, "--substitute %s: no block '%s' in %s", blockpath,
                              names[k], k ? "that subsystem" : "the model's root system");
            goto done;
        }
        if (k + 1 < n) sys = blk;
    }
    if (!blk) {
        st = jg_error_set(err, JG_ARG, "--substitute: empty block path");
        goto done;
    }
    if ((st = read_json_file(file, limit, &sub, err))) goto done;
    if (!json_is_array(json_object_get(sub, "blocks"))) {
        st = jg_error_set(err, JG_MODEL, "%s: a substitute is a subsystem: it needs \"blocks\"", file);
        goto done;
    }
    int nin, nout, sin = count_type(sub, "Inport"), sout = count_type(sub, "Outport");
    count_ports(sys, json_string_value(json_object_get(blk, "name")), &nin, &nout);
    if (nin > sin || nout > sout) {
        st = jg_error_set(err, JG_MODEL,
                          "--substitute %s=%s: the block is wired to %d input%s and %d output%s, "
                          "the substitute has %d Inport%s and %d Outport%s",
                          blockpath, file, nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", sin,
                          sin == 1 ? "" : "s", sout, sout == 1 ? "" : "s");
        goto done;
    }
    const char *name = json_string_value(json_object_get(blk, "name"));
    json_t *keep = json_string(name);
    json_object_clear(blk);
    json_object_set_new(blk, "name", keep);
    json_object_set_new(blk, "type", json_string("SubSystem"));
    json_object_set(blk, "blocks", json_object_get(sub, "blocks"));
    if (json_object_get(sub, "lines")) json_object_set(blk, "lines", json_object_get(sub, "lines"));
    if (json_object_get(sub, "parameters"))
        json_object_set(blk, "parameters", json_object_get(sub, "parameters"));
done:
    for (int k = 0; k < n; k++) free(names[k]);
    json_decref(sub);
    return st;
}

/* ---- workspaces ---- */

/* Names of scripts and --set expressions: the document's overrides, model
 * workspace and base workspace, entries evaluated on demand.  The depth of
 * nested look-ups travels with the context (no static: two imports may run
 * at once) and stops entries that refer to each other in a cycle. */
typedef struct {
    json_t *root;
    int depth;
} lookup_t;

static int root_lookup(void *ctx, const char *name, jg_expr_value_t *out, jg_expr_error_t *err)
{
    lookup_t *L = ctx;
    json_t *v = NULL;
    if (L->depth > 32) {
        snprintf(err->msg, sizeof err->msg, "workspace names refer to each other in a cycle at '%s'", name);
        return -1;
    }
    static const char *const scopes[] = {"overrides", "parameters", "workspace"};
    for (int k = 0; k < 3 && !v; k++) v = json_object_get(json_object_get(L->root, scopes[k]), name);
    if (!v) return 0;
    if (json_is_number(v)) return jg_expr_value_scalar(out, json_number_value(v)) ? -1 : 1;
    char *txt = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_COMPACT);
    if (!txt) return -1;
    if (!json_is_string(v))   /* [[1,2],[3,4]] -> [[1,2];[3,4]] */
        for (char *p = txt; *p; p++)
            if (*p == ']' && p[1] == ',') p[1] = ';';
    L->depth++;
    int r = jg_expr_eval(txt, root_lookup, L, out, err) ? -1 : 1;
    L->depth--;
    free(txt);
    return r;
}

void jg__import_script_warn(void *ctx, const char *source, int line, const char *msg)
{
    const jg_import_opts_t *o = ctx;
    if (!o || !o->warn) return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s:%d: %s", source, line, msg);
    o->warn(o->warn_ctx, buf);
}

static jg_status_t load_workspace(json_t *root, const char *file, const jg_import_opts_t *o,
                                  jg_error_t *err)
{
    json_t *base = json_object_get(root, "workspace");
    if (!base) {
        base = json_object();
        json_object_set_new(root, "workspace", base);
    }
    jg_status_t st;
    fmt_t f = sniff(file, err, &st);
    if (f == FMT_JSON) {
        json_t *w = NULL;
        if ((st = read_json_file(file, file_limit(o), &w, err))) return st;
        json_object_update(base, w);
        json_decref(w);
        return JG_OK;
    }
    if (st && st != JG_PARSE) return st;
    /* a MATLAB script */
    FILE *fp = fopen(file, "rb");
    if (!fp) return jg_error_set(err, JG_IO, "%s: cannot open: %s", file, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 1 >= cap) {
            cap = cap ? 2 * cap : 1 << 14;
            if (cap > ((size_t)1 << 28)) {
                free(buf);
                fclose(fp);
                return jg_error_set(err, JG_IO, "%s: a workspace script larger than 256 MB", file);
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(fp);
                return jg_error_set(err, JG_NOMEM, "out of memory");
            }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len - 1, fp);
        len += r;
        if (!r) break;
    }
    fclose(fp);
    buf[len] = 0;
    jg_expr_ws_t *ws = jg_expr_ws_create();
    if (!ws) {
        free(buf);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    lookup_t L = {root, 0};
    st = jg_expr_ws_run(ws, buf, file, root_lookup, &L, jg__import_script_warn, (void *)o);
    free(buf);
    if (st) {
        jg_expr_ws_free(ws);
        return jg_error_set(err, st, "%s: out of memory", file);
    }
    for (size_t k = 0; k < jg_expr_ws_count(ws); k++)
        json_object_set_new(base, jg_expr_ws_name(ws, k), jg__import_value_json(jg_expr_ws_value(ws, k)));
    jg_expr_ws_free(ws);
    return JG_OK;
}

/* Options onto a document: workspaces, then overrides, then substitutes. */
static jg_status_t apply_options(json_t *root, const jg_import_opts_t *o, int substitute,
                                 jg_error_t *err)
{
    jg_status_t st;
    if (!o) return JG_OK;
    for (int k = 0; k < o->nworkspace; k++)
        if ((st = load_workspace(root, o->workspace[k], o, err))) return st;
    for (int k = 0; k < o->nset; k++) {
        const char *eq = strchr(o->set[k], '=');
        if (!eq || eq == o->set[k])
            return jg_error_set(err, JG_ARG, "--set %s: expected NAME=EXPR", o->set[k]);
        char *name = strndup(o->set[k], (size_t)(eq - o->set[k]));
        if (!name) return jg_error_set(err, JG_NOMEM, "out of memory");
        int ok = (name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z');
        for (char *p = name; *p; p++)
            ok &= (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
        if (!ok) {
            st = jg_error_set(err, JG_ARG, "--set %s: '%s' is not a MATLAB variable name", o->set[k], name);
            free(name);
            return st;
        }
        jg_expr_value_t v = {0};
        jg_expr_error_t ee = {0};
        lookup_t L = {root, 0};
        if (jg_expr_eval(eq + 1, root_lookup, &L, &v, &ee)) {   /* checked now, kept as text */
            st = jg_error_set(err, JG_PARAM, "--set %s: %s (column %d)", o->set[k], ee.msg, ee.column);
            free(name);
            return st;
        }
        jg_expr_value_clear(&v);
        json_t *ov = json_object_get(root, "overrides");
        if (!ov) {
            ov = json_object();
            json_object_set_new(root, "overrides", ov);
        }
        json_object_set_new(ov, name, jg__import_param_json(eq + 1));
        free(name);
    }
    for (int k = 0; substitute && k < o->nsubstitute; k++) {
        const char *eq = strrchr(o->substitute[k], '=');
        if (!eq || eq == o->substitute[k] || !eq[1])
            return jg_error_set(err, JG_ARG, "--substitute %s: expected BLOCKPATH=FILE.json",
                                o->substitute[k]);
        char *bp = strndup(o->substitute[k], (size_t)(eq - o->substitute[k]));
        if (!bp) return jg_error_set(err, JG_NOMEM, "out of memory");
        st = jg__import_substitute(root, bp, eq + 1, file_limit(o), err);
        free(bp);
        if (st) return st;
    }
    return JG_OK;
}

static int no_options(const jg_import_opts_t *o)
{
    return !o || (!o->nworkspace && !o->nset && !o->nsubstitute);
}

static jg_status_t load_doc(const char *path, const jg_import_opts_t *o, json_t **out,
                            jg_error_t *err)
{
    jg__import_ctx_t ic = {.o = o, .base = json_object()};
    jg_status_t st;
    *out = NULL;
    if (!ic.base) return jg_error_set(err, JG_NOMEM, "out of memory");
    json_t *root = NULL;
    if ((st = jg__import_json(&ic, path, &root, err))) goto done;
    if (json_object_size(ic.base)) {   /* callbacks' values under the file's own */
        json_t *w = json_object_get(root, "workspace");
        if (!w) json_object_set(root, "workspace", ic.base);
        else {
            const char *k;
            json_t *v;
            json_object_foreach(ic.base, k, v) if (!json_object_get(w, k)) json_object_set(w, k, v);
        }
    }
    if ((st = apply_options(root, o, 1, err))) goto done;
    *out = root;
    root = NULL;
done:
    json_decref(root);
    json_decref(ic.base);
    return st;
}

jg_status_t jg_import_load(const char *path, const jg_import_opts_t *o, jg_model_t **out,
                           jg_error_t *err)
{
    jg_status_t st;
    *out = NULL;
    fmt_t f = sniff(path, err, &st);
    if (f == FMT_UNKNOWN) return st;
    /* a JSON model without options takes the fast arena parse */
    if (f == FMT_JSON && no_options(o))
        return jg_model_read_limits(path, o ? &o->limits : NULL, out, err);
    json_t *root = NULL;
    if ((st = load_doc(path, o, &root, err))) return st;
    if ((st = jg_model_from_json(root, path, out, err))) return st;
    if (o) jg_model_set_limits(*out, &o->limits);
    return JG_OK;
}

jg_status_t jg_import_to_json(const char *path, const jg_import_opts_t *o, FILE *f,
                              jg_error_t *err)
{
    json_t *root = NULL;
    jg_status_t st = load_doc(path, o, &root, err);
    if (st) return st;
    /* check it the way a model is checked before writing it */
    jg_model_t *m = NULL;
    json_incref(root);
    if ((st = jg_model_from_json(root, path, &m, err))) {
        json_decref(root);
        return st;
    }
    jg_model_free(m);
    if (json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) ||
        fputc('\n', f) == EOF || fflush(f))
        st = jg_error_set(err, JG_IO, "cannot write the JSON model");
    json_decref(root);
    return st;
}
