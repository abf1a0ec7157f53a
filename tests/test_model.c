/* test_model.c -- the model reader (lib/model, jacgraph/model.h): a document
 * read from a string and from a file, its name, source and plugin list,
 * every shape error with its status and exact message (the block semantics
 * are the compiler's, tests/test_compile.c), and that reading leaves a host
 * program's own jansson allocator alone. */
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* One document that the reader refuses: status and exact message. */
typedef struct {
    const char *json;   /* ' for " */
    jg_status_t st;
    const char *msg;
} bad_doc_t;

static void test_refused(void)
{
    static const bad_doc_t t[] = {
        {"{'blocks':[", JG_PARSE, "<t>:1:11: ']' expected near end of file"},
        {"", JG_PARSE, "<t>:1:0: '[' or '{' expected near end of file"},
        {"[1,2]", JG_MODEL, "<t>: the document must be a JSON object"},
        {"{'blocks':3}", JG_MODEL, "<t>: system '': \"blocks\" must be an array"},
        {"{'blocks':[],'lines':{}}", JG_MODEL, "<t>: system '': \"lines\" must be an array"},
        {"{'blocks':[{'type':'Gain'}]}", JG_MODEL,
         "<t>: system '': blocks[0] needs a non-empty string \"name\""},
        {"{'blocks':[{'name':'G'}]}", JG_MODEL, "<t>: block 'G' needs a string \"type\""},
        {"{'blocks':[{'name':'S','type':'SubSystem','blocks':[{'name':'G','type':7}]}]}", JG_MODEL,
         "<t>: block 'S/G' needs a string \"type\""},
        {"{'blocks':[{'name':'G','type':'Gain'}],'lines':[{'src':'G:1'}]}", JG_MODEL,
         "<t>: system '': lines[0] needs \"src\": \"BLOCK:N\" and \"dst\": \"BLOCK:N\" or a list "
         "of them"},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        jg_model_t *m = NULL;
        jg_error_t err;
        jg_status_t st = jg_model_parse(q(t[k].json), "<t>", &m, &err);
        if (st != t[k].st) printf("#   status %s\n", jg_status_name(st));
        tap_streq(st == t[k].st ? err.msg : "", t[k].msg, t[k].msg);
        tap_ok(m == NULL, "no model on error (%s)", jg_status_name(t[k].st));
    }
}

static void test_accepted(void)
{
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_parse(q("{'name':'m','blocks':[{'name':'G','type':'Gain'}],'lines':[]}"),
                                    "<t>", &m, &err);
    tap_ok(!st && m, "a one-block document is read");
    tap_streq(m ? jg_model_name(m) : NULL, "m", "the name is the \"name\" field");
    tap_streq(m ? jg_model_source(m) : NULL, "<t>", "the source is the one given");
    tap_ok(m && jg_model_nplugins(m) == 0 && jg_model_plugin(m, 0) == NULL,
           "no \"plugins\" field: none needed");
    tap_ok(m && jg_model_nskipped(m) == 0, "nothing skipped in a native document");
    jg_model_free(m);

    /* no "name": the source names it; plugins are listed in order */
    m = NULL;
    st = jg_model_parse(q("{'blocks':[],'plugins':['a','b']}"), "<t>", &m, &err);
    tap_ok(!st && jg_model_nplugins(m) == 2 && !strcmp(jg_model_plugin(m, 0), "a") &&
               !strcmp(jg_model_plugin(m, 1), "b") && jg_model_plugin(m, 2) == NULL,
           "plugins listed in order, NULL past the end");
    tap_streq(m ? jg_model_name(m) : NULL, "<t>", "without \"name\" the source names the model");
    jg_model_free(m);
    /* a malformed plugin list is left to the loader: the reader says -1 */
    m = NULL;
    st = jg_model_parse(q("{'blocks':[],'plugins':[1]}"), "<t>", &m, &err);
    tap_ok(!st && jg_model_nplugins(m) == -1, "plugins not an array of strings: -1");
    jg_model_free(m);
    /* duplicate names and unknown types are the compiler's to refuse */
    m = NULL;
    st = jg_model_parse(q("{'blocks':[{'name':'G','type':'Nope'},{'name':'G','type':'Gain'}]}"),
                        "<t>", &m, &err);
    tap_ok(!st, "the reader leaves block semantics to the compiler");
    jg_model_free(m);
    jg_model_free(NULL);
    tap_ok(1, "jg_model_free(NULL) is a no-op");
}

static void test_files(void)
{
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_read("tests/data/regress_gain.json", &m, &err);
    tap_ok(!st, "tests/data/regress_gain.json is read");
    tap_streq(m ? jg_model_source(m) : NULL, "tests/data/regress_gain.json", "source is the path");
    jg_model_free(m);
    m = NULL;
    st = jg_model_read("/nonexistent/x.json", &m, &err);
    tap_ok(st == JG_IO && m == NULL, "a missing file: %s", jg_status_name(st));
    tap_streq(st ? err.msg : "", "/nonexistent/x.json: cannot open: No such file or directory",
              "the message names the file and the reason");
}

/* A host program's jansson allocator: counts live blocks. */
static long live, total;
static void *count_malloc(size_t n)
{
    live++;
    total++;
    return malloc(n);
}
static void count_free(void *p)
{
    if (p) live--;
    free(p);
}

/* jansson's allocator hooks are process-wide: the reader must not swap them
 * (it used to install its own for the parse).  The compact parser
 * (lib/model/jparse.c) allocates no jansson node; a document it leaves to
 * jansson (an integer of 19 digits) is read through the host's hooks, and
 * every block comes back once the model holds its own copy. */
static void test_host_allocator(void)
{
    json_malloc_t om;
    json_free_t of;
    json_get_alloc_funcs(&om, &of);
    json_set_alloc_funcs(count_malloc, count_free);
    jg_model_t *m = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_parse(q("{'name':'h','blocks':[{'name':'G','type':'Gain','Gain':2}]}"), "<t>", &m,
                                    &err);
    long compact = total;
    jg_model_free(m);
    m = NULL;
    st = st ? st : jg_model_parse(q("{'name':'h','blocks':[{'name':'G','type':'Gain','Gain':1234567890123456789}]}"),
                                  "<t>", &m, &err);
    long during = live, after_parse = total - compact;
    json_malloc_t cm;
    json_free_t cf;
    json_get_alloc_funcs(&cm, &cf);
    jg_model_free(m);
    tap_ok(!st && cm == count_malloc && cf == count_free, "reading a model leaves the host's jansson hooks installed");
    tap_ok(compact == 0 && after_parse > 0 && during == 0,
           "a document left to jansson is allocated through the host's hooks (%ld blocks, %ld live "
           "once copied; %ld for the compact parse)",
           after_parse, during, compact);
    tap_ok(live == 0, "jg_model_free gives every block back through them (%ld left)", live);
    st = jg_model_parse(q("{'blocks':["), "<t>", &m, &err);
    tap_ok(st == JG_PARSE && !m && live == 0, "a refused document leaves nothing allocated (%ld left)", live);
    json_set_alloc_funcs(om, of);
}

int main(void)
{
    test_refused();
    test_accepted();
    test_files();
    test_host_allocator();
    return tap_done();
}
