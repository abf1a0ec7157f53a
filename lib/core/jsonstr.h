/* lib/core/jsonstr.h -- a string written as a JSON string literal: the one
 * escaping rule of every hand-written JSON output (op files, trim results,
 * analyze --format json).  Internal (jg__*); later modules include it. */
#ifndef JG_CORE_JSONSTR_H
#define JG_CORE_JSONSTR_H
#include <stdio.h>

/* Write s between double quotes to f, with quotes, backslashes and control
 * characters escaped (Simulink names hold newlines and quotes); bytes >= 0x80
 * pass through (UTF-8 stays UTF-8).  Errors: none reported (check ferror(f)).
 * Cost: O(strlen(s)). */
void jg__json_put_string(FILE *f, const char *s);

#endif
