/* OPC part set (SLX zip members or OPC-text parts) -> Simulink tree: the XML-to-node mapping. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include "sltree.h"

/* Relationships of one part: Id -> resolved target part name. */
typedef struct rels {
    const char **id, **target, **type;
    size_t n;
    int loaded;
} rels_t;

typedef struct xctx {
    jg__sl_builder_t b;
    jg__sl_tree_t *t;
    const jg__sl_parts_t *ps;
    const jg__sl_part_t **order;   /* parts sorted by name, for binary search */
    unsigned char *state;    /* per part: 1 while being inlined, 2 inlined */
    rels_t *rels;            /* per part, loaded on demand */
    int depth, maxdepth;
    jg_error_t *err;
} xctx_t;

static jg_status_t nomem(xctx_t *x)
{
    return jg_error_set(x->err, JG_NOMEM, "%s: out of memory", x->t->source);
}

/* ---- part lookup ---- */

static int cmp_part(const void *a, const void *b)
{
    return strcmp((*(const jg__sl_part_t *const *)a)->name, (*(const jg__sl_part_t *const *)b)->name);
}

/* index of the part called name, or -1 */
static long find_part(const xctx_t *x, const char *name)
{
    size_t lo = 0, hi = x->ps->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(x->order[mid]->name, name);
        if (!c) return (long)(x->order[mid] - x->ps->v);
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Resolve an OPC relationship target against the directory of part `from`
 * ("simulink/blockdiagram.xml" + "systems/system_1.xml"), handling "/",
 * "./" and "../".  Result in the arena. */
static const char *resolve(xctx_t *x, const char *from, const char *target)
{
    size_t fl = strlen(from), tl = strlen(target);
    char *buf = malloc(fl + tl + 2), *out = NULL;
    if (!buf) return NULL;
    size_t n = 0;
    if (target[0] != '/') {
        const char *slash = strrchr(from, '/');
        if (slash) {
            n = (size_t)(slash - from) + 1;
            memcpy(buf, from, n);
        }
    }
    for (const char *s = target; *s;) {
        const char *e = strchr(s, '/');
        size_t sl = e ? (size_t)(e - s) : strlen(s);
        if (sl == 0 || (sl == 1 && s[0] == '.')) {
            /* empty or "." segment */
        } else if (sl == 2 && s[0] == '.' && s[1] == '.') {
            if (n) n--;   /* drop the trailing '/' then the segment */
            while (n && buf[n - 1] != '/') n--;
        } else {
            memcpy(buf + n, s, sl);
            n += sl;
            if (e) buf[n++] = '/';
        }
        s = e ? e + 1 : s + sl;
    }
    out = jg__sl_str(&x->b, buf, n);
    free(buf);
    return out;
}

/* ---- libxml2 with a per-context error handler ---- */

typedef struct xerr {
    int have, line, col;
    char msg[400];
} xerr_t;

static void on_xml_error(void *ud, xmlErrorPtr e)
{
    xmlParserCtxtPtr c = ud;
    xerr_t *xe = c ? c->_private : NULL;
    if (!xe || xe->have || !e || e->level < XML_ERR_ERROR) return;
    xe->have = 1;
    xe->line = e->line;
    xe->col = e->int2;
    snprintf(xe->msg, sizeof xe->msg, "%s", e->message ? e->message : "malformed XML");
    size_t n = strlen(xe->msg);
    while (n && (xe->msg[n - 1] == '\n' || xe->msg[n - 1] == ' ')) xe->msg[--n] = '\0';
}

/* Parse part i; no network, no entity substitution, no external DTD, no
 * huge-document relaxations.  Errors name file, part, line and column. */
static jg_status_t parse_part(xctx_t *x, size_t i, xmlDocPtr *doc)
{
    jg_status_t st = JG_OK;
    const jg__sl_part_t *p = &x->ps->v[i];
    xerr_t xe = {0};
    *doc = NULL;
    if (p->len > (size_t)INT_MAX)
        return jg_error_set(x->err, JG_PARSE, "%s: part %s is too large", x->t->source, p->name);
    xmlParserCtxtPtr c = xmlCreateMemoryParserCtxt(p->data, (int)p->len);
    if (!c) return nomem(x);
    xmlCtxtUseOptions(c, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
    c->_private = &xe;
    c->sax->serror = on_xml_error;   /* per context: nothing printed, no global handler */
    xmlParseDocument(c);
    if (c->wellFormed && c->myDoc) {
        *doc = c->myDoc;
        c->myDoc = NULL;
    } else if (xe.have) {
        st = jg_error_set(x->err, JG_PARSE, "%s: %s:%d:%d: %s", x->t->source, p->name, xe.line,
                          xe.col, xe.msg);
    } else {
        st = jg_error_set(x->err, JG_PARSE, "%s: %s: malformed XML", x->t->source, p->name);
    }
    if (c->myDoc) xmlFreeDoc(c->myDoc);
    c->myDoc = NULL;
    xmlFreeParserCtxt(c);
    return st;
}

/* Text of a node list (TEXT and CDATA nodes; entity references are not
 * expanded) into the arena. */
static const char *text_of(xctx_t *x, xmlNodePtr kid)
{
    xmlNodePtr only = NULL;
    size_t total = 0, count = 0;
    for (xmlNodePtr k = kid; k; k = k->next)
        if ((k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) && k->content) {
            total += strlen((const char *)k->content);
            count++;
            only = k;
        }
    if (count <= 1) {
        const char *s = only ? (const char *)only->content : "";
        return jg__sl_str(&x->b, s, strlen(s));
    }
    char *d = jg__sl_str(&x->b, "", total), *w = d;   /* reserve, then fill */
    if (!d) return NULL;
    for (xmlNodePtr k = kid; k; k = k->next)
        if ((k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) && k->content) {
            size_t l = strlen((const char *)k->content);
            memcpy(w, k->content, l);
            w += l;
        }
    *w = '\0';
    return d;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return 0;
    return 1;
}

/* Containers stay nodes even when written empty (<PortCounts/>, <System/>). */
static int structural(const char *tag)
{
    static const char *const names[] = {"System", "Block", "Line", "Branch", "Port", "PortCounts",
                                        "PortProperties", "InstanceData", "Mask", "MaskParameter",
                                        "Object", "Array", "Annotation", "Model", "Library", "List"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(tag, names[i])) return 1;
    size_t n = strlen(tag);
    return n >= 8 && !strcmp(tag + n - 8, "Defaults");
}

static const char *attr_of(xmlNodePtr el, const char *name)
{
    for (xmlAttrPtr a = el->properties; a; a = a->next)
        if (!strcmp((const char *)a->name, name) && a->children &&
            a->children->type == XML_TEXT_NODE)
            return (const char *)a->children->content;
    return NULL;
}

/* ---- relationships ---- */

/* Load the relationships of part i ("dir/_rels/name.rels"); a missing rels
 * part is an empty set. */
static jg_status_t load_rels(xctx_t *x, size_t i)
{
    jg_status_t st = JG_OK;
    rels_t *r = &x->rels[i];
    xmlDocPtr doc = NULL;
    if (r->loaded) return JG_OK;
    r->loaded = 1;
    const char *name = x->ps->v[i].name, *slash = strrchr(name, '/');
    size_t dl = slash ? (size_t)(slash - name) + 1 : 0;
    size_t need = strlen(name) + 16;
    char *rn = malloc(need);
    if (!rn) return nomem(x);
    snprintf(rn, need, "%.*s_rels/%s.rels", (int)dl, name, name + dl);
    long ri = find_part(x, rn);
    free(rn);
    if (ri < 0) return JG_OK;
    if ((st = parse_part(x, (size_t)ri, &doc))) goto done;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    size_t cap = 0;
    for (xmlNodePtr k = root ? root->children : NULL; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || strcmp((const char *)k->name, "Relationship")) continue;
        const char *id = attr_of(k, "Id"), *tg = attr_of(k, "Target"), *ty = attr_of(k, "Type");
        const char *mode = attr_of(k, "TargetMode");
        if (!id || !tg || (mode && !strcmp(mode, "External"))) continue;
        if (r->n == cap) {
            cap = cap ? 2 * cap : 16;
            const char **a = jg_arena_alloc(&x->t->arena, 3 * cap * sizeof *a);
            if (!a) {
                st = nomem(x);
                goto done;
            }
            if (r->n) {
                memcpy(a, r->id, r->n * sizeof *a);
                memcpy(a + cap, r->target, r->n * sizeof *a);
                memcpy(a + 2 * cap, r->type, r->n * sizeof *a);
            }
            r->id = a;
            r->target = a + cap;
            r->type = a + 2 * cap;
        }
        r->id[r->n] = jg__sl_str(&x->b, id, strlen(id));
        r->target[r->n] = resolve(x, name, tg);
        r->type[r->n] = jg__sl_str(&x->b, ty ? ty : "", ty ? strlen(ty) : 0);
        if (!r->id[r->n] || !r->target[r->n] || !r->type[r->n]) {
            st = nomem(x);
            goto done;
        }
        r->n++;
    }
done:
    if (doc) xmlFreeDoc(doc);
    return st;
}

/* Target of the first root relationship whose Type ends in `suffix`, else
 * the conventional name; -1 when neither part exists. */
static long root_target(xctx_t *x, const rels_t *root, const char *suffix, const char *dflt)
{
    size_t sl = strlen(suffix);
    for (size_t i = 0; root && i < root->n; i++) {
        size_t tl = strlen(root->type[i]);
        if (tl >= sl && !strcmp(root->type[i] + tl - sl, suffix)) {
            long k = find_part(x, root->target[i]);
            if (k >= 0) return k;
        }
    }
    return find_part(x, dflt);
}

/* ---- elements -> nodes, streamed (SAX2): no DOM for the big parts ---- */

enum { MODE_BD, MODE_SYSTEM, MODE_DEFAULTS };

/* An open element whose shape (parameter or node) is known only once its
 * first child element or its end arrives. */
typedef struct pend {
    const char *tag;
    int line;
    size_t attr0, text0;      /* its attributes and text in the scratch stacks */
    const char *pname;        /* <P Name="K">: K */
    const char *ref;          /* <System Ref="R">: R */
    int node;                 /* opened in the builder */
} pend_t;

typedef struct sax {
    xerr_t xe;                /* first: on_xml_error reads it through _private */
    xctx_t *x;
    xmlParserCtxtPtr ctxt;
    size_t pidx;
    const char *part;
    int mode, level, skip, model_seen;
    long di;                  /* MODE_BD: the bddefaults part, or -1 */
    pend_t *pd;
    size_t npd, cpd;
    jg__sl_param_t *attr;
    size_t nattr, cattr;
    char *text;
    size_t ntext, ctext;
    jg_status_t st;
} sax_t;

static jg_status_t sax_part(xctx_t *x, size_t pidx, int mode, long di);

static int grow_to(void **v, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *p = realloc(*v, nc * sz);
    if (!p) return -1;
    *v = p;
    *cap = nc;
    return 0;
}

static void sx_fail(sax_t *s, jg_status_t st)
{
    if (!s->st) s->st = st;
    xmlStopParser(s->ctxt);
}

/* The element becomes a node: open it and give it its attributes. */
static int materialize(sax_t *s, pend_t *p)
{
    if (!jg__sl_open(&s->x->b, p->tag, p->line, s->part)) return -1;
    for (size_t i = p->attr0; i < s->nattr; i++)
        if (jg__sl_add(&s->x->b, s->attr[i].key, s->attr[i].val)) return -1;
    p->node = 1;
    return 0;
}

/* Inline the part that <System Ref="..."/> names, at the current position. */
static jg_status_t inline_system(xctx_t *x, const char *ref, size_t pidx, int line)
{
    jg_status_t st = JG_OK;
    const char *from = x->ps->v[pidx].name;
    if ((st = load_rels(x, pidx))) return st;
    const rels_t *r = &x->rels[pidx];
    long k = -1;
    for (size_t i = 0; i < r->n && k < 0; i++)
        if (!strcmp(r->id[i], ref)) k = find_part(x, r->target[i]);
    if (k < 0) {   /* no relationship: the conventional place */
        size_t need = strlen(ref) + 32;
        char *nm = malloc(need);
        if (!nm) return nomem(x);
        snprintf(nm, need, "simulink/systems/%s.xml", ref);
        k = find_part(x, nm);
        free(nm);
    }
    if (k < 0)
        return jg_error_set(x->err, JG_MODEL, "%s: %s:%d: System Ref '%s' names no part",
                            x->t->source, from, line, ref);
    if (x->state[k] == 1)
        return jg_error_set(x->err, JG_MODEL, "%s: %s:%d: System Ref '%s' is a cycle through %s",
                            x->t->source, from, line, ref, x->ps->v[k].name);
    if (x->state[k] == 2)
        return jg_error_set(x->err, JG_MODEL, "%s: %s:%d: System Ref '%s': part %s is used twice",
                            x->t->source, from, line, ref, x->ps->v[k].name);
    x->state[k] = 1;
    st = sax_part(x, (size_t)k, MODE_SYSTEM, -1);
    x->state[k] = 2;
    return st;
}

static void sx_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nns, const xmlChar **ns, int nattr, int ndef, const xmlChar **attrs)
{
    xmlParserCtxtPtr c = ctx;
    sax_t *s = c ? c->_private : NULL;
    (void)prefix, (void)uri, (void)nns, (void)ns, (void)ndef;
    if (!s || c != s->ctxt || s->st) return;   /* not an entity-check sub-parser */
    xctx_t *x = s->x;
    const char *name = (const char *)localname;
    int lvl = s->level++;
    if (s->skip) {
        s->skip++;
        return;
    }
    int is_model = 0;
    if (lvl == 0) {
        if (s->mode != MODE_SYSTEM) return;   /* ModelInformation, BlockDiagramDefaults */
        if (strcmp(name, "System")) {
            jg_error_set(x->err, JG_MODEL, "%s: %s: the root element is not <System>", x->t->source,
                         s->part);
            sx_fail(s, JG_MODEL);
            return;
        }
    } else if (lvl == 1 && s->mode == MODE_BD) {
        is_model = !s->model_seen && (!strcmp(name, "Model") || !strcmp(name, "Library"));
        if (!is_model) {   /* anything else beside the Model is not ours */
            s->skip = 1;
            return;
        }
        s->model_seen = 1;
    }
    if (x->b.nfr >= (size_t)x->maxdepth) {
        jg_error_set(x->err, JG_PARSE, "%s: %s:%d: elements nested deeper than %d", x->t->source,
                     s->part, xmlSAX2GetLineNumber(c), x->maxdepth);
        sx_fail(s, JG_PARSE);
        return;
    }
    if (s->npd && !s->pd[s->npd - 1].node) {   /* the parent has an element child: a node */
        if (materialize(s, &s->pd[s->npd - 1])) goto oom;
        s->ntext = s->pd[s->npd - 1].text0;
    }
    if (grow_to((void **)&s->pd, &s->cpd, s->npd + 1, sizeof *s->pd) ||
        grow_to((void **)&s->attr, &s->cattr, s->nattr + (size_t)nattr, sizeof *s->attr))
        goto oom;
    pend_t *p = &s->pd[s->npd++];
    memset(p, 0, sizeof *p);
    p->line = xmlSAX2GetLineNumber(c);
    p->attr0 = s->nattr;
    p->text0 = s->ntext;
    int is_p = name[0] == 'P' && name[1] == '\0';
    for (int i = 0; i < nattr; i++) {
        const char *an = (const char *)attrs[5 * i], *v0 = (const char *)attrs[5 * i + 3];
        size_t vl = (size_t)(attrs[5 * i + 4] - attrs[5 * i + 3]);
        if (is_p) {   /* only Name matters on <P> (Class is a MATLAB type hint) */
            if (!strcmp(an, "Name") && !(p->pname = jg__sl_intern(&x->b, v0, vl))) goto oom;
            continue;
        }
        const char *k = jg__sl_intern(&x->b, an, strlen(an));
        char *v = jg__sl_str(&x->b, v0, vl);
        if (!k || !v) goto oom;
        if (memchr(v, '&', vl)) {
            /* without entity substitution libxml2 hands '&' over as "&#38;"
             * (any other "&name;" left is an unexpanded entity: kept) */
            char *w = v;
            for (const char *r = v; *r;) {
                if (!strncmp(r, "&#38;", 5)) {
                    *w++ = '&';
                    r += 5;
                } else {
                    *w++ = *r++;
                }
            }
            *w = '\0';
        }
        s->attr[s->nattr++] = (jg__sl_param_t){k, v};
        if (!strcmp(an, "Ref") && !strcmp(name, "System")) p->ref = v;
    }
    if (!(p->tag = jg__sl_intern(&x->b, name, strlen(name)))) goto oom;
    if (is_model && materialize(s, p)) goto oom;
    return;
oom:
    sx_fail(s, nomem(x));
}

static void sx_chars(void *ctx, const xmlChar *ch, int len)
{
    xmlParserCtxtPtr c = ctx;
    sax_t *s = c ? c->_private : NULL;
    if (!s || c != s->ctxt || s->st || s->skip || !s->npd || s->pd[s->npd - 1].node) return;
    if (grow_to((void **)&s->text, &s->ctext, s->ntext + (size_t)len, 1)) {
        sx_fail(s, nomem(s->x));
        return;
    }
    memcpy(s->text + s->ntext, ch, (size_t)len);
    s->ntext += (size_t)len;
}

static void sx_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
    xmlParserCtxtPtr c = ctx;
    sax_t *s = c ? c->_private : NULL;
    (void)localname, (void)prefix, (void)uri;
    if (!s || c != s->ctxt || s->st) return;
    xctx_t *x = s->x;
    int lvl = --s->level;
    if (s->skip) {
        s->skip--;
        return;
    }
    if (lvl == 0 && s->mode != MODE_SYSTEM) return;
    pend_t *p = &s->pd[--s->npd];
    jg_status_t st = JG_OK;
    if (s->mode == MODE_BD && lvl == 1) {   /* the Model: bddefaults' children go in before it closes */
        if (s->di >= 0 && (st = sax_part(x, (size_t)s->di, MODE_DEFAULTS, -1))) goto fail;
        if (!jg__sl_close(&x->b)) goto oom;
    } else if (p->node) {
        if (!jg__sl_close(&x->b)) goto oom;
    } else {
        /* no character data yet: s->text is still NULL (NULL + 0 is undefined) */
        const char *text = jg__sl_str(&x->b, s->text ? s->text + p->text0 : "", s->ntext - p->text0);
        if (!text) goto oom;
        if (p->pname) {   /* <P Name="K">V</P> */
            if (jg__sl_add(&x->b, p->pname, text)) goto oom;
        } else if (p->attr0 == s->nattr && !structural(p->tag)) {   /* <Value>1</Value> */
            if (jg__sl_add(&x->b, p->tag, text)) goto oom;
        } else if (p->ref) {
            if ((st = inline_system(x, p->ref, s->pidx, p->line))) goto fail;
        } else {   /* <Display Attr="..">text</Display>: text also as a parameter */
            if (!blank(text) && jg__sl_add(&x->b, p->tag, text)) goto oom;
            if (materialize(s, p) || !jg__sl_close(&x->b)) goto oom;
        }
    }
    s->nattr = p->attr0;
    s->ntext = p->text0;
    return;
oom:
    st = nomem(x);
fail:
    sx_fail(s, st);
}

/* Stream part pidx into the builder at its current position. */
static jg_status_t sax_part(xctx_t *x, size_t pidx, int mode, long di)
{
    jg_status_t st = JG_OK;
    const jg__sl_part_t *part = &x->ps->v[pidx];
    sax_t s = {0};
    s.x = x;
    s.pidx = pidx;
    s.mode = mode;
    s.di = di;
    if (part->len > (size_t)INT_MAX)
        return jg_error_set(x->err, JG_PARSE, "%s: part %s is too large", x->t->source, part->name);
    if (!(s.part = jg__sl_intern(&x->b, part->name, strlen(part->name)))) return nomem(x);
    xmlParserCtxtPtr c = xmlCreateMemoryParserCtxt(part->data, (int)part->len);
    if (!c) return nomem(x);
    xmlCtxtUseOptions(c, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
    c->_private = &s;
    s.ctxt = c;
    xmlSAXHandlerPtr h = c->sax;   /* this context's own copy: nothing global changes */
    h->serror = on_xml_error;
    h->startElementNs = sx_start;
    h->endElementNs = sx_end;
    h->characters = sx_chars;
    h->cdataBlock = sx_chars;
    h->ignorableWhitespace = sx_chars;
    h->reference = NULL;
    h->comment = NULL;
    h->processingInstruction = NULL;
    xmlParseDocument(c);
    if (s.st) {
        st = s.st;   /* already reported */
    } else if (s.xe.have) {
        st = jg_error_set(x->err, JG_PARSE, "%s: %s:%d:%d: %s", x->t->source, part->name, s.xe.line,
                          s.xe.col, s.xe.msg);
    } else if (!c->wellFormed) {
        st = jg_error_set(x->err, JG_PARSE, "%s: %s: malformed XML", x->t->source, part->name);
    } else if (mode == MODE_BD && !s.model_seen) {
        st = jg_error_set(x->err, JG_MODEL, "%s: %s has no <Model> or <Library> element",
                          x->t->source, part->name);
    }
    if (c->myDoc) xmlFreeDoc(c->myDoc);
    c->myDoc = NULL;
    xmlFreeParserCtxt(c);
    free(s.pd);
    free(s.attr);
    free(s.text);
    return st;
}

/* Text of the first element `local` directly under the root of part i (the
 * metadata parts); NULL when absent or unreadable (metadata never fails a read). */
static const char *meta_text(xctx_t *x, long i, const char *local)
{
    xmlDocPtr doc = NULL;
    const char *r = NULL;
    if (i < 0) return NULL;
    jg_error_t scratch;
    jg_error_t *keep = x->err;
    x->err = &scratch;
    if (parse_part(x, (size_t)i, &doc) == JG_OK) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        for (xmlNodePtr k = root ? root->children : NULL; k && !r; k = k->next)
            if (k->type == XML_ELEMENT_NODE && !strcmp((const char *)k->name, local)) {
                const char *v = text_of(x, k->children);
                if (v && !blank(v)) r = v;
            }
    }
    x->err = keep;
    if (doc) xmlFreeDoc(doc);
    return r;
}

jg_status_t jg__sl_build_parts(jg__sl_tree_t *t, const jg__sl_parts_t *ps,
                               const char *release_hint, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    xctx_t x = {0};
    x.t = t;
    x.ps = ps;
    x.err = err;
    x.maxdepth = t->max_depth;
    jg__sl_builder_init(&x.b, t);
    x.order = malloc((ps->n + 1) * sizeof *x.order);
    x.state = calloc(ps->n + 1, 1);
    x.rels = calloc(ps->n + 1, sizeof *x.rels);
    if (!x.order || !x.state || !x.rels) {
        st = nomem(&x);
        goto done;
    }
    for (size_t i = 0; i < ps->n; i++) x.order[i] = &ps->v[i];
    qsort(x.order, ps->n, sizeof *x.order, cmp_part);
    /* the package's own relationships live in "_rels/.rels": the rels of part "" */
    const rels_t *root_rels = NULL;
    rels_t rr = {0};
    {
        long ri = find_part(&x, "_rels/.rels");
        if (ri >= 0) {
            xmlDocPtr doc = NULL;
            if ((st = parse_part(&x, (size_t)ri, &doc))) goto done;
            xmlNodePtr root = xmlDocGetRootElement(doc);
            size_t n = 0;
            for (xmlNodePtr k = root ? root->children : NULL; k; k = k->next) n++;
            rr.id = jg_arena_alloc(&t->arena, 3 * (n + 1) * sizeof *rr.id);
            if (!rr.id) {
                xmlFreeDoc(doc);
                st = nomem(&x);
                goto done;
            }
            rr.target = rr.id + n + 1;
            rr.type = rr.id + 2 * (n + 1);
            for (xmlNodePtr k = root ? root->children : NULL; k; k = k->next) {
                if (k->type != XML_ELEMENT_NODE) continue;
                const char *id = attr_of(k, "Id"), *tg = attr_of(k, "Target"),
                           *ty = attr_of(k, "Type");
                if (!tg || !ty) continue;
                rr.id[rr.n] = id ? jg__sl_str(&x.b, id, strlen(id)) : "";
                rr.target[rr.n] = resolve(&x, "", tg);
                rr.type[rr.n] = jg__sl_str(&x.b, ty, strlen(ty));
                if (!rr.id[rr.n] || !rr.target[rr.n] || !rr.type[rr.n]) {
                    xmlFreeDoc(doc);
                    st = nomem(&x);
                    goto done;
                }
                rr.n++;
            }
            xmlFreeDoc(doc);
            root_rels = &rr;
        }
    }
    long bi = root_target(&x, root_rels, "/blockDiagram", "simulink/blockdiagram.xml");
    if (bi < 0) {
        st = jg_error_set(err, JG_MODEL, "%s: no simulink/blockdiagram.xml part (not a Simulink model)",
                          t->source);
        goto done;
    }
    long di = root_target(&x, root_rels, "/blockDiagramDefaults", "simulink/bddefaults.xml");
    const char *empty = jg__sl_intern(&x.b, "", 0);
    if (!empty || !jg__sl_open(&x.b, empty, 0, NULL)) {
        st = nomem(&x);
        goto done;
    }
    /* root "" -> Model (attributes, children, then bddefaults' children) */
    if ((st = sax_part(&x, (size_t)bi, MODE_BD, di))) goto done;
    if (!(t->root = jg__sl_close(&x.b))) {
        st = nomem(&x);
        goto done;
    }
    /* release: package metadata, else what the container said */
    const char *rel = meta_text(&x, root_target(&x, root_rels, "/metadata/core-properties",
                                                "metadata/coreProperties.xml"), "version");
    if (!rel)
        rel = meta_text(&x, root_target(&x, root_rels, "/coreProperties", "metadata/mwcoreProperties.xml"),
                        "matlabRelease");
    if (!rel && release_hint) rel = jg__sl_str(&x.b, release_hint, strlen(release_hint));
    t->release = rel;
done:
    jg__sl_builder_fini(&x.b);
    free(x.order);
    free(x.state);
    free(x.rels);
    return st;
}
