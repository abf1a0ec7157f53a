/* Linearization: operating point, the three methods behind one call, and the
 * graph method's Fig. 4 (with and without reduction). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "lin_impl.h"
#include "lin_internal.h"

static const char *const method_names[] = {"graph", "matrix", "perturb"};

const char *jg_lin_method_name(jg_lin_method_t m) { return (unsigned)m < 3 ? method_names[m] : "?"; }

int jg_lin_method_parse(const char *s)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, method_names[k])) return k;
    return -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The evaluation's work for l, its constant block Jacobians filled. */
static jg_status_t setup_eval(jg_lin_t *l, jg_error_t *err)
{
    jg_status_t st = jg_eval_create(l->p, &l->w, err);
    if (!st) jg__eval_const_jacobians(l->w);   /* Gain, Sum: their parts once */
    return st;
}

/* setup_eval, or the evaluation of a run, on a second thread. */
typedef struct {
    jg_status_t (*fn)(jg_lin_t *l, jg_error_t *err);
    jg_lin_t *l;
    jg_status_t st;
    double secs;
    jg_error_t err;
} side_job_t;

static void *side_main(void *arg)
{
    side_job_t *j = arg;
    double t0 = now();
    j->st = j->fn(j->l, &j->err);
    j->secs = now() - t0;
    return NULL;
}

/* fn(l) on a second thread while this one builds l's graph into *built (its
 * time in *build_secs, fn's in *side_secs unless NULL); fn's error first, as when the two
 * run one after the other, and the graph then freed.  JG__LIN_NOT_STARTED
 * when the thread could not start: nothing was done. */
static jg_status_t beside_build(jg_lin_t *l, jg_status_t (*fn)(jg_lin_t *, jg_error_t *),
                                jg_graph_t **built, double *build_secs, double *side_secs,
                                jg_error_t *err)
{
    side_job_t job = {.fn = fn, .l = l};
    pthread_t th;
    if (pthread_create(&th, NULL, side_main, &job)) return JG__LIN_NOT_STARTED;
    double t0 = now();
    jg_error_t berr = {0};
    jg_status_t sb = jg__graph_build(l->p, l->io, built, &berr);
    *build_secs = now() - t0;
    pthread_join(th, NULL);
    if (side_secs) *side_secs = job.secs;
    if (job.st || sb) {
        jg_graph_free(*built);
        *built = NULL;
        if (err) *err = job.st ? job.err : berr;
        return job.st ? job.st : sb;
    }
    return JG_OK;
}

jg_status_t jg_lin_create(const jg_program_t *p, const jg_lin_opts_t *o, jg_lin_t **out,
                          jg_error_t *err)
{
    return jg__lin_create_min(p, o, JG__LIN_OVERLAP_MIN, out, err);
}

jg_status_t jg__lin_create_min(const jg_program_t *p, const jg_lin_opts_t *o, int32_t overlap_min,
                               jg_lin_t **out, jg_error_t *err)
{
    static const jg_lin_opts_t none = {0};
    if (!o) o = &none;
    *out = NULL;
    jg_lin_t *l = calloc(1, sizeof *l);
    if (!l) return jg_error_set(err, JG_NOMEM, "out of memory");
    l->p = p;
    l->threads = o->threads > 1 ? o->threads : 1;
    l->par_work = JG__LFT_PAR_WORK;
    l->overlap_min = overlap_min;
    jg_status_t st = JG_OK;
    if (o->threads < 0) {
        st = jg_error_set(err, JG_ARG, "threads %d: expected 0 or more", o->threads);
        goto fail;
    }
    if (o->delays == JG_LIN_DELAYS_PADE || o->delays == JG_LIN_DELAYS_EXACT) {   /* delays.c */
        if (o->delays == JG_LIN_DELAYS_PADE && (o->pade_order < 0 || o->pade_order > 10)) {
            st = jg_error_set(err, JG_ARG, "Pade order %d: expected 0..10", o->pade_order);
            goto fail;
        }
        l->delays = o->delays;
        l->pade_order = o->pade_order;
        if ((st = jg__lin_delay_cuts(p, &l->cut, &l->ncut, err))) goto fail;
    }
    st = jg__iospec_create_cut(p, o->nin, o->in, o->nout, o->out, o->nopen, o->open,
                               !o->no_defaults, l->ncut, l->cut, &l->io, err);
    if (st) goto fail;
    if (o->prepare_graph && l->threads > 1 && p->nblocks >= l->overlap_min)
        st = beside_build(l, setup_eval, &l->pre, &l->pre_secs, NULL, err);
    else
        st = JG__LIN_NOT_STARTED;
    if (st == JG__LIN_NOT_STARTED) {
        st = setup_eval(l, err);
    } else if (st && l->w) {
        /* the set-up went well, the build did not: the first graph run
         * builds the graph again and reports its error, as without
         * prepare_graph */
        jg_error_clear(err);
        st = JG_OK;
    }
    if (st) goto fail;
    l->wv = calloc((size_t)l->io->nw + 1, sizeof(double));
    if (!l->wv) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    jg__eval_use_iospec(l->w, l->io, l->wv);
    *out = l;
    return JG_OK;
fail:
    jg_lin_free(l);
    return st;
}

void jg_lin_free(jg_lin_t *l)
{
    if (!l) return;
    jg_graph_free(l->pre);
    for (int k = 0; k <= JG__LIN_STRAT; k++) {
        if (l->view[k]) jg__graph_share_free(l->g[k]);
        else jg_graph_free(l->g[k]);
    }
    jg_graph_strategy_free(l->strat);
    for (int k = 0; k < 4; k++) {
        jg_lft_num_free(l->lnum[k]);
        if (l->lsym_own[k]) jg_lft_sym_free(l->lsym[k]);
    }
    for (int k = 0; k < l->nretired; k++) jg_lft_sym_free(l->lretired[k]);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 5; k++) {
            if (!l->lgat_shared[r]) jg__lft_gather_free(l->lgat[r][k]);
            cs_dl_spfree(l->lops[r][k]);
        }
    jg_eval_free(l->w);
    if (!l->parent) {   /* a clone's are its parent's */
        jg__iospec_free(l->io);
        free(l->cut);
    }
    free(l->wv);
    free(l);
}

double *jg_lin_states(jg_lin_t *l) { return jg_eval_states(l->w); }
double *jg_lin_inputs(jg_lin_t *l) { return jg_eval_inputs(l->w); }
void jg_lin_set_time(jg_lin_t *l, double t) { l->t = t; }
double jg_lin_time(const jg_lin_t *l) { return l->t; }
jg_eval_work_t *jg__lin_work(jg_lin_t *l) { return l->w; }
const jg_iospec_t *jg__lin_iospec(const jg_lin_t *l) { return l->io; }

jg_status_t jg__lin_eval(jg_lin_t *l, int jacobians, jg_error_t *err)
{
    /* one linearization evaluates block by block; from the second on, the
     * fused plan on l's I/O connection (built once: the same bits, in a
     * fraction of the time) */
    if (l->evaluated++ == 1) jg__eval_plan_any(l->w, 1);
    jg_status_t st = jg_eval_outputs(l->w, l->t, err);
    if (!st && jacobians) st = jg_eval_jacobians(l->w, err);
    return st;
}

/* ------------------------------------------------------ operating point */

/* The state named "PATH(k)" found through its block's path (a hash lookup),
 * checked against jg_program_state_name; -1 when not found that way.  A
 * batch applies ten thousand points of twenty states each: a scan of every
 * state name per key was most of reading them. */
static int64_t elem_state(const jg_program_t *p, const char *key)
{
    size_t n = strlen(key);
    const char *lp = strrchr(key, '(');
    if (n < 4 || key[n - 1] != ')' || !lp || lp == key || (size_t)(lp - key) >= 512) return -1;
    char blk[512], *end;
    memcpy(blk, key, (size_t)(lp - key));
    blk[lp - key] = '\0';
    errno = 0;
    long long k = strtoll(lp + 1, &end, 10);
    if (errno || end != key + n - 1 || k < 1) return -1;
    int32_t b = jg_program_find_block(p, blk);
    if (b < 0 || k > p->blocks[b].nx) return -1;
    int64_t i = p->blocks[b].x_off + k - 1;
    return strcmp(jg_program_state_name(p, i), key) ? -1 : i;
}

int64_t jg__lin_op_state(const jg_program_t *p, const char *key, int64_t *n)
{
    int32_t b = jg_program_find_block(p, key);
    if (b >= 0 && p->blocks[b].nx > 0) {
        *n = p->blocks[b].nx;
        return p->blocks[b].x_off;
    }
    *n = 1;
    int64_t i = elem_state(p, key);   /* element name "PATH(k)" */
    if (i < 0)   /* not found that way: every name (a block path may hold parentheses) */
        for (i = 0; i < p->nx; i++)
            if (!strcmp(jg_program_state_name(p, i), key)) break;
    return i < p->nx ? i : -1;
}

int64_t jg__lin_op_input(const jg_program_t *p, const char *key, int64_t *n)
{
    int64_t off = 0;   /* root Inport k's first element (jg_eval_input_offset) */
    for (int k = 0; k < p->nin_root; k++) {
        *n = p->blocks[p->in_root[k]].out_w[0];
        if (!strcmp(p->blocks[p->in_root[k]].path, key)) return off;
        off += *n;
    }
    return -1;
}

jg_status_t jg__lin_op_reader_init(jg__lin_op_reader_t *R, const jg__jdoc_t *d, int params_ok)
{
    size_t nk = (size_t)d->nkeys + 1;
    *R = (jg__lin_op_reader_t){.d = d, .params_ok = params_ok, .k_t = jg__jdoc_key(d, "t"),
                               .k_states = jg__jdoc_key(d, "states"),
                               .k_inputs = jg__jdoc_key(d, "inputs"),
                               .k_params = params_ok ? jg__jdoc_key(d, "parameters") : 0,
                               .st_off = malloc(sizeof(int64_t) * nk),
                               .st_n = calloc(nk, sizeof(int64_t)),
                               .in_off = malloc(sizeof(int64_t) * nk),
                               .in_n = calloc(nk, sizeof(int64_t))};
    if (R->st_off && R->st_n && R->in_off && R->in_n) return JG_OK;
    jg__lin_op_reader_free(R);
    return JG_NOMEM;
}

void jg__lin_op_reader_free(jg__lin_op_reader_t *R)
{
    free(R->st_off);
    free(R->st_n);
    free(R->in_off);
    free(R->in_n);
    R->st_off = R->st_n = R->in_off = R->in_n = NULL;
}

/* A state's or input's values: a number for one, else an array of n
 * numbers, put from j on. */
static jg_status_t op_values(jg__lin_op_reader_t *R, const char *what, const char *key,
                             const jg__jv_t *v, int64_t j, int64_t n, jg_error_t *err)
{
    if (jg__jv_is_num(v)) {
        if (n != 1)
            return jg_error_set(err, JG_ARG, "%s: %s \"%s\": expected %lld values, got 1",
                                R->where(R->ctx), what, key, (long long)n);
        return R->put(R->ctx, j, jg__jv_num(v)) ? jg_error_set(err, JG_NOMEM, "out of memory") : JG_OK;
    }
    if (!jg__jv_is_arr(v) || (int64_t)jg__jv_len(v) != n)
        return jg_error_set(err, JG_ARG, "%s: %s \"%s\": expected %s%lld number%s", R->where(R->ctx),
                            what, key, n == 1 ? "" : "an array of ", (long long)n, n == 1 ? "" : "s");
    for (int64_t k = 0; k < n; k++) {
        const jg__jv_t *e = jg__jv_at(v, (size_t)k);
        if (!jg__jv_is_num(e))
            return jg_error_set(err, JG_ARG, "%s: %s \"%s\": element %lld is not a number",
                                R->where(R->ctx), what, key, (long long)k + 1);
        if (R->put(R->ctx, j + k, jg__jv_num(e))) return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return JG_OK;
}

jg_status_t jg__lin_op_read(jg__lin_op_reader_t *R, const jg_program_t *p, const jg__jv_t *obj,
                            jg_error_t *err)
{
    uint32_t m;
    jg__jkey_t k;
    const jg__jv_t *v, *t = NULL, *states = NULL, *inputs = NULL;
    jg_status_t st;
    if (!jg__jv_is_obj(obj))
        return jg_error_set(err, JG_ARG, "%s: expected an object with \"t\", \"states\", \"inputs\"%s",
                            R->where(R->ctx), R->params_ok ? ", \"parameters\"" : "");
    jg__jv_obj_foreach(obj, m, k, v) {
        if (k == R->k_t) t = v;
        else if (k == R->k_states) states = v;
        else if (k == R->k_inputs) inputs = v;
        else if (!R->params_ok || k != R->k_params)
            return jg_error_set(err, JG_ARG, "%s: unknown key \"%s\" (expected t, states, inputs%s)",
                                R->where(R->ctx), jg__jdoc_keytext(R->d, k),
                                R->params_ok ? ", parameters" : "");
    }
    if (t) {
        if (!jg__jv_is_num(t))
            return jg_error_set(err, JG_ARG, "%s: \"t\" must be a number", R->where(R->ctx));
        if (R->put(R->ctx, 0, jg__jv_num(t))) return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    if (states && !jg__jv_is_obj(states))
        return jg_error_set(err, JG_ARG, "%s: \"states\" must be an object", R->where(R->ctx));
    jg__jv_obj_foreach(states, m, k, v) {
        const char *key = jg__jdoc_keytext(R->d, k);
        if (!R->st_n[k]) R->st_off[k] = jg__lin_op_state(p, key, &R->st_n[k]);
        if (R->st_off[k] < 0)
            return jg_error_set(err, JG_ARG,
                                "%s: unknown state \"%s\" (expected the path of a block with "
                                "states, or PATH(k) for element k)",
                                R->where(R->ctx), key);
        if ((st = op_values(R, "state", key, v, 1 + R->st_off[k], R->st_n[k], err))) return st;
    }
    if (inputs && !jg__jv_is_obj(inputs))
        return jg_error_set(err, JG_ARG, "%s: \"inputs\" must be an object", R->where(R->ctx));
    jg__jv_obj_foreach(inputs, m, k, v) {
        const char *key = jg__jdoc_keytext(R->d, k);
        if (!R->in_n[k]) {
            R->in_off[k] = jg__lin_op_input(p, key, &R->in_n[k]);
            if (R->in_off[k] < 0) R->in_n[k] = -1;
        }
        if (R->in_off[k] < 0)
            return jg_error_set(err, JG_ARG, "%s: unknown input \"%s\" (expected a root Inport name)",
                                R->where(R->ctx), key);
        if ((st = op_values(R, "input", key, v, 1 + p->nx + R->in_off[k], R->in_n[k], err))) return st;
    }
    return JG_OK;
}

/* jg_lin_read_op's reader: messages start with the file, values go to l's
 * time, states and inputs. */
typedef struct {
    const char *path;
    jg_lin_t *l;
} op_dest_t;
static const char *op_file(void *ctx) { return ((const op_dest_t *)ctx)->path; }
static int op_put(void *ctx, int64_t j, double x)
{
    jg_lin_t *l = ((op_dest_t *)ctx)->l;
    int64_t nx = l->p->nx;
    if (j == 0) l->t = x;
    else if (j <= nx) jg_eval_states(l->w)[j - 1] = x;
    else jg_eval_inputs(l->w)[j - 1 - nx] = x;
    return 0;
}

jg_status_t jg_lin_read_op(jg_lin_t *l, const char *path, jg_error_t *err)
{
    json_error_t je;
    FILE *f = fopen(path, "rb");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root)
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    /* the document form the batch's points are read in: one reader of the format */
    jg__jdoc_t *d = NULL;
    jg__lin_op_reader_t R;
    jg_status_t st = jg__jdoc_from_jansson(root, &d);
    json_decref(root);
    if (!st) st = jg__lin_op_reader_init(&R, d, 0);
    if (st) {
        jg__jdoc_free(d);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    op_dest_t dest = {path, l};
    R.where = op_file, R.put = op_put, R.ctx = &dest;
    st = jg__lin_op_read(&R, l->p, jg__jdoc_root(d), err);
    jg__lin_op_reader_free(&R);
    jg__jdoc_free(d);
    return st;
}

/* -------------------------------------------------------------- clones */

int jg__lin_eliminated(const jg_lin_t *l, jg_graph_reduce_t r, const jg_graph_strategy_t *s)
{
    if (s) {
        int k = jg__graph_strategy_reduce(s);
        if (k < 0 && !(l->strat && jg__graph_strategy_same(l->strat, s))) return 0;
        r = k < 0 ? (jg_graph_reduce_t)JG__LIN_STRAT : (jg_graph_reduce_t)k;
    }
    return (unsigned)r <= JG__LIN_STRAT && l->g[r] && jg__graph_replayed(l->g[r]);
}

static void lft_prepare(jg_lin_t *l);

void jg_lin_freeze(jg_lin_t *l)
{
    lft_prepare(l);   /* the LFT analyses and operand recipes the clones will share */
    /* the lazily built names: vertex labels of the graphs (a replay's error
     * names its vertex) and the program's state names (every result) */
    for (int r = 0; r <= JG__LIN_STRAT; r++)
        for (int64_t v = 0; l->g[r] && !l->view[r] && v < jg_graph_nvertices(l->g[r]); v++)
            jg_graph_vertex_label(l->g[r], v);
    /* the replays' compiled tapes, shared by the clones (when one cannot be
     * compiled, the clones interpret that tape) */
    for (int r = 0; r <= JG__LIN_STRAT; r++)
        if (l->g[r] && !l->view[r] && jg__graph_replayed(l->g[r])) (void)jg__graph_compile(l->g[r]);
    for (int64_t i = 0; i < l->p->nx; i++) jg_program_state_name(l->p, i);
}

jg_status_t jg_lin_clone(const jg_lin_t *l, const jg_program_t *q, jg_lin_t **out, jg_error_t *err)
{
    *out = NULL;
    if (!l || !q) return jg_error_set(err, JG_ARG, "jg_lin_clone: NULL argument");
    jg_lin_t *c = calloc(1, sizeof *c);
    if (!c) return jg_error_set(err, JG_NOMEM, "out of memory");
    c->p = q;
    c->parent = l->parent ? l->parent : l;
    c->io = l->io;
    c->delays = l->delays;
    c->pade_order = l->pade_order;
    c->threads = 1;   /* clones run side by side already */
    c->par_work = l->par_work;
    c->ncut = l->ncut;
    c->cut = l->cut;
    jg_status_t st = jg_eval_create(q, &c->w, err);
    if (st) goto fail;
    c->wv = calloc((size_t)c->io->nw + 1, sizeof(double));
    if (!c->wv) goto nomem;
    jg__eval_use_iospec(c->w, c->io, c->wv);
    /* a clone is made to run many points: the fused plan from the first */
    jg__eval_const_jacobians(c->w);
    jg__eval_plan_any(c->w, 1);
    c->evaluated = 1;
    /* the strategy slot too (jg_lin_run_strategy): the clone's runs with the
     * same strategy replay l's elimination, never decide their own */
    if (l->strat && l->g[JG__LIN_STRAT] && !(c->strat = jg__graph_strategy_dup(l->strat))) goto nomem;
    for (int r = 0; r <= JG__LIN_STRAT; r++) {
        if (!l->g[r] || !jg__graph_replayed(l->g[r])) continue;   /* a failed elimination */
        if (!(c->g[r] = jg__graph_share(l->g[r]))) goto nomem;
        c->view[r] = 1;
        c->lsym[r] = l->lsym[r];   /* read-only; each clone its own numeric work */
        /* the recipes of the LFT operands (slots 0..2), read-only, and the
         * operands they fill, the clone's own: no extraction per point */
        if (r < 3 && l->lops[r][0]) {
            c->lgat_shared[r] = 1;
            for (int k = 0; k < 5; k++) {
                c->lgat[r][k] = l->lgat[r][k];
                if (l->lgat[r][k] && !(c->lops[r][k] = jg__lft_gather_alloc(l->lgat[r][k])))
                    goto nomem;
            }
        }
    }
    *out = c;
    return JG_OK;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
fail:
    jg_lin_free(c);
    return st;
}

/* ---------------------------------------------------------- graph method */

/* The graph for reduction r, built and eliminated numerically at the work's
 * block Jacobians (evaluated by the caller) on first use. */
static jg_status_t ensure_graph_built(jg_lin_t *l, jg_graph_reduce_t r, jg_graph_t *built,
                                      jg_lin_stats_t *st, jg_error_t *err)
{
    if ((unsigned)r > JG__LIN_STRAT || ((int)r == JG__LIN_STRAT && !l->strat)) {
        jg_graph_free(built);
        return jg_error_set(err, JG_ARG, "unknown graph reduction %d", (int)r);
    }
    if (l->g[r]) {
        jg_graph_free(built);
        return JG_OK;
    }
    if (!built && l->pre) {   /* jg_lin_create's (prepare_graph) */
        built = l->pre;
        l->pre = NULL;
        if (st) {
            st->t_build = l->pre_secs;
            st->build_overlap = 2;
        }
    }
    double t0 = now();
    jg_status_t s = JG_OK;
    if (built) l->g[r] = built;
    else s = jg__graph_build(l->p, l->io, &l->g[r], err);
    double t1 = now();
    if (!s)
        s = (int)r == JG__LIN_STRAT ? jg__graph_eliminate_strategy(l->g[r], l->strat, l->w, err)
                                    : jg__graph_eliminate(l->g[r], r, l->w, err);
    if (s) {
        jg_graph_free(l->g[r]);
        l->g[r] = NULL;
        return s;
    }
    if (st) {
        if (!built) st->t_build = t1 - t0;
        st->t_elim = now() - t1;
    }
    return JG_OK;
}

static jg_status_t ensure_graph(jg_lin_t *l, jg_graph_reduce_t r, jg_lin_stats_t *st, jg_error_t *err)
{
    return ensure_graph_built(l, r, NULL, st, err);
}

/* A run's evaluation (the block Jacobians too), for beside_build. */
static jg_status_t eval_jacobians(jg_lin_t *l, jg_error_t *err) { return jg__lin_eval(l, 1, err); }

/* A vertex offset map for jg__graph_sub: base per vertex kind (-1: none),
 * live vertices only when live_only.  NULL when out of memory. */
static int64_t *offsets(const jg_graph_t *g, int64_t bx, int64_t bu, int64_t by, int64_t bw,
                        int64_t bz, int live_only)
{
    const int64_t base[5] = {[JG_V_STATE] = bx, [JG_V_INPUT] = bu, [JG_V_OUTPUT] = by,
                             [JG_V_LIN_IN] = bw, [JG_V_LIN_OUT] = bz};
    int64_t *o = malloc(sizeof(int64_t) * (size_t)(jg_graph_nvertices(g) + 1));
    if (o) jg__graph_offset_map(g, base, live_only, o);
    return o;
}

/* LFT operands from the graph.  Unreduced: Fig. 4's else-branch (Theorem 1:
 * Ao = sub(X,X), Bo = sub(U,X), Co = sub(X,Y), Do = sub(U,Y), M = sub(Y,U)).
 * Reduced: A_r, B_r, C_r, D_r over the remaining algebraic vertices, M = I. */
static jg_status_t graph_ops(jg_lin_t *l, const jg_graph_t *g, int reduced, jg_lftops_t *o,
                             jg_error_t *err)
{
    const jg_program_t *p = l->p;
    int64_t nx = p->nx, nw = l->io->nw, nz = l->io->nz, ni = nx + nw, no = nx + nz;
    /* ext-in: states and input points; ext-out: states and output points */
    int64_t *ein = offsets(g, 0, -1, -1, nx, -1, 1), *eout = offsets(g, 0, -1, -1, -1, nx, 1);
    int64_t *ra = NULL, *rb = NULL, *xo = NULL;
    jg_status_t st = JG_OK;
    *o = (jg_lftops_t){0};
    if (!ein || !eout) goto nomem;
    if (reduced) {
        /* the remaining algebraic vertices Y_r, in vertex order */
        ra = malloc(sizeof(int64_t) * (size_t)(jg_graph_nvertices(g) + 1));
        if (!ra) goto nomem;
        int64_t nr = jg__graph_survivor_map(g, ra);
        o->P11 = jg__graph_sub(g, eout, no, ein, ni);
        o->P12 = jg__graph_sub(g, eout, no, ra, nr);
        o->P21 = jg__graph_sub(g, ra, nr, ein, ni);
        o->P22 = jg__graph_sub(g, ra, nr, ra, nr);
        if (!o->P11 || !o->P12 || !o->P21 || !o->P22) goto nomem;
        goto done;
    }
    /* ra: U-space (block inputs, then output points); rb: Y-space (block
     * outputs, then input points) */
    xo = offsets(g, 0, -1, -1, -1, -1, 0);
    ra = offsets(g, -1, 0, -1, -1, p->nu, 0);
    rb = offsets(g, -1, -1, 0, p->ny, -1, 0);
    if (!xo || !ra || !rb) goto nomem;
    cs_dl *Bo = jg__graph_sub(g, xo, no, ra, p->nu + nz);   /* rows of z stay empty */
    cs_dl *Co = jg__graph_sub(g, rb, p->ny + nw, xo, ni);
    o->P11 = jg__graph_sub(g, xo, no, xo, ni);
    o->P22 = jg__graph_sub(g, rb, p->ny + nw, ra, p->nu + nz);
    o->M = jg__graph_sub(g, ra, p->nu + nz, rb, p->ny + nw);
    /* the I/O points are their own rows/columns: identity blocks */
    cs_dl *Iz = cs_dl_spalloc(no, p->nu + nz, nz + 1, 1, 1);
    cs_dl *Iw = cs_dl_spalloc(p->ny + nw, ni, nw + 1, 1, 1);
    int ok = Bo && Co && o->P11 && o->P22 && o->M && Iz && Iw;
    for (int64_t k = 0; ok && k < nz; k++) ok = !jg__entry(Iz, nx + k, p->nu + k, 1.0);
    for (int64_t k = 0; ok && k < nw; k++) ok = !jg__entry(Iw, p->ny + k, nx + k, 1.0);
    cs_dl *Izc = ok ? cs_dl_compress(Iz) : NULL, *Iwc = ok ? cs_dl_compress(Iw) : NULL;
    if (Izc && Iwc) {
        o->P12 = cs_dl_add(Bo, Izc, 1.0, 1.0);
        o->P21 = cs_dl_add(Co, Iwc, 1.0, 1.0);
    }
    cs_dl_spfree(Bo);
    cs_dl_spfree(Co);
    cs_dl_spfree(Iz);
    cs_dl_spfree(Iw);
    cs_dl_spfree(Izc);
    cs_dl_spfree(Iwc);
    if (!o->P12 || !o->P21) goto nomem;
    goto done;
nomem:
    jg__lftops_free(o);
    st = jg_error_set(err, JG_NOMEM, "out of memory extracting submatrices");
done:
    free(ein);
    free(eout);
    free(ra);
    free(rb);
    free(xo);
    return st;
}

/* The recipe of graph_ops' submatrix sub(rowoff, m, coloff, n) plus ne
 * entries 1 at (er[k], ec[k]) (cs_dl_add's identity blocks), or NULL. */
static jg__lft_gather_t *sub_gather(const jg_graph_t *g, const int64_t *rowoff, int64_t m,
                                    const int64_t *coloff, int64_t n, int64_t ne, int64_t er,
                                    int64_t ec)
{
    int64_t nt = jg__graph_sub_entries(g, rowoff, coloff, NULL, NULL, NULL);
    int64_t *row = malloc(sizeof(int64_t) * (size_t)(nt + ne + 1)),
            *col = malloc(sizeof(int64_t) * (size_t)(nt + ne + 1)),
            *src = malloc(sizeof(int64_t) * (size_t)(nt + ne + 1));
    jg__lft_gather_t *r = NULL;
    if (row && col && src) {
        jg__graph_sub_entries(g, rowoff, coloff, row, col, src);
        for (int64_t k = 0; k < ne; k++) {
            row[nt + k] = er + k;
            col[nt + k] = ec + k;
            src[nt + k] = -1;
        }
        r = jg__lft_gather_new(m, n, nt + ne, row, col, src);
    }
    free(row);
    free(col);
    free(src);
    return r;
}

static int same_csc(const cs_dl *a, const cs_dl *b)
{
    if (!a || !b) return a == b;
    int64_t nz = a->p[a->n];
    return a->m == b->m && a->n == b->n && b->nz == -1 && nz == b->p[b->n] &&
           !memcmp(a->p, b->p, sizeof(int64_t) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int64_t) * (size_t)nz) &&
           !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

/* Recipes for graph slot r's LFT operands (graph_ops' submatrices, the same
 * offset maps), kept only when they reproduce o (graph_ops' at this replay)
 * bit for bit: else lgat_bad[r].  Out of memory: nothing kept. */
static void make_gathers(jg_lin_t *l, int r, const jg_lftops_t *o)
{
    const jg_program_t *p = l->p;
    const jg_graph_t *g = l->g[r];
    int64_t nx = p->nx, nw = l->io->nw, nz = l->io->nz, ni = nx + nw, no = nx + nz;
    int64_t *a = offsets(g, 0, -1, -1, nx, -1, 1), *b = offsets(g, 0, -1, -1, -1, nx, 1), *c = NULL;
    jg__lft_gather_t **G = l->lgat[r];
    const cs_dl *want[5] = {o->P11, o->P12, o->P21, o->P22, o->M};
    int ok = a && b;
    if (ok && r != JG_GRAPH_REDUCE_NONE) {   /* ein = a, eout = b, survivors c */
        c = malloc(sizeof(int64_t) * (size_t)(jg_graph_nvertices(g) + 1));
        ok = c != NULL;
        if (ok) {
            int64_t nr = jg__graph_survivor_map(g, c);
            G[0] = sub_gather(g, b, no, a, ni, 0, 0, 0);
            G[1] = sub_gather(g, b, no, c, nr, 0, 0, 0);
            G[2] = sub_gather(g, c, nr, a, ni, 0, 0, 0);
            G[3] = sub_gather(g, c, nr, c, nr, 0, 0, 0);
        }
    } else if (ok) {   /* xo = a, U-space b, Y-space c */
        free(a);
        free(b);
        a = offsets(g, 0, -1, -1, -1, -1, 0);
        b = offsets(g, -1, 0, -1, -1, p->nu, 0);
        c = offsets(g, -1, -1, 0, p->ny, -1, 0);
        ok = a && b && c;
        if (ok) {
            G[0] = sub_gather(g, a, no, a, ni, 0, 0, 0);
            G[1] = sub_gather(g, a, no, b, p->nu + nz, nz, nx, p->nu);
            G[2] = sub_gather(g, c, p->ny + nw, a, ni, nw, p->ny, nx);
            G[3] = sub_gather(g, c, p->ny + nw, b, p->nu + nz, 0, 0, 0);
            G[4] = sub_gather(g, b, p->nu + nz, c, p->ny + nw, 0, 0, 0);
        }
    }
    for (int k = 0; ok && k < 5; k++) {
        if (!want[k]) {
            ok = !G[k];
            continue;
        }
        ok = G[k] && (l->lops[r][k] = jg__lft_gather_alloc(G[k])) != NULL;
        if (ok) jg__lft_gather_run(G[k], jg__graph_values(g), l->lops[r][k]);
        if (ok && !same_csc(l->lops[r][k], want[k])) {
            ok = 0;
            l->lgat_bad[r] = 1;
        }
    }
    if (!ok)
        for (int k = 0; k < 5; k++) {
            jg__lft_gather_free(G[k]);
            cs_dl_spfree(l->lops[r][k]);
            G[k] = NULL;
            l->lops[r][k] = NULL;
        }
    free(a);
    free(b);
    free(c);
}

/* Graph slot r's LFT operands at the last replay into *po: slots 0..2 by
 * their recipes (made on the second run, checked there against graph_ops), the
 * operands l's own; else graph_ops' into o. */
static jg_status_t lft_ops(jg_lin_t *l, int r, jg_lftops_t *o, jg_lftops_t *po, jg_error_t *err)
{
    if (r < 3 && l->lops[r][0]) {
        cs_dl **A = l->lops[r];
        for (int k = 0; k < 5; k++)
            if (A[k]) jg__lft_gather_run(l->lgat[r][k], jg__graph_values(l->g[r]), A[k]);
        *po = (jg_lftops_t){A[0], A[1], A[2], A[3], A[4]};
        return JG_OK;
    }
    jg_status_t s = graph_ops(l, l->g[r], r != JG_GRAPH_REDUCE_NONE, o, err);
    if (!s && r < 3 && !l->lgat_bad[r] && l->lruns[r]) make_gathers(l, r, o);   /* a second run */
    *po = *o;
    return s;
}

jg_status_t jg_lin_graph(jg_lin_t *l, jg_graph_reduce_t r, const jg_graph_t **g, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    if (!l->g[r] || !jg__graph_replayed(l->g[r])) {
        if (!(st = jg__lin_eval(l, 1, err))) st = ensure_graph(l, r, NULL, err);
        if (!st && !jg__graph_replayed(l->g[r])) st = jg__graph_replay(l->g[r], l->w, err);
    }
    *g = st ? NULL : l->g[r];
    return st;
}

/* The graph slot of strategy s: a classic reduction's own, else
 * JG__LIN_STRAT, emptied when it holds another strategy's elimination.
 * -1 when out of memory. */
static int strategy_slot(jg_lin_t *l, const jg_graph_strategy_t *s)
{
    int r = jg__graph_strategy_reduce(s);
    if (r >= 0) return r;
    if (l->strat && jg__graph_strategy_same(l->strat, s)) return JG__LIN_STRAT;
    if (l->view[JG__LIN_STRAT]) jg__graph_share_free(l->g[JG__LIN_STRAT]);
    else jg_graph_free(l->g[JG__LIN_STRAT]);
    l->g[JG__LIN_STRAT] = NULL;
    l->view[JG__LIN_STRAT] = 0;
    /* the LFT analysis of the former elimination goes with it */
    jg_lft_num_free(l->lnum[JG__LIN_STRAT]);
    if (l->lsym_own[JG__LIN_STRAT]) jg_lft_sym_free(l->lsym[JG__LIN_STRAT]);
    l->lnum[JG__LIN_STRAT] = NULL;
    l->lsym[JG__LIN_STRAT] = NULL;
    l->lsym_own[JG__LIN_STRAT] = 0;
    l->lruns[JG__LIN_STRAT] = 0;
    l->lmiss[JG__LIN_STRAT] = 0;
    jg_graph_strategy_free(l->strat);
    l->strat = jg__graph_strategy_dup(s);
    return l->strat ? JG__LIN_STRAT : -1;
}

jg_status_t jg_lin_graph_strategy(jg_lin_t *l, const jg_graph_strategy_t *s, const jg_graph_t **g,
                                  jg_error_t *err)
{
    int r = strategy_slot(l, s);
    if (r < 0) {
        *g = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return jg_lin_graph(l, (jg_graph_reduce_t)r, g, err);
}

jg_status_t jg_lin_run_strategy(jg_lin_t *l, const jg_graph_strategy_t *s, jg_lin_sys_t **out,
                                jg_lin_stats_t *st, jg_error_t *err)
{
    int r = strategy_slot(l, s);
    if (r < 0) {
        *out = NULL;
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    return jg_lin_run(l, JG_LIN_GRAPH, (jg_graph_reduce_t)r, out, st, err);
}

/* The LFT of graph slot r's operands o: replayed numerically on the slot's
 * analysis (made here on the second run, and again when the operands' patterns
 * changed -- another elimination -- or its pivots moved three runs in a row)
 * into *F, which belongs to l->lnum[r]; or,
 * when no analysis can be made at this point (I - P22 M singular here), a
 * fresh jg_lft into *own (*F the same).  The replay gives jg_lft's bits and
 * falls back to it by itself when a recorded pivot moved (info->fallback). */
static jg_status_t lft_run(jg_lin_t *l, int r, const jg_lftops_t *o, cs_dl **own, const cs_dl **F,
                           jg_lft_info_t *info, jg_error_t *err)
{
    jg_status_t s = JG_OK;
    /* pivots that keep moving (the operating points went far from the
     * analysis): analyse again here, for the points near this one.  The
     * clones of a linearizer share its analyses: those are
     * retired, not freed (and kept when too many were) */
    int shared = !l->parent && l->lsym_own[r];
    int stale = l->lsym[r] && !jg_lft_sym_matches(l->lsym[r], o->P11, o->P12, o->P21, o->P22, o->M);
    if (l->lsym[r] && (stale || l->lmiss[r] >= 3) && (!shared || l->nretired < JG__LIN_RETIRED)) {
        jg_lft_num_free(l->lnum[r]);
        if (shared) l->lretired[l->nretired++] = l->lsym[r];
        else if (l->lsym_own[r]) jg_lft_sym_free(l->lsym[r]);
        l->lnum[r] = NULL;
        l->lsym[r] = NULL;
        l->lsym_own[r] = 0;
        l->lmiss[r] = 0;
    }
    if (!l->lsym[r] && !l->lruns[r]) {   /* one run (the common case) is not worth an analysis */
        l->lruns[r] = 1;
        s = jg__lft_threads(o->P11, o->P12, o->P21, o->P22, o->M, own, info, l->threads,
                            l->par_work, err);
        *F = *own;
        return s;
    }
    if (!l->lsym[r]) {
        s = jg_lft_analyze(o->P11, o->P12, o->P21, o->P22, o->M, &l->lsym[r], err);
        if (s == JG_NOMEM) return s;
        if (s) {   /* singular here: jg_lft says so in its words */
            jg_error_clear(err);
            s = jg__lft_threads(o->P11, o->P12, o->P21, o->P22, o->M, own, info, l->threads,
                                l->par_work, err);
            *F = *own;
            return s;
        }
        l->lsym_own[r] = 1;
    }
    if (!l->lnum[r] && (s = jg_lft_num_create(l->lsym[r], &l->lnum[r], err))) return s;
    /* (a stale shared analysis that could not be retired: jg_lft_refactor
     * factorizes afresh by itself) */
    s = jg_lft_refactor(l->lsym[r], l->lnum[r], o->P11, o->P12, o->P21, o->P22, o->M, F, info, err);
    l->lmiss[r] = info->fallback == 1 ? (unsigned char)(l->lmiss[r] + 1) : 0;
    l->lruns[r] = 1;   /* (a clone starts on its parent's analysis: its next run makes recipes) */
    return s;
}

/* The LFT analysis of every elimination of l that ran and has none yet, at
 * its last replay, and the recipes of its operands (slots 0..2; jg_lin_freeze:
 * the clones share them).  Failures leave none: each clone then analyses its
 * own, and makes its own recipes, on its second run. */
static void lft_prepare(jg_lin_t *l)
{
    for (int r = 0; r <= JG__LIN_STRAT; r++) {
        if (!l->g[r] || l->view[r] || !l->lruns[r] || !jg__graph_replayed(l->g[r])) continue;
        int gat = r < 3 && !l->lops[r][0] && !l->lgat_bad[r];
        if (l->lsym[r] && !gat) continue;
        jg_lftops_t o = {0};
        jg_error_t e;
        if (!graph_ops(l, l->g[r], r != JG_GRAPH_REDUCE_NONE, &o, &e)) {
            if (!l->lsym[r] && !jg_lft_analyze(o.P11, o.P12, o.P21, o.P22, o.M, &l->lsym[r], &e))
                l->lsym_own[r] = 1;
            if (gat) make_gathers(l, r, &o);
        }
        jg__lftops_free(&o);
    }
}

/* When I - P22 M is singular, say which algebraic loops could be the cause. */
static jg_status_t singular(const jg_lin_t *l, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    char buf[JG_ERROR_MSG_MAX] = "";
    size_t n = 0;
    for (int k = 0; k < p->nloops && n < sizeof buf - 8; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s[%s]", k ? "; " : "", p->loop_names[k]);
    char why[JG_ERROR_MSG_MAX];
    snprintf(why, sizeof why, "%s", err && err->msg[0] ? err->msg : "I - D*M is singular");
    return jg_error_set(err, JG_SINGULAR_LOOP, "singular algebraic loop: %s%s%s", why,
                        p->nloops ? "; algebraic loops: " : "", buf);
}

jg_status_t jg_lin_run(jg_lin_t *l, jg_lin_method_t m, jg_graph_reduce_t r, jg_lin_sys_t **out,
                       jg_lin_stats_t *stats, jg_error_t *err)
{
    jg_lin_stats_t st0;
    jg_lin_stats_t *st = stats ? stats : &st0;
    memset(st, 0, sizeof *st);
    jg_lftops_t ops = {0};
    cs_dl *F = NULL;
    const cs_dl *Fr = NULL;   /* the result: F, or the graph method's LFT work's */
    jg_lft_info_t info = {.cond = 1, .cond_row = -1};
    const jg_graph_t *gsolved = NULL;   /* the reduced graph whose survivors the LFT solved */
    double piv = 1;                      /* the eliminations' worst pivot condition */
    jg_status_t s;
    *out = NULL;
    double t0 = now();
    jg_graph_t *built = NULL;   /* built beside the evaluation, for ensure_graph_built */
    if (m == JG_LIN_GRAPH && (unsigned)r <= JG__LIN_STRAT && !l->g[r] && !l->pre &&
        l->threads > 1 && l->p->nblocks >= l->overlap_min)
        s = beside_build(l, eval_jacobians, &built, &st->t_build, &st->t_eval, err);
    else
        s = JG__LIN_NOT_STARTED;
    if (s == JG__LIN_NOT_STARTED) {
        s = jg__lin_eval(l, m != JG_LIN_PERTURB, err);
        st->t_eval = now() - t0;
    } else {
        st->build_overlap = 1;
    }
    if (s) goto done;
    double t1 = now();
    if (m == JG_LIN_PERTURB) {
        if ((s = jg__lin_perturb(l, &F, &st->perturb_err, err))) goto done;
        st->t_lft = now() - t1;
    } else if (m == JG_LIN_MATRIX) {
        if ((s = jg__lin_matrix_ops(l, &ops, err))) goto done;
        double t2 = now();
        st->t_build = t2 - t1;
        st->bytes_matrix = st->bytes_lft = jg__lftops_bytes(&ops);
        if ((s = jg__lft_threads(ops.P11, ops.P12, ops.P21, ops.P22, ops.M, &F, &info, l->threads,
                                 l->par_work, err))) {
            if (s == JG_SINGULAR_LOOP) s = singular(l, err);
            goto done;
        }
        st->t_lft = now() - t2;
    } else {
        int fresh = !l->g[r];   /* a new elimination is already replayed */
        if ((s = ensure_graph_built(l, r, built, st, err))) goto done;
        double t2 = now();
        if (!fresh) s = jg__graph_replay(l->g[r], l->w, err);
        /* a tape decided at another operating point may meet a pivot that is
         * singular or ill-conditioned here: solve this run without it */
        jg_graph_reduce_t ru = r;
        if (s == JG_SINGULAR_LOOP || (!s && jg__graph_pivots(l->g[r], NULL) >= 0)) {
            jg_error_clear(err);
            ru = JG_GRAPH_REDUCE_NONE;
            st->pivot_fallback = 1;
            if ((s = ensure_graph(l, ru, NULL, err)) || (s = jg__graph_replay(l->g[ru], l->w, err)))
                goto done;
        } else if (s) {
            goto done;
        }
        double t3 = now();
        st->t_replay = t3 - t2;
        if (ru != JG_GRAPH_REDUCE_NONE) jg__graph_pivots(l->g[ru], &piv);
        jg_lftops_t po;   /* ops, or l's own operands (lft_ops) */
        if ((s = lft_ops(l, (int)ru, &ops, &po, err))) goto done;
        gsolved = ru != JG_GRAPH_REDUCE_NONE ? l->g[ru] : NULL;
        st->bytes_lft = jg__lftops_bytes(&po);
        if ((s = lft_run(l, (int)ru, &po, &F, &Fr, &info, err))) {
            if (s == JG_SINGULAR_LOOP) s = singular(l, err);
            goto done;
        }
        st->lft_fallback = info.fallback;
        st->t_lft = now() - t3;
        jg_graph_stats(l->g[r], &st->graph);
    }
    st->lft_n = info.n;
    st->lft_fma = info.lu_fma;
    st->lft_rcond = info.rcond;
    if (m != JG_LIN_PERTURB) {
        st->cond = fmax(info.cond, piv);
        jg__lin_cond_notice(l, info.cond, jg__lin_row_block(l, gsolved, info.cond_row),
                            "I - D*M (the algebraic loops)");
    }
    if (!Fr) Fr = F;
    if (!jg__lin_finite(Fr)) {
        s = jg__lin_nonfinite(l,
                              m == JG_LIN_PERTURB ? "perturbation"
                              : gsolved           ? "the vertex elimination or the LFT"
                                                  : "the LFT",
                              err);
        goto done;
    }
    s = jg__lin_sys_from(l, Fr, out, err);
done:
    /* a failure caused by NaN or Inf block Jacobians says so */
    if (s == JG_SINGULAR_LOOP && m != JG_LIN_PERTURB && !jg__lin_jacobians_finite(l))
        s = jg__lin_nonfinite(l, "", err);
    st->t_total = now() - t0;
    jg__lftops_free(&ops);
    cs_dl_spfree(F);
    return s;
}
