/* The plugin loader: dlopen, the ABI check, registration of a plugin's block types (bridged by
 * plugin_bridge.c) in the plugin set of one model, and the plugins a model names.
 *
 * Plugins belong to a model, not to the process: two models in one process
 * (or two threads) never see each other's plugin types.  Loading changes the
 * model and is not thread-safe with other uses of that model; a set is
 * reference counted (the model and each program compiled from it) and its
 * files are closed when the last reference goes. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/model.h"
#include "../model/model_internal.h"
#include "plugin_impl.h"

typedef struct {
    const jg__plset_t *ps;
    const char *file;
    int fileidx;
    jg_error_t *err;
    int failed;
    jg__pltype_t *added[256];
    int nadded;
} pl_load_t;

static int valid_name(const char *s)
{
    if (!s || !*s || strlen(s) > 128) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static const char *owner_of(const jg__plset_t *ps, const char *name)
{
    for (size_t i = 0; i < ps->ntypes; i++)
        if (!strcmp(ps->types[i]->name, name)) return ps->files[ps->types[i]->file].file;
    return NULL;
}

static int reg_fail(pl_load_t *L, jg_status_t st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reg_fail(pl_load_t *L, jg_status_t st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!L->failed) jg_error_set(L->err, st, "plugin '%s': %s", L->file, msg);
    L->failed = 1;
    return -1;
}

static int register_type(jg_plugin_registry_t *r, const jg_plugin_type_t *t)
{
    pl_load_t *L = r->host;
    if (L->failed) return -1;
    if (!t) return reg_fail(L, JG_MODEL, "register_type with a NULL type");
    if (!valid_name(t->name))
        return reg_fail(L, JG_MODEL, "block type name '%s' is not letters, digits and '_'",
                        t->name ? t->name : "(null)");
    if (jg__block_type_builtin(t->name))
        return reg_fail(L, JG_MODEL, "block type '%s' is already registered (built in)", t->name);
    const char *owner = owner_of(L->ps, t->name);
    if (!owner)
        for (int k = 0; k < L->nadded && !owner; k++)
            if (!strcmp(L->added[k]->name, t->name)) owner = L->file;
    if (owner)
        return reg_fail(L, JG_MODEL, "block type '%s' is already registered (by plugin '%s')", t->name,
                        owner);
    if (!t->setup) return reg_fail(L, JG_MODEL, "block type '%s' has no setup function", t->name);
    if (L->nadded == (int)(sizeof L->added / sizeof *L->added))
        return reg_fail(L, JG_MODEL, "more than %d block types", L->nadded);
    jg__pltype_t *T = calloc(1, sizeof *T);
    char *name = T ? malloc(strlen(t->name) + 1) : NULL;
    if (!T || !name) {
        free(T);
        return reg_fail(L, JG_NOMEM, "out of memory");
    }
    strcpy(name, t->name);
    T->pt = *t;
    T->pt.name = name;
    T->name = name;
    T->file = L->fileidx;
    jg__plugin_bridge(T);
    L->added[L->nadded++] = T;
    return 0;
}

jg__plset_t *jg__plset_retain(jg__plset_t *ps)
{
    if (ps) atomic_fetch_add_explicit(&ps->refs, 1, memory_order_relaxed);
    return ps;
}

void jg__plset_release(jg__plset_t *ps)
{
    /* acq_rel: the last owner sees every other owner's writes before freeing */
    if (!ps || atomic_fetch_sub_explicit(&ps->refs, 1, memory_order_acq_rel) != 1) return;
    for (size_t i = 0; i < ps->ntypes; i++) {
        free(ps->types[i]->name);
        free(ps->types[i]);
    }
    for (int k = ps->nfiles - 1; k >= 0; k--) {   /* dlclose counts: one per jg_plugin_load */
        dlclose(ps->files[k].handle);
        free(ps->files[k].file);
    }
    free(ps->types);
    free(ps->files);
    free(ps);
}

static void release_set(void *ps) { jg__plset_release(ps); }

/* Model m's set, made on first use. */
static jg__plset_t *set_of(jg_model_t *m)
{
    jg__plset_t *ps = jg__model_plugins(m);
    if (ps) return ps;
    if (!(ps = calloc(1, sizeof *ps))) return NULL;
    atomic_init(&ps->refs, 1);
    jg__model_set_plugins(m, ps, release_set);
    return ps;
}

/* Append file and its types to ps: all or (out of memory) nothing. */
static int add_plugin(jg__plset_t *ps, const char *file, void *handle, jg__pltype_t *const *t, int n)
{
    if (ps->nfiles == ps->capfiles) {
        int cap = ps->capfiles ? 2 * ps->capfiles : 8;
        jg__plfile_t *d = realloc(ps->files, sizeof *d * (size_t)cap);
        if (!d) return -1;
        ps->files = d;
        ps->capfiles = cap;
    }
    if (ps->ntypes + (size_t)n > ps->captypes) {
        size_t cap = ps->captypes ? 2 * ps->captypes : 16;
        while (cap < ps->ntypes + (size_t)n) cap *= 2;
        jg__pltype_t **d = realloc(ps->types, sizeof *d * cap);
        if (!d) return -1;
        ps->types = d;
        ps->captypes = cap;
    }
    char *f = malloc(strlen(file) + 1);
    if (!f) return -1;
    strcpy(f, file);
    ps->files[ps->nfiles++] = (jg__plfile_t){f, handle};
    for (int k = 0; k < n; k++) ps->types[ps->ntypes++] = t[k];
    return 0;
}

jg_status_t jg_plugin_load(jg_model_t *m, const char *file, jg_error_t *err)
{
    if (!m) return jg_error_set(err, JG_ARG, "plugin: no model to load into");
    if (!file || !*file) return jg_error_set(err, JG_ARG, "plugin: empty file name");
    jg__plset_t *ps = set_of(m);
    if (!ps) return jg_error_set(err, JG_NOMEM, "out of memory");
    dlerror();
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return jg_error_set(err, JG_IO, "plugin '%s': cannot load: %s", file, why ? why : "unknown error");
    }
    for (int k = 0; k < ps->nfiles; k++)
        if (ps->files[k].handle == h) {   /* the same library again: nothing to do */
            dlclose(h);
            return JG_OK;
        }
    const unsigned *ver = dlsym(h, "jacgraph_plugin_abi_version");
    if (!ver) {
        dlclose(h);
        return jg_error_set(err, JG_MODEL,
                            "plugin '%s': missing symbol 'jacgraph_plugin_abi_version' (define it with "
                            "JG_PLUGIN_ABI from jacgraph/plugin.h)",
                            file);
    }
    if (*ver != JG_PLUGIN_ABI_VERSION) {
        unsigned v = *ver;
        dlclose(h);
        return jg_error_set(err, JG_MODEL,
                            "plugin '%s': ABI version %u, this jacgraph supports version %u (rebuild "
                            "the plugin against this jacgraph/plugin.h)",
                            file, v, JG_PLUGIN_ABI_VERSION);
    }
    jg_plugin_init_fn init;
    *(void **)&init = dlsym(h, "jacgraph_plugin_init");   /* POSIX: object to function pointer */
    if (!init) {
        dlclose(h);
        return jg_error_set(err, JG_MODEL,
                            "plugin '%s': missing symbol 'jacgraph_plugin_init' (export int "
                            "jacgraph_plugin_init(jg_plugin_registry_t *) with JG_PLUGIN_EXPORT)",
                            file);
    }
    pl_load_t *L = calloc(1, sizeof *L);
    if (!L) {
        dlclose(h);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    L->ps = ps;
    L->file = file;
    L->fileidx = ps->nfiles;
    L->err = err;
    jg_plugin_registry_t r = {.abi_version = JG_PLUGIN_ABI_VERSION, .api = &jg__plugin_api,
                              .register_type = register_type, .host = L};
    int rc = init(&r);
    jg_status_t st = JG_OK;
    if (L->failed) st = err ? err->status : JG_MODEL;
    else if (rc) st = jg_error_set(err, JG_MODEL, "plugin '%s': jacgraph_plugin_init failed (returned %d)", file, rc);
    else if (add_plugin(ps, file, h, L->added, L->nadded)) st = jg_error_set(err, JG_NOMEM, "out of memory");
    if (st) {
        for (int k = 0; k < L->nadded; k++) {
            free(L->added[k]->name);
            free(L->added[k]);
        }
        dlclose(h);
    }
    free(L);
    return st;
}

int jg_plugin_count(const jg_model_t *m)
{
    const jg__plset_t *ps = m ? jg__model_plugins(m) : NULL;
    return ps ? ps->nfiles : 0;
}

const char *jg_plugin_file(const jg_model_t *m, int k)
{
    const jg__plset_t *ps = m ? jg__model_plugins(m) : NULL;
    return ps && k >= 0 && k < ps->nfiles ? ps->files[k].file : NULL;
}

/* A plugin file named like `name` (NAME or NAME.so) is already loaded into m. */
static int loaded_by_name(const jg_model_t *m, const char *name)
{
    size_t n = strlen(name);
    int has_so = n > 3 && !strcmp(name + n - 3, ".so");
    for (int k = 0; k < jg_plugin_count(m); k++) {
        const char *file = jg_plugin_file(m, k), *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        if (!strcmp(base, name)) return 1;
        if (!has_so && !strncmp(base, name, n) && !strcmp(base + n, ".so")) return 1;
    }
    return 0;
}

jg_status_t jg_plugin_load_model(jg_model_t *m, jg_error_t *err)
{
    if (!m) return jg_error_set(err, JG_ARG, "plugin: no model to load into");
    ptrdiff_t count = jg_model_nplugins(m);
    if (count < 0)
        return jg_error_set(err, JG_MODEL, "model '%s': \"plugins\" must be an array of strings",
                            jg_model_name(m));
    for (ptrdiff_t i = 0; i < count; i++) {
        const char *name = jg_model_plugin(m, (size_t)i);
        char path[4096];
        jg_status_t st;
        if (strchr(name, '/')) {   /* a path: relative to the model file */
            const char *src = jg_model_source(m), *slash = src ? strrchr(src, '/') : NULL;
            if (name[0] == '/' || !slash) snprintf(path, sizeof path, "%s", name);
            else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - src), src, name);
            if ((st = jg_plugin_load(m, path, err))) return st;
            continue;
        }
        if (loaded_by_name(m, name)) continue;
        size_t n = strlen(name);
        const char *suffix = n > 3 && !strcmp(name + n - 3, ".so") ? "" : ".so";
        const char *env = getenv("JACGRAPH_PLUGIN_PATH");
        int found = 0;
        for (const char *d = env; d && *d && !found;) {
            const char *e = strchr(d, ':');
            size_t len = e ? (size_t)(e - d) : strlen(d);
            if (len) {
                snprintf(path, sizeof path, "%.*s/%s%s", (int)len, d, name, suffix);
                found = access(path, F_OK) == 0;
            }
            d = e ? e + 1 : d + len;
        }
        if (!found)
            return jg_error_set(err, JG_MODEL,
                                "model '%s' needs plugin '%s': no %s%s in JACGRAPH_PLUGIN_PATH (%s); "
                                "load it with --plugin FILE.so",
                                jg_model_name(m), name, name, suffix, env && *env ? env : "not set");
        if ((st = jg_plugin_load(m, path, err))) return st;
    }
    return JG_OK;
}
