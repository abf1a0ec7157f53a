/* Linearize a model (JSON, .mdl or .slx) at its initial point and print A, B, C, D with names:
 * the library used from outside the source tree (README, "Use it as a library"):
 *     cc examples/linearize.c $(pkg-config --cflags --libs jacgraph) -o linearize */
#include <stdio.h>
#include <jacgraph/jacgraph.h>

/* Every entry of one matrix (compressed column) as "M(row, column) = value". */
static void print(const char *name, const cs_dl *M, char **rows, char **cols)
{
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t k = M->p[j]; k < M->p[j + 1]; k++)
            printf("%s(%s, %s) = %.17g\n", name, rows[M->i[k]], cols[j], M->x[k]);
}

int main(int argc, char **argv)
{
    jg_error_t err = {0};
    jg_import_opts_t io = {0};
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    jg_status_t st = JG_OK;
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 2;
    }
    st = jg_import_load(argv[1], &io, &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_lin_create(p, &(jg_lin_opts_t){0}, &l, &err);   /* root In/Outports */
    if (!st) st = jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err);
    if (st) goto done;
    printf("%s: %lld states, %lld inputs, %lld outputs\n", jg_model_name(m), (long long)s->nx,
           (long long)s->nu, (long long)s->ny);
    print("A", s->A, s->state_names, s->state_names);
    print("B", s->B, s->state_names, s->input_names);
    print("C", s->C, s->output_names, s->state_names);
    print("D", s->D, s->output_names, s->input_names);
done:
    if (st) fprintf(stderr, "error (%s): %s\n", jg_status_name(st), err.msg);
    jg_lin_sys_free(s);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return jg_status_exit(st);
}
