/* OPC-text MDL ("# MathWorks OPC Text Package") -> part set -> Simulink tree. */
#include <string.h>
#include "sltree.h"

static int has_prefix(const char *p, const char *e, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(e - p) >= n && !memcmp(p, lit, n);
}

static int ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

jg_status_t jg__sl_parse_opc_text(jg__sl_tree_t *t, const char *buf, size_t len, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    jg__sl_parts_t ps = {0};
    const char *end = buf + len, *p = buf;
    const char *hint = NULL;
    const char *name = NULL, *body = NULL;   /* part being collected */
    int base64 = 0, begun = 0, ended = 0, line = 1, part_line = 0;
    size_t maxpart = t->max_part;
    while (p < end && !ended) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if (!eol) eol = end;
        const char *e = eol;
        while (e > p && ws(e[-1])) e--;
        int part_begin = has_prefix(p, e, "__MWOPC_PART_BEGIN__");
        int pkg_end = has_prefix(p, e, "__MWOPC_PACKAGE_END__");
        if ((part_begin || pkg_end) && begun) {
            if (name && !base64) {   /* finish the previous part: trim surrounding blank lines */
                const char *b = body, *be = p;
                while (b < be && ws(*b)) b++;
                while (be > b && ws(be[-1])) be--;
                if ((size_t)(be - b) > maxpart) {
                    st = jg_error_set(err, JG_PARSE, "%s:%d: part %s is larger than the %zu-byte limit",
                                      t->source, part_line, name, maxpart);
                    goto done;
                }
                if (jg__sl_parts_add(&ps, name, b, (size_t)(be - b))) goto oom;
            }
            name = NULL;
        }
        if (has_prefix(p, e, "__MWOPC_PACKAGE_BEGIN__")) {
            const char *h = p + strlen("__MWOPC_PACKAGE_BEGIN__");
            while (h < e && ws(*h)) h++;
            if (h < e && !(hint = jg_arena_printf(&t->arena, "%.*s", (int)(e - h), h))) goto oom;
            begun = 1;
        } else if (part_begin) {
            if (!begun) {
                st = jg_error_set(err, JG_PARSE, "%s:%d: part before __MWOPC_PACKAGE_BEGIN__",
                                  t->source, line);
                goto done;
            }
            /* "__MWOPC_PART_BEGIN__ /path [BASE64]" */
            const char *n0 = p + strlen("__MWOPC_PART_BEGIN__");
            while (n0 < e && ws(*n0)) n0++;
            if (n0 < e && *n0 == '/') n0++;
            const char *n1 = n0;
            while (n1 < e && !ws(*n1)) n1++;
            const char *f = n1;
            while (f < e && ws(*f)) f++;
            base64 = has_prefix(f, e, "BASE64");
            if (n1 == n0) {
                st = jg_error_set(err, JG_PARSE, "%s:%d: part without a name", t->source, line);
                goto done;
            }
            if (!(name = jg_arena_printf(&t->arena, "%.*s", (int)(n1 - n0), n0))) goto oom;
            body = next;
            part_line = line;
        } else if (pkg_end && begun) {
            ended = 1;
        }
        p = next;
        line++;
    }
    if (!begun) {
        st = jg_error_set(err, JG_PARSE, "%s: no __MWOPC_PACKAGE_BEGIN__ line (not an OPC text package)",
                          t->source);
        goto done;
    }
    if (!ended) {
        st = jg_error_set(err, JG_PARSE, "%s:%d: missing __MWOPC_PACKAGE_END__ (truncated file?)",
                          t->source, line);
        goto done;
    }
    st = jg__sl_build_parts(t, &ps, hint, err);
    goto done;
oom:
    st = jg_error_set(err, JG_NOMEM, "%s: out of memory", t->source);
done:
    jg__sl_parts_fini(&ps);
    return st;
}
