/* analysis_octave: write an Octave script that checks jacgraph's answers
 * about a model's linear model (poles, invariant zeros, DC gain, frequency
 * response: lib/analysis) against the control package's pole, zero, dcgain
 * and freqresp on the same A, B, C, D.
 *
 *   analysis_octave MODEL > check.m && octave-cli check.m
 *
 * The script prints one line
 *   analysis_peer: NAME nx nu ny npoles poles_err nzeros(jacgraph/octave) zeros_err dc_err fr_err
 * with errors relative to max(1, |Octave's value|).  Exit 3 when the model
 * does not linearize (nonlinear loop...), 2 on usage errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "jacgraph/jacgraph.h"

static void mat(const char *name, int64_t r, int64_t c, const double *M)
{
    printf("%s = zeros(%lld, %lld);\n", name, (long long)r, (long long)c);
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++)
            if (M[i + j * r] != 0) printf("%s(%lld,%lld) = %.17g;\n", name, (long long)i + 1, (long long)j + 1, M[i + j * r]);
}

static void roots(const char *name, int64_t n, const double *re, const double *im)
{
    printf("%s = [", name);
    for (int64_t k = 0; k < n; k++) printf("%s%.17g + %.17gi", k ? "; " : "", re[k], im[k]);
    printf("];\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: analysis_octave MODEL > check.m\n");
        return 2;
    }
    jg_error_t err;
    jg_error_clear(&err);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *ls = NULL;
    jg_analysis_ss_t *s = NULL;
    int rc = 3;
    if (jg_import_load(argv[1], NULL, &m, &err) || jg_program_compile(m, &p, &err) ||
        jg_lin_create(p, NULL, &l, &err) || jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &ls, NULL, &err) ||
        jg_analysis_ss_from_lin(ls, ls->Ts, &s, &err)) {
        fprintf(stderr, "analysis_octave: %s\n", err.msg);
        goto done;
    }
    int64_t n = s->nx, nu = s->nu, ny = s->ny, nz = 0;
    enum { NW = 60 };
    double *pr = malloc(sizeof(double) * (size_t)(n + 1)), *pi = malloc(sizeof(double) * (size_t)(n + 1));
    double *zr = malloc(sizeof(double) * (size_t)(n + 1)), *zi = malloc(sizeof(double) * (size_t)(n + 1));
    double *G = malloc(sizeof(double) * (size_t)(nu * ny + 1)), w[NW];
    double *Hr = malloc(sizeof(double) * (size_t)(nu * ny * NW + 1)), *Hi = malloc(sizeof(double) * (size_t)(nu * ny * NW + 1));
    if (!pr || !pi || !zr || !zi || !G || !Hr || !Hi || jg_analysis_poles(s, pr, pi, &err) ||
        jg_analysis_zeros(s, &nz, zr, zi, NULL, &err) || jg_analysis_dcgain(s, G, &err)) {
        fprintf(stderr, "analysis_octave: %s\n", err.msg);
        goto done2;
    }
    jg_analysis_freqgrid(n, pr, pi, nz, zr, zi, s->Ts, NW, w);
    if (jg_analysis_freqresp(s, NW, w, Hr, Hi, &err)) {
        fprintf(stderr, "analysis_octave: %s\n", err.msg);
        goto done2;
    }
    printf("pkg load control\n");
    mat("A", n, n, s->A);
    mat("B", n, nu, s->B);
    mat("C", ny, n, s->C);
    mat("D", ny, nu, s->D);
    if (nu * ny == 0) printf("sys = [];\n");   /* ss() refuses empty B or C: the poles alone */
    else if (s->Ts > 0) printf("sys = ss(A, B, C, D, %.17g);\n", s->Ts);
    else printf("sys = ss(A, B, C, D);\n");
    roots("jp", n, pr, pi);
    roots("jz", nz, zr, zi);
    mat("jg", ny, nu, G);
    printf("w = [");
    for (int k = 0; k < NW; k++) printf("%s%.17g", k ? ", " : "", w[k]);
    printf("];\njH = zeros(%lld, %lld, %d);\n", (long long)ny, (long long)nu, NW);
    for (int64_t j = 0; j < nu; j++)
        for (int64_t i = 0; i < ny; i++)
            for (int k = 0; k < NW; k++)
                printf("jH(%lld,%lld,%d) = %.17g + %.17gi;\n", (long long)i + 1, (long long)j + 1, k + 1,
                       Hr[(j * ny + i) * NW + k], Hi[(j * ny + i) * NW + k]);
    /* each jacgraph root against the nearest of Octave's (and back) */
    printf("function e = rootdist(a, b)\n"
           "  e = 0;\n"
           "  if numel(a) != numel(b), e = Inf; return; end\n"
           "  for k = 1:numel(a), e = max(e, min(abs(b - a(k))) / max(1, abs(a(k)))); end\n"
           "  for k = 1:numel(b), e = max(e, min(abs(a - b(k))) / max(1, abs(b(k)))); end\n"
           "end\n");
    printf("if isempty(sys), op = eig(A); oz = zeros(0, 1); og = jg; oH = jH;\n"
           "else op = pole(sys); oz = zero(sys); og = dcgain(sys); oH = freqresp(sys, w); end\n"
           "ep = rootdist(jp(:), op(:)); ez = rootdist(jz(:), oz(:));\n"
           "fin = isfinite(og) & isfinite(jg);\n"
           "ed = max([0; abs(jg(fin) - og(fin)) ./ max(1, abs(og(fin)))]);\n"
           "if any(isfinite(og(:)) != isfinite(jg(:))), ed = Inf; end\n"
           "ef = max([0; abs(jH(:) - oH(:)) ./ max(1, abs(oH(:)))]);\n"
           "printf('analysis_peer: %%s %%d %%d %%d %%d %%.2g %%d/%%d %%.2g %%.2g %%.2g\\n', '%s', %lld, %lld, %lld, "
           "numel(op), ep, numel(jz), numel(oz), ez, ed, ef);\n",
           jg_program_name(p), (long long)n, (long long)nu, (long long)ny);
    rc = 0;
done2:
    free(pr), free(pi), free(zr), free(zi), free(G), free(Hr), free(Hi);
done:
    jg_analysis_ss_free(s);
    jg_lin_sys_free(ls);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return rc;
}
