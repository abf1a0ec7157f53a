/* plugin_impl.h -- private to the plugin modules of lib/blocks (internal): a
 * model's plugin set and a plugin's block type as the loader (plugin_load.c)
 * registers them, and what the bridge (plugin_bridge.c: the plugin ABI as a
 * jg_block_type_t), the finite-difference fallback (plugin_fd.c) and the
 * registry's look-up (registry.c) share. */
#ifndef JG_BLOCKS_PLUGIN_IMPL_H
#define JG_BLOCKS_PLUGIN_IMPL_H
#include "block_impl.h"
#include "jacgraph/plugin.h"

/* A registered plugin type: heap-allocated by the loader, freed with its set
 * (blocks of compiled programs point at bt; each holds the set). */
typedef struct jg__pltype {
    jg_block_type_t bt;        /* first: a block's b->type points here */
    jg_plugin_type_t pt;       /* the plugin's, copied */
    char *name;                /* owned copy (bt.name, pt.name) */
    int file;                  /* index in its set's files of the file that registered it */
} jg__pltype_t;

/* One loaded plugin file. */
typedef struct {
    char *file;                /* as given to jg_plugin_load */
    void *handle;              /* dlopen's, closed with the set */
} jg__plfile_t;

/* A model's plugin set (block_impl.h).  Loading appends (not thread-safe, as
 * any change to the model); types never move once registered, so programs
 * compiled before a later load keep valid pointers. */
struct jg__plset {
    _Atomic long refs;
    jg__plfile_t *files;
    int nfiles, capfiles;
    jg__pltype_t **types;      /* in registration order */
    size_t ntypes, captypes;
};

static inline const jg__pltype_t *jg__pltype_of(const jg_block_t *b) { return (const jg__pltype_t *)b->type; }

/* The host side of a run-time context (jg_plugin_ctx_t.host). */
typedef struct jg__plhost {
    const jg_block_t *b;
    jg_eval_t *e;
    int reported;              /* api->error was called */
} jg__plhost_t;

/* plugin_bridge.c */
/* The host functions handed to plugins (setup and run time). */
extern const jg_plugin_api_t jg__plugin_api;
/* Fill T->bt with the trampolines for T->pt (T->name set). */
void jg__plugin_bridge(jg__pltype_t *T);
/* The plugin's context for block b on evaluation e; h receives the host side. */
void jg__plugin_ctx(jg_plugin_ctx_t *c, jg__plhost_t *h, const jg_block_t *b, jg_eval_t *e);
/* A plugin function fn returned r != 0: its own message (api->error), or one
 * naming fn.  Returns -1. */
int jg__plugin_failed(const jg__plhost_t *h, const char *fn, int r);

/* plugin_fd.c: central differences for a plugin without the derivative */
/* The block's Jacobian parts (e->jac) from its outputs() and derivatives().
 * Errors: the plugin's (jg_eval_error on e), out of memory.  Cost: two calls
 * of each per column that a declared part has, O(nx + nu + ny) scratch. */
int jg__plugin_fd_jacobian(const jg_block_t *b, jg_eval_t *e);
/* dg/dx of the block's invariants into dg (jg_block_inv_pat(b)'s order).  Errors as
 * above.  Cost: two invariants() calls per column of the pattern. */
int jg__plugin_fd_invariants(const jg_block_t *b, jg_eval_t *e, cs_dl *dg);

#endif
