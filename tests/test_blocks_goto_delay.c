/* Goto/From (with GotoTagVisibility), IC, AlgebraicConstraint and
 * TransportDelay: Goto/From routing against the same model with direct lines
 * (every linearization path and the graph itself), the exact compile errors,
 * algebraic constraints solved and linearized, the Pade linearization of the
 * delay against the closed forms and exp(-jwT), and simulations against the
 * exact delayed signals. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* Load, or say why not. */
static jg_status_t load(fx_t *f, const char *json)
{
    jg_status_t st = fx_load(f, q(json), NULL);
    if (st) printf("#   %s\n", f->err.msg);
    return st;
}

/* The compile error of a model: its status and message. */
static void expect_error(const char *what, const char *json, jg_status_t want, const char *msg)
{
    fx_t f;
    jg_status_t st = fx_load(&f, q(json), NULL);
    int ok = st == want && !strcmp(f.err.msg, msg);
    tap_ok(ok, "%s", what);
    if (!ok) printf("#   status %d (want %d)\n#   got      '%s'\n#   expected '%s'\n", st, want, f.err.msg, msg);
    fx_unload(&f);
}

/* Dense row-major copy of a CSC matrix. */
static void dense(const cs_dl *M, double *out)
{
    memset(out, 0, sizeof(double) * (size_t)(M->m * M->n));
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t k = M->p[j]; k < M->p[j + 1]; k++) out[M->i[k] * M->n + j] = M->x[k];
}

/* Load json into f and linearize it by method m without reduction into *s,
 * its D into D (dense row-major, ny x nu); the status. */
static jg_status_t lin_d(fx_t *f, const char *json, jg_lin_method_t m, jg_lin_sys_t **s, double *D)
{
    *s = NULL;
    jg_status_t st = load(f, json);
    if (!st) st = jg_lin_run(f->l, m, JG_GRAPH_REDUCE_NONE, s, NULL, &f->err);
    if (!st) dense((*s)->D, D);
    return st;
}

/* ----------------------------------------------------------- Goto / From */

/* One model, two spellings: {GOTO} ... with Goto/From, or direct lines
 * through the SubSystem ports.  The real blocks are in the same order in
 * both, so states and signals line up.
 *   root:   In1 --(global 'a')--> Sub/Inner: x1' = a - x1      (Int1)
 *           Sub/Inner: x1 --(scoped 'b', GotoTagVisibility in Sub)--> Sub/Other: 3 x1
 *           Sub: Other:1 --(local 'c')--> Int2: x2' = 3 x1;  Out1 = x1, Out2 = x2 + In2 */
static const char goto_model[] =
    "{'name':'gf','blocks':["
    " {'name':'In1','type':'Inport','Port':1},{'name':'In2','type':'Inport','Port':2},"
    " {'name':'Ga','type':'Goto','GotoTag':'a','TagVisibility':'global'},"
    " {'name':'Sub','type':'SubSystem','blocks':["
    "   {'name':'Vis','type':'GotoTagVisibility','GotoTag':'b'},"
    "   {'name':'Inner','type':'SubSystem','blocks':["
    "     {'name':'Fa','type':'From','GotoTag':'a'},"
    "     {'name':'Sum1','type':'Sum','Inputs':'+-'},{'name':'Int1','type':'Integrator','InitialCondition':1},"
    "     {'name':'Gb','type':'Goto','GotoTag':'b','TagVisibility':'scoped'},"
    "     {'name':'Out1','type':'Outport','Port':1}],"
    "    'lines':[{'src':'Fa:1','dst':'Sum1:1'},{'src':'Sum1:1','dst':'Int1:1'},"
    "             {'src':'Int1:1','dst':['Sum1:2','Gb:1','Out1:1']}]},"
    "   {'name':'Other','type':'SubSystem','blocks':["
    "     {'name':'Fb','type':'From','GotoTag':'b'},{'name':'Gain2','type':'Gain','Gain':3},"
    "     {'name':'Out1','type':'Outport','Port':1}],"
    "    'lines':[{'src':'Fb:1','dst':'Gain2:1'},{'src':'Gain2:1','dst':'Out1:1'}]},"
    "   {'name':'Fc','type':'From','GotoTag':'c'},"
    "   {'name':'Int2','type':'Integrator'},"
    "   {'name':'Gc','type':'Goto','GotoTag':'c'},"
    "   {'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
    "  'lines':[{'src':'Other:1','dst':'Gc:1'},{'src':'Fc:1','dst':'Int2:1'},"
    "           {'src':'Inner:1','dst':'Out1:1'},{'src':'Int2:1','dst':'Out2:1'}]},"
    " {'name':'Sum3','type':'Sum','Inputs':'++'},"
    " {'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
    " 'lines':[{'src':'In1:1','dst':'Ga:1'},{'src':'Sub:1','dst':'Out1:1'},"
    "          {'src':'Sub:2','dst':'Sum3:1'},{'src':'In2:1','dst':'Sum3:2'},{'src':'Sum3:1','dst':'Out2:1'}]}";

static const char direct_model[] =
    "{'name':'gf','blocks':["
    " {'name':'In1','type':'Inport','Port':1},{'name':'In2','type':'Inport','Port':2},"
    " {'name':'Sub','type':'SubSystem','blocks':["
    "   {'name':'In1','type':'Inport','Port':1},"
    "   {'name':'Inner','type':'SubSystem','blocks':["
    "     {'name':'In1','type':'Inport','Port':1},"
    "     {'name':'Sum1','type':'Sum','Inputs':'+-'},{'name':'Int1','type':'Integrator','InitialCondition':1},"
    "     {'name':'Out1','type':'Outport','Port':1}],"
    "    'lines':[{'src':'In1:1','dst':'Sum1:1'},{'src':'Sum1:1','dst':'Int1:1'},"
    "             {'src':'Int1:1','dst':['Sum1:2','Out1:1']}]},"
    "   {'name':'Other','type':'SubSystem','blocks':["
    "     {'name':'In1','type':'Inport','Port':1},{'name':'Gain2','type':'Gain','Gain':3},"
    "     {'name':'Out1','type':'Outport','Port':1}],"
    "    'lines':[{'src':'In1:1','dst':'Gain2:1'},{'src':'Gain2:1','dst':'Out1:1'}]},"
    "   {'name':'Int2','type':'Integrator'},"
    "   {'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
    "  'lines':[{'src':'In1:1','dst':'Inner:1'},{'src':'Inner:1','dst':['Other:1','Out1:1']},"
    "           {'src':'Other:1','dst':'Int2:1'},{'src':'Int2:1','dst':'Out2:1'}]},"
    " {'name':'Sum3','type':'Sum','Inputs':'++'},"
    " {'name':'Out1','type':'Outport','Port':1},{'name':'Out2','type':'Outport','Port':2}],"
    " 'lines':[{'src':'In1:1','dst':'Sub:1'},{'src':'Sub:1','dst':'Out1:1'},"
    "          {'src':'Sub:2','dst':'Sum3:1'},{'src':'In2:1','dst':'Sum3:2'},{'src':'Sum3:1','dst':'Out2:1'}]}";

/* Linearize two models by every path and hold them to each other, and their
 * Jacobian graphs (before and after reduction) to the same size. */
static void same_linearization(const char *what, const char *ja, const char *jb)
{
    fx_t a, b;
    jg_status_t st = load(&a, ja);
    if (!st) st = load(&b, jb);
    else memset(&b, 0, sizeof b);
    for (int k = 0; !st && k < NPATHS; k++) {
        jg_lin_sys_t *sa = NULL, *sb = NULL;
        const char *which = "";
        st = jg_lin_run(a.l, paths[k].m, paths[k].r, &sa, NULL, &a.err);
        if (!st) st = jg_lin_run(b.l, paths[k].m, paths[k].r, &sb, NULL, &b.err);
        int shape = !st && sa->nx == sb->nx && sa->nu == sb->nu && sa->ny == sb->ny;
        double d = shape ? jg_lin_sys_diff(sa, sb, &which) : INFINITY;
        tap_ok(!st && shape && d == 0, "%s: %s identical (difference %.1e in %s)", what,
               paths[k].name, d, which);
        if (st) printf("#   %s%s\n", a.err.msg, b.err.msg);
        jg_lin_sys_free(sa);
        jg_lin_sys_free(sb);
    }
    for (int r = 0; !st && r < 2; r++) {
        jg_graph_reduce_t red = r ? JG_GRAPH_REDUCE_MARKOWITZ : JG_GRAPH_REDUCE_NONE;
        const jg_graph_t *ga = NULL, *gb = NULL;
        st = jg_lin_graph(a.l, red, &ga, &a.err);
        if (!st) st = jg_lin_graph(b.l, red, &gb, &b.err);
        int64_t va = -1, ea = -1, vb = -2, eb = -2;
        if (!st) {
            jg_graph_count(ga, &va, &ea);
            jg_graph_count(gb, &vb, &eb);
        }
        tap_ok(!st && va == vb && ea == eb, "%s: graph %s V:%lld E:%lld, with lines V:%lld E:%lld",
               what, jg_graph_reduce_name(red), (long long)va, (long long)ea, (long long)vb, (long long)eb);
    }
    fx_unload(&a);
    fx_unload(&b);
}

static void test_goto(void)
{
    same_linearization("Goto/From global, scoped and local in nested subsystems", goto_model,
                       direct_model);
    /* the hand result: A = [-1 0; 3 0], B = [1 0; 0 0], C = I, D = [0 0; 0 1] */
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_status_t st = load(&f, goto_model);
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    double A[4], B[4], C[4], D[4];
    if (!st) {
        dense(s->A, A);
        dense(s->B, B);
        dense(s->C, C);
        dense(s->D, D);
    }
    tap_ok(!st && A[0] == -1 && A[1] == 0 && A[2] == 3 && A[3] == 0 && B[0] == 1 && B[1] == 0 &&
               B[2] == 0 && B[3] == 0 && C[0] == 1 && C[3] == 1 && C[1] == 0 && C[2] == 0 &&
               D[0] == 0 && D[1] == 0 && D[2] == 0 && D[3] == 1,
           "Goto/From model: A, B, C, D by hand");
    tap_ok(!st && jg_program_nreal(f.p) == 9, "Goto, From and GotoTagVisibility are virtual (%d real blocks)",
           st ? -1 : jg_program_nreal(f.p));
    jg_lin_sys_free(s);
    fx_unload(&f);

    /* a vector through Goto/From, the From before its Goto in the file (the
     * From waits for the Goto's width), the Goto driven from a Mux */
    static const char vec[] =
        "{'blocks':[{'name':'F','type':'From','GotoTag':'v'},"
        "{'name':'K','type':'Gain','Gain':[1,2,3]},{'name':'Out1','type':'Outport','Port':1},"
        "{'name':'In1','type':'Inport','Port':1,'PortDimensions':2},"
        "{'name':'In2','type':'Inport','Port':2},{'name':'M','type':'Mux','Inputs':2},"
        "{'name':'G','type':'Goto','GotoTag':'v'}],"
        "'lines':[{'src':'F:1','dst':'K:1'},{'src':'K:1','dst':'Out1:1'},"
        "{'src':'In1:1','dst':'M:1'},{'src':'In2:1','dst':'M:2'},{'src':'M:1','dst':'G:1'}]}";
    double Dv[9] = {0};
    st = lin_d(&f, vec, JG_LIN_GRAPH, &s, Dv);
    int32_t fb = st ? -1 : jg_program_find_block(f.p, "F");
    tap_ok(!st && s->ny == 3 && s->nu == 3 && Dv[0] == 1 && Dv[4] == 2 && Dv[8] == 3 && Dv[1] == 0 &&
               jg_program_port_width(f.p, fb, 1, 0) == 3,
           "a width-3 Mux through Goto/From (From first in the file): width 3, D = diag(1, 2, 3)");
    jg_lin_sys_free(s);
    fx_unload(&f);

    /* shadowing: a local Goto in Sub hides the global one of the same tag */
    static const char shadow[] =
        "{'blocks':[{'name':'In1','type':'Inport','Port':1},{'name':'In2','type':'Inport','Port':2},"
        "{'name':'G','type':'Goto','GotoTag':'a','TagVisibility':'global'},"
        "{'name':'F','type':'From','GotoTag':'a'},{'name':'Out1','type':'Outport','Port':1},"
        "{'name':'Sub','type':'SubSystem','blocks':[{'name':'In1','type':'Inport','Port':1},"
        " {'name':'G','type':'Goto','GotoTag':'a'},{'name':'F','type':'From','GotoTag':'a'},"
        " {'name':'K','type':'Gain','Gain':5},{'name':'Out1','type':'Outport','Port':1}],"
        " 'lines':[{'src':'In1:1','dst':'G:1'},{'src':'F:1','dst':'K:1'},{'src':'K:1','dst':'Out1:1'}]},"
        "{'name':'Out2','type':'Outport','Port':2}],"
        "'lines':[{'src':'In1:1','dst':'G:1'},{'src':'F:1','dst':'Out1:1'},{'src':'In2:1','dst':'Sub:1'},"
        "{'src':'Sub:1','dst':'Out2:1'}]}";
    double Ds[4] = {0};
    st = lin_d(&f, shadow, JG_LIN_MATRIX, &s, Ds);
    tap_ok(!st && Ds[0] == 1 && Ds[1] == 0 && Ds[2] == 0 && Ds[3] == 5,
           "a local Goto shadows a global one of the same tag in its system: D = [1 0; 0 5]");
    jg_lin_sys_free(s);
    fx_unload(&f);

    /* an I/O point on a From's output traces to the Goto's driver */
    static const char io[] =
        "{'blocks':[{'name':'In1','type':'Inport','Port':1},{'name':'K','type':'Gain','Gain':2},"
        "{'name':'G','type':'Goto','GotoTag':'x'},{'name':'F','type':'From','GotoTag':'x'},"
        "{'name':'T','type':'Terminator'}],"
        "'lines':[{'src':'In1:1','dst':'K:1'},{'src':'K:1','dst':'G:1'},{'src':'F:1','dst':'T:1'}]}";
    const char *outs[] = {"F:1"};
    jg_lin_opts_t o = {.nout = 1, .out = outs};
    st = fx_load(&f, q(io), &o);
    s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(!st && s->ny == 1 && s->nu == 1 && fx_entry(s->D, 0, 0) == 2,
           "an output point on a From measures its Goto's signal (D = 2)");
    if (st) printf("#   %s\n", f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);

    /* errors */
    expect_error("From without a Goto of its tag",
                 "{'blocks':[{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'F','type':'From','GotoTag':'zz'},{'name':'T','type':'Terminator'}],"
                 "'lines':[{'src':'F:1','dst':'T:1'}]}]}",
                 JG_MODEL, "block 'Sub/F' (From): no Goto block has GotoTag 'zz'");
    expect_error("two local Gotos with one tag in one system",
                 "{'blocks':[{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'G1','type':'Goto','GotoTag':'a'},{'name':'G2','type':'Goto','GotoTag':'a'}]}]}",
                 JG_MODEL,
                 "blocks 'Sub/G1' and 'Sub/G2' (Goto) are both local Gotos in system 'Sub' with "
                 "GotoTag 'a': a From could not tell which one it reads");
    expect_error("two global Gotos with one tag anywhere",
                 "{'blocks':[{'name':'G1','type':'Goto','GotoTag':'a','TagVisibility':'global'},"
                 "{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'G2','type':'Goto','GotoTag':'a','TagVisibility':'global'}]}]}",
                 JG_MODEL,
                 "blocks 'G1' and 'Sub/G2' (Goto) are both global Gotos with GotoTag 'a': a From "
                 "could not tell which one it reads");
    expect_error("two scoped Gotos under one GotoTagVisibility",
                 "{'blocks':[{'name':'V','type':'GotoTagVisibility','GotoTag':'s'},"
                 "{'name':'G1','type':'Goto','GotoTag':'s','TagVisibility':'scoped'},"
                 "{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'G2','type':'Goto','GotoTag':'s','TagVisibility':'scoped'}]}]}",
                 JG_MODEL,
                 "blocks 'G1' and 'Sub/G2' (Goto) are both scoped Gotos visible in system "
                 "'<root>' with GotoTag 's': a From could not tell which one it reads");
    expect_error("a From in another system than its local Goto",
                 "{'blocks':[{'name':'C','type':'Constant'},{'name':'G','type':'Goto','GotoTag':'a'},"
                 "{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'F','type':'From','GotoTag':'a'},{'name':'T','type':'Terminator'}],"
                 "'lines':[{'src':'F:1','dst':'T:1'}]}],'lines':[{'src':'C:1','dst':'G:1'}]}",
                 JG_MODEL,
                 "block 'Sub/F' (From): GotoTag 'a' belongs to the local Goto 'G' in system "
                 "'<root>', which Froms in system 'Sub' cannot see (move the From there, or set "
                 "the Goto's TagVisibility to \"scoped\" or \"global\")");
    expect_error("a scoped Goto without its GotoTagVisibility",
                 "{'blocks':[{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'G','type':'Goto','GotoTag':'b','TagVisibility':'scoped'}]}]}",
                 JG_MODEL,
                 "block 'Sub/G' (Goto): TagVisibility \"scoped\" needs a GotoTagVisibility block "
                 "with GotoTag 'b' in system 'Sub' or above it, and there is none");
    expect_error("a From outside the scope of a scoped Goto",
                 "{'blocks':[{'name':'F','type':'From','GotoTag':'b'},{'name':'T','type':'Terminator'},"
                 "{'name':'Sub','type':'SubSystem','blocks':["
                 "{'name':'V','type':'GotoTagVisibility','GotoTag':'b'},"
                 "{'name':'G','type':'Goto','GotoTag':'b','TagVisibility':'scoped'}]}],"
                 "'lines':[{'src':'F:1','dst':'T:1'}]}",
                 JG_MODEL,
                 "block 'F' (From): GotoTag 'b' belongs to the scoped Goto 'Sub/G', which is "
                 "visible only in system 'Sub' and below (where its GotoTagVisibility is)");
    expect_error("TagVisibility must be local, scoped or global",
                 "{'blocks':[{'name':'G','type':'Goto','GotoTag':'a','TagVisibility':'public'}]}",
                 JG_PARAM,
                 "block 'G' (Goto), parameter 'TagVisibility': expected \"local\", \"scoped\" or "
                 "\"global\", got \"public\"");
    expect_error("GotoTag must not be empty",
                 "{'blocks':[{'name':'F','type':'From','GotoTag':''}]}", JG_PARAM,
                 "block 'F' (From), parameter 'GotoTag': expected a non-empty tag");
    /* two local Gotos of one tag in different systems are fine */
    st = load(&f, "{'blocks':[{'name':'G','type':'Goto','GotoTag':'a'},"
                  "{'name':'Sub','type':'SubSystem','blocks':[{'name':'G','type':'Goto','GotoTag':'a'}]}]}");
    tap_ok(!st, "local Gotos of one tag in different systems compile");
    fx_unload(&f);
}

/* ------------------------------------------- IC and AlgebraicConstraint */

/* The output of block-under-test B, read as the derivative of an Integrator
 * Y it drives: evaluate at t = 0 with inputs u. */
static jg_status_t eval_y(fx_t *f, const double *u, int64_t nu, double *y)
{
    double *in = jg_eval_inputs(f->w);
    for (int64_t k = 0; k < nu; k++) in[k] = u[k];
    jg_status_t st = jg_eval_outputs(f->w, 0, &f->err);
    if (!st) st = jg_eval_derivatives(f->w, y, &f->err);
    return st;
}

/* D (ny x nu dense) by path k after setting the inputs. */
static jg_status_t d_by(fx_t *f, int k, const double *u, double *D, int64_t *ny, int64_t *nu)
{
    double *in = jg_lin_inputs(f->l);
    for (int64_t i = 0; i < jg_eval_ninput_elems(f->w); i++) in[i] = u[i];
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, paths[k].m, paths[k].r, &s, NULL, &f->err);
    if (st) return st;
    *ny = s->ny;
    *nu = s->nu;
    dense(s->D, D);
    jg_lin_sys_free(s);
    return JG_OK;
}

/* z^2 - 2 + In1 = 0 solved by an AlgebraicConstraint: Z = AC output, which
 * also drives the Integrator Y (dx = z) and Out1. */
static const char *sqrt_model(double guess)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'blocks':[{'name':'In1','type':'Inport','Port':1},"
             "{'name':'AC','type':'AlgebraicConstraint','InitialGuess':%g},"
             "{'name':'Sq','type':'Math','Operator':'square'},{'name':'Two','type':'Constant','Value':2},"
             "{'name':'Sum','type':'Sum','Inputs':'+-+'},{'name':'Y','type':'Integrator'},"
             "{'name':'Out1','type':'Outport','Port':1}],"
             "'lines':[{'src':'AC:1','dst':['Sq:1','Y:1','Out1:1']},{'src':'Sq:1','dst':'Sum:1'},"
             "{'src':'Two:1','dst':'Sum:2'},{'src':'In1:1','dst':'Sum:3'},{'src':'Sum:1','dst':'AC:1'}]}",
             guess);
    return buf;
}

static void test_constraint(void)
{
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
        fx_t f;
        jg_status_t st = load(&f, sqrt_model(sgn));
        double y = NAN, u = 0;
        if (!st) st = eval_y(&f, &u, 1, &y);
        tap_ok(!st && fabs(y - sgn * sqrt(2)) <= 1e-12,
               "AlgebraicConstraint z^2 - 2 = 0 from InitialGuess %d: z = %.17g", sgn, y);
        if (st) printf("#   %s\n", f.err.msg);
        /* dz/du = -1/(2z) by every path */
        for (int k = 0; !st && k < NPATHS; k++) {
            double D[1] = {NAN};
            int64_t ny = 0, nu = 0;
            jg_status_t s2 = d_by(&f, k, &u, D, &ny, &nu);
            double want = -1 / (2 * sgn * sqrt(2));
            double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-12;
            tap_ok(!s2 && ny == 1 && nu == 1 && fabs(D[0] - want) <= tol * fabs(want),
                   "AlgebraicConstraint z^2 - 2 + u = 0 at z = %+.4f: dz/du = -1/(2z) by %s (got %.17g)",
                   sgn * sqrt(2), paths[k].name, D[0]);
            if (s2) printf("#   %s\n", f.err.msg);
        }
        fx_unload(&f);
    }

    /* linear: K z + b + u = 0, K = [2 1; 1 3], b = [1 -2]: z = -K^-1 (b + u) */
    static const char lin[] =
        "{'blocks':[{'name':'In1','type':'Inport','Port':1,'PortDimensions':2},"
        "{'name':'AC','type':'AlgebraicConstraint','InitialGuess':[5,5]},"
        "{'name':'K','type':'Gain','Gain':[[2,1],[1,3]],'Multiplication':'Matrix(K*u)'},"
        "{'name':'b','type':'Constant','Value':[1,-2]},"
        "{'name':'Sum','type':'Sum','Inputs':'+++'},{'name':'Y','type':'Integrator'},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'AC:1','dst':['K:1','Y:1','Out1:1']},{'src':'K:1','dst':'Sum:1'},"
        "{'src':'b:1','dst':'Sum:2'},{'src':'In1:1','dst':'Sum:3'},{'src':'Sum:1','dst':'AC:1'}]}";
    fx_t f;
    jg_status_t st = load(&f, lin);
    double u[2] = {0.5, -1}, z[2] = {NAN, NAN};
    /* -K^-1 = -1/5 [3 -1; -1 2]; b + u = [1.5, -3] */
    double zw[2] = {-(3 * 1.5 + 3) / 5, -(-1.5 - 6) / 5};
    if (!st) st = eval_y(&f, u, 2, z);
    tap_ok(!st && fabs(z[0] - zw[0]) < 1e-14 && fabs(z[1] - zw[1]) < 1e-14,
           "linear AlgebraicConstraint K z + b + u = 0: z = (%.17g, %.17g), closed form (%g, %g)",
           z[0], z[1], zw[0], zw[1]);
    if (st) printf("#   %s\n", f.err.msg);
    const double Kinv[4] = {-0.6, 0.2, 0.2, -0.4};
    for (int k = 0; !st && k < NPATHS; k++) {
        double D[4] = {NAN};
        int64_t ny = 0, nu = 0;
        jg_status_t s2 = d_by(&f, k, u, D, &ny, &nu);
        double e = 0;
        for (int i = 0; i < 4; i++) e = fmax(e, fabs(D[i] - Kinv[i]));
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-8 : 1e-14;
        tap_ok(!s2 && ny == 2 && nu == 2 && e <= tol,
               "linear AlgebraicConstraint: D = -K^-1 by %s (error %.1e)", paths[k].name, e);
        if (s2) printf("#   %s\n", f.err.msg);
    }
    fx_unload(&f);
}

/* y = IC(u), u = (y^2 + 2)/3: fixed points y = 1 and y = 2; the loop solver
 * starts from Value and finds the nearer one. */
static const char *ic_loop(double value)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'blocks':[{'name':'IC','type':'IC','Value':%g},{'name':'Sq','type':'Math','Operator':'square'},"
             "{'name':'Two','type':'Constant','Value':2},{'name':'Sum','type':'Sum'},"
             "{'name':'K','type':'Gain','Gain':%.17g},{'name':'Y','type':'Integrator'}],"
             "'lines':[{'src':'IC:1','dst':['Sq:1','Y:1']},{'src':'Sq:1','dst':'Sum:1'},"
             "{'src':'Two:1','dst':'Sum:2'},{'src':'Sum:1','dst':'K:1'},{'src':'K:1','dst':'IC:1'}]}",
             value, 1.0 / 3);
    return buf;
}

static void test_ic(void)
{
    fx_t f;
    jg_status_t st = load(&f, "{'blocks':[{'name':'In1','type':'Inport','Port':1,'PortDimensions':2},"
                              "{'name':'IC','type':'IC','Value':[4,5]},{'name':'Out1','type':'Outport','Port':1}],"
                              "'lines':[{'src':'In1:1','dst':'IC:1'},{'src':'IC:1','dst':'Out1:1'}]}");
    for (int k = 0; !st && k < NPATHS; k++) {
        double D[4] = {NAN}, u[2] = {1, 2};
        int64_t ny = 0, nu = 0;
        jg_status_t s2 = d_by(&f, k, u, D, &ny, &nu);
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-8 : 0;
        tap_ok(!s2 && ny == 2 && nu == 2 && fabs(D[0] - 1) <= tol && fabs(D[3] - 1) <= tol &&
                   fabs(D[1]) <= tol && fabs(D[2]) <= tol,
               "IC linearizes to D = I by %s", paths[k].name);
    }
    fx_unload(&f);
    expect_error("IC Value of the wrong width",
                 "{'blocks':[{'name':'In1','type':'Inport','Port':1,'PortDimensions':3},"
                 "{'name':'IC','type':'IC','Value':[4,5]},{'name':'T','type':'Terminator'}],"
                 "'lines':[{'src':'In1:1','dst':'IC:1'},{'src':'IC:1','dst':'T:1'}]}",
                 JG_PARAM,
                 "block 'IC' (IC), parameter 'Value': expected a scalar or 3 elements (the signal "
                 "width), got 2");
    const struct {
        double value, root;
    } c[] = {{0.9, 1}, {2.2, 2}};
    for (int k = 0; k < 2; k++) {
        st = load(&f, ic_loop(c[k].value));
        double y = NAN;
        if (!st) st = eval_y(&f, NULL, 0, &y);
        tap_ok(!st && fabs(y - c[k].root) < 1e-12,
               "IC Value %g starts the loop y = (y^2 + 2)/3 at the root %g (got %.17g)", c[k].value,
               c[k].root, y);
        if (st) printf("#   %s\n", f.err.msg);
        fx_unload(&f);
    }
}

/* --------------------------------------------------------- TransportDelay */

/* H(s) = D + C (sI - A)^-1 B of a SISO system, by complex Gaussian
 * elimination with partial pivoting (n <= 10). */
static double complex freq(const jg_lin_sys_t *s, double complex z)
{
    int n = (int)s->nx;
    double complex M[10][11];
    double A[100] = {0}, B[10] = {0}, C[10] = {0};
    if (n) {
        dense(s->A, A);
        dense(s->B, B);
        dense(s->C, C);
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i][j] = (i == j ? z : 0) - A[i * n + j];
        M[i][n] = B[i];
    }
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (cabs(M[i][k]) > cabs(M[piv][k])) piv = i;
        for (int j = 0; j <= n; j++) {
            double complex t = M[k][j];
            M[k][j] = M[piv][j];
            M[piv][j] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double complex f = M[i][k] / M[k][k];
            for (int j = k; j <= n; j++) M[i][j] -= f * M[k][j];
        }
    }
    double complex x[10], h = fx_entry(s->D, 0, 0);
    for (int i = n - 1; i >= 0; i--) {
        double complex r = M[i][n];
        for (int j = i + 1; j < n; j++) r -= M[i][j] * x[j];
        x[i] = r / M[i][i];
    }
    for (int i = 0; i < n; i++) h += C[i] * x[i];
    return h;
}

/* The (n, n) Pade approximant of exp(-sT) from the textbook table. */
static double complex pade_closed(int n, double complex z, double T)
{
    double complex x = z * T;
    switch (n) {
    case 0: return 1;
    case 1: return (1 - x / 2) / (1 + x / 2);
    case 2: return (1 - x / 2 + x * x / 12) / (1 + x / 2 + x * x / 12);
    default:
        return (1 - x / 2 + x * x / 10 - x * x * x / 120) / (1 + x / 2 + x * x / 10 + x * x * x / 120);
    }
}

static const char *td_model(const char *params, int width)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{'blocks':[{'name':'In1','type':'Inport','Port':1,'PortDimensions':%d},"
             "{'name':'TD','type':'TransportDelay'%s%s},{'name':'Out1','type':'Outport','Port':1}],"
             "'lines':[{'src':'In1:1','dst':'TD:1'},{'src':'TD:1','dst':'Out1:1'}]}",
             width, *params ? "," : "", params);
    return buf;
}

static void test_pade(void)
{
    const double T = 0.5;
    for (int n = 0; n <= 3; n++) {
        char par[128];
        snprintf(par, sizeof par, "'DelayTime':%g,'PadeOrder':%d", T, n);
        fx_t f;
        jg_status_t st = load(&f, td_model(par, 1));
        jg_lin_sys_t *s[NPATHS] = {NULL};
        for (int k = 0; !st && k < NPATHS; k++)
            st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s[k], NULL, &f.err);
        if (st) printf("#   %s\n", f.err.msg);
        double dpath = 0;
        const char *which = "";
        for (int k = 1; !st && k < NPATHS; k++) {
            double d = jg_lin_sys_diff(s[k], s[0], &which);
            dpath = fmax(dpath, paths[k].m == JG_LIN_PERTURB ? d * 1e-6 : d);
        }
        tap_ok(!st && s[0]->nx == n && dpath <= 1e-14,
               "TransportDelay PadeOrder %d: %d states, all paths agree", n, n);
        /* against the closed form at a few complex points */
        double e = 0;
        const double complex pts[] = {0.3 + 0.7 * I, -1 + 2 * I, 4 * I, 3};
        for (size_t k = 0; !st && k < sizeof pts / sizeof *pts; k++)
            e = fmax(e, cabs(freq(s[0], pts[k]) - pade_closed(n, pts[k], T)));
        tap_ok(!st && e <= 1e-13, "TransportDelay PadeOrder %d = the textbook Pade approximant (error %.1e)",
               n, e);
        /* against exp(-jwT): the error is O(w^(2n+1)) */
        if (n > 0) {
            double e1 = st ? NAN : cabs(freq(s[0], 0.4 / T * I) - cexp(-0.4 * I));
            double e2 = st ? NAN : cabs(freq(s[0], 0.2 / T * I) - cexp(-0.2 * I));
            double order = log2(e1 / e2);
            tap_ok(!st && fabs(order - (2 * n + 1)) < 0.2 && e1 < pow(0.4, 2 * n + 1),
                   "TransportDelay PadeOrder %d vs exp(-jwT): error %.2e at wT = 0.4, %.2e at 0.2, "
                   "order %.2f (expected %d)",
                   n, e1, e2, order, 2 * n + 1);
        }
        for (int k = 0; k < NPATHS; k++) jg_lin_sys_free(s[k]);
        fx_unload(&f);
    }
    /* a vector delay: per-element DelayTime, block-diagonal realization */
    fx_t f;
    jg_status_t st = load(&f, td_model("'DelayTime':[0.5,2],'PadeOrder':2,'InitialOutput':[1,-1]", 2));
    jg_lin_sys_t *s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    double e = 0;
    for (int el = 0; !st && el < 2; el++) {
        /* the element's own 2 x 2 block */
        jg_lin_sys_t one = *s;
        double Ta = el ? 2 : 0.5;
        cs_dl *A = cs_dl_spalloc(2, 2, 4, 1, 1), *B = cs_dl_spalloc(2, 1, 2, 1, 1),
              *C = cs_dl_spalloc(1, 2, 2, 1, 1), *D = cs_dl_spalloc(1, 1, 1, 1, 1);
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) cs_dl_entry(A, i, j, fx_entry(s->A, 2 * el + i, 2 * el + j));
            cs_dl_entry(B, i, 0, fx_entry(s->B, 2 * el + i, el));
            cs_dl_entry(C, 0, i, fx_entry(s->C, el, 2 * el + i));
        }
        cs_dl_entry(D, 0, 0, fx_entry(s->D, el, el));
        one.nx = 2;
        one.A = cs_dl_compress(A);
        one.B = cs_dl_compress(B);
        one.C = cs_dl_compress(C);
        one.D = cs_dl_compress(D);
        e = fmax(e, cabs(freq(&one, 0.3 + 1.1 * I) - pade_closed(2, 0.3 + 1.1 * I, Ta)));
        e = fmax(e, fabs(fx_entry(s->A, 2 * el, 2 * (1 - el))) + fabs(fx_entry(s->D, el, 1 - el)));
        cs_dl_spfree(A), cs_dl_spfree(B), cs_dl_spfree(C), cs_dl_spfree(D);
        cs_dl_spfree(one.A), cs_dl_spfree(one.B), cs_dl_spfree(one.C), cs_dl_spfree(one.D);
    }
    tap_ok(!st && s->nx == 4 && e < 1e-13,
           "vector TransportDelay, DelayTime [0.5 2]: two decoupled order-2 Pade blocks (error %.1e)", e);
    if (st) printf("#   %s\n", f.err.msg);
    jg_lin_sys_free(s);
    /* the Pade states start at the equilibrium of InitialOutput: with the
     * input at InitialOutput, the linearization-mode output is InitialOutput */
    double *in = jg_eval_inputs(f.w);
    in[0] = 1;
    in[1] = -1;
    if (!st) st = jg_eval_outputs(f.w, 0, &f.err);
    const double *sig = st ? NULL : jg_eval_signals(f.w);
    /* signals: In1 (2), TD (2) */
    tap_ok(!st && fabs(sig[2] - 1) < 1e-14 && fabs(sig[3] + 1) < 1e-14,
           "Pade states start at the equilibrium of InitialOutput (y = %g, %g)", st ? NAN : sig[2],
           st ? NAN : sig[3]);
    fx_unload(&f);

    expect_error("DelayTime must be positive", td_model("'DelayTime':0", 1), JG_PARAM,
                 "block 'TD' (TransportDelay), parameter 'DelayTime': element 1 is 0: expected a "
                 "finite delay > 0");
    expect_error("PadeOrder is an integer from 0 to 10", td_model("'PadeOrder':1.5", 1), JG_PARAM,
                 "block 'TD' (TransportDelay), parameter 'PadeOrder': expected an integer from 0 to 10");
    expect_error("BufferSize is at least 2", td_model("'BufferSize':1", 1), JG_PARAM,
                 "block 'TD' (TransportDelay), parameter 'BufferSize': expected an integer number of "
                 "points from 2 to 1e8");
    expect_error("InitialOutput width against DelayTime",
                 td_model("'DelayTime':[1,2],'InitialOutput':[1,2,3]", 2), JG_PARAM,
                 "block 'TD' (TransportDelay), parameter 'InitialOutput': has 3 elements but "
                 "DelayTime has 2 (only scalars expand)");
    expect_error("a TransportDelay is continuous", td_model("'SampleTime':0.1", 1), JG_PARAM,
                 "block 'TD' (TransportDelay), parameter 'SampleTime': a TransportDelay is "
                 "continuous: expected 0 or no SampleTime, got 0.1");
}

/* ------------------------------------------------------------ simulation */

typedef struct {
    int n;
    double t[4096], y[4096], x[4096];
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    rec_t *r = user;
    if (r->n < 4096) {
        r->t[r->n] = t;
        r->y[r->n] = sig ? sig[0] : NAN;
        r->x[r->n] = x ? x[0] : NAN;
        r->n++;
    }
    return 0;
}

static jg_status_t sim(const char *json, double tstop, double max_step, double out_step, rec_t *r,
                       jg_error_t *err)
{
    fx_t f;
    jg_status_t st = fx_load(&f, q(json), NULL);
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = tstop, .out_step = out_step};
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    o.so.max_step = max_step;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    if (!st) st = jg_sim_create(f.p, &o, &s, &f.err);
    if (!st) st = jg_sim_run(s, tstop, record, r, &f.err);
    *err = f.err;
    jg_sim_free(s);
    fx_unload(&f);
    return st;
}

/* One simulated case: the first output (or the first state) against the
 * exact solution want(t) at the logged points (NaN: not compared). */
typedef struct {
    const char *what, *json;
    double tstop, max_step, out_step;
    int state;                  /* compare the first state, else the first output */
    double (*want)(double t);
    int n;                      /* points logged */
    double tol;
} sim_case_t;

/* One TAP line: the run succeeds with c->n points, every error below c->tol. */
static void check_sim(const sim_case_t *c, rec_t *r)
{
    jg_error_t err;
    jg_status_t st = sim(c->json, c->tstop, c->max_step, c->out_step, r, &err);
    double e = 0;
    for (int k = 0; k < r->n; k++) {
        double w = c->want(r->t[k]);
        if (!isnan(w)) e = fmax(e, fabs((c->state ? r->x[k] : r->y[k]) - w));
    }
    tap_ok(!st && r->n == c->n && e < c->tol, "%s (error %.1e, %d points)", c->what, e, r->n);
    if (st) printf("#   %s\n", err.msg);
}

/* sin t delayed by 1, InitialOutput 0.5 before (the jump itself not compared) */
static double want_sine(double t) { return fabs(t - 1) <= 1e-9 ? NAN : t < 1 ? 0.5 : sin(t - 1); }
static double want_ramp(double t) { return t < 0.3 ? -1 : 2 * (t - 0.3); }
/* x' = -x(t - 1), x = 1 on [-1, 0]: by steps, x = 1 - t on [0, 1], then
 * x = -(t - 1) + (t - 1)^2/2 (at t = 2: -0.5) */
static double want_dde(double t) { return t <= 1 ? 1 - t : -(t - 1) + (t - 1) * (t - 1) / 2; }
static double want_jump(double t) { return t < 0.5 ? 7 * t : 3.5 + (t - 0.5) * (t - 0.5) / 2; }
static double want_sqrt(double t) { return sqrt(2 + t); }

static void test_delay_sim(void)
{
    rec_t *r = malloc(sizeof *r);
    jg_error_t err;
    const sim_case_t cases[] = {
        /* linear interpolation of points at most 0.01 apart: error <= h^2/8 max|u''| */
        {"sin t through TransportDelay T = 1 (ode45, max step 0.01): y = sin(t - 1), 0.5 before",
         "{'blocks':[{'name':'W','type':'SineWave'},"
         "{'name':'TD','type':'TransportDelay','DelayTime':1,'InitialOutput':0.5,'PadeOrder':2},"
         "{'name':'Out1','type':'Outport','Port':1}],"
         "'lines':[{'src':'W:1','dst':'TD:1'},{'src':'TD:1','dst':'Out1:1'}]}",
         6, 0.01, 0.125, 0, want_sine, 49, 2e-5},
        /* a ramp is interpolated exactly; T = 0.3 is shorter than no step */
        {"ramp 2t through TransportDelay T = 0.3: y = 2 (t - 0.3), -1 before",
         "{'blocks':[{'name':'R','type':'Ramp','Slope':2},"
         "{'name':'TD','type':'TransportDelay','DelayTime':0.3,'InitialOutput':-1},"
         "{'name':'Out1','type':'Outport','Port':1}],"
         "'lines':[{'src':'R:1','dst':'TD:1'},{'src':'TD:1','dst':'Out1:1'}]}",
         3, 0.05, 0.125, 0, want_ramp, 25, 1e-12},
        {"x' = -x(t - 1) through a TransportDelay: the method-of-steps solution",
         "{'blocks':[{'name':'I','type':'Integrator','InitialCondition':1},"
         "{'name':'TD','type':'TransportDelay','DelayTime':1,'InitialOutput':1},"
         "{'name':'K','type':'Gain','Gain':-1},{'name':'Out1','type':'Outport','Port':1}],"
         "'lines':[{'src':'I:1','dst':['TD:1','Out1:1']},{'src':'TD:1','dst':'K:1'},"
         "{'src':'K:1','dst':'I:1'}]}",
         2, 0.01, 0.25, 1, want_dde, 9, 1e-8},
        /* the jump from InitialOutput to the first recorded input is a located
         * zero crossing: an Integrator of it is exact (x = 7 t until T = 0.5,
         * then + (t - T)^2/2; element 2: 8 t until 1, then + 3 (t - 1)^2/2) */
        {"Integrator of a TransportDelay whose output jumps at t = T: exact with the located crossing",
         "{'blocks':[{'name':'C','type':'Clock'},{'name':'K','type':'Gain','Gain':[1,3]},"
         "{'name':'TD','type':'TransportDelay','DelayTime':[0.5,1],'InitialOutput':[7,8]},"
         "{'name':'I','type':'Integrator','InitialCondition':[0,0]}],"
         "'lines':[{'src':'C:1','dst':'K:1'},{'src':'K:1','dst':'TD:1'},{'src':'TD:1','dst':'I:1'}]}",
         2, 0.05, 0.25, 1, want_jump, 9, 1e-12},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) check_sim(&cases[k], r);

    /* the delay in an algebraic loop (its linearization has feedthrough):
     * u = 1 - y, y = u(t - 0.5) gives a square wave 0, 1, 0, 1 per 0.5 s */
    static const char loop[] =
        "{'blocks':[{'name':'C','type':'Constant','Value':1},{'name':'S','type':'Sum','Inputs':'+-'},"
        "{'name':'TD','type':'TransportDelay','DelayTime':0.5},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'C:1','dst':'S:1'},{'src':'S:1','dst':'TD:1'},"
        "{'src':'TD:1','dst':['S:2','Out1:1']}]}";
    jg_status_t st = sim(loop, 2, 0.01, 0.125, r, &err);
    double e = 0;
    int checked = 0;
    for (int k = 0; k < r->n; k++) {
        double ph = fmod(r->t[k], 0.5);
        if (ph < 0.1 || ph > 0.4) continue;   /* away from the switching ramps */
        e = fmax(e, fabs(r->y[k] - ((int)(r->t[k] / 0.5) % 2)));
        checked++;
    }
    tap_ok(!st && checked >= 8 && e < 1e-12,
           "a TransportDelay inside an algebraic loop: square wave (error %.1e at %d points)", e,
           checked);
    if (st) printf("#   %s\n", err.msg);

    /* the history does not fit: an error naming the block, not a wrong output */
    static const char small[] =
        "{'blocks':[{'name':'W','type':'SineWave'},"
        "{'name':'TD','type':'TransportDelay','DelayTime':1,'BufferSize':10},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'W:1','dst':'TD:1'},{'src':'TD:1','dst':'Out1:1'}]}";
    st = sim(small, 3, 0.01, 0, r, &err);
    const char *pre = "block 'TD' (TransportDelay) at t = ";
    tap_ok(st == JG_NUMERIC && !strncmp(err.msg, pre, strlen(pre)) &&
               strstr(err.msg, "more than BufferSize = 10 points at this step size: raise BufferSize"),
           "BufferSize too small: a run-time error naming the block");
    if (st != JG_NUMERIC) printf("#   status %d: %s\n", st, err.msg);
    else printf("#   %s\n", err.msg);
    free(r);
}

static void test_ic_sim(void)
{
    rec_t *r = malloc(sizeof *r);
    jg_error_t err;
    /* Out1 = IC(Clock): Value at the first major step, t afterwards */
    static const char m[] =
        "{'blocks':[{'name':'C','type':'Clock'},{'name':'IC','type':'IC','Value':5},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'C:1','dst':'IC:1'},{'src':'IC:1','dst':'Out1:1'}]}";
    jg_status_t st = sim(m, 1, 0.1, 0.25, r, &err);
    double e = 0;
    for (int k = 1; k < r->n; k++) e = fmax(e, fabs(r->y[k] - r->t[k]));
    tap_ok(!st && r->n == 5 && r->y[0] == 5 && e < 1e-14,
           "IC in simulation: Value 5 at t0, its input afterwards (y(0) = %g)", r->n ? r->y[0] : NAN);
    if (st) printf("#   %s\n", err.msg);

    /* an AlgebraicConstraint in a simulation: z^2 = 2 + t, logged z */
    static const sim_case_t ac = {
        "AlgebraicConstraint in simulation: z = sqrt(2 + t)",
        "{'blocks':[{'name':'AC','type':'AlgebraicConstraint','InitialGuess':1},"
        "{'name':'Sq','type':'Math','Operator':'square'},{'name':'C','type':'Clock'},"
        "{'name':'Two','type':'Constant','Value':2},{'name':'Sum','type':'Sum','Inputs':'+--'},"
        "{'name':'Out1','type':'Outport','Port':1}],"
        "'lines':[{'src':'AC:1','dst':['Sq:1','Out1:1']},{'src':'Sq:1','dst':'Sum:1'},"
        "{'src':'Two:1','dst':'Sum:2'},{'src':'C:1','dst':'Sum:3'},{'src':'Sum:1','dst':'AC:1'}]}",
        2, 0.1, 0.25, 0, want_sqrt, 9, 1e-12};
    check_sim(&ac, r);
    free(r);
}

int main(void)
{
    test_goto();
    test_constraint();
    test_ic();
    test_pade();
    test_delay_sim();
    test_ic_sim();
    return tap_done();
}
