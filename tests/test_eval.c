/* test_eval.c -- evaluation (lib/eval, jacgraph/eval.h): outputs and
 * derivatives at given states, inputs and time against hand values, and the
 * algebraic-loop solver: a linear loop solved exactly, a nonlinear loop by
 * Newton, a singular loop and a loop without a real solution refused with the
 * loop's blocks named (seen through the linearizer, which evaluates first). */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* Van der Pol's derivatives at hand-picked states:
 * x1' = x2, x2' = (1 - x1^2) x2 - x1. */
static void test_derivatives(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, tl_vdp, NULL);
    tap_ok(!st && jg_program_nstates(f.p) == 2, "vdp compiles with 2 states");
    const double x[][2] = {{2, 0}, {1, 1}, {0.5, -2}};
    for (size_t k = 0; !st && k < sizeof x / sizeof *x; k++) {
        double *xs = jg_eval_states(f.w), dx[2] = {NAN, NAN};
        xs[0] = x[k][0];
        xs[1] = x[k][1];
        st = jg_eval_outputs(f.w, 0, &f.err);
        if (!st) st = jg_eval_derivatives(f.w, dx, &f.err);
        double want1 = (1 - x[k][0] * x[k][0]) * x[k][1] - x[k][0];
        tap_ok(!st && dx[0] == x[k][1] && fabs(dx[1] - want1) <= 1e-15,
               "vdp derivatives at (%g, %g): (%g, %g)", x[k][0], x[k][1], x[k][1], want1);
    }
    if (st) printf("#   %s\n", f.err.msg);
    fx_unload(&f);
}

/* In1 -> Sum(+-) -> Integrator, Sum -> Gain 2 -> Sum:2: the loop Sum = u - 2 Sum
 * gives Sum = u / 3, read from the signals after jg_eval_outputs. */
static void test_linear_loop(void)
{
    fx_t f;
    jg_status_t st = fx_load(&f, q("{'blocks':[{'name':'In1','type':'Inport','Port':1},"
                                   "{'name':'Sum','type':'Sum','Inputs':'+-'},{'name':'G','type':'Gain','Gain':2},"
                                   "{'name':'x','type':'Integrator'},{'name':'Out1','type':'Outport','Port':1}],"
                                   "'lines':[{'src':'In1:1','dst':'Sum:1'},{'src':'Sum:1','dst':['G:1','x:1']},"
                                   "{'src':'G:1','dst':'Sum:2'},{'src':'x:1','dst':'Out1:1'}]}"),
                             NULL);
    tap_ok(!st && jg_eval_ninput_elems(f.w) == 1 && jg_eval_input_offset(f.w, 0) == 0,
           "loop model: one input element at offset 0");
    double dx = NAN;
    if (!st) {
        jg_eval_inputs(f.w)[0] = 3;
        st = jg_eval_outputs(f.w, 0, &f.err);
    }
    if (!st) st = jg_eval_derivatives(f.w, &dx, &f.err);
    tap_ok(!st && fabs(dx - 1) <= 1e-15, "u = 3: the loop gives Sum = x' = 1 (got %g)", dx);
    fx_unload(&f);
}

static void test_loop_solver(void)
{
    fx_t f;
    jg_status_t st;
    /* Sum "++" with a unit gain back: u = in + u has no solution */
    const char *singular =
        "{\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
        "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
        "{\"name\":\"G\",\"type\":\"Gain\",\"Gain\":1},"
        "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
        "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"Sum:1\"},{\"src\":\"Sum:1\",\"dst\":[\"G:1\",\"Out1:1\"]},"
        "{\"src\":\"G:1\",\"dst\":\"Sum:2\"}]}";
    tap_ok(!fx_load(&f, singular, NULL), "singular loop model compiles");
    jg_lin_sys_t *s = NULL;
    st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(st == JG_SINGULAR_LOOP, "singular loop: status %s", jg_status_name(st));
    tap_streq(f.err.msg,
              "singular algebraic loop through Sum, G: the loop equations have no unique solution",
              "singular loop message names the loop's blocks");
    tap_ok(s == NULL, "no system on error");
    fx_unload(&f);
    /* a Product on a loop: y = 0.5 + 0.5 y is solved by Newton (y = 1), and the
     * linearization there agrees with perturbation */
    const char *nonlin =
        "{\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
        "{\"name\":\"C\",\"type\":\"Constant\",\"Value\":0.5},"
        "{\"name\":\"S0\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
        "{\"name\":\"P\",\"type\":\"Product\",\"Inputs\":\"**\"},"
        "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
        "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
        "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"S0:2\"},{\"src\":\"C:1\",\"dst\":[\"S0:1\",\"P:1\"]},"
        "{\"src\":\"S0:1\",\"dst\":\"Sum:1\"},{\"src\":\"P:1\",\"dst\":\"Sum:2\"},"
        "{\"src\":\"Sum:1\",\"dst\":[\"P:2\",\"Out1:1\"]}]}";
    tap_ok(!fx_load(&f, nonlin, NULL), "nonlinear loop model compiles");
    jg_lin_sys_t *sg = NULL, *sp = NULL;
    st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &sg, NULL, &f.err);
    if (!st) st = jg_lin_run(f.l, JG_LIN_PERTURB, JG_GRAPH_REDUCE_NONE, &sp, NULL, &f.err);
    /* y = 0.5 + u + 0.5 y: dy/du = 1 / (1 - 0.5) = 2 */
    tap_ok(!st && fabs(fx_entry(sg->D, 0, 0) - 2) < 1e-12 && fabs(fx_entry(sp->D, 0, 0) - 2) < 1e-6,
           "nonlinear loop solved by Newton: D = 2 (graph and perturbation)");
    jg_lin_sys_free(sg);
    jg_lin_sys_free(sp);
    fx_unload(&f);
    /* y = 0.5 + y*y has no real solution: the loop solver must say so */
    const char *nosol =
        "{\"blocks\":[{\"name\":\"C\",\"type\":\"Constant\",\"Value\":0.5},"
        "{\"name\":\"P\",\"type\":\"Product\",\"Inputs\":\"**\"},"
        "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
        "{\"name\":\"T\",\"type\":\"Terminator\"}],"
        "\"lines\":[{\"src\":\"C:1\",\"dst\":\"Sum:1\"},{\"src\":\"P:1\",\"dst\":\"Sum:2\"},"
        "{\"src\":\"Sum:1\",\"dst\":[\"P:1\",\"P:2\",\"T:1\"]}]}";
    tap_ok(!fx_load(&f, nosol, NULL), "loop without a solution compiles");
    st = jg_lin_run(f.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &s, NULL, &f.err);
    tap_ok(st == JG_NONLINEAR_LOOP || st == JG_SINGULAR_LOOP, "no solution: status %s", jg_status_name(st));
    tap_ok(strstr(f.err.msg, "algebraic loop through P, Sum") != NULL,
           "the message names the loop's blocks: %s", f.err.msg);
    fx_unload(&f);
}

int main(void)
{
    test_derivatives();
    test_linear_loop();
    test_loop_solver();
    return tap_done();
}
