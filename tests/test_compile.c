/* test_compile.c -- the compiler (lib/compile, jacgraph/program.h) on small
 * models worked by hand: flattening and the state layout, width propagation,
 * the sorted order and algebraic loops, unconnected-input warnings, and the
 * exact errors for names, types and lines.  Parameters in workspaces are
 * tests/test_compile_params.c, names and signals tests/test_compile_names.c,
 * sample times tests/test_sim_hybrid.c. */
#include <stdio.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* Parse and compile JSON (' for "); the status, the program in *p. */
static jg_status_t compile(const char *json, jg_program_t **p, jg_model_t **m, jg_error_t *err)
{
    *p = NULL;
    jg_status_t st = jg_model_parse(q(json), "<t>", m, err);
    if (!st) st = jg_program_compile(*m, p, err);
    return st;
}

static void test_errors(void)
{
    static const struct {
        const char *json, *msg;
    } t[] = {
        {"{'blocks':[{'name':'G','type':'Gain'},{'name':'G','type':'Gain'}]}",
         "block 'G': duplicate block name in system '<root>'"},
        {"{'blocks':[{'name':'G','type':'Gain'}],'lines':[{'src':'H:1','dst':'G:1'}]}",
         "system '<root>': line source \"H:1\": no block named 'H' here"},
        {"{'blocks':[{'name':'G','type':'Gain'}],'lines':[{'src':'G:2','dst':'G:1'}]}",
         "system '<root>': line source \"G:2\": block 'G' (Gain) has 1 output port"},
        {"{'blocks':[{'name':'G','type':'Gain'}],'lines':[{'src':'G','dst':'G:1'}]}",
         "system '<root>': bad port reference \"G\": expected \"BLOCK:N\" with N >= 1"},
        {"{'blocks':[{'name':'C','type':'Constant','Value':1},{'name':'G','type':'Gain'},"
         "{'name':'H','type':'Gain'}],'lines':[{'src':'C:1','dst':['G:1','H:1']},"
         "{'src':'G:1','dst':'H:1'}]}",
         "input 1 of block 'H' has two drivers: 'C:1' and 'G:1'"},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        jg_status_t st = compile(t[k].json, &p, &m, &err);
        tap_ok(st == JG_MODEL && p == NULL, "JG_MODEL, no program: %s", t[k].msg);
        tap_streq(st ? err.msg : "", t[k].msg, "message");
        jg_program_free(p);
        jg_model_free(m);
    }
    /* the unknown type lists the known ones */
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    jg_status_t st = compile("{'blocks':[{'name':'G','type':'Nope'}]}", &p, &m, &err);
    tap_ok(st == JG_MODEL &&
               !strncmp(err.msg, "block 'G': unknown block type 'Nope'; known types: Abs, ", 56) &&
               strstr(err.msg, ", Gain, ") && strstr(err.msg, ", ZeroOrderHold"),
           "unknown type: the message lists the known types");
    jg_model_free(m);
}

static void test_layout(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    /* a subsystem is flattened depth first: S/x's states come before y's; the
     * subsystem and its ports are virtual; y's width (2) reaches S/x through
     * the Gain and the subsystem's ports */
    jg_status_t st = compile(
        "{'blocks':[{'name':'S','type':'SubSystem','blocks':[{'name':'In1','type':'Inport','Port':1},"
        "{'name':'x','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'In1:1','dst':'x:1'},{'src':'x:1','dst':'Out1:1'}]},"
        "{'name':'y','type':'Integrator','InitialCondition':[1,2]},{'name':'G','type':'Gain','Gain':-1}],"
        "'lines':[{'src':'y:1','dst':'G:1'},{'src':'G:1','dst':'S:1'},{'src':'S:1','dst':'y:1'}]}",
        &p, &m, &err);
    tap_ok(!st, "subsystem model compiles");
    if (st) printf("#   %s\n", err.msg);
    if (!st) {
        tap_ok(jg_program_nblocks(p) == 6 && jg_program_nreal(p) == 3, "6 blocks, 3 real");
        int32_t s = jg_program_find_block(p, "S"), sx = jg_program_find_block(p, "S/x");
        tap_ok(s >= 0 && sx >= 0 && jg_program_block_virtual(p, s) &&
                   jg_program_block_virtual(p, jg_program_find_block(p, "S/In1")) &&
                   !jg_program_block_virtual(p, sx),
               "the subsystem and its ports are virtual, S/x is not");
        tap_ok(jg_program_nstates(p) == 4 && !strcmp(jg_program_state_name(p, 0), "S/x(1)") &&
                   !strcmp(jg_program_state_name(p, 2), "y(1)") && !strcmp(jg_program_state_name(p, 3), "y(2)"),
               "state layout depth first: S/x(1..2), y(1..2)");
        tap_ok(jg_program_block_nstates(p, sx) == 2, "S/x takes width 2 from y around the loop");
        tap_streq(tl_sorted(p), "S/x y G", "sorted order S/x y G");
        tap_ok(jg_program_nloops(p) == 0, "no algebraic loop through integrators");
        double x0[4] = {9, 9, 9, 9};
        st = jg_program_initial_states(p, x0, &err);
        tap_ok(!st && x0[0] == 0 && x0[1] == 0 && x0[2] == 1 && x0[3] == 2, "initial states 0 0 1 2");
    }
    jg_program_free(p);
    jg_model_free(m);

    /* a Constant's width reaches the Integrator through the Gain */
    st = compile("{'blocks':[{'name':'C','type':'Constant','Value':[1,2,3]},{'name':'G','type':'Gain','Gain':2},"
                 "{'name':'Y','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
                 "'lines':[{'src':'C:1','dst':'G:1'},{'src':'G:1','dst':'Y:1'},{'src':'Y:1','dst':'Out1:1'}]}",
                 &p, &m, &err);
    tap_ok(!st && jg_program_nstates(p) == 3 && !strcmp(jg_program_state_name(p, 2), "Y(3)"),
           "width 3 propagates Constant -> Gain -> Integrator");
    tap_ok(!st && jg_program_noutputs(p) == 1 && jg_program_ninputs(p) == 0, "one root Outport, no Inport");
    tap_streq(st ? "" : tl_sorted(p), "C G Y Out1", "sorted order C G Y Out1");
    jg_program_free(p);
    jg_model_free(m);

    /* two gains in a ring: one algebraic loop; one unconnected input: a warning */
    st = compile("{'blocks':[{'name':'G','type':'Gain','Gain':2},{'name':'H','type':'Gain','Gain':3}],"
                 "'lines':[{'src':'G:1','dst':'H:1'},{'src':'H:1','dst':'G:1'}]}",
                 &p, &m, &err);
    tap_ok(!st && jg_program_nloops(p) == 1 && !strcmp(jg_program_loop_names(p, 0), "G, H"),
           "a ring of gains is one algebraic loop: G, H");
    jg_program_free(p);
    jg_model_free(m);
    st = compile("{'blocks':[{'name':'G','type':'Gain','Gain':2}]}", &p, &m, &err);
    tap_ok(!st && jg_program_nwarnings(p) == 1, "an unconnected input compiles with one warning");
    tap_streq(st ? "" : jg_program_warning(p, 0), "input 1 of block 'G' is unconnected; it reads zero",
              "the warning names the input");
    jg_program_free(p);
    jg_model_free(m);
}

int main(void)
{
    test_errors();
    test_layout();
    return tap_done();
}
