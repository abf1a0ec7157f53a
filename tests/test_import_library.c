/* Simulink library links resolved through lib/import/blockmap.c's library
 * templates: each link in a small hand-written MDL model, imported, compiled
 * and simulated, against sequences derived by hand from Simulink's
 * documented semantics; variants chosen by literal dialog values; refused
 * links carrying their reason; and, where the external corpus is present
 * beside the repository, the exact set of links the big library-coverage
 * model still refuses.  Runs from the repository root. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define NK 16       /* steps simulated */
#define MAXIO 4
#define MAXSIG 8

static char tmpdir[256];

/* The test inputs, as Fcn expressions of the clock k and as C. */
enum { IN_A, IN_E, IN_R, IN_C, NIN_KINDS };
static const char *const in_expr[] = {
    "sin(1.7*u)+0.1*u", "(sign(sin(1.3*u+0.5))+1)/2", "(sign(sin(0.8*u+2))+1)/2", "3*cos(0.9*u)"};
static double in_val(int kind, double k)
{
    switch (kind) {
    case IN_A: return sin(1.7 * k) + 0.1 * k;
    case IN_E: return (((sin(1.3 * k + 0.5) > 0) - (sin(1.3 * k + 0.5) < 0)) + 1) / 2.0;
    case IN_R: return (((sin(0.8 * k + 2) > 0) - (sin(0.8 * k + 2) < 0)) + 1) / 2.0;
    default: return 3 * cos(0.9 * k);
    }
}

typedef struct {
    const char *src;        /* SourceBlock as written in the MDL ("\\n" escapes allowed) */
    const char *params;     /* the instance's dialog values, MDL lines */
    int nin, nout;
    int in[MAXIO];          /* input kinds */
    double T;               /* the driving clock's period */
    int width;              /* elements per output (1 unless said) */
} case_t;

/* The MDL text: DigitalClock K (period T) -> Fcn Ui -> link L -> Outports. */
static char *case_mdl(const case_t *c)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    fprintf(f, "Model {\n Name \"lib\"\n System {\n  Name \"lib\"\n"
               "  Block {\n   BlockType DigitalClock\n   Name \"K\"\n   SampleTime \"%g\"\n  }\n",
            c->T);
    for (int i = 0; i < c->nin; i++)
        fprintf(f, "  Block {\n   BlockType Fcn\n   Name \"U%d\"\n   Expr \"%s\"\n  }\n", i + 1,
                in_expr[c->in[i]]);
    fprintf(f, "  Block {\n   BlockType Reference\n   Name \"L\"\n   Ports [%d, %d]\n"
               "   SourceBlock \"%s\"\n%s  }\n",
            c->nin, c->nout, c->src, c->params);
    for (int o = 0; o < c->nout; o++)
        fprintf(f, "  Block {\n   BlockType Outport\n   Name \"Y%d\"\n   Port \"%d\"\n  }\n", o + 1,
                o + 1);
    for (int i = 0; i < c->nin; i++)
        fprintf(f, "  Line {\n   SrcBlock \"K\"\n   SrcPort 1\n   DstBlock \"U%d\"\n   DstPort 1\n  }\n"
                   "  Line {\n   SrcBlock \"U%d\"\n   SrcPort 1\n   DstBlock \"L\"\n   DstPort %d\n  }\n",
                i + 1, i + 1, i + 1);
    for (int o = 0; o < c->nout; o++)
        fprintf(f, "  Line {\n   SrcBlock \"L\"\n   SrcPort %d\n   DstBlock \"Y%d\"\n   DstPort 1\n  }\n",
                o + 1, o + 1);
    fprintf(f, " }\n}\n");
    fclose(f);
    return s;
}

typedef struct {
    int nsig;
    double T;
    double y[NK][MAXSIG];
    int seen[NK];
} rec_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    (void)x;
    rec_t *r = user;
    long k = lround(t / r->T);
    if (k >= 0 && k < NK && fabs(t - k * r->T) < 1e-9) {
        for (int j = 0; j < r->nsig; j++) r->y[k][j] = sig[j];
        r->seen[k] = 1;
    }
    return 0;
}

/* Import, compile and simulate the case over NK periods. */
static jg_status_t run_case(const case_t *c, rec_t *r, jg_error_t *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/case.mdl", tmpdir);
    char *text = case_mdl(c);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    free(text);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    memset(r, 0, sizeof *r);
    r->T = c->T;
    jg_status_t st = jg_import_load(path, NULL, &m, err);
    if (!st) st = jg_program_compile(m, &p, err);
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE4, .t0 = 0, .tstop = (NK - 1) * c->T, .out_step = c->T};
    o.so.fixed_step = c->T;
    if (!st) st = jg_sim_create(p, &o, &s, err);
    if (!st) {
        r->nsig = (int)jg_sim_nlogged(s);
        if (r->nsig > MAXSIG) st = JG_INTERNAL;
    }
    if (!st) st = jg_sim_run(s, (NK - 1) * c->T, record, r, err);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

/* Compare with the hand sequence want[k][j]. */
static void check(const char *what, const case_t *c, double want[NK][MAXSIG], int nsig)
{
    rec_t r;
    jg_error_t err;
    memset(&err, 0, sizeof err);
    jg_status_t st = run_case(c, &r, &err);
    double e = 0;
    int seen = 1;
    for (int k = 0; !st && k < NK; k++) {
        seen &= r.seen[k];
        for (int j = 0; j < nsig; j++) e = fmax(e, fabs(r.y[k][j] - want[k][j]));
    }
    tap_ok(!st && r.nsig == nsig && seen && e < 1e-12, "%s (error %.1e over %d steps)", what, e, NK);
    if (st) printf("#   %s\n", err.msg);
    else if (e >= 1e-12)
        for (int k = 0; k < NK; k++)
            printf("#   k=%d got %.6g want %.6g\n", k, r.y[k][0], want[k][0]);
}

static double U(const case_t *c, int i, int k) { return in_val(c->in[i], k * c->T); }
static int truth(double v) { return v != 0; }

/* ---- logic ---- */

static void test_detect(void)
{
    double w[NK][MAXSIG] = {{0}};
    case_t inc = {"simulink/Logic and Bit\\nOperations/Detect\\nIncrease", "   vinit \"0.5\"\n",
                  1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&inc, 0, k) > (k ? U(&inc, 0, k - 1) : 0.5);
    check("Detect Increase: u(n) > u(n-1), u(-1) = vinit", &inc, w, 1);

    case_t chg = {"simulink/Logic and Bit Operations/Detect Change", "   vinit \"1\"\n",
                  1, 1, {IN_E}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&chg, 0, k) != (k ? U(&chg, 0, k - 1) : 1);
    check("Detect Change: u(n) ~= u(n-1)", &chg, w, 1);

    /* edges of c(u) = (u OP 0), the previous c from vinit */
    static const struct {
        const char *name;
        int op;   /* 0 >, 1 >=, 2 <, 3 <= */
        const char *vinit;
    } e[] = {{"Detect Rise\\nPositive", 0, "0"}, {"Detect Rise\\nNonnegative", 1, "1"},
             {"Detect Fall\\nNegative", 2, "0"}, {"Detect Fall\\nNonpositive", 3, "1"}};
    for (size_t q = 0; q < sizeof e / sizeof *e; q++) {
        char src[128], par[64];
        snprintf(src, sizeof src, "simulink/Logic and Bit\\nOperations/%s", e[q].name);
        snprintf(par, sizeof par, "   vinit \"%s\"\n", e[q].vinit);
        case_t c = {src, par, 1, 1, {IN_E}, 1, 1};
        int prev = atof(e[q].vinit) != 0;
        /* E takes 0 and 1 (0 is the edge case of the >= / <= forms) */
        for (int k = 0; k < NK; k++) {
            double u = U(&c, 0, k);
            int cnow = e[q].op == 0 ? u > 0 : e[q].op == 1 ? u >= 0 : e[q].op == 2 ? u < 0 : u <= 0;
            w[k][0] = cnow && !prev;
            prev = cnow;
        }
        char what[160];
        snprintf(what, sizeof what, "%s: c(u) AND NOT c(u(n-1)), c(u(-1)) = %s", e[q].name,
                 e[q].vinit);
        check(what, &c, w, 1);
    }
}

static void test_interval(void)
{
    double w[NK][MAXSIG] = {{0}};
    case_t c = {"simulink/Logic and Bit\\nOperations/Interval Test",
                "   IntervalClosedRight off\n   uplimit \"1\"\n   IntervalClosedLeft on\n"
                "   lowlimit \"0\"\n",
                1, 1, {IN_E}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&c, 0, k) >= 0 && U(&c, 0, k) < 1;
    check("Interval Test [0, 1): closed left, open right (E takes 0, 0.5, 1)", &c, w, 1);
    case_t d = {"simulink/Logic and Bit\\nOperations/Interval Test\\nDynamic",
                "   IntervalClosedRight on\n   IntervalClosedLeft off\n", 3, 1,
                {IN_R, IN_A, IN_E}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&d, 1, k) <= U(&d, 0, k) && U(&d, 1, k) > U(&d, 2, k);
    check("Interval Test Dynamic (lo, up]: inputs up, u, lo", &d, w, 1);
    case_t z = {"simulink/Logic and Bit\\nOperations/Compare\\nTo Zero", "   relop \">\"\n", 1, 1,
                {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&z, 0, k) > 0;
    check("Compare To Zero with relop >", &z, w, 1);
}

/* ---- discontinuities and math ---- */

static void test_math(void)
{
    double w[NK][MAXSIG] = {{0}};
    case_t wz = {"simulink/Discontinuities/Wrap To Zero", "   Threshold \"0.5\"\n", 1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&wz, 0, k) > 0.5 ? 0 : U(&wz, 0, k);
    check("Wrap To Zero: 0 above Threshold", &wz, w, 1);

    case_t cf = {"simulink/Discontinuities/Coulomb &\\nViscous Friction",
                 "   offset \"[2 -1]\"\n   gain \"3\"\n", 1, 1, {IN_A}, 1, 2};
    for (int k = 0; k < NK; k++) {
        double u = U(&cf, 0, k), sg = (u > 0) - (u < 0);
        w[k][0] = sg * (3 * fabs(u) + 2);
        w[k][1] = sg * (3 * fabs(u) - 1);
    }
    check("Coulomb & Viscous Friction: sign(u) (gain |u| + offset), vector offset", &cf, w, 2);

    case_t dz = {"simulink/Additional Math\\n& Discrete/Additional Math:\\nIncrement - "
                 "Decrement/Decrement\\nTo Zero", "", 1, 1, {IN_C}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = fmax(U(&dz, 0, k) - 1, 0);
    check("Decrement To Zero: max(u - 1, 0)", &dz, w, 1);

    case_t dt = {"simulink/Additional Math\\n& Discrete/Additional Math:\\nIncrement - "
                 "Decrement/Decrement Time\\nTo Zero", "", 1, 1, {IN_C}, 0.25, 1};
    for (int k = 0; k < NK; k++) w[k][0] = fmax(U(&dt, 0, k) - 0.25, 0);
    check("Decrement Time To Zero at T = 0.25: max(u - T, 0)", &dt, w, 1);

    case_t ir = {"simulink/Additional Math & Discrete/Additional Math: Increment - "
                 "Decrement/Increment Stored Integer", "", 1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&ir, 0, k) + 1;
    check("Increment Stored Integer on a double: u + 1", &ir, w, 1);

    case_t sn = {"simulink/Lookup\\nTables/Sine", "   Formula \"sin(2*pi*u)\"\n", 1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = sin(2 * M_PI * U(&sn, 0, k));
    check("Sine: sin(2 pi u), exact", &sn, w, 1);
    case_t cs = {"simulink/Lookup\\nTables/Cosine", "", 1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = cos(2 * M_PI * U(&cs, 0, k));
    check("Cosine (default Formula): cos(2 pi u)", &cs, w, 1);

    case_t ec = {"simulink/Signal\\nRouting/Environment\\nController", "", 2, 1, {IN_A, IN_C}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = U(&ec, 0, k);
    check("Environment Controller passes the Sim input", &ec, w, 1);

    case_t mm = {"simulink/Math\\nOperations/MinMax\\nRunning\\nResettable",
                 "   Function \"max\"\n   vinit \"-1\"\n", 2, 1, {IN_A, IN_R}, 1, 1};
    double y = -1;
    for (int k = 0; k < NK; k++) {
        y = truth(U(&mm, 1, k)) ? -1 : fmax(U(&mm, 0, k), y);
        w[k][0] = y;
    }
    /* its delay inherits its rate around a feedback loop, which the compiler
     * does not resolve yet: the import must succeed and the compile say so */
    rec_t r;
    jg_error_t err;
    memset(&err, 0, sizeof err);
    jg_status_t st = run_case(&mm, &r, &err);
    if (!st) {
        int ok = 1;
        for (int k = 0; k < NK; k++) ok &= fabs(r.y[k][0] - w[k][0]) < 1e-12;
        tap_ok(ok, "MinMax Running Resettable (max): y = R ? vinit : max(u, y(n-1))");
    } else {
        tap_ok(st == JG_MODEL && strstr(err.msg, "cannot inherit a sample time"),
               "# SKIP MinMax Running Resettable imports; its simulation needs loop-aware "
               "sample-time inheritance");
        printf("#   %s\n", err.msg);
    }
}

/* ---- discrete ---- */

static void test_discrete(void)
{
    double w[NK][MAXSIG] = {{0}};
    case_t fo = {"simulink/Discrete/Transfer Fcn\\nFirst Order",
                 "   PoleZ \"0.5\"\n   ICPrevOutput \"2\"\n", 1, 1, {IN_A}, 1, 1};
    double y = 2, up = 0;
    for (int k = 0; k < NK; k++) w[k][0] = y = 0.5 * y + 0.5 * U(&fo, 0, k);
    check("Transfer Fcn First Order: y = p y(n-1) + (1 - p) u, y(-1) = ICPrevOutput", &fo, w, 1);

    case_t ll = {"simulink/Discrete/Transfer Fcn\\nLead or Lag",
                 "   PoleZ \"0.5\"\n   ZeroZ \"0.25\"\n   ICPrevOutput \"1\"\n   ICPrevInput \"2\"\n",
                 1, 1, {IN_A}, 1, 1};
    y = 1, up = 2;
    for (int k = 0; k < NK; k++) {
        double u = U(&ll, 0, k);
        w[k][0] = y = 0.5 * y + (0.5 / 0.75) * (u - 0.25 * up);
        up = u;
    }
    check("Transfer Fcn Lead or Lag: y = p y(n-1) + (1-p)/(1-z0) (u - z0 u(n-1))", &ll, w, 1);

    case_t rz = {"simulink/Discrete/Transfer Fcn\\nReal Zero", "   ZeroZ \"0.25\"\n   ICPrevInput \"1\"\n",
                 1, 1, {IN_A}, 1, 1};
    up = 1;
    for (int k = 0; k < NK; k++) {
        double u = U(&rz, 0, k);
        w[k][0] = (u - 0.25 * up) / 0.75;
        up = u;
    }
    check("Transfer Fcn Real Zero: (u - z0 u(n-1))/(1 - z0)", &rz, w, 1);

    case_t dd = {"simulink/Discrete/Discrete Derivative",
                 "   gainval \"2\"\n   ICPrevScaledInput \"0.5\"\n", 1, 1, {IN_A}, 0.5, 1};
    double wp = 0.5;
    for (int k = 0; k < NK; k++) {
        double wn = 2 * U(&dd, 0, k) / 0.5;
        w[k][0] = wn - wp;
        wp = wn;
    }
    check("Discrete Derivative at T = 0.5: K u/T - K u(n-1)/T", &dd, w, 1);

    case_t td = {"simulink/Discrete/Tapped Delay",
                 "   vinit \"0.5\"\n   samptime \"-1\"\n   NumDelays \"3\"\n   DelayOrder \"Oldest\"\n"
                 "   includeCurrent off\n", 1, 1, {IN_A}, 1, 3};
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < 3; j++) w[k][j] = k - 3 + j >= 0 ? U(&td, 0, k - 3 + j) : 0.5;
    check("Tapped Delay, 3 delays, oldest first: [u(n-3) u(n-2) u(n-1)]", &td, w, 3);
    case_t tn = {"simulink/Discrete/Tapped Delay",
                 "   NumDelays \"2\"\n   DelayOrder \"Newest\"\n   includeCurrent on\n", 1, 1,
                 {IN_A}, 1, 3};
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < 3; j++) w[k][j] = k - j >= 0 ? U(&tn, 0, k - j) : 0;
    check("Tapped Delay, 2 delays, newest first with the current input: [u(n) u(n-1) u(n-2)]",
          &tn, w, 3);

    case_t wm = {"simulink_need_slupdate/Weighted\\nMoving Average",
                 "   mgainval \"[0.5 0.3 0.2]\"\n   vinit \"1\"\n", 1, 1, {IN_A}, 1, 1};
    for (int k = 0; k < NK; k++) {
        double s = 0, g[3] = {0.5, 0.3, 0.2};
        for (int j = 0; j < 3; j++) s += g[j] * (k - j >= 0 ? U(&wm, 0, k - j) : 1);
        w[k][0] = s;
    }
    check("Weighted Moving Average: sum g(i) u(n-i+1), earlier inputs vinit", &wm, w, 1);

    case_t df = {"simulink/Additional Math\\n& Discrete/Additional\\nDiscrete/Transfer Fcn\\nDirect Form II",
                 "   NumCoefVec \"[1 0.5 0.25]\"\n   DenCoefVec \"[-0.5 0.06]\"\n   vinit \"0.2\"\n", 1, 1,
                 {IN_A}, 1, 1};
    double w1 = 0.2, w2 = 0.2;
    for (int k = 0; k < NK; k++) {
        double w0 = U(&df, 0, k) + 0.5 * w1 - 0.06 * w2;
        w[k][0] = w0 + 0.5 * w1 + 0.25 * w2;
        w2 = w1, w1 = w0;
    }
    check("Transfer Fcn Direct Form II: (1 + 0.5 z^-1 + 0.25 z^-2)/(1 - 0.5 z^-1 + 0.06 z^-2)", &df,
          w, 1);

    case_t ss = {"simulink/Additional Math\\n& Discrete/Additional\\nDiscrete/Fixed-Point\\nState-Space",
                 "   A \"[0.5 0.1; 0 0.3]\"\n   B \"[1; 2]\"\n   C \"[1 -1]\"\n   D \"[0.5]\"\n"
                 "   X0 \"1\"\n", 1, 1, {IN_A}, 1, 1};
    double x1 = 1, x2 = 1;
    for (int k = 0; k < NK; k++) {
        double u = U(&ss, 0, k);
        w[k][0] = x1 - x2 + 0.5 * u;
        double n1 = 0.5 * x1 + 0.1 * x2 + u, n2 = 0.3 * x2 + 2 * u;
        x1 = n1, x2 = n2;
    }
    check("Fixed-Point State-Space: x(n+1) = A x + B u, y = C x + D u", &ss, w, 1);
}

/* The Unit Delay family against one hand model: y = load ? ic : x with
 * load = R, or R or the first step with an external IC; x(n+1) = E ? u : y. */
static void ud_case(const char *name, const char *par, int hasE, int hasR, int ext)
{
    char src[256];
    snprintf(src, sizeof src,
             "simulink/Additional Math\\n& Discrete/Additional\\nDiscrete/Unit Delay\\n%s", name);
    case_t c = {src, par, 1 + hasE + hasR + ext, 1, {IN_A}, 1, 1};
    int n = 1, ie = 0, ir = 0, ic = 0;
    if (hasE) c.in[ie = n++] = IN_E;
    if (hasR) c.in[ir = n++] = IN_R;
    if (ext) c.in[ic = n++] = IN_C;
    double w[NK][MAXSIG] = {{0}}, x = 0.5;   /* vinit 0.5 where internal */
    for (int k = 0; k < NK; k++) {
        int load = (hasR && truth(U(&c, ir, k))) || (ext && k == 0);
        double y = load ? (ext ? U(&c, ic, k) : 0.5) : x;
        w[k][0] = y;
        x = !hasE || truth(U(&c, ie, k)) ? U(&c, 0, k) : y;
    }
    char what[256];
    snprintf(what, sizeof what, "Unit Delay %s: y = load ? IC : x, x(n+1) = E ? u : y",
             name);
    for (char *p = what; (p = strstr(p, "\\n"));) memmove(p, " ", 1), memmove(p + 1, p + 2, strlen(p + 2) + 1);
    check(what, &c, w, 1);
}

static void test_unit_delays(void)
{
    /* an explicit tsamp: these delays are in a feedback loop, and the compiler
     * does not resolve an inherited rate around a loop (tsamp -1 only works
     * where the delay is fed without one: Resettable) */
    const char *v = "   vinit \"0.5\"\n   tsamp \"1\"\n";
    ud_case("Enabled", v, 1, 0, 0);
    ud_case("Resettable", "   vinit \"0.5\"\n   tsamp \"-1\"\n", 0, 1, 0);
    ud_case("Enabled\\nResettable", v, 1, 1, 0);
    ud_case("External IC", "   tsamp \"1\"\n", 0, 0, 1);
    ud_case("Enabled\\nExternal IC", "   tsamp \"1\"\n", 1, 0, 1);
    ud_case("Resettable\\nExternal IC", "", 0, 1, 1);
    ud_case("Enabled\\nResettable\\nExternal IC", "   tsamp \"1\"\n", 1, 1, 1);

    /* with preview: y1 = R ? (RV or vinit) : u, y2 = x, x(n+1) = y1 */
    for (int rv = 0; rv < 2; rv++) {
        case_t c = {rv ? "simulink/Additional Math & Discrete/Additional Discrete/Unit Delay With "
                         "Preview Resettable External RV"
                       : "simulink/Additional Math & Discrete/Additional Discrete/Unit Delay With "
                         "Preview Resettable",
                    "   vinit \"0.5\"\n", 2 + rv, 2, {IN_A, IN_R, IN_C}, 1, 1};
        double w[NK][MAXSIG] = {{0}}, x = 0.5;
        for (int k = 0; k < NK; k++) {
            double y1 = truth(U(&c, 1, k)) ? (rv ? U(&c, 2, k) : 0.5) : U(&c, 0, k);
            w[k][0] = y1;
            w[k][1] = x;
            x = y1;
        }
        check(rv ? "Unit Delay With Preview Resettable External RV: y1 = R ? RV : u, y2 = y1(n-1)"
                 : "Unit Delay With Preview Resettable: y1 = R ? vinit : u, y2 = y1(n-1)",
              &c, w, 2);
    }
}

/* ---- sources ---- */

static void test_sources(void)
{
    double w[NK][MAXSIG] = {{0}};
    case_t cl = {"simulink/Sources/Counter\\nLimited", "   uplimit \"3\"\n   tsamp \"1\"\n", 0, 1, {0}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = k % 4;
    check("Counter Limited to 3: 0 1 2 3 0 ...", &cl, w, 1);
    case_t cf = {"simulink/Sources/Counter\\nFree-Running", "   NumBits \"2\"\n   tsamp \"0.5\"\n", 0, 1,
                 {0}, 0.5, 1};
    for (int k = 0; k < NK; k++) w[k][0] = k % 4;
    check("Counter Free-Running, 2 bits: wraps at 2^NumBits", &cf, w, 1);
    case_t rs = {"simulink/Sources/Repeating\\nSequence\\nStair", "   OutValues \"[3 1 4].'\"\n   tsamp \"1\"\n",
                 0, 1, {0}, 1, 1};
    for (int k = 0; k < NK; k++) w[k][0] = (double[]){3, 1, 4}[k % 3];
    check("Repeating Sequence Stair [3 1 4]", &rs, w, 1);
    case_t ri = {"simulink/Sources/Repeating\\nSequence\\nInterpolated",
                 "   OutValues \"[0 2 1].'\"\n   TimeValues \"[0 1 4].'\"\n"
                 "   LookUpMeth \"Interpolation-Use End Values\"\n   tsamp \"0.5\"\n",
                 0, 1, {0}, 0.5, 1};
    for (int k = 0; k < NK; k++) {
        double t = fmod(k * 0.5, 4);
        w[k][0] = t <= 1 ? 2 * t : 2 - (t - 1) / 3;
    }
    check("Repeating Sequence Interpolated: interp1 over mod(t, 4)", &ri, w, 1);
    case_t ch = {"simulink/Sources/Chirp Signal", "   f1 \"0.1\"\n   T \"10\"\n   f2 \"1\"\n", 0, 1,
                 {0}, 0.25, 1};
    for (int k = 0; k < NK; k++) {
        double t = k * 0.25;
        w[k][0] = sin(2 * M_PI * (0.1 * t + 0.9 * t * t / 20));
    }
    check("Chirp Signal: sin(2 pi (f1 t + (f2 - f1) t^2/(2 T)))", &ch, w, 1);
}

/* ---- sinks and refusals ---- */

static void test_sinks_and_refusals(void)
{
    case_t sr = {"simulink/Model\\nVerification/Check \\nDynamic Range", "   enabled on\n", 3, 0,
                 {IN_A, IN_C, IN_E}, 1, 1};
    double w[NK][MAXSIG] = {{0}};
    check("Check Dynamic Range: a sink of its three inputs", &sr, w, 0);

    static const struct {
        const char *src, *par, *want;
        int nin, nout;
    } bad[] = {
        {"simulink/Logic and Bit\\nOperations/Bit Set", "   iBit \"0\"\n", "bit operations", 1, 1},
        {"simulink/Lookup\\nTables/Sine", "   Formula \"exp(j*2*pi*u)\"\n", "only the Formulas", 1, 1},
        {"simulink/Discrete/Tapped Delay", "   DelayOrder \"Middle\"\n", "DelayOrder", 1, 1},
        {"simulink/Sources/Repeating\\nSequence\\nInterpolated",
         "   LookUpMeth \"Use Input Below\"\n", "Interpolation-Use End Values", 0, 1},
        {"simulink/Model-Wide\\nUtilities/Trigger-Based\\nLinearization", "", "analysis block", 0, 0},
        {"mylib/Nothing Like It", "", "not in jacgraph's library table", 1, 1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        case_t c = {bad[k].src, bad[k].par, bad[k].nin, bad[k].nout, {IN_A}, 1, 1};
        rec_t r;
        jg_error_t err;
        memset(&err, 0, sizeof err);
        jg_status_t st = run_case(&c, &r, &err);
        tap_ok(st == JG_MODEL && strstr(err.msg, "'L'") == NULL && strstr(err.msg, bad[k].want),
               "refused link names why: %s", bad[k].want);
        printf("#   %s\n", err.msg);
    }
}

/* ---- the external corpus: the library-coverage model ---- */

static void test_corpus(void)
{
    const char *file = tl_corpus("EmbSys-WWU__Simulink2dL__ports_2013a.mdl");
    if (tl_corpus_absent(file, "library links of the external corpus")) return;
    /* the links refused, by path (newlines in names as blanks) */
    static const char *const want[] = {
        "Additional Math & Discrete/Additional Discrete/Transfer Fcn Direct Form II Time Varying",
        "Additional Math & Discrete/Additional Discrete/Unit Delay With Preview Enabled",
        "Additional Math & Discrete/Additional Discrete/Unit Delay With Preview Enabled Resettable",
        "Additional Math & Discrete/Additional Discrete/Unit Delay With Preview Enabled Resettable "
        "External RV",
        "Discontinuities/Rate Limiter Dynamic",
        "Discrete/First-Order Hold",
        "Logic and Bit Operations/Bit Clear",
        "Logic and Bit Operations/Bit Set",
        "Logic and Bit Operations/Bitwise Operator",
        "Logic and Bit Operations/Extract Bits",
        "Lookup Tables/Interpolation (n-D) using PreLookup",
        "Lookup Tables/Lookup Table Dynamic",
        "Lookup Tables/PreLookup Index Search",
        "Model-Wide Utilities/Timed-Based Linearization",
        "Model-Wide Utilities/Trigger-Based Linearization",
        "Signal Attributes/Data Type Conversion Inherited",
        "Signal Attributes/Data Type Propagation",
        "Signal Attributes/Data Type Propagation Examples",
        "Signal Attributes/Data Type Scaling Strip",
        "User-Defined Functions/S-Function Examples",
    };
    jg_status_t st;
    char *list = tl_import_problems(file, &st);
    /* problems are "\n  PATH (TYPE): reason" */
    char *got[256];
    int ngot = 0, untabled = 0, noreason = 0;
    for (const char *p = strstr(list, "\n  "); p && ngot < 256; p = strstr(p + 1, "\n  ")) {
        const char *s = p + 3, *e = strstr(s, "\n  "), *ty = strstr(s, " (Reference): ");
        if (!ty || (e && ty > e)) continue;
        char *path = strndup(s, (size_t)(ty - s));
        for (char *q = path; *q; q++)
            if (*q == '\n') *q = ' ';
        for (char *q; (q = strstr(path, "  "));) memmove(q, q + 1, strlen(q));
        got[ngot++] = path;
        const char *why = ty + 14;
        untabled += !strncmp(why, "library block", 13) && strstr(why, "not in jacgraph's library table") &&
                    (!e || strstr(why, "not in jacgraph's library table") < e);
        noreason += !strstr(why, "': ") || (e && strstr(why, "': ") > e);
    }
    const int nwant = (int)(sizeof want / sizeof *want);
    int same = tl_same_strs(got, ngot, want, nwant) && st == JG_MODEL;
    tap_ok(same && !untabled && !noreason,
           "ports_2013a.mdl: exactly the %d refused library links fail, each with its reason "
           "(got %d)", nwant, ngot);
    free(list);
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_import_library")) return 1;
    test_detect();
    test_interval();
    test_math();
    test_discrete();
    test_unit_delays();
    test_sources();
    test_sinks_and_refusals();
    test_corpus();
    tl_rmtree(tmpdir);
    return tap_done();
}
