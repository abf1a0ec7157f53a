/* io: the CSV trajectory, operating point and solver Jacobian writers read
 * back (names with commas, quotes, line breaks, backslashes, tabs), and a
 * compile that leaves the embedding program's igraph handlers in place. */
#define _POSIX_C_SOURCE 200809L   /* fmemopen, open_memstream, mkdtemp */
#include <igraph.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "jacgraph/model.h"
#include "testlib.h"

/* x1' = 1, x2' = x1, x3' = x2 (x = 1, 2, 3 at t = 0); the Outport logs x3. */
static const char model_json[] =
    "{\"name\": \"w\", \"blocks\": ["
    " {\"name\": \"k\", \"type\": \"Constant\", \"Value\": 1},"
    " {\"name\": \"a,b\", \"type\": \"Integrator\", \"InitialCondition\": 1},"
    " {\"name\": \"say \\\"hi\\\"\", \"type\": \"Integrator\", \"InitialCondition\": 2},"
    " {\"name\": \"two\\nlines\\\\ and\\ttab\", \"type\": \"Integrator\", \"InitialCondition\": 3},"
    " {\"name\": \"out, \\\"1\\\"\", \"type\": \"Outport\", \"Port\": 1}],"
    " \"lines\": ["
    " {\"src\": \"k:1\", \"dst\": \"a,b:1\"},"
    " {\"src\": \"a,b:1\", \"dst\": \"say \\\"hi\\\":1\"},"
    " {\"src\": \"say \\\"hi\\\":1\", \"dst\": \"two\\nlines\\\\ and\\ttab:1\"},"
    " {\"src\": \"two\\nlines\\\\ and\\ttab:1\", \"dst\": \"out, \\\"1\\\":1\"}]}";

static const char *const names[] = {"a,b", "say \"hi\"", "two\nlines\\ and\ttab"};

/* ---- a small RFC 4180 reader: one record per call, fields owned by rec */
typedef struct {
    int n;
    char *f[16];
} rec_t;

static void rec_free(rec_t *r)
{
    for (int k = 0; k < r->n; k++) free(r->f[k]);
    r->n = 0;
}

/* Reads the record at *s, advancing *s past its line break.  0 at the end or
 * on a malformed record. */
static int csv_record(const char **s, rec_t *r)
{
    const char *c = *s;
    r->n = 0;
    if (!*c) return 0;
    for (;;) {
        size_t cap = strlen(c) + 1, m = 0;
        char *buf = malloc(cap);
        if (!buf || r->n == 16) {
            free(buf);
            return 0;
        }
        if (*c == '"') {
            for (c++;; c++) {
                if (!*c) {
                    free(buf);
                    return 0;
                }
                if (*c == '"') {
                    if (c[1] != '"') break;
                    c++;
                }
                buf[m++] = *c;
            }
            c++;
        } else {
            while (*c && *c != ',' && *c != '\n') buf[m++] = *c++;
        }
        buf[m] = 0;
        r->f[r->n++] = buf;
        if (*c == ',') {
            c++;
            continue;
        }
        if (*c == '\n') c++;
        else if (*c) return 0;
        *s = c;
        return 1;
    }
}

static int nlog_calls;
static int log_csv(double t, const double *x, const double *sig, void *user)
{
    jg_io_write_csv_row(user, t, 3, x, 1, sig);
    nlog_calls++;
    return 0;
}

static int handler_calls;
static void my_error_handler(const char *reason, const char *file, int line, igraph_error_t e)
{
    (void)reason, (void)file, (void)line, (void)e;
    handler_calls++;
}
static void my_warning_handler(const char *reason, const char *file, int line)
{
    (void)reason, (void)file, (void)line;
    handler_calls++;
}

static int64_t state_index(const jg_program_t *p, const char *name)
{
    for (int64_t k = 0; k < jg_program_nstates(p); k++)
        if (!strcmp(jg_program_state_name(p, k), name)) return k;
    return -1;
}

int main(void)
{
    char dir[512], csv[600], op[600], svg[600], bad[600];
    if (!tl_tmpdir(dir, sizeof dir, "jg_test_io")) {
        tap_ok(0, "scratch directory");
        return tap_done();
    }
    snprintf(csv, sizeof csv, "%s/traj.csv", dir);
    snprintf(op, sizeof op, "%s/op.json", dir);
    snprintf(svg, sizeof svg, "%s/pattern.svg", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/x", dir);
    jg_error_t err;
    jg_error_clear(&err);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    jg_lin_t *l = NULL;
    jg_solverjac_t *sj = NULL;
    cs_dl *J = NULL;
    char *text = NULL;
    rec_t r = {0};

    /* ---- igraph: the program's own handlers survive a compile */
    igraph_error_handler_t *prev_eh = igraph_set_error_handler(my_error_handler);
    igraph_warning_handler_t *prev_wh = igraph_set_warning_handler(my_warning_handler);
    int ok = jg_model_parse(model_json, "io.json", &m, &err) == JG_OK &&
             jg_program_compile(m, &p, &err) == JG_OK;
    if (!tap_ok(ok, "model with awkward names compiles")) {
        printf("#   %s\n", err.msg);
        goto done;
    }
    tap_ok(igraph_set_error_handler(prev_eh) == my_error_handler,
           "compile restores the caller's igraph error handler");
    tap_ok(igraph_set_warning_handler(prev_wh) == my_warning_handler,
           "compile restores the caller's igraph warning handler");
    tap_ok(handler_calls == 0, "igraph reported nothing to the caller's handlers");
    tap_ok(jg_program_nstates(p) == 3, "three states");
    int64_t ix[3];
    for (int k = 0; k < 3; k++) ix[k] = state_index(p, names[k]);
    tap_ok(ix[0] >= 0 && ix[1] >= 0 && ix[2] >= 0, "states named after their blocks");

    /* ---- CSV: header and rows written, parsed back */
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 1};
    if (!tap_ok(jg_sim_create(p, &o, &s, &err) == JG_OK, "simulation created")) goto done;
    FILE *f = fopen(csv, "w");
    if (!tap_ok(f != NULL, "CSV file opened")) goto done;
    jg_io_write_csv_header(f, p, s);
    jg_status_t st = jg_sim_run(s, 0.5, log_csv, f, &err);
    tap_ok(!fclose(f) && st == JG_OK && nlog_calls > 1, "run to 0.5 logged %d rows", nlog_calls);
    text = tl_slurp(csv, NULL);
    const char *c = text ? text : "";
    ok = csv_record(&c, &r) && r.n == 5 && !strcmp(r.f[0], "time");
    for (int64_t k = 0; ok && k < 3; k++) ok = !strcmp(r.f[1 + k], jg_program_state_name(p, k));
    tap_ok(ok && !strcmp(r.f[4], "out, \"1\""), "CSV header reads back: commas, quotes, line breaks");
    rec_free(&r);
    double x0[3] = {1, 2, 3};
    ok = csv_record(&c, &r) && r.n == 5 && atof(r.f[0]) == 0 && atof(r.f[4]) == 3;
    for (int k = 0; ok && k < 3; k++) ok = atof(r.f[1 + ix[k]]) == x0[k];
    tap_ok(ok, "first row: t = 0, the initial states, the logged x3");
    rec_free(&r);
    int rows = 1, five = 1;
    while (csv_record(&c, &r)) {
        rows++;
        five &= r.n == 5;
        rec_free(&r);
    }
    tap_ok(rows == nlog_calls && five && !*c, "every row has 5 fields (%d rows)", rows);
    free(text);
    text = NULL;

    /* rows are %.12g */
    char buf[256];
    FILE *mf = fmemopen(buf, sizeof buf, "w");
    double xr[3] = {1.0 / 3, -2e-300, 12345678901234.0}, sr = 0.1;
    jg_io_write_csv_row(mf, 0.25, 3, xr, 1, &sr);
    fclose(mf);
    tap_streq(buf, "0.25,0.333333333333,-2e-300,1.23456789012e+13,0.1\n", "row format");

    /* ---- operating point: written at t = 0.5, read back exactly */
    tap_ok(jg_io_write_op(op, p, jg_sim_time(s), jg_sim_states(s), &err) == JG_OK, "op file written");
    text = tl_slurp(op, NULL);
    tap_ok(text && strstr(text, "\"two\\nlines\\\\ and\\u0009tab\": ") &&
               strstr(text, "\"say \\\"hi\\\"\": ") && strstr(text, "{\"t\": 0.5,"),
           "op file escapes names as JSON strings");
    json_error_t je;
    json_t *root = text ? json_loads(text, 0, &je) : NULL;
    tap_ok(root && json_object_size(json_object_get(root, "states")) == 3, "op file is JSON");
    json_decref(root);
    free(text);
    text = NULL;
    if (!tap_ok(jg_lin_create(p, NULL, &l, &err) == JG_OK, "linearization created")) goto done;
    st = jg_lin_read_op(l, op, &err);
    if (st) printf("#   %s\n", err.msg);
    ok = st == JG_OK;
    for (int64_t k = 0; ok && k < 3; k++) ok = jg_lin_states(l)[k] == jg_sim_states(s)[k];
    tap_ok(ok, "jg_lin_read_op reads every state back exactly");
    jg_error_clear(&err);
    tap_ok(jg_io_write_op(bad, p, 0, jg_sim_states(s), &err) == JG_IO && strstr(err.msg, bad),
           "op file in a missing directory: JG_IO naming it");
    tap_ok(jg_io_write_op(op, p, 0, NULL, &err) == JG_ARG, "op file without states: JG_ARG");

    /* ---- solver Jacobian: x2' = x1, x3' = x2 */
    ok = jg_solverjac_create(p, JG_SOLVERJAC_AUTO, jg_sim_work(s), &sj, &err) == JG_OK && (J = jg_solverjac_alloc(sj)) &&
         jg_solverjac_eval(sj, jg_sim_time(s), jg_sim_states(s), NULL, J, &err) == JG_OK;
    if (!tap_ok(ok, "solver Jacobian evaluated")) goto done;
    size_t len = 0;
    char *mm = NULL;
    FILE *sf = open_memstream(&mm, &len);
    st = jg_io_write_jacobian(sf, JG_IO_JAC_MM, p, sj, J, "auto", 0.5, &err);
    fclose(sf);
    int lines = 0;
    for (size_t k = 0; k < len; k++) lines += mm[k] == '\n';
    /* banner, model, method, 3 state comments, size line, 2 entries */
    tap_ok(st == JG_OK && lines == 9 && strstr(mm, "3 3 2\n") &&
               strstr(mm, "% state ") && strstr(mm, "two lines\\ and tab"),
           "Matrix Market: one comment line per state, 2 nonzeros");
    char e1[64], e2[64];
    snprintf(e1, sizeof e1, "\n%lld %lld 1\n", (long long)ix[1] + 1, (long long)ix[0] + 1);
    snprintf(e2, sizeof e2, "\n%lld %lld 1\n", (long long)ix[2] + 1, (long long)ix[1] + 1);
    tap_ok(mm && strstr(mm, e1) && strstr(mm, e2), "Matrix Market entries d x2'/d x1 = d x3'/d x2 = 1");
    free(mm);
    mm = NULL;
    sf = open_memstream(&mm, &len);
    st = jg_io_write_jacobian(sf, JG_IO_JAC_JSON, p, sj, J, "auto", 0.5, &err);
    fclose(sf);
    root = st == JG_OK ? json_loads(mm, 0, &je) : NULL;
    json_t *sn = json_object_get(root, "states");
    ok = root && json_array_size(sn) == 3 && json_integer_value(json_object_get(root, "n")) == 3;
    for (int64_t k = 0; ok && k < 3; k++)
        ok = !strcmp(json_string_value(json_array_get(sn, (size_t)k)), jg_program_state_name(p, k));
    tap_ok(ok && !strcmp(json_string_value(json_object_get(root, "requested")), "auto"),
           "Jacobian JSON reads back with the state names");
    json_decref(root);
    free(mm);
    mm = NULL;
    sf = open_memstream(&mm, &len);
    st = jg_io_write_jacobian(sf, JG_IO_JAC_TEXT, p, sj, J, NULL, 0.5, &err);
    fclose(sf);
    tap_ok(st == JG_OK && !strncmp(mm, "model w: 3 states at t = 0.5\n", 29), "Jacobian text report");
    free(mm);
    mm = NULL;
    sf = open_memstream(&mm, &len);
    tap_ok(jg_io_write_jacobian(sf, (jg_io_jac_format_t)42, p, sj, J, NULL, 0, &err) == JG_ARG &&
               jg_io_write_jacobian(sf, JG_IO_JAC_MM, p, sj, NULL, NULL, 0, &err) == JG_ARG,
           "unknown format, missing matrix: JG_ARG");
    fclose(sf);
    free(mm);
    tap_ok(jg_io_write_jacobian_svg(svg, p, sj, J, 0.5, &err) == JG_OK &&
               (text = tl_slurp(svg, NULL)) && strstr(text, "say &quot;hi&quot;") &&
               strstr(text, "</svg>\n"),
           "spy plot written, names escaped for XML");
    tap_ok(jg_io_write_jacobian_svg(bad, p, sj, J, 0.5, &err) == JG_IO && strstr(err.msg, bad),
           "spy plot in a missing directory: JG_IO naming it");
done:
    free(text);
    rec_free(&r);
    cs_dl_spfree(J);
    jg_solverjac_free(sj);
    jg_lin_free(l);
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
    remove(csv);
    remove(op);
    remove(svg);
    rmdir(dir);
    return tap_done();
}
