/* test_model_jparse.c -- the compact JSON parser of lib/model (jparse.c)
 * against jansson, its reference: on every input it accepts, jansson accepts
 * too and the two documents are equal (types, member order, strings byte for
 * byte, numbers bit for bit, even with the text freed before the
 * comparison: the document keeps no pointer into it); on every input it
 * refuses, jansson reads it or words the error.  Inputs: hand-
 * picked edge cases of the grammar, numbers in many notations, random
 * mutations of a generated model, large objects (the hash index), every
 * JSON file of the tree (models, test data, the fuzzers' corpora), and the
 * model reader's messages, which must be jansson's (file:line:col); the file
 * view the reader parses (mapped, with its NUL sentinel). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/gen.h"
#include "model/model_internal.h"
#include "testlib.h"

static int same(const jg__jdoc_t *d, const jg__jv_t *v, const json_t *j, int depth)
{
    if (depth > 3000) return 0;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        if (!jg__jv_is_obj(v) || v->n != json_object_size(j)) return 0;
        const char *k;
        json_t *e;
        size_t i = 0;
        json_object_foreach((json_t *)j, k, e) {
            const char *kt = jg__jdoc_keytext(d, v->u.mem[i].key);
            if (!kt || strcmp(kt, k) || !same(d, &v->u.mem[i], e, depth + 1)) return 0;
            if (jg__jv_get(d, v, k) != &v->u.mem[i]) return 0;
            i++;
        }
        return 1;
    }
    case JSON_ARRAY:
        if (!jg__jv_is_arr(v) || v->n != json_array_size(j)) return 0;
        for (size_t i = 0; i < v->n; i++)
            if (jg__jv_at(v, i)->key || !same(d, jg__jv_at(v, i), json_array_get(j, i), depth + 1))
                return 0;
        return 1;
    case JSON_STRING:
        return jg__jv_is_str(v) && v->n == json_string_length(j) &&
               !memcmp(v->u.str, json_string_value(j), v->n) && v->u.str[v->n] == '\0';
    case JSON_INTEGER:
    case JSON_REAL: {
        double a = jg__jv_num(v), b = json_number_value(j);
        return jg__jv_is_num(v) && !memcmp(&a, &b, sizeof a);
    }
    case JSON_TRUE: return v->type == JG_JV_TRUE;
    case JSON_FALSE: return v->type == JG_JV_FALSE;
    case JSON_NULL: return v->type == JG_JV_NULL;
    }
    return 0;
}

static long n_accept, n_refuse, n_left;   /* accepted; refused, jansson too; left to jansson */

/* One input of len bytes: 0 when the parser agrees with jansson. */
static int check(const char *text, size_t len)
{
    char *buf = malloc(len + 1);
    if (!buf) return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';   /* the sentinel the parser needs */
    jg__jdoc_t *d = NULL;
    jg_status_t st = jg__jdoc_parse(buf, len, &d);
    free(buf);   /* only read: the document keeps copies of its strings */
    buf = NULL;
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    int bad = 0;
    if (st == JG_OK) {
        n_accept++;
        bad = !j || !same(d, jg__jdoc_root(d), j, 0);
        jg__jdoc_free(d);
    } else {
        bad = st != JG_PARSE;
        if (j) n_left++;
        else n_refuse++;
    }
    json_decref(j);
    return bad;
}

static void test_cases(void)
{
    static const char *const t[] = {
        "{}", "[]", " \t\r\n{ } \n", "{'a':1}", "[1,2,3]", "[[],[[]],{}]", "{'a':{'b':{'c':[]}}}",
        "", " ", "{", "}", "[", "]", "{]", "[}", "{'a'}", "{'a':}", "{'a' 1}", "{,}", "[,]", "[1,]",
        "{'a':1,}", "[1 2]", "{'a':1 'b':2}", "{} {}", "{}x", "{}\n\n ", "[1]]", "1", "'s'", "null",
        "true", "[true,false,null]", "[tru]", "[truex]", "[nul]", "[null1]", "[True]", "[nan]",
        "[inf]", "[-inf]", "[NaN]",
        /* numbers */
        "[0]", "[-0]", "[-0.0]", "[0.0]", "[01]", "[-01]", "[00]", "[1.]", "[.5]", "[-.5]", "[1e]",
        "[1e+]", "[1e-]", "[1E5]", "[1e+5]", "[1e-5]", "[1.5e3]", "[-]", "[+1]", "[0x10]", "[1.5.2]",
        "[123456789012345678]", "[-123456789012345678]", "[1234567890123456789]",
        "[9223372036854775807]", "[9223372036854775808]", "[-9223372036854775808]",
        "[-9223372036854775809]", "[1e308]", "[1e309]", "[-1e309]", "[1e-400]", "[4.9e-324]",
        "[2.2250738585072014e-308]", "[9007199254740993]", "[9007199254740993.0]",
        "[0.1]", "[0.30000000000000004]", "[1.7976931348623157e308]", "[123456789012345678901234567890]",
        "[1.00000000000000000000000000001]", "[0.000000000000000000000000000000001]",
        "[1e22]", "[1e23]", "[9007199254740992e22]", "[12345678901234567890e-20]",
        /* strings */
        "['']", "['abc']", "['a\\\"b']", "['\\\\']", "['\\/']", "['\\b\\f\\n\\r\\t']", "['\\u0041']",
        "['\\u00e9']", "['\\u20ac']", "['\\ud83d\\ude00']", "['\\ud83d']", "['\\ude00']",
        "['\\ud83dx']", "['\\ud83d\\u0041']", "['\\u0000']", "['\\u00']", "['\\uzzzz']", "['\\x']",
        "['\\']", "['abc", "['a\tb']", "['a\nb']", "['\x7f']", "['\xc3\xa9']", "['\xe2\x82\xac']",
        "['\xf0\x9f\x98\x80']", "['\xc3']", "['\xc0\x80']", "['\xc1\xbf']", "['\xe0\x80\x80']",
        "['\xed\xa0\x80']", "['\xf4\x90\x80\x80']", "['\xf5\x80\x80\x80']", "['\x80']", "['\xff']",
        "\xef\xbb\xbf{}", "{'\xc3\xa9':1}", "{'':1}", "{'':1,'':2}",
        /* keys */
        "{'a':1,'a':2}", "{'a':1,'b':2,'a':3}", "{'ab':1,'a':2}", "{'a':{'a':{'a':1}}}",
        "{1:2}", "{'a':1,2:3}", "{'a\\u0062':1,'ab':2}",
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        const char *s = q(t[k]);
        if (check(s, strlen(s))) {
            printf("#   disagrees: %s\n", s);
            bad++;
        }
    }
    tap_ok(bad == 0, "%zu edge cases agree with jansson (%d disagree)", sizeof t / sizeof *t, bad);
    /* a NUL byte inside the text */
    static const char nul[][8] = {"[1\0]", "['a\0']", "{}\0", "[\0]"};
    static const size_t nl[] = {4, 6, 3, 3};
    bad = 0;
    for (int k = 0; k < 4; k++) bad += check(nul[k], nl[k]) != 0;
    tap_ok(bad == 0, "texts with a NUL byte agree with jansson (%d disagree)", bad);
}

static void test_nesting(void)
{
    char *s = malloc(2 * 2100 + 8);
    int bad = 0;
    for (int depth = 1990; depth <= 2060 && s; depth += 5) {
        for (int k = 0; k < depth; k++) s[k] = '[', s[depth + k] = ']';
        bad += check(s, 2 * (size_t)depth) != 0;
    }
    tap_ok(s && bad == 0, "nesting from 1990 to 2060 levels agrees with jansson (%d disagree)", bad);
    free(s);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_numbers(void)
{
    char text[64];
    int bad = 0;
    long n = 0;
    static const char *const fmt[] = {"[%.17g]", "[%.16g]", "[%.15g]", "[%.6g]", "[%.3e]", "[%.20e]",
                                      "[%.1f]", "[%.10f]"};
    for (int k = 0; k < 40000; k++) {
        uint64_t b = next();
        double x;
        switch (k % 4) {
        case 0: memcpy(&x, &b, sizeof x); break;                               /* any bit pattern */
        case 1: x = (double)(int64_t)(b >> (b % 60)) * ((b & 1) ? -1 : 1); break;   /* integers */
        case 2: x = (double)(b >> 11) / 9007199254740992.0 * 1000; break;      /* in [0, 1000) */
        default: x = ldexp((double)(b >> 11), (int)(b % 200) - 150); break;
        }
        if (!isfinite(x)) continue;
        snprintf(text, sizeof text, fmt[k % 8], x);
        if (strchr(text, 'n') || strchr(text, 'i')) continue;
        n++;
        if (check(text, strlen(text))) {
            if (bad < 5) printf("#   disagrees: %s\n", text);
            bad++;
        }
        if (k % 3 == 0) {   /* an integer of up to 19 digits */
            snprintf(text, sizeof text, "[%lld]", (long long)(next() >> (next() % 64)) * ((k & 1) ? -1 : 1));
            n++;
            if (check(text, strlen(text))) {
                if (bad < 5) printf("#   disagrees: %s\n", text);
                bad++;
            }
        }
    }
    tap_ok(bad == 0, "%ld numbers in 8 notations and as integers: bit for bit jansson's (%d disagree)",
           n, bad);
}

/* A generated model mutated at random: a byte replaced by one of JSON's own,
 * deleted, duplicated, or the text cut short. */
static void test_mutations(void)
{
    jg_gen_opts_t o;
    jg_gen_opts_default(&o, JG_GEN_AEROSPACE, 60, 3);
    char *doc = NULL;
    size_t len = 0;
    jg_error_t err;
    jg_status_t st = jg_gen_model(&o, &doc, &len, NULL, &err);
    tap_ok(!st && doc && check(doc, len) == 0, "a generated model is read as jansson reads it (%zu bytes)", len);
    if (st) return;
    static const char alphabet[] = "{}[]:,\"\\ \n0123456789.eE+-tfnulr\x80\xc3\xa9\xff\x01u";
    char *m = malloc(len + 8);
    int bad = 0;
    long before = n_accept + n_refuse + n_left;
    for (int k = 0; k < 6000 && m; k++) {
        memcpy(m, doc, len);
        size_t ml = len;
        int nmut = 1 + (int)(next() % 3);
        for (int r = 0; r < nmut; r++) {
            size_t at = (size_t)(next() % ml);
            switch (next() % 4) {
            case 0: m[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
            case 1: memmove(m + at, m + at + 1, ml - at - 1), ml--; break;
            case 2: memmove(m + at + 1, m + at, ml - at), ml++, r = nmut; break;   /* one growth */
            default: ml = at + 1; break;
            }
        }
        if (check(m, ml)) {
            if (bad < 3) printf("#   mutation %d disagrees\n", k);
            bad++;
        }
    }
    tap_ok(bad == 0, "6000 mutations of it agree with jansson (%d disagree; %ld inputs in all)", bad,
           n_accept + n_refuse + n_left - before);
    free(m);
    free(doc);
}

/* Objects past the hash threshold: every key found, a missing one not,
 * duplicates refused wherever they are. */
static void test_large_objects(void)
{
    int bad = 0;
    for (int n = 1; n <= 300; n += (n < 20 ? 1 : 37)) {
        char *s = malloc((size_t)n * 24 + 16);
        size_t o = 0;
        s[o++] = '{';
        for (int k = 0; k < n; k++) o += (size_t)sprintf(s + o, "%s\"k%d\":%d", k ? "," : "", k * 7, k);
        s[o++] = '}';
        bad += check(s, o) != 0;
        char *b = malloc(o + 1);
        memcpy(b, s, o);
        b[o] = '\0';
        jg__jdoc_t *d = NULL;
        jg_status_t pst = jg__jdoc_parse(b, o, &d);
        free(b);
        if (pst == JG_OK) {
            const jg__jv_t *r = jg__jdoc_root(d);
            char key[32];
            for (int k = 0; k < n; k++) {
                snprintf(key, sizeof key, "k%d", k * 7);
                bad += jg__jv_num(jg__jv_get(d, r, key)) != k;
            }
            bad += jg__jv_get(d, r, "k1") != NULL || jg__jv_get(d, r, "") != NULL;
            jg__jdoc_free(d);
        } else {
            bad++;
        }
        /* the last key again: a duplicate */
        o--;
        o += (size_t)sprintf(s + o, ",\"k%d\":0}", (n - 1) * 7);
        bad += check(s, o) != 0;
        free(s);
    }
    tap_ok(bad == 0, "objects of 1..300 members: lookups and duplicates (%d wrong)", bad);
}

/* Every JSON file of the tree: the shipped models, the tests' data, the
 * fuzzers' corpora and their regression inputs (hostile by design). */
static void test_files(void)
{
    static const char *const dirs[] = {"graphs", "tests/data", "tests/data/reliability",
                                       "tests/fuzz/corpus/model", "tests/fuzz/regress/model",
                                       "tests/fuzz/corpus/opfile", "examples"};
    int bad = 0, nfiles = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        DIR *dir = opendir(dirs[k]);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            if (e->d_name[0] == '.') continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name);
            size_t len = 0;
            char *text = tl_slurp(path, &len);
            if (!text) continue;   /* a directory */
            nfiles++;
            if (check(text, len)) {
                printf("#   disagrees: %s\n", path);
                bad++;
            }
            free(text);
        }
        if (dir) closedir(dir);
    }
    tap_ok(nfiles > 50 && bad == 0, "%d files of the tree agree with jansson (%d disagree)", nfiles, bad);
}

/* The reader's messages are jansson's, whoever parsed. */
static void test_messages(void)
{
    static const char *const t[] = {"{'blocks':[", "{'a':1,'a':2}", "{'blocks':[1e400]}",
                                    "{'blocks':[]} x", "{'b':'\\u0000'}", "[\n\n  {'a' 1}]"};
    int bad = 0;
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        const char *s = q(t[k]);
        json_error_t je;
        json_t *j = json_loadb(s, strlen(s), JSON_REJECT_DUPLICATES, &je);
        char want[512];
        snprintf(want, sizeof want, "<t>:%d:%d: %s", je.line, je.column, je.text);
        jg_model_t *m = NULL;
        jg_error_t err;
        jg_status_t st = jg_model_parse(s, "<t>", &m, &err);
        if (j || st != JG_PARSE || strcmp(err.msg, want)) {
            printf("#   got '%s', want '%s'\n", st ? err.msg : "ok", want);
            bad++;
        }
        json_decref(j);
        jg_model_free(m);
    }
    tap_ok(bad == 0, "parse errors carry jansson's file:line:col and text (%d differ)", bad);
    /* a document only jansson reads: the model is the same */
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_parse(q("{'name':'big','blocks':[],'workspace':{'k':1234567890123456789}}"),
                                    "<t>", &m, &err);
    tap_ok(!st && m && !strcmp(jg_model_name(m), "big"), "a document left to jansson is read");
    jg_model_free(m);
}

/* jg__view_file: a regular file mapped with a NUL after it whatever its
 * size (a page multiple included), the same bytes as jg__read_file, the
 * same errors for what it does not map; the parser needs the sentinel and
 * keeps nothing of the text; equal strings are stored once. */
static void test_view(void)
{
    char dir[256], path[300];
    if (!tl_tmpdir(dir, sizeof dir, "jparse")) {
        tap_ok(0, "temporary directory");
        return;
    }
    long pg = sysconf(_SC_PAGESIZE);
    size_t sizes[] = {0, 2, 3, (size_t)pg - 1, (size_t)pg, (size_t)pg + 1, 2 * (size_t)pg};
    int bad = 0;
    snprintf(path, sizeof path, "%s/v.json", dir);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        char *want = malloc(n + 1);
        memset(want, ' ', n);
        if (n >= 2) want[0] = '[', want[n - 1] = ']';
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(want, 1, n, f) != n || fclose(f)) bad++;
        const char *buf = NULL, *rbuf = NULL;
        char *rb = NULL;
        size_t len = 99, rlen = 0;
        int mapped = -1;
        jg_error_t err;
        jg_status_t st = jg__view_file(path, 0, &buf, &len, &mapped, &err);
        jg__read_file(path, 0, &rb, &rlen, &err);
        rbuf = rb;
        if (st || len != n || buf[len] != '\0' || memcmp(buf, want, n) || mapped != (n > 0) ||
            !rbuf || rlen != n || memcmp(rbuf, buf, n)) {
            printf("#   size %zu: st %d len %zu mapped %d\n", n, st, len, mapped);
            bad++;
        }
        jg__jdoc_t *d = NULL;
        if (!st && (jg__jdoc_parse(buf, len, &d) == JG_OK) != (n >= 2)) bad++;
        jg__jdoc_free(d);
        jg__view_free(buf, len, mapped);
        free(rb);
        free(want);
    }
    tap_ok(bad == 0, "files of 0..2 pages mapped with their NUL, as read (%d wrong)", bad);
    /* a model of exactly one page: the byte after it is an anonymous page's */
    FILE *f = fopen(path, "wb");
    char page[65536];
    size_t n = (size_t)pg <= sizeof page ? (size_t)pg : sizeof page;
    memset(page, ' ', n);
    const char *model = "{\"name\":\"v\",\"blocks\":[]}";
    memcpy(page, model, strlen(model));
    if (f) {
        fwrite(page, 1, n, f);
        fclose(f);
    }
    jg_model_t *m = NULL;
    jg_error_t err;
    tap_ok(jg_model_read(path, &m, &err) == JG_OK && !strcmp(jg_model_name(m), "v"),
           "a model of exactly one page is read");
    jg_model_free(m);
    /* what it does not map: the errors (and errno) of jg__read_file */
    const char *buf = NULL;
    size_t len = 0;
    int mapped = 0;
    char e1[JG_ERROR_MSG_MAX], e2[JG_ERROR_MSG_MAX];
    int x1, x2;
    jg_status_t s1 = jg__view_file(path, 10, &buf, &len, &mapped, &err);
    x1 = errno;
    snprintf(e1, sizeof e1, "%s", err.msg);
    char *rb = NULL;
    jg_status_t s2 = jg__read_file(path, 10, &rb, &len, &err);
    x2 = errno;
    snprintf(e2, sizeof e2, "%s", err.msg);
    tap_ok(s1 == JG_IO && s2 == JG_IO && !buf && !strcmp(e1, e2) && x1 == EFBIG && x2 == EFBIG,
           "beyond the byte limit: %s", e1);
    s1 = jg__view_file(dir, 0, &buf, &len, &mapped, &err);
    x1 = errno;
    snprintf(e1, sizeof e1, "%s", err.msg);
    s2 = jg__read_file(dir, 0, &rb, &len, &err);
    x2 = errno;
    tap_ok(s1 == JG_IO && s2 == JG_IO && !buf && !strcmp(e1, err.msg) && x1 == x2,
           "a directory: %s", e1);
    snprintf(path, sizeof path, "%s/missing.json", dir);
    s1 = jg__view_file(path, 0, &buf, &len, &mapped, &err);
    tap_ok(s1 == JG_IO && !buf && errno == ENOENT, "a missing file: %s", err.msg);
    tap_ok(jg__view_file("/dev/null", 0, &buf, &len, &mapped, &err) == JG_OK && len == 0 &&
               !mapped && buf && !buf[0],
           "a device is read, not mapped");
    jg__view_free(buf, len, mapped);
    /* the sentinel: without it the parser refuses (and jansson reads it) */
    char t[8] = "[1,2]xx";
    jg__jdoc_t *d = NULL;
    tap_ok(jg__jdoc_parse(t, 5, &d) == JG_PARSE && !d, "no NUL after the text: refused");
    t[5] = '\0';
    /* equal strings: one copy, and the text can go */
    char *u = strdup(q("{'a':'Gain','b':['Gain','Sum'],'Gain':'Gain'}"));
    jg_status_t pst = jg__jdoc_parse(u, strlen(u), &d);
    memset(u, 'x', strlen(u));
    free(u);
    const jg__jv_t *r = jg__jdoc_root(d);
    const char *a = jg__jv_str(jg__jv_get(d, r, "a"));
    tap_ok(!pst && a && !strcmp(a, "Gain") && a == jg__jv_str(jg__jv_at(jg__jv_get(d, r, "b"), 0)) &&
               a == jg__jv_str(jg__jv_get(d, r, "Gain")) &&
               !strcmp(jg__jv_str(jg__jv_at(jg__jv_get(d, r, "b"), 1)), "Sum"),
           "equal strings are one copy, independent of the text");
    jg__jdoc_free(d);
    snprintf(path, sizeof path, "%s/v.json", dir);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    test_view();
    test_cases();
    test_nesting();
    test_numbers();
    test_mutations();
    test_large_objects();
    test_files();
    test_messages();
    printf("# %ld accepted, %ld refused by both, %ld left to jansson\n", n_accept, n_refuse, n_left);
    tap_ok(n_accept > 1000 && n_left < n_accept / 20, "jansson is the exception (%ld of %ld read by it)",
           n_left, n_accept + n_left);
    return tap_done();
}
