/* Reading a whole file into memory (or mapping it, for the model reader), refusing it beyond a byte limit (models, workspaces, tables). */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model_internal.h"

jg_limits_t jg_limits_resolve(const jg_limits_t *lim)
{
    jg_limits_t r = {JG_LIMIT_FILE_BYTES, JG_LIMIT_ELEMENTS};
    if (lim && lim->file_bytes) r.file_bytes = lim->file_bytes;
    if (lim && lim->elements > 0) r.elements = lim->elements;
    return r;
}

static jg_status_t too_large(jg_error_t *err, const char *path, uint64_t limit)
{
    jg_error_set(err, JG_IO,
                 "%s: larger than the limit of %llu bytes for a file read whole "
                 "(--max-file-size)",
                 path, (unsigned long long)limit);
    errno = EFBIG;
    return JG_IO;
}

jg_status_t jg__read_file(const char *path, uint64_t limit, char **out, size_t *len,
                          jg_error_t *err)
{
    jg_status_t st = JG_OK;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    *out = NULL;
    *len = 0;
    if (!limit) limit = JG_LIMIT_FILE_BYTES;
    /* O_NONBLOCK: a FIFO without a writer must not hang the open */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {   /* errno kept for callers that word the message themselves */
        int e = errno;
        jg_status_t st0 = e == ENOMEM
                              ? jg_error_set(err, JG_NOMEM, "%s: out of memory opening the file", path)
                              : jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return st0;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        st = jg_error_set(err, JG_IO, "%s: is a directory", path);
        errno = EISDIR;
        goto done;
    }
    /* a regular file says its size: refuse it before reading a byte */
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > limit) {
        st = too_large(err, path, limit);
        goto done;
    }
    /* a regular file's size is the first guess: one allocation and one read
     * instead of a doubling buffer copied a dozen times (100 MB models) */
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        cap = (size_t)sb.st_size + 2;
        if (!(buf = malloc(cap))) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory reading the file", path);
            goto done;
        }
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    /* devices and pipes (/dev/zero) have no size: stop one byte past the limit */
    for (;;) {
        if (n + 1 >= cap) {
            if ((uint64_t)n > limit) {
                st = too_large(err, path, limit);
                goto done;
            }
            size_t nc = cap ? 2 * cap : 1 << 16;
            if ((uint64_t)nc > limit + 2) nc = (size_t)(limit + 2);
            char *nb = realloc(buf, nc);
            if (!nb) {
                st = jg_error_set(err, JG_NOMEM, "%s: out of memory reading the file", path);
                goto done;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            st = jg_error_set(err, JG_IO, "%s: read error: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0) break;
        n += (size_t)r;
        if ((uint64_t)n > limit) {
            st = too_large(err, path, limit);
            goto done;
        }
    }
    if (!buf && !(buf = malloc(1))) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory reading the file", path);
        goto done;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    buf = NULL;
done:
    close(fd);
    free(buf);
    return st;
}

/* The bytes of a mapping of len file bytes and the NUL after them. */
static size_t view_span(size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (len + 1 + pg - 1) / pg * pg;
}

jg_status_t jg__view_file(const char *path, uint64_t limit, const char **out, size_t *len,
                          int *mapped, jg_error_t *err)
{
    *out = NULL;
    *len = 0;
    *mapped = 0;
    if (!limit) limit = JG_LIMIT_FILE_BYTES;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= limit && (uint64_t)sb.st_size < SIZE_MAX / 2) {
        /* anonymous zero pages for the whole span, then the file over its
         * start: the byte after the file is a NUL whether or not the file
         * ends on a page boundary (a page's bytes past the end of the file
         * read as zeros) */
        size_t n = (size_t)sb.st_size, span = view_span(n);
        void *a = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a != MAP_FAILED) {
            void *f = mmap(a, n, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
            if (f == a) {
                close(fd);
                *out = a;
                *len = n;
                *mapped = 1;
                return JG_OK;
            }
            munmap(a, span);
        }
    }
    /* not a regular file, empty, too large, or not mappable: read it (and
     * word every error) as jg__read_file does */
    if (fd >= 0) close(fd);
    char *buf = NULL;
    jg_status_t st = jg__read_file(path, limit, &buf, len, err);
    *out = buf;
    return st;
}

void jg__view_free(const char *buf, size_t len, int mapped)
{
    if (!buf) return;
    if (mapped) munmap((void *)buf, view_span(len));
    else free((void *)buf);
}
