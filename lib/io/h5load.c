/* HDF5 and matio loaded on first use (h5load.h says why). */
#define _GNU_SOURCE 1   /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "h5load.h"
#include <jg_sonames.h>   /* generated in the build: JG_HDF5_SONAME, JG_MATIO_SONAME (sonames.sh) */

/* Process-wide, as the libraries themselves are once loaded: filled once
 * under pthread_once, read-only afterwards. */
static struct {
    pthread_once_t once;
    jg__h5_t api;
    int ok;
    char why[256];   /* why not ok */
} h5lib = {PTHREAD_ONCE_INIT};

static void *open_lib(const char *soname, const char *what)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(h5lib.why, sizeof h5lib.why, "cannot load %s (%s), which writing %s needs: %s", soname,
                 what, "MAT-files and HDF5 files", dlerror());
    return h;
}

/* dlsym's void * to a function pointer: through memcpy, as ISO C has no cast */
#define LOAD(lib, soname, name)                                                           \
    do {                                                                                  \
        void *s_ = dlsym(lib, #name);                                                     \
        if (!s_) {                                                                        \
            snprintf(h5lib.why, sizeof h5lib.why, "%s: no function %s", soname, #name);   \
            return;                                                                       \
        }                                                                                 \
        memcpy(&h5lib.api.name, &s_, sizeof s_);                                          \
    } while (0)

static void load(void)
{
    /* HDF5 first, its functions checked before matio (which needs them) */
    void *h5 = open_lib(JG_HDF5_SONAME, "HDF5");
    if (!h5) return;
#define LOAD_H5(f) LOAD(h5, JG_HDF5_SONAME, f);
    JG__H5_FUNCS(LOAD_H5)
    void *mat = open_lib(JG_MATIO_SONAME, "matio");
    if (!mat) return;
#define LOAD_MAT(f) LOAD(mat, JG_MATIO_SONAME, f);
    JG__MAT_FUNCS(LOAD_MAT)
    /* what HDF5's macros call first (H5CHECK): the headers' version checked
     * against the library's (HDF5 aborts on a mismatch, as when linked) */
    if (h5lib.api.H5check_version(H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE) < 0) {
        snprintf(h5lib.why, sizeof h5lib.why, "%s: not the HDF5 %d.%d.%d of the build", JG_HDF5_SONAME,
                 H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
        return;
    }
    /* a program that uses HDF5's identifiers itself has its own copies of
     * these globals (copy relocations), which the library then uses too: the
     * global scope's first, else the library's own */
#define LOAD_ID(field, global)                                                            \
    if (!(h5lib.api.field = dlsym(RTLD_DEFAULT, #global)) &&                              \
        !(h5lib.api.field = dlsym(h5, #global))) {                                        \
        snprintf(h5lib.why, sizeof h5lib.why, "%s: no variable %s", JG_HDF5_SONAME, #global); \
        return;                                                                           \
    }
    JG__H5_IDS(LOAD_ID)
    h5lib.ok = 1;
}

const jg__h5_t *jg__h5(jg_error_t *err)
{
    pthread_once(&h5lib.once, load);
    if (!h5lib.ok) {
        jg_error_set(err, JG_IO, "%s", h5lib.why);
        return NULL;
    }
    return &h5lib.api;
}
