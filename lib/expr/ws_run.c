/* Running a MATLAB script of assignments into a workspace: splitting the
 * text into statements (comments, continuations, strings, brackets), skipping
 * control blocks, and assigning NAME = EXPR / NAME(i,j) = EXPR. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr_impl.h"

typedef struct {
    jg_expr_ws_t *ws;
    const char *source;
    jg_expr_ws_chain_t chain;
    jg_expr_warn_fn warn;
    void *warn_ctx;
    int skip;         /* depth inside a skipped control block */
    int skip_line;    /* where it started */
    char skip_kw[16];
    jg_status_t st;   /* JG_NOMEM stops the run */
} run_t;

static void warnf(run_t *R, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warnf(run_t *R, int line, const char *fmt, ...)
{
    if (!R->warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    R->warn(R->warn_ctx, R->source, line, msg);
}

/* A statement for messages: at most 60 characters. */
static const char *shown(const char *s, char *buf, size_t n)
{
    size_t len = strlen(s);
    if (len < 61) return s;
    snprintf(buf, n, "%.57s...", s);
    return buf;
}

static int is_id(char c) { return isalnum((unsigned char)c) || c == '_'; }

static const char *const openers[] = {"if", "for", "while", "switch", "try", "parfor",
                                      "function", "spmd", NULL};

/* The leading word of s (letters, digits, _) in w; its length. */
static size_t first_word(const char *s, char *w, size_t n)
{
    size_t k = 0;
    while (is_id(s[k]) && k + 1 < n) {
        w[k] = s[k];
        k++;
    }
    w[k] = 0;
    return is_id(s[k]) ? 0 : k;
}

/* Offset of the assignment '=' at bracket depth 0 outside strings, or -1. */
static long find_assign(const char *s)
{
    int depth = 0;
    char prev = 0;
    for (long i = 0; s[i]; i++) {
        char c = s[i];
        if (c == '"' || (c == '\'' && !(is_id(prev) || prev == ')' || prev == ']' ||
                                        prev == '}' || prev == '.' || prev == '\''))) {
            for (i++; s[i] && !(s[i] == c && s[i + 1] != c); i++)
                if (s[i] == c) i++;
            if (!s[i]) return -1;
            prev = c;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth) depth--;
        else if (c == '=' && depth == 0 && s[i + 1] != '=' && !strchr("=~<>!", prev ? prev : ' '))
            return i;
        prev = c;
    }
    return -1;
}

/* Split the index list "i, j" of an assignment at top-level commas (in place). */
static int split_args(char *s, char **args, int max)
{
    int n = 0, depth = 0;
    char prev = 0;
    args[n++] = s;
    for (char *p = s; *p; p++) {
        char c = *p;
        if (c == '"' || (c == '\'' && !(is_id(prev) || prev == ')' || prev == ']' || prev == '\''))) {
            for (p++; *p && !(*p == c && p[1] != c); p++)
                if (*p == c) p++;
            if (!*p) break;
            prev = c;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth) depth--;
        else if (c == ',' && depth == 0) {
            if (n == max) return -1;
            *p = 0;
            args[n++] = p + 1;
        }
        prev = c;
    }
    return n;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* NAME(args) = rhs: the current value of NAME (or empty) grown and assigned. */
static void assign_indexed(run_t *R, int line, const char *stmt, const char *name, char *argtext,
                           jg_expr_value_t *rhs)
{
    char sb[80];
    jg__xerr_t E = jg__xerr_init(NULL, jg__expr_ws_limits(R->ws));
    jg_expr_error_t err = {0};
    E.err = &err;
    jg__xv_t cur = {0}, r = {0};
    jg__xidx_t idx[2];
    int nidx = 0;
    char *args[3];
    int n = split_args(argtext, args, 3);
    jg_expr_value_t pub = {0};
    int found = jg_expr_ws_lookup(&R->chain, name, &pub, &err);
    if (found < 0) goto fail;
    if (found > 0) jg__xv_from_public(&cur, &pub);
    jg__xv_from_public(&r, rhs);
    if (n < 1 || n > 2) {
        jg__xerr(&E, "only NAME(i) = ... and NAME(i,j) = ... are supported");
        goto fail;
    }
    for (int k = 0; k < n; k++) {
        char *a = trim(args[k]);
        memset(&idx[k], 0, sizeof idx[k]);
        nidx = k + 1;
        if (!strcmp(a, ":")) {
            idx[k].all = 1;
            continue;
        }
        jg_status_t st = jg__expr_eval_index(a, jg_expr_ws_lookup, &R->chain, &cur, k, n, &pub, &err);
        if (st == JG_NOMEM) R->st = JG_NOMEM;
        if (st) {
            E.failed = 1;
            goto fail;
        }
        jg__xv_from_public(&idx[k].v, &pub);
    }
    if (jg__x_assign(&E, &cur, idx, nidx, &r)) goto fail;
    if (jg__xv_to_public(&E, &cur, &pub) || jg_expr_ws_set(R->ws, name, &pub)) {
        R->st = JG_NOMEM;
        goto fail;
    }
    goto done;
fail:
    if (E.nomem) R->st = JG_NOMEM;
    warnf(R, line, "'%s' skipped: %s", shown(stmt, sb, sizeof sb), err.msg);
done:
    jg_expr_value_clear(&pub);
    for (int k = 0; k < nidx; k++) jg__xv_free(&idx[k].v);
    jg__xv_free(&cur);
    jg__xv_free(&r);
}

static void statement(run_t *R, char *stmt, int line)
{
    char w[16], sb[80];
    stmt = trim(stmt);
    if (!*stmt) return;
    size_t wl = first_word(stmt, w, sizeof w);
    int opener = 0;
    for (int k = 0; wl && openers[k]; k++) opener |= !strcmp(w, openers[k]);
    int is_end = wl && !strcmp(w, "end");
    if (R->skip) {
        R->skip += opener;
        R->skip -= is_end;
        return;
    }
    if (opener) {
        R->skip = 1;
        R->skip_line = line;
        snprintf(R->skip_kw, sizeof R->skip_kw, "%s", w);
        warnf(R, line, "%s block skipped (only assignments are run): '%s'", w,
              shown(stmt, sb, sizeof sb));
        return;
    }
    long eq = find_assign(stmt);
    if (eq < 0 || is_end || stmt[0] == '[') {
        warnf(R, line, "not an assignment, skipped: '%s'", shown(stmt, sb, sizeof sb));
        return;
    }
    /* the target: NAME, NAME.FIELD or NAME(args) */
    char *lhs = stmt, *rhs = stmt + eq + 1;
    size_t rhs_off = (size_t)(eq + 1);
    size_t slen = strlen(stmt) + 1;
    char *full = malloc(slen);   /* for messages: the split below writes into stmt */
    if (full) memcpy(full, stmt, slen);
    if (!full) {
        R->st = JG_NOMEM;
        return;
    }
    stmt[eq] = 0;
    lhs = trim(lhs);
    size_t nl = 0;
    while (is_id(lhs[nl]) || (lhs[nl] == '.' && isalpha((unsigned char)lhs[nl + 1]))) nl++;
    char *argtext = NULL;
    int ok = nl > 0 && isalpha((unsigned char)lhs[0]);
    if (ok && lhs[nl] == '(') {
        size_t len = strlen(lhs);
        ok = lhs[len - 1] == ')';
        lhs[len - 1] = 0;
        argtext = lhs + nl + 1;
    } else if (ok && lhs[nl]) {
        ok = 0;
    }
    if (!ok) {
        warnf(R, line, "not an assignment to a name, skipped: '%s'", shown(full, sb, sizeof sb));
        free(full);
        return;
    }
    lhs[nl] = 0;
    while (isspace((unsigned char)*rhs)) {
        rhs++;
        rhs_off++;
    }
    jg_expr_value_t v;
    jg_expr_error_t err;
    jg_status_t st = jg_expr_eval_limits(rhs, jg__expr_ws_limits(R->ws), jg_expr_ws_lookup, &R->chain, &v, &err);
    if (st) {
        if (st == JG_NOMEM) R->st = JG_NOMEM;
        if (err.column)
            warnf(R, line, "'%s' skipped: %s (column %d)", shown(full, sb, sizeof sb), err.msg,
                  err.column + (int)rhs_off);
        else
            warnf(R, line, "'%s' skipped: %s", shown(full, sb, sizeof sb), err.msg);
    } else if (argtext) {
        assign_indexed(R, line, full, lhs, argtext, &v);
    } else if (jg_expr_ws_set(R->ws, lhs, &v)) {
        R->st = JG_NOMEM;
    }
    jg_expr_value_clear(&v);
    free(full);
}

/* A quote right after a value is a transpose ("a'", "x(1)'"); after a
 * blank it starts a string inside [] ("[a 'b']") and after a name (command
 * syntax: disp 'x'), but not after a closing bracket ("(a+b) '"). */
static int quote_is_transpose(char prev, int blank, int in_br)
{
    int value = is_id(prev) || prev == ')' || prev == ']' || prev == '}' || prev == '.' ||
                prev == '\'';
    if (!value) return 0;
    if (!blank) return 1;
    return !in_br && !is_id(prev) && prev != '\'';
}

/* Is line [p, eol) nothing but blanks around `mark` ("%{" or "%}")? */
static int line_is(const char *p, const char *mark)
{
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, mark, 2)) return 0;
    p += 2;
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    return *p == '\n' || !*p;
}

jg_status_t jg_expr_ws_run(jg_expr_ws_t *ws, const char *script, const char *source,
                      jg_expr_lookup_fn parent, void *parent_ctx, jg_expr_warn_fn warn,
                      void *warn_ctx)
{
    run_t R = {.ws = ws, .source = source ? source : "script",
               .chain = {.ws = ws, .parent = parent, .parent_ctx = parent_ctx},
               .warn = warn, .warn_ctx = warn_ctx, .st = JG_OK};
    if (!script) return JG_OK;
    size_t cap = strlen(script) + 2, n = 0;
    char *buf = malloc(cap);   /* a statement never outgrows the script */
    char stack[64];
    if (!buf) return JG_NOMEM;
    int line = 1, stmt_line = 1, depth = 0, bol = 1;
    char prev = 0;    /* last character of the statement, for the quote rule */
    int blank = 0;    /* blanks since prev */
    for (const char *p = script; *p && R.st == JG_OK;) {
        char c = *p;
        if (bol && line_is(p, "%{")) {   /* block comment, may nest */
            int nest = 0;
            while (*p) {
                if (line_is(p, "%{")) nest++;
                else if (line_is(p, "%}")) nest--;
                while (*p && *p != '\n') p++;
                if (*p) {
                    p++;
                    line++;
                }
                if (!nest) break;
            }
            continue;
        }
        bol = 0;
        if (n == 0) stmt_line = line;
        int in_br = depth > 0 && stack[(depth > 64 ? 64 : depth) - 1] != '(';
        if (c == '%') {
            while (*p && *p != '\n') p++;
            continue;
        }
        if (c == '.' && p[1] == '.' && p[2] == '.') {
            while (*p && *p != '\n') p++;
            if (*p) {
                p++;
                line++;
            }
            buf[n++] = ' ';
            blank = 1;
            continue;
        }
        if (c == '\n' || ((c == ';' || c == ',') && depth == 0)) {
            if (c == '\n' && depth > 0) {   /* a new row inside [], a blank inside () */
                buf[n++] = in_br ? '\n' : ' ';
            } else {
                buf[n] = 0;
                statement(&R, buf, stmt_line);
                n = 0;
                if (c == '\n') depth = 0;   /* an unclosed bracket ends with its line */
            }
            if (c == '\n') {
                line++;
                bol = 1;
            }
            prev = 0;
            blank = 0;
            p++;
            continue;
        }
        if (c == '"' || (c == '\'' && !quote_is_transpose(prev, blank, in_br))) {
            /* a string: copied through its closing quote ('' and "" escape) */
            buf[n++] = *p++;
            while (*p && *p != '\n') {
                if (*p == c && p[1] == c) {
                    buf[n++] = *p++;
                    buf[n++] = *p++;
                    continue;
                }
                if (*p == c) break;
                buf[n++] = *p++;
            }
            if (*p == c) buf[n++] = *p++;
            prev = c;
            blank = 0;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            if (depth < 64) stack[depth] = c;
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth) {
            depth--;
        }
        buf[n++] = c;
        if (c == ' ' || c == '\t' || c == '\r') {
            blank = 1;
        } else {
            prev = c;
            blank = 0;
        }
        p++;
    }
    if (R.st == JG_OK) {
        buf[n] = 0;
        statement(&R, buf, stmt_line);
        if (R.skip)
            warnf(&R, R.skip_line, "the %s block starting here has no matching 'end'", R.skip_kw);
    }
    free(buf);
    return R.st;
}
