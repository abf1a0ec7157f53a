/* Reading the JSON model format: syntax (jparse.c, jansson for what it refuses) and document shape. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "model_impl.h"
#include "model_internal.h"
#include "../core/str.h"

/* Check one system object (root or SubSystem): "blocks" array of objects with
 * string "name" and "type", optional "lines" array of {src, dst}.  `where` is
 * the system path for messages. */
/* SubSystems nest at most this deep (docs/cli.md, "Limits"): every pass over
 * the hierarchy (this check, lib/compile's flattening) recurses once per level,
 * and a model built in memory is not bounded by the JSON parser's depth. */
enum { MAX_SUBSYSTEM_DEPTH = 1000 };

/* The document's keys of the members checked (jg__jdoc_key: 0 when no
 * object has one), looked up once rather than compared per object. */
typedef struct {
    jg__jkey_t blocks, name, type, parameters, lines, src, dst;
} keys_t;

/* The shape of system sys; its blocks and systems added to the model's
 * counts (m->counted cleared when they cannot be counted here). */
static jg_status_t check_system(const keys_t *K, const jg__jv_t *sys, const char *src,
                                const char *where, int depth, jg_model_t *m, jg_error_t *err)
{
    m->nsys++;
    const jg__jv_t *blocks = jg__jv_get_key(sys, K->blocks);
    if (!blocks)
        return jg_error_set(err, JG_MODEL, "%s: system '%s' has no \"blocks\" array", src, where);
    if (!jg__jv_is_arr(blocks))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"blocks\" must be an array", src,
                            where);
    size_t i;
    const jg__jv_t *b;
    jg__jv_foreach(blocks, i, b) {
        if (!jg__jv_is_obj(b))
            return jg_error_set(err, JG_MODEL, "%s: system '%s': blocks[%zu] is not an object",
                                src, where, i);
        const jg__jv_t *name = jg__jv_get_key(b, K->name), *type = jg__jv_get_key(b, K->type);
        if (!jg__jv_is_str(name) || !jg__jv_strlen(name))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': blocks[%zu] needs a non-empty string \"name\"",
                                src, where, i);
        /* any characters, '/' included: a path doubles it (lib/compile) */
        const char *nm = jg__jv_str(name);
        if (!jg__jv_is_str(type))
            return jg_error_set(err, JG_MODEL, "%s: block '%s%s%s' needs a string \"type\"", src,
                                *where ? where : "", *where ? "/" : "", nm);
        const jg__jv_t *par = jg__jv_get_key(b, K->parameters);
        if (par && !jg__jv_is_obj(par))
            return jg_error_set(err, JG_MODEL,
                                "%s: block '%s%s%s': \"parameters\" must be an object", src,
                                *where ? where : "", *where ? "/" : "", nm);
        m->nblocks++;
        if (!strcmp(jg__jv_str(type), "SubSystem")) {
            if (depth >= MAX_SUBSYSTEM_DEPTH)   /* the path would be long: name the block */
                return jg_error_set(err, JG_MODEL,
                                    "%s: SubSystem '%s' at nesting level %d: SubSystems nest at "
                                    "most %d deep",
                                    src, nm, depth + 1, MAX_SUBSYSTEM_DEPTH);
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
            jg_status_t st = check_system(K, b, src, sub, depth + 1, m, err);
            free(sub);
            if (st) return st;
        } else if (jg__jv_is_arr(jg__jv_get_key(b, K->blocks))) {
            m->counted = 0;   /* the compiler descends into it: it counts */
        }
    }
    const jg__jv_t *lines = jg__jv_get_key(sys, K->lines);
    if (lines && !jg__jv_is_arr(lines))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"lines\" must be an array", src,
                            where);
    const jg__jv_t *l;
    jg__jv_foreach(lines, i, l) {
        const jg__jv_t *s = jg__jv_get_key(l, K->src), *d = jg__jv_get_key(l, K->dst);
        if (!jg__jv_is_obj(l) || !jg__jv_is_str(s) || !(jg__jv_is_str(d) || jg__jv_is_arr(d)))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': lines[%zu] needs \"src\": \"BLOCK:N\" and "
                                "\"dst\": \"BLOCK:N\" or a list of them",
                                src, where, i);
        const jg__jv_t *ln = jg__jv_get_key(l, K->name);
        if (ln && !jg__jv_is_str(ln))
            return jg_error_set(err, JG_MODEL,
                                "%s: system '%s': lines[%zu]: \"name\" (the signal name) must be "
                                "a string",
                                src, where, i);
        if (jg__jv_is_arr(d)) {
            size_t k;
            const jg__jv_t *e;
            jg__jv_foreach(d, k, e) if (!jg__jv_is_str(e)) return jg_error_set(
                err, JG_MODEL, "%s: system '%s': lines[%zu].dst[%zu] is not a \"BLOCK:N\" string",
                src, where, i, k);
        }
    }
    const jg__jv_t *par = jg__jv_get_key(sys, K->parameters);
    if (par && !jg__jv_is_obj(par))
        return jg_error_set(err, JG_MODEL, "%s: system '%s': \"parameters\" must be an object",
                            src, where);
    return JG_OK;
}

/* m holds the document d (taken); its shape is checked. */
static jg_status_t finish(jg_model_t *m, jg__jdoc_t *d, const char *source, jg_model_t **out,
                          jg_error_t *err)
{
    jg_status_t st;
    m->doc = d;
    const jg__jv_t *root = m->root = jg__jdoc_root(d);
    if (!jg__jv_is_obj(root)) {
        st = jg_error_set(err, JG_MODEL, "%s: the document must be a JSON object", source);
        goto done;
    }
    const jg__jv_t *name = jg__jv_get(d, root, "name");
    if (name && !jg__jv_is_str(name)) {
        st = jg_error_set(err, JG_MODEL, "%s: \"name\" must be a string", source);
        goto done;
    }
    for (int k = 0; k < 2; k++) {   /* the base workspace and the --set overrides */
        const char *key = k ? "overrides" : "workspace";
        const jg__jv_t *w = jg__jv_get(d, root, key);
        if (w && !jg__jv_is_obj(w)) {
            st = jg_error_set(err, JG_MODEL, "%s: \"%s\" must be an object", source, key);
            goto done;
        }
    }
    keys_t K = {jg__jdoc_key(d, "blocks"), jg__jdoc_key(d, "name"),  jg__jdoc_key(d, "type"),
                jg__jdoc_key(d, "parameters"), jg__jdoc_key(d, "lines"), jg__jdoc_key(d, "src"),
                jg__jdoc_key(d, "dst")};
    m->nblocks = m->nsys = 0;
    m->counted = 1;
    if ((st = check_system(&K, root, source, "", 0, m, err))) goto done;
    m->source = jg__strdup(source);
    if (name) {
        m->name = jg__strdup(jg__jv_str(name));
    } else {   /* file stem */
        const char *b = strrchr(source, '/');
        b = b ? b + 1 : source;
        m->name = jg__strdup(b);
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
    json_t *r = json_loadb(buf, len, JSON_REJECT_DUPLICATES, je);
    if (r || json_error_code(je) == json_error_out_of_memory) return r;
    /* jansson reports some failed allocations of its lexer as syntax errors
     * ("invalid token"): a failure that does not repeat was one, and the
     * second parse is the document; one that moves is out of memory */
    json_error_t je2;
    memset(&je2, 0, sizeof je2);
    r = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je2);
    if (r) return r;
    if (je2.line != je->line || je2.column != je->column || strcmp(je2.text, je->text)) {
        je->text[0] = 0;   /* parse_error: out of memory */
        je->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    }
    return NULL;
}

/* jansson's failure as our error: its message is empty when one of its own
 * allocations failed (and its code says so), which is out of memory, not a
 * syntax error at 0:0. */
static jg_status_t parse_error(jg_error_t *err, const char *source, const json_error_t *je)
{
    enum json_error_code code = json_error_code(je);
    if (code == json_error_out_of_memory || (!je->text[0] && code != json_error_invalid_syntax))
        return jg_error_set(err, JG_NOMEM, "%s: out of memory parsing JSON", source);
    if (!je->text[0])
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: malformed JSON", source, je->line, je->column);
    return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", source, je->line, je->column, je->text);
}

/* The document of the text buf[0..len) (buf[len] a NUL; only read).  The
 * compact parser reads what it can; anything it refuses goes to jansson,
 * which words the error as before or hands over a document the compact
 * parser leaves to it. */
static jg_status_t parse_text(const char *buf, size_t len, const char *source, jg__jdoc_t **d,
                              jg_error_t *err)
{
    jg_status_t st = jg__jdoc_parse(buf, len, d);
    if (st == JG_NOMEM) return jg_error_set(err, JG_NOMEM, "%s: out of memory parsing JSON", source);
    if (st == JG_OK) return JG_OK;
    json_error_t je;
    memset(&je, 0, sizeof je);
    json_t *root = load(buf, len, &je);
    if (!root) return parse_error(err, source, &je);
    st = jg__jdoc_from_jansson(root, d);
    json_decref(root);
    if (st) return jg_error_set(err, JG_NOMEM, "%s: out of memory parsing JSON", source);
    return JG_OK;
}

jg_status_t jg_model_parse(const char *text, const char *source, jg_model_t **out,
                           jg_error_t *err)
{
    jg_status_t st;
    *out = NULL;
    jg_model_t *m = model_new();
    jg__jdoc_t *d = NULL;
    if (!m) return jg_error_set(err, JG_NOMEM, "out of memory");
    /* the document copies what it keeps: the text is read where it is */
    if ((st = parse_text(text, strlen(text), source, &d, err))) {
        jg_model_free(m);
        return st;
    }
    return finish(m, d, source, out, err);
}

jg_status_t jg_model_read(const char *path, jg_model_t **out, jg_error_t *err)
{
    return jg_model_read_limits(path, NULL, out, err);
}

jg_status_t jg__model_adopt(jg__jdoc_t *d, const char *source, const jg_limits_t *lim,
                            jg_model_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_model_t *m = model_new();
    if (!m) {
        jg__jdoc_free(d);
        return jg_error_set(err, JG_NOMEM, "%s: out of memory", source);
    }
    m->limits = jg_limits_resolve(lim);
    return finish(m, d, source, out, err);
}

jg_status_t jg_model_read_limits(const char *path, const jg_limits_t *lim, jg_model_t **out,
                                 jg_error_t *err)
{
    *out = NULL;
    /* the file mapped (or read whole: json_loadf reads a character at a
     * time) and dropped as soon as it is parsed: the document keeps its own
     * copies of the strings */
    const char *buf = NULL;
    size_t len = 0;
    int mapped = 0;
    jg__jdoc_t *d = NULL;
    jg_limits_t L = jg_limits_resolve(lim);
    jg_status_t st = jg__view_file(path, L.file_bytes, &buf, &len, &mapped, err);
    if (st) return st;
    st = parse_text(buf, len, path, &d, err);
    jg__view_free(buf, len, mapped);
    if (st) return st;
    return jg__model_adopt(d, path, &L, out, err);
}

/* A document built in memory (lib/import): the model takes the reference. */
jg_status_t jg_model_from_json(json_t *root, const char *source, jg_model_t **out,
                               jg_error_t *err)
{
    *out = NULL;
    jg__jdoc_t *d = NULL;
    jg_model_t *m = model_new();
    jg_status_t st = m ? jg__jdoc_from_jansson(root, &d) : JG_NOMEM;
    json_decref(root);
    if (st) {
        free(m);
        return jg_error_set(err, JG_NOMEM, "%s: out of memory", source);
    }
    return finish(m, d, source, out, err);
}

size_t jg_model_nskipped(const jg_model_t *m)
{
    const jg__jv_t *s = jg__jv_get(m->doc, m->root, "skipped");
    return jg__jv_is_arr(s) ? jg__jv_len(s) : 0;
}

const char *jg_model_skipped(const jg_model_t *m, size_t k)
{
    return jg__jv_str(jg__jv_at(jg__jv_get(m->doc, m->root, "skipped"), k));
}

ptrdiff_t jg_model_nplugins(const jg_model_t *m)
{
    const jg__jv_t *list = jg__jv_get(m->doc, m->root, "plugins");
    if (!list) return 0;
    if (!jg__jv_is_arr(list)) return -1;
    size_t i;
    const jg__jv_t *v;
    jg__jv_foreach(list, i, v) {
        if (!jg__jv_is_str(v) || !*jg__jv_str(v)) return -1;
    }
    return (ptrdiff_t)jg__jv_len(list);
}

const char *jg_model_plugin(const jg_model_t *m, size_t k)
{
    return jg__jv_str(jg__jv_at(jg__jv_get(m->doc, m->root, "plugins"), k));
}

void jg_model_set_limits(jg_model_t *m, const jg_limits_t *lim) { m->limits = jg_limits_resolve(lim); }
jg_limits_t jg_model_limits(const jg_model_t *m) { return jg_limits_resolve(&m->limits); }

const char *jg_model_name(const jg_model_t *m) { return m->name; }
const jg__jv_t *jg__model_root(const jg_model_t *m) { return m->root; }
const jg__jdoc_t *jg__model_doc(const jg_model_t *m) { return m->doc; }

int jg__model_counts(const jg_model_t *m, int64_t *nblocks, int64_t *nsys)
{
    if (!m->counted) return 0;
    *nblocks = m->nblocks, *nsys = m->nsys;
    return 1;
}
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
    jg__jdoc_free(m->doc);
    free(m->source);
    free(m->name);
    free(m);
}
