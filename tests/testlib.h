/* testlib.h -- small helpers the C tests share: JSON written with ' for ", a
 * scratch directory under $TMPDIR, whole files read and written, and a qsort
 * comparator for strings, the external Simulink corpus' skip and import
 * problems.  Header-only, like tap.h and fixture.h. */
#ifndef JG_TESTS_TESTLIB_H
#define JG_TESTS_TESTLIB_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>   /* rmdir, for what tl_tmpdir made */
#include "jacgraph/jacgraph.h"
#include "tap.h"

/* JSON is written with ' for " (readable in C strings) and converted here.
 * The result lives in a static buffer that the next call overwrites. */
__attribute__((unused)) static const char *q(const char *s)
{
    static char buf[65536];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *c = buf; *c; c++)
        if (*c == '\'') *c = '"';
    return buf;
}

/* A fresh directory $TMPDIR/PREFIX.XXXXXX (/tmp when TMPDIR is unset), its path
 * in dir (n bytes): two runs at once never share a name.  Returns dir, or NULL
 * (errno set by mkdtemp).  The caller removes what it puts there. */
__attribute__((unused)) static char *tl_tmpdir(char *dir, size_t n, const char *prefix)
{
    const char *base = getenv("TMPDIR");
    int len = snprintf(dir, n, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
    if (len < 0 || (size_t)len >= n) return NULL;
    return mkdtemp(dir);
}

/* Write text to path (replacing it); 0 on success, -1 if it cannot be written. */
__attribute__((unused)) static int tl_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* The whole file, NUL-terminated, its length in *len (len may be NULL); the
 * caller frees it.  NULL if it cannot be read. */
__attribute__((unused)) static char *tl_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap);
    while (b && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *p = realloc(b, cap *= 2);
            if (!p) free(b);
            b = p;
        }
    }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = n;
    return b;
}

/* qsort comparator for an array of C strings. */
__attribute__((unused)) static int tl_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the external corpus file absent?  Then the skip line and an ok
 * "# SKIP what" are printed and 1 returned. */
__attribute__((unused)) static int tl_corpus_absent(const char *file, const char *what)
{
    if (!access(file, R_OK)) return 0;
    printf("skipped: external corpus not present\n");
    tap_ok(1, "# SKIP %s", what);
    return 1;
}

__attribute__((unused)) static char *tl_warned;
__attribute__((unused)) static void tl_keep_warning(void *ctx, const char *msg)
{
    (void)ctx;
    if (strstr(msg, "cannot be imported")) {
        free(tl_warned);
        tl_warned = strdup(msg);
    }
}

/* Import file and return its problem list, "\n  PATH (TYPE): reason" each:
 * the "cannot be imported" warning, else the error message when the import
 * failed, else "" (the caller frees it); the import's status in *st. */
__attribute__((unused)) static char *tl_import_problems(const char *file, jg_status_t *st)
{
    jg_import_opts_t o = {.warn = tl_keep_warning};
    jg_model_t *m = NULL;
    jg_error_t err;
    *st = jg_import_load(file, &o, &m, &err);
    jg_model_free(m);
    char *list = tl_warned ? tl_warned : strdup(*st ? err.msg : "");
    tl_warned = NULL;
    return list;
}

#endif
