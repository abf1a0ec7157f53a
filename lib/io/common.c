/* Helpers shared by the writers: canonical sparse copies, checks, cleanup. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "jacgraph/linearize.h"
#include "io_impl.h"

cs_dl *jg__io_sorted(const cs_dl *M)
{
    cs_dl *T = cs_dl_transpose(M, 1), *S = NULL;
    if (T && cs_dl_dupl(T) && cs_dl_dropzeros(T) >= 0) S = cs_dl_transpose(T, 1);
    cs_dl_spfree(T);
    return S;
}

int jg__io_clean(const cs_dl *M)
{
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t p = M->p[j]; p < M->p[j + 1]; p++)
            if ((p > M->p[j] && M->i[p] <= M->i[p - 1]) || M->x[p] == 0) return 0;
    return 1;
}

const cs_dl *jg__io_canonical(const cs_dl *M, cs_dl **own)
{
    *own = NULL;
    if (jg__io_clean(M)) return M;
    return *own = jg__io_sorted(M);
}

int jg__io_shape_ok(const cs_dl *M, int64_t m, int64_t n)
{
    return M && M->nz == -1 && M->m == m && M->n == n && M->p && (M->x || M->p[n] == 0);
}

int jg__io_delays_ok(const struct jg_lin_sys *s)
{
    return s->ndelays == 0 ||
           (s->ndelays > 0 && s->ndelays <= s->nu && s->ndelays <= s->ny && s->delays);
}

void jg__io_discard(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode)) remove(path);
}

jg_status_t jg__io_close(FILE *f, int bad, const char *path, jg_error_t *err)
{
    int code = errno;
    if (ferror(f)) bad = 1;
    if (fclose(f) && !bad) {
        bad = 1;
        code = errno;
    }
    if (!bad) return JG_OK;
    jg__io_discard(path);
    return jg_error_set(err, JG_IO, "%s: cannot write: %s", path, strerror(code ? code : EIO));
}
