/* test_compile_scale.c -- what the compiler does to stay fast and small on
 * large models, checked against the plain path and against hand-worked
 * results: jg_program_compile_free_model (the model freed once the lines are
 * read) gives the program jg_program_compile gives, and the same errors; the
 * path table built after flattening reports the first duplicate path in
 * block order, as one built block by block did, also when an unknown block
 * type follows or precedes it; lines find their blocks in large systems (a
 * table per system) and small ones (a scan); the sorted order when the
 * feedthrough graph has no cycle (one block per component, no SCC computed)
 * and with priorities, drivers after their readers, and loops (the SCC
 * path); the line ends of a large model resolved beside the blocks' setup
 * (the same program, the same messages); the document's keys (one index per distinct key, compared
 * instead of the key text); and the blocks' hybrid fields, kept apart only
 * for the blocks that have them (jg_block_nd() and the other accessors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/gen.h"
#include "model/model_internal.h"
#include "compile/program_impl.h"
#include "testlib.h"

/* Parse and compile JSON (' for "), the model kept (*m) or given away. */
static jg_status_t compile(const char *json, int give, jg_program_t **p, jg_error_t *err)
{
    jg_model_t *m = NULL;
    *p = NULL;
    jg_status_t st = jg_model_parse(q(json), "<t>", &m, err);
    if (st) return st;
    if (give) return jg_program_compile_free_model(m, p, err);
    st = jg_program_compile(m, p, err);
    jg_model_free(m);
    return st;
}

/* The same for a text too long for q(): its quotes turned in place. */
static jg_status_t compile_long(char *json, int give, jg_program_t **p, jg_error_t *err)
{
    for (char *c = json; *c; c++)
        if (*c == '\'') *c = '"';
    jg_model_t *m = NULL;
    *p = NULL;
    jg_status_t st = jg_model_parse(json, "<t>", &m, err);
    if (st) return st;
    if (give) return jg_program_compile_free_model(m, p, err);
    st = jg_program_compile(m, p, err);
    jg_model_free(m);
    return st;
}

/* 1 when a and b are the same program, as far as the public accessors tell. */
static int same_program(const jg_program_t *a, const jg_program_t *b)
{
    if (jg_program_nblocks(a) != jg_program_nblocks(b) || jg_program_nstates(a) != jg_program_nstates(b) ||
        jg_program_nloops(a) != jg_program_nloops(b) || jg_program_nwarnings(a) != jg_program_nwarnings(b))
        return 0;
    for (int32_t k = 0; k < jg_program_nblocks(a); k++) {
        int ia, oa, ib, ob;
        jg_program_block_nports(a, k, &ia, &oa);
        jg_program_block_nports(b, k, &ib, &ob);
        if (strcmp(jg_program_block_path(a, k), jg_program_block_path(b, k)) ||
            strcmp(jg_program_block_type(a, k), jg_program_block_type(b, k)) || ia != ib || oa != ob ||
            jg_program_block_nstates(a, k) != jg_program_block_nstates(b, k) ||
            jg_program_block_loop(a, k) != jg_program_block_loop(b, k) ||
            jg_program_find_block(b, jg_program_block_path(a, k)) != k)
            return 0;
    }
    int32_t na, nb;
    const int32_t *sa = jg_program_sorted(a, &na), *sb = jg_program_sorted(b, &nb);
    if (na != nb || memcmp(sa, sb, sizeof *sa * (size_t)na)) return 0;
    for (int k = 0; k < jg_program_nloops(a); k++)
        if (strcmp(jg_program_loop_names(a, k), jg_program_loop_names(b, k))) return 0;
    for (int k = 0; k < jg_program_nwarnings(a); k++)
        if (strcmp(jg_program_warning(a, k), jg_program_warning(b, k))) return 0;
    return 1;
}

/* Generated models (SubSystems, routing, loops in the power kind): the model
 * given away compiles to the program the kept one does. */
static void test_free_model(void)
{
    static const jg_gen_kind_t kinds[] = {JG_GEN_AEROSPACE, JG_GEN_POWER, JG_GEN_DEEP};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, kinds[k], 3000, 7);
        char *json = NULL;
        jg_error_t err;
        jg_model_t *m1 = NULL, *m2 = NULL;
        jg_program_t *p1 = NULL, *p2 = NULL;
        jg_status_t st = jg_gen_model(&o, &json, NULL, NULL, &err);
        if (!st) st = jg_model_parse(json, "gen", &m1, &err);
        if (!st) st = jg_model_parse(json, "gen", &m2, &err);
        if (!st) st = jg_program_compile(m1, &p1, &err);
        jg_status_t st2 = st ? st : jg_program_compile_free_model(m2, &p2, &err);
        if (st) jg_model_free(m2);
        tap_ok(!st && !st2 && same_program(p1, p2), "%s: the model given away compiles to the same program",
               jg_gen_kind_name(kinds[k]));
        if (kinds[k] == JG_GEN_POWER) tap_ok(p2 && jg_program_nloops(p2) > 0, "power: it has algebraic loops");
        jg_program_free(p1);
        jg_program_free(p2);
        jg_model_free(m1);
        free(json);
    }
    /* errors: the same message, and the model is freed (the leak checker's word) */
    static const char *const bad[] = {
        "{'blocks':[{'name':'G','type':'Gain','Gian':2}]}",   /* setup, before the model goes */
        "{'blocks':[{'name':'C','type':'Constant','Value':[1,2]},{'name':'G','type':'Gain','Gain':[1,2,3]}],"
        "'lines':[{'src':'C:1','dst':'G:1'}]}",                /* widths, after it went */
        "{'blocks':[{'name':'G','type':'Gain'}],'lines':[{'src':'H:1','dst':'G:1'}]}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        jg_error_t e1, e2;
        jg_program_t *p1, *p2;
        jg_status_t s1 = compile(bad[k], 0, &p1, &e1), s2 = compile(bad[k], 1, &p2, &e2);
        tap_ok(s1 && s1 == s2 && !p1 && !p2, "error %zu: the same status, no program", k + 1);
        tap_streq(s2 ? e2.msg : "", s1 ? e1.msg : "-", "and the same message");
    }
}

/* The first block (in depth-first order) whose path an earlier block has is
 * the one named, whatever other duplicates or errors follow it. */
static void test_duplicates(void)
{
    static const struct {
        const char *json, *msg;
    } t[] = {
        {"{'blocks':[{'name':'A','type':'Gain'},{'name':'S','type':'SubSystem','blocks':["
         "{'name':'x','type':'Gain'},{'name':'x','type':'Gain'}]},{'name':'A','type':'Gain'}]}",
         "block 'S/x': duplicate block name in system 'S'"},
        {"{'blocks':[{'name':'A','type':'Gain'},{'name':'A','type':'Gain'},{'name':'B','type':'Gain'},"
         "{'name':'B','type':'Gain'}]}",
         "block 'A': duplicate block name in system '<root>'"},
        {"{'blocks':[{'name':'G','type':'Gain'},{'name':'G','type':'Gain'},{'name':'Z','type':'Nope'}]}",
         "block 'G': duplicate block name in system '<root>'"},
        {"{'blocks':[{'name':'S/','type':'SubSystem','blocks':[{'name':'x','type':'Gain'}]},"
         "{'name':'S','type':'SubSystem','blocks':[{'name':'/x','type':'Gain'}]}]}",
         "block 'x' of system 'S//' and block '/x' of system 'S' have the same path 'S///x' (a name "
         "starts or ends with '/'): rename one"},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        jg_error_t err;
        jg_program_t *p;
        jg_status_t st = compile(t[k].json, k & 1, &p, &err);
        tap_ok(st == JG_MODEL && !p, "duplicate %zu: JG_MODEL", k + 1);
        tap_streq(st ? err.msg : "", t[k].msg, "the first duplicate is named");
    }
    jg_error_t err;
    jg_program_t *p;
    jg_status_t st = compile("{'blocks':[{'name':'Z','type':'Nope'},{'name':'G','type':'Gain'},"
                             "{'name':'G','type':'Gain'}]}", 0, &p, &err);
    static const char want[] = "block 'Z': unknown block type 'Nope'; known types: ";
    tap_ok(st == JG_MODEL && !strncmp(err.msg, want, sizeof want - 1),
           "an unknown type before a duplicate is the error: %s", st ? err.msg : "");
}

/* A chain C -> G1 -> ... -> Gn -> O at the root, "a/b" (a '/' in its name)
 * in the middle, and the last line's destination `last`. */
static char *chain(int n, const char *last)
{
    size_t cap = 256 + 120 * (size_t)n, k = 0;
    char *s = malloc(cap);
    k += (size_t)snprintf(s + k, cap - k, "{'blocks':[{'name':'C','type':'Constant','Value':1},"
                                          "{'name':'a/b','type':'Gain','Gain':2}");
    for (int i = 1; i <= n; i++) k += (size_t)snprintf(s + k, cap - k, ",{'name':'G%d','type':'Gain','Gain':1}", i);
    k += (size_t)snprintf(s + k, cap - k, ",{'name':'O','type':'Outport','Port':1}],'lines':["
                                          "{'src':'C:1','dst':'a/b:1'},{'src':'a/b:1','dst':'G1:1'}");
    for (int i = 1; i < n; i++) k += (size_t)snprintf(s + k, cap - k, ",{'src':'G%d:1','dst':'G%d:1'}", i, i + 1);
    snprintf(s + k, cap - k, ",{'src':'G%d:1','dst':'%s'}]}", n, last);
    return s;
}

static void test_lines(void)
{
    for (int n = 3; n <= 60; n += 57) {   /* a scan, then a table (more than 16 blocks) */
        char *json = chain(n, "O:1"), out[64], last[64];
        jg_error_t err;
        jg_program_t *p;
        jg_status_t st = compile(json, 1, &p, &err);
        snprintf(last, sizeof last, "G%d O", n);
        const char *s = st ? "" : tl_sorted(p);
        tap_ok(!st && !strncmp(s, "C a//b G1 G2 G3", 15) && strlen(s) > strlen(last) &&
                   !strcmp(s + strlen(s) - strlen(last), last),
               "%d gains in one system: connected in order (%.40s...)", n, s);
        jg_program_free(p);
        free(json);
        snprintf(out, sizeof out, "G%d:1", n + 1);
        json = chain(n, out);
        st = compile(json, 0, &p, &err);
        char msg[160];
        snprintf(msg, sizeof msg, "system '<root>': line destination \"G%d:1\": no block named 'G%d' here", n + 1,
                 n + 1);
        tap_streq(st ? err.msg : "", msg, "a line to a block the system does not have");
        free(json);
    }
    /* a line names a block of its own system only: x is inside S */
    jg_error_t err;
    jg_program_t *p;
    jg_status_t st = compile("{'blocks':[{'name':'S','type':'SubSystem','blocks':[{'name':'x','type':'Gain'}]},"
                             "{'name':'G','type':'Gain'}],'lines':[{'src':'x:1','dst':'G:1'}]}",
                             1, &p, &err);
    tap_streq(st ? err.msg : "", "system '<root>': line source \"x:1\": no block named 'x' here",
              "a block of an inner system is not found from outside");
}

/* 60,000 blocks: the line ends are resolved on a thread of their own while
 * the blocks are set up (on two cores or more); the same program and the
 * same messages as the plain path. */
static void test_lines_threaded(void)
{
    const int n = 60000;
    static const struct {
        const char *last, *msg;
    } bad[] = {
        {"G60001:1", "system '<root>': line destination \"G60001:1\": no block named 'G60001' here"},
        {"O:2", "system '<root>': line destination \"O:2\": block 'O' (Outport) has 1 input port"},
        {"O:x", "system '<root>': bad port reference \"O:x\": expected \"BLOCK:N\" with N >= 1"},
        {"G5:1", "input 1 of block 'G5' has two drivers: 'G4:1' and 'G60000:1'"},
    };
    char *json = chain(n, "O:1");
    jg_error_t err;
    jg_program_t *p;
    jg_status_t st = compile_long(json, 1, &p, &err);
    int32_t no = 0;
    const int32_t *o = st ? NULL : jg_program_sorted(p, &no);
    int inorder = o && no == n + 3 && !strcmp(jg_program_block_path(p, o[0]), "C") &&
                  !strcmp(jg_program_block_path(p, o[1]), "a//b") &&
                  !strcmp(jg_program_block_path(p, o[n + 2]), "O");
    int32_t *id = calloc((size_t)n + 2, sizeof *id);   /* G1..Gn's block ids */
    for (int32_t b = 0; inorder && b < jg_program_nblocks(p); b++) {
        const char *path = jg_program_block_path(p, b);
        if (path[0] == 'G') id[atoi(path + 1)] = b;
    }
    for (int i = 2; inorder && i <= n; i++)   /* each gain driven by the one before */
        inorder = p->in_drv[jg__inport(p, id[i], 0)] == jg__outport(p, id[i - 1], 0);
    free(id);
    tap_ok(inorder, "%d gains in one system: connected in order: %s", n, st ? err.msg : "");
    jg_program_free(p);
    free(json);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        json = chain(n, bad[k].last);
        st = compile_long(json, (int)(k % 2), &p, &err);
        char what[64];
        snprintf(what, sizeof what, "%d gains, the last line to %s", n, bad[k].last);
        tap_streq(st ? err.msg : "", bad[k].msg, what);
        if (!st) jg_program_free(p);
        free(json);
    }
}

/* s with its first `from` replaced by `to` (malloc'd; s freed). */
static char *replace1(char *s, const char *from, const char *to)
{
    char *at = strstr(s, from);
    if (!at) return s;
    size_t n = strlen(s), nf = strlen(from), nt = strlen(to);
    char *r = malloc(n - nf + nt + 1);
    memcpy(r, s, (size_t)(at - s));
    memcpy(r + (at - s), to, nt);
    strcpy(r + (at - s) + nt, at + nf);
    free(s);
    return r;
}

/* 60,000 blocks: the path index is built on a thread of its own while the
 * passes after the lines run (on two cores or more); a path twice is still
 * the error, before any error of the passes after flatten, as when the index
 * came right after it; a flatten error still comes before it. */
static void test_index_threaded(void)
{
    const int n = 60000;
    static const char dup_msg[] = "block 'G9': duplicate block name in system '<root>'",
                      width_msg[] = "block 'G5' (Gain), parameter 'Gain': Matrix(K*u) with K of size "
                                    "2x2 needs an input of width 2, got 1";
    static const struct {
        int dup, width;
        const char *last, *msg;
    } t[] = {
        {1, 0, "O:1", dup_msg},                 /* the index's own error, at its end */
        {1, 1, "O:1", dup_msg},                 /* and a width error while it runs */
        {0, 1, "O:1", width_msg},               /* the width error alone */
        {1, 0, "G60001:1", dup_msg},            /* and a line error before it starts */
        {1, 0, "O:1", "block 'Z': unknown block type 'Nope'; known types: "},   /* flatten's */
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        char *json = chain(n, t[k].last);
        if (t[k].dup)
            json = replace1(json, "{'name':'G9','type':'Gain','Gain':1}",
                            "{'name':'G9','type':'Gain','Gain':1},{'name':'G9','type':'Gain','Gain':1}");
        if (t[k].width)
            json = replace1(json, "{'name':'G5','type':'Gain','Gain':1}",
                            "{'name':'G5','type':'Gain','Gain':[[1,2],[3,4]],'Multiplication':'Matrix(K*u)'}");
        if (k == 4)
            json = replace1(json, "{'name':'G2','type':'Gain','Gain':1}", "{'name':'Z','type':'Nope'}");
        jg_error_t err;
        jg_program_t *p;
        jg_status_t st = compile_long(json, (int)(k % 2), &p, &err);
        char what[96];
        snprintf(what, sizeof what, "%d gains%s%s, the last line to %s", n, t[k].dup ? ", G9 twice" : "",
                 t[k].width ? ", a width error" : "", t[k].last);
        tap_ok(st && !p && !strncmp(err.msg, t[k].msg, strlen(t[k].msg)), "%s: %s", what, st ? err.msg : "ok");
        jg_program_free(p);
        free(json);
    }
    /* no error: the index the thread built finds every block */
    char *json = chain(n, "O:1");
    jg_error_t err;
    jg_program_t *p;
    jg_status_t st = compile_long(json, 1, &p, &err);
    int found = !st;
    for (int32_t b = 0; found && b < jg_program_nblocks(p); b++)
        found = jg_program_find_block(p, jg_program_block_path(p, b)) == b;
    tap_ok(found && !st && jg_program_find_block(p, "G60001") < 0,
           "%d gains: the path index finds every block by its path, and no other (%s)", n,
           st ? err.msg : "ok");
    jg_program_free(p);
    free(json);
}

static void test_order(void)
{
    static const struct {
        const char *json, *order, *what;
        int nloops;
    } t[] = {
        {"{'blocks':[{'name':'C','type':'Constant'},{'name':'A','type':'Gain'},{'name':'D','type':'Constant'},"
         "{'name':'B','type':'Gain'}],'lines':[{'src':'C:1','dst':'A:1'},{'src':'D:1','dst':'B:1'}]}",
         "C A D B", "file order where the data allow", 0},
        {"{'blocks':[{'name':'C','type':'Constant'},{'name':'A','type':'Gain','Priority':2},"
         "{'name':'D','type':'Constant'},{'name':'B','type':'Gain','Priority':1}],"
         "'lines':[{'src':'C:1','dst':'A:1'},{'src':'D:1','dst':'B:1'}]}",
         "C D B A", "lower priority first among the ready blocks", 0},
        {"{'blocks':[{'name':'A','type':'Gain'},{'name':'B','type':'Constant'},{'name':'C','type':'Constant'}],"
         "'lines':[{'src':'C:1','dst':'A:1'}]}",
         "B C A", "a reader before its driver waits for it", 0},
        {"{'blocks':[{'name':'A','type':'Gain'},{'name':'E','type':'Gain'},{'name':'C','type':'Constant'},"
         "{'name':'F','type':'Constant'}],'lines':[{'src':'C:1','dst':'A:1'},{'src':'A:1','dst':'E:1'}]}",
         "C A E F", "a block the scan passed runs as soon as it is ready", 0},
        {"{'blocks':[{'name':'C','type':'Constant'},{'name':'S','type':'Sum','Inputs':'++'},"
         "{'name':'G','type':'Gain','Gain':0.5},{'name':'H','type':'Gain'}],"
         "'lines':[{'src':'C:1','dst':'S:1'},{'src':'S:1','dst':['G:1','H:1']},{'src':'G:1','dst':'S:2'}]}",
         "C S G H", "a loop is one component, its blocks in file order", 1},
        {"{'blocks':[{'name':'H','type':'Gain','Priority':-1},{'name':'C','type':'Constant'},"
         "{'name':'S','type':'Sum','Inputs':'++'},{'name':'G','type':'Gain','Gain':0.5,'Priority':3},"
         "{'name':'K','type':'Constant','Priority':2}],"
         "'lines':[{'src':'C:1','dst':'S:1'},{'src':'S:1','dst':['G:1','H:1']},{'src':'G:1','dst':'S:2'}]}",
         "C S G H K", "a loop takes the least priority of its blocks", 1},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        jg_error_t err;
        jg_program_t *p;
        jg_status_t st = compile(t[k].json, 1, &p, &err);
        tap_ok(!st && jg_program_nloops(p) == t[k].nloops, "order %zu: compiles, %d loop(s)", k + 1, t[k].nloops);
        tap_streq(st ? err.msg : tl_sorted(p), t[k].order, t[k].what);
        jg_program_free(p);
    }
}

/* Every member of obj holds d's key for its text, and the two lookups agree
 * on every member and on a key no object has. */
static int keys_ok(const jg__jdoc_t *d, const jg__jv_t *obj)
{
    size_t i;
    jg__jkey_t k;
    const jg__jv_t *v;
    jg__jv_obj_foreach(obj, i, k, v) {
        const char *t = jg__jdoc_keytext(d, k);
        if (!t || jg__jdoc_key(d, t) != k || jg__jv_get_key(obj, k) != v || jg__jv_get(d, obj, t) != v)
            return 0;
        if (jg__jv_is_obj(v) && !keys_ok(d, v)) return 0;
    }
    return jg__jv_get_key(obj, jg__jdoc_key(d, "no such key")) == NULL;
}

static void test_keys(void)
{
    /* a wide object (the hash index), a key repeated in many objects, an
     * escaped key equal to a plain one */
    char json[8192];
    size_t n = (size_t)snprintf(json, sizeof json, "{'blocks':[{'name':'G','type':'Gain'},{'name':'H','type':'Gain'}],"
                                                   "'workspace':{'\\u0061':1");
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(json + n, sizeof json - n, ",'w%d':%d", i, i);
    snprintf(json + n, sizeof json - n, "},'x':{'a':2}}");
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_parse(q(json), "<t>", &m, &err);
    const jg__jdoc_t *d = st ? NULL : jg__model_doc(m);
    const jg__jv_t *root = st ? NULL : jg__model_root(m);
    tap_ok(!st && keys_ok(d, root) && !jg__jdoc_keytext(d, 0) && !jg__jdoc_keytext(d, 1000),
           "parsed: one index per key, both lookups agree");
    const jg__jv_t *b0 = jg__jv_at(jg__jv_get(d, root, "blocks"), 0), *b1 = jg__jv_at(jg__jv_get(d, root, "blocks"), 1);
    tap_ok(b0 && b1 && b0->u.mem[0].key == b1->u.mem[0].key && b0->u.mem[0].key == jg__jdoc_key(d, "name"),
           "\"name\" of two blocks is one key");
    const jg__jv_t *w = jg__jv_get(d, root, "workspace"), *x = jg__jv_get(d, root, "x");
    tap_ok(w && x && w->u.mem[0].key == x->u.mem[0].key && jg__jv_num(jg__jv_get_key(w, jg__jdoc_key(d, "a"))) == 1,
           "an escaped key is the plain one");
    tap_ok(d && !jg__jdoc_key(d, "Gain") && !jg__jdoc_key(d, "") && !jg__jdoc_key(NULL, "name"),
           "a string that is no key (a value, empty) has none");
    jg_model_free(m);
    /* a document copied from jansson (the importers) */
    json_error_t je;
    json_t *j = json_loads(q(json), 0, &je);
    st = j ? jg_model_from_json(j, "<j>", &m, &err) : JG_PARSE;
    tap_ok(!st && keys_ok(jg__model_doc(m), jg__model_root(m)), "copied from jansson: the same");
    jg_model_free(m);
}

/* Discrete states and zero crossings through the accessors: a HitCrossing
 * has 3 of each (one per element), the blocks around it none and no side
 * record; the offsets count from 0 in block order. */
static void test_hybrid(void)
{
    jg_block_t z;
    memset(&z, 0, sizeof z);
    tap_ok(!jg_block_nd(&z) && !jg_block_d_off(&z) && !jg_block_nzc(&z) && !jg_block_zc_off(&z) &&
               !jg_block_zc_dir(&z) && !jg_block_ninv(&z) && !jg_block_inv_pat(&z),
           "a block without hybrid fields: all 0");
    tap_ok(sizeof(void *) != 8 || sizeof(jg_block_t) == 128, "a block is two cache lines");
    jg_program_t *p = NULL;
    jg_error_t err;
    jg_status_t st = compile("{'blocks':[{'name':'U','type':'Constant','Value':[1,2,3]},"
                             "{'name':'I','type':'Integrator'},{'name':'T','type':'Terminator'},"
                             "{'name':'H','type':'HitCrossing','HitCrossingDirection':'rising'},"
                             "{'name':'H2','type':'HitCrossing'},{'name':'T2','type':'Terminator'},"
                             "{'name':'T3','type':'Terminator'}],"
                             "'lines':[{'src':'U:1','dst':['I:1','H:1','H2:1']},{'src':'I:1','dst':'T:1'},"
                             "{'src':'H:1','dst':'T2:1'},{'src':'H2:1','dst':'T3:1'}]}",
                             0, &p, &err);
    tap_ok(!st, "compiled (%s)", st ? err.msg : "ok");
    if (st) return;
    const jg_block_t *bu = &p->blocks[jg_program_find_block(p, "U")];
    const jg_block_t *bi = &p->blocks[jg_program_find_block(p, "I")];
    const jg_block_t *bh = &p->blocks[jg_program_find_block(p, "H")];
    const jg_block_t *bh2 = &p->blocks[jg_program_find_block(p, "H2")];
    tap_ok(!bu->hyb && !bi->hyb && bi->nx == 3 && bi->x_off == 0, "Constant, Integrator: no side record");
    tap_ok(bh->hyb && jg_block_nd(bh) == 3 && jg_block_nzc(bh) == 3 && jg_block_d_off(bh) == 0 &&
               jg_block_zc_off(bh) == 0 && jg_block_zc_dir(bh)[0] == JG_ZC_RISING && !jg_block_ninv(bh),
           "HitCrossing: 3 discrete states and zero crossings, rising, offsets 0");
    tap_ok(jg_block_nd(bh2) == 3 && jg_block_d_off(bh2) == 3 && jg_block_zc_off(bh2) == 3 &&
               jg_block_zc_dir(bh2)[2] == JG_ZC_EITHER && p->nd == 6 && p->nzc == 6,
           "the second: offsets 3, either direction; 6 of each in all");
    jg_program_free(p);
}

int main(void)
{
    test_free_model();
    test_duplicates();
    test_lines();
    test_lines_threaded();
    test_index_threaded();
    test_order();
    test_keys();
    test_hybrid();
    return tap_done();
}
