/* sltree.h -- the one in-memory form of a Simulink file, whatever its encoding
 * (private to lib/import).
 *
 * Classic MDL sections, OPC-text parts and SLX zip parts all become the same
 * tree of nodes: a node has a tag ("Model", "System", "Block", "Line",
 * "Branch", "Port", "Object", "Array", "BlockParameterDefaults", "Mask",
 * "MaskParameter", ...), an ordered list of string parameters and ordered
 * children.  Strings are UTF-8 (the reader decodes SavedCharacterEncoding),
 * unquoted and unescaped: the classic `Name "Hydraulic\nLag "` and the XML
 * `Name="Hydraulic&#xA;Lag "` both give the value "Hydraulic<LF>Lag ".
 * Everything lives in the tree's arena.
 *
 * How each encoding maps (lib/import/convert.c interprets the tree):
 *  - classic MDL: a section `NAME { ... }` is a node with tag NAME; `KEY VALUE`
 *    is a parameter (quoted pieces concatenated, brackets kept as text:
 *    "[1, 2; 3, 4]", bare tokens as text).  Repeated keys stay repeated.
 *  - XML (SLX parts, OPC-text parts): an element is a node with tag = element
 *    name; its attributes are parameters (BlockType, Name, SID, Ref,
 *    PropName, ClassName, Type, Index, in, out, ...); a child `<P Name="K">V</P>`
 *    is parameter K = V; a child element with no attributes and no element
 *    children (`<Value>1</Value>`, `<Display>..</Display>`) is parameter
 *    tag = text; every other child element is a child node.
 *  - SLX / OPC text: `<System Ref="system_3"/>` is replaced by the root
 *    element of the part simulink/systems/system_3.xml (so systems are always
 *    inline, as up to R2019b); simulink/bddefaults.xml's children
 *    (BlockParameterDefaults, ...) are appended to the Model node; the Model
 *    (or Library) element of blockdiagram.xml is the root node's only child
 *    tagged "Model"/"Library", as in classic MDL.
 *
 * The root node returned by a reader has tag "" and holds, in classic MDL,
 * the file's top-level sections (Model or Library, MatData, Stateflow, ...).
 */
#ifndef JG_IMPORT_SLTREE_H
#define JG_IMPORT_SLTREE_H
#include <stddef.h>
#include <stdio.h>
#include "jacgraph/status.h"
#include "../core/arena.h"

typedef struct jg__sl_param {
    const char *key, *val;
} jg__sl_param_t;

typedef struct jg__sl_node jg__sl_node_t;
struct jg__sl_node {
    const char *tag;
    jg__sl_param_t *par;     /* npar, in file order */
    size_t npar;
    jg__sl_node_t **kid;     /* nkid, in file order */
    size_t nkid;
    int line;                /* 1-based line of the section/element start (0: unknown) */
    const char *part;        /* SLX/OPC part name ("simulink/blockdiagram.xml"), NULL in MDL */
};

typedef enum {
    JG_SL_MDL = 0,       /* classic MDL text */
    JG_SL_OPC_TEXT = 1,  /* "# MathWorks OPC Text Package" MDL */
    JG_SL_SLX = 2        /* zip */
} jg__sl_format_t;

typedef struct jg__sl_tree {
    jg_arena_t arena;
    jg__sl_node_t *root;
    jg__sl_format_t format;
    const char *source;      /* file name for messages */
    const char *release;     /* "R2013a" when known (metadata or Version), else NULL */
    size_t max_part;         /* the limits of this read (jg__sl_limits_t, defaults applied) */
    int max_depth;
} jg__sl_tree_t;

/* Read a file of any of the three encodings (sniffed from the content: "PK"
 * zip magic, "# MathWorks OPC Text Package", else classic MDL).  On success
 * *out is a new tree (jg__sl_tree_free).  Errors name the file and where:
 * JG_IO (unreadable, a directory or FIFO), JG_PARSE ("f.mdl:12:3: unbalanced
 * '}'", "f.slx: simulink/blockdiagram.xml:40:7: <xml error>", "f.slx: not a
 * zip archive / truncated", "f.slx: part X is larger than the N-byte limit"),
 * JG_MODEL (no blockdiagram.xml, no Model section).  Limits: a zip member or
 * an OPC part larger than JG__SL_MAX_PART bytes uncompressed is refused (zip
 * bombs); nesting deeper than JG__SL_MAX_DEPTH is refused. */
#define JG__SL_MAX_PART ((size_t)1 << 30)
#define JG__SL_MAX_DEPTH 1000
/* Limits of one read, for tests to exercise the refusals without gigabyte
 * files: a zero field (or lim NULL) takes the default above; a file may be
 * 4 max_part bytes. */
typedef struct jg__sl_limits {
    size_t max_part;
    int max_depth;
} jg__sl_limits_t;
jg_status_t jg__sl_read(const char *path, const jg__sl_limits_t *lim, jg__sl_tree_t **out, jg_error_t *err);
/* The same from memory (`source` names it in messages). */
jg_status_t jg__sl_parse(const char *buf, size_t len, const char *source, const jg__sl_limits_t *lim,
                         jg__sl_tree_t **out, jg_error_t *err);
void jg__sl_tree_free(jg__sl_tree_t *t);

/* Per-encoding entry points used by jg__sl_parse (buf need not be
 * NUL-terminated). */
jg_status_t jg__sl_parse_mdl(jg__sl_tree_t *t, const char *buf, size_t len, jg_error_t *err);
jg_status_t jg__sl_parse_opc_text(jg__sl_tree_t *t, const char *buf, size_t len,
                                  jg_error_t *err);
jg_status_t jg__sl_parse_slx(jg__sl_tree_t *t, const char *buf, size_t len, jg_error_t *err);

/* Helpers over nodes. */
const char *jg__sl_get(const jg__sl_node_t *n, const char *key);        /* first value, or NULL */
/* Children with tag `tag` one after another: pass *i = 0 first; NULL at the end. */
jg__sl_node_t *jg__sl_next(const jg__sl_node_t *n, const char *tag, size_t *i);
jg__sl_node_t *jg__sl_child(const jg__sl_node_t *n, const char *tag);  /* first, or NULL */

/* ---- Additions used by the readers themselves (sltree.c, mdl.c, opc.c,
 * slx.c, xml.c) and by tests/test_import_sltree.c. ----
 *
 * Details of the mappings above, as implemented:
 *  - classic keys are kept verbatim: `$ClassName`, `$PropName`, `$ObjectID`
 *    (XML writes the same as attributes ClassName, PropName, ObjectID).
 *  - XML: attributes come first among a node's parameters, in document
 *    order, then <P> and leaf-element parameters in document order.  Other
 *    attributes of <P> (Class="char", Ref="bdmxdata:...") are dropped: such a
 *    <P> gives K = its text ("" for a Ref to binary data).
 *  - XML: these tags are always nodes, even written empty and without
 *    attributes: System Block Line Branch Port PortCounts PortProperties
 *    InstanceData Mask MaskParameter Object Array Annotation Model Library
 *    List and every *Defaults (so <PortCounts/> is a node with no parameters).
 *  - XML: a leaf element with attributes is a node holding them; when it
 *    also has non-blank text, the parent additionally gets parameter
 *    tag = text (<Display RunInitForIconRedraw="off">disp('?')</Display>:
 *    Mask has Display = "disp('?')" and a child Display node).
 *  - XML: entities are never substituted: an undeclared or user-defined
 *    "&name;" in text is dropped, in an attribute kept literally.
 *  - `line` is the line of the section opener (MDL) or of the end of the
 *    element's start tag within its part (XML); `part` names that part. */

/* Debug dump of a node and everything under it, one parameter per line. */
void jg__sl_dump(FILE *f, const jg__sl_node_t *n);

/* Tree builder: nodes are opened and closed in document order; parameters
 * and children collect in shared scratch stacks and are copied into the
 * arena, exactly sized, when their node closes (no per-node realloc).
 * Strings go to a bump pool in the arena; keys and tags are interned. */
typedef struct jg__sl_frame {
    jg__sl_node_t *node;
    size_t par0, kid0;
} jg__sl_frame_t;
typedef struct jg__sl_builder {
    jg__sl_tree_t *t;
    jg__sl_param_t *par;
    size_t npar, cpar;
    jg__sl_node_t **kid;
    size_t nkid, ckid;
    jg__sl_frame_t *fr;
    size_t nfr, cfr;
    char *pool;              /* free bytes of the current string chunk */
    size_t pool_left;
    const char **intern;     /* open-addressing set of interned keys/tags */
    size_t nintern, cintern;
} jg__sl_builder_t;
void jg__sl_builder_init(jg__sl_builder_t *b, jg__sl_tree_t *t);
void jg__sl_builder_fini(jg__sl_builder_t *b);   /* frees scratch, not the tree */
/* Copy s[0..n) (NUL added) into the tree's arena; NULL when out of memory. */
char *jg__sl_str(jg__sl_builder_t *b, const char *s, size_t n);
/* The same, shared with every equal string passed here (keys, tags). */
const char *jg__sl_intern(jg__sl_builder_t *b, const char *s, size_t n);
/* Open a node as the last child of the current one; tag must already live
 * in the arena (jg__sl_intern).  NULL when out of memory. */
jg__sl_node_t *jg__sl_open(jg__sl_builder_t *b, const char *tag, int line, const char *part);
/* Add a parameter to the open node (strings already in the arena); -1 when
 * out of memory. */
int jg__sl_add(jg__sl_builder_t *b, const char *key, const char *val);
/* Close the open node; returns it (the root when the last one closes). */
jg__sl_node_t *jg__sl_close(jg__sl_builder_t *b);

/* An OPC package as "part name -> bytes" (names without the leading '/',
 * bytes not owned).  slx.c fills it from the zip, opc.c from the text. */
typedef struct jg__sl_part {
    const char *name;
    const char *data;
    size_t len;
} jg__sl_part_t;
typedef struct jg__sl_parts {
    jg__sl_part_t *v;
    size_t n, cap;
} jg__sl_parts_t;
/* Append (name and data are borrowed); -1 when out of memory. */
int jg__sl_parts_add(jg__sl_parts_t *ps, const char *name, const char *data, size_t len);
void jg__sl_parts_fini(jg__sl_parts_t *ps);
/* Build t->root from a package: the blockdiagram part (via _rels/.rels),
 * System Ref parts inlined, bddefaults appended; t->release from the
 * metadata parts, else release_hint (may be NULL). */
jg_status_t jg__sl_build_parts(jg__sl_tree_t *t, const jg__sl_parts_t *ps,
                               const char *release_hint, jg_error_t *err);
/* "8.1" -> "R2013a" (Simulink Version numbers); NULL when unknown. */
const char *jg__sl_release_of_version(const char *version);

#endif
