/* Classic MDL text -> Simulink tree: a single-pass line tokenizer (sections, KEY VALUE, split strings). */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sltree.h"

/* ---- character encoding ---- */

/* Find `SavedCharacterEncoding "X"` at the start of a line near the top of
 * the Model section (it precedes any non-ASCII text Simulink writes). */
static int find_encoding(const char *buf, size_t len, char *enc, size_t encsz)
{
    static const char key[] = "SavedCharacterEncoding";
    size_t lim = len < (1u << 20) ? len : (1u << 20), i = 0;
    while (i < lim) {
        while (i < lim && (buf[i] == ' ' || buf[i] == '\t')) i++;
        if (lim - i > sizeof key && !memcmp(buf + i, key, sizeof key - 1) &&
            (buf[i + sizeof key - 1] == ' ' || buf[i + sizeof key - 1] == '\t')) {
            size_t j = i + sizeof key - 1;
            while (j < lim && (buf[j] == ' ' || buf[j] == '\t')) j++;
            if (j < lim && buf[j] == '"') j++;
            size_t k = 0;
            while (j < lim && buf[j] != '"' && buf[j] != '\n' && buf[j] != '\r' && k + 1 < encsz)
                enc[k++] = buf[j++];
            enc[k] = '\0';
            return k > 0;
        }
        const char *nl = memchr(buf + i, '\n', lim - i);
        if (!nl) break;
        i = (size_t)(nl - buf) + 1;
    }
    return 0;
}

static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) k = 1;
        else if (c >= 0xE0 && c <= 0xEF) k = 2;
        else if (c >= 0xF0 && c <= 0xF4) k = 3;
        else return 0;
        if (n - i <= k) return 0;
        for (size_t j = 1; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80) return 0;
        i += k + 1;
    }
    return 1;
}

/* Simulink names encodings the ICU way; a few ICU converter names are not
 * iconv names. */
static const char *iconv_name(const char *enc)
{
    static const char *const alias[][2] = {
        {"ibm-5348", "WINDOWS-1252"}, {"ibm-1252", "WINDOWS-1252"}, {"ibm-1208", "UTF-8"},
        {"ibm-943", "CP932"},         {"ibm-1386", "GBK"},           {"ibm-970", "EUC-KR"},
        {"ibm-5346", "WINDOWS-1250"}, {"ibm-5347", "WINDOWS-1251"},
    };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
        size_t n = strlen(alias[i][0]);
        if (!strncasecmp(enc, alias[i][0], n) && (enc[n] == '\0' || enc[n] == '_'))
            return alias[i][1];
    }
    return enc;
}

/* Decode buf from `enc` to UTF-8 into a new malloc'd buffer.  Bytes the
 * encoding does not define (0x81 in windows-1252) become U+FFFD rather than
 * failing the whole file; line structure is unaffected. */
static jg_status_t to_utf8(const char *src, const char *buf, size_t len, const char *enc,
                           char **out, size_t *outlen, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    char *o = NULL;
    iconv_t cd = iconv_open("UTF-8", iconv_name(enc));
    if (cd == (iconv_t)-1) {
        st = jg_error_set(err, JG_PARSE, "%s: unsupported SavedCharacterEncoding '%s'", src, enc);
        goto done;
    }
    size_t cap = 3 * len + 16, used = 0;
    o = malloc(cap + 1);
    if (!o) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", src);
        goto done;
    }
    char *in = (char *)buf;
    size_t inleft = len;
    while (inleft) {
        char *op = o + used;
        size_t oleft = cap - used;
        size_t r = iconv(cd, &in, &inleft, &op, &oleft);
        used = (size_t)(op - o);
        if (r != (size_t)-1) break;
        if (errno == E2BIG || cap - used < 8) {
            size_t nc = 2 * cap;
            char *no = realloc(o, nc + 1);
            if (!no) {
                st = jg_error_set(err, JG_NOMEM, "%s: out of memory", src);
                goto done;
            }
            o = no;
            cap = nc;
            if (errno == E2BIG) continue;
        }
        if (errno == EILSEQ || errno == EINVAL) {   /* undefined or truncated sequence */
            memcpy(o + used, "\xEF\xBF\xBD", 3);
            used += 3;
            in++;
            inleft--;
            iconv(cd, NULL, NULL, NULL, NULL);
            continue;
        }
        st = jg_error_set(err, JG_PARSE, "%s: cannot decode from '%s'", src, enc);
        goto done;
    }
    o[used] = '\0';
    *out = o;
    *outlen = used;
    o = NULL;
done:
    if (cd != (iconv_t)-1) iconv_close(cd);
    free(o);
    return st;
}

/* ---- tokenizer + parser ---- */

typedef struct mdl {
    jg__sl_builder_t b;
    const char *src;           /* file name for messages */
    const char *p, *end;       /* cursor */
    const char *line0;         /* start of the current line */
    int line;
    int *open_line;            /* line of each open section (index = depth) */
    size_t nopen, copen;
    /* a quoted value is kept here until a line that is not a continuation */
    const char *pend_key;
    char *sbuf;
    size_t slen, scap;
    int pending;
    jg_error_t *err;
} mdl_t;

static int col(const mdl_t *m, const char *q) { return (int)(q - m->line0) + 1; }

static jg_status_t nomem(mdl_t *m)
{
    return jg_error_set(m->err, JG_NOMEM, "%s: out of memory", m->src);
}

static int sbuf_put(mdl_t *m, char c)
{
    if (m->slen == m->scap) {
        size_t nc = m->scap ? 2 * m->scap : 256;
        char *n = realloc(m->sbuf, nc);
        if (!n) return -1;
        m->sbuf = n;
        m->scap = nc;
    }
    m->sbuf[m->slen++] = c;
    return 0;
}

/* Unescape the body of the "..." whose opening quote is at open into sbuf
 * (appending); what follows the closing quote is ignored.  Errors: the line
 * ends first (unterminated string), out of memory. */
static jg_status_t read_quoted(mdl_t *m, const char *open, const char *eol)
{
    const char *q = open + 1;
    while (q < eol) {
        char c = *q++;
        if (c == '"') return JG_OK;
        if (c == '\\' && q < eol) {
            char e = *q++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            default: c = e; break;   /* \" \\ and anything else: the character itself */
            }
        }
        if (sbuf_put(m, c)) return nomem(m);
    }
    return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: unterminated string", m->src, m->line,
                        col(m, open));
}

static jg_status_t flush_pending(mdl_t *m)
{
    if (!m->pending) return JG_OK;
    m->pending = 0;
    char *v = jg__sl_str(&m->b, m->sbuf, m->slen);
    if (!v || jg__sl_add(&m->b, m->pend_key, v)) return nomem(m);
    return JG_OK;
}

static int is_key_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '$' || c == '_';
}

static int is_key_char(char c)
{
    return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '{' && c != '}' &&
           c != '"' && c != '[';
}

static jg_status_t parse(mdl_t *m)
{
    jg_status_t st = JG_OK;
    int maxdepth = m->b.t->max_depth;
    while (m->p < m->end) {
        const char *eol = memchr(m->p, '\n', (size_t)(m->end - m->p));
        if (!eol) eol = m->end;
        m->line0 = m->p;
        const char *q = m->p;
        const char *next = eol < m->end ? eol + 1 : eol;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v')) q++;
        const char *e = eol;   /* trimmed end */
        while (e > q && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
        if (q == e || *q == '#') goto next_line;   /* blank or comment */
        if (*q == '"') {   /* continuation of the previous quoted value */
            if (!m->pending)
                return jg_error_set(m->err, JG_PARSE,
                                    "%s:%d:%d: string continuation without a preceding quoted value",
                                    m->src, m->line, col(m, q));
            if ((st = read_quoted(m, q, e))) return st;
            goto next_line;
        }
        if ((st = flush_pending(m))) return st;
        if (*q == '}') {
            if (m->nopen == 0)
                return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: unbalanced '}'", m->src, m->line,
                                    col(m, q));
            if (!jg__sl_close(&m->b)) return nomem(m);
            m->nopen--;
            goto next_line;
        }
        if (!is_key_start(*q))
            return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: expected a section name or a key, found '%c'",
                                m->src, m->line, col(m, q), *q);
        const char *k0 = q;
        while (q < e && is_key_char(*q)) q++;
        const char *key = jg__sl_intern(&m->b, k0, (size_t)(q - k0));
        if (!key) return nomem(m);
        while (q < e && (*q == ' ' || *q == '\t')) q++;
        if (q < e && *q == '{') {   /* NAME { */
            if ((int)m->nopen >= maxdepth)
                return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: sections nested deeper than %d",
                                    m->src, m->line, col(m, k0), maxdepth);
            if (m->nopen == m->copen) {
                size_t nc = m->copen ? 2 * m->copen : 64;
                int *n = realloc(m->open_line, nc * sizeof *n);
                if (!n) return nomem(m);
                m->open_line = n;
                m->copen = nc;
            }
            m->open_line[m->nopen++] = m->line;
            if (!jg__sl_open(&m->b, key, m->line, NULL)) return nomem(m);
            goto next_line;
        }
        if (q == e)
            return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: expected a value after key '%s'",
                                m->src, m->line, col(m, q), key);
        if (*q == '"') {
            m->slen = 0;
            if ((st = read_quoted(m, q, e))) return st;
            m->pending = 1;
            m->pend_key = key;
            goto next_line;
        }
        if (*q == '[') {   /* kept as text; may run over several lines */
            const char *b0 = q;
            int depth = 0, line0 = m->line, c0 = col(m, q);
            for (; q < m->end; q++) {
                if (*q == '[') depth++;
                else if (*q == ']' && --depth == 0) break;
                else if (*q == '\n') m->line++;
            }
            if (q == m->end)
                return jg_error_set(m->err, JG_PARSE, "%s:%d:%d: unterminated '[' in the value of '%s'",
                                    m->src, line0, c0, key);
            char *v = jg__sl_str(&m->b, b0, (size_t)(q + 1 - b0));
            if (!v || jg__sl_add(&m->b, key, v)) return nomem(m);
            if (m->line != line0) {   /* the value ended on a later line: resume after it */
                const char *nl = memchr(q, '\n', (size_t)(m->end - q));
                m->p = nl ? nl + 1 : m->end;
                m->line++;
                continue;
            }
            goto next_line;
        }
        {   /* bare token(s): the rest of the line */
            char *v = jg__sl_str(&m->b, q, (size_t)(e - q));
            if (!v || jg__sl_add(&m->b, key, v)) return nomem(m);
        }
    next_line:
        m->p = next;
        m->line++;
    }
    if ((st = flush_pending(m))) return st;
    if (m->nopen) {
        jg__sl_frame_t *f = &m->b.fr[m->b.nfr - 1];
        return jg_error_set(m->err, JG_PARSE,
                            "%s:%d:1: unexpected end of file inside section '%s' opened at line %d",
                            m->src, m->line, f->node->tag, m->open_line[m->nopen - 1]);
    }
    return JG_OK;
}

jg_status_t jg__sl_parse_mdl(jg__sl_tree_t *t, const char *buf, size_t len, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    char *dec = NULL;
    size_t declen = 0;
    mdl_t m = {0};
    jg__sl_builder_init(&m.b, t);
    m.src = t->source;
    m.err = err;
    /* decode first: in Shift_JIS a trail byte can be '\\' or '"' */
    char enc[64];
    int have = find_encoding(buf, len, enc, sizeof enc);
    if (have && strcasecmp(enc, "UTF-8") && strcasecmp(enc, "UTF8")) {
        if ((st = to_utf8(t->source, buf, len, enc, &dec, &declen, err))) goto done;
        buf = dec;
        len = declen;
    } else if (!have && !valid_utf8((const unsigned char *)buf, len)) {
        /* files without the key were written in the platform encoding (often windows-1252) */
        if ((st = to_utf8(t->source, buf, len, "WINDOWS-1252", &dec, &declen, err))) goto done;
        buf = dec;
        len = declen;
    }
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
        buf += 3;
        len -= 3;
    }
    m.p = buf;
    m.end = buf + len;
    m.line = 1;
    const char *root_tag = jg__sl_intern(&m.b, "", 0);
    if (!root_tag || !jg__sl_open(&m.b, root_tag, 0, NULL)) {
        st = nomem(&m);
        goto done;
    }
    if ((st = parse(&m))) goto done;
    t->root = jg__sl_close(&m.b);
    if (!t->root) {
        st = nomem(&m);
        goto done;
    }
    jg__sl_node_t *model = jg__sl_child(t->root, "Model");
    if (!model) model = jg__sl_child(t->root, "Library");
    if (!model) {
        st = jg_error_set(err, JG_MODEL, "%s: no Model or Library section (not a Simulink model)",
                          t->source);
        goto done;
    }
    t->release = jg__sl_release_of_version(jg__sl_get(model, "Version"));
done:
    jg__sl_builder_fini(&m.b);
    free(m.open_line);
    free(m.sbuf);
    free(dec);
    return st;
}
