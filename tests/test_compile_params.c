/* test_compile_params.c -- block parameters as MATLAB expressions in scoped
 * workspaces (lib/compile/setup.c): the lookup order overrides -> SubSystem
 * parameters -> model parameters -> base workspace, shadowing, the mask
 * self-name rule, cycles, and the text of every error.  Values are read back
 * as the D matrix of a linearization. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* JSON with ` for " (so MATLAB's 'strings' stay readable; testlib.h's q() takes '); the caller frees it. */
static char *bq(const char *s)
{
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    for (size_t k = 0; k <= n; k++) b[k] = s[k] == '`' ? '"' : s[k];
    return b;
}

/* Compile and linearize json; D row-major into d (up to 16), its size in *n.
 * Returns the status (message in msg). */
static jg_status_t lin_d(const char *json, double *d, int *n, char *msg)
{
    fx_t f;
    char *j = bq(json);
    jg_status_t st = fx_load(&f, j, NULL);
    jg_lin_sys_t *s = NULL;
    *n = 0;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, &s, NULL, &f.err);
    if (!st) {
        for (int64_t r = 0; r < s->D->m; r++)
            for (int64_t c = 0; c < s->D->n && *n < 16; c++) d[(*n)++] = fx_entry(s->D, r, c);
    }
    snprintf(msg, 1024, "%s", st ? f.err.msg : "");
    jg_lin_sys_free(s);
    fx_unload(&f);
    free(j);
    return st;
}

/* A root-level model: extras (top-level keys, ending with ','), then In1 -> G -> Out1. */
static char *gain_model(const char *extras, const char *gain)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{%s`blocks`:[{`name`:`In1`,`type`:`Inport`,`Port`:1},"
             "{`name`:`G`,`type`:`Gain`,`Gain`:%s},{`name`:`Out1`,`type`:`Outport`,`Port`:1}],"
             "`lines`:[{`src`:`In1:1`,`dst`:`G:1`},{`src`:`G:1`,`dst`:`Out1:1`}]}",
             extras, gain);
    return buf;
}

static void gain_is(const char *what, const char *extras, const char *gain, double want)
{
    double d[16];
    int n;
    char msg[1024];
    jg_status_t st = lin_d(gain_model(extras, gain), d, &n, msg);
    int ok = !st && n == 1 && (d[0] == want || fabs(d[0] - want) <= 1e-12 * fabs(want));
    if (!tap_ok(ok, "%s", what)) {
        if (st) printf("#   %s\n", msg);
        else printf("#   got %.17g (n = %d), expected %.17g\n", n ? d[0] : NAN, n, want);
    }
}

static void error_is(const char *what, const char *json, jg_status_t want, const char *text)
{
    double d[16];
    int n;
    char msg[1024];
    jg_status_t st = lin_d(json, d, &n, msg);
    if (st != want) printf("#   status %s\n", jg_status_name(st));
    tap_streq(st == want ? msg : "", text, what);
}

static void test_expressions(void)
{
    gain_is("a plain number string", "", "`2.5`", 2.5);
    gain_is("a JSON number", "", "3", 3);
    gain_is("an expression", "`parameters`:{`Kp`:3},", "`2*Kp+1`", 7);
    gain_is("functions and constants", "", "`sqrt(16)*cos(0) - pi/pi`", 3);
    gain_is("a matrix expression reduced to a scalar", "", "`sum(conv([1 1],[1 2]))`", 6);
    gain_is("indexing a workspace vector", "`parameters`:{`ICs`:[4,5,6]},", "`ICs(2)`", 5);
    gain_is("indexing with end", "`parameters`:{`v`:`[1 2 3]*2`},", "`v(end)`", 6);
    gain_is("1/(M*c)", "`parameters`:{`M`:2,`c`:`0.25`},", "`1/(M*c)`", 2);
    gain_is("5*(5/9)", "", "`5*(5/9)`", 25.0 / 9);
    gain_is("eps", "", "`eps`", 2.220446049250313e-16);
}

/* In1 -> G (root, "Kp") -> Out1 and In1 -> S/G (inside S, expr) -> Out2:
 * D = [root value; subsystem value]. */
static char *scoped_model(const char *extras, const char *root_params, const char *sub_params,
                          const char *root_gain, const char *sub_gain)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{%s`parameters`:{%s},`blocks`:[{`name`:`In1`,`type`:`Inport`,`Port`:1},"
             "{`name`:`G`,`type`:`Gain`,`Gain`:`%s`},"
             "{`name`:`S`,`type`:`SubSystem`,`parameters`:{%s},`blocks`:["
             " {`name`:`i`,`type`:`Inport`,`Port`:1},"
             " {`name`:`Inner`,`type`:`SubSystem`,`blocks`:["
             "  {`name`:`i`,`type`:`Inport`,`Port`:1},{`name`:`G`,`type`:`Gain`,`Gain`:`%s`},"
             "  {`name`:`o`,`type`:`Outport`,`Port`:1}],"
             "  `lines`:[{`src`:`i:1`,`dst`:`G:1`},{`src`:`G:1`,`dst`:`o:1`}]},"
             " {`name`:`o`,`type`:`Outport`,`Port`:1}],"
             " `lines`:[{`src`:`i:1`,`dst`:`Inner:1`},{`src`:`Inner:1`,`dst`:`o:1`}]},"
             "{`name`:`Out1`,`type`:`Outport`,`Port`:1},{`name`:`Out2`,`type`:`Outport`,`Port`:2}],"
             "`lines`:[{`src`:`In1:1`,`dst`:[`G:1`,`S:1`]},{`src`:`G:1`,`dst`:`Out1:1`},"
             "{`src`:`S:1`,`dst`:`Out2:1`}]}",
             extras, root_params, root_gain, sub_params, sub_gain);
    return buf;
}

static void scoped_is(const char *what, const char *extras, const char *root_params,
                      const char *sub_params, const char *root_gain, const char *sub_gain,
                      double want_root, double want_sub)
{
    double d[16];
    int n;
    char msg[1024];
    jg_status_t st = lin_d(scoped_model(extras, root_params, sub_params, root_gain, sub_gain), d,
                           &n, msg);
    int ok = !st && n == 2 && fabs(d[0] - want_root) <= 1e-12 && fabs(d[1] - want_sub) <= 1e-12;
    if (!tap_ok(ok, "%s", what)) {
        if (st) printf("#   %s\n", msg);
        else printf("#   got [%g; %g], expected [%g; %g]\n", d[0], d[1], want_root, want_sub);
    }
}

static void test_scoping(void)
{
    scoped_is("a SubSystem parameter shadows the model's", "", "`Kp`:1", "`Kp`:2", "Kp", "Kp", 1, 2);
    scoped_is("the model parameter is seen through a SubSystem without it", "", "`Kp`:1", "", "Kp",
              "3*Kp", 1, 3);
    scoped_is("mask self-name rule: k = 'k' reads the outer k", "", "`k`:3", "`k`:`k`", "k", "k",
              3, 3);
    scoped_is("mask self-name rule: k = '2*k'", "", "`k`:3", "`k`:`2*k`", "k", "k", 3, 6);
    scoped_is("alias chain {k: 'k2', k2: 3}", "", "`k`:`k2`,`k2`:3", "", "k", "k+1", 3, 4);
    scoped_is("an entry evaluates where it is defined (g = 'mu' at the root uses the root mu)",
              "", "`mu`:1,`g`:`mu`", "`mu`:5", "g", "g*10+mu", 1, 15);
    scoped_is("a mask entry reads other names from its own scope outwards", "", "`a`:2",
              "`b`:`a*a`", "a", "b", 2, 4);
    scoped_is("overrides beat every scope", "`overrides`:{`Kp`:10},", "`Kp`:1", "`Kp`:2", "Kp",
              "Kp", 10, 10);
    scoped_is("an override expression reads the chain below it (--set k=2*k)",
              "`overrides`:{`k`:`2*k`},", "`k`:3", "", "k", "k", 6, 6);
    scoped_is("an override reads mask parameters where it is used", "`overrides`:{`Kp`:`2*m`},",
              "`m`:1", "`m`:4", "Kp", "Kp", 2, 8);
    scoped_is("overrides reach names inside workspace entries", "`overrides`:{`m`:7},",
              "`g`:`m+1`,`m`:1", "", "g", "g", 8, 8);
    scoped_is("the base workspace is the last scope", "`workspace`:{`w`:4,`w2`:`w/2`},", "", "",
              "w", "w2", 4, 2);
    scoped_is("model parameters shadow the base workspace", "`workspace`:{`w`:4},", "`w`:1", "",
              "w", "w", 1, 1);
    scoped_is("a model parameter may read the base workspace", "`workspace`:{`w0`:5},",
              "`w`:`w0*2`", "", "w", "w", 10, 10);
    scoped_is("a base workspace entry does not see model parameters",
              "`workspace`:{`w`:`1`,`u`:`w`},", "`w`:9", "", "u", "w", 1, 9);

    /* 3000 blocks reading one mask variable: evaluated once, then cached */
    static char big[400000];
    size_t len = (size_t)snprintf(big, sizeof big,
                                  "{`parameters`:{`m`:`sqrt(4)/2`},`blocks`:[{`name`:`In1`,`type`:"
                                  "`Inport`,`Port`:1},{`name`:`Out1`,`type`:`Outport`,`Port`:1}");
    for (int k = 0; k < 3000; k++)
        len += (size_t)snprintf(big + len, sizeof big - len,
                                ",{`name`:`G%d`,`type`:`Gain`,`Gain`:`m`}", k);
    len += (size_t)snprintf(big + len, sizeof big - len, "],`lines`:[{`src`:`In1:1`,`dst`:`G0:1`}");
    for (int k = 1; k < 3000; k++)
        len += (size_t)snprintf(big + len, sizeof big - len, ",{`src`:`G%d:1`,`dst`:`G%d:1`}", k - 1, k);
    snprintf(big + len, sizeof big - len, ",{`src`:`G2999:1`,`dst`:`Out1:1`}]}");
    double d[16];
    int n;
    char msg[1024];
    jg_status_t st = lin_d(big, d, &n, msg);
    tap_ok(!st && n == 1 && d[0] == 1, "3000 gains reading one workspace expression");
    if (st) printf("#   %s\n", msg);

    /* the Fcn block's names use the same lookup */
    gain_is("Fcn reads overrides and the base workspace",
            "`overrides`:{`Kp`:5},`workspace`:{`c`:2},", "1", 1);
    char *fcn = "{`overrides`:{`Kp`:5},`workspace`:{`c`:`Kp+1`},`blocks`:["
                "{`name`:`In1`,`type`:`Inport`,`Port`:1},{`name`:`F`,`type`:`Fcn`,`Expr`:`Kp*c*u`},"
                "{`name`:`Out1`,`type`:`Outport`,`Port`:1}],"
                "`lines`:[{`src`:`In1:1`,`dst`:`F:1`},{`src`:`F:1`,`dst`:`Out1:1`}]}";
    st = lin_d(fcn, d, &n, msg);
    tap_ok(!st && n == 1 && d[0] == 30, "Fcn: Kp from the overrides, c = 'Kp+1' from the base workspace");
    if (st) printf("#   %s\n", msg);
}

static void test_errors(void)
{
    error_is("undefined name inside an expression: where it looked",
             scoped_model("", "`x`:1", "`y`:1", "1", "2*Kp"), JG_PARAM,
             "block 'S/Inner/G' (Gain), parameter 'Gain': undefined variable 'Kp' in \"2*Kp\" "
             "(column 3; looked in SubSystem 'S' parameters, the model parameters, the base "
             "workspace)");
    /* the one-Gain model of gain_model: workspace fields, the Gain, the error */
    static const struct {
        const char *what, *extras, *gain;
        jg_status_t st;
        const char *msg;
    } t[] = {
        {"an unknown bare name", "", "`kk`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': unknown workspace name 'kk' (looked in the "
         "model parameters, the base workspace)"},
        {"the overrides are listed when present", "`overrides`:{`a`:1},", "`kk`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': unknown workspace name 'kk' (looked in the "
         "overrides, the model parameters, the base workspace)"},
        {"a syntax error with its column", "", "`2*(Kp`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': missing ')' in \"2*(Kp\" (column 3)"},
        {"unexpected token", "", "`[1 2]]`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': unexpected ']' in \"[1 2]]\" (column 6)"},
        {"a failing workspace entry names the entry", "`parameters`:{`g`:`2*Kq`},", "`g`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': in workspace entry 'g' (the model parameters): "
         "undefined variable 'Kq' in \"2*Kq\" (column 3; looked in the model parameters, the "
         "base workspace)"},
        {"a cycle", "`parameters`:{`a`:`b+1`,`b`:`a`},", "`a`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': in workspace entry 'a' (the model parameters): "
         "in workspace entry 'b' (the model parameters): workspace names refer to each other "
         "in a cycle at 'a'"},
        {"k = 'k' at the top: the own name is looked for further out only", "`parameters`:{`k`:`k`},", "`k`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': in workspace entry 'k' (the model parameters): "
         "unknown workspace name 'k' (looked in the base workspace)"},
        {"a string where a number is needed", "", "`'abc'`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': \"'abc'\" is the string 'abc', expected a number"},
        {"a dimension error", "", "`[1 2] + [1 2 3]`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': matrix dimensions must agree: 1x2 and 1x3 in "
         "\"[1 2] + [1 2 3]\" (column 7)"},
        {"a bad workspace array", "`workspace`:{`w`:[1,`a`]},", "`w`", JG_PARAM,
         "block 'G' (Gain), parameter 'Gain': workspace entry 'w' (the base workspace): "
         "element (1,2) is not a number"},
        {"\"workspace\" must be an object", "`workspace`:3,", "1", JG_MODEL,
         "<test>: \"workspace\" must be an object"},
        {"\"overrides\" must be an object", "`overrides`:[1],", "1", JG_MODEL,
         "<test>: \"overrides\" must be an object"},
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        error_is(t[k].what, gain_model(t[k].extras, t[k].gain), t[k].st, t[k].msg);
}

/* Sum with "Inputs" and two or three root inputs: D is the row of signs. */
static void sum_is(const char *what, const char *params, const char *inputs, int nin,
                   const double *want)
{
    char buf[2048];
    size_t len = (size_t)snprintf(buf, sizeof buf, "{`parameters`:{%s},`blocks`:[", params);
    for (int k = 1; k <= nin; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                "{`name`:`In%d`,`type`:`Inport`,`Port`:%d},", k, k);
    len += (size_t)snprintf(buf + len, sizeof buf - len,
                            "{`name`:`S`,`type`:`Sum`,`Inputs`:%s},"
                            "{`name`:`Out1`,`type`:`Outport`,`Port`:1}],`lines`:[", inputs);
    for (int k = 1; k <= nin; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "{`src`:`In%d:1`,`dst`:`S:%d`},", k, k);
    snprintf(buf + len, sizeof buf - len, "{`src`:`S:1`,`dst`:`Out1:1`}]}");
    double d[16];
    int n;
    char msg[1024];
    jg_status_t st = lin_d(buf, d, &n, msg);
    int ok = !st && n == nin;
    for (int k = 0; ok && k < nin; k++) ok = d[k] == want[k];
    if (!tap_ok(ok, "%s", what) && st) printf("#   %s\n", msg);
}

static void test_str_or_num(void)
{
    static const double pm[] = {1, -1}, ppp[] = {1, 1, 1};
    sum_is("Sum Inputs \"+-\" is a sign list", "", "`+-`", 2, pm);
    sum_is("Sum Inputs \"|+-\" is a sign list", "", "`|+-`", 2, pm);
    sum_is("Sum Inputs \"3\" is a count", "", "`3`", 3, ppp);
    sum_is("Sum Inputs \"n\" is a workspace count", "`n`:3", "`n`", 3, ppp);
    sum_is("Sum Inputs \"n+1\" is an expression", "`n`:2", "`n+1`", 3, ppp);
    sum_is("Sum Inputs 3 (a JSON number)", "", "3", 3, ppp);
}

int main(void)
{
    test_expressions();
    test_scoping();
    test_errors();
    test_str_or_num();
    return tap_done();
}
