/* test_linearize.c -- the linearizer (lib/linearize, jacgraph/linearize.h):
 * every path (graph with each reduction, matrix, perturbation) against
 * hand-derived results, I/O points and loop openings, operating points and
 * --op files, numeric replay, and the errors for bad points.  The graph
 * itself is tests/test_graph.c, loop solving tests/test_eval.c. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* G(s) = C (sI - A)^-1 B + D for a SISO system, by dense complex elimination. */
static double complex tf_eval(const jg_lin_sys_t *s, double complex z)
{
    int64_t n = s->nx;
    double complex *M = calloc((size_t)(n * (n + 1) + 1), sizeof *M);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++) M[i * (n + 1) + j] = (i == j ? z : 0) - fx_entry(s->A, i, j);
        M[i * (n + 1) + n] = fx_entry(s->B, i, 0);
    }
    for (int64_t k = 0; k < n; k++) {   /* Gaussian elimination with partial pivoting */
        int64_t piv = k;
        for (int64_t i = k + 1; i < n; i++)
            if (cabs(M[i * (n + 1) + k]) > cabs(M[piv * (n + 1) + k])) piv = i;
        for (int64_t j = 0; j <= n; j++) {
            double complex t = M[k * (n + 1) + j];
            M[k * (n + 1) + j] = M[piv * (n + 1) + j];
            M[piv * (n + 1) + j] = t;
        }
        for (int64_t i = k + 1; i < n; i++) {
            double complex f = M[i * (n + 1) + k] / M[k * (n + 1) + k];
            for (int64_t j = k; j <= n; j++) M[i * (n + 1) + j] -= f * M[k * (n + 1) + j];
        }
    }
    double complex *x = calloc((size_t)n + 1, sizeof *x);
    for (int64_t i = n - 1; i >= 0; i--) {
        double complex acc = M[i * (n + 1) + n];
        for (int64_t j = i + 1; j < n; j++) acc -= M[i * (n + 1) + j] * x[j];
        x[i] = acc / M[i * (n + 1) + i];
    }
    double complex g = fx_entry(s->D, 0, 0);
    for (int64_t j = 0; j < n; j++) g += fx_entry(s->C, 0, j) * x[j];
    free(M);
    free(x);
    return g;
}


static void test_vdp(void)
{
    fx_t f;
    tap_ok(!fx_load(&f, tl_vdp, NULL), "vdp compiles");
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-14;
        char name[96];
        snprintf(name, sizeof name, "vdp at (2,0), mu=1, %s: A = [0 1; -1 -3]", paths[k].name);
        tap_ok(!st && s && s->nx == 2 && fabs(fx_entry(s->A, 0, 0)) <= tol &&
                   fabs(fx_entry(s->A, 0, 1) - 1) <= tol && fabs(fx_entry(s->A, 1, 0) + 1) <= tol &&
                   fabs(fx_entry(s->A, 1, 1) + 3) <= tol,
               "%s", name);
        jg_lin_sys_free(s);
    }
    /* numeric replay at another operating point: (1, 1) gives [0 1; -3 0] */
    double *x = jg_lin_states(f.l);
    x[0] = 1;
    x[1] = 1;
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
        double tol = paths[k].m == JG_LIN_PERTURB ? 1e-7 : 1e-14;
        tap_ok(!st && fabs(fx_entry(s->A, 1, 0) + 3) <= tol && fabs(fx_entry(s->A, 1, 1)) <= tol &&
                   fabs(fx_entry(s->A, 0, 1) - 1) <= tol,
               "vdp replayed at (1,1), %s: A = [0 1; -3 0]", paths[k].name);
        jg_lin_sys_free(s);
    }
    fx_unload(&f);
}

/* In1 -> TF 1/(s^2+3s+2) -> SS (A=-4, B=1, C=2) -> ZeroPole 2(s+3)/((s+1)(s+5)) -> Out1:
 * G(s) = 4 (s+3) / ((s+1)^2 (s+2) (s+4) (s+5)), whatever the realizations. */
static const char cascade[] =
    "{\"name\":\"cascade\",\"blocks\":["
    "{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
    "{\"name\":\"TF\",\"type\":\"TransferFcn\",\"Numerator\":[1],\"Denominator\":[1,3,2]},"
    "{\"name\":\"SS\",\"type\":\"StateSpace\",\"A\":-4,\"B\":1,\"C\":2,\"D\":0},"
    "{\"name\":\"ZP\",\"type\":\"ZeroPole\",\"Zeros\":[-3],\"Poles\":[-1,-5],\"Gain\":2},"
    "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
    "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"TF:1\"},{\"src\":\"TF:1\",\"dst\":\"SS:1\"},"
    "{\"src\":\"SS:1\",\"dst\":\"ZP:1\"},{\"src\":\"ZP:1\",\"dst\":\"Out1:1\"}]}";

static void test_cascade(void)
{
    fx_t f;
    tap_ok(!fx_load(&f, cascade, NULL), "TransferFcn/StateSpace/ZeroPole cascade compiles");
    const double complex pts[] = {1.0, 2.0 * I, 0.5 + 3.0 * I, -0.5 + 0.25 * I};
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
        double worst = st ? INFINITY : 0;
        for (size_t q = 0; !st && q < sizeof pts / sizeof *pts; q++) {
            double complex z = pts[q];
            double complex g = 4 * (z + 3) / ((z + 1) * (z + 1) * (z + 2) * (z + 4) * (z + 5));
            worst = fmax(worst, cabs(tf_eval(s, z) - g) / cabs(g));
        }
        tap_ok(!st && s->nx == 5 && worst < (paths[k].m == JG_LIN_PERTURB ? 1e-6 : 1e-12),
               "cascade %s: transfer function 4(s+3)/((s+1)^2(s+2)(s+4)(s+5)) (rel err %.1e)",
               paths[k].name, worst);
        jg_lin_sys_free(s);
    }
    fx_unload(&f);
}

/* Loop In1 -> Sum(+-) -> Integrator, Sum -> G(2) -> Sum:2. */
static const char loop[] =
    "{\"name\":\"loop\",\"blocks\":["
    "{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
    "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"+-\"},"
    "{\"name\":\"G\",\"type\":\"Gain\",\"Gain\":2},"
    "{\"name\":\"x\",\"type\":\"Integrator\"},"
    "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
    "\"lines\":[{\"src\":\"In1:1\",\"dst\":\"Sum:1\"},{\"src\":\"Sum:1\",\"dst\":[\"G:1\",\"x:1\"]},"
    "{\"src\":\"G:1\",\"dst\":\"Sum:2\"},{\"src\":\"x:1\",\"dst\":\"Out1:1\"}]}";

static void test_loop_and_io(void)
{
    fx_t f;
    tap_ok(!fx_load(&f, loop, NULL), "linear algebraic loop compiles");
    tap_ok(jg_program_nloops(f.p) == 1 && !strcmp(jg_program_loop_names(f.p, 0), "Sum, G"),
           "one algebraic loop through Sum, G");
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
        tap_ok(!st && fabs(fx_entry(s->B, 0, 0) - 1.0 / 3) < 1e-9 && fabs(fx_entry(s->C, 0, 0) - 1) < 1e-9,
               "loop %s: B = 1/(1+2), C = 1", paths[k].name);
        jg_lin_sys_free(s);
    }
    fx_unload(&f);
    /* open the loop at G:1 with an input and an output there: z = -2 w */
    const char *pt[] = {"G:1"};
    jg_lin_opts_t o = {.nin = 1, .in = pt, .nout = 1, .out = pt, .nopen = 1, .open = pt,
                       .no_defaults = 1};
    tap_ok(!fx_load(&f, loop, &o), "loop opened at G:1");
    for (int k = 0; k < NPATHS; k++) {
        jg_lin_sys_t *s = NULL;
        jg_status_t st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
        tap_ok(!st && s->nu == 1 && s->ny == 1 && fabs(fx_entry(s->D, 0, 0) + 2) < 1e-9 &&
                   fabs(fx_entry(s->B, 0, 0) + 1) < 1e-9 && !strcmp(s->input_names[0], "G:1"),
               "open loop %s: D = -2 (loop transfer), B = -1", paths[k].name);
        jg_lin_sys_free(s);
    }
    fx_unload(&f);
    /* closed-loop input at the Sum output: consumers see Sum + w */
    const char *in2[] = {"Sum:1"}, *out2[] = {"G:1"};
    jg_lin_opts_t o2 = {.nin = 1, .in = in2, .nout = 1, .out = out2, .no_defaults = 1};
    tap_ok(!fx_load(&f, loop, &o2), "loop with an input at Sum:1");
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    /* Sum = -2 (Sum + w) => Sum = -2w/3; G = 2 (Sum + w) = 2w/3; x' = Sum + w = w/3 */
    tap_ok(!st && fabs(fx_entry(s->D, 0, 0) - 2.0 / 3) < 1e-12 && fabs(fx_entry(s->B, 0, 0) - 1.0 / 3) < 1e-12,
           "closed-loop input at Sum:1: D = 2/3, B = 1/3");
    jg_lin_sys_free(s);
    fx_unload(&f);
}

static void test_errors(void)
{
    fx_t f;
    jg_status_t st;
    /* bad I/O point */
    const char *bad[] = {"Nope:1"};
    jg_lin_opts_t o = {.nin = 1, .in = bad};
    st = fx_load(&f, loop, &o);
    tap_ok(st == JG_ARG, "unknown block in --input: %s", jg_status_name(st));
    tap_streq(f.err.msg, "--input Nope:1: no block 'Nope' in the model", "unknown I/O block message");
    fx_unload(&f);
    const char *bad2[] = {"G:2"};
    jg_lin_opts_t o2 = {.nout = 1, .out = bad2};
    st = fx_load(&f, loop, &o2);
    tap_streq(f.err.msg, "--output G:2: block 'G' (Gain) has 1 output port", "port out of range");
    fx_unload(&f);
}

/* Operating point file. */
static void test_op_file(void)
{
    fx_t f;
    tap_ok(!fx_load(&f, tl_vdp, NULL), "vdp for --op");
    char dir[256], path[300];
    if (!tl_tmpdir(dir, sizeof dir, "test_linearize")) dir[0] = '\0';
    snprintf(path, sizeof path, "%s/op.json", dir);
    tl_write_file(path, "{\"t\": 1.5, \"states\": {\"x1\": 1, \"x2\": [1]}}");
    jg_status_t st = jg_lin_read_op(f.l, path, &f.err);
    jg_lin_sys_t *s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(!st && s->t == 1.5 && fabs(fx_entry(s->A, 1, 0) + 3) < 1e-14, "op file sets t and states");
    jg_lin_sys_free(s);
    tl_write_file(path, "{\"states\": {\"x3\": 1}}");
    st = jg_lin_read_op(f.l, path, &f.err);
    char want[512];
    snprintf(want, sizeof want,
             "%s: unknown state \"x3\" (expected the path of a block with states, or PATH(k) for "
             "element k)",
             path);
    tap_ok(st == JG_ARG, "unknown state in op file is an error");
    tap_streq(f.err.msg, want, "unknown state message");
    remove(path);
    rmdir(dir);
    fx_unload(&f);
}

int main(void)
{
    test_vdp();
    test_cascade();
    test_loop_and_io();
    test_errors();
    test_op_file();
    return tap_done();
}
