/* export_octave: write a model's blocks as an Octave script for the control
 * package, so that Octave computes the same linearization independently:
 * every real block becomes its linear model `ss(...)` with named input and
 * output signals, `connect` closes the diagram, and the script compares its
 * A, B, C, D with jacgraph's (embedded in the script) and times `connect`.
 *
 *   export_octave MODEL.json [-o SCRIPT.m]
 *
 * Supported: root Inport/Outport, Gain, Sum, Integrator, StateSpace,
 * TransferFcn, ZeroPole, Constant, Ground, the sinks (Scope, Terminator,
 * ToWorkspace), and the virtual routing blocks (SubSystem and its ports, Mux,
 * Demux, Selector), traced here element by element to named signals.  The
 * block semantics are re-derived from the JSON parameters (helper functions in
 * the script) -- only port widths come from jacgraph's compiler.  Nonlinear
 * blocks (Product, Abs, Math, Trigonometry, Saturation) are not exported:
 * exit status 3 and a message naming them.  Other errors: 1; usage: 2.
 *
 * States: connect keeps the order of its systems, which are written in
 * jacgraph's state order (file order, depth first) and realized as jacgraph
 * documents them (TransferFcn/ZeroPole: tf2ss controllable canonical form),
 * so the matrices compare entry by entry. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jacgraph/jacgraph.h"

typedef struct sysctx {
    json_t *sys;                 /* object with "blocks", "lines", "parameters" */
    const struct sysctx *parent; /* NULL at the root */
    const char *sub_name;        /* the SubSystem block's name in the parent */
    char prefix[4096];           /* path prefix ("A/B/") */
} sysctx_t;

typedef struct {
    char **v;
    int n, cap;
} strlist_t;

static const jg_program_t *prog;
static FILE *out;
static char unsupported[4096];

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "export_octave: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(1);
}

static void sl_add(strlist_t *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = realloc(l->v, sizeof(char *) * (size_t)l->cap);
        if (!l->v) die("out of memory");
    }
    l->v[l->n++] = strdup(s);
}

static void sl_free(strlist_t *l)
{
    for (int k = 0; k < l->n; k++) free(l->v[k]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static json_t *find_block(const sysctx_t *c, const char *name)
{
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(c->sys, "blocks"), i, b) {
        const char *n = json_string_value(json_object_get(b, "name"));
        if (n && !strcmp(n, name)) return b;
    }
    return NULL;
}

static void subprefix(sysctx_t *in, const sysctx_t *c, const char *name)
{
    size_t a = strlen(c->prefix), b = strlen(name);
    if (a + b + 2 > sizeof in->prefix) die("block path too long: %s%s", c->prefix, name);
    memcpy(in->prefix, c->prefix, a);
    memcpy(in->prefix + a, name, b);
    in->prefix[a + b] = '/';
    in->prefix[a + b + 1] = '\0';
}

static const char *btype(const json_t *b) { return json_string_value(json_object_get(b, "type")); }

/* "NAME:N" -> name (in buf) and N */
static int portref(const char *s, char *buf, size_t n)
{
    const char *c = strrchr(s, ':');
    if (!c || (size_t)(c - s) >= n) return -1;
    memcpy(buf, s, (size_t)(c - s));
    buf[c - s] = '\0';
    return atoi(c + 1);
}

/* The source "NAME:N" of the line into input q of block `name`, or NULL. */
static const char *driver(const sysctx_t *c, const char *name, int q)
{
    size_t i, j;
    json_t *ln, *d;
    char buf[512];
    json_array_foreach(json_object_get(c->sys, "lines"), i, ln) {
        json_t *dst = json_object_get(ln, "dst");
        if (json_is_string(dst)) {
            if (portref(json_string_value(dst), buf, sizeof buf) == q && !strcmp(buf, name))
                return json_string_value(json_object_get(ln, "src"));
        } else {
            json_array_foreach(dst, j, d) {
                if (portref(json_string_value(d), buf, sizeof buf) == q && !strcmp(buf, name))
                    return json_string_value(json_object_get(ln, "src"));
            }
        }
    }
    return NULL;
}

static int32_t block_id(const sysctx_t *c, const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s%s", c->prefix, name);
    int32_t b = jg_program_find_block(prog, path);
    if (b < 0) die("block '%s' not in the compiled program", path);
    return b;
}

/* Parameter `key` of block b in system c, workspace names resolved from c
 * outwards; NULL when absent. */
static json_t *param(const sysctx_t *c, json_t *b, const char *key)
{
    json_t *v = json_object_get(b, key);
    for (int hop = 0; v && json_is_string(v) && hop < 16; hop++) {
        const char *name = json_string_value(v);
        json_t *found = NULL;
        for (const sysctx_t *s = c; s && !found; s = s->parent)
            found = json_object_get(json_object_get(s->sys, "parameters"), name);
        if (!found) return v;   /* a literal string (Sum signs, Multiplication) */
        v = found;
    }
    return v;
}

/* Octave literal of a numeric JSON value: 2.5, [1, 2], [1, 2; 3, 4], []. */
static void lit(FILE *f, json_t *v)
{
    if (!v) {
        fputs("[]", f);
    } else if (json_is_number(v)) {
        fprintf(f, "%.17g", json_number_value(v));
    } else if (json_is_array(v)) {
        size_t i, j;
        json_t *e, *x;
        fputc('[', f);
        json_array_foreach(v, i, e) {
            if (json_is_array(e)) {
                if (i) fputs("; ", f);
                json_array_foreach(e, j, x) fprintf(f, "%s%.17g", j ? ", " : "", json_number_value(x));
            } else {
                fprintf(f, "%s%.17g", i ? ", " : "", json_number_value(e));
            }
        }
        fputc(']', f);
    } else {
        die("parameter is not numeric");
    }
}

/* Parameter `key` of block b as an Octave literal on out; dflt (Simulink's
 * default, Octave text) when the block has none. */
static void lit_param(const sysctx_t *c, json_t *b, const char *key, const char *dflt)
{
    json_t *v = param(c, b, key);
    if (v) lit(out, v);
    else fputs(dflt, out);
}

static void resolve_in(const sysctx_t *c, const char *name, int q, strlist_t *r, int depth);

/* Element names of output port q of block `name` in system c. */
static void resolve_out(const sysctx_t *c, const char *name, int q, strlist_t *r, int depth)
{
    if (depth > 200) die("routing too deep (a loop of virtual blocks?)");
    json_t *b = find_block(c, name);
    if (!b) die("no block '%s%s'", c->prefix, name);
    const char *t = btype(b);
    int32_t id = block_id(c, name);
    if (!strcmp(t, "SubSystem")) {
        sysctx_t in = {.sys = b, .parent = c, .sub_name = name};
        subprefix(&in, c, name);
        size_t i;
        json_t *ib;
        json_array_foreach(json_object_get(b, "blocks"), i, ib) {
            if (!strcmp(btype(ib), "Outport") && json_integer_value(json_object_get(ib, "Port")) == q) {
                resolve_in(&in, json_string_value(json_object_get(ib, "name")), 1, r, depth + 1);
                return;
            }
        }
        die("SubSystem '%s%s' has no Outport %d", c->prefix, name, q);
    }
    if (!strcmp(t, "Inport") && c->parent) {
        resolve_in(c->parent, c->sub_name, (int)json_integer_value(json_object_get(b, "Port")), r,
                   depth + 1);
        return;
    }
    if (!strcmp(t, "Mux")) {
        int nin = 0, nout = 0;
        jg_program_block_nports(prog, id, &nin, &nout);
        for (int k = 1; k <= nin; k++) resolve_in(c, name, k, r, depth + 1);
        return;
    }
    if (!strcmp(t, "Demux") || !strcmp(t, "Selector")) {
        strlist_t u = {0};
        resolve_in(c, name, 1, &u, depth + 1);
        if (!strcmp(t, "Demux")) {
            int64_t off = 0;
            for (int k = 1; k < q; k++) off += jg_program_port_width(prog, id, 1, k - 1);
            int64_t w = jg_program_port_width(prog, id, 1, q - 1);
            for (int64_t k = 0; k < w; k++) sl_add(r, u.v[off + k]);
        } else {
            json_t *idx = param(c, b, "Indices");
            size_t i;
            json_t *e;
            if (json_is_number(idx)) {
                sl_add(r, u.v[(int64_t)json_number_value(idx) - 1]);
            } else {
                json_array_foreach(idx, i, e) {
                    json_t *x = json_is_array(e) ? json_array_get(e, 0) : e;
                    sl_add(r, u.v[(int64_t)json_number_value(x) - 1]);
                }
            }
        }
        sl_free(&u);
        return;
    }
    /* a real block: its own named elements */
    int64_t w = jg_program_port_width(prog, id, 1, q - 1);
    char s[64];
    for (int64_t k = 1; k <= w; k++) {
        snprintf(s, sizeof s, "b%dy%de%lld", (int)id, q, (long long)k);
        sl_add(r, s);
    }
}

/* Element names read by input q of block `name` ("zero" when undriven). */
static void resolve_in(const sysctx_t *c, const char *name, int q, strlist_t *r, int depth)
{
    const char *src = driver(c, name, q);
    if (!src) {
        int32_t id = block_id(c, name);
        int64_t w = jg_program_port_width(prog, id, 0, q - 1);
        for (int64_t k = 0; k < (w > 0 ? w : 1); k++) sl_add(r, "zero");
        return;
    }
    char buf[512];
    int p = portref(src, buf, sizeof buf);
    resolve_out(c, buf, p, r, depth + 1);
}

static void names(FILE *f, const strlist_t *l)
{
    fputc('{', f);
    for (int k = 0; k < l->n; k++) fprintf(f, "%s'%s'", k ? ", " : "", l->v[k]);
    fputc('}', f);
}

/* Outputs of a real block, all ports. */
static void out_names(const sysctx_t *c, const char *name, int nout, strlist_t *r)
{
    for (int q = 1; q <= nout; q++) resolve_out(c, name, q, r, 0);
}

static strlist_t ext_in, ext_out;

static void emit_block(const sysctx_t *c, json_t *b)
{
    const char *name = json_string_value(json_object_get(b, "name"));
    const char *t = btype(b);
    if (!strcmp(t, "SubSystem")) {
        sysctx_t in = {.sys = b, .parent = c, .sub_name = name};
        subprefix(&in, c, name);
        size_t i;
        json_t *ib;
        json_array_foreach(json_object_get(b, "blocks"), i, ib) emit_block(&in, ib);
        return;
    }
    if (!strcmp(t, "Mux") || !strcmp(t, "Demux") || !strcmp(t, "Selector") || !strcmp(t, "Scope") ||
        !strcmp(t, "Terminator") || !strcmp(t, "ToWorkspace"))
        return;
    if ((!strcmp(t, "Inport") || !strcmp(t, "Outport")) && c->parent) return;   /* virtual */
    int32_t id = block_id(c, name);
    int nin = 0, nout = 0;
    jg_program_block_nports(prog, id, &nin, &nout);
    strlist_t ui = {0}, yo = {0};
    char s[128];
    if (!strcmp(t, "Outport")) {   /* root: a model output measuring its driver */
        resolve_in(c, name, 1, &ui, 0);
        for (int k = 0; k < ui.n; k++) {
            if (!strcmp(ui.v[k], "zero")) die("root Outport '%s' is unconnected", name);
            sl_add(&ext_out, ui.v[k]);
        }
        sl_free(&ui);
        return;
    }
    out_names(c, name, nout, &yo);
    if (!strcmp(t, "Inport")) {   /* root: model input, a pass-through named u<port>_<k> */
        int port = (int)json_integer_value(json_object_get(b, "Port"));
        for (int k = 1; k <= yo.n; k++) {
            snprintf(s, sizeof s, "u%d_%d", port, k);
            sl_add(&ui, s);
            sl_add(&ext_in, s);
        }
        fprintf(out, "S{end+1} = ss(eye(%d));\n", yo.n);
    } else {
        for (int q = 1; q <= nin; q++) resolve_in(c, name, q, &ui, 0);
        if (!strcmp(t, "Constant") || !strcmp(t, "Ground")) {
            sl_add(&ui, "unused");
            fprintf(out, "S{end+1} = ss(zeros(%d, 1));\n", yo.n);
        } else if (!strcmp(t, "Gain")) {
            json_t *m = param(c, b, "Multiplication");
            fprintf(out, "S{end+1} = jg_gain(");
            lit_param(c, b, "Gain", "1");
            fprintf(out, ", %d, %d, %d);\n", m && json_is_string(m) && !strcmp(json_string_value(m), "Matrix(K*u)"),
                    ui.n, yo.n);
        } else if (!strcmp(t, "Sum")) {
            json_t *in = param(c, b, "Inputs");
            char signs[256] = "";
            if (!in) {
                strcpy(signs, "++");
            } else if (json_is_number(in)) {
                int n = (int)json_number_value(in);
                for (int k = 0; k < n && k < 255; k++) signs[k] = '+';
                signs[n < 255 ? n : 255] = '\0';
            } else {
                size_t n = 0;
                for (const char *x = json_string_value(in); *x && n < 255; x++)
                    if (*x == '+' || *x == '-') signs[n++] = *x;
                signs[n] = '\0';
            }
            fprintf(out, "S{end+1} = jg_sum('%s', [", signs);
            for (int q = 0; q < nin; q++)
                fprintf(out, "%s%lld", q ? ", " : "", (long long)jg_program_port_width(prog, id, 0, q));
            fprintf(out, "], %d);\n", yo.n);
        } else if (!strcmp(t, "Integrator")) {
            fprintf(out, "S{end+1} = jg_integrator(%d);\n", yo.n);
        } else if (!strcmp(t, "StateSpace")) {
            static const char *const k4[] = {"A", "B", "C", "D"};
            fprintf(out, "S{end+1} = jg_statespace(");
            for (int k = 0; k < 4; k++) {
                lit_param(c, b, k4[k], "1");
                fputs(", ", out);
            }
            fprintf(out, "%d, %d);\n", ui.n, yo.n);
        } else if (!strcmp(t, "TransferFcn")) {
            fprintf(out, "S{end+1} = jg_tf(");
            lit_param(c, b, "Numerator", "1");
            fputs(", ", out);
            lit_param(c, b, "Denominator", "[1, 1]");
            fputs(");\n", out);
        } else if (!strcmp(t, "ZeroPole")) {
            fprintf(out, "S{end+1} = jg_zp(");
            lit_param(c, b, "Zeros", "1");
            fputs(", ", out);
            lit_param(c, b, "Poles", "[0, -1]");
            fputs(", ", out);
            lit_param(c, b, "Gain", "1");
            fputs(");\n", out);
        } else {
            if (!strstr(unsupported, t) && strlen(unsupported) + strlen(t) + 3 < sizeof unsupported) {
                if (unsupported[0]) strcat(unsupported, ", ");
                strcat(unsupported, t);
            }
            fprintf(out, "S{end+1} = [];  %% unsupported: %s\n", t);
        }
    }
    fprintf(out, "S{end}.InputName = ");
    names(out, &ui);
    fprintf(out, "; S{end}.OutputName = ");
    names(out, &yo);
    fprintf(out, ";  %% %s%s (%s)\n", c->prefix, name, t);
    sl_free(&ui);
    sl_free(&yo);
}

static void dense(FILE *f, const char *name, const cs_dl *A)
{
    fprintf(f, "%s = zeros(%lld, %lld);\n", name, (long long)A->m, (long long)A->n);
    for (int64_t j = 0; j < A->n; j++)
        for (int64_t k = A->p[j]; k < A->p[j + 1]; k++)
            fprintf(f, "%s(%lld, %lld) = %.17g;\n", name, (long long)A->i[k] + 1, (long long)j + 1, A->x[k]);
}

static const char helpers[] =
    "1;  % a script, not a function file\n"
    "pkg load control\n"
    "function s = jg_gain(K, matrix, win, wout)\n"
    "  if matrix, D = K;\n"
    "  else\n"
    "    k = reshape(K.', [], 1);\n"
    "    if numel(k) == 1, D = k * eye(win);\n"
    "    elseif win == 1, D = k;\n"
    "    else, D = diag(k); end\n"
    "  end\n"
    "  s = ss(D);\n"
    "end\n"
    "function s = jg_sum(signs, win, wout)\n"
    "  sg = 1 - 2 * (signs == '-');\n"
    "  if numel(sg) == 1, D = sg * ones(1, win(1));\n"
    "  else\n"
    "    D = zeros(wout, 0);\n"
    "    for p = 1:numel(sg)\n"
    "      if win(p) == wout, D = [D, sg(p) * eye(wout)]; else, D = [D, sg(p) * ones(wout, 1)]; end\n"
    "    end\n"
    "  end\n"
    "  s = ss(D);\n"
    "end\n"
    "function s = jg_integrator(w)\n"
    "  s = ss(zeros(w), eye(w), eye(w), zeros(w));\n"
    "end\n"
    "function s = jg_statespace(A, B, C, D, win, wout)\n"
    "  if isempty(A), s = ss(D); else, s = ss(A, B, C, D); end\n"
    "end\n"
    "% tf2ss controllable canonical form, as jacgraph documents it\n"
    "function s = jg_tf(num, den)\n"
    "  num = num(:).'; den = den(:).';\n"
    "  while numel(num) > 1 && num(1) == 0, num = num(2:end); end\n"
    "  num = num / den(1); den = den / den(1); n = numel(den) - 1;\n"
    "  b = [zeros(1, n + 1 - numel(num)), num];\n"
    "  if n == 0, s = ss(b(1)); return; end\n"
    "  A = [-den(2:end); eye(n - 1, n)];\n"
    "  B = [1; zeros(n - 1, 1)];\n"
    "  C = b(2:end) - b(1) * den(2:end);\n"
    "  s = ss(A, B, C, b(1));\n"
    "end\n"
    "function r = jg_roots(R)\n"
    "  if rows(R) >= 2 && columns(R) == 2, r = R(:, 1) + 1i * R(:, 2); else, r = R(:); end\n"
    "end\n"
    "function s = okstr(c)\n"
    "  if c, s = 'agree'; else, s = 'DISAGREE'; end\n"
    "end\n"
    "function s = jg_zp(z, p, k)\n"
    "  s = jg_tf(real(k * poly(jg_roots(z))), real(poly(jg_roots(p))));\n"
    "end\n";

int main(int argc, char **argv)
{
    const char *model = NULL, *opath = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) opath = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: export_octave MODEL.json [-o SCRIPT.m]\n");
            return 2;
        } else model = argv[i];
    }
    if (!model) {
        fprintf(stderr, "usage: export_octave MODEL.json [-o SCRIPT.m]\n");
        return 2;
    }
    jg_error_t err;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *ref = NULL;
    if (jg_model_read(model, &m, &err) || jg_program_compile(m, &p, &err) ||
        jg_lin_create(p, NULL, &l, &err) ||
        jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &ref, NULL, &err))
        die("%s", err.msg);
    prog = p;
    json_error_t je;
    json_t *root = json_load_file(model, 0, &je);
    if (!root) die("%s: %s", model, je.text);
    char *buf = NULL;
    size_t len = 0;
    out = open_memstream(&buf, &len);
    sysctx_t rootc = {.sys = root};
    fprintf(out, "%% %s: %s\n", jg_program_name(p), "generated by benchmarks/export_octave");
    fputs(helpers, out);
    fprintf(out, "S = {};\n");
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "blocks"), i, b) emit_block(&rootc, b);
    fclose(out);
    int rc = 0;
    FILE *f = NULL;
    if (unsupported[0]) {
        fprintf(stderr, "export_octave: %s: not exported: nonlinear block types %s\n", model, unsupported);
        rc = 3;
        goto done;
    }
    f = opath ? fopen(opath, "w") : stdout;
    if (!f) die("%s: cannot write", opath);
    fwrite(buf, 1, len, f);
    fprintf(f, "inputs = ");
    names(f, &ext_in);
    fprintf(f, ";\noutputs = ");
    names(f, &ext_out);
    fprintf(f, ";\n");
    /* without root inputs or outputs only A is compared (any I/O indices will do) */
    /* connect's name form ends with sminreal, which drops structurally
     * uncontrollable or unobservable states that linearization keeps; so the
     * names are matched here and connect's index form closes the loops. */
    fprintf(f, "tic;\n"
               "Sys = append(S{:});\n"
               "in = Sys.InputName; out = Sys.OutputName;\n"
               "[~, loc] = ismember(in, out);   %% the output driving each input (0: none)\n"
               "cm = [(1:numel(in))', loc(:)];\n"
               "[~, iidx] = ismember(inputs, in); [~, oidx] = ismember(outputs, out);\n"
               "if isempty(iidx) || isempty(oidx), iidx = 1; oidx = 1; end  %% no root I/O: only A\n"
               "T = connect(Sys, cm, iidx(:)', oidx(:)');\n"
               "t_connect = toc;\n"
               "[A, B, C, D] = ssdata(T);\n");
    dense(f, "Aj", ref->A);
    dense(f, "Bj", ref->B);
    dense(f, "Cj", ref->C);
    dense(f, "Dj", ref->D);
    fprintf(f, "rel = @(X, R) max([0; abs(X(:) - R(:))]) / max([1; abs(R(:))]);\n"
               "if isempty(inputs) || isempty(outputs)\n"
               "  ok = isequal(size(A), size(Aj)); d = NaN; if ok, d = rel(A, Aj); end\n"
               "else\n"
               "  ok = isequal(size(A), size(Aj)) && isequal(size(B), size(Bj)) && isequal(size(C), size(Cj));\n"
               "  d = NaN; if ok, d = max([rel(A, Aj), rel(B, Bj), rel(C, Cj), rel(D, Dj)]); end\n"
               "end\n"
               "printf('octave_peer: %%s: %%d blocks, %%d states: max difference %%.3g, octave append+connect %%.4f s: %%s\\n', "
               "'%s', %d, rows(Aj), d, t_connect, okstr(ok && d <= 1e-9));\n",
            jg_program_name(p), (int)jg_program_nblocks(p));
    fprintf(f, "if !(ok && d <= 1e-9), exit(1); end\n");
    if (f != stdout && fclose(f)) die("%s: cannot write", opath);
done:
    free(buf);
    sl_free(&ext_in);
    sl_free(&ext_out);
    json_decref(root);
    jg_lin_sys_free(ref);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return rc;
}
