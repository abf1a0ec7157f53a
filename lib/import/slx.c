/* SLX (OPC zip) -> part set -> Simulink tree, refusing zip bombs and corrupt archives. */
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include "sltree.h"

static int is_xml_part(const char *n)
{
    size_t l = strlen(n);
    return (l > 4 && !strcmp(n + l - 4, ".xml")) || (l > 5 && !strcmp(n + l - 5, ".rels"));
}

/* Read member i completely, stopping as soon as the stream passes `limit`
 * (the declared size can lie). */
static jg_status_t read_member(jg__sl_tree_t *t, zip_t *z, zip_uint64_t i, const char *name,
                               zip_uint64_t declared, size_t limit, char **out, size_t *outlen,
                               jg_error_t *err)
{
    jg_status_t st = JG_OK;
    char *d = NULL;
    zip_file_t *zf = zip_fopen_index(z, i, 0);
    if (!zf) {
        st = jg_error_set(err, JG_PARSE, "%s: not a valid zip archive: part %s: %s", t->source, name,
                          zip_strerror(z));
        goto done;
    }
    size_t cap = declared < limit ? (size_t)declared + 1 : limit + 1, len = 0;
    if (cap < 256) cap = 256;
    d = malloc(cap);
    if (!d) goto oom;
    for (;;) {
        if (len == cap) {
            size_t nc = 2 * cap > limit + 1 ? limit + 1 : 2 * cap;
            char *nd = realloc(d, nc);
            if (!nd) goto oom;
            d = nd;
            cap = nc;
        }
        zip_int64_t r = zip_fread(zf, d + len, cap - len);
        if (r < 0) {
            st = jg_error_set(err, JG_PARSE, "%s: not a valid zip archive: part %s: %s", t->source,
                              name, zip_file_strerror(zf));
            goto done;
        }
        if (r == 0) break;
        len += (size_t)r;
        if (len > limit) {
            st = jg_error_set(err, JG_PARSE, "%s: part %s is larger than the %zu-byte limit",
                              t->source, name, limit);
            goto done;
        }
    }
    *out = d;
    *outlen = len;
    d = NULL;
    goto done;
oom:
    st = jg_error_set(err, JG_NOMEM, "%s: out of memory", t->source);
done:
    if (zf) zip_fclose(zf);
    free(d);
    return st;
}

jg_status_t jg__sl_parse_slx(jg__sl_tree_t *t, const char *buf, size_t len, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    jg__sl_parts_t ps = {0};
    char **data = NULL;
    size_t ndata = 0;
    zip_t *z = NULL;
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
    if (!src) {
        st = jg_error_set(err, JG_NOMEM, "%s: %s", t->source, zip_error_strerror(&ze));
        goto done;
    }
    z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!z) {
        zip_source_free(src);   /* not taken over on failure */
        st = jg_error_set(err, JG_PARSE, "%s: not a valid zip archive: %s", t->source,
                          zip_error_strerror(&ze));
        goto done;
    }
    zip_int64_t n = zip_get_num_entries(z, 0);
    size_t limit = t->max_part, total = 0;
    data = calloc(n > 0 ? (size_t)n : 1, sizeof *data);
    if (!data) goto oom;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t zs;
        if (zip_stat_index(z, (zip_uint64_t)i, 0, &zs) != 0 || !(zs.valid & ZIP_STAT_NAME)) {
            st = jg_error_set(err, JG_PARSE, "%s: not a valid zip archive: %s", t->source,
                              zip_strerror(z));
            goto done;
        }
        const char *name = zs.name;
        while (*name == '/') name++;
        if (!is_xml_part(name)) continue;   /* thumbnails, .mxarray: not needed */
        zip_uint64_t declared = (zs.valid & ZIP_STAT_SIZE) ? zs.size : 0;
        if (declared > limit) {
            st = jg_error_set(err, JG_PARSE, "%s: part %s is larger than the %zu-byte limit",
                              t->source, name, limit);
            goto done;
        }
        char *nm = jg_arena_strdup(&t->arena, name);
        if (!nm) goto oom;
        size_t dl = 0;
        if ((st = read_member(t, z, (zip_uint64_t)i, nm, declared, limit, &data[ndata], &dl, err)))
            goto done;
        ndata++;
        total += dl;
        if (total > 4 * limit) {
            st = jg_error_set(err, JG_PARSE, "%s: parts larger than %zu bytes in total", t->source,
                              4 * limit);
            goto done;
        }
        if (jg__sl_parts_add(&ps, nm, data[ndata - 1], dl)) goto oom;
    }
    st = jg__sl_build_parts(t, &ps, NULL, err);
    goto done;
oom:
    st = jg_error_set(err, JG_NOMEM, "%s: out of memory", t->source);
done:
    if (z) zip_discard(z);
    for (size_t i = 0; i < ndata; i++) free(data[i]);
    free(data);
    jg__sl_parts_fini(&ps);
    zip_error_fini(&ze);
    return st;
}
