/* Simulink readers (lib/import/sltree.h): classic MDL tokenizer, OPC text,
 * SLX zips built here from readable XML, every refusal, and the real-model
 * corpus kept beside the repository when it is present. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>
#include "import/sltree.h"   /* private: tests the Simulink readers (jg__sl_*) directly */
#include "testlib.h"

static char tmpdir[256];

/* The readers' limits for parse_n and read_zip: lowered by some checks (zero
 * fields: the defaults) to exercise the refusals without gigabyte files. */
static jg__sl_limits_t lim;

static jg__sl_tree_t *parse_n(const char *s, size_t n, const char *src, jg_error_t *e)
{
    jg__sl_tree_t *t = NULL;
    jg_error_clear(e);
    if (jg__sl_parse(s, n, src, &lim, &t, e) != JG_OK) t = NULL;
    return t;
}

static jg__sl_tree_t *parse(const char *s, jg_error_t *e) { return parse_n(s, strlen(s), "t.mdl", e); }

static const jg__sl_node_t *model_of(const jg__sl_tree_t *t)
{
    const jg__sl_node_t *m = jg__sl_child(t->root, "Model");
    return m ? m : jg__sl_child(t->root, "Library");
}

/* Blocks under a System, nested subsystems included (not BlockParameterDefaults). */
static size_t count_blocks(const jg__sl_node_t *sys)
{
    size_t n = 0, i = 0;
    jg__sl_node_t *b;
    while ((b = jg__sl_next(sys, "Block", &i))) {
        n++;
        const jg__sl_node_t *s = jg__sl_child(b, "System");
        if (s) n += count_blocks(s);
    }
    return n;
}

static size_t count_params(const jg__sl_node_t *n, const char *key)
{
    size_t c = 0;
    for (size_t i = 0; i < n->npar; i++) c += !strcmp(n->par[i].key, key);
    return c;
}

static int err_is(const jg_error_t *e, jg_status_t st, const char *sub, const char *name)
{
    int ok = e->status == st && strstr(e->msg, sub) != NULL;
    if (!tap_ok(ok, "%s", name))
        printf("#   got %s '%s'\n#   expected %s containing '%s'\n", jg_status_name(e->status), e->msg,
               jg_status_name(st), sub);
    return ok;
}

/* ---- classic MDL ---- */

static void test_mdl_tokens(void)
{
    jg_error_t e;
    const char *src =
        "Model {\n"
        "  Name \"m\"\n"
        "  Version 8.1\n"
        "  Simulink.ConfigSet {\n"
        "    $ObjectID 3\n"
        "    $ClassName \"Simulink.ConfigSet\"\n"
        "  }\n"
        "  System {\n"
        "    Block {\n"
        "      BlockType Gain\n"
        "      Name \"q\\\"uote\\\\back\\nnl\\ttab\"\n"
        "      Description \"...second order no\"\n"
        "\"nlinear\\nsystem. \"\n"
        "      \"(end)\"\n"
        "      Position [52, 182, 612, 486]\n"
        "      A [0, 105; -395, 0]\n"
        "      Multi [1, 2;\n"
        "        3, 4]\n"
        "      Empty \"\"\n"
        "      Ports []\n"
        "      Cell \"a\"\n"
        "      Cell \"b\"\n"
        "      Tail \"x\"   \n"
        "      Bare inherit via rule\n"
        "    }\n"
        "  }\n"
        "}\n";
    jg__sl_tree_t *t = parse(src, &e);
    if (!tap_ok(t != NULL, "classic: token cases parse")) {
        printf("#   %s\n", e.msg);
        return;
    }
    const jg__sl_node_t *m = model_of(t);
    tap_ok(t->format == JG_SL_MDL && t->root->tag[0] == '\0' && t->root->nkid == 1 && m,
           "classic: root \"\" holds the Model section");
    tap_streq(t->release, "R2013a", "classic: Version 8.1 -> R2013a");
    const jg__sl_node_t *cs = jg__sl_child(m, "Simulink.ConfigSet");
    tap_ok(cs && cs->line == 4, "classic: dotted section name, line 4");
    tap_streq(jg__sl_get(cs, "$ClassName"), "Simulink.ConfigSet", "classic: $ keys kept verbatim");
    const jg__sl_node_t *b = jg__sl_child(jg__sl_child(m, "System"), "Block");
    tap_streq(jg__sl_get(b, "BlockType"), "Gain", "classic: bare token");
    tap_streq(jg__sl_get(b, "Name"), "q\"uote\\back\nnl\ttab", "classic: escapes \\\" \\\\ \\n \\t");
    tap_streq(jg__sl_get(b, "Description"), "...second order nonlinear\nsystem. (end)",
              "classic: split string pieces (column 0 and indented) concatenate");
    tap_streq(jg__sl_get(b, "Position"), "[52, 182, 612, 486]", "classic: bracket value as text");
    tap_streq(jg__sl_get(b, "A"), "[0, 105; -395, 0]", "classic: matrix bracket value");
    tap_ok(jg__sl_get(b, "Multi") && !strncmp(jg__sl_get(b, "Multi"), "[1, 2;", 6) &&
               strstr(jg__sl_get(b, "Multi"), "3, 4]"),
           "classic: bracket value over two lines");
    tap_streq(jg__sl_get(b, "Empty"), "", "classic: empty string");
    tap_streq(jg__sl_get(b, "Ports"), "[]", "classic: empty brackets");
    tap_ok(count_params(b, "Cell") == 2, "classic: repeated keys stay repeated");
    tap_streq(jg__sl_get(b, "Tail"), "x", "classic: trailing blanks after a string");
    tap_streq(jg__sl_get(b, "Bare"), "inherit via rule", "classic: bare value runs to end of line");
    jg__sl_tree_free(t);

    /* CRLF and a BOM */
    t = parse("\xEF\xBB\xBFModel {\r\n  Name \"a\"\r\n  \"b\"\r\n  System {\r\n  }\r\n}\r\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "ab"), "classic: CRLF lines and a BOM");
    jg__sl_tree_free(t);

    /* Stateflow after the comment, MatData with odd escapes, Library */
    t = parse("Library {\n  Name \"lib\"\n  Version 6.0\n  System {\n  }\n}\n"
              "MatData {\n  NumRecords 1\n  DataRecord {\n    Tag DataTag0\n"
              "    Data \"  %)30 \\#\\ .  \\\"0 P\"\n    \"@ #P/P \\\\ x\"\n  }\n}\n"
              "# Finite State Machines\n#\n#    Stateflow Version 7.6\n#\n"
              "Stateflow {\n  machine {\n    id 1\n    name \"lib\"\n  }\n  chart {\n"
              "    id 2\n    windowPosition [376 263 213 385]\n    eml {\n      name \"fcn\"\n    }\n"
              "  }\n}\n",
              &e);
    tap_ok(t && model_of(t) && !strcmp(model_of(t)->tag, "Library") && t->root->nkid == 3,
           "classic: Library, MatData and Stateflow sections at top level");
    if (t) {
        const jg__sl_node_t *sf = jg__sl_child(t->root, "Stateflow");
        tap_ok(sf && jg__sl_child(sf, "chart") && jg__sl_child(jg__sl_child(sf, "chart"), "eml"),
               "classic: Stateflow parsed as ordinary sections");
        tap_streq(t->release, "R14", "classic: Version 6.0 -> R14");
    }
    jg__sl_tree_free(t);

    t = parse("Model {\n  Version 99.9\n}\n", &e);
    tap_ok(t && t->release == NULL, "classic: unknown Version gives no release");
    jg__sl_tree_free(t);
}

static void test_mdl_encodings(void)
{
    jg_error_t e;
    jg__sl_tree_t *t = parse("Model {\n  SavedCharacterEncoding \"windows-1252\"\n  Name \"20\xB0"
                             "C \x80\"\n}\n",
                             &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "20\xC2\xB0" "C \xE2\x82\xAC"),
           "encoding: windows-1252 0xB0 -> degree sign, 0x80 -> euro");
    jg__sl_tree_free(t);
    t = parse("Model {\n  SavedCharacterEncoding \"ISO-8859-1\"\n  Name \"gr\xF6\xDF" "e\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "gr\xC3\xB6\xC3\x9F" "e"),
           "encoding: ISO-8859-1");
    jg__sl_tree_free(t);
    /* Shift_JIS 0x95 0x5C is U+8868: its trail byte is a backslash, so the
     * file must be decoded before the quote scanner sees it */
    t = parse("Model {\n  SavedCharacterEncoding \"Shift_JIS\"\n  Name \"\x95\x5C\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "\xE8\xA1\xA8"),
           "encoding: Shift_JIS trail byte 0x5C is not an escape");
    jg__sl_tree_free(t);
    t = parse("Model {\n  SavedCharacterEncoding \"UTF-8\"\n  Name \"\xC2\xB0\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "\xC2\xB0"), "encoding: UTF-8 kept");
    jg__sl_tree_free(t);
    t = parse("Model {\n  Name \"\xB0\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "\xC2\xB0"),
           "encoding: no key and not UTF-8 -> windows-1252");
    jg__sl_tree_free(t);
    t = parse("Model {\n  SavedCharacterEncoding \"windows-1252\"\n  Name \"a\x81z\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "a\xEF\xBF\xBDz"),
           "encoding: undefined byte -> U+FFFD");
    jg__sl_tree_free(t);
    t = parse("Model {\n  SavedCharacterEncoding \"ibm-5348_P100-1997\"\n  Name \"\xB0\"\n}\n", &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "Name"), "\xC2\xB0"),
           "encoding: ICU name ibm-5348_P100-1997 = windows-1252");
    jg__sl_tree_free(t);
    t = parse("Model {\n  SavedCharacterEncoding \"no-such-charset\"\n}\n", &e);
    err_is(&e, JG_PARSE, "unsupported SavedCharacterEncoding 'no-such-charset'",
           "encoding: unknown charset refused");
    jg__sl_tree_free(t);
}

static void test_mdl_file(void)
{
    jg_error_t e;
    jg__sl_tree_t *t = NULL;
    jg_status_t st = jg__sl_read("tests/data/simulink/tiny.mdl", NULL, &t, &e);
    if (!tap_ok(st == JG_OK && t, "file: tests/data/simulink/tiny.mdl reads")) {
        printf("#   %s\n", e.msg);
        return;
    }
    const jg__sl_node_t *m = model_of(t), *sys = jg__sl_child(m, "System");
    tap_streq(t->release, "R14SP3", "file: Version 6.3 -> R14SP3");
    tap_ok(count_blocks(sys) == 5, "file: 5 blocks (BlockParameterDefaults not counted)");
    size_t i = 0;
    const jg__sl_node_t *b1 = jg__sl_next(sys, "Block", &i), *b2 = jg__sl_next(sys, "Block", &i),
                        *b3 = jg__sl_next(sys, "Block", &i);
    tap_streq(jg__sl_get(b1, "Name"), "Temp 20\xC2\xB0" "C", "file: windows-1252 name decoded");
    tap_streq(jg__sl_get(b2, "Name"), "Hydraulic\nLag ", "file: newline and trailing space in a name");
    tap_streq(jg__sl_get(b3, "Name"), "a/b", "file: '/' in a name");
    tap_ok(b3 && b3->line == 33 && jg__sl_child(b3, "System") &&
               count_blocks(jg__sl_child(b3, "System")) == 2,
           "file: nested subsystem, Block line number");
    const jg__sl_node_t *ln = jg__sl_child(sys, "Line");
    size_t k = 0;
    const jg__sl_node_t *br1 = jg__sl_next(ln, "Branch", &k), *br2 = jg__sl_next(ln, "Branch", &k);
    const jg__sl_node_t *br3 = jg__sl_child(br2, "Branch");
    tap_ok(ln && br1 && br2 && br3 && !strcmp(jg__sl_get(br1, "DstBlock"), "Hydraulic\nLag ") &&
               !strcmp(jg__sl_get(br2, "Points"), "[0, 40]") &&
               !strcmp(jg__sl_get(br3, "DstBlock"), "a/b") && !jg__sl_get(br2, "DstBlock"),
           "file: Branch tree two levels deep");
    const jg__sl_node_t *bpd = jg__sl_child(m, "BlockParameterDefaults");
    tap_streq(jg__sl_get(jg__sl_child(bpd, "Block"), "Gain"), "1", "file: BlockParameterDefaults");
    jg__sl_tree_free(t);
}

static void test_mdl_errors(void)
{
    jg_error_t e;
    /* each text refused: status, message, test name */
    static const struct {
        const char *text;
        jg_status_t st;
        const char *msg, *what;
    } bad[] = {
        {"Model {\n  Name \"x\"\n}\n}\n", JG_PARSE,
         "t.mdl:4:1: unbalanced '}'", "error: unbalanced '}' with line"},
        {"Model {\n  System {\n    Block {\n      Name \"x\"\n", JG_PARSE,
         "unexpected end of file inside section 'Block' opened at line 3", "error: EOF inside a section names it and its line"},
        {"Model {\n  Name\n}\n", JG_PARSE,
         "t.mdl:2:7: expected a value after key 'Name'", "error: key without value"},
        {"Model {\n  Name \"abc\n}\n", JG_PARSE,
         "t.mdl:2:8: unterminated string", "error: unterminated string"},
        {"Model {\n  \"piece\"\n}\n", JG_PARSE,
         "t.mdl:2:3: string continuation", "error: continuation without a string"},
        {"Model {\n  Pos [1, 2\n}\n", JG_PARSE,
         "t.mdl:2:7: unterminated '['", "error: unterminated bracket"},
        {"{\"version\": 1, \"blocks\": []}\n", JG_PARSE,
         "t.mdl:1:1: expected a section name or a key", "error: a JSON .mdl"},
        {"Stateflow {\n}\n", JG_MODEL,
         "no Model or Library section", "error: no Model section"},
    };
    jg__sl_tree_t *t;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        t = parse(bad[k].text, &e);
        err_is(&e, bad[k].st, bad[k].msg, bad[k].what);
        jg__sl_tree_free(t);
    }
    t = parse_n("", 0, "t.mdl", &e);
    err_is(&e, JG_MODEL, "no Model or Library section", "error: empty input");
    jg__sl_tree_free(t);
    /* deep nesting: a lowered limit, then the default one */
    size_t n = 3000;
    char *deep = malloc(n * 8 + 32);
    char *w = deep + sprintf(deep, "Model {\n");
    for (size_t i = 0; i < n; i++) w += sprintf(w, "A {\n");
    *w = '\0';
    lim = (jg__sl_limits_t){0, 50};
    t = parse(deep, &e);
    err_is(&e, JG_PARSE, "sections nested deeper than 50", "error: nesting over a lowered limit");
    jg__sl_tree_free(t);
    lim = (jg__sl_limits_t){0, 0};
    t = parse(deep, &e);
    err_is(&e, JG_PARSE, "sections nested deeper than 1000", "error: nesting over the default limit");
    jg__sl_tree_free(t);
    free(deep);
}

/* ---- OPC text ---- */

static const char opc_head[] = "# MathWorks OPC Text Package\nModel {\n  Version  24.1\n}\n"
                               "__MWOPC_PACKAGE_BEGIN__ R2024a\n";

static void test_opc(void)
{
    jg_error_t e;
    jg__sl_tree_t *t = NULL;
    if (!tap_ok(jg__sl_read("tests/data/simulink/tiny_opc.mdl", NULL, &t, &e) == JG_OK && t,
                "opc: tests/data/simulink/tiny_opc.mdl reads")) {
        printf("#   %s\n", e.msg);
        return;
    }
    const jg__sl_node_t *m = model_of(t), *sys = jg__sl_child(m, "System");
    tap_ok(t->format == JG_SL_OPC_TEXT && t->root->nkid == 1 && m, "opc: format, root holds Model");
    tap_streq(t->release, "R2024a", "opc: release from __MWOPC_PACKAGE_BEGIN__");
    tap_streq(jg__sl_get(m, "InitFcn"), "Kf = 2;", "opc: <P> on the Model");
    tap_ok(sys && sys->part && !strcmp(sys->part, "simulink/systems/system_root.xml") &&
               count_blocks(sys) == 2,
           "opc: System Ref inlined from its part (base64 part skipped)");
    size_t i = 0;
    jg__sl_next(sys, "Block", &i);
    const jg__sl_node_t *g = jg__sl_next(sys, "Block", &i);
    tap_streq(jg__sl_get(g, "Name"), "G\nain", "opc: &#xA; in a Name attribute");
    tap_ok(g && g->line == 6, "opc: element line within its part");
    jg__sl_tree_free(t);

    /* two parts, no rels: the conventional names; CRLF markers */
    char buf[2048];
    snprintf(buf, sizeof buf,
             "%s__MWOPC_PART_BEGIN__ /simulink/blockdiagram.xml\r\n"
             "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<ModelInformation><Library>"
             "<System><Block BlockType=\"Gain\" Name=\"G\" SID=\"1\"/></System></Library></ModelInformation>\r\n"
             "\r\n__MWOPC_PART_BEGIN__ /simulink/bddefaults.xml\r\n"
             "<BlockDiagramDefaults><BlockParameterDefaults><Block BlockType=\"Gain\"><P Name=\"Gain\">1</P>"
             "</Block></BlockParameterDefaults></BlockDiagramDefaults>\r\n__MWOPC_PACKAGE_END__\r\n",
             opc_head);
    t = parse_n(buf, strlen(buf), "two.mdl", &e);
    tap_ok(t && !strcmp(model_of(t)->tag, "Library") && count_blocks(jg__sl_child(model_of(t), "System")) == 1 &&
               jg__sl_child(model_of(t), "BlockParameterDefaults"),
           "opc: two parts, CRLF, Library, bddefaults appended");
    jg__sl_tree_free(t);

    /* truncated package */
    size_t cut = strstr(buf, "__MWOPC_PACKAGE_END__") - buf;
    t = parse_n(buf, cut, "two.mdl", &e);
    err_is(&e, JG_PARSE, "missing __MWOPC_PACKAGE_END__", "opc: truncated package refused");
    jg__sl_tree_free(t);
    /* malformed XML part: line and column inside the part */
    snprintf(buf, sizeof buf,
             "%s__MWOPC_PART_BEGIN__ /simulink/blockdiagram.xml\n<ModelInformation>\n<Model>\n"
             "  <P Name=\"x\">1</Q>\n</Model></ModelInformation>\n__MWOPC_PACKAGE_END__\n",
             opc_head);
    t = parse_n(buf, strlen(buf), "bad.mdl", &e);
    err_is(&e, JG_PARSE, "bad.mdl: simulink/blockdiagram.xml:3:", "opc: malformed XML with part and line");
    jg__sl_tree_free(t);
    /* part over the size limit */
    lim = (jg__sl_limits_t){64, 0};
    snprintf(buf, sizeof buf,
             "%s__MWOPC_PART_BEGIN__ /simulink/blockdiagram.xml\n<ModelInformation><Model>"
             "<P Name=\"Description\">%080d</P></Model></ModelInformation>\n__MWOPC_PACKAGE_END__\n",
             opc_head, 0);
    t = parse_n(buf, strlen(buf), "big.mdl", &e);
    err_is(&e, JG_PARSE, "larger than the 64-byte limit", "opc: oversized part refused");
    jg__sl_tree_free(t);
    lim = (jg__sl_limits_t){0, 0};
}

/* ---- SLX ---- */

typedef struct member {
    const char *name, *data;
    size_t len;   /* 0: strlen(data) */
} member_t;

/* Write a zip of the members to a new temp file; returns its malloc'd path. */
static char *make_zip(const member_t *m, size_t n)
{
    char *path = malloc(strlen(tmpdir) + 32);
    sprintf(path, "%s/mXXXXXX", tmpdir);
    int fd = mkstemp(path);
    if (fd < 0) return path;
    close(fd);
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!z) return path;
    for (size_t i = 0; i < n; i++) {
        size_t len = m[i].len ? m[i].len : strlen(m[i].data);
        zip_source_t *s = zip_source_buffer(z, m[i].data, len, 0);
        if (!s || zip_file_add(z, m[i].name, s, ZIP_FL_OVERWRITE) < 0) zip_source_free(s);
    }
    zip_close(z);
    return path;
}

static jg__sl_tree_t *read_zip(const member_t *m, size_t n, jg_error_t *e)
{
    char *p = make_zip(m, n);
    jg__sl_tree_t *t = NULL;
    jg_error_clear(e);
    if (jg__sl_read(p, &lim, &t, e) != JG_OK) t = NULL;
    unlink(p);
    free(p);
    return t;
}

#define XMLDECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
static const char root_rels_a[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\n"
    "  <Relationship Id=\"blockDiagram\" Target=\"/simulink/blockdiagram_a.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2010/relationships/blockDiagram\"/>\n"
    "  <Relationship Id=\"rId1\" Target=\"metadata/coreProperties.xml\" "
    "Type=\"http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties\"/>\n"
    "</Relationships>\n";
static const char core_a[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?>\n"
    "<cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\">"
    "<cp:version>R2015a</cp:version></cp:coreProperties>\n";
/* up to R2019b: systems inline, defaults inline, Simulink.Mask objects */
static const char bd_a[] =
    XMLDECL
    "<ModelInformation Version=\"1.0\">\n"
    "  <Model>\n"
    "    <P Name=\"Version\">8.5</P>\n"
    "    <P Name=\"InitFcn\">Ta = 0.5;\nK = 2;</P>\n"
    "    <ModelWorkspace><P Name=\"WSDataSource\">MATLAB Code</P></ModelWorkspace>\n"
    "    <BlockParameterDefaults>\n"
    "      <Block BlockType=\"Gain\"><P Name=\"Gain\">1</P></Block>\n"
    "    </BlockParameterDefaults>\n"
    "    <System>\n"
    "      <P Name=\"Location\">[1, 2, 3, 4]</P>\n"
    "      <Block BlockType=\"TransferFcn\" Name=\"Actuator&#xA;Model \" SID=\"2\">\n"
    "        <P Name=\"Ports\">[1, 1]</P>\n"
    "        <P Name=\"Denominator\">[ Ta, 1]</P>\n"
    "        <PortProperties><Port Type=\"out\" Index=\"1\"><P Name=\"Name\">x1</P></Port></PortProperties>\n"
    "      </Block>\n"
    "      <Block BlockType=\"SubSystem\" Name=\"a/b &lt;&amp;&gt;\" SID=\"3\">\n"
    "        <PortCounts in=\"1\" out=\"1\"/>\n"
    "        <Object PropName=\"MaskObject\" ObjectID=\"4\" ClassName=\"Simulink.Mask\">\n"
    "          <P Name=\"Display\">disp('x')</P>\n"
    "          <Object PropName=\"Parameters\" ObjectID=\"5\" ClassName=\"Simulink.MaskParameter\">\n"
    "            <P Name=\"Name\">k</P><P Name=\"Value\">3</P>\n"
    "          </Object>\n"
    "        </Object>\n"
    "        <System>\n"
    "          <Block BlockType=\"Inport\" Name=\"In1\" SID=\"5\"/>\n"
    "          <Block BlockType=\"Gain\" Name=\"G\" SID=\"6\"><P Name=\"Gain\">k</P></Block>\n"
    "          <Block BlockType=\"Outport\" Name=\"Out1\" SID=\"7\"/>\n"
    "          <Line><P Name=\"Src\">5#out:1</P><P Name=\"Dst\">6#in:1</P></Line>\n"
    "        </System>\n"
    "      </Block>\n"
    "      <Line>\n"
    "        <P Name=\"Src\">2#out:1</P>\n"
    "        <Branch><P Name=\"Dst\">3#in:1</P></Branch>\n"
    "        <Branch><P Name=\"Points\">[0, -65]</P><Branch><P Name=\"Dst\">8#in:1</P></Branch></Branch>\n"
    "      </Line>\n"
    "    </System>\n"
    "  </Model>\n"
    "</ModelInformation>\n";

static void test_slx_inline(void)
{
    jg_error_t e;
    member_t mem[] = {{"_rels/.rels", root_rels_a, 0},
                      {"metadata/coreProperties.xml", core_a, 0},
                      {"metadata/thumbnail.png", "\x89PNG\r\n\x1a\n\0\0", 10},
                      {"simulink/blockdiagram_a.xml", bd_a, 0}};
    jg__sl_tree_t *t = read_zip(mem, 4, &e);
    if (!tap_ok(t != NULL, "slx inline: reads")) {
        printf("#   %s\n", e.msg);
        return;
    }
    const jg__sl_node_t *m = model_of(t), *sys = jg__sl_child(m, "System");
    tap_ok(t->format == JG_SL_SLX && t->root->nkid == 1 && m && m->part &&
               !strcmp(m->part, "simulink/blockdiagram_a.xml") && m->line == 3,
           "slx inline: blockdiagram found through _rels/.rels; Model line and part");
    tap_streq(t->release, "R2015a", "slx inline: release from coreProperties");
    tap_streq(jg__sl_get(m, "InitFcn"), "Ta = 0.5;\nK = 2;", "slx inline: literal newline in <P>");
    tap_streq(jg__sl_get(jg__sl_child(m, "ModelWorkspace"), "WSDataSource"), "MATLAB Code",
              "slx inline: settings group is a node");
    tap_ok(count_blocks(sys) == 5, "slx inline: 5 blocks, nested System inline");
    size_t i = 0;
    const jg__sl_node_t *tf = jg__sl_next(sys, "Block", &i), *ss = jg__sl_next(sys, "Block", &i);
    tap_ok(tf && tf->npar >= 3 && !strcmp(tf->par[0].key, "BlockType") && !strcmp(tf->par[1].key, "Name"),
           "slx inline: attributes first, in order");
    tap_streq(jg__sl_get(tf, "Name"), "Actuator\nModel ", "slx inline: &#xA; and trailing space");
    tap_streq(jg__sl_get(tf, "Denominator"), "[ Ta, 1]", "slx inline: <P> value");
    const jg__sl_node_t *pp = jg__sl_child(jg__sl_child(tf, "PortProperties"), "Port");
    tap_ok(pp && !strcmp(jg__sl_get(pp, "Type"), "out") && !strcmp(jg__sl_get(pp, "Index"), "1") &&
               !strcmp(jg__sl_get(pp, "Name"), "x1"),
           "slx inline: PortProperties/Port{Type,Index,Name}");
    tap_streq(jg__sl_get(ss, "Name"), "a/b <&>", "slx inline: XML entities in attributes");
    const jg__sl_node_t *pc = jg__sl_child(ss, "PortCounts");
    tap_ok(pc && !strcmp(jg__sl_get(pc, "in"), "1") && !strcmp(jg__sl_get(pc, "out"), "1"),
           "slx inline: PortCounts node");
    const jg__sl_node_t *mo = jg__sl_child(ss, "Object");
    const jg__sl_node_t *mp = jg__sl_child(mo, "Object");
    tap_ok(mo && !strcmp(jg__sl_get(mo, "ClassName"), "Simulink.Mask") &&
               !strcmp(jg__sl_get(mo, "PropName"), "MaskObject") &&
               !strcmp(jg__sl_get(mo, "Display"), "disp('x')") && mp &&
               !strcmp(jg__sl_get(mp, "ClassName"), "Simulink.MaskParameter") &&
               !strcmp(jg__sl_get(mp, "Name"), "k") && !strcmp(jg__sl_get(mp, "Value"), "3"),
           "slx inline: Simulink.Mask object with a MaskParameter object");
    const jg__sl_node_t *ln = jg__sl_child(sys, "Line");
    size_t k = 0;
    jg__sl_next(ln, "Branch", &k);
    const jg__sl_node_t *b2 = jg__sl_next(ln, "Branch", &k);
    tap_ok(ln && !strcmp(jg__sl_get(ln, "Src"), "2#out:1") && b2 &&
               !strcmp(jg__sl_get(jg__sl_child(b2, "Branch"), "Dst"), "8#in:1"),
           "slx inline: Line with nested Branches");
    tap_ok(jg__sl_child(m, "BlockParameterDefaults") != NULL, "slx inline: inline defaults");
    jg__sl_tree_free(t);
}

/* R2020a+: systems in parts (through rels, and by the conventional path), bddefaults */
static const char bd_b[] = XMLDECL
    "<ModelInformation Version=\"1.0\">\n  <Model>\n    <P Name=\"StartFcn\">x</P>\n"
    "    <System Ref=\"system_root\"/>\n  </Model>\n</ModelInformation>\n";
static const char bd_rels_b[] =
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"system_root\" Target=\"systems/system_root.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2010/relationships/system\"/></Relationships>";
static const char sysroot_rels_b[] =
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"system_7\" Target=\"./sub/../system_7.xml\" "
    "Type=\"http://schemas.mathworks.com/simulink/2010/relationships/system\"/></Relationships>";
static const char sysroot_b[] = XMLDECL
    "<System>\n"
    "  <P Name=\"SIDHighWatermark\">12</P>\n"
    "  <Block BlockType=\"SubSystem\" Name=\"Sub\" SID=\"7\">\n"
    "    <PortCounts in=\"1\" out=\"1\"/>\n"
    "    <Mask>\n"
    "      <Display RunInitForIconRedraw=\"off\">disp('?')</Display>\n"
    "      <MaskParameter Name=\"k\" Type=\"edit\"><Prompt>Gain</Prompt><Value>2</Value></MaskParameter>\n"
    "    </Mask>\n"
    "    <System Ref=\"system_7\"/>\n"
    "  </Block>\n"
    "  <Block BlockType=\"Reference\" Name=\"Sweep\" SID=\"8\">\n"
    "    <PortCounts out=\"1\"/>\n"
    "    <P Name=\"SourceBlock\">simulink/Sources/Repeating\nSequence</P>\n"
    "    <InstanceData>\n      <P Name=\"rep_seq_t\">[0 7000]</P>\n    </InstanceData>\n"
    "  </Block>\n"
    "  <Block BlockType=\"Gain\" Name=\"G\" SID=\"10\">\n    <PortCounts/>\n  </Block>\n"
    "</System>\n";
static const char sys7_b[] = XMLDECL
    "<System>\n  <Block BlockType=\"Inport\" Name=\"u\" SID=\"11\"/>\n"
    "  <Block BlockType=\"SubSystem\" Name=\"Inner\" SID=\"9\"><System Ref=\"system_9\"/></Block>\n"
    "  <Block BlockType=\"Outport\" Name=\"y\" SID=\"12\"/>\n</System>\n";
static const char sys9_b[] = XMLDECL
    "<System>\n  <Block BlockType=\"Constant\" Name=\"c\" SID=\"13\"/>\n</System>\n";
static const char bddef_b[] = XMLDECL
    "<BlockDiagramDefaults>\n"
    "  <BlockParameterDefaults><Block BlockType=\"Gain\"><P Name=\"Gain\">1</P></Block></BlockParameterDefaults>\n"
    "  <MaskDefaults SelfModifiable=\"off\"><Display IconFrame=\"on\"/></MaskDefaults>\n"
    "</BlockDiagramDefaults>\n";
static const char mwcore_b[] =
    "<mwcoreProperties xmlns=\"http://schemas.mathworks.com/package/2012/coreProperties\">"
    "<matlabRelease>R2024a</matlabRelease></mwcoreProperties>";

static void test_slx_parts(void)
{
    jg_error_t e;
    member_t mem[] = {{"simulink/blockdiagram.xml", bd_b, 0},
                      {"simulink/_rels/blockdiagram.xml.rels", bd_rels_b, 0},
                      {"simulink/systems/system_root.xml", sysroot_b, 0},
                      {"simulink/systems/_rels/system_root.xml.rels", sysroot_rels_b, 0},
                      {"simulink/systems/system_7.xml", sys7_b, 0},
                      {"simulink/systems/system_9.xml", sys9_b, 0},
                      {"simulink/bddefaults.xml", bddef_b, 0},
                      {"metadata/mwcoreProperties.xml", mwcore_b, 0},
                      {"simulink/bdmxdata/x.mxarray", "\0\1\2\3", 4}};
    jg__sl_tree_t *t = read_zip(mem, 9, &e);
    if (!tap_ok(t != NULL, "slx parts: reads")) {
        printf("#   %s\n", e.msg);
        return;
    }
    const jg__sl_node_t *m = model_of(t), *sys = jg__sl_child(m, "System");
    tap_streq(t->release, "R2024a", "slx parts: release from mwcoreProperties");
    tap_ok(sys && !strcmp(sys->part, "simulink/systems/system_root.xml") && sys->line == 2 &&
               !strcmp(jg__sl_get(sys, "SIDHighWatermark"), "12") && !jg__sl_get(sys, "Ref"),
           "slx parts: root System replaced by its part's root element");
    tap_ok(count_blocks(sys) == 7, "slx parts: 7 blocks through two levels of System Ref");
    size_t i = 0;
    const jg__sl_node_t *sub = jg__sl_next(sys, "Block", &i), *ref = jg__sl_next(sys, "Block", &i),
                        *g = jg__sl_next(sys, "Block", &i);
    const jg__sl_node_t *s7 = jg__sl_child(sub, "System");
    tap_ok(s7 && !strcmp(s7->part, "simulink/systems/system_7.xml"),
           "slx parts: Ref resolved through the part's rels (./ and ../ in Target)");
    size_t k = 0;
    jg__sl_next(s7, "Block", &k);
    const jg__sl_node_t *s9 = jg__sl_child(jg__sl_next(s7, "Block", &k), "System");
    tap_ok(s9 && !strcmp(s9->part, "simulink/systems/system_9.xml"),
           "slx parts: Ref without rels resolved by the conventional path");
    const jg__sl_node_t *mask = jg__sl_child(sub, "Mask");
    const jg__sl_node_t *disp = jg__sl_child(mask, "Display"), *mp = jg__sl_child(mask, "MaskParameter");
    tap_ok(mask && !strcmp(jg__sl_get(mask, "Display"), "disp('?')") && disp &&
               !strcmp(jg__sl_get(disp, "RunInitForIconRedraw"), "off"),
           "slx parts: <Display attr>text</Display> -> Mask param Display + Display node");
    tap_ok(mp && !strcmp(jg__sl_get(mp, "Name"), "k") && !strcmp(jg__sl_get(mp, "Type"), "edit") &&
               !strcmp(jg__sl_get(mp, "Prompt"), "Gain") && !strcmp(jg__sl_get(mp, "Value"), "2"),
           "slx parts: MaskParameter with <Prompt>/<Value> leaf elements as parameters");
    tap_streq(jg__sl_get(jg__sl_child(ref, "InstanceData"), "rep_seq_t"), "[0 7000]",
              "slx parts: InstanceData node");
    tap_streq(jg__sl_get(ref, "SourceBlock"), "simulink/Sources/Repeating\nSequence",
              "slx parts: SourceBlock with a newline");
    const jg__sl_node_t *epc = jg__sl_child(g, "PortCounts");
    tap_ok(epc && epc->npar == 0 && !jg__sl_get(g, "PortCounts"), "slx parts: empty <PortCounts/> stays a node");
    const jg__sl_node_t *bpd = jg__sl_child(m, "BlockParameterDefaults");
    const jg__sl_node_t *md = jg__sl_child(m, "MaskDefaults");
    tap_ok(bpd && md && m->kid[m->nkid - 1] == md &&
               !strcmp(jg__sl_get(jg__sl_child(bpd, "Block"), "Gain"), "1") &&
               !strcmp(bpd->part, "simulink/bddefaults.xml"),
           "slx parts: bddefaults children appended to the Model");
    tap_streq(jg__sl_get(md, "SelfModifiable"), "off", "slx parts: MaskDefaults attribute");
    jg__sl_tree_free(t);
}

/* blockdiagram.xml with n nested <Object> elements inside the System */
static char *deep_xml(size_t n)
{
    char *deep = malloc(n * 24 + 128), *w = deep;
    w += sprintf(w, "<ModelInformation><Model><System>");
    for (size_t i = 0; i < n; i++) w += sprintf(w, "<Object A=\"1\">");
    for (size_t i = 0; i < n; i++) w += sprintf(w, "</Object>");
    sprintf(w, "</System></Model></ModelInformation>");
    return deep;
}

static void test_slx_errors(void)
{
    jg_error_t e;
    jg__sl_tree_t *t;
    /* truncated and fake archives (from memory) */
    member_t good[] = {{"_rels/.rels", root_rels_a, 0}, {"simulink/blockdiagram_a.xml", bd_a, 0}};
    char *p = make_zip(good, 2);
    size_t len = 0;
    char *zbuf = tl_slurp(p, &len);
    unlink(p);
    free(p);
    t = parse_n(zbuf, len / 2, "cut.slx", &e);
    err_is(&e, JG_PARSE, "cut.slx: not a valid zip archive: ", "slx: truncated zip");
    jg__sl_tree_free(t);
    t = parse_n(zbuf, len - 10, "cut.slx", &e);
    err_is(&e, JG_PARSE, "not a valid zip archive", "slx: zip without the end of its directory");
    jg__sl_tree_free(t);
    t = parse("PK\x03\x04 this is not a zip at all, only the magic", &e);
    err_is(&e, JG_PARSE, "not a valid zip archive", "slx: PK magic, not a zip");
    jg__sl_tree_free(t);
    /* a flipped byte in the compressed data */
    char *bad = malloc(len);
    memcpy(bad, zbuf, len);
    bad[60] ^= 0x55;
    bad[61] ^= 0x55;
    t = parse_n(bad, len, "flip.slx", &e);
    tap_ok(t == NULL && e.status == JG_PARSE, "slx: corrupt member data refused (%s)", e.msg);
    jg__sl_tree_free(t);
    free(bad);
    free(zbuf);

    /* zip bomb: declared size over a lowered limit */
    lim = (jg__sl_limits_t){1000, 0};
    char *zeros = calloc(5001, 1);
    memset(zeros, ' ', 5000);
    member_t bomb[] = {{"simulink/blockdiagram.xml", bd_b, 0}, {"simulink/configSet0.xml", zeros, 5000}};
    t = read_zip(bomb, 2, &e);
    err_is(&e, JG_PARSE, "part simulink/configSet0.xml is larger than the 1000-byte limit",
           "slx: zip bomb refused by the declared size");
    jg__sl_tree_free(t);
    /* the same with the declared sizes patched down: the stream itself is cut off */
    p = make_zip(bomb + 1, 1);
    zbuf = tl_slurp(p, &len);
    unlink(p);
    free(p);
    for (size_t i = 0; i + 46 < len; i++) {
        unsigned char *u = (unsigned char *)zbuf + i;
        if (!memcmp(u, "PK\x03\x04", 4)) memcpy(u + 22, "\x0a\0\0\0", 4);   /* local header */
        if (!memcmp(u, "PK\x01\x02", 4)) memcpy(u + 24, "\x0a\0\0\0", 4);   /* central directory */
    }
    t = parse_n(zbuf, len, "lie.slx", &e);
    tap_ok(t == NULL && e.status == JG_PARSE, "slx: lying declared size refused (%s)", e.msg);
    jg__sl_tree_free(t);
    free(zbuf);
    /* total over 4x the limit from parts that are each small enough */
    member_t many[6];
    static const char *names[] = {"a.xml", "b.xml", "c.xml", "d.xml", "e.xml", "f.xml"};
    for (int i = 0; i < 6; i++) many[i] = (member_t){names[i], zeros, 900};
    t = read_zip(many, 6, &e);
    err_is(&e, JG_PARSE, "in total", "slx: total size of parts limited");
    jg__sl_tree_free(t);
    lim = (jg__sl_limits_t){0, 0};
    free(zeros);

    member_t nobd[] = {{"[Content_Types].xml", "<Types/>", 0}};
    t = read_zip(nobd, 1, &e);
    err_is(&e, JG_MODEL, "no simulink/blockdiagram.xml part", "slx: missing blockdiagram.xml");
    jg__sl_tree_free(t);
    member_t nomodel[] = {{"simulink/blockdiagram.xml", "<ModelInformation><Other/></ModelInformation>", 0}};
    t = read_zip(nomodel, 1, &e);
    err_is(&e, JG_MODEL, "has no <Model> or <Library> element", "slx: no Model element");
    jg__sl_tree_free(t);
    member_t malformed[] = {{"simulink/blockdiagram.xml",
                             XMLDECL "<ModelInformation>\n  <Model>\n    <P Name=\"x\">1</Q>\n", 0}};
    t = read_zip(malformed, 1, &e);
    err_is(&e, JG_PARSE, ": simulink/blockdiagram.xml:4:", "slx: malformed XML names part and line");
    tap_ok(strstr(e.msg, ":4:") && strstr(e.msg, "mismatch"), "slx: libxml2 message kept (%s)", e.msg);
    jg__sl_tree_free(t);
    member_t cycle[] = {{"simulink/blockdiagram.xml", bd_b, 0},
                        {"simulink/systems/system_root.xml",
                         "<System><Block BlockType=\"SubSystem\" Name=\"s\" SID=\"1\">"
                         "<System Ref=\"system_1\"/></Block></System>", 0},
                        {"simulink/systems/system_1.xml",
                         "<System><Block BlockType=\"SubSystem\" Name=\"s\" SID=\"1\">\n"
                         "<System Ref=\"system_1\"/></Block></System>", 0}};
    t = read_zip(cycle, 3, &e);
    err_is(&e, JG_MODEL, "simulink/systems/system_1.xml:2: System Ref 'system_1' is a cycle",
           "slx: System Ref cycle system_1 -> system_1");
    jg__sl_tree_free(t);
    member_t twice[] = {{"simulink/blockdiagram.xml", bd_b, 0},
                        {"simulink/systems/system_root.xml",
                         "<System><Block BlockType=\"SubSystem\" Name=\"a\" SID=\"1\"><System Ref=\"system_1\"/></Block>"
                         "<Block BlockType=\"SubSystem\" Name=\"b\" SID=\"2\"><System Ref=\"system_1\"/></Block></System>", 0},
                        {"simulink/systems/system_1.xml", "<System/>", 0}};
    t = read_zip(twice, 3, &e);
    err_is(&e, JG_MODEL, "is used twice", "slx: one system part used twice");
    jg__sl_tree_free(t);
    member_t missing[] = {{"simulink/blockdiagram.xml", bd_b, 0}};
    t = read_zip(missing, 1, &e);
    err_is(&e, JG_MODEL, "System Ref 'system_root' names no part", "slx: System Ref to a missing part");
    jg__sl_tree_free(t);
    /* no entity expansion, no external entities */
    member_t ent[] = {{"simulink/blockdiagram.xml",
                       "<?xml version=\"1.0\"?>\n<!DOCTYPE ModelInformation [\n"
                       "<!ENTITY e \"boom\">\n<!ENTITY x SYSTEM \"file:///etc/passwd\">\n]>\n"
                       "<ModelInformation><Model><P Name=\"a\">[&e;]</P><P Name=\"b\">&x;</P>"
                       "<System/></Model></ModelInformation>", 0}};
    t = read_zip(ent, 1, &e);
    tap_ok(t && !strcmp(jg__sl_get(model_of(t), "a"), "[]") && !strcmp(jg__sl_get(model_of(t), "b"), ""),
           "slx: entities neither expanded nor loaded");
    jg__sl_tree_free(t);
    /* deep elements: a lowered limit, and libxml2's own limit */
    char *deep = deep_xml(400);
    member_t dm[] = {{"simulink/blockdiagram.xml", deep, 0}};
    t = read_zip(dm, 1, &e);
    tap_ok(t == NULL && e.status == JG_PARSE, "slx: 400-deep XML refused (%s)", e.msg);
    jg__sl_tree_free(t);
    free(deep);
    lim = (jg__sl_limits_t){0, 50};
    dm[0].data = deep = deep_xml(60);
    t = read_zip(dm, 1, &e);
    err_is(&e, JG_PARSE, "elements nested deeper than 50", "slx: nesting over a lowered limit");
    jg__sl_tree_free(t);
    lim = (jg__sl_limits_t){0, 0};
    free(deep);
}

/* ---- files that are not files ---- */

static void test_files(void)
{
    jg_error_t e;
    jg__sl_tree_t *t = NULL;
    tap_ok(jg__sl_read(tmpdir, NULL, &t, &e) == JG_IO && !t && strstr(e.msg, "not a regular file"),
           "file: a directory is refused");
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.mdl", tmpdir);
    if (mkfifo(fifo, 0600) == 0) {
        tap_ok(jg__sl_read(fifo, NULL, &t, &e) == JG_IO && !t && strstr(e.msg, "not a regular file"),
               "file: a FIFO is refused without blocking");
        unlink(fifo);
    } else {
        tap_ok(1, "file: FIFO # SKIP mkfifo failed");
    }
    tap_ok(jg__sl_read("/dev/null", NULL, &t, &e) == JG_IO && !t, "file: a device is refused");
    tap_ok(jg__sl_read("tests/data/simulink/no-such-file.mdl", NULL, &t, &e) == JG_IO && !t &&
               strstr(e.msg, "no-such-file.mdl"),
           "file: a missing file names itself");
    /* over the file size limit (4x the part limit) */
    char big[300];
    snprintf(big, sizeof big, "%s/big.mdl", tmpdir);
    FILE *f = fopen(big, "w");
    for (int i = 0; i < 100; i++) fputs("Model {\n}\n", f);
    fclose(f);
    lim = (jg__sl_limits_t){100, 0};
    tap_ok(jg__sl_read(big, &lim, &t, &e) == JG_IO && !t && strstr(e.msg, "limit"), "file: size limit");
    lim = (jg__sl_limits_t){0, 0};
    unlink(big);
}

/* ---- size: a 100k-block classic MDL ---- */

static void test_large(void)
{
    size_t nb = 100000;
    size_t cap = nb * 400 + 1024, n = 0;
    char *s = malloc(cap);
    n += sprintf(s + n, "Model {\n  Name \"big\"\n  Version 8.1\n  System {\n    Name \"big\"\n");
    for (size_t i = 0; i < nb; i++)
        n += sprintf(s + n,
                     "    Block {\n      BlockType\t      Gain\n      Name\t\t      \"Gain%zu\"\n"
                     "      SID\t\t      \"%zu\"\n      Position\t      [100, 40, 130, 70]\n"
                     "      ZOrder\t\t      %zu\n      Gain\t\t      \"K*2\"\n"
                     "      Description\t      \"a long description split over \"\n      \"two lines\"\n    }\n",
                     i, i + 1, i);
    n += sprintf(s + n, "  }\n}\n");
    jg_error_t e;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    jg__sl_tree_t *t = parse_n(s, n, "big.mdl", &e);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    tap_ok(t && count_blocks(jg__sl_child(model_of(t), "System")) == nb,
           "large: 100k-block classic MDL (%.1f MB) in %.3f s", (double)n / 1e6, dt);
    jg__sl_tree_free(t);
    free(s);
}

/* ---- the real models, when present beside the repository ---- */

static void test_corpus(void)
{
    static const struct {
        const char *file;
        size_t blocks;
        const char *release;
        jg__sl_format_t format;
    } want[] = {
        {"EmbSys-WWU__Simulink2dL__ports_2013a.mdl", 713, "R2013a", JG_SL_MDL},
        {"EmbSys-WWU__Simulink2dL__model01.mdl", 24, "R14SP3", JG_SL_MDL},
        {"EmbSys-WWU__Simulink2dL__model01_2013a.slx", 24, "R2013a", JG_SL_SLX},
        {"EmbSys-WWU__Simulink2dL__TemperatureControl.slx", 8, "R2020a", JG_SL_SLX},
        {"Apress__practical-matlab-modeling-w-simulink__DC__motor.slx", 5, "R2017a", JG_SL_SLX},
        {"Apress__practical-matlab-modeling-w-simulink__Sim_Model_2ndODE_ex1.mdl", 9, "R2012b", JG_SL_MDL},
        {"Apress__practical-matlab-modeling-w-simulink__IMPLICIT_2ODE_EX4_sim.mdl", 6, "R2019b", JG_SL_MDL},
        {"mo7amd__Control_labs__FreqDomainControl.slx", 6, "R2015a", JG_SL_SLX},
        {"12imish__diff-views-test-models__sldemo_tc.mdl", 30, "R2024a", JG_SL_OPC_TEXT},
        {"12imish__diff-views-test-models__sldemo_adc_quantize.mdl", 18, "R2024a", JG_SL_OPC_TEXT},
        {"12imish__diff-views-test-models__sldemo_adc_quantize.slx", 18, "R2024a", JG_SL_SLX},
    };
    if (!tl_corpus_present()) return;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *path = tl_corpus(want[i].file);
        struct stat sb;
        if (stat(path, &sb) != 0) {
            tap_ok(1, "corpus %s # SKIP absent", want[i].file);
            continue;
        }
        jg_error_t e;
        jg__sl_tree_t *t = NULL;
        jg_status_t st = jg__sl_read(path, NULL, &t, &e);
        size_t nb = st == JG_OK ? count_blocks(jg__sl_child(model_of(t), "System")) : 0;
        int ok = st == JG_OK && nb == want[i].blocks && t->format == want[i].format && t->release &&
                 !strcmp(t->release, want[i].release);
        if (!tap_ok(ok, "corpus %s: %zu blocks, %s", want[i].file, want[i].blocks, want[i].release))
            printf("#   status %s (%s), %zu blocks, release %s\n", jg_status_name(st),
                   st ? e.msg : "", nb, t && t->release ? t->release : "-");
        jg__sl_tree_free(t);
    }
}

int main(void)
{
    if (!tl_tmpdir(tmpdir, sizeof tmpdir, "test_import_sltree")) {
        perror("mkdtemp");
        return 1;
    }
    test_mdl_tokens();
    test_mdl_encodings();
    test_mdl_file();
    test_mdl_errors();
    test_opc();
    test_slx_inline();
    test_slx_parts();
    test_slx_errors();
    test_files();
    test_large();
    test_corpus();
    rmdir(tmpdir);
    return tap_done();
}
