/* jacgraph sparsing: how a sparsing of the solver Jacobian changes the
 * linearly implicit Euler step of a model ("Sparsing of Jacobians"; the
 * measures of jacgraph/sparsing.h): at one point, or along a simulation
 * (--trajectory, the paper's Figure 1). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jacgraph/io.h"
#include "jacgraph/plot.h"
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"
#include "jacgraph/sparsing.h"

int cmd_sparsing(int argc, char **argv);

static const char help[] =
    "usage: jacgraph sparsing MODEL --step H [options]\n"
    "\n"
    "How replacing entries of the solver Jacobian J = df/dx by zero (a sparsing A)\n"
    "changes the linearly implicit Euler step of MODEL with step H: the evolution\n"
    "matrices M0 = I + H (I - HJ)^-1 J and M1 = I + H (I - HA)^-1 J, E = M1 - M0, and\n"
    "  d1 = |tr E|, d2 = sqrt|tr E^2|, dS (eq. 2 of \"Sparsing of Jacobians\"),\n"
    "  dr = sum |lt_i - l_i|, dr2 = sqrt(sum |lt_i - l_i|^2) (the true changes of\n"
    "  the eigenvalues, paired by a minimum-cost assignment),\n"
    "  C1 = min r_i, C2 = min r_i^2, r_i = |1 - |l_i|| over the modes that are not\n"
    "  slow, and the checks d1 < C1, d2 < C2;\n"
    "the kept and dropped entries and the predicted saving (entries, colors of the\n"
    "colored Jacobian, LU fill of I - HJ vs I - HA).  Dense: at most 2000 states.\n"
    "See docs/sparsing.md.\n"
    "\n"
    "  --step H            the step of the linearly implicit Euler method (required)\n"
    "  --at T              simulate to time T first (default: the start time)\n"
    "  --op FILE           evaluate J at an operating point file instead\n"
    "  --start T0          start time (default 0)\n"
    "  --solver NAME       solver of the --at run (default ode45)\n"
    "  --rtol R --atol A   its tolerances (default 1e-6, 1e-9)\n"
    "  --method M          solver Jacobian method (default sparse-analytical: the\n"
    "                      structural pattern, whatever the state count; see\n"
    "                      'jacobian')\n"
    "  --mask FILE         the entries to drop: JSON {\"drop\": [[row, col], ...]}\n"
    "                      (0-based, or state names) or Matrix Market (1-based)\n"
    "  --auto              choose: drop off-diagonal entries in order of their\n"
    "                      individual estimate while both checks hold\n"
    "  --mixed-mode        choose states to integrate explicitly (their row and\n"
    "                      column dropped) where explicit Euler is stable for them\n"
    "  --slow-threshold S  mode i of J is slow when H |mu_i| < S; slow modes are\n"
    "                      left out of C1, C2 (default 0.1; 0 keeps every mode)\n"
    "  --format F          text (default) or json\n"
    "  --trajectory PREFIX evaluate the quantities at every step of an lie run with\n"
    "                      step H from the start time to --stop T, the sparsing\n"
    "                      fixed as chosen at the analysis point; write PREFIX.csv\n"
    "                      and PREFIX.svg (d1, d2, dr against the time step)\n"
    "  --stop T            end of the --trajectory run\n";

/* the mask file's entries into keep; an entry outside J's pattern is an
 * error naming it (dropping a zero would silently do nothing) */
static jg_status_t read_mask(const char *path, const jg_program_t *p, const cs_dl *J, unsigned char *keep,
                             jg_error_t *err)
{
    int64_t *pairs = NULL, np = 0;
    jg_status_t st = jg_io_read_mask(path, p, &pairs, &np, err);
    int64_t k = st ? -1 : jg_solverjac_keep_from_drop(J, pairs, np, keep);
    if (k >= 0) {
        int64_t row = pairs[2 * k], col = pairs[2 * k + 1];
        st = jg_error_set(err, JG_ARG,
                          "%s: \"drop\" entry %lld: (%lld, %lld) (%s <- %s) is not an entry of J's "
                          "pattern (see 'jacgraph jacobian')",
                          path, (long long)k + 1, (long long)row, (long long)col, jg_program_state_name(p, row),
                          jg_program_state_name(p, col));
    }
    free(pairs);
    return st;
}

/* the time of an operating point file ({"t": T, ...}; 0 when absent) */
static jg_status_t op_time(const char *path, double *t, jg_error_t *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    json_t *v = json_object_get(root, "t");
    *t = json_is_number(v) ? json_number_value(v) : 0;
    json_decref(root);
    return JG_OK;
}

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static void print_entries(FILE *f, const jg_program_t *p, const cs_dl *J, const unsigned char *keep, int want)
{
    int64_t cnt = 0;
    for (int64_t j = 0; j < J->n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
            if (keep[q] == want) {
                fprintf(f, "  (%lld, %lld)  %-24s <- %-24s %12.5g\n", (long long)J->i[q], (long long)j,
                        jg_program_state_name(p, J->i[q]), jg_program_state_name(p, j), J->x[q]);
                cnt++;
            }
    if (!cnt) fprintf(f, "  (none)\n");
}

static json_t *entries_json(const cs_dl *J, const unsigned char *keep, int want)
{
    json_t *a = json_array();
    for (int64_t j = 0; j < J->n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
            if (keep[q] == want) json_array_append_new(a, json_pack("[II]", (json_int_t)J->i[q], (json_int_t)j));
    return a;
}

static void write_text(FILE *f, const char *model, const jg_program_t *p, double t, const cs_dl *J,
                       const unsigned char *keep, const unsigned char *expl, const jg_sparsing_result_t *r,
                       const jg_sparsing_saving_t *sv, const double *lam, const double *lamt)
{
    int64_t n = r->n;
    fprintf(f, "sparsing of %s at t = %.10g, step h = %.6g (linearly implicit Euler)\n", model, t, r->h);
    fprintf(f, "states %lld, entries of J %lld, dropped %lld\n\n", (long long)n, (long long)r->nnz,
            (long long)r->ndropped);
    fprintf(f, "  d1  = %-12.6g |tr E|, estimate of |sum(lt_i - l_i)| (Theorem 4.1)\n", r->d1);
    fprintf(f, "  d2  = %-12.6g sqrt|tr E^2|, estimate of the sum of squares (Theorem 4.2)\n", r->d2);
    fprintf(f, "  dS  = %-12.6g eq. (2)\n", r->dS);
    fprintf(f, "  dr  = %-12.6g sum |lt_i - l_i| (true, eigenvalues paired)\n", r->dr);
    fprintf(f, "  dr2 = %-12.6g sqrt(sum |lt_i - l_i|^2) (true); largest change %.6g\n", r->dr2, r->dmax);
    fprintf(f, "  C1  = %-12.6g min r_i, r_i = |1 - |l_i||, over %lld modes (%lld slow: h|mu| < %g)\n", r->C1,
            (long long)(n - r->nslow), (long long)r->nslow, r->slow_threshold);
    fprintf(f, "  C2  = %-12.6g min r_i^2\n", r->C2);
    fprintf(f, "  check 11: d1 < C1  %s\n", r->check1 ? "yes" : "NO");
    fprintf(f, "  check 12: d2 < C2  %s   (eq. 13, d2^2 < C2: %s)\n", r->check2 ? "yes" : "NO",
            r->check2_sq ? "yes" : "no");
    fprintf(f, "  spectral radius: M0 %.6g, M1 %.6g; max |arg lt| %.4g rad (%lld with negative real part, "
               "%lld without sparsing)\n",
            r->rho0, r->rho1, r->phi_max, (long long)r->nosc, (long long)r->nosc0);
    if (lam && n <= 20) {
        fprintf(f, "\neigenvalues of M0 (l) and M1 (lt), paired:\n");
        for (int64_t i = 0; i < n; i++)
            fprintf(f, "  %12.6g %+12.6gi   %12.6g %+12.6gi   |change| %.3g\n", lam[2 * i], lam[2 * i + 1],
                    lamt[2 * i], lamt[2 * i + 1], hypot(lamt[2 * i] - lam[2 * i], lamt[2 * i + 1] - lam[2 * i + 1]));
    }
    if (expl) {
        fprintf(f, "\nexplicit states (mixed mode: explicit Euler, row and column dropped):\n");
        int any = 0;
        for (int64_t i = 0; i < n; i++)
            if (expl[i]) {
                fprintf(f, "  %lld  %s\n", (long long)i, jg_program_state_name(p, i));
                any = 1;
            }
        if (!any) fprintf(f, "  (none)\n");
    }
    fprintf(f, "\ndropped entries (row, col)  row <- col  value:\n");
    print_entries(f, p, J, keep, 0);
    fprintf(f, "kept entries:\n");
    print_entries(f, p, J, keep, 1);
    fprintf(f, "\npredicted saving:\n");
    fprintf(f, "  entries of J      %lld -> %lld\n", (long long)sv->nnz, (long long)sv->nkept);
    fprintf(f, "  colors            %lld -> %lld (directional derivatives per Jacobian)\n",
            (long long)sv->ncolors_full, (long long)sv->ncolors_sparse);
    fprintf(f, "  LU fill nnz(L+U)  %lld -> %lld (I - hJ vs I - hA)\n", (long long)sv->lu_full,
            (long long)sv->lu_sparse);
}

static jg_status_t write_json(FILE *f, const char *model, const jg_program_t *p, double t, const cs_dl *J,
                              const unsigned char *keep, const unsigned char *expl, const jg_sparsing_result_t *r,
                              const jg_sparsing_saving_t *sv, const double *lam, const double *lamt,
                              jg_error_t *err)
{
    json_t *o = json_object(), *states = json_array(), *eig = json_array();
    for (int64_t i = 0; i < r->n; i++) {
        json_array_append_new(states, json_string(jg_program_state_name(p, i)));
        json_array_append_new(eig, json_pack("{s:[oo],s:[oo]}", "l", num(lam[2 * i]), num(lam[2 * i + 1]), "lt",
                                             num(lamt[2 * i]), num(lamt[2 * i + 1])));
    }
    json_object_set_new(o, "model", json_string(model));
    json_object_set_new(o, "t", num(t));
    json_object_set_new(o, "h", num(r->h));
    json_object_set_new(o, "slow_threshold", num(r->slow_threshold));
    json_object_set_new(o, "n", json_integer(r->n));
    json_object_set_new(o, "nnz", json_integer(r->nnz));
    json_object_set_new(o, "ndropped", json_integer(r->ndropped));
    const struct {
        const char *k;
        double v;
    } vals[] = {{"d1", r->d1},       {"d2", r->d2},     {"dS", r->dS},       {"dr", r->dr},
                {"dr2", r->dr2},     {"dmax", r->dmax}, {"C1", r->C1},       {"C2", r->C2},
                {"trE", r->trE},     {"trE2", r->trE2}, {"trS", r->trS},     {"rho0", r->rho0},
                {"rho1", r->rho1},   {"phi_max", r->phi_max}, {"phi0_max", r->phi0_max}};
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) json_object_set_new(o, vals[k].k, num(vals[k].v));
    json_object_set_new(o, "check1", json_boolean(r->check1));
    json_object_set_new(o, "check2", json_boolean(r->check2));
    json_object_set_new(o, "check2_sq", json_boolean(r->check2_sq));
    json_object_set_new(o, "nslow", json_integer(r->nslow));
    json_object_set_new(o, "nosc", json_integer(r->nosc));
    json_object_set_new(o, "nosc0", json_integer(r->nosc0));
    json_object_set_new(o, "states", states);
    json_object_set_new(o, "dropped", entries_json(J, keep, 0));
    json_object_set_new(o, "kept", entries_json(J, keep, 1));
    if (expl) {
        json_t *e = json_array();
        for (int64_t i = 0; i < r->n; i++)
            if (expl[i]) json_array_append_new(e, json_string(jg_program_state_name(p, i)));
        json_object_set_new(o, "explicit", e);
    }
    json_object_set_new(o, "saving",
                        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "nnz", (json_int_t)sv->nnz, "kept",
                                  (json_int_t)sv->nkept, "dropped", (json_int_t)sv->ndropped, "colors_full",
                                  (json_int_t)sv->ncolors_full, "colors_sparse", (json_int_t)sv->ncolors_sparse,
                                  "lu_full", (json_int_t)sv->lu_full, "lu_sparse", (json_int_t)sv->lu_sparse));
    json_object_set_new(o, "eigenvalues", eig);
    int bad = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0;
    fputc('\n', f);
    json_decref(o);
    return bad ? jg_error_set(err, JG_IO, "stdout: write failed") : JG_OK;
}

/* --trajectory: an lie run with step h from the start time (the model's
 * initial state) to stop; J at each step, the quantities of the fixed
 * sparsing keep into PREFIX.csv and PREFIX.svg.  The run is advanced one step
 * at a time and J evaluated on its work between steps (as 'jacobian --at'
 * does after its run), so discrete blocks hold what the run holds. */
static jg_status_t trajectory(const jg_program_t *p, jg_sim_opts_t o, double h, double S,
                              double stop, const unsigned char *keep, const char *prefix, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    jg_sim_t *s = NULL;
    jg_solverjac_t *sj = NULL;
    cs_dl *J = NULL;
    jg_plot_t *pl = NULL;
    FILE *csv = NULL;
    size_t plen = strlen(prefix) + 8;
    char *path = malloc(plen);
    if (!path) return jg_error_set(err, JG_NOMEM, "out of memory");
    o.solver = JG_SOLVER_LIE;
    o.so.fixed_step = h;
    o.tstop = stop;
    o.out_step = 0;
    if ((st = jg_sim_create(p, &o, &s, err)) || (st = jg_sim_run(s, o.t0, NULL, NULL, err)) ||
        (st = jg_solverjac_create(p, o.jacobian, jg_sim_work(s), &sj, err)))
        goto done;
    if (!(J = jg_solverjac_alloc(sj))) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    snprintf(path, plen, "%s.csv", prefix);
    if (!(csv = fopen(path, "w"))) {
        st = jg_error_set(err, JG_IO, "%s: cannot write", path);
        goto done;
    }
    fprintf(csv, "step,t,d1,d2,dS,dr,dr2,C1,C2,check1,check2\n");
    const char *names[3] = {"d1 = |tr E|", "d2 = sqrt|tr E^2|", "dr (true)"};
    char sub[128];
    snprintf(sub, sizeof sub, "linearly implicit Euler, h = %g, %s", h, "sparsing fixed at the start");
    jg_plot_opts_t po = {.title = jg_program_name(p), .subtitle = sub, .xlabel = "time step",
                         .ylabel = "eigenvalue change"};
    if ((st = jg_plot_create(3, names, &po, &pl, err))) goto done;
    for (int64_t k = 0;; k++) {
        double t = jg_sim_time(s);
        if ((st = jg_solverjac_eval(sj, t, jg_sim_states(s), NULL, J, err))) goto done;
        jg_sparsing_result_t r;
        if ((st = jg_sparsing_measure(J, keep, h, S, &r, NULL, NULL, err))) goto done;
        fprintf(csv, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d\n", (long long)k, t, r.d1, r.d2,
                r.dS, r.dr, r.dr2, r.C1, r.C2, r.check1, r.check2);
        double y[3] = {r.d1, r.d2, r.dr};
        if ((st = jg_plot_add(pl, (double)k, y, err))) goto done;
        if (t >= stop - 1e-12 * fmax(1, fabs(stop))) break;
        double next = fmin(stop, o.t0 + (double)(k + 1) * h);
        if ((st = jg_sim_run(s, next, NULL, NULL, err))) goto done;
        if (jg_sim_time(s) <= t) break;   /* a Stop block ended the run */
    }
    if (fclose(csv)) {
        csv = NULL;
        st = jg_error_set(err, JG_IO, "%s: write failed", path);
        goto done;
    }
    csv = NULL;
    snprintf(path, plen, "%s.svg", prefix);
    st = jg_plot_save_svg(pl, path, err);
done:
    if (csv) fclose(csv);
    free(path);
    jg_plot_free(pl);
    cs_dl_spfree(J);
    jg_solverjac_free(sj);
    jg_sim_free(s);
    return st;
}

int cmd_sparsing(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "sparsing"};
    const char *model = NULL, *method = "sparse-analytical", *format = "text", *mask = NULL, *op = NULL, *traj = NULL;
    const char *solver = "ode45";
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .so = {.rtol = 1e-6, .atol = 1e-9}};
    double at = NAN, h = NAN, S = JG_SPARSING_SLOW_THRESHOLD, stop = NAN;
    int autochoice = 0, mixed = 0, r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if (cli_flag(&a, "--auto")) {
            autochoice = 1;
            continue;
        }
        if (cli_flag(&a, "--mixed-mode")) {
            mixed = 1;
            continue;
        }
        const cli_num_t nums[] = {{"--at", &at, 0},     {"--start", &o.t0, 0}, {"--rtol", &o.so.rtol, 0},
                                  {"--atol", &o.so.atol, 0}, {"--step", &h, 0},   {"--stop", &stop, 0},
                                  {"--slow-threshold", &S, 0}};
        if ((r = cli_nums(&a, nums, sizeof nums / sizeof *nums)) ||
            (r = cli_opt(&a, "--method", &method)) || (r = cli_opt(&a, "--format", &format)) ||
            (r = cli_opt(&a, "--mask", &mask)) || (r = cli_opt(&a, "--op", &op)) ||
            (r = cli_opt(&a, "--trajectory", &traj)) || (r = cli_opt(&a, "--solver", &solver))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (isnan(h)) return cli_usage(a.cmd, "missing --step H");
    if (!(h > 0)) return cli_usage(a.cmd, "--step must be positive, got %g", h);
    if (!(S >= 0)) return cli_usage(a.cmd, "--slow-threshold must be >= 0, got %g", S);
    int json = !strcmp(format, "json");
    if (!json && strcmp(format, "text")) return cli_usage(a.cmd, "unknown --format '%s' (text, json)", format);
    if (mask && (autochoice || mixed)) return cli_usage(a.cmd, "--mask and --auto/--mixed-mode exclude each other");
    if (op && !isnan(at)) return cli_usage(a.cmd, "--at and --op exclude each other");
    if (traj && (!*traj || isnan(stop))) return cli_usage(a.cmd, "--trajectory PREFIX needs --stop T");
    if (!traj && !isnan(stop)) return cli_usage(a.cmd, "--stop is for --trajectory");
    if ((r = cli_sim_at(a.cmd, &at, solver, method, &o))) return r;
    jg_model_t *m;
    jg_program_t *p;
    jg_sim_t *s = NULL;
    jg_lin_t *l = NULL;
    jg_solverjac_t *sj = NULL;
    cs_dl *J = NULL;
    unsigned char *keep = NULL, *expl = NULL;
    double *lam = NULL, *lamt = NULL, *x0 = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &m, &p);
    if (rc) return rc;
    double t = 0;
    jg_status_t st;
    if (op) {
        /* the point of an operating point file, on a private work */
        jg_lin_opts_t lo = {.no_defaults = 1};
        if ((st = jg_lin_create(p, &lo, &l, &err)) || (st = jg_lin_read_op(l, op, &err)) ||
            (st = op_time(op, &t, &err)) || (st = jg_solverjac_create(p, o.jacobian, NULL, &sj, &err)))
            goto fail;
        jg_eval_work_t *w = jg_solverjac_work(sj);
        memcpy(jg_eval_inputs(w), jg_lin_inputs(l), sizeof(double) * (size_t)jg_eval_ninput_elems(w));
        x0 = jg_lin_states(l);
    } else {
        /* the simulation's point, so that discrete blocks hold what they held */
        if ((st = jg_sim_create(p, &o, &s, &err)) || (st = jg_sim_run(s, at, NULL, NULL, &err)) ||
            (st = jg_solverjac_create(p, o.jacobian, jg_sim_work(s), &sj, &err)))
            goto fail;
        t = jg_sim_time(s);
        x0 = (double *)jg_sim_states(s);
    }
    if (!(J = jg_solverjac_alloc(sj))) {
        st = jg_error_set(&err, JG_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = jg_solverjac_eval(sj, t, x0, NULL, J, &err))) goto fail;
    int64_t n = J->n, nz = J->p[n];
    keep = malloc((size_t)nz + 1);
    expl = mixed ? malloc((size_t)n + 1) : NULL;
    lam = malloc(sizeof(double) * (2 * (size_t)n + 1));
    lamt = malloc(sizeof(double) * (2 * (size_t)n + 1));
    if (!keep || (mixed && !expl) || !lam || !lamt) {
        st = jg_error_set(&err, JG_NOMEM, "out of memory");
        goto fail;
    }
    memset(keep, 1, (size_t)nz + 1);
    if (mask) {
        if ((st = read_mask(mask, p, J, keep, &err))) goto fail;
    }
    if (autochoice || mixed) {
        int flags = (autochoice ? JG_SPARSING_ENTRIES : 0) | (mixed ? JG_SPARSING_MIXED : 0);
        if ((st = jg_sparsing_auto(J, h, S, flags, keep, expl, NULL, &err))) goto fail;
    }
    jg_sparsing_result_t res;
    jg_sparsing_saving_t sv;
    if ((st = jg_sparsing_measure(J, keep, h, S, &res, lam, lamt, &err)) ||
        (st = jg_sparsing_saving(J, keep, h, &sv, &err)))
        goto fail;
    if (json) {
        if ((st = write_json(stdout, model, p, t, J, keep, expl, &res, &sv, lam, lamt, &err))) goto fail;
    } else {
        write_text(stdout, model, p, t, J, keep, expl, &res, &sv, lam, lamt);
    }
    if (fflush(stdout) || ferror(stdout)) {
        st = jg_error_set(&err, JG_IO, "stdout: write failed");
        goto fail;
    }
    if (traj) {
        if (!(stop > o.t0)) {
            st = jg_error_set(&err, JG_ARG, "--stop %g is not after the start time %g", stop, o.t0);
            goto fail;
        }
        if ((st = trajectory(p, o, h, S, stop, keep, traj, &err))) goto fail;
    }
    goto done;
fail:
    rc = cli_fail(&err);
done:
    free(keep);
    free(expl);
    free(lam);
    free(lamt);
    cs_dl_spfree(J);
    jg_solverjac_free(sj);
    jg_sim_free(s);
    jg_lin_free(l);
    jg_program_free(p);
    return rc;
}
