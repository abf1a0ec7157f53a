/* test_model_jparse_par.c -- the two-thread parse of lib/model (jparse.c)
 * against the one-thread parse: on generated models and random documents,
 * split at every offset (forced on small texts), the two documents are equal
 * node by node (types, member and element order, key indexes and key
 * tables, strings byte for byte, numbers bit for bit, objects' hash
 * indexes), whether the split was vouched for (and merged, with or without
 * its keys renumbered) or not (inside a string, at an object member);
 * malformed texts get the one-thread status.  (The parse's time:
 * benchmarks/bench_scale, its parse stage.) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/gen.h"
#include "model/model_internal.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) { return tl_xorshift(&rng); }

/* a and b (of documents da, db) equal: the same tree, key indexes and all */
static int same(const jg__jdoc_t *da, const jg__jv_t *a, const jg__jdoc_t *db, const jg__jv_t *b,
                int depth)
{
    if (depth > 3000 || a->type != b->type || a->key != b->key || a->n != b->n) return 0;
    switch (a->type) {
    case JG_JV_NUM: return !memcmp(&a->u.num, &b->u.num, sizeof a->u.num);
    case JG_JV_STR: return !memcmp(a->u.str, b->u.str, a->n) && !a->u.str[a->n] && !b->u.str[b->n];
    case JG_JV_ARR:
        for (uint32_t i = 0; i < a->n; i++)
            if (!same(da, &a->u.item[i], db, &b->u.item[i], depth + 1)) return 0;
        return 1;
    case JG_JV_OBJ:
        for (uint32_t i = 0; i < a->n; i++) {
            if (!same(da, &a->u.mem[i], db, &b->u.mem[i], depth + 1)) return 0;
            /* the hash index finds every member */
            if (jg__jv_get_key(b, b->u.mem[i].key) != &b->u.mem[i]) return 0;
            if (jg__jv_get(db, b, jg__jdoc_keytext(db, b->u.mem[i].key)) != &b->u.mem[i]) return 0;
        }
        return 1;
    default: return 1;
    }
}

static int same_doc(const jg__jdoc_t *a, const jg__jdoc_t *b)
{
    if (a->nkeys != b->nkeys) return 0;
    for (uint32_t k = 1; k <= a->nkeys; k++)
        if (strcmp(a->keyv[k], b->keyv[k]) || jg__jdoc_key(b, a->keyv[k]) != k) return 0;
    return same(a, a->root, b, b->root, 0);
}

static const jg__jparse_tune_t one = {0, 0, 0, 0};

/* The settings the next tparse passes (NULL: the library's defaults) and
 * what it did: the test's stand-ins for jg__jdoc_parse_ex's arguments. */
static const jg__jparse_tune_t *cur_tune;
static jg__jparse_tune_t cur_tune_v;
static jg__jparse_stats_t cur_stats;

static void set_tune(const jg__jparse_tune_t *t)
{
    if (t) cur_tune_v = *t;
    cur_tune = t ? &cur_tune_v : NULL;
}

static jg_status_t tparse(const char *buf, size_t len, jg__jdoc_t **out)
{
    return jg__jdoc_parse_ex(buf, len, cur_tune, &cur_stats, out);
}

static long n_merged, n_remapped, n_refused, n_split;

/* buf[0..len) (NUL after it) split from offset at (seed: the first
 * thread's bytes before the second starts) against the one-thread parse
 * ref (status rst): 0 equal. */
static int split_same(const char *buf, size_t len, jg_status_t rst, const jg__jdoc_t *ref, size_t at,
                      size_t seed)
{
    jg__jparse_tune_t t = {1, seed, at, 1};
    set_tune(&t);
    jg__jdoc_t *d = NULL;
    jg_status_t st = tparse(buf, len, &d);
    jg__jparse_stats_t s = cur_stats;
    set_tune(&one);
    n_split += s.split;
    n_merged += s.merged;
    n_remapped += s.remapped;
    int ok = st == rst && (st ? !d : d && same_doc(ref, d));
    jg__jdoc_free(d);
    return ok ? 0 : -1;
}

/* Every split offset of text (a model or random document), seeds first
 * thing and late; bad: the offsets where the documents differ. */
static int every_split(const char *text, size_t len, size_t step)
{
    set_tune(&one);
    jg__jdoc_t *ref = NULL;
    jg_status_t rst = tparse(text, len, &ref);
    if (rst) n_refused++;
    int bad = 0;
    for (size_t at = 1; at < len; at += step) {
        if (split_same(text, len, rst, ref, at, 1)) bad++;
        if (at % 7 == 0 && split_same(text, len, rst, ref, at, at / 2 + 1)) bad++;
    }
    jg__jdoc_free(ref);
    return bad;
}

/* Random JSON: strings with brackets, commas, quotes and escapes inside
 * (where a scan for an element boundary is fooled), nested arrays and
 * objects, keys old and new (a late key: renumbered keys), numbers. */
static void rnd_string(char **o)
{
    static const char *bits[] = {"},{", "],[", "\\\"", "\\\\", ",{", ",[", "\\u00e9", "\\ud83d\\ude00",
                                 "x", "\\n", "é", ", {\"a\":1}", "abcdefghijklm", "}", "]"};
    *(*o)++ = '"';
    int n = (int)(next() % 5);
    for (int i = 0; i < n; i++) {
        const char *b = bits[next() % (sizeof bits / sizeof *bits)];
        size_t l = strlen(b);
        memcpy(*o, b, l);
        *o += l;
    }
    *(*o)++ = '"';
}

static void rnd_value(char **o, int depth)
{
    static const char *keys[] = {"a", "name", "type", "blocks", "lines", "k\\\"q", "Gain", "late"};
    int r = (int)(next() % (depth > 6 ? 4 : 7));
    switch (r) {
    case 0: *o += sprintf(*o, "%d", (int)(next() % 2000) - 1000); break;
    case 1: *o += sprintf(*o, "%.17g", (double)(int64_t)next() / 3e15); break;
    case 2: rnd_string(o); break;
    case 3: *o += sprintf(*o, "%s", next() % 3 == 0 ? "true" : next() % 2 ? "null" : "false"); break;
    case 4:
    case 5: {
        int n = (int)(next() % 6);
        *(*o)++ = '[';
        for (int i = 0; i < n; i++) {
            if (i) *o += sprintf(*o, next() % 2 ? "," : " ,\n ");
            rnd_value(o, depth + 1);
        }
        *(*o)++ = ']';
        break;
    }
    default: {
        /* distinct keys, a few more than the hash index' threshold at times */
        int n = (int)(next() % (next() % 8 == 0 ? 20 : 5)), used = 0;
        *(*o)++ = '{';
        for (int i = 0; i < n; i++) {
            int k = (int)(next() % 8);
            char kb[32];
            if (used >> k & 1 || i >= 8) snprintf(kb, sizeof kb, "m%d", i);
            else snprintf(kb, sizeof kb, "%s", keys[k]), used |= 1 << k;
            *o += sprintf(*o, "%s\"%s\" : ", i ? "," : "", kb);
            rnd_value(o, depth + 1);
        }
        *(*o)++ = '}';
    }
    }
}

static char *rnd_doc(size_t *len)
{
    char *buf = malloc(1 << 22), *o = buf;
    if (!buf) return NULL;
    o += sprintf(o, "{\"name\":\"r\",\"blocks\":[");
    int n = 3 + (int)(next() % 12);
    for (int i = 0; i < n && o - buf < (1 << 21); i++) {
        if (i) *o++ = ',';
        if (next() % 3 == 0) *o++ = ' ';
        rnd_value(&o, 3);
    }
    o += sprintf(o, "],\"lines\":[[1,[2,{\"late\":[3]}]],{\"x\":\"},{\"}]}\n");
    *len = (size_t)(o - buf);
    return buf;
}

static void test_models(void)
{
    static const jg_gen_kind_t kinds[] = {JG_GEN_AEROSPACE, JG_GEN_POWER, JG_GEN_DEEP};
    for (int k = 0; k < 3; k++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, kinds[k], 40, 2);
        char *doc = NULL;
        size_t len = 0;
        jg_error_t err;
        if (jg_gen_model(&o, &doc, &len, NULL, &err)) {
            tap_ok(0, "generate %s", jg_gen_kind_name(kinds[k]));
            continue;
        }
        long m0 = n_merged;
        int bad = every_split(doc, len, 1);
        tap_ok(!bad && n_merged > m0, "%s model (%zu bytes) split at every offset: the same document (%ld merged)",
               jg_gen_kind_name(kinds[k]), len, n_merged - m0);
        free(doc);
    }
}

static void test_random(void)
{
    int bad = 0;
    long m0 = n_merged, s0 = n_split, r0 = n_remapped;
    for (int k = 0; k < 60; k++) {
        size_t len;
        char *doc = rnd_doc(&len);
        if (!doc) continue;
        bad += every_split(doc, len, len > 4000 ? 3 : 1);
        free(doc);
    }
    tap_ok(!bad, "random documents split at every offset: the same document (%d differ)", bad);
    tap_ok(n_merged - m0 > 1000 && n_split - s0 > n_merged - m0,
           "splits vouched for and merged (%ld) and not (%ld)", n_merged - m0, n_split - s0 - (n_merged - m0));
    tap_ok(n_remapped - r0 > 100, "merges with the part's keys renumbered (%ld)", n_remapped - r0);
}

/* Malformed texts and texts left to jansson: the one-thread status at
 * every split. */
static void test_malformed(void)
{
    static const char alphabet[] = "{}[]:,\"\\ \n0123456789.eE+-tfnul\x80\xc3\xff\x01";
    int bad = 0;
    long r0 = n_refused;
    for (int k = 0; k < 150; k++) {
        size_t len;
        char *doc = rnd_doc(&len);
        if (!doc) continue;
        int nmut = 1 + (int)(next() % 2);
        for (int r = 0; r < nmut; r++) {
            size_t at = (size_t)(next() % len);
            int op = (int)(next() % 4);
            if (op == 0) doc[at] = alphabet[next() % (sizeof alphabet - 1)];
            else if (op == 1) memmove(doc + at, doc + at + 1, len - at), len--;
            else if (op == 2) memmove(doc + at + 1, doc + at, len - at + 1), len++;
            else len = at, doc[len] = '\0';
        }
        doc[len] = '\0';
        bad += every_split(doc, len, 2);
        free(doc);
    }
    /* nesting: MAX_DEPTH across the two parts */
    for (int depth = 1990; depth <= 2010; depth += 5) {
        char *doc = malloc(3 * (size_t)depth + 64), *o = doc;
        if (!doc) continue;
        for (int i = 0; i < depth - 2; i++) *o++ = '[';
        o += sprintf(o, "[1],[2],[[[[[3]]]]]");
        for (int i = 0; i < depth - 2; i++) *o++ = ']';
        *o = '\0';
        bad += every_split(doc, (size_t)(o - doc), 1);
        free(doc);
    }
    /* duplicate keys across the split, a NUL inside, trailing text */
    static const char *hand[] = {
        "{\"a\":[1,2,{\"b\":1},{\"c\":2}],\"a\":3}",
        "{\"b\":[{\"x\":1},{\"y\":2}],\"c\":1,\"b\":2}",
        "{\"b\":[{\"x\":1},{\"y\":2}],\"c\":1} x",
        "[[1],[2],[3]]]",
        "[[1],[2],[3]",
        "{\"a\":[[1],[2]],\"b\" [3]}",
        "[[1],[2],\"a\":3]",
        "{\"a\":[[1],[2]],\"b\":{\"c\":[[3],[4]],\"c\":1}}",
    };
    for (size_t h = 0; h < sizeof hand / sizeof *hand; h++) bad += every_split(hand[h], strlen(hand[h]), 1);
    const char nul[] = "[[1],[2],[3]]\0 ";
    bad += every_split(nul, sizeof nul - 1, 1);
    tap_ok(!bad && n_refused - r0 > 100, "malformed texts: the one-thread status at every split (%ld refused, %d differ)",
           n_refused - r0, bad);
}

/* A split guessed inside a string (",{" in it) is not vouched for: the
 * first thread reads on alone; the next boundary is merged. */
static void test_string_split(void)
{
    const char *t = "[[0],{\"a\":\"x, {\\\"b\\\":[1]}\"},{\"c\":[2,{\"d\":3}]}]";
    size_t len = strlen(t), in = (size_t)(strchr(t, 'x') - t), out = (size_t)(strstr(t, "},{") - t);
    set_tune(&one);
    jg__jdoc_t *ref = NULL, *d = NULL;
    jg_status_t rst = tparse(t, len, &ref);
    jg__jparse_tune_t k = {1, 1, in, 1};
    set_tune(&k);
    jg_status_t st = tparse(t, len, &d);
    jg__jparse_stats_t s = cur_stats;
    tap_ok(!rst && !st && s.split && !s.merged && same_doc(ref, d),
           "split inside a string: tried (%d), not merged (%d), the same document", s.split, s.merged);
    jg__jdoc_free(d);
    d = NULL;
    k.split_at = out;
    set_tune(&k);
    st = tparse(t, len, &d);
    s = cur_stats;
    tap_ok(!st && s.split && s.merged && same_doc(ref, d), "split at the element after it: merged, the same document");
    set_tune(&one);
    jg__jdoc_free(ref);
    jg__jdoc_free(d);
}

/* The default settings on a text above the threshold (a generated model of
 * some 9 MB): the same document, split when two cores are usable. */
static void test_default(void)
{
    jg_gen_opts_t o;
    jg_gen_opts_default(&o, JG_GEN_AEROSPACE, 90000, 5);
    char *doc = NULL;
    size_t len = 0;
    jg_error_t err;
    if (jg_gen_model(&o, &doc, &len, NULL, &err)) {
        tap_ok(0, "generate a large model");
        return;
    }
    set_tune(&one);
    jg__jdoc_t *ref = NULL, *d = NULL;
    jg_status_t rst = tparse(doc, len, &ref);
    set_tune(NULL);
    jg_status_t st = tparse(doc, len, &d);
    jg__jparse_stats_t s = cur_stats;
    tap_ok(!rst && !st && same_doc(ref, d) && (len < (8u << 20) || s.merged || !s.split),
           "a %zu-byte model with the defaults: the same document (split %d, merged %d, remapped %d, merge %.2f ms)",
           len, s.split, s.merged, s.remapped, 1e3 * s.merge_s);
    jg__jparse_tune_t t = {1, 0, 0, 1};
    set_tune(&t);
    jg__jdoc_free(d);
    d = NULL;
    st = tparse(doc, len, &d);
    s = cur_stats;
    tap_ok(!st && s.merged && same_doc(ref, d), "forced, split in the middle: merged, the same document");
    set_tune(NULL);
    jg__jdoc_free(ref);
    jg__jdoc_free(d);
    free(doc);
}

int main(void)
{
    test_models();
    test_random();
    test_malformed();
    test_string_split();
    test_default();
    return tap_done();
}
