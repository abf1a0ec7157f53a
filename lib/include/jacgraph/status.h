/* jacgraph/status.h -- status codes and error context shared by every module.
 *
 * The library never prints. A failing call returns a jg_status_t and, when the
 * caller passed a jg_error_t, fills it with the status and a message that names
 * where (file:line:col, block path, parameter) and what was expected. The CLI
 * prints that message and maps the status to an exit code (jg_status_exit).
 */
#ifndef JACGRAPH_STATUS_H
#define JACGRAPH_STATUS_H
#include "jacgraph/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, exit code, description).  One list generates the enum, the names,
 * the descriptions and the CLI exit codes (see docs/cli.md). */
#define JG_STATUS_LIST(X)                                                          \
    X(OK,            0, "success")                                                 \
    X(NOMEM,        70, "out of memory")                                           \
    X(IO,            3, "cannot read or write a file")                             \
    X(PARSE,         4, "malformed JSON")                                          \
    X(MODEL,         4, "invalid model structure")                                 \
    X(PARAM,         4, "missing or ill-shaped block parameter")                   \
    X(WIDTH,         4, "signal width mismatch")                                   \
    X(ARG,           2, "invalid argument")                                        \
    X(SINGULAR_LOOP, 5, "singular algebraic loop")                                 \
    X(NONLINEAR_LOOP,5, "algebraic loop did not converge")                           \
    X(NUMERIC,       5, "numerical failure")                                       \
    X(MISMATCH,      1, "results disagree beyond tolerance")                       \
    X(INTERNAL,     70, "internal error")

typedef enum {
#define JG__ENUM(name, code, desc) JG_##name,
    JG_STATUS_LIST(JG__ENUM)
#undef JG__ENUM
    JG_STATUS_COUNT
} jg_status_t;

#define JG_ERROR_MSG_MAX 1024

/* Error context: plain struct, owned by the caller, filled on failure. */
typedef struct jg_error {
    jg_status_t status;
    char msg[JG_ERROR_MSG_MAX];
} jg_error_t;

JG_API const char *jg_status_name(jg_status_t s);   /* "SINGULAR_LOOP" */
JG_API const char *jg_strerror(jg_status_t s);      /* "singular algebraic loop" */
JG_API int jg_status_exit(jg_status_t s);           /* documented CLI exit code */

/* Set status and a printf-style message on err (err may be NULL).  Returns s,
 * so failures read `return jg_error_set(err, JG_PARAM, "...")`.
 * A message already set is kept when keep_first is used (jg_error_setk). */
JG_API jg_status_t jg_error_set(jg_error_t *err, jg_status_t s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
JG_API void jg_error_clear(jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
