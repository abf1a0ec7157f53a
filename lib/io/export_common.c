/* Shared checks of the engineering exports: sample time, default names, the
 * sparse-or-dense rule, UTF-8 validation of names, variable suffixes. */
#include <stdio.h>
#include <string.h>
#include "export_impl.h"
#include "io_impl.h"

double jg__io_sample_time(const jg_lin_sys_t *s)
{
    /* 0 for continuous time; a discrete linearization's sample time, which
     * the MATLAB, MAT and Python exports all follow */
    return s->Ts > 0 ? s->Ts : 0.0;
}

const char *jg__io_name(char *const *v, int64_t k, char pfx, char *buf)
{
    if (v && v[k]) return v[k];
    snprintf(buf, 32, "%c%lld", pfx, (long long)k + 1);
    return buf;
}

int jg__io_want_sparse(const cs_dl *S, int mode)
{
    if (mode == JG_IO_SPARSE_ALWAYS) return 1;
    if (mode == JG_IO_SPARSE_NEVER) return 0;
    /* automatic: beyond 10^4 elements (100 x 100) with at most 10% nonzero,
     * where a dense listing would be mostly zeros */
    double el = (double)S->m * (double)S->n, nz = (double)S->p[S->n];
    return el > JG_IO_SPARSE_MIN_ELEMS && nz <= JG_IO_SPARSE_MAX_DENSITY * el;
}

int jg__io_utf8_ok(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t k = 0; k < n;) {
        unsigned c = s[k];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || k + len > n) return 0;
        unsigned long cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
        for (size_t i = 1; i < len; i++) {
            if ((s[k + i] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[k + i] & 0x3F);
        }
        static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        k += len;
    }
    return 1;
}

jg_status_t jg__io_export_check(const jg_lin_sys_t *s, const char *what, jg_error_t *err)
{
    static const char *const mat[4] = {"A", "B", "C", "D"};
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    const int64_t dims[4][2] = {{s->nx, s->nx}, {s->nx, s->nu}, {s->ny, s->nx}, {s->ny, s->nu}};
    for (int k = 0; k < 4; k++)
        if (!jg__io_shape_ok(mats[k], dims[k][0], dims[k][1]))
            return jg_error_set(err, JG_ARG, "%s: matrix %s is missing or not %lldx%lld", what,
                                mat[k], (long long)dims[k][0], (long long)dims[k][1]);
    if (!jg__io_delays_ok(s))
        return jg_error_set(err, JG_ARG, "%s: %lld delays for %lld inputs and %lld outputs", what,
                            (long long)s->ndelays, (long long)s->nu, (long long)s->ny);
    /* raw UTF-8 goes into the scripts; anything else would not read back */
    char *const *v[3] = {s->state_names, s->input_names, s->output_names};
    const int64_t n[3] = {s->nx, s->nu, s->ny};
    static const char *const kind[3] = {"state", "input", "output"};
    for (int g = 0; g < 3; g++)
        for (int64_t k = 0; v[g] && k < n[g]; k++)
            if (v[g][k] && !jg__io_utf8_ok(v[g][k], strlen(v[g][k])))
                return jg_error_set(err, JG_ARG, "%s: %s name %lld is not valid UTF-8", what,
                                    kind[g], (long long)k + 1);
    return JG_OK;
}

jg_status_t jg__io_suffix(const jg_io_export_opts_t *o, const char *what, const char **suffix,
                          jg_error_t *err)
{
    const char *x = o && o->suffix ? o->suffix : "";
    for (const char *c = x; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9')))
            return jg_error_set(err, JG_ARG,
                                "%s: variable suffix '%s' may hold only letters, digits and '_'",
                                what, x);
    if (strlen(x) > 40)
        return jg_error_set(err, JG_ARG, "%s: variable suffix '%s' is longer than 40 characters",
                            what, x);
    *suffix = x;
    return JG_OK;
}
