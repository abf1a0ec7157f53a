/* An operating point file {"t": T, "states": {NAME: VALUE, ...}}, the format
 * jg_lin_read_op reads back. */
#include "jacgraph/io.h"
#include "io_impl.h"
#include "core/jsonstr.h"

jg_status_t jg_io_write_op(const char *path, const jg_program_t *p, double t, const double *x,
                           jg_error_t *err)
{
    if (!path || !p || (!x && jg_program_nstates(p)))
        return jg_error_set(err, JG_ARG, "jg_io_write_op: NULL argument");
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    fprintf(f, "{\"t\": %.17g, \"states\": {", t);
    for (int64_t k = 0; k < jg_program_nstates(p); k++) {
        fprintf(f, "%s\n  ", k ? "," : "");
        jg__json_put_string(f, jg_program_state_name(p, k));
        fprintf(f, ": %.17g", x[k]);   /* 17 digits: the value reads back exactly */
    }
    fprintf(f, "\n}}\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        jg__io_discard(path);
        return jg_error_set(err, JG_IO, "%s: write failed", path);
    }
    return JG_OK;
}
