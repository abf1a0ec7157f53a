/* A double as printf's "%.17g" writes it, byte for byte, without printf: the
 * 17 significant digits rounded exactly (half to even, as glibc does) by
 * integer arithmetic, then %g's layout.
 *
 * Why: the Matrix Market writer formats millions of values and glibc's
 * conversion (multi-precision, locale, format parsing) costs ~400 ns each.
 * Seventeen digits always read back to the same double; the shortest digits
 * would too (Ryu, Grisu), but would change the files' bytes.
 *
 * How: v = m 2^e.  With k = floor(log10 v) (estimated from e, off by at most
 * one, corrected below) and s = 16 - k, the digits are the integer nearest to
 * X = v 10^s, in [10^16, 10^17).  X is computed exactly: for s >= 0 as
 * (m 10^s) / 2^-e with m 10^s in 256 bits (s <= 61: |v| >= ~1e-45), for s < 0
 * as (m 2^e) / 10^-s in 128 bits (|v| < 2^127).  The exact quotient and the
 * remainder's comparison with one half give the correctly rounded digits.
 * Values outside those ranges (tiny, huge, non-finite) go to snprintf. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "io_impl.h"

typedef unsigned __int128 u128;

/* How the exact X compares with floor(X): its fraction. */
enum { FRAC_ZERO, FRAC_BELOW_HALF, FRAC_HALF, FRAC_ABOVE_HALF };

static const uint64_t POW10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

/* floor(m 2^e 10^s) and its fraction's class for s >= 0, e < 0; 0 when the
 * product does not fit the 256 bits (the caller falls back). */
static int scale_up(uint64_t m, int e, int s, uint64_t *q, int *frac)
{
    uint64_t n[4] = {m, 0, 0, 0};   /* little-endian limbs of m 10^s */
    int len = 1;
    while (s > 0) {
        int c = s > 19 ? 19 : s;
        s -= c;
        uint64_t carry = 0;
        for (int k = 0; k < len; k++) {
            u128 p = (u128)n[k] * POW10[c] + carry;
            n[k] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        if (carry) {
            if (len == 4) return 0;
            n[len++] = carry;
        }
    }
    int t = -e;   /* X = n / 2^t, 1 <= t */
    if (t >= 256) return 0;
    int w = t / 64, b = t % 64;
    uint64_t lo = w < 4 ? n[w] : 0, hi = w + 1 < 4 ? n[w + 1] : 0;
    *q = b ? (lo >> b) | (hi << (64 - b)) : lo;
    /* the bits above X's 64 must be zero: X < 10^18 */
    int half_w = (t - 1) / 64, half_b = (t - 1) % 64;
    int half = (int)((n[half_w] >> half_b) & 1);
    uint64_t sticky = half_b ? n[half_w] & ((1ull << half_b) - 1) : 0;
    for (int k = 0; k < half_w; k++) sticky |= n[k];
    *frac = half ? (sticky ? FRAC_ABOVE_HALF : FRAC_HALF) : (sticky ? FRAC_BELOW_HALF : FRAC_ZERO);
    return 1;
}

/* floor(m 2^e / 10^d) and its fraction's class for e >= 0, 1 <= d <= 38; 0
 * when m 2^e does not fit 128 bits. */
static int scale_down(uint64_t m, int e, int d, uint64_t *q, int *frac)
{
    if (e > 128 - 54) return 0;
    u128 n = (u128)m << e, den = 1;
    for (int k = 0; k < d; k++) den *= 10;
    u128 qq = n / den, r = n - qq * den;
    *q = (uint64_t)qq;
    *frac = r == 0 ? FRAC_ZERO : 2 * r < den ? FRAC_BELOW_HALF : 2 * r == den ? FRAC_HALF : FRAC_ABOVE_HALF;
    return 1;
}

/* The 8 decimal digits of v < 10^8 at d, by pairs. */
static void put8(char *d, uint32_t v)
{
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(d, pairs + 2 * (hi / 100), 2);
    memcpy(d + 2, pairs + 2 * (hi % 100), 2);
    memcpy(d + 4, pairs + 2 * (lo / 100), 2);
    memcpy(d + 6, pairs + 2 * (lo % 100), 2);
}

int jg__io_fmt17(char *buf, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63), bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((1ull << 52) - 1);
    if (bexp == 0x7ff || (bexp == 0 && mant == 0)) return snprintf(buf, 32, "%.17g", v);
    uint64_t m = bexp ? mant | (1ull << 52) : mant;
    int e = bexp ? bexp - 1075 : -1074;
    int E = e + 63 - __builtin_clzll(m);   /* v in [2^E, 2^(E+1)) */
    double kf = E * 0.30102999566398120;   /* never an integer for E != 0 */
    int k = (int)kf - (kf < 0 && (double)(int)kf != kf);   /* floor: log10 v or one less */
    int s = 16 - k, frac = 0;
    uint64_t q = 0;
    int ok;
    if (s >= 0)
        ok = e >= 0 ? (q = (m << e) * POW10[s], frac = FRAC_ZERO, 1) : s <= 61 && scale_up(m, e, s, &q, &frac);
    else
        ok = -s <= 38 && scale_down(m, e, -s, &q, &frac);
    if (!ok) return snprintf(buf, 32, "%.17g", v);
    if (q >= POW10[17]) {   /* k was one too small: one digit less */
        int d = (int)(q % 10);
        q /= 10;
        k++;
        frac = d > 5    ? FRAC_ABOVE_HALF
               : d == 5 ? (frac == FRAC_ZERO ? FRAC_HALF : FRAC_ABOVE_HALF)
               : d > 0  ? FRAC_BELOW_HALF
                        : (frac == FRAC_ZERO ? FRAC_ZERO : FRAC_BELOW_HALF);
    }
    if (frac == FRAC_ABOVE_HALF || (frac == FRAC_HALF && (q & 1))) q++;
    if (q == POW10[17]) {
        q = POW10[16];
        k++;
    }
    char dg[17];
    dg[0] = (char)('0' + q / POW10[16]);
    uint64_t r = q % POW10[16];
    put8(dg + 1, (uint32_t)(r / 100000000u));
    put8(dg + 9, (uint32_t)(r % 100000000u));
    int nd = 17;   /* significant digits after dropping trailing zeros */
    while (nd > 1 && dg[nd - 1] == '0') nd--;
    char *o = buf;
    if (neg) *o++ = '-';
    if (k >= -4 && k < 17) {   /* %f style with 16 - k decimals, zeros dropped */
        if (k >= 0) {
            for (int j = 0; j <= k; j++) *o++ = dg[j];
            if (nd > k + 1) {
                *o++ = '.';
                for (int j = k + 1; j < nd; j++) *o++ = dg[j];
            }
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int j = 0; j < -k - 1; j++) *o++ = '0';
            for (int j = 0; j < nd; j++) *o++ = dg[j];
        }
    } else {   /* %e style: d.ddd e+XX (two exponent digits at least) */
        *o++ = dg[0];
        if (nd > 1) {
            *o++ = '.';
            for (int j = 1; j < nd; j++) *o++ = dg[j];
        }
        *o++ = 'e';
        *o++ = k < 0 ? '-' : '+';
        int x = k < 0 ? -k : k;
        if (x >= 100) *o++ = (char)('0' + x / 100);
        *o++ = (char)('0' + x / 10 % 10);
        *o++ = (char)('0' + x % 10);
    }
    *o = '\0';
    return (int)(o - buf);
}
