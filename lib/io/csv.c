/* The simulation trajectory as CSV: a header naming the columns (RFC 4180
 * quoting) and one row per logged point. */
#include <string.h>
#include "jacgraph/io.h"

/* A CSV field (RFC 4180): quoted, with doubled quotes, when it holds a comma,
 * a quote or a line break -- Simulink names hold all three. */
static void put_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void jg_io_write_csv_header(FILE *f, const jg_program_t *p, const jg_sim_t *s)
{
    fputs("time", f);
    for (int64_t k = 0; k < jg_program_nstates(p); k++) {
        fputc(',', f);
        put_csv_field(f, jg_program_state_name(p, k));
    }
    for (int64_t k = 0; s && k < jg_sim_nlogged(s); k++) {
        fputc(',', f);
        put_csv_field(f, jg_sim_logged_name(s, k));
    }
    fputc('\n', f);
}

void jg_io_write_csv_row(FILE *f, double t, int64_t nx, const double *x, int64_t nlog, const double *sig)
{
    fprintf(f, "%.12g", t);
    for (int64_t k = 0; k < nx; k++) fprintf(f, ",%.12g", x[k]);
    for (int64_t k = 0; k < nlog; k++) fprintf(f, ",%.12g", sig[k]);
    fputc('\n', f);
}
