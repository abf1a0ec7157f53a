/* The solver Jacobian J_x with its pattern, coloring and cost as a text
 * report, JSON, or Matrix Market with the state names in comments. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"

static int64_t nnz_values(const cs_dl *J)
{
    int64_t k = 0;
    for (int64_t q = 0; q < J->p[J->n]; q++) k += J->x[q] != 0;
    return k;
}

static const char *cost_note(const jg_solverjac_t *sj)
{
    switch (jg_solverjac_method(sj)) {
    case JG_SOLVERJAC_FULL_PERTURBATION: return "one forward difference per state";
    case JG_SOLVERJAC_SPARSE_PERTURBATION: return "one forward difference per color";
    default: return "analytical: one output evaluation, the block Jacobians, a replay of the graph";
    }
}

static jg_status_t write_text(FILE *f, const jg_program_t *p, const jg_solverjac_t *sj, const cs_dl *J,
                              double t, jg_error_t *err)
{
    const cs_dl *S = jg_solverjac_structure(sj);
    const int64_t n = jg_solverjac_nstates(sj), nnz = S->p[n];
    fprintf(f, "model %s: %lld state%s at t = %.17g\n", jg_program_name(p), (long long)n,
            n == 1 ? "" : "s", t);
    fprintf(f, "method: %s (%s)\n", jg_solverjac_method_name(jg_solverjac_method(sj)), jg_solverjac_reason(sj));
    fprintf(f, "pattern: %lld of %lld entries (%.3g%%), at most %lld in a row; %lld nonzero here\n",
            (long long)nnz, (long long)(n * n), n ? 100.0 * (double)nnz / ((double)n * (double)n) : 0.0,
            (long long)jg_solverjac_max_row_nnz(sj), (long long)nnz_values(J));
    fprintf(f, "colors: %lld (structurally orthogonal column groups; lower bound %lld)\n",
            (long long)jg_solverjac_ncolors(sj), (long long)jg_solverjac_max_row_nnz(sj));
    fprintf(f, "f evaluations per Jacobian: %lld (%s)\n", (long long)jg_solverjac_fevals_per_jacobian(sj),
            cost_note(sj));
    if (n == 0) {
        fprintf(f, "\nJ_x = [] (no continuous states)\n");
        return JG_OK;
    }
    fprintf(f, "\nJ_x = df/dx (row: the derivative of a state, column: a state):\n");
    if (n > 12) {   /* too wide for a table: the nonzeros as (row, column) value */
        for (int64_t c = 0; c < n; c++)
            for (int64_t q = J->p[c]; q < J->p[c + 1]; q++)
                if (J->x[q] != 0)
                    fprintf(f, "  (%s, %s)  %.17g\n", jg_program_state_name(p, J->i[q]),
                            jg_program_state_name(p, c), J->x[q]);
        return JG_OK;
    }
    int w = 10, lw = 0;
    for (int64_t i = 0; i < n; i++) {
        int l = (int)strlen(jg_program_state_name(p, i));
        if (l > lw) lw = l;
        if (l + 2 > w) w = l + 2;
    }
    double *D = calloc((size_t)(n * n), sizeof(double));
    if (!D) return jg_error_set(err, JG_NOMEM, "out of memory writing the Jacobian");
    for (int64_t c = 0; c < n; c++)
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++) D[J->i[q] + c * n] = J->x[q];
    fprintf(f, "  %*s", lw, "");
    for (int64_t c = 0; c < n; c++) fprintf(f, "%*s", w, jg_program_state_name(p, c));
    fputc('\n', f);
    for (int64_t i = 0; i < n; i++) {
        fprintf(f, "  %-*s", lw, jg_program_state_name(p, i));
        for (int64_t c = 0; c < n; c++) {
            double v = D[i + c * n];
            if (v == 0) fprintf(f, "%*s", w, "0");
            else fprintf(f, "%*.6g", w, v);
        }
        fputc('\n', f);
    }
    free(D);
    return JG_OK;
}

static jg_status_t write_json(FILE *f, const jg_program_t *p, const jg_solverjac_t *sj, const cs_dl *J,
                              const char *requested, double t, jg_error_t *err)
{
    const cs_dl *S = jg_solverjac_structure(sj);
    const int64_t n = jg_solverjac_nstates(sj);
    const int64_t *color = jg_solverjac_colors(sj);
    json_t *o = json_object(), *names = json_array(), *pat = json_object(), *jm = json_object();
    json_t *pi = json_array(), *pj = json_array(), *ji = json_array(), *jj = json_array(),
           *jx = json_array(), *col = json_array();
    int bad = !o || !names || !pat || !jm || !pi || !pj || !ji || !jj || !jx || !col;
    for (int64_t k = 0; !bad && k < n; k++) {
        bad |= json_array_append_new(names, json_string(jg_program_state_name(p, k)));
        bad |= json_array_append_new(col, json_integer(color[k]));
        for (int64_t q = S->p[k]; q < S->p[k + 1]; q++) {
            bad |= json_array_append_new(pi, json_integer(S->i[q]));
            bad |= json_array_append_new(pj, json_integer(k));
        }
        for (int64_t q = J->p[k]; q < J->p[k + 1]; q++) {
            if (J->x[q] == 0) continue;
            bad |= json_array_append_new(ji, json_integer(J->i[q]));
            bad |= json_array_append_new(jj, json_integer(k));
            bad |= json_array_append_new(jx, json_real(J->x[q]));
        }
    }
    if (bad) {   /* nothing set into o yet: every part is released on its own */
        json_decref(o);
        json_decref(names);
        json_decref(pat);
        json_decref(jm);
        json_decref(pi);
        json_decref(pj);
        json_decref(ji);
        json_decref(jj);
        json_decref(jx);
        json_decref(col);
        return jg_error_set(err, JG_NOMEM, "out of memory writing JSON");
    }
    json_object_set_new(o, "model", json_string(jg_program_name(p)));
    json_object_set_new(o, "t", json_real(t));
    json_object_set_new(o, "states", names);
    json_object_set_new(o, "requested", json_string(requested ? requested : ""));
    json_object_set_new(o, "method", json_string(jg_solverjac_method_name(jg_solverjac_method(sj))));
    json_object_set_new(o, "reason", json_string(jg_solverjac_reason(sj)));
    json_object_set_new(o, "n", json_integer(n));
    json_object_set_new(o, "pattern_nnz", json_integer(S->p[n]));
    json_object_set_new(o, "max_row_nnz", json_integer(jg_solverjac_max_row_nnz(sj)));
    json_object_set_new(o, "colors", json_integer(jg_solverjac_ncolors(sj)));
    json_object_set_new(o, "fevals_per_jacobian", json_integer(jg_solverjac_fevals_per_jacobian(sj)));
    json_object_set_new(pat, "i", pi);
    json_object_set_new(pat, "j", pj);
    json_object_set_new(o, "pattern", pat);
    json_object_set_new(o, "color", col);
    json_object_set_new(jm, "rows", json_integer(n));
    json_object_set_new(jm, "cols", json_integer(n));
    json_object_set_new(jm, "i", ji);
    json_object_set_new(jm, "j", jj);
    json_object_set_new(jm, "x", jx);
    json_object_set_new(o, "J", jm);
    bad = json_dumpf(o, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0;
    fputc('\n', f);
    json_decref(o);
    return bad ? jg_error_set(err, JG_NOMEM, "out of memory writing JSON") : JG_OK;
}

static void write_mm(FILE *f, const jg_program_t *p, const jg_solverjac_t *sj, const cs_dl *J, double t)
{
    const int64_t n = jg_solverjac_nstates(sj);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% jacgraph solver Jacobian J_x = df/dx of %s at t = %.17g\n", jg_program_name(p), t);
    fprintf(f, "%% method %s (%s)\n", jg_solverjac_method_name(jg_solverjac_method(sj)), jg_solverjac_reason(sj));
    for (int64_t k = 0; k < n; k++) {   /* line breaks in names would end the comment */
        fprintf(f, "%% state %lld: ", (long long)k + 1);
        for (const char *c = jg_program_state_name(p, k); *c; c++)
            fputc((unsigned char)*c < 0x20 ? ' ' : *c, f);
        fputc('\n', f);
    }
    fprintf(f, "%lld %lld %lld\n", (long long)n, (long long)n, (long long)nnz_values(J));
    for (int64_t c = 0; c < n; c++)
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++)
            if (J->x[q] != 0)
                fprintf(f, "%lld %lld %.17g\n", (long long)J->i[q] + 1, (long long)c + 1, J->x[q]);
}

jg_status_t jg_io_write_jacobian(FILE *f, jg_io_jac_format_t format, const jg_program_t *p,
                                 const jg_solverjac_t *sj, const cs_dl *J, const char *requested, double t,
                                 jg_error_t *err)
{
    if (!f || !p || !sj || !J || !J->p || (!J->x && J->p[J->n]) || J->nz != -1 || J->n != jg_solverjac_nstates(sj) ||
        J->m != J->n)
        return jg_error_set(err, JG_ARG, "jg_io_write_jacobian: NULL or mis-shaped argument");
    switch (format) {
    case JG_IO_JAC_TEXT: return write_text(f, p, sj, J, t, err);
    case JG_IO_JAC_JSON: return write_json(f, p, sj, J, requested, t, err);
    case JG_IO_JAC_MM: write_mm(f, p, sj, J, t); return JG_OK;
    }
    return jg_error_set(err, JG_ARG, "jg_io_write_jacobian: unknown format %d", (int)format);
}
