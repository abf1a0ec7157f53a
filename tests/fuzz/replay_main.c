/* A fuzz target without libFuzzer: feed it each file named on the command
 * line (a directory: every regular file in it, in name order), so the seed
 * corpora and the crashes found (tests/fuzz/regress/) replay in the normal
 * build and its sanitizer build.  Prints "# FILE" before each input, so the
 * last such line names an input that crashed; exit 0 after the last one, 2
 * when a file cannot be read. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "%s: cannot read\n", path);
        return -1;
    }
    printf("# %s\n", path);
    fflush(stdout);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;   /* ., .., README-like dot files */
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            rc = -1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (rc == 0 && !stat(names[i], &sb) && S_ISREG(sb.st_mode)) {
            if (replay_file(names[i])) rc = -1;
            else ++*count;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb)) {
            fprintf(stderr, "%s: no such file or directory\n", argv[i]);
            rc = 2;
        } else if (S_ISDIR(sb.st_mode)) {
            if (replay_dir(argv[i], &count)) rc = 2;
        } else if (replay_file(argv[i])) {
            rc = 2;
        } else {
            count++;
        }
    }
    printf("# replayed %d input%s\n", count, count == 1 ? "" : "s");
    return rc;
}
