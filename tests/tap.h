/* tap.h -- minimal TAP producer shared by the C tests (one file per module).
 * Each check prints "ok N - name" or "not ok N - name"; tests/run.sh counts
 * them.  Header-only: include once per test program. */
#ifndef JG_TESTS_TAP_H
#define JG_TESTS_TAP_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) tap_failed++;
    fflush(stdout);
    return cond;
}

/* |a - b| <= tol * max(1, |b|) */
__attribute__((unused)) static int tap_near(double a, double b, double tol, const char *name)
{
    int ok = fabs(a - b) <= tol * fmax(1.0, fabs(b));
    if (!tap_ok(ok, "%s", name)) printf("#   got %.17g, expected %.17g (tol %g)\n", a, b, tol);
    return ok;
}

__attribute__((unused)) static int tap_streq(const char *a, const char *b, const char *name)
{
    int ok = a && b && !strcmp(a, b);
    if (!tap_ok(ok, "%s", name)) printf("#   got '%s'\n#   expected '%s'\n", a ? a : "(null)", b ? b : "(null)");
    return ok;
}

static int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
