/* Reading the JSON model format: syntax (jansson) and document shape. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "model_impl.h"
#include "model_internal.h"

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Check one system object (root or SubSystem): "blocks" array of objects with
 * string "name" and "type", optional "lines" array of {src, dst}.  `where` is
 * the system path for messages. */
static jg_status_t check_system(const json_t *sys, const char *src, const char *where,
                                jg_error_t *err)
{
    const json_t *blocks = json_object_get(sys, "blocks");
    if (!blocks)
        return jg_error_set(err, JG_MODEL, "%s: system '%s' has no \"blocks\" array", src, where);
    if (!json_is_array(blocks))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"blocks\" must be an array", src,
                            where);
    size_t i;
    const json_t *b;
    json_array_foreach(blocks, i, b) {
        if (!json_is_object(b))
            return jg_error_set(err, JG_MODEL, "%s: system '%s': blocks[%zu] is not an object",
                                src, where, i);
        const json_t *name = json_object_get(b, "name"), *type = json_object_get(b, "type");
        if (!json_is_string(name) || !json_string_length(name))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': blocks[%zu] needs a non-empty string \"name\"",
                                src, where, i);
        /* any characters, '/' included: a path doubles it (lib/compile) */
        const char *nm = json_string_value(name);
        if (!json_is_string(type))
            return jg_error_set(err, JG_MODEL, "%s: block '%s%s%s' needs a string \"type\"", src,
                                *where ? where : "", *where ? "/" : "", nm);
        const json_t *par = json_object_get(b, "parameters");
        if (par && !json_is_object(par))
            return jg_error_set(err, JG_MODEL,
                                "%s: block '%s%s%s': \"parameters\" must be an object", src,
                                *where ? where : "", *where ? "/" : "", nm);
        if (!strcmp(json_string_value(type), "SubSystem")) {
            size_t lw = strlen(where), n = lw + 2 * strlen(nm) + 2;
            char *sub = malloc(n), *o = sub;
            if (!sub) return jg_error_set(err, JG_NOMEM, "out of memory");
            memcpy(o, where, lw);
            o += lw;
            if (lw) *o++ = '/';
            for (const char *c = nm; *c; c++) {   /* the path form: '/' doubled */
                if (*c == '/') *o++ = '/';
                *o++ = *c;
            }
            *o = '\0';
            jg_status_t st = check_system(b, src, sub, err);
            free(sub);
            if (st) return st;
        }
    }
    const json_t *lines = json_object_get(sys, "lines");
    if (lines && !json_is_array(lines))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"lines\" must be an array", src,
                            where);
    const json_t *l;
    json_array_foreach(lines, i, l) {
        const json_t *s = json_object_get(l, "src"), *d = json_object_get(l, "dst");
        if (!json_is_object(l) || !json_is_string(s) || !(json_is_string(d) || json_is_array(d)))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': lines[%zu] needs \"src\": \"BLOCK:N\" and "
                                "\"dst\": \"BLOCK:N\" or a list of them",
                                src, where, i);
        const json_t *ln = json_object_get(l, "name");
        if (ln && !json_is_string(ln))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': lines[%zu]: \"name\" (the signal name) must be "
                                "a string",
                                src, where, i);
        if (json_is_array(d)) {
            size_t k;
            const json_t *e;
            json_array_foreach(d, k, e) if (!json_is_string(e)) return jg_error_set(
                err, JG_MODEL, "%s: system '%s': lines[%zu].dst[%zu] is not a \"BLOCK:N\" string",
                src, where, i, k);
        }
    }
    const json_t *par = json_object_get(sys, "parameters");
    if (par && !json_is_object(par))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"parameters\" must be an object",
                            src, where);
    return JG_OK;
}

static jg_status_t finish(jg_model_t *m, json_t *root, const char *source, jg_model_t **out,
                          jg_error_t *err)
{
    jg_status_t st;
    if (!json_is_object(root)) {
        st = jg_error_set(err, JG_MODEL, "%s: the document must be a JSON object", source);
        goto done;
    }
    const json_t *name = json_object_get(root, "name");
    if (name && !json_is_string(name)) {
        st = jg_error_set(err, JG_MODEL, "%s: \"name\" must be a string", source);
        goto done;
    }
    for (int k = 0; k < 2; k++) {   /* the base workspace and the --set overrides */
        const char *key = k ? "overrides" : "workspace";
        const json_t *w = json_object_get(root, key);
        if (w && !json_is_object(w)) {
            st = jg_error_set(err, JG_MODEL, "%s: \"%s\" must be an object", source, key);
            goto done;
        }
    }
    if ((st = check_system(root, source, "", err))) goto done;
    m->source = dupstr(source);
    if (name) {
        m->name = dupstr(json_string_value(name));
    } else {   /* file stem */
        const char *b = strrchr(source, '/');
        b = b ? b + 1 : source;
        m->name = dupstr(b);
        char *dot = m->name ? strrchr(m->name, '.') : NULL;
        if (dot && dot != m->name) *dot = '\0';
    }
    if (!m->source || !m->name) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    *out = m;
    m = NULL;
    st = JG_OK;
done:
    jg_model_free(m);
    return st;
}

static jg_model_t *model_new(void) { return calloc(1, sizeof(jg_model_t)); }

/* jansson's own allocator: its allocation hooks (json_set_alloc_funcs) are
 * process-wide and would change the allocator of a host program that uses
 * jansson too.  Duplicate keys are refused (docs/model-format.md). */
static json_t *load(const char *buf, size_t len, json_error_t *je)
{
    return json_loadb(buf, len, JSON_REJECT_DUPLICATES, je);
}

jg_status_t jg_model_parse(const char *text, const char *source, jg_model_t **out,
                           jg_error_t *err)
{
    json_error_t je;
    *out = NULL;
    jg_model_t *m = model_new();
    if (!m) return jg_error_set(err, JG_NOMEM, "out of memory");
    json_t *root = load(text, strlen(text), &je);
    if (!root) {
        jg_model_free(m);
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", source, je.line, je.column, je.text);
    }
    m->root = root;
    return finish(m, root, source, out, err);
}

jg_status_t jg_model_read(const char *path, jg_model_t **out, jg_error_t *err)
{
    json_error_t je;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
    /* one read and json_loadb: json_loadf reads a character at a time */
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        return jg_error_set(err, JG_IO, "%s: read error", path);
    }
    jg_model_t *m = model_new();
    json_t *root = m ? load(buf, len, &je) : NULL;
    free(buf);
    if (!m) return jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
    if (!root) {
        jg_model_free(m);
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    m->root = root;
    return finish(m, root, path, out, err);
}

/* A document built in memory (lib/import): the model takes the reference. */
jg_status_t jg_model_from_json(json_t *root, const char *source, jg_model_t **out,
                               jg_error_t *err)
{
    *out = NULL;
    jg_model_t *m = model_new();
    if (!m) {
        json_decref(root);
        return jg_error_set(err, JG_NOMEM, "%s: out of memory", source);
    }
    m->root = root;
    return finish(m, root, source, out, err);
}

size_t jg_model_nskipped(const jg_model_t *m)
{
    const json_t *s = json_object_get(m->root, "skipped");
    return json_is_array(s) ? json_array_size(s) : 0;
}

const char *jg_model_skipped(const jg_model_t *m, size_t k)
{
    return json_string_value(json_array_get(json_object_get(m->root, "skipped"), k));
}

ptrdiff_t jg_model_nplugins(const jg_model_t *m)
{
    const json_t *list = json_object_get(m->root, "plugins");
    if (!list) return 0;
    if (!json_is_array(list)) return -1;
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) {
        if (!json_is_string(v) || !*json_string_value(v)) return -1;
    }
    return (ptrdiff_t)json_array_size(list);
}

const char *jg_model_plugin(const jg_model_t *m, size_t k)
{
    return json_string_value(json_array_get(json_object_get(m->root, "plugins"), k));
}

const char *jg_model_name(const jg_model_t *m) { return m->name; }
const json_t *jg__model_root(const jg_model_t *m) { return m->root; }
const char *jg_model_source(const jg_model_t *m) { return m->source; }

void *jg__model_plugins(const jg_model_t *m) { return m->plugins; }

void jg__model_set_plugins(jg_model_t *m, void *set, void (*release)(void *))
{
    if (m->plugins_release) m->plugins_release(m->plugins);
    m->plugins = set;
    m->plugins_release = release;
}

void jg_model_free(jg_model_t *m)
{
    if (!m) return;
    if (m->plugins_release) m->plugins_release(m->plugins);
    json_decref(m->root);
    free(m->source);
    free(m->name);
    free(m);
}
