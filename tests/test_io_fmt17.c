/* The Matrix Market writer's number formatter (lib/io/fmt17.c) against
 * glibc's snprintf "%.17g", byte for byte, and strtod's round trip: special
 * values, hand-picked boundaries (powers of ten and their neighbours, exact
 * ties of the 17th digit, the %g layout switches at 1e-5 and 1e17), and
 * millions of random doubles of several distributions.
 *
 *   test_io_fmt17 [N]   N random doubles per distribution (default 400000) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_impl.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) { return tl_xorshift(&rng); }

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static long nbad;
static char first_bad[128];

/* One value: the same bytes as snprintf, and strtod reads it back exactly. */
static void check(double v)
{
    char a[40], b[40];
    int la = jg__io_fmt17(a, v);
    int lb = snprintf(b, sizeof b, "%.17g", v);
    int ok = la == lb && !strcmp(a, b);
    if (ok && isfinite(v)) {
        double r = strtod(a, NULL);
        ok = memcmp(&r, &v, sizeof r) == 0;
    }
    if (!ok && nbad++ == 0) snprintf(first_bad, sizeof first_bad, "%a: '%s' against '%s'", v, a, b);
}

static void report(const char *what)
{
    if (!tap_ok(nbad == 0, "%s: every value as %%.17g writes it", what))
        printf("#   %ld differ, first: %s\n", nbad, first_bad);
    nbad = 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 400000;
    /* special values and the layout's switches */
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1, -1, 0.5, 0.1, 0.2, 0.3,
                              1.0 / 3, 2.0 / 3, 100, 1e16, 1e17, 1e18, 1e-4, 1e-5, 9.9999999999999995e-05,
                              123456789012345678.0, 1e100, 1e-100, 1e300, 1e-300, DBL_MAX, -DBL_MAX,
                              DBL_MIN, DBL_TRUE_MIN, 4.9406564584124654e-324, 2.2250738585072009e-308,
                              3.141592653589793, -2.718281828459045, 1e14 + 0.125, 1e14 + 0.375, 1e15 + 0.25, 1e15 + 0.75,
                              4503599627370497.5, 9007199254740993.0, 0.1 + 0.2};
    for (size_t k = 0; k < sizeof special / sizeof *special; k++) check(special[k]);
    report("special values");
    {   /* hand-checked strings */
        char b[40];
        jg__io_fmt17(b, 0.1);
        tap_streq(b, "0.10000000000000001", "0.1 with 17 digits");
        jg__io_fmt17(b, 1e17);
        tap_streq(b, "1e+17", "1e17 in exponent form, zeros dropped");
        jg__io_fmt17(b, 1e16);
        tap_streq(b, "10000000000000000", "1e16 in fixed form");
        jg__io_fmt17(b, 1e14 + 0.125);
        tap_streq(b, "100000000000000.12", "an exact tie of the 17th digit goes to even (down)");
        jg__io_fmt17(b, 1e14 + 0.375);
        tap_streq(b, "100000000000000.38", "an exact tie of the 17th digit goes to even (up)");
        jg__io_fmt17(b, -2.5e-5);
        tap_streq(b, "-2.5000000000000001e-05", "below 1e-4: exponent form");
        jg__io_fmt17(b, 1.5e-40);
        tap_streq(b, "1.5000000000000001e-40", "a small value through the 256-bit product");
        jg__io_fmt17(b, 1e-50);
        tap_streq(b, "1e-50", "a tiny value through the product in limbs");
        jg__io_fmt17(b, 4.9406564584124654e-324);
        tap_streq(b, "4.9406564584124654e-324", "the smallest subnormal");
        jg__io_fmt17(b, 3e200);
        tap_streq(b, "2.9999999999999999e+200", "three exponent digits");
    }
    /* powers of ten, their neighbours, and integers m 2^e around them */
    for (int p = -325; p <= 309; p++) {
        double v = pow(10, p);
        check(v);
        check(nextafter(v, 0));
        check(nextafter(v, INFINITY));
        check(-v);
        for (int k = 1; k < 10; k++) check(k * v);
    }
    report("powers of ten and their neighbours");
    /* ties: integers plus odd multiples of 2^-j near 10^(16 - j') */
    for (int p = 10; p <= 17; p++)
        for (int j = 1; j <= 12; j++)
            for (int k = 1; k < 2000; k += 2) {
                double v = pow(10, p) + k * ldexp(1, -j);
                check(v);
                check(nextafter(v, 0));
            }
    report("values whose 18th digit is an exact half");
    for (long k = 0; k < n; k++) check(from_bits(next()));
    report("random bit patterns (every exponent, subnormals, NaN)");
    for (long k = 0; k < n; k++) check((double)(int64_t)next() / (double)(1ull << (next() % 64)));
    report("random integers over powers of two");
    for (long k = 0; k < n; k++) {
        double u = (double)(next() >> 11) * 0x1p-53;
        check((2 * u - 1) * pow(10, (double)(next() % 25) - 12));
    }
    report("uniform values from 1e-12 to 1e12");
    for (long k = 0; k < n; k++) {   /* rounding residues: the 27 powers of five a limb holds, and beyond */
        double u = (double)(next() >> 11) * 0x1p-53;
        check((2 * u - 1) * pow(10, -(double)(next() % 330)));
    }
    report("values from 1e-330 to 1");
    for (long k = 0; k < n; k++) {   /* short decimals: 0.25, 1.5e-3, 42, ... */
        double d = (double)(int64_t)(next() % 2000001) - 1000000;
        check(d / pow(10, (double)(next() % 12)));
    }
    report("short decimals");
    for (long k = 0; k < n / 4; k++) {   /* products and quotients of such values */
        double a = (double)(next() % 1000 + 1) / 7, b = (double)(next() % 977 + 1) / 13;
        check(a * b);
        check(a / b);
        check(-a * b * 1e-9);
        check(a * b * 1e20);
    }
    report("products and quotients");
    return tap_done();
}
