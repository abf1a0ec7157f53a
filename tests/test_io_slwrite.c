/* Tests of jg_io_write_simulink (lib/io/slwrite.c): the MDL and SLX text of a
 * hand-made model (escapes, values, masks, InitFcn, branches, type mapping,
 * defaults that differ from Simulink's), refusals and bad inputs, and every
 * JSON model in graphs/ written as MDL and SLX and read back with jg_import_load:
 * the linearization must equal the JSON model's (names equal, 1e-12). */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/import.h"
#include "jacgraph/io.h"
#include "testlib.h"

static char tmpdir[256];   /* a scratch directory of this run */

/* A part of an SLX package, NUL-terminated (NULL: missing). */
static char *zip_part(const char *path, const char *name)
{
    int e;
    zip_t *z = zip_open(path, ZIP_RDONLY, &e);
    if (!z) return NULL;
    char *b = NULL;
    zip_stat_t st;
    zip_file_t *f = NULL;
    if (zip_stat(z, name, 0, &st) == 0 && (f = zip_fopen(z, name, 0)) && (b = malloc(st.size + 1))) {
        if (zip_fread(f, b, st.size) != (zip_int64_t)st.size) {
            free(b);
            b = NULL;
        } else b[st.size] = 0;
    }
    if (f) zip_fclose(f);
    zip_close(z);
    return b;
}

static jg_status_t write_str(const char *json, int fmt, const char *path, jg_error_t *err)
{
    return jg_io_write_simulink(json, strlen(json), fmt, path, err);
}

static int has(const char *text, const char *s)
{
    int ok = text && strstr(text, s);
    if (!ok) printf("#   missing: %s\n", s);
    return ok;
}

/* A model with everything the writer has to encode. */
static const char tricky[] =
    "{\"name\": \"tricky\", \"description\": \"a <small> & \\\"tricky\\\" model\",\n"
    " \"parameters\": {\"kk\": \"k\", \"k\": 0.1, \"A\": [[1, 2], [3, 4]]},\n"
    " \"blocks\": [\n"
    "  {\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},\n"
    "  {\"name\": \"a\\\"b\\\\c\\nd <&>\", \"type\": \"Gain\", \"Gain\": \"kk\"},\n"
    "  {\"name\": \"Sat\", \"type\": \"Saturation\", \"UpperLimit\": 1e-300, \"LowerLimit\": -2},\n"
    "  {\"name\": \"TF\", \"type\": \"TransferFcn\", \"Numerator\": [1]},\n"
    "  {\"name\": \"Sub\", \"type\": \"SubSystem\", \"parameters\": {\"g\": [0.5, 1], \"h\": 3},\n"
    "   \"blocks\": [{\"name\": \"i\", \"type\": \"Inport\", \"Port\": 1},\n"
    "              {\"name\": \"G\", \"type\": \"Gain\", \"Gain\": \"h\"},\n"
    "              {\"name\": \"o\", \"type\": \"Outport\", \"Port\": 1}],\n"
    "   \"lines\": [{\"src\": \"i:1\", \"dst\": \"G:1\"}, {\"src\": \"G:1\", \"dst\": \"o:1\"}]},\n"
    "  {\"name\": \"X\", \"type\": \"Mux\"},\n"
    "  {\"name\": \"SS\", \"type\": \"StateSpace\", \"A\": \"A\", \"B\": [[1, 0], [0, 1]], \"C\": [[1, 0]],\n"
    "   \"D\": [[0, 0]],\n"
    "   \"InitialCondition\": [1, 2]},\n"
    "  {\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1},\n"
    "  {\"name\": \"Out2\", \"type\": \"Outport\", \"Port\": 2}\n"
    " ],\n"
    " \"lines\": [\n"
    "  {\"src\": \"In1:1\", \"dst\": [\"a\\\"b\\\\c\\nd <&>:1\", \"Sat:1\"]},\n"
    "  {\"src\": \"In1:1\", \"dst\": \"TF:1\"},\n"
    "  {\"src\": \"TF:1\", \"dst\": \"Sub:1\"},\n"
    "  {\"src\": \"Sub:1\", \"dst\": \"X:1\"}, {\"src\": \"Sat:1\", \"dst\": \"X:2\"},\n"
    "  {\"src\": \"X:1\", \"dst\": \"SS:1\"},\n"
    "  {\"src\": \"SS:1\", \"dst\": \"Out1:1\"},\n"
    "  {\"src\": \"a\\\"b\\\\c\\nd <&>:1\", \"dst\": \"Out2:1\"}\n"
    " ]}\n";

static void test_mdl_text(void)
{
    char path[512];
    jg_error_t err;
    snprintf(path, sizeof path, "%s/tricky.mdl", tmpdir);
    tap_ok(write_str(tricky, JG_SL_WRITE_MDL, path, &err) == JG_OK, "tricky model written as MDL");
    char *t = tl_slurp(path, NULL);
    tap_ok(t && !strncmp(t, "Model {\n  Name\t\"tricky\"\n  Version\t8.1\n", 37), "MDL starts with Model, Name, Version");
    tap_ok(has(t, "Description\t\"a <small> & \\\"tricky\\\" model\""), "description quoted with escapes");
    tap_ok(has(t, "InitFcn\t\"k = 0.1;\\nA = [1 2;3 4];\\nkk = k;\\n\""),
           "root parameters become InitFcn, an alias after its target");
    tap_ok(has(t, "Name\t\"a\\\"b\\\\c\\nd <&>\""), "block name escapes quote, backslash and newline");
    tap_ok(has(t, "BlockType\tSaturate") && has(t, "UpperLimit\t\"1e-300\""), "Saturation -> Saturate, 1e-300");
    tap_ok(has(t, "Denominator\t\"[1 1]\""), "TransferFcn's jacgraph default Denominator is written");
    tap_ok(has(t, "Inputs\t\"2\""), "Mux's jacgraph default Inputs is written");
    tap_ok(has(t, "X0\t\"[1 2]\"") && has(t, "D\t\"[0 0]\"") && has(t, "A\t\"A\""),
           "StateSpace: InitialCondition -> X0, row vector, workspace name");
    tap_ok(has(t, "MaskVariables\t\"g=@1;h=@2;\"") && has(t, "MaskValueString\t\"[0.5 1]|3\""),
           "SubSystem parameters become a mask");
    tap_ok(has(t, "SrcBlock\t\"In1\"\n      SrcPort\t1\n      Branch {\n        DstBlock\t\"a\\\"b\\\\c\\nd <&>\""),
           "two lines from one port merge into one Line with Branches");
    tap_ok(has(t, "Ports\t[1, 1]") && has(t, "Ports\t[0, 1]") && has(t, "Ports\t[2, 1]"), "Ports written");
    tap_ok(has(t, "SIDHighWatermark\t\"12\""), "SIDHighWatermark counts every block");
    /* Description longer than one line is split into quoted pieces */
    free(t);
}

static void test_slx_text(void)
{
    char path[512];
    jg_error_t err;
    snprintf(path, sizeof path, "%s/tricky.slx", tmpdir);
    tap_ok(write_str(tricky, JG_SL_WRITE_SLX, path, &err) == JG_OK, "tricky model written as SLX");
    char *ct = zip_part(path, "[Content_Types].xml"), *rels = zip_part(path, "_rels/.rels");
    char *core = zip_part(path, "metadata/coreProperties.xml");
    char *bd = zip_part(path, "simulink/blockdiagram.xml"), *bdd = zip_part(path, "simulink/bddefaults.xml");
    tap_ok(ct && rels && core && bd && bdd, "SLX holds the package parts");
    tap_ok(has(rels, "Target=\"simulink/blockdiagram.xml\"") &&
           has(rels, "http://schemas.mathworks.com/simulink/2010/relationships/blockDiagram"),
           "the blockDiagram relationship");
    tap_ok(has(core, "<cp:version>R2019b</cp:version>"), "coreProperties says R2019b");
    tap_ok(has(bd, "<Block BlockType=\"Gain\" Name=\"a&quot;b\\c&#xA;d &lt;&amp;&gt;\" SID=\"2\">"),
           "XML attribute escapes");
    tap_ok(has(bd, "<P Name=\"InitFcn\">k = 0.1;\nA = [1 2;3 4];\nkk = k;\n</P>"), "InitFcn as <P>");
    tap_ok(has(bd, "<P Name=\"Src\">1#out:1</P>") && has(bd, "<Branch>") && has(bd, "<P Name=\"Dst\">2#in:1</P>"),
           "Src/Dst endpoints by SID, Branches");
    tap_ok(has(bd, "ClassName=\"Simulink.Mask\"") && has(bd, "Type=\"Simulink.MaskParameter\" Dimension=\"1*2\"") &&
           has(bd, "<P Name=\"Name\">g</P>") && has(bd, "<P Name=\"Value\">[0.5 1]</P>"),
           "mask object with two parameters");
    tap_ok(has(bdd, "<BlockParameterDefaults>") && has(bdd, "<Block BlockType=\"TransferFcn\">"),
           "BlockParameterDefaults in bddefaults.xml");
    free(ct), free(rels), free(core), free(bd), free(bdd);
}

static void expect_fail(const char *json, int fmt, const char *file, jg_status_t st, const char *msg,
                        const char *name)
{
    char path[512];
    jg_error_t err;
    memset(&err, 0, sizeof err);
    if (file[0] == '/') snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%s/%s", tmpdir, file);
    jg_status_t got = json ? write_str(json, fmt, path, &err) : jg_io_write_simulink(NULL, 0, fmt, path, &err);
    int ok = got == st && strstr(err.msg, msg);
    if (!tap_ok(ok, "%s", name)) printf("#   status %d, message '%s'\n", (int)got, err.msg);
    tap_ok(access(path, F_OK) != 0 || file[0] == '/', "%s: no file left", name);
}

static void test_bad(void)
{
    expect_fail("{\"blocks\": [{\"name\": \"R\", \"type\": \"Ramp\"}]}", JG_SL_WRITE_MDL, "r.mdl", JG_MODEL,
                "block 'R' (Ramp): Simulink has no built-in BlockType", "Ramp is refused");
    expect_fail("{\"blocks\": [{\"name\": \"S\", \"type\": \"SubSystem\", \"blocks\": "
                "[{\"name\": \"P\", \"type\": \"PulseGenerator\"}]}]}", JG_SL_WRITE_SLX, "p.slx", JG_MODEL,
                "block 'S/P' (PulseGenerator)", "PulseGenerator inside a SubSystem is refused with its path");
    expect_fail("{\"blocks\": [{\"name\": \"Q\", \"type\": \"PredPrey\"}]}", JG_SL_WRITE_MDL, "q.mdl", JG_MODEL,
                "type 'PredPrey' has no Simulink BlockType", "plugin types are refused");
    expect_fail("{\"blocks\": [", JG_SL_WRITE_MDL, "j.mdl", JG_PARSE, "model JSON:1:", "malformed JSON");
    expect_fail("[1]", JG_SL_WRITE_MDL, "a.mdl", JG_MODEL, "\"blocks\" array", "not a model object");
    expect_fail("{\"blocks\": [{\"name\": \"a\\u0001\", \"type\": \"Gain\"}]}", JG_SL_WRITE_SLX, "c.slx",
                JG_MODEL, "control character 0x01", "control characters in names");
    expect_fail("{\"blocks\": [{\"name\": \"a\", \"type\": \"Gain\"}], \"lines\": [{\"src\": \"a:1\", "
                "\"dst\": \"b:1\"}]}", JG_SL_WRITE_MDL, "l.mdl", JG_MODEL, "line 1: no block 'b'",
                "a line to an unknown block");
    expect_fail("{\"blocks\": [{\"name\": \"a\", \"type\": \"Gain\"}], \"lines\": [{\"src\": \"a\", "
                "\"dst\": \"a:1\"}]}", JG_SL_WRITE_MDL, "l2.mdl", JG_MODEL, "src must be \"BLOCK:N\"",
                "a source without a port");
    expect_fail("{\"blocks\": [{\"name\": \"S\", \"type\": \"SubSystem\", \"parameters\": {\"m\": \"a|b\"}, "
                "\"blocks\": []}]}", JG_SL_WRITE_MDL, "m.mdl", JG_MODEL, "'|' cannot be written",
                "a '|' in a MDL mask value");
    expect_fail("{\"blocks\": []}", 7, "f.mdl", JG_ARG, "unknown format 7", "unknown format");
    expect_fail(NULL, JG_SL_WRITE_MDL, "n.mdl", JG_ARG, "no model", "no JSON text");
    expect_fail("{\"blocks\": []}", JG_SL_WRITE_MDL, "/nonexistent-dir/x.mdl", JG_IO,
                "cannot write '/nonexistent-dir/x.mdl'", "unwritable MDL path");
    expect_fail("{\"blocks\": []}", JG_SL_WRITE_SLX, "/nonexistent-dir/x.slx", JG_IO,
                "'/nonexistent-dir/x.slx'", "unwritable SLX path");
}

static jg_status_t lin_of(const char *path, int import, jg_lin_sys_t **out, jg_error_t *err)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_import_opts_t o;
    memset(&o, 0, sizeof o);
    jg_status_t st = import ? jg_import_load(path, &o, &m, err) : jg_model_read(path, &m, err);
    if (st == JG_OK) st = jg_program_compile(m, &p, err);
    if (st == JG_OK) st = jg_lin_create(p, NULL, &l, err);
    if (st == JG_OK) st = jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, out, NULL, err);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return st;
}

static int same_names(char **a, char **b, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (strcmp(a[k] ? a[k] : "", b[k] ? b[k] : "")) return 0;
    return 1;
}

/* path written as fmt and read back linearizes like the JSON file */
static void roundtrip(const char *json_path, const char *label)
{
    size_t len;
    char *text = tl_slurp(json_path, &len);
    jg_lin_sys_t *ref = NULL;
    jg_error_t err;
    if (text && jg_io_write_simulink(text, len, JG_SL_WRITE_MDL, "/dev/null", &err) == JG_MODEL &&
        strstr(err.msg, "has no Simulink BlockType")) {
        tap_ok(1, "%s: refused (%s) # SKIP no Simulink equivalent", label, err.msg);
        free(text);
        return;
    }
    if (!tap_ok(text && lin_of(json_path, 0, &ref, &err) == JG_OK, "%s: JSON linearizes", label)) {
        printf("#   %s\n", err.msg);
        free(text);
        return;
    }
    for (int fmt = JG_SL_WRITE_MDL; fmt <= JG_SL_WRITE_SLX; fmt++) {
        char out[512];
        const char *ext = fmt == JG_SL_WRITE_MDL ? "mdl" : "slx";
        const char *b = strrchr(json_path, '/');
        snprintf(out, sizeof out, "%s/%.*s.%s", tmpdir, (int)strcspn(b ? b + 1 : json_path, "."),
                 b ? b + 1 : json_path, ext);
        jg_status_t st = jg_io_write_simulink(text, len, fmt, out, &err);
        if (!tap_ok(st == JG_OK, "%s written as %s", label, ext)) {
            printf("#   %s\n", err.msg);
            continue;
        }
        jg_lin_sys_t *s = NULL;
        st = lin_of(out, 1, &s, &err);
        int ok = st == JG_OK && s->nx == ref->nx && s->nu == ref->nu && s->ny == ref->ny &&
                 same_names(s->state_names, ref->state_names, s->nx) &&
                 same_names(s->input_names, ref->input_names, s->nu) &&
                 same_names(s->output_names, ref->output_names, s->ny);
        const char *which = "";
        double diff = ok ? jg_lin_sys_diff(s, ref, &which) : 0;
        if (!tap_ok(ok && diff <= 1e-12, "%s as %s linearizes like the JSON", label, ext)) {
            if (st != JG_OK) printf("#   %s\n", err.msg);
            else if (!ok) printf("#   sizes or names differ\n");
            else printf("#   %s differs by %g\n", which, diff);
        }
        jg_lin_sys_free(s);
    }
    jg_lin_sys_free(ref);
    free(text);
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_io_slwrite")) return 1;
    test_mdl_text();
    test_slx_text();
    test_bad();
    char path[512];
    snprintf(path, sizeof path, "%s/tricky.json", tmpdir);
    FILE *f = fopen(path, "w");
    if (f) fputs(tricky, f), fclose(f);
    roundtrip(path, "tricky");
    /* every shipped model, in name order */
    DIR *d = opendir("graphs");
    char *names[256];
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    tap_ok(n > 10, "graphs/*.json found (%d)", n);
    qsort(names, (size_t)n, sizeof *names, tl_cmp_str);
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "graphs/%s", names[k]);
        roundtrip(path, path);
        free(names[k]);
    }
    /* clean up the scratch directory */
    d = opendir(tmpdir);
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(tmpdir);
    return tap_done();
}
