/* Simulink tree (any encoding) -> jacgraph JSON model: blocks through the
 * tables of blockmap.c with parameters resolved explicit -> file defaults ->
 * built-in defaults, lines and branch trees, masks, library links, model
 * references, workspaces; every unsupported block collected for one error. */
#define _GNU_SOURCE 1   /* asprintf */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import_impl.h"

typedef struct conv {
    jg__import_ctx_t *ic;
    const jg__sl_tree_t *t;
    const jg__sl_node_t *model;     /* the Model / Library node */
    const jg__sl_node_t *bpd;       /* BlockParameterDefaults, NULL in R2024a */
    const char *file;               /* for messages and model references */
    json_t *problems;               /* "path (Type): reason" of unsupported blocks */
    json_t *skipped;                /* UI-only blocks left out */
    jg_error_t *err;
    jg_status_t st;                 /* first hard error (not an unsupported block) */
} conv_t;

/* One block of a system while it is converted. */
typedef struct blk {
    const jg__sl_node_t *n;
    const char *name, *type, *sid;
    char *path;                     /* our path syntax ("A/b//c") */
    json_t *j;                      /* converted block, NULL when skipped or unsupported */
    int skipped;                    /* lines to it are dropped silently */
    int alias;                      /* InportShadow: index of the Inport it copies, else -1 */
    const char *bus_names;          /* BusSelector: OutputSignals */
} blk_t;

/* One connection before grouping into JSON lines. */
typedef struct edge {
    int src, sport, dst, dport;     /* block indices in the system, 1-based ports */
    const char *name;               /* signal name or NULL */
} edge_t;

/* Record a failure (status and message) unless one is recorded already:
 * the first is the one reported.  Evaluates to the recorded status. */
#define fail(c_, st_, ...) \
    ((c_)->st ? (c_)->st : ((c_)->st = jg_error_set((c_)->err, (st_), __VA_ARGS__)))

/* A block path on one line for a message: Simulink names hold line breaks. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20) *s = ' ';
}

/* "path (type): reason" on one line, appended to list. */
static void note(conv_t *c, json_t *list, const blk_t *b, const char *reason)
{
    char *s = NULL;
    if (asprintf(&s, "%s (%s): %s", b->path, b->type, reason) < 0) {
        fail(c, JG_NOMEM, "out of memory");
        return;
    }
    one_line(s);
    json_array_append_new(list, json_string(s));
    free(s);
}

static void problem(conv_t *c, const blk_t *b, const char *reason)
{
    note(c, c->problems, b, reason);
}

static void skip(conv_t *c, blk_t *b, const char *reason)
{
    b->skipped = 1;
    note(c, c->skipped, b, reason);
}

/* ---- values ---- */

json_t *jg__import_param_json(const char *s)
{
    double x;
    if (jg_expr_is_number(s, &x) && isfinite(x)) return json_real(x);
    return json_string(s);
}

json_t *jg__import_value_json(const jg_expr_value_t *v)
{
    if (v->kind == JG_EXPR_STR) {   /* a MATLAB string literal, quotes doubled */
        size_t n = strlen(v->str);
        char *q = malloc(2 * n + 3), *p = q;
        if (!q) return NULL;
        *p++ = '\'';
        for (size_t k = 0; k < n; k++) {
            if (v->str[k] == '\'') *p++ = '\'';
            *p++ = v->str[k];
        }
        *p++ = '\'';
        *p = 0;
        json_t *j = json_string(q);
        free(q);
        return j;
    }
    int finite = 1;
    for (int64_t k = 0; k < v->rows * v->cols; k++) finite &= isfinite(v->x[k]) != 0;
    if (finite && v->rows == 1 && v->cols == 1) return json_real(v->x[0]);
    if (finite) {   /* [[...], ...] rows; a row vector as a flat array */
        json_t *a = json_array();
        for (int64_t r = 0; r < v->rows; r++) {
            json_t *row = v->rows == 1 ? a : json_array();
            for (int64_t k = 0; k < v->cols; k++)
                json_array_append_new(row, json_real(v->x[r * v->cols + k]));
            if (v->rows != 1) json_array_append_new(a, row);
        }
        if (v->rows == 0 || v->cols == 0) {
            json_decref(a);
            return json_array();
        }
        return a;
    }
    /* non-finite entries: MATLAB text */
    size_t cap = 32 + (size_t)(v->rows * v->cols) * 26, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[len++] = '[';
    for (int64_t r = 0; r < v->rows; r++) {
        for (int64_t k = 0; k < v->cols; k++) {
            double x = v->x[r * v->cols + k];
            len += (size_t)snprintf(s + len, cap - len, "%s%s", k ? " " : "",
                                    isnan(x) ? "nan" : isinf(x) ? (x > 0 ? "inf" : "-inf") : "");
            if (isfinite(x)) len += (size_t)snprintf(s + len, cap - len, "%.17g", x);
        }
        if (r + 1 < v->rows) s[len++] = ';';
    }
    s[len++] = ']';
    s[len] = 0;
    json_t *j = json_string(s);
    free(s);
    return j;
}

/* ---- parameters: explicit -> file defaults -> built-in ---- */

/* Parameter of the block itself (R2024a library links keep the dialog values
 * in an InstanceData child). */
static const char *own_param(const jg__sl_node_t *n, const char *key)
{
    const char *v = jg__sl_get(n, key);
    if (v) return v;
    const jg__sl_node_t *id = jg__sl_child(n, "InstanceData");
    return id ? jg__sl_get(id, key) : NULL;
}

static const char *file_default(const conv_t *c, const char *type, const char *key)
{
    if (!c->bpd) return NULL;
    size_t i = 0;
    for (const jg__sl_node_t *b; (b = jg__sl_next(c->bpd, "Block", &i));) {
        const char *bt = jg__sl_get(b, "BlockType");
        if (bt && !strcmp(bt, type)) return jg__sl_get(b, key);
    }
    return NULL;
}

static const char *param(const conv_t *c, const blk_t *b, const char *key, const char *builtin)
{
    const char *v = own_param(b->n, key);
    if (!v) v = file_default(c, b->type, key);
    return v ? v : builtin;
}

static int is_on(const char *v) { return v && !strcmp(v, "on"); }

/* Copy the table's parameters onto the JSON block. */
static void copy_params(conv_t *c, const blk_t *b, const jg__sl_bmap_t *m, json_t *j)
{
    for (int k = 0; k < JG__SL_MAXP && m->p[k].sl; k++) {
        const char *v = param(c, b, m->p[k].sl, m->p[k].def);
        if (!v) continue;
        const char *name = m->p[k].jg ? m->p[k].jg : m->p[k].sl;
        if (json_object_get(j, name) && !own_param(b->n, m->p[k].sl))
            continue;   /* an older alias already set it (OutputValues after Table) */
        json_object_set_new(j, name, jg__import_param_json(v));
    }
}

/* ---- names and paths ---- */

static char *join_path(const char *parent, const char *name)
{
    size_t n = strlen(parent) + 2 * strlen(name) + 2;
    char *p = malloc(n), *q = p;
    if (!p) return NULL;
    if (*parent) {
        q = stpcpy(q, parent);
        *q++ = '/';
    }
    for (const char *s = name; *s; s++) {
        if (*s == '/') *q++ = '/';
        *q++ = *s;
    }
    *q = 0;
    return p;
}

/* ---- masks ---- */

static int is_mask_param(const jg__sl_node_t *n, const jg__sl_node_t *parent)
{
    if (!strcmp(n->tag, "MaskParameter")) return 1;
    const char *cls = jg__sl_get(n, "$ClassName");
    if (!cls) cls = jg__sl_get(n, "ClassName");
    if (cls && !strcmp(cls, "Simulink.MaskParameter")) return 1;
    if (!strcmp(n->tag, "Simulink.MaskParameter")) return 1;
    const char *pt = parent ? jg__sl_get(parent, "Type") : NULL;
    return !strcmp(n->tag, "Object") && pt && !strcmp(pt, "Simulink.MaskParameter");
}

/* A mask parameter's value as a workspace entry: evaluated dialog fields stay
 * expressions, literal ones (popup, checkbox, Evaluate off) become strings. */
static json_t *mask_value(const char *type, const char *evaluate, const char *value)
{
    int literal = (evaluate && !strcmp(evaluate, "off")) ||
                  (type && (!strcmp(type, "popup") || !strcmp(type, "checkbox") ||
                            !strcmp(type, "radiobutton") || !strcmp(type, "combobox")));
    if (!literal) return jg__import_param_json(value);
    jg_expr_value_t v = {.kind = JG_EXPR_STR, .rows = 1, .cols = (int64_t)strlen(value),
                         .str = (char *)value};
    return jg__import_value_json(&v);
}

static void collect_mask_params(const jg__sl_node_t *n, const jg__sl_node_t *parent, json_t *out)
{
    for (size_t k = 0; k < n->nkid; k++) {
        const jg__sl_node_t *ch = n->kid[k];
        if (is_mask_param(ch, n)) {
            const char *name = jg__sl_get(ch, "Name"), *val = jg__sl_get(ch, "Value");
            if (name && *name)
                json_object_set_new(out, name,
                                    mask_value(jg__sl_get(ch, "Type"),
                                               jg__sl_get(ch, "Evaluate"), val ? val : ""));
        } else if (!strcmp(ch->tag, "Object") || !strcmp(ch->tag, "Array") ||
                   !strcmp(ch->tag, "Mask") || !strcmp(ch->tag, "Simulink.Mask")) {
            collect_mask_params(ch, n, out);
        }
    }
    (void)parent;
}

/* Assignments of mask initialization code become more entries (each an
 * expression in the mask's scope). */
static void mask_init_entries(const char *code, json_t *out)
{
    const char *p = code;
    while (*p) {
        const char *end = p;
        int depth = 0, quote = 0;
        while (*end && (depth || quote || (*end != ';' && *end != '\n' && *end != ','))) {
            if (*end == '\'' ) quote = !quote;
            else if (!quote && (*end == '(' || *end == '[')) depth++;
            else if (!quote && (*end == ')' || *end == ']') && depth) depth--;
            else if (!quote && *end == '%') {
                while (*end && *end != '\n') end++;
                break;
            }
            end++;
        }
        const char *q = p;
        while (q < end && isspace((unsigned char)*q)) q++;
        const char *id = q;
        while (q < end && (isalnum((unsigned char)*q) || *q == '_')) q++;
        size_t idn = (size_t)(q - id);
        while (q < end && isspace((unsigned char)*q)) q++;
        if (idn && isalpha((unsigned char)*id) && q < end && *q == '=' && q[1] != '=') {
            q++;
            char name[128], *rhs;
            if (idn < sizeof name && (rhs = strndup(q, (size_t)(end - q)))) {
                memcpy(name, id, idn);
                name[idn] = 0;
                if (!json_object_get(out, name)) json_object_set_new(out, name, jg__import_param_json(rhs));
                free(rhs);
            }
        }
        p = *end ? end + 1 : end;
    }
}

static json_t *mask_params(const jg__sl_node_t *n)
{
    json_t *out = json_object();
    /* <= 7.x: MaskVariables "a=@1;b=&2;" with MaskValueString "1|2" */
    const char *vars = jg__sl_get(n, "MaskVariables"), *vals = jg__sl_get(n, "MaskValueString");
    if (vars && vals) {
        char *vv = strdup(vals), *save = NULL;
        const char *fields[256];
        int nf = 0;
        for (char *tok = vv ? strtok_r(vv, "|", &save) : NULL; tok && nf < 256;
             tok = strtok_r(NULL, "|", &save))
            fields[nf++] = tok;
        const char *p = vars;
        while (*p) {
            const char *eq = strchr(p, '='), *semi = strchr(p, ';');
            if (!eq || (semi && semi < eq)) break;
            int lit = eq[1] == '&';
            long idx = strtol(eq + 2, NULL, 10);
            char name[128];
            size_t len = (size_t)(eq - p);
            if (len < sizeof name && idx >= 1 && idx <= nf) {
                memcpy(name, p, len);
                name[len] = 0;
                json_object_set_new(out, name, mask_value(NULL, lit ? "off" : "on", fields[idx - 1]));
            }
            if (!semi) break;
            p = semi + 1;
        }
        free(vv);
    }
    collect_mask_params(n, NULL, out);
    const char *init = jg__sl_get(n, "MaskInitialization");
    const jg__sl_node_t *mo = NULL;
    for (size_t k = 0; k < n->nkid && !init; k++) {
        mo = n->kid[k];
        if (!strcmp(mo->tag, "Mask") || !strcmp(mo->tag, "Object")) init = jg__sl_get(mo, "Initialization");
    }
    if (init) mask_init_entries(init, out);
    return out;
}

/* ---- blocks ---- */

static json_t *conv_system(conv_t *c, const jg__sl_node_t *sys, const char *path,
                           const char *sys_ts, json_t *jsys);

static json_t *new_block(const blk_t *b, const char *type)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(b->name));
    json_object_set_new(j, "type", json_string(type));
    return j;
}

/* Sample time: explicit or defaulted, written when it is not inherited; an
 * inherited one inside an atomic subsystem takes the subsystem's. */
static void sample_time(conv_t *c, const blk_t *b, const jg__sl_bmap_t *m, const char *sys_ts,
                        json_t *j)
{
    if (m && (m->flags & (JG__SLB_VIRTUAL | JG__SLB_NO_TS))) return;
    const char *ts = param(c, b, "SampleTime", m && m->ts_def ? m->ts_def : "-1");
    if (!ts || !strcmp(ts, "-1")) ts = sys_ts;
    if (ts && strcmp(ts, "-1")) json_object_set_new(j, "SampleTime", jg__import_param_json(ts));
}

/* Fcn: Simulink's u[1] is our u(1). */
static char *fcn_expr(const char *e)
{
    char *s = strdup(e);
    if (!s) return NULL;
    for (char *p = s; *p; p++) {
        if (*p == 'u' && p[1] == '[' && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            p[1] = '(';
            char *q = strchr(p + 2, ']');
            if (q) *q = ')';
        }
    }
    return s;
}

/* An instance value for a template: the block's own, else (a BlockType that
 * expands through a template) the file's BlockParameterDefaults. */
static const char *inst_param(const conv_t *c, const blk_t *b, const char *key)
{
    const char *v = own_param(b->n, key);
    return v ? v : file_default(c, b->type, key);
}

/* Expand a library template: a SubSystem whose parameters are the instance's
 * dialog values. */
static json_t *expand_template(conv_t *c, const blk_t *b, const char *tmpl)
{
    json_error_t je;
    json_t *t = json_loads(tmpl, 0, &je);
    if (!t) {
        fail(c, JG_INTERNAL, "library template of '%s': %s", b->path, je.text);
        return NULL;
    }
    json_t *j = new_block(b, "SubSystem"), *pars = json_object();
    const char *key;
    json_t *def;
    json_object_foreach(json_object_get(t, "defaults"), key, def) {
        const char *v = inst_param(c, b, key);
        json_object_set_new(pars, key, jg__import_param_json(v ? v : json_string_value(def)));
    }
    /* "$name": the literal instance value */
    size_t i;
    json_t *blk;
    json_array_foreach(json_object_get(t, "blocks"), i, blk) {
        json_t *val;
        void *tmp;
        json_object_foreach_safe(blk, tmp, key, val) {
            const char *s = json_string_value(val);
            if (!s || s[0] != '$') continue;
            const char *v = inst_param(c, b, s + 1);
            if (!v) v = json_string_value(json_object_get(json_object_get(t, "defaults"), s + 1));
            json_object_set_new(blk, key, json_string(v ? v : ""));
        }
    }
    json_object_set_new(j, "parameters", pars);
    json_object_set(j, "blocks", json_object_get(t, "blocks"));
    json_object_set(j, "lines", json_object_get(t, "lines"));
    json_decref(t);
    return j;
}

/* The instance's own dialog value, for choosing a template variant. */
static const char *ref_param(const void *node, const char *key)
{
    return own_param(node, key);
}

static void conv_reference(conv_t *c, blk_t *b, const char *sys_ts)
{
    const char *src = own_param(b->n, "SourceBlock");
    if (!src) {
        problem(c, b, "library link without a SourceBlock");
        return;
    }
    const jg__sl_bmap_t *m = jg__sl_library_find(src);
    if (m && (m->flags & JG__SLB_SKIP)) {
        skip(c, b, "user-interface library block");
        return;
    }
    if (m) {
        b->j = new_block(b, m->jg);
        for (int k = 0; k < JG__SL_MAXP && m->p[k].sl; k++) {
            const char *v = own_param(b->n, m->p[k].sl);
            if (!v) v = m->p[k].def;
            if (v) json_object_set_new(b->j, m->p[k].jg ? m->p[k].jg : m->p[k].sl, jg__import_param_json(v));
        }
        sample_time(c, b, m, sys_ts, b->j);
        return;
    }
    const char *tmpl = jg__sl_library_template(src, ref_param, b->n);
    if (tmpl) {
        b->j = expand_template(c, b, tmpl);
        return;
    }
    char reason[768];
    char *flat = strdup(src);
    for (char *p = flat; p && *p; p++)
        if (*p == '\n') *p = ' ';
    const char *why = jg__sl_library_refused(src);
    if (why)
        snprintf(reason, sizeof reason, "library block '%s': %s", flat ? flat : src, why);
    else
        snprintf(reason, sizeof reason, "library block '%s' is not in jacgraph's library table",
                 flat ? flat : src);
    free(flat);
    problem(c, b, reason);
}

/* A SubSystem: refused kinds first, then masks and the inner system. */
static void conv_subsystem(conv_t *c, blk_t *b, const char *sys_ts)
{
    const char *sf = own_param(b->n, "SFBlockType");
    if (sf && strcmp(sf, "NONE")) {
        char reason[128];
        snprintf(reason, sizeof reason, "%s blocks (Stateflow) are not supported", sf);
        problem(c, b, reason);
        return;
    }
    const char *mt = own_param(b->n, "MaskType");
    if (mt && (!strcmp(mt, "Stateflow") || !strcmp(mt, "Stateflow chart"))) {
        problem(c, b, "Stateflow charts are not supported");
        return;
    }
    if (is_on(own_param(b->n, "Variant"))) {
        problem(c, b, "variant subsystems are not supported");
        return;
    }
    const jg__sl_node_t *sys = jg__sl_child(b->n, "System");
    /* special port blocks inside make it conditional */
    size_t i = 0, nports = 0, nreal = 0;
    for (const jg__sl_node_t *x; sys && (x = jg__sl_next(sys, "Block", &i));) {
        const char *bt = jg__sl_get(x, "BlockType");
        if (!bt) continue;
        if (!strcmp(bt, "Inport") || !strcmp(bt, "Outport")) nports++;
        else nreal++;
        const char *why = jg__sl_unsupported_reason(bt);
        if (why && (!strcmp(bt, "EnablePort") || !strcmp(bt, "TriggerPort") ||
                    !strcmp(bt, "ActionPort") || !strcmp(bt, "ResetPort") ||
                    !strcmp(bt, "ForIterator") || !strcmp(bt, "WhileIterator") ||
                    !strcmp(bt, "ForEach"))) {
            problem(c, b, why);
            return;
        }
    }
    if (!nports && !nreal) {   /* "More Info" buttons, annotation holders */
        skip(c, b, "subsystem without ports or blocks (user interface)");
        return;
    }
    const char *ts = sys_ts;
    if (is_on(own_param(b->n, "TreatAsAtomicUnit"))) {
        const char *sst = own_param(b->n, "SystemSampleTime");
        if (sst && strcmp(sst, "-1")) ts = sst;
    }
    b->j = new_block(b, "SubSystem");
    json_t *mp = mask_params(b->n);
    if (json_object_size(mp)) json_object_set(b->j, "parameters", mp);
    json_decref(mp);
    if (!sys) {
        json_object_set_new(b->j, "blocks", json_array());
        return;
    }
    conv_system(c, sys, b->path, ts, b->j);
}

static void conv_modelref(conv_t *c, blk_t *b)
{
    const char *name = own_param(b->n, "ModelNameDialog");
    if (!name) name = own_param(b->n, "ModelName");
    if (!name) name = own_param(b->n, "ModelFile");
    if (!name || !*name) {
        problem(c, b, "model reference without a model name");
        return;
    }
    /* candidates: NAME, NAME.slx, NAME.mdl beside the file, then --model-path */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->file);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    const jg_import_opts_t *o = c->ic->o;
    int ndirs = 1 + (o ? o->nmodel_path : 0);
    char found[2 * PATH_MAX + 8] = "";
    static const char *const ext[] = {"", ".slx", ".mdl"};
    for (int d = 0; d < ndirs && !*found; d++) {
        const char *base = d == 0 ? dir : o->model_path[d - 1];
        for (int e = 0; e < 3 && !*found; e++) {
            char cand[2 * PATH_MAX + 8];
            snprintf(cand, sizeof cand, "%s/%s%s", base, name, ext[e]);
            FILE *f = fopen(cand, "rb");
            if (f) {
                fclose(f);
                if (e || strchr(name, '.')) snprintf(found, sizeof found, "%s", cand);
            }
        }
    }
    if (!*found) {
        char reason[PATH_MAX + 256];
        snprintf(reason, sizeof reason,
                 "referenced model '%s' not found beside the file (%s) or in --model-path", name, dir);
        problem(c, b, reason);
        return;
    }
    json_t *doc = NULL;
    jg_error_t e2;
    jg_status_t st = jg__import_json(c->ic, found, &doc, &e2);
    if (st) {
        fail(c, st, "model reference '%s' (%s): %s", b->path, found, e2.msg);
        return;
    }
    /* the referenced model becomes a SubSystem with its own model workspace */
    b->j = new_block(b, "SubSystem");
    json_object_set(b->j, "blocks", json_object_get(doc, "blocks"));
    json_object_set(b->j, "lines", json_object_get(doc, "lines"));
    if (json_object_get(doc, "parameters"))
        json_object_set(b->j, "parameters", json_object_get(doc, "parameters"));
    /* its base-workspace values join ours where we have none */
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(doc, "workspace"), key, val)
        if (!json_object_get(c->ic->base, key)) json_object_set(c->ic->base, key, val);
    json_decref(doc);
}

static void conv_lookup_nd(conv_t *c, blk_t *b, const jg__sl_bmap_t *m, const char *sys_ts)
{
    const char *nd = param(c, b, "NumberOfTableDimensions", "2");
    const char *interp = param(c, b, "InterpMethod", "Linear");
    const char *extrap = param(c, b, "ExtrapMethod", "Linear");
    if (strncmp(interp, "Linear", 6)) {
        problem(c, b, "only linear interpolation is supported (InterpMethod)");
        return;
    }
    if (strcmp(extrap, "Linear") && strcmp(extrap, "Clip")) {
        problem(c, b, "ExtrapMethod must be Linear or Clip");
        return;
    }
    const char *bs = param(c, b, "BreakpointsSpecification", "Explicit values");
    if (strcmp(bs, "Explicit values")) {
        problem(c, b, "only explicit breakpoints are supported (BreakpointsSpecification)");
        return;
    }
    int dims = atoi(nd);
    if (dims != 1 && dims != 2) {
        problem(c, b, "only 1-D and 2-D lookup tables are supported");
        return;
    }
    b->j = new_block(b, dims == 1 ? "Lookup1D" : "Lookup2D");
    json_object_set_new(b->j, "BreakpointsForDimension1",
                        jg__import_param_json(param(c, b, "BreakpointsForDimension1", "[10,22,31]")));
    if (dims == 2)
        json_object_set_new(b->j, "BreakpointsForDimension2",
                            jg__import_param_json(param(c, b, "BreakpointsForDimension2", "[10,22,31]")));
    json_object_set_new(b->j, "Table",
                        jg__import_param_json(param(c, b, "Table", "[4 5 6;16 19 20;10 18 23]")));
    json_object_set_new(b->j, "ExtrapMethod", json_string(extrap));
    sample_time(c, b, m, sys_ts, b->j);
}

/* A BlockType's settings, for jg__sl_block_refused and template variants:
 * the block's own values, else the file's defaults. */
typedef struct {
    const conv_t *c;
    const blk_t *b;
} inst_t;

static const char *inst_get(const void *ctx, const char *key)
{
    const inst_t *in = ctx;
    return inst_param(in->c, in->b, key);
}

static void conv_block(conv_t *c, blk_t *b, const char *sys_ts)
{
    const jg__sl_bmap_t *m = jg__sl_block_find(b->type);
    if (!m) {
        const char *why = jg__sl_unsupported_reason(b->type);
        problem(c, b, why ? why : "this BlockType is not supported");
        return;
    }
    if (m->flags & JG__SLB_SKIP) {
        skip(c, b, "user-interface block");
        return;
    }
    /* settings the native block lacks; BlockTypes that are diagrams */
    inst_t in = {c, b};
    const char *why = jg__sl_block_refused(b->type, inst_get, &in);
    if (why) {
        problem(c, b, why);
        return;
    }
    if (m->flags & JG__SLB_TEMPLATE) {
        const char *tmpl = jg__sl_library_template(m->jg, inst_get, &in);
        if (tmpl) b->j = expand_template(c, b, tmpl);
        else problem(c, b, (why = jg__sl_library_refused(m->jg)) ? why : "no variant fits its settings");
        return;
    }
    const char *t = b->type;
    if (!strcmp(t, "SubSystem")) return conv_subsystem(c, b, sys_ts);
    if (!strcmp(t, "Reference")) return conv_reference(c, b, sys_ts);
    if (!strcmp(t, "ModelReference")) return conv_modelref(c, b);
    if (!strcmp(t, "Lookup_n-D")) return conv_lookup_nd(c, b, m, sys_ts);
    if (!strcmp(t, "BusSelector")) {
        b->bus_names = param(c, b, "OutputSignals", "signal1,signal2,signal3");
        if (is_on(param(c, b, "OutputAsBus", "off"))) problem(c, b, "OutputAsBus is not supported");
        return;   /* resolved against its BusCreator when the lines are known */
    }
    if (!strcmp(t, "DataTypeConversion")) {
        const char *dt = param(c, b, "OutDataTypeStr", "Inherit: Inherit via back propagation");
        int pass = !strncmp(dt, "Inherit", 7) || !strcmp(dt, "double") || !strcmp(dt, "single");
        b->j = new_block(b, pass ? "SignalConversion" : "DataTypeConversion");
        if (!pass) {
            json_object_set_new(b->j, "OutDataTypeStr", json_string(dt));
            json_object_set_new(b->j, "RndMeth", json_string(param(c, b, "RndMeth", "Zero")));
            json_object_set_new(b->j, "SaturateOnIntegerOverflow",
                                json_string(param(c, b, "SaturateOnIntegerOverflow", "on")));
            sample_time(c, b, m, sys_ts, b->j);
        }
        return;
    }
    if (!strcmp(t, "Scope") && is_on(param(c, b, "Floating", "off"))) {
        skip(c, b, "floating scope");
        return;
    }
    if (!strcmp(t, "Sin")) {
        const char *st = param(c, b, "SineType", "Time based");
        if (strcmp(st, "Time based")) {
            problem(c, b, "only the time-based sine wave is supported (SineType)");
            return;
        }
    }
    if (!strcmp(t, "Lookup") || !strcmp(t, "Lookup2D")) {
        const char *meth = param(c, b, "LookUpMeth", "Interpolation-Extrapolation");
        const char *ex = !strcmp(meth, "Interpolation-Extrapolation") ? "Linear"
                         : !strcmp(meth, "Interpolation-Use End Values") ? "Clip" : NULL;
        if (!ex) {
            problem(c, b, "only Interpolation-Extrapolation and Interpolation-Use End Values are supported (LookUpMeth)");
            return;
        }
        b->j = new_block(b, m->jg);
        for (int k = 0; k < JG__SL_MAXP && m->p[k].sl; k++) {
            if (!strcmp(m->p[k].sl, "LookUpMeth")) continue;
            const char *v = own_param(b->n, m->p[k].sl);
            if (!v) v = file_default(c, b->type, m->p[k].sl);
            if (!v) v = m->p[k].def;
            if (v) json_object_set_new(b->j, m->p[k].jg ? m->p[k].jg : m->p[k].sl, jg__import_param_json(v));
        }
        json_object_set_new(b->j, "ExtrapMethod", json_string(ex));
        sample_time(c, b, m, sys_ts, b->j);
        return;
    }
    b->j = new_block(b, m->jg);
    copy_params(c, b, m, b->j);
    if (!strcmp(t, "Integrator")) {
        if (is_on(param(c, b, "LimitOutput", "off"))) {
            json_object_set_new(b->j, "UpperSaturationLimit",
                                jg__import_param_json(param(c, b, "UpperSaturationLimit", "inf")));
            json_object_set_new(b->j, "LowerSaturationLimit",
                                jg__import_param_json(param(c, b, "LowerSaturationLimit", "-inf")));
        }
        if (is_on(param(c, b, "WrapState", "off"))) problem(c, b, "wrapped states are not supported");
    } else if (!strcmp(t, "DiscreteIntegrator")) {
        if (is_on(param(c, b, "LimitOutput", "off"))) problem(c, b, "limits of the Discrete-Time Integrator are not supported");
        const char *rst = param(c, b, "ExternalReset", "none");
        if (strcmp(rst, "none") && strcmp(rst, "None"))
            problem(c, b, "an external reset of the Discrete-Time Integrator is not supported");
        if (strcmp(param(c, b, "InitialConditionSource", "internal"), "internal"))
            problem(c, b, "an external initial condition of the Discrete-Time Integrator is not supported");
    } else if (!strcmp(t, "UnitDelay")) {
        const char *ic = own_param(b->n, "InitialCondition");
        if (!ic) ic = own_param(b->n, "X0");
        if (!ic) ic = file_default(c, t, "InitialCondition");
        if (!ic) ic = file_default(c, t, "X0");
        json_object_set_new(b->j, "InitialCondition", jg__import_param_json(ic ? ic : "0"));
    } else if (!strcmp(t, "Fcn")) {
        char *e = fcn_expr(param(c, b, "Expr", "sin(u[1])"));
        if (e) json_object_set_new(b->j, "Expr", json_string(e));
        free(e);
    } else if (!strcmp(t, "Selector")) {
        const char *io = param(c, b, "IndexOptions", "Index vector (dialog)");
        const char *nd = param(c, b, "NumberOfDimensions", "1");
        const char *im = param(c, b, "IndexMode", "One-based");
        if (strcmp(nd, "1") || strncmp(io, "Index vector (dialog)", 21) || strcmp(im, "One-based"))
            problem(c, b, "only 1-D one-based selection by an index vector is supported");
    } else if (!strcmp(t, "Inport") || !strcmp(t, "Outport")) {
        const char *pd = param(c, b, "PortDimensions", "-1");
        if (!strcmp(pd, "-1")) json_object_del(b->j, "PortDimensions");
    } else if (!strcmp(t, "Scope")) {
        /* ports are the drawn ones when NumInputPorts is absent */
    }
    sample_time(c, b, m, sys_ts, b->j);
}

/* ---- lines ---- */

/* Blocks of one system by name and by SID (hash maps: systems may hold
 * 10^5 blocks). */
typedef struct sysidx {
    json_t *byname, *bysid;
} sysidx_t;

static int find_block(const sysidx_t *ix, const char *name, const char *sid)
{
    json_t *v = name ? json_object_get(ix->byname, name) : json_object_get(ix->bysid, sid);
    return v ? (int)json_integer_value(v) : -1;
}

/* A line end of the SLX encoding, "SID#out:2", "SID#in:1", "SID#enable":
 * the SID into sid[n], the port into *port (0 without one); returns the text
 * after '#', or NULL (sid, *port untouched) when s has no '#' or the SID does
 * not fit. */
static const char *split_endpoint(const char *s, char *sid, size_t n, int *port)
{
    const char *hash = strchr(s, '#');
    if (!hash || (size_t)(hash - s) >= n) return NULL;
    memcpy(sid, s, (size_t)(hash - s));
    sid[hash - s] = 0;
    const char *colon = strchr(hash, ':');
    *port = colon ? atoi(colon + 1) : 0;
    return hash + 1;
}

/* Block index and port of a line end (special ports: 0 with *kind set);
 * -2 when malformed. */
static int parse_endpoint(const sysidx_t *ix, const char *s, int *port, const char **kind)
{
    char sid[64];
    if (!(*kind = split_endpoint(s, sid, sizeof sid, port))) return -2;
    return find_block(ix, NULL, sid);
}

typedef struct edges {
    edge_t *e;
    size_t n, cap;
} edges_t;

static void add_edge(conv_t *c, edges_t *es, edge_t e)
{
    if (es->n == es->cap) {
        size_t cap = es->cap ? 2 * es->cap : 32;
        edge_t *ne = realloc(es->e, cap * sizeof *ne);
        if (!ne) {
            fail(c, JG_NOMEM, "out of memory");
            return;
        }
        es->e = ne;
        es->cap = cap;
    }
    es->e[es->n++] = e;
}

/* Destinations of a Line or Branch, recursively. */
static void line_dsts(conv_t *c, const jg__sl_node_t *ln, blk_t *bs, const sysidx_t *ix,
                      const char *syspath,
                      int src, int sport, const char *name, edges_t *es, int depth)
{
    if (depth > JG__SL_MAX_DEPTH) {
        fail(c, JG_PARSE, "%s: branches nested too deeply in system '%s'", c->file, syspath);
        return;
    }
    const char *db = jg__sl_get(ln, "DstBlock"), *dp = jg__sl_get(ln, "DstPort");
    const char *dst = jg__sl_get(ln, "Dst");
    int d = -1, port = 0;
    const char *kind = "in";
    if (db) {
        d = find_block(ix, db, NULL);
        if (d < 0) {
            fail(c, JG_MODEL, "%s:%d: a line in system '%s' goes to a missing block '%s'", c->file,
                 ln->line, *syspath ? syspath : "(root)", db);
            return;
        }
        if (dp && isdigit((unsigned char)*dp)) port = atoi(dp);
        else kind = dp ? dp : "?";
    } else if (dst) {
        d = parse_endpoint(ix, dst, &port, &kind);
        if (d < 0) {
            fail(c, JG_MODEL, "%s: %s:%d: a line in system '%s' goes to '%s', which is no block of it",
                 c->file, ln->part ? ln->part : "", ln->line, *syspath ? syspath : "(root)", dst);
            return;
        }
    }
    if (d >= 0) {
        if (strcmp(kind, "in") && strncmp(kind, "in:", 3) && port == 0) {
            /* enable/trigger/action ports: their block is refused already */
        } else if (port < 1) {
            fail(c, JG_MODEL, "%s:%d: a line in system '%s' goes to port '%s' of '%s'", c->file,
                 ln->line, *syspath ? syspath : "(root)", dp ? dp : dst, bs[d].name);
        } else {
            add_edge(c, es, (edge_t){src, sport, d, port, name});
        }
    }
    size_t i = 0;
    for (const jg__sl_node_t *br; (br = jg__sl_next(ln, "Branch", &i));)
        line_dsts(c, br, bs, ix, syspath, src, sport, name, es, depth + 1);
}

/* Signal name of output port `port` of block b (its Port sections). */
static const char *port_name(const blk_t *b, int port)
{
    size_t i = 0;
    for (const jg__sl_node_t *p; (p = jg__sl_next(b->n, "Port", &i));) {
        const char *pn = jg__sl_get(p, "PortNumber");
        if (pn && atoi(pn) == port) return jg__sl_get(p, "Name");
    }
    const jg__sl_node_t *pp = jg__sl_child(b->n, "PortProperties");
    i = 0;
    for (const jg__sl_node_t *p; pp && (p = jg__sl_next(pp, "Port", &i));) {
        const char *ty = jg__sl_get(p, "Type"), *ix = jg__sl_get(p, "Index");
        if (ty && !strcmp(ty, "out") && ix && atoi(ix) == port) return jg__sl_get(p, "Name");
    }
    return NULL;
}

/* BusSelector outputs come straight from the signals its BusCreator
 * gathered: rewire every edge from the selector to the creator's driver. */
static void resolve_buses(conv_t *c, blk_t *bs, int nb, edges_t *es)
{
    for (int k = 0; k < nb; k++) {
        if (!bs[k].bus_names) continue;
        int creator = -1;
        for (size_t e = 0; e < es->n; e++)
            if (es->e[e].dst == k && es->e[e].dport == 1) creator = es->e[e].src;
        if (creator < 0 || strcmp(bs[creator].type, "BusCreator")) {
            problem(c, &bs[k], "its bus does not come from a Bus Creator in the same system");
            bs[k].skipped = 1;
            continue;
        }
        char *names = strdup(bs[k].bus_names), *save = NULL;
        int out = 0;
        for (char *tok = names ? strtok_r(names, ",", &save) : NULL; tok;
             tok = strtok_r(NULL, ",", &save)) {
            out++;
            while (isspace((unsigned char)*tok)) tok++;
            /* the creator input carrying that name: the line's name, else signal<k> */
            int in = -1;
            for (size_t e = 0; e < es->n && in < 0; e++) {
                if (es->e[e].dst != creator) continue;
                char dflt[32];
                snprintf(dflt, sizeof dflt, "signal%d", es->e[e].dport);
                const char *nm = es->e[e].name ? es->e[e].name : dflt;
                if (!strcmp(nm, tok)) in = (int)e;
            }
            if (in < 0) {
                char reason[256];
                snprintf(reason, sizeof reason, "selects '%s', which its Bus Creator does not carry", tok);
                problem(c, &bs[k], reason);
                continue;
            }
            for (size_t e = 0; e < es->n; e++)
                if (es->e[e].src == k && es->e[e].sport == out) {
                    es->e[e].src = es->e[in].src;
                    es->e[e].sport = es->e[in].sport;
                    if (!es->e[e].name) es->e[e].name = es->e[in].name;
                }
        }
        free(names);
        bs[k].skipped = 1;   /* no block remains; its input edge is dropped */
    }
}

/* Unit Conversion blocks have no parameters: they convert from the Unit of
 * the port driving them to the Unit of the ports they drive.  Walk from each
 * one's neighbours (the edges of this system) to a port block with a Unit:
 * an Inport or Outport here, or through a SubSystem port k to its inner
 * Outport (source side) or Inport (destination side) with Port k, and on
 * into the lines inside, nested subsystems included, while a port block has
 * no Unit of its own.  A worklist of (system, block, port) keeps the walk
 * iterative; endpoints are matched by name (classic MDL) or SID (XML). */
static void resolve_units(conv_t *c, const jg__sl_node_t *sys, blk_t *bs, int nb, const edges_t *es)
{
    enum { WMAX = 64 };
    for (int k = 0; k < nb && !c->st; k++) {
        if (strcmp(bs[k].type, "UnitConversion") || !bs[k].j) continue;
        const char *unit[2] = {NULL, NULL}, *clash = NULL;
        for (int side = 0; side < 2; side++) {   /* 0: where it comes from, 1: where it goes */
            struct {
                const jg__sl_node_t *sys, *blk;
                int port;
            } w[WMAX];
            int nw = 0, seen = 0;
            for (size_t e = 0; e < es->n; e++) {
                const edge_t *x = &es->e[e];
                int other = side ? (x->src == k ? x->dst : -1) : (x->dst == k ? x->src : -1);
                if (other < 0 || nw == WMAX) continue;
                w[nw].sys = sys;
                w[nw].blk = bs[other].n;
                w[nw++].port = side ? x->dport : x->sport;
            }
            while (nw > 0 && seen++ < 4 * WMAX) {
                const jg__sl_node_t *ws = w[--nw].sys, *wb = w[nw].blk;
                int port = w[nw].port;
                const char *bt = jg__sl_get(wb, "BlockType");
                if (!bt) continue;
                if (!strcmp(bt, "SubSystem")) {   /* into its port block with Port == port */
                    const jg__sl_node_t *in = jg__sl_child(wb, "System");
                    size_t i = 0;
                    for (const jg__sl_node_t *x; in && (x = jg__sl_next(in, "Block", &i));) {
                        const char *xt = jg__sl_get(x, "BlockType"), *pn = own_param(x, "Port");
                        if (!pn) pn = xt ? file_default(c, xt, "Port") : NULL;
                        if (xt && !strcmp(xt, side ? "Inport" : "Outport") &&
                            atoi(pn ? pn : "1") == port && nw < WMAX) {
                            w[nw].sys = in;
                            w[nw].blk = x;
                            w[nw++].port = 1;
                        }
                    }
                    continue;
                }
                int is_in = !strcmp(bt, "Inport"), is_out = !strcmp(bt, "Outport");
                if (!is_in && !is_out) continue;   /* units are read at port blocks only */
                const char *u = own_param(wb, "Unit");
                if (!u) u = file_default(c, bt, "Unit");
                if (u && *u && strcmp(u, "inherit")) {
                    if (!unit[side]) unit[side] = u;
                    else if (strcmp(unit[side], u)) clash = u;
                    continue;
                }
                /* no Unit: on along the lines inside, away from the converter */
                if ((side == 0 && !is_out) || (side == 1 && !is_in) || ws == sys) continue;
                const char *name = jg__sl_get(wb, "Name"), *sid = jg__sl_get(wb, "SID");
                size_t li = 0;
                for (const jg__sl_node_t *ln; (ln = jg__sl_next(ws, "Line", &li)) && nw < WMAX;) {
                    /* the line's source, then its destinations (branches: a stack) */
                    const char *sb = jg__sl_get(ln, "SrcBlock"), *sp = jg__sl_get(ln, "SrcPort");
                    const char *src = jg__sl_get(ln, "Src");
                    char key[80] = "";
                    int sport = sp ? atoi(sp) : 0;
                    if (!sb && src && !split_endpoint(src, key, sizeof key, &sport)) continue;
                    int from_here = sb ? name && !strcmp(sb, name) : sid && !strcmp(key, sid);
                    const jg__sl_node_t *stack[64], *hit = NULL;
                    int ns = 0, hport = 0;
                    stack[ns++] = ln;
                    while (ns > 0) {
                        const jg__sl_node_t *d = stack[--ns];
                        const char *db = jg__sl_get(d, "DstBlock"), *dp = jg__sl_get(d, "DstPort");
                        const char *dst = jg__sl_get(d, "Dst");
                        char dkey[80] = "";
                        int dport = dp ? atoi(dp) : 0;
                        if (!db && dst) split_endpoint(dst, dkey, sizeof dkey, &dport);
                        if (db || *dkey) {
                            /* the destination block node of this system */
                            const jg__sl_node_t *dn = NULL;
                            size_t bi = 0;
                            for (const jg__sl_node_t *x; !dn && (x = jg__sl_next(ws, "Block", &bi));) {
                                const char *v = jg__sl_get(x, db ? "Name" : "SID");
                                if (v && !strcmp(v, db ? db : dkey)) dn = x;
                            }
                            if (side == 1 && from_here && dn && nw < WMAX) {
                                w[nw].sys = ws;   /* the Inport's readers */
                                w[nw].blk = dn;
                                w[nw++].port = dport;
                            } else if (side == 0 && dn == wb) {
                                hit = ln;   /* the line that feeds the Outport */
                                hport = sport;
                            }
                        }
                        size_t bj = 0;
                        for (const jg__sl_node_t *br; (br = jg__sl_next(d, "Branch", &bj)) && ns < 64;)
                            stack[ns++] = br;
                    }
                    if (side == 0 && hit) {   /* its driver, by name or SID */
                        size_t bi = 0;
                        for (const jg__sl_node_t *x; (x = jg__sl_next(ws, "Block", &bi));) {
                            const char *v = jg__sl_get(x, sb ? "Name" : "SID");
                            if (v && !strcmp(v, sb ? sb : key) && nw < WMAX) {
                                w[nw].sys = ws;
                                w[nw].blk = x;
                                w[nw++].port = hport;
                                break;
                            }
                        }
                    }
                }
            }
            if (clash) break;
        }
        if (clash) {
            char reason[256];
            snprintf(reason, sizeof reason, "the ports it drives have different units ('%s', '%s')",
                     unit[1], clash);
            problem(c, &bs[k], reason);
        } else if (!unit[0] || !unit[1]) {
            problem(c, &bs[k], "cannot tell the units it converts between (no Unit on the ports "
                               "around it)");
        } else {
            json_object_set_new(bs[k].j, "InputUnit", json_string(unit[0]));
            json_object_set_new(bs[k].j, "OutputUnit", json_string(unit[1]));
        }
    }
}

/* ---- systems ---- */

static json_t *conv_system(conv_t *c, const jg__sl_node_t *sys, const char *path,
                           const char *sys_ts, json_t *jsys)
{
    size_t nb = 0, i = 0;
    for (const jg__sl_node_t *x; (x = jg__sl_next(sys, "Block", &i));) nb++;
    blk_t *bs = calloc(nb + 1, sizeof *bs);
    edges_t es = {0};
    json_t *blocks = json_array(), *lines = json_array();
    sysidx_t ix = {json_object(), json_object()};
    if (!bs) {
        fail(c, JG_NOMEM, "out of memory");
        goto done;
    }
    i = 0;
    int n = 0;
    for (const jg__sl_node_t *x; (x = jg__sl_next(sys, "Block", &i));) {
        blk_t *b = &bs[n++];
        b->n = x;
        b->alias = -1;
        b->name = jg__sl_get(x, "Name");
        b->type = jg__sl_get(x, "BlockType");
        b->sid = jg__sl_get(x, "SID");
        if (!b->name) b->name = "";
        if (!b->type) b->type = "?";
        b->path = join_path(path, b->name);
        json_object_set_new(ix.byname, b->name, json_integer(n - 1));
        if (b->sid) json_object_set_new(ix.bysid, b->sid, json_integer(n - 1));
        if (!b->path) {
            fail(c, JG_NOMEM, "out of memory");
            goto done;
        }
    }
    for (int k = 0; k < n && !c->st; k++) {
        blk_t *b = &bs[k];
        /* --substitute: the user's subsystem replaces the block, whatever it is */
        const jg_import_opts_t *o = c->ic->o;
        int subst = 0;
        for (int s = 0; o && s < o->nsubstitute; s++) {
            const char *eq = strrchr(o->substitute[s], '=');
            if (eq && (size_t)(eq - o->substitute[s]) == strlen(b->path) &&
                !strncmp(o->substitute[s], b->path, strlen(b->path)))
                subst = 1;
        }
        if (subst) {   /* a placeholder; jg__import_substitute fills it */
            b->j = new_block(b, "SubSystem");
            json_object_set_new(b->j, "blocks", json_array());
            continue;
        }
        if (!strcmp(b->type, "InportShadow")) {
            const char *port = param(c, b, "Port", "1");
            for (int q = 0; q < n; q++)
                if (!strcmp(bs[q].type, "Inport") && !strcmp(param(c, &bs[q], "Port", "1"), port))
                    b->alias = q;
            if (b->alias >= 0) continue;
        }
        conv_block(c, b, sys_ts);
    }
    if (c->st) goto done;
    /* lines */
    i = 0;
    for (const jg__sl_node_t *ln; !c->st && (ln = jg__sl_next(sys, "Line", &i));) {
        const char *sb = jg__sl_get(ln, "SrcBlock"), *sp = jg__sl_get(ln, "SrcPort");
        const char *src = jg__sl_get(ln, "Src");
        int s = -1, port = 0;
        const char *kind = "out";
        if (sb) {
            s = find_block(&ix, sb, NULL);
            if (s < 0) {
                fail(c, JG_MODEL, "%s:%d: a line in system '%s' comes from a missing block '%s'",
                     c->file, ln->line, *path ? path : "(root)", sb);
                break;
            }
            if (sp && isdigit((unsigned char)*sp)) port = atoi(sp);
            else kind = sp ? sp : "?";
        } else if (src) {
            s = parse_endpoint(&ix, src, &port, &kind);
            if (s < 0) {
                fail(c, JG_MODEL, "%s: %s:%d: a line in system '%s' comes from '%s', which is no block of it",
                     c->file, ln->part ? ln->part : "", ln->line, *path ? path : "(root)", src);
                break;
            }
        } else {
            continue;   /* an unconnected line */
        }
        if (!strcmp(kind, "state")) {   /* the Integrator's state port is its last output */
            int nout = 1;
            if (is_on(param(c, &bs[s], "ShowSaturationPort", "off"))) nout++;
            port = nout + 1;
        } else if (port < 1) {
            fail(c, JG_MODEL, "%s:%d: a line in system '%s' leaves port '%s' of '%s'", c->file,
                 ln->line, *path ? path : "(root)", sp ? sp : src, bs[s].name);
            break;
        }
        const char *name = jg__sl_get(ln, "Name");
        if (!name || !*name) name = port_name(&bs[s], port);
        if (bs[s].alias >= 0) s = bs[s].alias;
        line_dsts(c, ln, bs, &ix, path, s, port, name && *name ? name : NULL, &es, 0);
    }
    if (c->st) goto done;
    resolve_buses(c, bs, n, &es);
    resolve_units(c, sys, bs, n, &es);
    /* blocks, then lines grouped by source port, in first-seen order */
    for (int k = 0; k < n; k++)
        if (bs[k].j) json_array_append(blocks, bs[k].j);
    json_t *by_src = json_object();   /* "name:port" -> its line */
    for (size_t e = 0; e < es.n; e++) {
        edge_t *x = &es.e[e];
        if (x->src < 0 || bs[x->src].skipped || bs[x->dst].skipped || !bs[x->src].j ||
            !bs[x->dst].j)
            continue;
        /* "name:port": names are short, a long one takes the heap */
        char sbuf[256], dbuf[256], *src = sbuf, *dst = dbuf;
        if ((size_t)snprintf(sbuf, sizeof sbuf, "%s:%d", bs[x->src].name, x->sport) >= sizeof sbuf &&
            asprintf(&src, "%s:%d", bs[x->src].name, x->sport) < 0)
            src = NULL;
        if ((size_t)snprintf(dbuf, sizeof dbuf, "%s:%d", bs[x->dst].name, x->dport) >= sizeof dbuf &&
            asprintf(&dst, "%s:%d", bs[x->dst].name, x->dport) < 0)
            dst = NULL;
        if (!src || !dst) {
            if (src != sbuf) free(src);
            if (dst != dbuf) free(dst);
            json_decref(by_src);
            fail(c, JG_NOMEM, "out of memory");
            goto done;
        }
        json_t *line = json_object_get(by_src, src);
        if (!line) {
            line = json_object();
            json_object_set_new(line, "src", json_string(src));
            json_object_set_new(line, "dst", json_array());
            if (x->name) json_object_set_new(line, "name", json_string(x->name));
            json_array_append_new(lines, line);
            json_object_set(by_src, src, line);
        }
        json_array_append_new(json_object_get(line, "dst"), json_string(dst));
        if (src != sbuf) free(src);
        if (dst != dbuf) free(dst);
    }
    json_decref(by_src);
    json_object_set(jsys, "blocks", blocks);
    json_object_set(jsys, "lines", lines);
done:
    for (size_t k = 0; bs && k < nb; k++) {
        free(bs[k].path);
        json_decref(bs[k].j);
    }
    free(bs);
    free(es.e);
    json_decref(ix.byname);
    json_decref(ix.bysid);
    json_decref(blocks);
    json_decref(lines);
    return jsys;
}

/* ---- the model ---- */

typedef struct warn_ctx {
    const jg_import_opts_t *o;
} warn_ctx_t;

/* Run a callback's code into a workspace and store the values as JSON. */
static jg_status_t run_script(conv_t *c, const char *code, const char *what, jg_expr_ws_t *ws,
                              jg_expr_lookup_fn parent, void *pctx)
{
    char source[512];
    snprintf(source, sizeof source, "%s of '%s'", what, c->file);
    jg_status_t st = jg_expr_ws_run(ws, code, source, parent, pctx, jg__import_script_warn, (void *)c->ic->o);
    if (st) return fail(c, st, "%s: out of memory", source);
    return JG_OK;
}

static void ws_to_json(const jg_expr_ws_t *ws, json_t *obj)
{
    for (size_t k = 0; k < jg_expr_ws_count(ws); k++)
        json_object_set_new(obj, jg_expr_ws_name(ws, k), jg__import_value_json(jg_expr_ws_value(ws, k)));
}

/* Values of the base workspace built so far, as a lookup for scripts. */
static int base_lookup(void *ctx, const char *name, jg_expr_value_t *out, jg_expr_error_t *err)
{
    (void)err;
    json_t *v = json_object_get(ctx, name);
    if (!v) return 0;
    if (json_is_number(v)) return jg_expr_value_scalar(out, json_number_value(v)) ? -1 : 1;
    if (json_is_string(v)) return jg_expr_eval(json_string_value(v), NULL, NULL, out, err) ? -1 : 1;
    if (json_is_array(v)) {   /* rows of numbers */
        char *txt = json_dumps(v, JSON_COMPACT);
        if (!txt) return -1;
        for (char *p = txt; *p; p++)
            if (*p == ']' && p[1] == ',') p[1] = ';';
        int r = jg_expr_eval(txt, NULL, NULL, out, err) ? -1 : 1;
        free(txt);
        return r;
    }
    return 0;
}

jg_status_t jg__sl_convert(jg__import_ctx_t *ic, const jg__sl_tree_t *t, const char *path,
                           json_t **out, jg_error_t *err)
{
    conv_t c = {.ic = ic, .t = t, .file = path, .err = err};
    *out = NULL;
    c.model = jg__sl_child(t->root, "Model");
    if (!c.model) c.model = jg__sl_child(t->root, "Library");
    if (!c.model) return jg_error_set(err, JG_MODEL, "%s: no Model or Library section", path);
    if (!strcmp(c.model->tag, "Library"))
        return jg_error_set(err, JG_MODEL,
                            "%s is a block library, not a model: open a model that uses it", path);
    c.bpd = jg__sl_child(c.model, "BlockParameterDefaults");
    c.problems = json_array();
    c.skipped = json_array();
    json_t *root = json_object();
    jg_expr_ws_t *mws = jg_expr_ws_create(), *bws = jg_expr_ws_create();
    if (!root || !mws || !bws || !c.problems || !c.skipped) {
        fail(&c, JG_NOMEM, "out of memory");
        goto done;
    }
    const char *name = jg__sl_get(c.model, "Name");
    if (name) json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "description",
                        json_string("imported from a Simulink file by jacgraph import"));
    /* callbacks that set up the base workspace, then the model workspace */
    static const char *const pre[] = {"PreLoadFcn", "PostLoadFcn", "InitFcn"};
    for (int k = 0; k < 3 && !c.st; k++) {
        const char *code = jg__sl_get(c.model, pre[k]);
        if (code && *code) run_script(&c, code, pre[k], bws, base_lookup, ic->base);
    }
    if (c.st) goto done;
    for (size_t k = 0; k < jg_expr_ws_count(bws); k++)
        if (!json_object_get(ic->base, jg_expr_ws_name(bws, k)))
            json_object_set_new(ic->base, jg_expr_ws_name(bws, k),
                                jg__import_value_json(jg_expr_ws_value(bws, k)));
    const jg__sl_node_t *mw = jg__sl_child(c.model, "ModelWorkspace");
    const char *wcode = jg__sl_get(mw ? mw : c.model, "WSMATLABCode");
    const char *wsrc = jg__sl_get(mw ? mw : c.model, "WSDataSource");
    if (wcode && *wcode && (!wsrc || strstr(wsrc, "Code"))) {
        jg_expr_ws_chain_t chain = {.ws = NULL, .parent = base_lookup, .parent_ctx = ic->base};
        (void)chain;
        run_script(&c, wcode, "the model workspace code", mws, base_lookup, ic->base);
        if (c.st) goto done;
        json_t *par = json_object();
        ws_to_json(mws, par);
        json_object_set_new(root, "parameters", par);
    } else if (wsrc && strstr(wsrc, "File")) {
        const char *f = jg__sl_get(mw ? mw : c.model, "WSSourceFileName");
        if (ic->o && ic->o->warn) {
            char msg[512];
            snprintf(msg, sizeof msg,
                     "%s: the model workspace is loaded from '%s' by MATLAB; give its values "
                     "with --workspace",
                     path, f ? f : "a file");
            ic->o->warn(ic->o->warn_ctx, msg);
        }
    }
    const jg__sl_node_t *sys = jg__sl_child(c.model, "System");
    if (!sys) {
        fail(&c, JG_MODEL, "%s: the model has no System", path);
        goto done;
    }
    conv_system(&c, sys, "", "-1", root);
    if (c.st) goto done;
    if (json_array_size(c.problems)) {
        size_t cap = 256, len = 0;
        size_t k;
        json_t *p;
        json_array_foreach(c.problems, k, p) cap += strlen(json_string_value(p)) + 4;
        char *msg = malloc(cap);
        if (!msg) {
            fail(&c, JG_NOMEM, "out of memory");
            goto done;
        }
        len = (size_t)snprintf(msg, cap, "%s: %zu block%s cannot be imported:", path,
                               json_array_size(c.problems),
                               json_array_size(c.problems) == 1 ? "" : "s");
        json_array_foreach(c.problems, k, p)
            len += (size_t)snprintf(msg + len, cap - len, "\n  %s", json_string_value(p));
        /* a list longer than the error message goes whole to the warning hook,
         * and the error says where it is */
        if (strlen(msg) >= JG_ERROR_MSG_MAX && ic->o && ic->o->warn) {
            ic->o->warn(ic->o->warn_ctx, msg);
            fail(&c, JG_MODEL, "%s: %zu blocks cannot be imported (listed above)", path,
                 json_array_size(c.problems));
        } else {
            fail(&c, JG_MODEL, "%s", msg);
        }
        free(msg);
        goto done;
    }
    if (json_array_size(c.skipped)) json_object_set(root, "skipped", c.skipped);
    *out = root;
    root = NULL;
done:
    json_decref(root);
    json_decref(c.problems);
    json_decref(c.skipped);
    jg_expr_ws_free(mws);
    jg_expr_ws_free(bws);
    return c.st;
}
