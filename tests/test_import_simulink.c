/* Simulink import (lib/import) end to end: hand-written models in each
 * encoding, imported and linearized against hand derivations; masks,
 * workspaces, library links, model references, substitution, the list of
 * unsupported blocks; and, where the external corpus of real models is
 * present beside the repository, the facts derived by hand for those models.
 * Runs from the repository root. */
#define _GNU_SOURCE
#include <complex.h>
#include <dirent.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

static char tmpdir[256];

static char *tmpfile_path(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* An SLX package from (part name, text) pairs, NULL-terminated. */
static int write_slx(const char *path, const char *const *parts)
{
    int e;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
    if (!z) return -1;
    for (int k = 0; parts[k]; k += 2) {
        zip_source_t *s = zip_source_buffer(z, parts[k + 1], strlen(parts[k + 1]), 0);
        if (!s || zip_file_add(z, parts[k], s, ZIP_FL_OVERWRITE) < 0) {
            zip_discard(z);
            return -1;
        }
    }
    return zip_close(z);
}

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_lin_t *l;
    jg_lin_sys_t *s;
    jg_error_t err;
    jg_status_t st;
} lin_t;

static void lin_free(lin_t *r)
{
    jg_lin_sys_free(r->s);
    jg_lin_free(r->l);
    jg_program_free(r->p);
    jg_model_free(r->m);
}

static void warn_sink(void *ctx, const char *msg)
{
    (void)ctx;
    printf("# warning: %s\n", msg);
}

/* Import, compile and linearize (graph method, Markowitz) at the default
 * operating point. */
static lin_t linearize(const char *path, const jg_import_opts_t *o)
{
    lin_t r = {0};
    jg_import_opts_t dflt = {.warn = warn_sink};
    r.st = jg_import_load(path, o ? o : &dflt, &r.m, &r.err);
    if (!r.st) r.st = jg_program_compile(r.m, &r.p, &r.err);
    if (!r.st) r.st = jg_lin_create(r.p, NULL, &r.l, &r.err);
    if (!r.st) r.st = jg_lin_run(r.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &r.s, NULL, &r.err);
    if (r.st) printf("# %s: %s\n", path, r.err.msg);
    return r;
}

static int64_t index_of(char **names, int64_t n, const char *name)
{
    for (int64_t k = 0; k < n; k++)
        if (!strcmp(names[k], name)) return k;
    return -1;
}

/* Eigenvalues of the dense A, sorted by real then imaginary part. */
static int cmp_c(const void *a, const void *b)
{
    const double complex *x = a, *y = b;
    if (fabs(creal(*x) - creal(*y)) > 1e-9) return creal(*x) < creal(*y) ? -1 : 1;
    return cimag(*x) < cimag(*y) ? -1 : cimag(*x) > cimag(*y);
}

static int eigenvalues(const jg_lin_sys_t *s, double complex *ev)
{
    int64_t n = s->nx;
    double *a = calloc((size_t)(n * n + 1), sizeof *a), *wr = malloc(sizeof(double) * (size_t)(n + 1)),
           *wi = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = s->A->p[j]; k < s->A->p[j + 1]; k++) a[s->A->i[k] * n + j] = s->A->x[k];
    int info = n ? LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', (int)n, a, (int)n, wr, wi, NULL, 1,
                                 NULL, 1)
                 : 0;
    for (int64_t k = 0; k < n; k++) ev[k] = wr[k] + I * wi[k];
    qsort(ev, (size_t)n, sizeof *ev, cmp_c);
    free(a);
    free(wr);
    free(wi);
    return info;
}

/* Every expected eigenvalue appears (within tol), as many times as listed. */
static int same_spectrum(const jg_lin_sys_t *s, const double complex *want, int n, double tol,
                         const char *what)
{
    double complex ev[64];
    if (s->nx != n || n > 64) {
        tap_ok(0, "%s: %d eigenvalues", what, n);
        printf("#   got %lld states\n", (long long)s->nx);
        return 0;
    }
    eigenvalues(s, ev);
    int used[64] = {0}, ok = 1;
    for (int k = 0; k < n; k++) {
        int hit = 0;
        for (int q = 0; q < n && !hit; q++)
            if (!used[q] && cabs(ev[q] - want[k]) <= tol * fmax(1, cabs(want[k]))) used[q] = hit = 1;
        ok &= hit;
    }
    if (!tap_ok(ok, "%s: eigenvalues", what))
        for (int k = 0; k < n; k++) printf("#   %g%+gj\n", creal(ev[k]), cimag(ev[k]));
    return ok;
}

/* ---- the hand-written mass-spring-damper in three encodings ---- */

static void check_msd(const lin_t *r, const char *what)
{
    if (!tap_ok(!r->st, "%s imports and linearizes", what)) return;
    const jg_lin_sys_t *s = r->s;
    int64_t v = index_of(s->state_names, s->nx, "v"), x = index_of(s->state_names, s->nx, "x");
    tap_ok(s->nx == 2 && v >= 0 && x >= 0, "%s: states v and x", what);
    if (v < 0 || x < 0) return;
    /* m = 2, k = 8 (through the mask), c = 1.2: v' = (F - c v - k x)/m */
    tap_near(fx_entry(s->A, x, v), 1, 1e-15, "x' = v");
    tap_near(fx_entry(s->A, v, x), -4, 1e-15, "v' has -k/m x (mask parameter k = kspring)");
    tap_near(fx_entry(s->A, v, v), -0.6, 1e-15, "v' has -c/m v (InitFcn values)");
    tap_near(fx_entry(s->B, v, 0), 0.5, 1e-15, "B = 1/m (a block named '1/m')");
    tap_ok(s->ny == 2 && s->nu == 1, "%s: 1 input, 2 outputs", what);
    tap_near(fx_entry(s->C, 0, x), 1, 1e-15, "output 1 is x");
    tap_near(fx_entry(s->C, 1, x), 3, 1e-15, "output 2 is the Fcn 3*u[1]");
}

static const char *msd_blockdiagram_inline =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<ModelInformation Version=\"1.0\">\n"
    "<Model Name=\"msd\">\n"
    "  <P Name=\"InitFcn\">m = 2;   %% mass\nkspring = 8; c = 1.2;</P>\n"
    "  <BlockParameterDefaults>\n"
    "    <Block BlockType=\"Gain\"><P Name=\"Gain\">1</P></Block>\n"
    "    <Block BlockType=\"Integrator\"><P Name=\"InitialCondition\">0</P></Block>\n"
    "  </BlockParameterDefaults>\n"
    "  <System>\n"
    "    <Block BlockType=\"Inport\" Name=\"F\" SID=\"1\"/>\n"
    "    <Block BlockType=\"Sum\" Name=\"Sum\" SID=\"2\"><P Name=\"Ports\">[3, 1]</P>"
    "<P Name=\"Inputs\">|+--</P></Block>\n"
    "    <Block BlockType=\"Gain\" Name=\"1/m\" SID=\"3\"><P Name=\"Gain\">1/m</P></Block>\n"
    "    <Block BlockType=\"Integrator\" Name=\"v\" SID=\"4\">\n"
    "      <PortProperties><Port Type=\"out\" Index=\"1\"><P Name=\"Name\">velocity</P></Port></PortProperties>\n"
    "    </Block>\n"
    "    <Block BlockType=\"Integrator\" Name=\"x\" SID=\"5\"><P Name=\"InitialCondition\">[0.5]</P></Block>\n"
    "    <Block BlockType=\"Gain\" Name=\"Damping&#xA;Gain\" SID=\"6\"><P Name=\"Gain\">c</P></Block>\n"
    "    <Block BlockType=\"SubSystem\" Name=\"Spring\" SID=\"7\">\n"
    "      <Object PropName=\"MaskObject\" ObjectID=\"1\" ClassName=\"Simulink.Mask\">\n"
    "        <P Name=\"Type\">Spring</P>\n"
    "        <Array PropName=\"Parameters\" Type=\"Simulink.MaskParameter\" Dimension=\"1\">\n"
    "          <Object ObjectID=\"2\" ClassName=\"Simulink.MaskParameter\">\n"
    "            <P Name=\"Type\">edit</P><P Name=\"Name\">k</P><P Name=\"Prompt\">Stiffness</P>"
    "<P Name=\"Value\">kspring</P>\n"
    "          </Object>\n"
    "        </Array>\n"
    "      </Object>\n"
    "      %s\n"
    "    </Block>\n"
    "    <Block BlockType=\"Fcn\" Name=\"Fcn\" SID=\"11\"><P Name=\"Expr\">3*u[1]</P></Block>\n"
    "    <Block BlockType=\"Outport\" Name=\"pos \" SID=\"12\"/>\n"
    "    <Block BlockType=\"Outport\" Name=\"three x\" SID=\"13\"><P Name=\"Port\">2</P></Block>\n"
    "    <Line><P Name=\"Src\">1#out:1</P><P Name=\"Dst\">2#in:1</P></Line>\n"
    "    <Line><P Name=\"Src\">2#out:1</P><P Name=\"Dst\">3#in:1</P></Line>\n"
    "    <Line><P Name=\"Src\">3#out:1</P><P Name=\"Dst\">4#in:1</P></Line>\n"
    "    <Line><P Name=\"Src\">4#out:1</P><Branch><P Name=\"Dst\">5#in:1</P></Branch>"
    "<Branch><P Name=\"Points\">[0, 50]</P><P Name=\"Dst\">6#in:1</P></Branch></Line>\n"
    "    <Line><P Name=\"Src\">6#out:1</P><P Name=\"Dst\">2#in:2</P></Line>\n"
    "    <Line><P Name=\"Name\">position</P><P Name=\"Src\">5#out:1</P>"
    "<Branch><P Name=\"Dst\">7#in:1</P></Branch><Branch><Branch><P Name=\"Dst\">12#in:1</P></Branch>"
    "<Branch><P Name=\"Dst\">11#in:1</P></Branch></Branch></Line>\n"
    "    <Line><P Name=\"Src\">7#out:1</P><P Name=\"Dst\">2#in:3</P></Line>\n"
    "    <Line><P Name=\"Src\">11#out:1</P><P Name=\"Dst\">13#in:1</P></Line>\n"
    "  </System>\n"
    "</Model>\n"
    "</ModelInformation>\n";

static const char *spring_system =
    "<System>\n"
    "  <Block BlockType=\"Inport\" Name=\"in\" SID=\"8\"/>\n"
    "  <Block BlockType=\"Gain\" Name=\"K\" SID=\"9\"><P Name=\"Gain\">k</P></Block>\n"
    "  <Block BlockType=\"Outport\" Name=\"out\" SID=\"10\"/>\n"
    "  <Line><P Name=\"Src\">8#out:1</P><P Name=\"Dst\">9#in:1</P></Line>\n"
    "  <Line><P Name=\"Src\">9#out:1</P><P Name=\"Dst\">10#in:1</P></Line>\n"
    "</System>\n";

static const char *content_types =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
    "<Default Extension=\"xml\" ContentType=\"application/vnd.mathworks.simulink.model+xml\"/>"
    "</Types>\n";
static const char *rels =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"blockDiagram\" Target=\"simulink/blockdiagram.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2010/relationships/blockDiagram\"/>"
    "</Relationships>\n";

static void test_msd(void)
{
    lin_t r = linearize("graphs/msd.mdl", NULL);
    check_msd(&r, "classic MDL");
    /* the signal name of the line and of the Port section are kept */
    lin_free(&r);

    /* SLX, systems inline (R2019b and before) */
    char *bd = NULL, *bd_ref = NULL;
    if (asprintf(&bd, msd_blockdiagram_inline, spring_system) < 0 ||
        asprintf(&bd_ref, msd_blockdiagram_inline, "<System Ref=\"system_7\"/>") < 0)
        return;
    const char *inl[] = {"[Content_Types].xml", content_types, "_rels/.rels", rels,
                         "simulink/blockdiagram.xml", bd, NULL};
    char *p1 = tmpfile_path("msd_inline.slx");
    tap_ok(write_slx(p1, inl) == 0, "an SLX package written");
    r = linearize(p1, NULL);
    check_msd(&r, "SLX (systems inline)");
    lin_free(&r);

    /* SLX, a system in its own part (R2020a and later) */
    const char *parts[] = {"[Content_Types].xml", content_types, "_rels/.rels", rels,
                           "simulink/blockdiagram.xml", bd_ref,
                           "simulink/systems/system_7.xml", spring_system, NULL};
    char *p2 = tmpfile_path("msd_parts.slx");
    write_slx(p2, parts);
    r = linearize(p2, NULL);
    check_msd(&r, "SLX (system_*.xml parts)");
    lin_free(&r);

    /* OPC text: the same parts in one text file (R2024a .mdl) */
    char *opc = NULL;
    if (asprintf(&opc,
                 "# MathWorks OPC Text Package\nModel {\n  Version  24.1\n}\n"
                 "__MWOPC_PACKAGE_BEGIN__ R2024a\n"
                 "__MWOPC_PART_BEGIN__ /[Content_Types].xml\n%s\n"
                 "__MWOPC_PART_BEGIN__ /_rels/.rels\n%s\n"
                 "__MWOPC_PART_BEGIN__ /simulink/blockdiagram.xml\n%s\n"
                 "__MWOPC_PART_BEGIN__ /simulink/systems/system_7.xml\n%s\n"
                 "__MWOPC_PACKAGE_END__\n",
                 content_types, rels, bd_ref, spring_system) >= 0) {
        char *p3 = tmpfile_path("msd_opc.mdl");
        tl_write_file(p3, opc);
        r = linearize(p3, NULL);
        check_msd(&r, "OPC-text MDL");
        lin_free(&r);
    }
    free(opc);
    free(bd);
    free(bd_ref);
}

/* ---- R2024a: no BlockParameterDefaults, the built-in table fills in ---- */

static const char *r2024a_system =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<System>\n"
    "  <Block BlockType=\"Inport\" Name=\"u\" SID=\"1\"><PortCounts out=\"1\"/></Block>\n"
    "  <Block BlockType=\"Gain\" Name=\"G\" SID=\"2\"><PortCounts in=\"1\" out=\"1\"/></Block>\n"
    "  <Block BlockType=\"TransferFcn\" Name=\"TF\" SID=\"3\"><PortCounts in=\"1\" out=\"1\"/>"
    "<P Name=\"Denominator\">[1 3]</P></Block>\n"
    "  <Block BlockType=\"Constant\" Name=\"C\" SID=\"4\"><PortCounts out=\"1\"/></Block>\n"
    "  <Block BlockType=\"Product\" Name=\"P\" SID=\"5\"><PortCounts in=\"2\" out=\"1\"/></Block>\n"
    "  <Block BlockType=\"Integrator\" Name=\"I\" SID=\"6\"><PortCounts in=\"1\" out=\"1\"/></Block>\n"
    "  <Block BlockType=\"Outport\" Name=\"y\" SID=\"7\"><PortCounts in=\"1\"/></Block>\n"
    "  <Block BlockType=\"Outport\" Name=\"z\" SID=\"8\"><PortCounts in=\"1\"/><P Name=\"Port\">2</P></Block>\n"
    "  <Line><P Name=\"Src\">1#out:1</P><P Name=\"Dst\">2#in:1</P></Line>\n"
    "  <Line><P Name=\"Src\">2#out:1</P><P Name=\"Dst\">3#in:1</P></Line>\n"
    "  <Line><P Name=\"Src\">3#out:1</P><P Name=\"Dst\">5#in:1</P></Line>\n"
    "  <Line><P Name=\"Src\">4#out:1</P><P Name=\"Dst\">5#in:2</P></Line>\n"
    "  <Line><P Name=\"Src\">5#out:1</P><Branch><P Name=\"Dst\">7#in:1</P></Branch>"
    "<Branch><P Name=\"Dst\">6#in:1</P></Branch></Line>\n"
    "  <Line><P Name=\"Src\">6#out:1</P><P Name=\"Dst\">8#in:1</P></Line>\n"
    "</System>\n";

static void test_builtin_defaults(void)
{
    const char *bd = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ModelInformation Version=\"1.0\">"
                     "<Model><System Ref=\"system_root\"/></Model></ModelInformation>\n";
    const char *parts[] = {"[Content_Types].xml", content_types, "_rels/.rels", rels,
                           "simulink/blockdiagram.xml", bd,
                           "simulink/systems/system_root.xml", r2024a_system, NULL};
    char *p = tmpfile_path("r2024a.slx");
    write_slx(p, parts);
    lin_t r = linearize(p, NULL);
    /* Gain 1, Numerator [1], Constant 1, Product of 2 inputs, Integrator IC 0, Port 1 */
    if (tap_ok(!r.st && r.s->nx == 2 && r.s->nu == 1 && r.s->ny == 2,
               "R2024a file without defaults: built-in defaults complete it")) {
        int64_t tf = index_of(r.s->state_names, 2, "TF"), in = index_of(r.s->state_names, 2, "I");
        tap_ok(tf >= 0 && in >= 0 && fx_entry(r.s->A, tf, tf) == -3 && fx_entry(r.s->B, tf, 0) == 1 &&
                   fx_entry(r.s->C, 0, tf) == 1 && fx_entry(r.s->A, in, tf) == 1 && fx_entry(r.s->C, 1, in) == 1,
               "Gain 1, TransferFcn numerator [1], Constant 1, Product with 2 inputs, Integrator IC 0");
    }
    lin_free(&r);
}

/* ---- workspaces and --set ---- */

static void test_workspaces(void)
{
    char *ws = tmpfile_path("data.m");
    tl_write_file(ws, "% plant data\nm = 4; ...\n\nkspring = 16 ... stiffer\n;\nplot(1:3)\n");
    const char *wss[] = {ws};
    jg_import_opts_t o = {.workspace = wss, .nworkspace = 1, .warn = warn_sink};
    lin_t r = linearize("graphs/msd.mdl", &o);
    if (tap_ok(!r.st, "--workspace script")) {
        int64_t v = index_of(r.s->state_names, r.s->nx, "v"), x = index_of(r.s->state_names, r.s->nx, "x");
        tap_near(fx_entry(r.s->A, v, x), -4, 1e-15, "--workspace overrides InitFcn: -16/4");
        tap_near(fx_entry(r.s->A, v, v), -0.3, 1e-15, "c stays from InitFcn: -1.2/4");
    }
    lin_free(&r);
    const char *sets[] = {"k=2*kspring"};
    jg_import_opts_t o2 = {.set = sets, .nset = 1};
    r = linearize("graphs/msd.mdl", &o2);
    if (tap_ok(!r.st, "--set k=2*kspring")) {
        int64_t v = index_of(r.s->state_names, r.s->nx, "v"), x = index_of(r.s->state_names, r.s->nx, "x");
        tap_near(fx_entry(r.s->A, v, x), -8, 1e-15, "--set overrides the mask parameter k");
    }
    lin_free(&r);
    const char *bad[] = {"k=2*("};
    jg_import_opts_t o3 = {.set = bad, .nset = 1};
    r = linearize("graphs/msd.mdl", &o3);
    tap_ok(r.st == JG_PARAM && strstr(r.err.msg, "--set k=2*("), "--set with a syntax error names it");
    lin_free(&r);
    /* a model whose variable nobody defines */
    char *mdl = tmpfile_path("undef.mdl");
    tl_write_file(mdl,
               "Model {\n Name \"undef\"\n System {\n  Name \"undef\"\n"
               "  Block {\n   BlockType Constant\n   Name \"C\"\n   Value \"2*Kp\"\n  }\n"
               "  Block {\n   BlockType Outport\n   Name \"Out1\"\n  }\n"
               "  Line {\n   SrcBlock \"C\"\n   SrcPort 1\n   DstBlock \"Out1\"\n   DstPort 1\n  }\n"
               " }\n}\n");
    r = linearize(mdl, NULL);
    tap_ok(r.st == JG_PARAM && strstr(r.err.msg, "'C'") && strstr(r.err.msg, "Kp") &&
               strstr(r.err.msg, "Value"),
           "an undefined variable names the block, parameter and variable");
    printf("#   %s\n", r.err.msg);
    lin_free(&r);
}

/* ---- unsupported content, substitution ---- */

static const char *unsupported_mdl =
    "Model {\n Name \"unsup\"\n System {\n  Name \"unsup\"\n"
    "  Block {\n   BlockType Inport\n   Name \"In1\"\n  }\n"
    "  Block {\n   BlockType \"S-Function\"\n   Name \"Plant\"\n   Ports [1, 1]\n   FunctionName \"plant_sfun\"\n  }\n"
    "  Block {\n   BlockType SubSystem\n   Name \"Chart\"\n   Ports [1, 1]\n   SFBlockType \"Chart\"\n"
    "   System {\n    Name \"Chart\"\n   }\n  }\n"
    "  Block {\n   BlockType SubSystem\n   Name \"Enabled\"\n   Ports [1, 1, 1]\n"
    "   System {\n    Name \"Enabled\"\n"
    "    Block {\n     BlockType Inport\n     Name \"u\"\n    }\n"
    "    Block {\n     BlockType EnablePort\n     Name \"Enable\"\n    }\n"
    "    Block {\n     BlockType Outport\n     Name \"y\"\n    }\n"
    "    Line {\n     SrcBlock \"u\"\n     SrcPort 1\n     DstBlock \"y\"\n     DstPort 1\n    }\n"
    "   }\n  }\n"
    "  Block {\n   BlockType Reference\n   Name \"Odd\"\n   SourceBlock \"mylib/Odd\\nBlock\"\n  }\n"
    "  Block {\n   BlockType Outport\n   Name \"Out1\"\n  }\n"
    "  Line {\n   SrcBlock \"In1\"\n   SrcPort 1\n   DstBlock \"Plant\"\n   DstPort 1\n  }\n"
    "  Line {\n   SrcBlock \"Plant\"\n   SrcPort 1\n   DstBlock \"Out1\"\n   DstPort 1\n  }\n"
    " }\n}\n";

static void test_unsupported(void)
{
    char *mdl = tmpfile_path("unsup.mdl");
    tl_write_file(mdl, unsupported_mdl);
    lin_t r = linearize(mdl, NULL);
    tap_ok(r.st == JG_MODEL, "unsupported content: JG_MODEL (exit 4)");
    tap_ok(strstr(r.err.msg, "4 blocks") && strstr(r.err.msg, "Plant (S-Function)") &&
               strstr(r.err.msg, "Chart (SubSystem)") && strstr(r.err.msg, "Enabled (SubSystem)") &&
               strstr(r.err.msg, "Odd (Reference)"),
           "every unsupported block is listed with its type");
    lin_free(&r);
    /* substitute the S-Function by a gain of 3 and the others by pass-throughs */
    char *g3 = tmpfile_path("gain3.json"), *pass = tmpfile_path("pass.json"),
         *src = tmpfile_path("src.json"), *bad = tmpfile_path("twoout.json");
    tl_write_file(g3, "{\"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
                   "{\"name\": \"K\", \"type\": \"Gain\", \"Gain\": 3},"
                   "{\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
                   "\"lines\": [{\"src\": \"u:1\", \"dst\": \"K:1\"}, {\"src\": \"K:1\", \"dst\": \"y:1\"}]}");
    tl_write_file(pass, "{\"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
                     "{\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
                     "\"lines\": [{\"src\": \"u:1\", \"dst\": \"y:1\"}]}");
    tl_write_file(src, "{\"blocks\": [{\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1},"
                    "{\"name\": \"G\", \"type\": \"Ground\"}], \"lines\": [{\"src\": \"G:1\", \"dst\": \"y:1\"}]}");
    tl_write_file(bad, "{\"blocks\": []}");
    char s1[600], s2[600], s3[600], s4[600];
    snprintf(s1, sizeof s1, "Plant=%s", g3);
    snprintf(s2, sizeof s2, "Chart=%s", pass);
    snprintf(s3, sizeof s3, "Enabled=%s", pass);
    snprintf(s4, sizeof s4, "Odd=%s", src);
    const char *subs[] = {s1, s2, s3, s4};
    jg_import_opts_t o = {.substitute = subs, .nsubstitute = 4};
    r = linearize(mdl, &o);
    if (tap_ok(!r.st, "--substitute replaces every unsupported block"))
        tap_near(fx_entry(r.s->D, 0, 0), 3, 1e-15, "D = 3 through the substitute gain");
    lin_free(&r);
    snprintf(s1, sizeof s1, "Plant=%s", bad);
    jg_import_opts_t o2 = {.substitute = subs, .nsubstitute = 4};
    r = linearize(mdl, &o2);
    tap_ok(r.st == JG_MODEL && strstr(r.err.msg, "Plant"), "a substitute without the block's ports is refused");
    printf("#   %s\n", r.err.msg);
    lin_free(&r);
}

/* ---- model references ---- */

static void test_modelref(void)
{
    char *inner = tmpfile_path("inner.mdl"), *outer = tmpfile_path("outer.mdl"),
         *loop = tmpfile_path("loop.mdl");
    tl_write_file(inner,
               "Model {\n Name \"inner\"\n InitFcn \"a = 3;\"\n System {\n  Name \"inner\"\n"
               "  Block {\n   BlockType Inport\n   Name \"u\"\n  }\n"
               "  Block {\n   BlockType TransferFcn\n   Name \"G\"\n   Numerator \"[a]\"\n   Denominator \"[1 a]\"\n  }\n"
               "  Block {\n   BlockType Outport\n   Name \"y\"\n  }\n"
               "  Line {\n   SrcBlock \"u\"\n   SrcPort 1\n   DstBlock \"G\"\n   DstPort 1\n  }\n"
               "  Line {\n   SrcBlock \"G\"\n   SrcPort 1\n   DstBlock \"y\"\n   DstPort 1\n  }\n"
               " }\n}\n");
    tl_write_file(outer,
               "Model {\n Name \"outer\"\n System {\n  Name \"outer\"\n"
               "  Block {\n   BlockType Inport\n   Name \"r\"\n  }\n"
               "  Block {\n   BlockType ModelReference\n   Name \"Plant\"\n   Ports [1, 1]\n   ModelNameDialog \"inner\"\n  }\n"
               "  Block {\n   BlockType Outport\n   Name \"y\"\n  }\n"
               "  Line {\n   SrcBlock \"r\"\n   SrcPort 1\n   DstBlock \"Plant\"\n   DstPort 1\n  }\n"
               "  Line {\n   SrcBlock \"Plant\"\n   SrcPort 1\n   DstBlock \"y\"\n   DstPort 1\n  }\n"
               " }\n}\n");
    tl_write_file(loop,
               "Model {\n Name \"loop\"\n System {\n  Name \"loop\"\n"
               "  Block {\n   BlockType ModelReference\n   Name \"Me\"\n   ModelNameDialog \"loop\"\n  }\n"
               " }\n}\n");
    lin_t r = linearize(outer, NULL);
    if (tap_ok(!r.st, "a model reference loads from the file's folder"))
        tap_ok(r.s->nx == 1 && fabs(fx_entry(r.s->A, 0, 0) + 3) < 1e-15 &&
                   fabs(fx_entry(r.s->C, 0, 0) * fx_entry(r.s->B, 0, 0) - 3) < 1e-15,
               "its workspace value a = 3 gives 3/(s + 3)");
    lin_free(&r);
    r = linearize(loop, NULL);
    tap_ok(r.st == JG_MODEL && strstr(r.err.msg, "cycle"), "a model-reference cycle is an error");
    printf("#   %s\n", r.err.msg);
    lin_free(&r);
}

/* G(jw) = C (jw I - A)^-1 B + D of a SISO linsys, by a complex dense solve. */
static double complex freq_response(const jg_lin_sys_t *s, double w)
{
    int64_t n = s->nx;
    lapack_complex_double *m = calloc((size_t)(n * n + 1), sizeof *m), *b = calloc((size_t)n + 1, sizeof *b);
    lapack_int *piv = malloc(sizeof(lapack_int) * (size_t)(n + 1));
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = s->A->p[j]; k < s->A->p[j + 1]; k++) m[s->A->i[k] * n + j] = -s->A->x[k];
    for (int64_t i = 0; i < n; i++) m[i * n + i] += I * w;
    for (int64_t k = s->B->p[0]; k < s->B->p[1]; k++) b[s->B->i[k]] = s->B->x[k];
    double complex g = fx_entry(s->D, 0, 0);
    if (n && !LAPACKE_zgesv(LAPACK_ROW_MAJOR, (int)n, 1, m, (int)n, piv, b, 1))
        for (int64_t j = 0; j < n; j++) g += fx_entry(s->C, 0, j) * b[j];
    free(m);
    free(b);
    free(piv);
    return g;
}

/* Linearize a corpus model between two points (block ports or signal names). */
static lin_t linearize_io(const char *path, const char *in, const char *out)
{
    lin_t r = {0};
    jg_import_opts_t o = {0};
    const char *ins[] = {in}, *outs[] = {out};
    jg_lin_opts_t lo = {.nin = 1, .nout = 1, .in = ins, .out = outs, .no_defaults = 1};
    r.st = jg_import_load(path, &o, &r.m, &r.err);
    if (!r.st) r.st = jg_program_compile(r.m, &r.p, &r.err);
    if (!r.st) r.st = jg_lin_create(r.p, &lo, &r.l, &r.err);
    if (!r.st) r.st = jg_lin_run(r.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &r.s, NULL, &r.err);
    if (r.st) printf("# %s: %s\n", path, r.err.msg);
    return r;
}

/* ---- the external corpus of real models ---- */

static const char *corpus;

static char *corpus_file(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 1024, "%s/%s", corpus, name);
    return p;
}

/* model01, simulated: a square wave (period 2 s) into a discrete PID at
 * 0.05 s, C(z) = 2 + 0.2 z/(z - 1) + 0.5 (z - 1)/z, a unit delay, and the
 * plant 1/(s + 1), whose output at the sample times follows the exact ZOH
 * recursion y[k+1] = a y[k] + (1 - a) u[k], a = exp(-0.05). */
static void test_model01_sim(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    jg_error_t err = {0};
    jg_import_opts_t io = {0};
    jg_sim_opts_t so = {.tstop = 4, .so = {.rtol = 1e-11, .atol = 1e-13, .max_step = 0.01}};
    jg_status_t st = jg_import_load(corpus_file("EmbSys-WWU__Simulink2dL__model01.mdl"), &io, &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_sim_create(p, &so, &s, &err);
    if (!tap_ok(!st, "model01 simulates")) {
        printf("#   %s\n", err.msg);
        goto done;
    }
    double a = exp(-0.05), y = 0, u = 0, c_prev = 0, e_prev = 0, integ = 0, worst = 0;
    for (int k = 0; k <= 80 && !st; k++) {
        double t = 0.05 * k;
        st = jg_sim_run(s, t, NULL, NULL, &err);
        double got = jg_sim_states(s)[0];
        worst = fmax(worst, fabs(got - y));
        /* the controller at t_k sees r - y; its output reaches the plant one step later */
        double r = fmod(t + 1e-12, 2.0) < 1.0 ? 1.0 : 0.0, e = r - y;
        integ += 0.2 * e;
        double c = 2 * e + integ + 0.5 * (e - e_prev);
        u = c_prev;
        c_prev = c;
        e_prev = e;
        y = a * y + (1 - a) * u;
    }
    if (!tap_ok(!st && worst < 1e-8, "model01: the plant output follows the exact sampled-data recursion"))
        printf("#   largest difference %g (%s)\n", worst, st ? err.msg : "");
done:
    jg_sim_free(s);
    jg_program_free(p);
    jg_model_free(m);
}

static void test_corpus(void)
{
    /* DC motor: InitFcn Jm = 0.01, C = 0.1, Kt = 1, Ra = 1.25, La = 0.5;
     * speed 200/(s^2 + 2.7 s + 25) and angle = speed/s: {0, -1.35 +- 4.8143j twice} */
    lin_t r = linearize(corpus_file("Apress__practical-matlab-modeling-w-simulink__DC__motor.slx"), NULL);
    if (tap_ok(!r.st, "DC motor (SLX R2017a) imports")) {
        double w = sqrt(25 - 1.35 * 1.35);
        double complex want[5] = {0, -1.35 + I * w, -1.35 - I * w, -1.35 + I * w, -1.35 - I * w};
        same_spectrum(r.s, want, 5, 1e-9, "DC motor");
    }
    lin_free(&r);
    /* the speed transfer function, between the named signals Input and Ta(s) */
    r = linearize_io(corpus_file("Apress__practical-matlab-modeling-w-simulink__DC__motor.slx"), "Input", "Ta(s)");
    if (tap_ok(!r.st, "DC motor: linearized between signals 'Input' and 'Ta(s)'")) {
        double worst = 0;
        /* not at w = 0: the angle's integrator (unobservable here) makes jwI - A singular */
        static const double ws[] = {1e-3, 0.5, 4.8, 20};
        for (int k = 0; k < 4; k++) {
            double complex jw = I * ws[k], want = 200 / (jw * jw + 2.7 * jw + 25);
            worst = fmax(worst, cabs(freq_response(r.s, ws[k]) - want) / cabs(want));
        }
        if (!tap_ok(worst < 1e-12, "DC motor: speed = 200/(s^2 + 2.7 s + 25) at w = 0.001, 0.5, 4.8, 20"))
            printf("#   relative error %g; G(0.001j) = %g%+gj\n", worst, creal(freq_response(r.s, 1e-3)),
                   cimag(freq_response(r.s, 1e-3)));
    }
    lin_free(&r);
    /* x'' = -2x - 0.8x' + 2t */
    r = linearize(corpus_file("Apress__practical-matlab-modeling-w-simulink__Sim_Model_2ndODE_ex1.mdl"), NULL);
    if (tap_ok(!r.st, "Sim_Model_2ndODE_ex1 (MDL R2012b) imports")) {
        double complex want[2] = {-0.4 + I * sqrt(2 - 0.16), -0.4 - I * sqrt(2 - 0.16)};
        same_spectrum(r.s, want, 2, 1e-12, "2nd-order ODE");
    }
    lin_free(&r);
    /* s + exp(s) + y = 0 at y = 1: A = [0 1; -1/(1 + exp(s*)) 0] */
    r = linearize(corpus_file("Apress__practical-matlab-modeling-w-simulink__IMPLICIT_2ODE_EX4_sim.mdl"), NULL);
    if (tap_ok(!r.st, "IMPLICIT_2ODE_EX4 (MDL R2019b, Math operator from the defaults) imports")) {
        double complex want[2] = {I * 0.88441, -I * 0.88441};
        same_spectrum(r.s, want, 2, 1e-5, "implicit ODE at y = 1");
        /* at y = -1, y' = 0 the loop s + exp(s) - 1 = 0 has s* = 0: A = [0 1; -1/2 0] */
        jg_lin_sys_t *s2 = NULL;
        int64_t yi = index_of(r.s->state_names, r.s->nx, "Integrator1");
        double *x = jg_lin_states(r.l);
        if (yi >= 0) x[yi] = -1;
        if (yi >= 0 && !jg_lin_run(r.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s2, NULL, &r.err)) {
            double complex want2[2] = {I * sqrt(0.5), -I * sqrt(0.5)};
            same_spectrum(s2, want2, 2, 1e-12, "implicit ODE at y = -1");
        } else {
            tap_ok(0, "implicit ODE at y = -1");
        }
        jg_lin_sys_free(s2);
    }
    lin_free(&r);
    /* closed loop around G = (5.2s + 10)(1.151s + 0.1774)/((0.0208s + 1)(s^3 + 0.739s^2 + 0.9215s)) */
    r = linearize(corpus_file("mo7amd__Control_labs__FreqDomainControl.slx"), NULL);
    if (tap_ok(!r.st, "FreqDomainControl (SLX R2015a, Gain from the defaults) imports")) {
        double complex want[5] = {-41.350, -3.6616 + I * 1.0112, -3.6616 - I * 1.0112, -0.14294, 0};
        /* four closed-loop poles and whatever the model adds: check the four */
        double complex ev[64];
        eigenvalues(r.s, ev);
        int found = 0;
        for (int k = 0; k < 4; k++)
            for (int64_t q = 0; q < r.s->nx; q++)
                if (cabs(ev[q] - want[k]) < 2e-4 * cabs(want[k])) {
                    found++;
                    break;
                }
        if (!tap_ok(found == 4 && r.s->nx == 4, "FreqDomainControl: closed-loop poles"))
            for (int64_t q = 0; q < r.s->nx; q++) printf("#   %g%+gj\n", creal(ev[q]), cimag(ev[q]));
    }
    lin_free(&r);
    r = linearize_io(corpus_file("mo7amd__Control_labs__FreqDomainControl.slx"), "Step1:1", "system:1");
    if (tap_ok(!r.st, "FreqDomainControl: linearized from the reference to the plant output"))
        tap_near(creal(freq_response(r.s, 0)), 1, 1e-12, "FreqDomainControl: closed-loop DC gain 1");
    lin_free(&r);
    /* the SLX and the MDL of model01 give one linearization */
    lin_t a = linearize(corpus_file("EmbSys-WWU__Simulink2dL__model01.mdl"), NULL);
    lin_t b = linearize(corpus_file("EmbSys-WWU__Simulink2dL__model01_2013a.slx"), NULL);
    tap_ok(!a.st && !b.st, "model01 imports from MDL (R14SP3, windows-1252) and SLX (R2013a)");
    if (!a.st && !b.st) tap_ok(jg_lin_sys_diff(a.s, b.s, NULL) == 0, "model01: MDL and SLX agree exactly");
    lin_free(&a);
    lin_free(&b);
    test_model01_sim();
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_import_simulink")) return 1;
    test_msd();
    test_builtin_defaults();
    test_workspaces();
    test_unsupported();
    test_modelref();
    if (tl_corpus_present()) {
        corpus = tl_corpus(NULL);
        test_corpus();
    }
    tl_rmtree(tmpdir);
    return tap_done();
}
