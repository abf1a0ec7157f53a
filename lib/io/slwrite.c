/* A jacgraph JSON model written as a Simulink file: classic MDL (8.1 layout)
 * or an SLX zip package (R2019b layout), streamed system by system.
 *
 * One traversal drives both encodings: a system's blocks (a SubSystem's own
 * system written where the block stands, as Simulink does), then its lines,
 * merged per source port into one Line with a Branch per reader.  Block
 * SIDs come from one counter in write order; the SLX line endpoints
 * ("SID#out:1") look them up through the system's name index, which is the
 * only per-system memory.  Every parameter whose jacgraph default differs
 * from Simulink's built-in one is written out (TransferFcn Denominator, Mux
 * Inputs, ...), and BlockParameterDefaults carries Simulink's built-in
 * values, so a reader that applies either gets the same model. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include <zip.h>
#include "jacgraph/io.h"
#include "io_impl.h"

/* ------------------------------------------------------------ block types */

typedef struct {
    const char *key, *val;
} kv_t;

typedef struct {
    const char *ours, *sl;
    kv_t fixed[3];   /* always written */
    kv_t dflt[2];    /* written when absent: jacgraph's default is not Simulink's */
    kv_t ren[1];     /* our parameter name -> Simulink's */
    kv_t bpd[9];     /* Simulink's built-in defaults, for BlockParameterDefaults */
} sltype_t;

static const sltype_t types[] = {
    {"Inport", "Inport", {{0}}, {{0}}, {{0}}, {{"Port", "1"}}},
    {"Outport", "Outport", {{0}}, {{0}}, {{0}}, {{"Port", "1"}, {"InitialOutput", "[]"}}},
    {"SubSystem", "SubSystem", {{0}}, {{0}}, {{0}}, {{"ShowPortLabels", "FromPortIcon"}, {"Permissions", "ReadWrite"}}},
    {"Constant", "Constant", {{0}}, {{0}}, {{0}}, {{"Value", "1"}, {"VectorParams1D", "on"}}},
    {"Ground", "Ground", {{0}}, {{0}}, {{0}}, {{0}}},
    {"Terminator", "Terminator", {{0}}, {{0}}, {{0}}, {{0}}},
    {"Scope", "Scope", {{0}}, {{0}}, {{0}}, {{"NumInputPorts", "1"}, {"Floating", "off"}}},
    {"ToWorkspace", "ToWorkspace", {{0}}, {{0}}, {{0}}, {{"VariableName", "simulink_output"}, {"MaxDataPoints", "1000"}}},
    {"Gain", "Gain", {{0}}, {{0}}, {{0}}, {{"Gain", "1"}, {"Multiplication", "Element-wise(K.*u)"}}},
    {"Sum", "Sum", {{0}}, {{0}}, {{0}}, {{"IconShape", "rectangular"}, {"Inputs", "++"}}},
    {"Product", "Product", {{0}}, {{0}}, {{0}}, {{"Inputs", "2"}, {"Multiplication", "Element-wise(.*)"}}},
    {"Abs", "Abs", {{0}}, {{0}}, {{0}}, {{"ZeroCross", "on"}}},
    {"Math", "Math", {{0}}, {{0}}, {{0}}, {{"Operator", "exp"}}},
    {"Trigonometry", "Trigonometry", {{0}}, {{0}}, {{0}}, {{"Operator", "sin"}}},
    {"Integrator", "Integrator", {{0}}, {{0}}, {{0}},
     {{"ExternalReset", "none"}, {"InitialConditionSource", "internal"}, {"InitialCondition", "0"},
      {"LimitOutput", "off"}, {"UpperSaturationLimit", "inf"}, {"LowerSaturationLimit", "-inf"},
      {"ShowSaturationPort", "off"}, {"ShowStatePort", "off"}}},
    {"StateSpace", "StateSpace", {{0}}, {{0}}, {{"InitialCondition", "X0"}},
     {{"A", "1"}, {"B", "1"}, {"C", "1"}, {"D", "1"}, {"X0", "0"}}},
    {"TransferFcn", "TransferFcn", {{0}}, {{"Denominator", "[1 1]"}}, {{0}},
     {{"Numerator", "[1]"}, {"Denominator", "[1 2 1]"}}},
    {"ZeroPole", "ZeroPole", {{0}}, {{"Poles", "[0 -1]"}}, {{0}},
     {{"Zeros", "[1]"}, {"Poles", "[0 1]"}, {"Gain", "[1]"}}},
    {"Fcn", "Fcn", {{0}}, {{0}}, {{0}}, {{"Expr", "sin(u[1])"}}},
    {"Step", "Step", {{0}}, {{0}}, {{0}}, {{"Time", "1"}, {"Before", "0"}, {"After", "1"}}},
    {"SineWave", "Sin", {{0}}, {{0}}, {{0}},
     {{"SineType", "Time based"}, {"Amplitude", "1"}, {"Bias", "0"}, {"Frequency", "1"}, {"Phase", "0"}}},
    {"Clock", "Clock", {{0}}, {{0}}, {{0}}, {{"DisplayTime", "off"}}},
    {"FromWorkspace", "FromWorkspace", {{0}}, {{0}}, {{0}}, {{"VariableName", "simulink_input"}}},
    {"Lookup1D", "Lookup_n-D", {{"NumberOfTableDimensions", "1"}, {"InterpMethod", "Linear"}},
     {{"ExtrapMethod", "Clip"}}, {{0}},
     {{"NumberOfTableDimensions", "2"}, {"InterpMethod", "Linear"}, {"ExtrapMethod", "Linear"}}},
    {"Lookup2D", "Lookup_n-D", {{"NumberOfTableDimensions", "2"}, {"InterpMethod", "Linear"}},
     {{"ExtrapMethod", "Clip"}}, {{0}},
     {{"NumberOfTableDimensions", "2"}, {"InterpMethod", "Linear"}, {"ExtrapMethod", "Linear"}}},
    {"DeadZone", "DeadZone", {{0}}, {{0}}, {{0}}, {{"LowerValue", "-0.5"}, {"UpperValue", "0.5"}}},
    {"Sign", "Signum", {{0}}, {{0}}, {{0}}, {{"ZeroCross", "on"}}},
    {"MinMax", "MinMax", {{0}}, {{0}}, {{0}}, {{"Function", "min"}, {"Inputs", "1"}}},
    {"Relay", "Relay", {{0}}, {{0}}, {{0}},
     {{"OnSwitchValue", "eps"}, {"OffSwitchValue", "eps"}, {"OnOutputValue", "1"}, {"OffOutputValue", "0"}}},
    {"Switch", "Switch", {{0}}, {{0}}, {{0}}, {{"Criteria", "u2 >= Threshold"}, {"Threshold", "0"}}},
    {"Saturation", "Saturate", {{0}}, {{0}}, {{0}}, {{"UpperLimit", "0.5"}, {"LowerLimit", "-0.5"}}},
    {"Mux", "Mux", {{0}}, {{"Inputs", "2"}}, {{0}}, {{"Inputs", "4"}, {"DisplayOption", "none"}}},
    {"Demux", "Demux", {{0}}, {{"Outputs", "2"}}, {{0}}, {{"Outputs", "4"}, {"DisplayOption", "none"}}},
    {"Selector", "Selector",
     {{"NumberOfDimensions", "1"}, {"IndexMode", "One-based"}, {"IndexOptions", "Index vector (dialog)"}},
     {{0}}, {{0}}, {{"NumberOfDimensions", "1"}, {"IndexMode", "One-based"}, {"InputPortWidth", "-1"}}},
    {"UnitDelay", "UnitDelay", {{0}}, {{"SampleTime", "-1"}}, {{0}}, {{"InitialCondition", "0"}, {"SampleTime", "1"}}},
    {"Memory", "Memory", {{0}}, {{0}}, {{"InitialCondition", "X0"}}, {{"X0", "0"}, {"InheritSampleTime", "off"}}},
    {"DiscreteIntegrator", "DiscreteIntegrator", {{0}}, {{0}}, {{0}},
     {{"IntegratorMethod", "Integration: Forward Euler"}, {"gainval", "1.0"}, {"InitialCondition", "0"},
      {"SampleTime", "1"}}},
    {"DiscreteStateSpace", "DiscreteStateSpace", {{0}}, {{0}}, {{"InitialCondition", "X0"}},
     {{"A", "1"}, {"B", "1"}, {"C", "1"}, {"D", "1"}, {"X0", "0"}, {"SampleTime", "1"}}},
    {"DiscreteTransferFcn", "DiscreteTransferFcn", {{0}}, {{0}}, {{0}},
     {{"Numerator", "[1]"}, {"Denominator", "[1 0.5]"}, {"InitialStates", "0"}, {"SampleTime", "1"}}},
    {"ZeroOrderHold", "ZeroOrderHold", {{0}}, {{"SampleTime", "-1"}}, {{0}}, {{"SampleTime", "1"}}},
    {"TransportDelay", "TransportDelay", {{0}}, {{0}}, {{0}},
     {{"DelayTime", "1"}, {"InitialOutput", "0"}, {"BufferSize", "1024"}, {"PadeOrder", "0"}}},
    {"IC", "InitialCondition", {{0}}, {{"Value", "0"}}, {{0}}, {{"Value", "1"}}},
    {"AlgebraicConstraint", "AlgebraicConstraint", {{0}}, {{0}}, {{0}}, {{"InitialGuess", "0"}}},
    {"Goto", "Goto", {{0}}, {{0}}, {{0}}, {{"GotoTag", "A"}, {"TagVisibility", "local"}}},
    {"From", "From", {{0}}, {{0}}, {{0}}, {{"GotoTag", "A"}}},
    {"GotoTagVisibility", "GotoTagVisibility", {{0}}, {{0}}, {{0}}, {{"GotoTag", "A"}}},
    {"HitCrossing", "HitCross", {{0}}, {{0}}, {{0}},
     {{"HitCrossingOffset", "0"}, {"HitCrossingDirection", "either"}, {"ShowOutputPort", "on"}}},
    /* named as in Simulink; their port counts come from the lines */
    {"Bias", "Bias", {{0}}, {{0}}, {{0}}, {{"Bias", "0"}}},
    {"UnaryMinus", "UnaryMinus", {{0}}, {{0}}, {{0}}, {{0}}},
    {"Polyval", "Polyval", {{0}}, {{0}}, {{0}}, {{0}}},
    {"Rounding", "Rounding", {{0}}, {{0}}, {{0}}, {{"Operator", "floor"}}},
    {"Quantizer", "Quantizer", {{0}}, {{0}}, {{0}}, {{"QuantizationInterval", "0.5"}}},
    {"RelationalOperator", "RelationalOperator", {{0}}, {{0}}, {{0}}, {{"Operator", ">="}}},
    {"Logic", "Logic", {{0}}, {{0}}, {{0}}, {{"Operator", "AND"}, {"Inputs", "2"}}},
    {"MultiPortSwitch", "MultiPortSwitch", {{0}}, {{0}}, {{0}}, {{"Inputs", "3"}}},
    {"Width", "Width", {{0}}, {{0}}, {{0}}, {{0}}},
    {"SignalConversion", "SignalConversion", {{0}}, {{0}}, {{0}}, {{0}}},
    {"Reshape", "Reshape", {{0}}, {{0}}, {{0}}, {{0}}},
    {"SignalSpecification", "SignalSpecification", {{0}}, {{0}}, {{0}}, {{0}}},
    {"DataTypeConversion", "DataTypeConversion", {{0}}, {{0}}, {{0}}, {{0}}},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static const sltype_t *find_type(const char *t)
{
    for (int k = 0; k < NTYPES; k++)
        if (!strcmp(types[k].ours, t)) return &types[k];
    return NULL;
}

/* ------------------------------------------------------------ buffers */

typedef struct {
    char *s;
    size_t n, cap;
} buf_t;

static int buf_add(buf_t *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n + 1) c *= 2;
        char *p = realloc(b->s, c);
        if (!p) return -1;
        b->s = p;
        b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
    return 0;
}

static int buf_str(buf_t *b, const char *s) { return buf_add(b, s, strlen(s)); }

static int buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int buf_printf(buf_t *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) return -1;
    return buf_add(b, tmp, (size_t)n);
}

/* ------------------------------------------------------------ writer state */

typedef struct {
    FILE *f;
    int slx;
    int64_t sid;       /* last block SID given */
    int64_t objid;     /* SLX ObjectID counter (masks) */
    buf_t path;        /* the current system's path, for messages */
    jg_error_t *err;
    jg_status_t st;    /* first failure */
} wr_t;

/* The first failure is the one reported (a later one keeps it); evaluates
 * to the recorded status. */
#define fail(w_, s_, ...) \
    ((w_)->st != JG_OK ? (w_)->st : ((w_)->st = jg_error_set((w_)->err, (s_), __VA_ARGS__)))

static jg_status_t nomem(wr_t *w) { return fail(w, JG_NOMEM, "Simulink writer: out of memory"); }

/* A block's path for messages: the system path, then the name. */
static const char *bpath(wr_t *w, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s%s%s", w->path.n ? w->path.s : "", w->path.n ? "/" : "", name);
    return out;
}

/* Characters below 0x20 other than LF and TAB have no encoding in either
 * format (XML 1.0 forbids them; MDL has no escape for them). */
static int bad_char(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 && *p != '\n' && *p != '\t') return *p;
    return 0;
}

/* ------------------------------------------------------------ values as MATLAB text */

/* The fewest significant digits that read back to the same double. */
static int fmt_real(buf_t *b, double x)
{
    char t[40];
    for (int p = 15; p <= 17; p++) {
        snprintf(t, sizeof t, "%.*g", p, x);
        if (strtod(t, NULL) == x) break;
    }
    return buf_str(b, t);
}

static int fmt_scalar(buf_t *b, const json_t *v)
{
    if (json_is_integer(v)) return buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    if (json_is_real(v)) return fmt_real(b, json_real_value(v));
    if (json_is_true(v)) return buf_str(b, "on");
    if (json_is_false(v)) return buf_str(b, "off");
    if (json_is_string(v)) {
        /* an expression inside a matrix: whitespace would split it into elements */
        const char *s = json_string_value(v);
        if (strpbrk(s, " \t\n")) return buf_str(b, "(") || buf_str(b, s) || buf_str(b, ")");
        return buf_str(b, s);
    }
    return 1;
}

/* JSON value -> MATLAB text: 2.5 -> "2.5", [1, 2] -> "[1 2]", [[1, 2], [3, 4]]
 * -> "[1 2;3 4]", "K" -> "K".  Returns 0, -1 out of memory, 1 not a value. */
static int fmt_value(buf_t *b, const json_t *v)
{
    if (json_is_string(v)) return buf_str(b, json_string_value(v));
    if (!json_is_array(v)) return fmt_scalar(b, v);
    size_t n = json_array_size(v);
    int r = buf_str(b, "[");
    for (size_t i = 0; !r && i < n; i++) {
        const json_t *e = json_array_get(v, i);
        if (json_is_array(e)) {
            if (i) r = buf_str(b, ";");
            for (size_t j = 0; !r && j < json_array_size(e); j++) {
                const json_t *x = json_array_get(e, j);
                if (json_is_array(x) || json_is_object(x) || json_is_null(x)) return 1;
                r = (j ? buf_str(b, " ") : 0) || fmt_scalar(b, x);
            }
        } else {
            if (json_is_object(e) || json_is_null(e)) return 1;
            r = (i ? buf_str(b, " ") : 0) || fmt_scalar(b, e);
        }
    }
    return r ? r : buf_str(b, "]");
}

/* ------------------------------------------------------------ low-level output */

static int depth_ind(int d) { return 2 * (d < 12 ? d : 12); }

/* MDL quoted string: escapes, and pieces of at most ~100 bytes on
 * continuation lines, as Simulink splits at MaxMDLFileLineLength (never
 * inside an escape or a UTF-8 sequence). */
static void mdl_quoted(wr_t *w, const char *s, int ind)
{
    FILE *f = w->f;
    size_t col = 0;
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (col >= 100 && (*p & 0xC0) != 0x80) {
            fprintf(f, "\"\n%*s\"", ind + 2, "");
            col = 0;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); col += 2; break;
        case '\\': fputs("\\\\", f); col += 2; break;
        case '\n': fputs("\\n", f); col += 2; break;
        case '\t': fputs("\\t", f); col += 2; break;
        default: fputc(*p, f); col++;
        }
    }
    fputc('"', f);
}

static void xml_esc(wr_t *w, const char *s, int attr)
{
    FILE *f = w->f;
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs(attr ? "&quot;" : "\"", f); break;
        case '\n': fputs(attr ? "&#xA;" : "\n", f); break;
        case '\t': fputs(attr ? "&#x9;" : "\t", f); break;
        default: fputc(*p, f);
        }
    }
}

/* One parameter.  MDL: quoted unless `bare` (BlockType, Ports, numbers);
 * SLX: <P Name="key">value</P>. */
static void param(wr_t *w, int d, const char *key, const char *val, int bare)
{
    if (w->slx) {
        fprintf(w->f, "%*s<P Name=\"%s\">", depth_ind(d), "", key);
        xml_esc(w, val, 0);
        fputs("</P>\n", w->f);
        return;
    }
    int ind = depth_ind(d);
    fprintf(w->f, "%*s%s\t", ind, "", key);
    if (bare) fputs(val, w->f);
    else mdl_quoted(w, val, ind);
    fputc('\n', w->f);
}

static void open_sec(wr_t *w, int d, const char *name) { fprintf(w->f, "%*s%s {\n", depth_ind(d), "", name); }
static void close_sec(wr_t *w, int d) { fprintf(w->f, "%*s}\n", depth_ind(d), ""); }
static void open_el(wr_t *w, int d, const char *name) { fprintf(w->f, "%*s<%s>\n", depth_ind(d), "", name); }
static void close_el(wr_t *w, int d, const char *name) { fprintf(w->f, "%*s</%s>\n", depth_ind(d), "", name); }

/* ------------------------------------------------------------ ports */

typedef struct {
    int idx, port;   /* block index in its system, 1-based port (0: the Integrator state port) */
} ep_t;

static int as_int(const json_t *v, int dflt)
{
    if (json_is_integer(v)) return (int)json_integer_value(v);
    if (json_is_real(v)) return (int)json_real_value(v);
    if (json_is_string(v)) {
        char *end;
        long x = strtol(json_string_value(v), &end, 10);
        if (end != json_string_value(v) && !*end) return (int)x;
    }
    return dflt;
}

static int is_on(const json_t *v)
{
    if (json_is_true(v)) return 1;
    if (json_is_integer(v) || json_is_real(v)) return json_number_value(v) != 0;
    return json_is_string(v) && !strcmp(json_string_value(v), "on");
}

/* Sum "+-|+" and Product "**\/": one port per sign; a count otherwise;
 * a workspace name gives -1 (the lines decide). */
static int sign_ports(const json_t *v, const char *signs, int dflt)
{
    if (!v) return dflt;
    if (!json_is_string(v)) return as_int(v, -1);
    const char *s = json_string_value(v);
    int n = 0, other = 0;
    for (const char *p = s; *p; p++) {
        if (strchr(signs, *p)) n++;
        else if (*p != '|' && *p != ' ') other = 1;
    }
    if (!other) return n;
    return as_int(v, -1);
}

/* Mux Inputs / Demux Outputs: a count, or a vector of widths ([3] alone is 3 ports). */
static int count_or_widths(const json_t *v, int dflt)
{
    if (!v) return dflt;
    if (json_is_array(v)) return json_array_size(v) == 1 ? as_int(json_array_get(v, 0), -1)
                                                         : (int)json_array_size(v);
    return as_int(v, -1);
}

static int max_port(const json_t *blocks, const char *type)
{
    int n = 0, k = 0;
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *t = json_string_value(json_object_get(b, "type"));
        if (!t || strcmp(t, type)) continue;
        k++;
        int p = as_int(json_object_get(b, "Port"), 0);
        if (p > n) n = p;
    }
    return n > k ? n : k;
}

/* The port counts implied by a block's own parameters; -1 where unknown. */
static void rule_ports(const json_t *b, const char *t, int *nin, int *nout, int *state)
{
    *nin = 1, *nout = 1, *state = 0;
    if (!strcmp(t, "Inport") || !strcmp(t, "Constant") || !strcmp(t, "Ground") || !strcmp(t, "Step") ||
        !strcmp(t, "SineWave") || !strcmp(t, "Clock") || !strcmp(t, "FromWorkspace") || !strcmp(t, "From"))
        *nin = 0;
    else if (!strcmp(t, "Outport") || !strcmp(t, "Terminator") || !strcmp(t, "ToWorkspace") || !strcmp(t, "Goto"))
        *nout = 0;
    else if (!strcmp(t, "GotoTagVisibility")) *nin = *nout = 0;
    else if (!strcmp(t, "Scope")) *nin = as_int(json_object_get(b, "NumInputPorts"), 1), *nout = 0;
    else if (!strcmp(t, "SubSystem")) {
        const json_t *bl = json_object_get(b, "blocks");
        *nin = max_port(bl, "Inport");
        *nout = max_port(bl, "Outport");
    } else if (!strcmp(t, "Sum")) *nin = sign_ports(json_object_get(b, "Inputs"), "+-", 2);
    else if (!strcmp(t, "Product")) *nin = sign_ports(json_object_get(b, "Inputs"), "*/", 2);
    else if (!strcmp(t, "Mux")) *nin = count_or_widths(json_object_get(b, "Inputs"), 2);
    else if (!strcmp(t, "Demux")) *nout = count_or_widths(json_object_get(b, "Outputs"), 2);
    else if (!strcmp(t, "MinMax")) *nin = as_int(json_object_get(b, "Inputs"), 1);
    else if (!strcmp(t, "Switch")) *nin = 3;
    else if (!strcmp(t, "Lookup2D")) *nin = 2;
    else if (!strcmp(t, "Math") || !strcmp(t, "Trigonometry")) {
        const char *op = json_string_value(json_object_get(b, "Operator"));
        if (op && (!strcmp(op, "pow") || !strcmp(op, "hypot") || !strcmp(op, "atan2"))) *nin = 2;
    } else if (!strcmp(t, "HitCrossing")) {
        const json_t *v = json_object_get(b, "ShowOutputPort");
        if (v && !is_on(v)) *nout = 0;
    } else if (!strcmp(t, "Integrator")) {
        const char *r = json_string_value(json_object_get(b, "ExternalReset"));
        const char *ic = json_string_value(json_object_get(b, "InitialConditionSource"));
        *nin = 1 + (r && strcmp(r, "none")) + (ic && !strcmp(ic, "external"));
        *nout = 1 + is_on(json_object_get(b, "ShowSaturationPort"));
        *state = is_on(json_object_get(b, "ShowStatePort"));
    }
}

/* ------------------------------------------------------------ one system */

typedef struct {
    int src, sport;     /* source block index and port */
    int dst, dport;
    int group;
} edge_t;

typedef struct {
    size_t n;
    json_t *index;      /* name -> block index */
    int *maxin, *maxout, *state;  /* from the lines / the block's rule */
    int64_t *sid;
    edge_t *e;
    size_t ne, cape;
    int ngroups;
} sysidx_t;

static void sys_free(sysidx_t *s)
{
    json_decref(s->index);
    free(s->maxin);
    free(s->maxout);
    free(s->state);
    free(s->sid);
    free(s->e);
}

/* "Block:N" with N after the last colon -> block index and port. */
static jg_status_t parse_end(wr_t *w, sysidx_t *s, const json_t *v, int is_dst, size_t line, int *idx,
                             int *port)
{
    const char *str = json_string_value(v);
    const char *c = str ? strrchr(str, ':') : NULL;
    char *end;
    long p = c ? strtol(c + 1, &end, 10) : 0;
    if (!c || c == str || end == c + 1 || *end || p < 1 || p > 1000000)
        return fail(w, JG_MODEL, "system '%s', line %zu: %s must be \"BLOCK:N\" with N >= 1",
                    w->path.n ? w->path.s : "(root)", line + 1, is_dst ? "dst" : "src");
    char name[1024];
    size_t nl = (size_t)(c - str);
    if (nl >= sizeof name) return fail(w, JG_MODEL, "system '%s', line %zu: block name too long",
                                       w->path.n ? w->path.s : "(root)", line + 1);
    memcpy(name, str, nl);
    name[nl] = 0;
    const json_t *i = json_object_get(s->index, name);
    if (!i) return fail(w, JG_MODEL, "system '%s', line %zu: no block '%s'", w->path.n ? w->path.s : "(root)",
                        line + 1, name);
    *idx = (int)json_integer_value(i);
    *port = (int)p;
    return JG_OK;
}

static jg_status_t add_edge(wr_t *w, sysidx_t *s, json_t *groups, int src, int sport, int dst, int dport)
{
    if (s->ne == s->cape) {
        size_t c = s->cape ? 2 * s->cape : 16;
        edge_t *p = realloc(s->e, c * sizeof *p);
        if (!p) return nomem(w);
        s->e = p;
        s->cape = c;
    }
    char key[48];
    snprintf(key, sizeof key, "%d:%d", src, sport);
    json_t *g = json_object_get(groups, key);
    int gid;
    if (g) gid = (int)json_integer_value(g);
    else {
        gid = s->ngroups++;
        if (json_object_set_new(groups, key, json_integer(gid))) return nomem(w);
    }
    s->e[s->ne++] = (edge_t){src, sport, dst, dport, gid};
    if (dport > s->maxin[dst]) s->maxin[dst] = dport;
    if (sport > s->maxout[src]) s->maxout[src] = sport;
    return JG_OK;
}

/* Name index, lines as edges grouped by source port (stable order of first
 * appearance), port counts. */
static jg_status_t sys_index(wr_t *w, const json_t *blocks, const json_t *lines, sysidx_t *s)
{
    memset(s, 0, sizeof *s);
    s->n = json_array_size(blocks);
    s->index = json_object();
    json_t *groups = json_object();
    size_t n1 = s->n ? s->n : 1;
    s->maxin = calloc(n1, sizeof *s->maxin);
    s->maxout = calloc(n1, sizeof *s->maxout);
    s->state = calloc(n1, sizeof *s->state);
    s->sid = calloc(n1, sizeof *s->sid);
    if (!s->index || !groups || !s->maxin || !s->maxout || !s->state || !s->sid) {
        json_decref(groups);
        return nomem(w);
    }
    char pb[1024];
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *name = json_string_value(json_object_get(b, "name"));
        const char *type = json_string_value(json_object_get(b, "type"));
        if (!json_is_object(b) || !name || !*name || !type) {
            fail(w, JG_MODEL, "system '%s', block %zu: needs a \"name\" and a \"type\"",
                 w->path.n ? w->path.s : "(root)", i + 1);
            goto done;
        }
        int c = bad_char(name);
        if (c) {
            fail(w, JG_MODEL, "block '%s': the name holds the control character 0x%02x, which Simulink files "
                 "cannot hold", bpath(w, name, pb, sizeof pb), c);
            goto done;
        }
        if (json_object_get(s->index, name)) {
            fail(w, JG_MODEL, "block '%s': the name is used twice in its system", bpath(w, name, pb, sizeof pb));
            goto done;
        }
        if (json_object_set_new(s->index, name, json_integer((json_int_t)i))) {
            nomem(w);
            goto done;
        }
        int nin, nout, st;
        rule_ports(b, type, &nin, &nout, &st);
        s->maxin[i] = nin > 0 ? nin : 0;
        s->maxout[i] = nout > 0 ? nout : 0;
        s->state[i] = st;
    }
    json_t *l;
    json_array_foreach(lines, i, l) {
        int src, sport, dst, dport;
        if (parse_end(w, s, json_object_get(l, "src"), 0, i, &src, &sport)) goto done;
        const json_t *d = json_object_get(l, "dst");
        if (json_is_array(d)) {
            size_t j;
            json_t *x;
            json_array_foreach(d, j, x) {
                if (parse_end(w, s, x, 1, i, &dst, &dport) || add_edge(w, s, groups, src, sport, dst, dport))
                    goto done;
            }
        } else if (parse_end(w, s, d, 1, i, &dst, &dport) || add_edge(w, s, groups, src, sport, dst, dport))
            goto done;
    }
    /* stable counting sort of the edges by group */
    if (s->ne) {
        size_t *start = calloc((size_t)s->ngroups + 1, sizeof *start);
        edge_t *sorted = malloc(s->ne * sizeof *sorted);
        if (!start || !sorted) {
            free(start);
            free(sorted);
            nomem(w);
            goto done;
        }
        for (size_t k = 0; k < s->ne; k++) start[s->e[k].group + 1]++;
        for (int g = 0; g < s->ngroups; g++) start[g + 1] += start[g];
        for (size_t k = 0; k < s->ne; k++) sorted[start[s->e[k].group]++] = s->e[k];
        free(start);
        free(s->e);
        s->e = sorted;
        s->cape = s->ne;
    }
done:
    json_decref(groups);
    return w->st;
}

/* ------------------------------------------------------------ blocks */

static jg_status_t write_system(wr_t *w, const json_t *blocks, const json_t *lines, const char *name, int d,
                                int root, int64_t nblocks_total);

/* A SubSystem's "parameters" as its mask. */
static jg_status_t write_mask(wr_t *w, const json_t *params, const char *bp, int d)
{
    size_t np = json_object_size(params);
    if (!np) return JG_OK;
    buf_t v = {0}, vars = {0}, vals = {0}, prompts = {0}, styles = {0};
    const char *k;
    json_t *x;
    size_t i = 0;
    if (w->slx) {
        fprintf(w->f, "%*s<Object PropName=\"MaskObject\" ObjectID=\"%lld\" ClassName=\"Simulink.Mask\">\n",
                depth_ind(d), "", (long long)++w->objid);
        if (np > 1)
            fprintf(w->f, "%*s<Array PropName=\"Parameters\" Type=\"Simulink.MaskParameter\" Dimension=\"1*%zu\">\n",
                    depth_ind(d + 1), "", np);
    }
    json_object_foreach((json_t *)params, k, x) {
        v.n = 0;
        int r = fmt_value(&v, x);
        if (r < 0) { nomem(w); goto done; }
        if (r > 0 || bad_char(k)) {
            fail(w, JG_MODEL, "SubSystem '%s', parameter '%s': not a number, array or name", bp, k);
            goto done;
        }
        if (w->slx) {
            int od = d + 1 + (np > 1), dd = od + 1;
            if (np > 1)
                fprintf(w->f, "%*s<Object ObjectID=\"%lld\" ClassName=\"Simulink.MaskParameter\">\n",
                        depth_ind(od), "", (long long)++w->objid);
            else
                fprintf(w->f, "%*s<Object PropName=\"Parameters\" ObjectID=\"%lld\" "
                              "ClassName=\"Simulink.MaskParameter\">\n", depth_ind(od), "",
                        (long long)++w->objid);
            param(w, dd, "Type", "edit", 0);
            param(w, dd, "Name", k, 0);
            param(w, dd, "Prompt", k, 0);
            param(w, dd, "Value", v.s, 0);
            param(w, dd, "Evaluate", "on", 0);
            fprintf(w->f, "%*s</Object>\n", depth_ind(od), "");
        } else {
            if (strchr(v.s, '|')) {
                fail(w, JG_MODEL, "SubSystem '%s', parameter '%s': a '|' cannot be written in MaskValueString",
                     bp, k);
                goto done;
            }
            i++;
            if ((i > 1 && (buf_str(&prompts, "|") || buf_str(&vals, "|") || buf_str(&styles, ","))) ||
                buf_str(&prompts, k) || buf_str(&vals, v.s) || buf_str(&styles, "edit") ||
                buf_str(&vars, k) || buf_printf(&vars, "=@%zu;", i)) {
                nomem(w);
                goto done;
            }
        }
    }
    if (w->slx) {
        if (np > 1) fprintf(w->f, "%*s</Array>\n", depth_ind(d + 1), "");
        fprintf(w->f, "%*s</Object>\n", depth_ind(d), "");
    } else {
        param(w, d, "MaskPromptString", prompts.s, 0);
        param(w, d, "MaskStyleString", styles.s, 0);
        param(w, d, "MaskVariables", vars.s, 0);
        param(w, d, "MaskValueString", vals.s, 0);
    }
done:
    free(v.s), free(vars.s), free(vals.s), free(prompts.s), free(styles.s);
    return w->st;
}

static int is_port_flag(const char *k)
{
    return !strcmp(k, "ShowOutputPort") || !strcmp(k, "ShowSaturationPort") || !strcmp(k, "ShowStatePort");
}

static jg_status_t write_block(wr_t *w, const json_t *b, size_t i, sysidx_t *s, int d)
{
    const char *name = json_string_value(json_object_get(b, "name"));
    const char *type = json_string_value(json_object_get(b, "type"));
    char bp[1024];
    bpath(w, name, bp, sizeof bp);
    const sltype_t *t = find_type(type);
    if (!t) {
        if (!strcmp(type, "Ramp") || !strcmp(type, "PulseGenerator"))
            return fail(w, JG_MODEL, "block '%s' (%s): Simulink has no built-in BlockType for it (it is a "
                        "library block); the Simulink writer does not support it", bp, type);
        return fail(w, JG_MODEL, "block '%s': type '%s' has no Simulink BlockType", bp, type);
    }
    s->sid[i] = ++w->sid;
    char sid[32], ports[64], pos[96];
    snprintf(sid, sizeof sid, "%lld", (long long)s->sid[i]);
    int nin = s->maxin[i], nout = s->maxout[i];
    if (s->state[i]) {
        /* the Integrator's state port is Simulink's "state" port, not an output */
        nout--;
        snprintf(ports, sizeof ports, "[%d, %d, 0, 0, 1]", nin, nout);
    } else if (nout) snprintf(ports, sizeof ports, "[%d, %d]", nin, nout);
    else if (nin) snprintf(ports, sizeof ports, "[%d]", nin);
    else snprintf(ports, sizeof ports, "[]");
    int col = (int)(i % 8), row = (int)(i / 8);
    snprintf(pos, sizeof pos, "[%d, %d, %d, %d]", 100 + 120 * col, 50 + 80 * row, 140 + 120 * col, 90 + 80 * row);

    if (w->slx) {
        fprintf(w->f, "%*s<Block BlockType=\"%s\" Name=\"", depth_ind(d), "", t->sl);
        xml_esc(w, name, 1);
        fprintf(w->f, "\" SID=\"%s\">\n", sid);
    } else {
        open_sec(w, d, "Block");
        param(w, d + 1, "BlockType", t->sl, 1);
        param(w, d + 1, "Name", name, 0);
        param(w, d + 1, "SID", sid, 0);
    }
    param(w, d + 1, "Ports", ports, 1);
    param(w, d + 1, "Position", pos, 1);
    for (int k = 0; k < 3 && t->fixed[k].key; k++) param(w, d + 1, t->fixed[k].key, t->fixed[k].val, 0);
    for (int k = 0; k < 2 && t->dflt[k].key; k++)
        if (!json_object_get(b, t->dflt[k].key)) param(w, d + 1, t->dflt[k].key, t->dflt[k].val, 0);
    if (!strcmp(type, "Integrator") &&
        (json_object_get(b, "UpperSaturationLimit") || json_object_get(b, "LowerSaturationLimit")))
        param(w, d + 1, "LimitOutput", "on", 0);
    buf_t v = {0};
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)b, k, x) {
        if (!strcmp(k, "name") || !strcmp(k, "type") || !strcmp(k, "blocks") || !strcmp(k, "lines") ||
            !strcmp(k, "parameters"))
            continue;
        if (!*k || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != strlen(k)) {
            fail(w, JG_MODEL, "block '%s': parameter name '%s' is not a Simulink parameter name", bp, k);
            break;
        }
        v.n = 0;
        int r = is_port_flag(k) && (json_is_number(x) || json_is_boolean(x))
                    ? buf_str(&v, is_on(x) ? "on" : "off") : fmt_value(&v, x);
        if (r < 0) { nomem(w); break; }
        int c = r ? 0 : bad_char(v.s);
        if (r > 0 || c) {
            fail(w, JG_MODEL, "block '%s', parameter '%s': %s", bp, k,
                 c ? "holds a control character that Simulink files cannot hold"
                   : "not a number, array or string");
            break;
        }
        const char *key = k;
        if (t->ren[0].key && !strcmp(k, t->ren[0].key)) key = t->ren[0].val;
        param(w, d + 1, key, v.s, 0);
    }
    free(v.s);
    if (w->st) return w->st;
    if (!strcmp(type, "SubSystem")) {
        const json_t *params = json_object_get(b, "parameters");
        if (json_is_object(params) && write_mask(w, params, bp, d + 1)) return w->st;
        const json_t *bl = json_object_get(b, "blocks");
        if (!json_is_array(bl)) return fail(w, JG_MODEL, "SubSystem '%s': needs a \"blocks\" array", bp);
        size_t old = w->path.n;
        if ((w->path.n && buf_str(&w->path, "/")) || buf_str(&w->path, name)) return nomem(w);
        write_system(w, bl, json_object_get(b, "lines"), name, d + 1, 0, 0);
        w->path.n = old;
        if (w->path.s) w->path.s[old] = 0;
        if (w->st) return w->st;
    }
    if (w->slx) fprintf(w->f, "%*s</Block>\n", depth_ind(d), "");
    else close_sec(w, d);
    return JG_OK;
}

/* ------------------------------------------------------------ lines */

static void endpoint(wr_t *w, sysidx_t *s, int idx, int port, int out, char *buf, size_t n)
{
    int state = out && s->state[idx] && port == s->maxout[idx];
    if (w->slx) {
        if (state) snprintf(buf, n, "%lld#state", (long long)s->sid[idx]);
        else snprintf(buf, n, "%lld#%s:%d", (long long)s->sid[idx], out ? "out" : "in", port);
    } else if (state) snprintf(buf, n, "state");
    else snprintf(buf, n, "%d", port);
}

static void write_lines(wr_t *w, const json_t *blocks, sysidx_t *s, int d)
{
    char a[64], b[64];
    for (size_t k = 0; k < s->ne;) {
        size_t e = k;
        while (e < s->ne && s->e[e].group == s->e[k].group) e++;
        const edge_t *g = &s->e[k];
        const char *sname = json_string_value(json_object_get(json_array_get(blocks, (size_t)g->src), "name"));
        endpoint(w, s, g->src, g->sport, 1, a, sizeof a);
        if (w->slx) {
            open_el(w, d, "Line");
            param(w, d + 1, "Src", a, 0);
        } else {
            open_sec(w, d, "Line");
            param(w, d + 1, "SrcBlock", sname, 0);
            param(w, d + 1, "SrcPort", a, 1);
        }
        for (size_t j = k; j < e; j++) {
            int br = e - k > 1, dd = d + 1 + br;
            const char *dname =
                json_string_value(json_object_get(json_array_get(blocks, (size_t)s->e[j].dst), "name"));
            endpoint(w, s, s->e[j].dst, s->e[j].dport, 0, b, sizeof b);
            if (br) {
                if (w->slx) open_el(w, d + 1, "Branch");
                else open_sec(w, d + 1, "Branch");
            }
            if (w->slx) param(w, dd, "Dst", b, 0);
            else {
                param(w, dd, "DstBlock", dname, 0);
                param(w, dd, "DstPort", b, 1);
            }
            if (br) {
                if (w->slx) close_el(w, d + 1, "Branch");
                else close_sec(w, d + 1);
            }
        }
        if (w->slx) close_el(w, d, "Line");
        else close_sec(w, d);
        k = e;
    }
}

static jg_status_t write_system(wr_t *w, const json_t *blocks, const json_t *lines, const char *name, int d,
                                int root, int64_t nblocks_total)
{
    sysidx_t s;
    if (lines && !json_is_array(lines))
        return fail(w, JG_MODEL, "system '%s': \"lines\" must be an array", w->path.n ? w->path.s : "(root)");
    if (sys_index(w, blocks, lines, &s)) goto done;
    char hw[32];
    snprintf(hw, sizeof hw, "%lld", (long long)nblocks_total);
    if (w->slx) open_el(w, d, "System");
    else {
        open_sec(w, d, "System");
        param(w, d + 1, "Name", name, 0);
    }
    param(w, d + 1, "Location", "[100, 100, 1100, 800]", 1);
    param(w, d + 1, "Open", root ? "on" : "off", 1);
    param(w, d + 1, "ZoomFactor", "100", 0);
    if (root) param(w, d + 1, "SIDHighWatermark", hw, 0);
    for (size_t i = 0; i < s.n; i++)
        if (write_block(w, json_array_get(blocks, i), i, &s, d + 1)) goto done;
    write_lines(w, blocks, &s, d + 1);
    if (w->slx) close_el(w, d, "System");
    else close_sec(w, d);
done:
    sys_free(&s);
    return w->st;
}

/* ------------------------------------------------------------ whole model */

static int64_t count_blocks(const json_t *blocks)
{
    int64_t n = 0;
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        n++;
        const json_t *inner = json_object_get(b, "blocks");
        if (json_is_array(inner)) n += count_blocks(inner);
    }
    return n;
}

/* Which of our types occur (for BlockParameterDefaults), in table order. */
static void used_types(const json_t *blocks, char *used)
{
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *t = json_string_value(json_object_get(b, "type"));
        const sltype_t *st = t ? find_type(t) : NULL;
        if (st) used[st - types] = 1;
        const json_t *inner = json_object_get(b, "blocks");
        if (json_is_array(inner)) used_types(inner, used);
    }
}

static void write_bpd(wr_t *w, const json_t *blocks, int d)
{
    char used[NTYPES] = {0};
    used_types(blocks, used);
    if (w->slx) open_el(w, d, "BlockParameterDefaults");
    else open_sec(w, d, "BlockParameterDefaults");
    for (int k = 0; k < NTYPES; k++) {
        if (!used[k]) continue;
        /* Lookup1D and Lookup2D share one Simulink type */
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= used[j] && !strcmp(types[j].sl, types[k].sl);
        if (dup) continue;
        if (w->slx) fprintf(w->f, "%*s<Block BlockType=\"%s\">\n", depth_ind(d + 1), "", types[k].sl);
        else {
            open_sec(w, d + 1, "Block");
            param(w, d + 2, "BlockType", types[k].sl, 1);
        }
        for (int j = 0; j < 9 && types[k].bpd[j].key; j++) param(w, d + 2, types[k].bpd[j].key, types[k].bpd[j].val, 0);
        if (w->slx) close_el(w, d + 1, "Block");
        else close_sec(w, d + 1);
    }
    if (w->slx) close_el(w, d, "BlockParameterDefaults");
    else close_sec(w, d);
}

/* The root "parameters" as MATLAB assignments.  Values first, then names
 * that alias other entries, each after the entry it names (a script runs in
 * order). */
static jg_status_t init_fcn(wr_t *w, const json_t *params, buf_t *out)
{
    size_t np = json_object_size(params);
    if (!np) return JG_OK;
    char *done = calloc(np, 1);
    json_t *defined = json_object();
    buf_t v = {0};
    if (!done || !defined) { nomem(w); goto end; }
    for (int pass = 0, progress = 1; progress; pass++) {
        progress = 0;
        const char *k;
        json_t *x;
        size_t i = 0;
        json_object_foreach((json_t *)params, k, x) {
            size_t me = i++;
            if (done[me]) continue;
            int alias = json_is_string(x);
            if (alias && pass > 0 && !json_object_get(defined, json_string_value(x)) &&
                json_object_get(params, json_string_value(x)))
                continue;                       /* its target comes later */
            if (alias && pass == 0) continue;
            if (bad_char(k) || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                strlen(k)) {
                fail(w, JG_MODEL, "model parameter '%s': not a MATLAB variable name", k);
                goto end;
            }
            v.n = 0;
            int r = fmt_value(&v, x);
            if (r < 0) { nomem(w); goto end; }
            if (r > 0 || bad_char(v.s)) {
                fail(w, JG_MODEL, "model parameter '%s': not a number, array or name", k);
                goto end;
            }
            if (buf_str(out, k) || buf_str(out, " = ") || buf_str(out, v.s) || buf_str(out, ";\n") ||
                json_object_set_new(defined, k, json_true())) {
                nomem(w);
                goto end;
            }
            done[me] = 1;
            progress = 1;
        }
        if (!progress && pass == 0) progress = 1;
    }
    /* aliases in a cycle: written as they are (jacgraph reports the cycle) */
    {
        const char *k;
        json_t *x;
        size_t i = 0;
        json_object_foreach((json_t *)params, k, x) {
            if (done[i++]) continue;
            if (buf_str(out, k) || buf_str(out, " = ") || buf_str(out, json_string_value(x)) ||
                buf_str(out, ";\n")) {
                nomem(w);
                goto end;
            }
        }
    }
end:
    free(done);
    free(v.s);
    json_decref(defined);
    return w->st;
}

/* The model stem: file name without directories and extension. */
static void model_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
    if (!*out) snprintf(out, n, "model");
}

static jg_status_t write_mdl(wr_t *w, const json_t *root, const char *name, const char *initfcn)
{
    const json_t *blocks = json_object_get(root, "blocks");
    const char *desc = json_string_value(json_object_get(root, "description"));
    open_sec(w, 0, "Model");
    param(w, 1, "Name", name, 0);
    param(w, 1, "Version", "8.1", 1);
    param(w, 1, "MdlSubVersion", "0", 1);
    param(w, 1, "SavedCharacterEncoding", "UTF-8", 0);
    if (desc && !bad_char(desc)) param(w, 1, "Description", desc, 0);
    param(w, 1, "Creator", "jacgraph", 0);
    param(w, 1, "MaxMDLFileLineLength", "120", 1);
    if (initfcn && *initfcn) param(w, 1, "InitFcn", initfcn, 0);
    param(w, 1, "Solver", "ode45", 0);
    param(w, 1, "StartTime", "0.0", 0);
    param(w, 1, "StopTime", "10.0", 0);
    open_sec(w, 1, "BlockDefaults");
    param(w, 2, "ForegroundColor", "black", 0);
    param(w, 2, "BackgroundColor", "white", 0);
    param(w, 2, "ShowName", "on", 1);
    close_sec(w, 1);
    open_sec(w, 1, "MaskParameterDefaults");
    param(w, 2, "Evaluate", "on", 1);
    param(w, 2, "Tunable", "on", 1);
    close_sec(w, 1);
    write_bpd(w, blocks, 1);
    write_system(w, blocks, json_object_get(root, "lines"), name, 1, 1, count_blocks(blocks));
    close_sec(w, 0);
    return w->st;
}

static jg_status_t write_blockdiagram(wr_t *w, const json_t *root, const char *initfcn)
{
    const json_t *blocks = json_object_get(root, "blocks");
    const char *desc = json_string_value(json_object_get(root, "description"));
    fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ModelInformation Version=\"1.0\">\n  <Model>\n", w->f);
    param(w, 2, "SavedCharacterEncoding", "UTF-8", 0);
    param(w, 2, "SLXCompressionType", "Normal", 0);
    param(w, 2, "MaxMDLFileLineLength", "120", 0);
    if (desc && !bad_char(desc)) param(w, 2, "Description", desc, 0);
    param(w, 2, "Creator", "jacgraph", 0);
    if (initfcn && *initfcn) param(w, 2, "InitFcn", initfcn, 0);
    write_system(w, blocks, json_object_get(root, "lines"), NULL, 2, 1, count_blocks(blocks));
    fputs("  </Model>\n</ModelInformation>\n", w->f);
    return w->st;
}

static jg_status_t write_bddefaults(wr_t *w, const json_t *root)
{
    fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<BlockDiagramDefaults>\n", w->f);
    open_el(w, 1, "BlockDefaults");
    param(w, 2, "ForegroundColor", "black", 0);
    param(w, 2, "BackgroundColor", "white", 0);
    param(w, 2, "ShowName", "on", 0);
    close_el(w, 1, "BlockDefaults");
    open_el(w, 1, "MaskParameterDefaults");
    param(w, 2, "Evaluate", "on", 0);
    param(w, 2, "Tunable", "on", 0);
    close_el(w, 1, "MaskParameterDefaults");
    write_bpd(w, json_object_get(root, "blocks"), 1);
    fputs("</BlockDiagramDefaults>\n", w->f);
    return w->st;
}

#define XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?>"
static const char content_types[] =
    XML_HEAD "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
    "<Default ContentType=\"application/vnd.openxmlformats-package.relationships+xml\" Extension=\"rels\"/>"
    "<Default ContentType=\"application/vnd.mathworks.simulink.mdl+xml\" Extension=\"xml\"/>"
    "<Override ContentType=\"application/vnd.openxmlformats-package.core-properties+xml\" "
    "PartName=\"/metadata/coreProperties.xml\"/>"
    "<Override ContentType=\"application/vnd.mathworks.package.coreProperties+xml\" "
    "PartName=\"/metadata/mwcoreProperties.xml\"/>"
    "<Override ContentType=\"application/vnd.mathworks.simulink.blockDiagramDefaults+xml\" "
    "PartName=\"/simulink/bddefaults.xml\"/></Types>";
static const char rels[] =
    XML_HEAD "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"blockDiagram\" Target=\"simulink/blockdiagram.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2010/relationships/blockDiagram\"/>"
    "<Relationship Id=\"coreprops\" Target=\"metadata/coreProperties.xml\" "
    "Type=\"http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties\"/>"
    "<Relationship Id=\"rId1\" Target=\"metadata/mwcoreProperties.xml\" "
    "Type=\"http://schemas.mathworks.com/package/2012/relationships/coreProperties\"/></Relationships>";
static const char bd_rels[] =
    XML_HEAD "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"blockDiagramDefaults\" Target=\"bddefaults.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2017/relationships/blockDiagramDefaults\"/></Relationships>";
static const char core_props[] =
    XML_HEAD "<cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" "
    "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:dcmitype=\"http://purl.org/dc/dcmitype/\" "
    "xmlns:dcterms=\"http://purl.org/dc/terms/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">"
    "<cp:category>model</cp:category><dc:creator>jacgraph</dc:creator>"
    "<cp:revision>1.0</cp:revision><cp:version>R2019b</cp:version></cp:coreProperties>";
static const char mwcore_props[] =
    XML_HEAD "<mwcoreProperties xmlns=\"http://schemas.mathworks.com/package/2012/coreProperties\">"
    "<contentType>application/vnd.mathworks.simulink.model</contentType>"
    "<contentTypeFriendlyName>Simulink Model</contentTypeFriendlyName>"
    "<matlabRelease>R2019b</matlabRelease></mwcoreProperties>";

/* A fixed member time keeps the package bytes a function of the model. */
#define SLX_MTIME ((time_t)1567296000) /* 2019-09-01 */

static int zip_add_file(zip_t *za, const char *name, zip_source_t *src)
{
    zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
        zip_source_free(src);
        return -1;
    }
    /* deflate level 1: the XML is repetitive, so it still shrinks ~10x, at
     * half the default level's time */
    if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 1) < 0) return -1;
    return zip_file_set_mtime(za, (zip_uint64_t)idx, SLX_MTIME, 0) < 0 ? -1 : 0;
}

static int zip_add_mem(zip_t *za, const char *name, const char *data)
{
    zip_source_t *src = zip_source_buffer(za, data, strlen(data), 0);
    return src ? zip_add_file(za, name, src) : -1;
}

/* Write a system-describing part into a temporary file and hand it to the
 * archive (which closes it). */
static jg_status_t zip_add_part(wr_t *w, zip_t *za, const char *name,
                                jg_status_t (*fn)(wr_t *, const json_t *, const char *), const json_t *root,
                                const char *initfcn, const char *path)
{
    FILE *t = tmpfile();
    if (!t) return fail(w, JG_IO, "%s: cannot create a temporary file: %s", path, strerror(errno));
    w->f = t;
    fn(w, root, initfcn);
    w->f = NULL;
    if (w->st) {
        fclose(t);
        return w->st;
    }
    if (fflush(t) || ferror(t) || fseeko(t, 0, SEEK_SET)) {
        fclose(t);
        return fail(w, JG_IO, "%s: writing the temporary file for %s failed", path, name);
    }
    zip_source_t *src = zip_source_filep(za, t, 0, -1) /* to the end */;
    if (!src) {
        fclose(t);
        return fail(w, JG_IO, "%s: %s", path, zip_strerror(za));
    }
    if (zip_add_file(za, name, src)) return fail(w, JG_IO, "%s: %s", path, zip_strerror(za));
    return JG_OK;
}

static jg_status_t bdd_part(wr_t *w, const json_t *root, const char *initfcn)
{
    (void)initfcn;
    return write_bddefaults(w, root);
}

static jg_status_t write_slx(wr_t *w, const json_t *root, const char *path, const char *initfcn)
{
    int zerr = 0;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        fail(w, JG_IO, "cannot write '%s': %s", path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return w->st;
    }
    if (zip_add_mem(za, "[Content_Types].xml", content_types) || zip_add_mem(za, "_rels/.rels", rels) ||
        zip_add_mem(za, "metadata/coreProperties.xml", core_props) ||
        zip_add_mem(za, "metadata/mwcoreProperties.xml", mwcore_props) ||
        zip_add_mem(za, "simulink/_rels/blockdiagram.xml.rels", bd_rels)) {
        fail(w, JG_IO, "%s: %s", path, zip_strerror(za));
        goto done;
    }
    if (zip_add_part(w, za, "simulink/bddefaults.xml", bdd_part, root, initfcn, path) ||
        zip_add_part(w, za, "simulink/blockdiagram.xml", write_blockdiagram, root, initfcn, path))
        goto done;
    if (zip_close(za) < 0) {
        fail(w, JG_IO, "cannot write '%s': %s", path, zip_strerror(za));
        goto done;
    }
    za = NULL;
done:
    if (za) zip_discard(za);
    return w->st;
}

jg_status_t jg_io_write_simulink(const char *json_text, size_t len, int format, const char *path,
                                 jg_error_t *err)
{
    wr_t w;
    memset(&w, 0, sizeof w);
    w.err = err;
    json_t *root = NULL;
    buf_t init = {0};
    FILE *f = NULL;
    if (!json_text || !path || !*path) return jg_error_set(err, JG_ARG, "Simulink writer: no model or no path");
    if (format != JG_SL_WRITE_MDL && format != JG_SL_WRITE_SLX)
        return jg_error_set(err, JG_ARG, "Simulink writer: unknown format %d", format);
    w.slx = format == JG_SL_WRITE_SLX;
    json_error_t je;
    root = json_loadb(json_text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        fail(&w, JG_PARSE, "model JSON:%d:%d: %s", je.line, je.column, je.text);
        goto done;
    }
    if (!json_is_object(root) || !json_is_array(json_object_get(root, "blocks"))) {
        fail(&w, JG_MODEL, "model JSON: expected an object with a \"blocks\" array");
        goto done;
    }
    const json_t *params = json_object_get(root, "parameters");
    if (params && !json_is_object(params)) {
        fail(&w, JG_MODEL, "model JSON: \"parameters\" must be an object");
        goto done;
    }
    if (params && init_fcn(&w, params, &init)) goto done;
    char name[256];
    model_name(path, name, sizeof name);
    if (w.slx) write_slx(&w, root, path, init.s);
    else {
        f = fopen(path, "w");
        if (!f) {
            fail(&w, JG_IO, "cannot write '%s': %s", path, strerror(errno));
            goto done;
        }
        w.f = f;
        write_mdl(&w, root, name, init.s);
        int bad = ferror(f);
        bad |= fclose(f) != 0;
        f = NULL;
        if (bad && !w.st) fail(&w, JG_IO, "writing '%s' failed", path);
        if (w.st) jg__io_discard(path);
    }
done:
    json_decref(root);
    free(init.s);
    free(w.path.s);
    return w.st;
}
