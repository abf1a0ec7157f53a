/* Status names, descriptions, exit codes and the error-context setter. */
#include <stdarg.h>
#include <stdio.h>
#include "jacgraph/status.h"

const char *jg_status_name(jg_status_t s)
{
    switch (s) {
#define JG__NAME(name, code, desc) case JG_##name: return #name;
        JG_STATUS_LIST(JG__NAME)
#undef JG__NAME
    default: return "UNKNOWN";
    }
}

const char *jg_strerror(jg_status_t s)
{
    switch (s) {
#define JG__DESC(name, code, desc) case JG_##name: return desc;
        JG_STATUS_LIST(JG__DESC)
#undef JG__DESC
    default: return "unknown status";
    }
}

int jg_status_exit(jg_status_t s)
{
    switch (s) {
#define JG__EXIT(name, code, desc) case JG_##name: return code;
        JG_STATUS_LIST(JG__EXIT)
#undef JG__EXIT
    default: return 70;
    }
}

jg_status_t jg_error_set(jg_error_t *err, jg_status_t s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = s;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

void jg_error_clear(jg_error_t *err)
{
    if (err) {
        err->status = JG_OK;
        err->msg[0] = '\0';
    }
}
