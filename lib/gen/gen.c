/* gen.c -- the entry points of `jacgraph generate`'s kinds: options, checks,
 * the seeded stream and the failure jump around the streamed builders. */
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

static const char *const kind_names[] = {"aerospace", "power", "deep", "brusselator"};

void jg_gen_opts_default(jg_gen_opts_t *o, jg_gen_kind_t kind, int64_t size, uint64_t seed)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->size = size;
    o->seed = seed;
}

const char *jg_gen_kind_name(jg_gen_kind_t kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : NULL;
}

jg_status_t jg_gen_kind_parse(const char *s, jg_gen_kind_t *kind, jg_error_t *err)
{
    for (unsigned k = 0; s && k < sizeof kind_names / sizeof *kind_names; k++)
        if (!strcmp(s, kind_names[k])) {
            *kind = (jg_gen_kind_t)k;
            return JG_OK;
        }
    return jg_error_set(err, JG_ARG, "unknown model kind '%s' (aerospace, power, deep, brusselator)",
                        s ? s : "(null)");
}

static jg_status_t check_opts(const jg_gen_opts_t *o, int64_t *nx, int64_t *ny, jg_error_t *err)
{
    const char *kn = jg_gen_kind_name(o->kind);
    if (!kn) return jg_error_set(err, JG_ARG, "unknown model kind %d", (int)o->kind);
    if (o->kind == JG_GEN_BRUSSELATOR) {
        if (o->size < JG_GEN_MIN_STATES || o->size > JG_GEN_MAX_SIZE)
            return jg_error_set(err, JG_ARG, "brusselator: %lld states is not in %d .. %d", (long long)o->size,
                                JG_GEN_MIN_STATES, JG_GEN_MAX_SIZE);
        if (jg_gen_brusselator_grid(o->size, nx, ny))
            return jg_error_set(err, JG_ARG, "brusselator: %lld states is not 2 nx ny with 3 <= nx <= ny",
                                (long long)o->size);
    } else if (o->size < JG_GEN_MIN_BLOCKS || o->size > JG_GEN_MAX_SIZE) {
        return jg_error_set(err, JG_ARG, "%s: %lld blocks is not in %d .. %d", kn, (long long)o->size,
                            JG_GEN_MIN_BLOCKS, JG_GEN_MAX_SIZE);
    }
    if (o->depth && o->kind != JG_GEN_DEEP)
        return jg_error_set(err, JG_ARG, "%s: a depth applies to the deep kind only", kn);
    if (o->depth < 0 || o->depth > 1000)
        return jg_error_set(err, JG_ARG, "deep: depth %d is not in 1 .. 1000", o->depth);
    return JG_OK;
}

/* The builder of the kind; returns through the jump on failure. */
static void build(jg__gen_t *g, const jg_gen_opts_t *o, int64_t nx, int64_t ny)
{
    char name[64];
    snprintf(name, sizeof name, "%s_n%lld_s%llu", jg_gen_kind_name(o->kind), (long long)o->size,
             (unsigned long long)o->seed);
    switch (o->kind) {
    case JG_GEN_AEROSPACE: jg__gen_aerospace(g, o->size, name); break;
    case JG_GEN_POWER: jg__gen_power(g, o->size, name); break;
    case JG_GEN_DEEP: jg__gen_deep(g, o->size, o->depth, name); break;
    case JG_GEN_BRUSSELATOR: jg__gen_brusselator(g, nx, ny, name); break;
    }
}

/* build() under the failure jump: no local here changes after setjmp. */
static jg_status_t run(jg__gen_t *g, const jg_gen_opts_t *o, int64_t nx, int64_t ny)
{
    if (setjmp(g->mem.fail)) {
        jg__gen_free_all(&g->mem);
        return g->mem.st;
    }
    build(g, o, nx, ny);
    return JG_OK;
}

jg_status_t jg_gen_write(const jg_gen_opts_t *o, FILE *f, jg_gen_info_t *info, jg_error_t *err)
{
    int64_t nx = 0, ny = 0;
    jg_status_t st = check_opts(o, &nx, &ny, err);
    if (st) return st;
    jg__gen_t *g = calloc(1, sizeof *g);   /* on the heap: it outlives the jump unchanged */
    if (!g) return jg_error_set(err, JG_NOMEM, "generator: out of memory");
    g->f = f;
    g->kind = (int)o->kind;
    g->seed = o->seed;
    /* the kind is mixed into the seed: the kinds use different streams */
    g->r.s = (uint64_t)o->seed * 0x2545F4914F6CDD1Dull + (uint64_t)o->kind;
    jg__gen_mem_init(&g->mem, err);
    st = run(g, o, nx, ny);
    if (st) goto done;
    if (g->ioerr || ferror(f)) {
        st = jg_error_set(err, JG_IO, "writing the %s model failed", jg_gen_kind_name(o->kind));
        goto done;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->nblocks = g->nblocks;
        info->nsubsystems = g->nsub;
        info->nstates = g->nstates;
        info->nloops = g->nloops;
        info->ninputs = g->ninputs;
        info->noutputs = g->noutputs;
        info->depth = g->depth;
        info->nx = nx;
        info->ny = ny;
        info->bytes = g->bytes;
    }
done:
    free(g);
    return st;
}

jg_status_t jg_gen_model(const jg_gen_opts_t *o, char **json, size_t *len, jg_gen_info_t *info,
                         jg_error_t *err)
{
    char *mem = NULL;
    size_t n = 0;
    *json = NULL;
    FILE *f = open_memstream(&mem, &n);
    if (!f) return jg_error_set(err, JG_NOMEM, "generator: out of memory");
    jg_status_t st = jg_gen_write(o, f, info, err);
    int bad = fclose(f) != 0;
    if (!st && bad) st = jg_error_set(err, JG_NOMEM, "generator: out of memory");
    if (st) {
        free(mem);
        return st;
    }
    *json = mem;
    if (len) *len = n;
    return JG_OK;
}
