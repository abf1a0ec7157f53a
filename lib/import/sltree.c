/* The Simulink tree: format sniffing, file reading, the node builder, lookups and a debug dump. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sltree.h"

/* A part's size limit of lim, the default when not given. */
static size_t max_part(const jg__sl_limits_t *lim) { return lim && lim->max_part ? lim->max_part : JG__SL_MAX_PART; }

/* ---- builder ---- */

void jg__sl_builder_init(jg__sl_builder_t *b, jg__sl_tree_t *t)
{
    memset(b, 0, sizeof *b);
    b->t = t;
}

void jg__sl_builder_fini(jg__sl_builder_t *b)
{
    free(b->par);
    free(b->kid);
    free(b->fr);
    free(b->intern);
    memset(b, 0, sizeof *b);
}

/* grow a scratch array to hold one more element of size sz */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? 2 * *cap : 64;
    void *p = realloc(*v, nc * sz);
    if (!p) return -1;
    *v = p;
    *cap = nc;
    return 0;
}

char *jg__sl_str(jg__sl_builder_t *b, const char *s, size_t n)
{
    char *d;
    if (n >= 4096) {   /* long strings get their own allocation, the pool stays dense */
        d = jg_arena_alloc(&b->t->arena, n + 1);
    } else {
        if (b->pool_left < n + 1) {
            b->pool = jg_arena_alloc(&b->t->arena, 1 << 16);
            b->pool_left = b->pool ? 1 << 16 : 0;
        }
        d = b->pool;
        if (d) {
            b->pool += n + 1;
            b->pool_left -= n + 1;
        }
    }
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static size_t hash_str(const char *s, size_t n)
{
    size_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

const char *jg__sl_intern(jg__sl_builder_t *b, const char *s, size_t n)
{
    if (2 * (b->nintern + 1) > b->cintern) {   /* keep the table at most half full */
        size_t nc = b->cintern ? 2 * b->cintern : 1024;
        const char **nt = calloc(nc, sizeof *nt);
        if (!nt) return NULL;
        for (size_t i = 0; i < b->cintern; i++) {
            const char *e = b->intern[i];
            if (!e) continue;
            size_t h = hash_str(e, strlen(e)) & (nc - 1);
            while (nt[h]) h = (h + 1) & (nc - 1);
            nt[h] = e;
        }
        free(b->intern);
        b->intern = nt;
        b->cintern = nc;
    }
    size_t h = hash_str(s, n) & (b->cintern - 1);
    for (const char *e; (e = b->intern[h]); h = (h + 1) & (b->cintern - 1))
        if (!strncmp(e, s, n) && e[n] == '\0') return e;
    char *d = jg__sl_str(b, s, n);
    if (!d) return NULL;
    b->intern[h] = d;
    b->nintern++;
    return d;
}

jg__sl_node_t *jg__sl_open(jg__sl_builder_t *b, const char *tag, int line, const char *part)
{
    if (grow((void **)&b->fr, &b->cfr, b->nfr, sizeof *b->fr)) return NULL;
    jg__sl_node_t *n = jg_arena_alloc(&b->t->arena, sizeof *n);
    if (!n) return NULL;
    n->tag = tag;
    n->line = line;
    n->part = part;
    b->fr[b->nfr++] = (jg__sl_frame_t){n, b->npar, b->nkid};
    return n;
}

int jg__sl_add(jg__sl_builder_t *b, const char *key, const char *val)
{
    if (grow((void **)&b->par, &b->cpar, b->npar, sizeof *b->par)) return -1;
    b->par[b->npar++] = (jg__sl_param_t){key, val};
    return 0;
}

jg__sl_node_t *jg__sl_close(jg__sl_builder_t *b)
{
    if (!b->nfr) return NULL;
    jg__sl_frame_t f = b->fr[--b->nfr];
    jg__sl_node_t *n = f.node;
    n->npar = b->npar - f.par0;
    n->nkid = b->nkid - f.kid0;
    if (n->npar) {
        n->par = jg_arena_alloc(&b->t->arena, n->npar * sizeof *n->par);
        if (!n->par) return NULL;
        memcpy(n->par, b->par + f.par0, n->npar * sizeof *n->par);
    }
    if (n->nkid) {
        n->kid = jg_arena_alloc(&b->t->arena, n->nkid * sizeof *n->kid);
        if (!n->kid) return NULL;
        memcpy(n->kid, b->kid + f.kid0, n->nkid * sizeof *n->kid);
    }
    b->npar = f.par0;
    b->nkid = f.kid0;
    if (b->nfr) {   /* becomes the next child of the enclosing node */
        if (grow((void **)&b->kid, &b->ckid, b->nkid, sizeof *b->kid)) return NULL;
        b->kid[b->nkid++] = n;
    }
    return n;
}

/* ---- part sets ---- */

int jg__sl_parts_add(jg__sl_parts_t *ps, const char *name, const char *data, size_t len)
{
    if (grow((void **)&ps->v, &ps->cap, ps->n, sizeof *ps->v)) return -1;
    ps->v[ps->n++] = (jg__sl_part_t){name, data, len};
    return 0;
}

void jg__sl_parts_fini(jg__sl_parts_t *ps)
{
    free(ps->v);
    memset(ps, 0, sizeof *ps);
}

/* ---- lookups ---- */

const char *jg__sl_get(const jg__sl_node_t *n, const char *key)
{
    if (!n) return NULL;
    for (size_t i = 0; i < n->npar; i++)
        if (!strcmp(n->par[i].key, key)) return n->par[i].val;
    return NULL;
}

jg__sl_node_t *jg__sl_next(const jg__sl_node_t *n, const char *tag, size_t *i)
{
    if (!n) return NULL;
    for (; *i < n->nkid; ++*i)
        if (!strcmp(n->kid[*i]->tag, tag)) return n->kid[(*i)++];
    return NULL;
}

jg__sl_node_t *jg__sl_child(const jg__sl_node_t *n, const char *tag)
{
    size_t i = 0;
    return jg__sl_next(n, tag, &i);
}

/* Simulink Version -> MATLAB release; classic MDL records only the number. */
static const char *const sl_release[][2] = {
    {"3.0", "R11"}, {"4.0", "R12"}, {"4.1", "R12.1"}, {"5.0", "R13"}, {"5.1", "R13SP1"},
    {"6.0", "R14"}, {"6.1", "R14SP1"}, {"6.2", "R14SP2"}, {"6.3", "R14SP3"}, {"6.4", "R2006a"},
    {"6.5", "R2006b"}, {"6.6", "R2007a"}, {"7.0", "R2007b"}, {"7.1", "R2008a"}, {"7.2", "R2008b"},
    {"7.3", "R2009a"}, {"7.4", "R2009b"}, {"7.5", "R2010a"}, {"7.6", "R2010b"},
    {"7.7", "R2011a"}, {"7.8", "R2011b"}, {"7.9", "R2012a"}, {"8.0", "R2012b"},
    {"8.1", "R2013a"}, {"8.2", "R2013b"}, {"8.3", "R2014a"}, {"8.4", "R2014b"},
    {"8.5", "R2015a"}, {"8.6", "R2015b"}, {"8.7", "R2016a"}, {"8.8", "R2016b"},
    {"8.9", "R2017a"}, {"9.0", "R2017b"}, {"9.1", "R2018a"}, {"9.2", "R2018b"},
    {"9.3", "R2019a"}, {"10.0", "R2019b"}, {"10.1", "R2020a"}, {"10.2", "R2020b"},
    {"10.3", "R2021a"}, {"10.4", "R2021b"}, {"10.5", "R2022a"}, {"10.6", "R2022b"},
    {"10.7", "R2023a"}, {"23.2", "R2023b"}, {"24.1", "R2024a"}, {"24.2", "R2024b"},
};

const char *jg__sl_release_of_version(const char *version)
{
    if (!version) return NULL;
    for (size_t i = 0; i < sizeof sl_release / sizeof sl_release[0]; i++)
        if (!strcmp(sl_release[i][0], version)) return sl_release[i][1];
    return NULL;
}

/* ---- entry points ---- */

void jg__sl_tree_free(jg__sl_tree_t *t)
{
    if (!t) return;
    jg_arena_free(&t->arena);
    free(t);
}

static int starts_with(const char *buf, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len >= n && !memcmp(buf, lit, n);
}

jg_status_t jg__sl_parse(const char *buf, size_t len, const char *source, const jg__sl_limits_t *lim,
                         jg__sl_tree_t **out, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    *out = NULL;
    jg__sl_tree_t *t = calloc(1, sizeof *t);
    if (!t) return jg_error_set(err, JG_NOMEM, "%s: out of memory", source);
    t->max_part = max_part(lim);
    t->max_depth = lim && lim->max_depth > 0 ? lim->max_depth : JG__SL_MAX_DEPTH;
    jg_arena_init(&t->arena, 1 << 16);
    t->source = jg_arena_strdup(&t->arena, source ? source : "(memory)");
    if (!t->source) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", source);
        goto done;
    }
    /* sniff the content: the extension lies (.mdl is used by unrelated tools) */
    size_t skip = starts_with(buf, len, "\xEF\xBB\xBF") ? 3 : 0;   /* UTF-8 BOM */
    if (starts_with(buf, len, "PK")) {
        t->format = JG_SL_SLX;
        st = jg__sl_parse_slx(t, buf, len, err);
    } else if (starts_with(buf + skip, len - skip, "# MathWorks OPC Text Package")) {
        t->format = JG_SL_OPC_TEXT;
        st = jg__sl_parse_opc_text(t, buf, len, err);
    } else {
        t->format = JG_SL_MDL;
        st = jg__sl_parse_mdl(t, buf, len, err);
    }
done:
    if (st != JG_OK) {
        jg__sl_tree_free(t);
        return st;
    }
    *out = t;
    return JG_OK;
}

jg_status_t jg__sl_read(const char *path, const jg__sl_limits_t *lim, jg__sl_tree_t **out, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    char *buf = NULL;
    int fd = -1;
    struct stat sb;
    *out = NULL;
    /* a FIFO would block open() and a directory read(): refuse both up front */
    if (stat(path, &sb) != 0)
        return jg_error_set(err, JG_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return jg_error_set(err, JG_IO, "%s: not a regular file", path);
    /* O_NONBLOCK + fstat closes the race with a file swapped after stat() */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        st = jg_error_set(err, JG_IO, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = jg_error_set(err, JG_IO, "%s: not a regular file", path);
        goto done;
    }
    size_t limit = 4 * max_part(lim);
    if ((uint64_t)sb.st_size > (uint64_t)limit) {
        st = jg_error_set(err, JG_IO, "%s: file of %lld bytes is larger than the %zu-byte limit",
                          path, (long long)sb.st_size, limit);
        goto done;
    }
    size_t cap = (size_t)sb.st_size, len = 0;
    buf = malloc(cap + 1);
    if (!buf) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (;;) {   /* read to EOF: the size may have changed since fstat */
        if (len == cap) {
            if (cap >= limit) {
                st = jg_error_set(err, JG_IO, "%s: larger than the %zu-byte limit", path, limit);
                goto done;
            }
            size_t nc = cap < 4096 ? 4096 : 2 * cap;
            if (nc > limit) nc = limit;
            char *nb = realloc(buf, nc + 1);
            if (!nb) {
                st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
                goto done;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            st = jg_error_set(err, JG_IO, "%s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    st = jg__sl_parse(buf, len, path, lim, out, err);
done:
    if (fd >= 0) close(fd);
    free(buf);
    return st;
}

/* ---- debug dump ---- */

static void dump_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\n') fputs("\\n", f);
        else if (*s == '\t') fputs("\\t", f);
        else if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void dump_node(FILE *f, const jg__sl_node_t *n, int depth)
{
    fprintf(f, "%*s%s {", 2 * depth, "", n->tag[0] ? n->tag : "(root)");
    if (n->line || n->part) fprintf(f, "   # %s%s%d", n->part ? n->part : "", n->part ? ":" : "line ", n->line);
    fputc('\n', f);
    for (size_t i = 0; i < n->npar; i++) {
        fprintf(f, "%*s%s ", 2 * depth + 2, "", n->par[i].key);
        dump_str(f, n->par[i].val);
        fputc('\n', f);
    }
    for (size_t i = 0; i < n->nkid; i++) dump_node(f, n->kid[i], depth + 1);
    fprintf(f, "%*s}\n", 2 * depth, "");
}

void jg__sl_dump(FILE *f, const jg__sl_node_t *n)
{
    if (n) dump_node(f, n, 0);
}
