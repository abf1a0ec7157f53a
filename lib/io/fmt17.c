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
 * (m 5^s) / 2^(-e - s) (10^s = 5^s 2^s), in 128 bits for s <= 27 and in
 * limbs down to the smallest subnormal, for s < 0 as (m 2^e) / 10^-s in 128
 * bits (|v| < 2^127).  The exact quotient and the remainder's comparison
 * with one half give the correctly rounded digits.
 * Values outside those ranges (huge, non-finite) go to snprintf: glibc's
 * conversion of a tiny value costs ~1 us, and a tenth of a large model's
 * Jacobian entries are rounding residues around 1e-50. */
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

static const uint64_t POW5[28] = {
    1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull,
    9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull,
    152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull,
    476837158203125ull, 2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
    298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull};

/* The fraction's class of n / 2^sh from its bit sh - 1 (the half) and the
 * bits below it (sticky). */
static int frac_class(int half, int sticky)
{
    return half ? (sticky ? FRAC_ABOVE_HALF : FRAC_HALF) : (sticky ? FRAC_BELOW_HALF : FRAC_ZERO);
}

/* Limbs of m 5^s: at most 53 + 340 log2(5) < 843 bits (s <= 340 for the
 * smallest subnormal). */
#define NLIMB 14

/* floor(m 2^e 10^s) and its fraction's class for s >= 0, e < 0, computed as
 * (m 5^s) / 2^(-e - s): one 128-bit product for s <= 27 (|v| >= ~1e-11),
 * else a product in limbs, 27 powers of five at a time; 0 when it does not
 * fit (never for a finite double; the caller falls back). */
static int scale_up(uint64_t m, int e, int s, uint64_t *q, int *frac)
{
    int sh = -e - s;   /* X = m 5^s / 2^sh */
    if (s <= 27) {
        u128 n = (u128)m * POW5[s];   /* < 2^53 2^63 */
        if (sh <= 0) {
            *q = (uint64_t)(n << -sh);   /* X < 10^18: no bit is lost */
            *frac = FRAC_ZERO;
            return 1;
        }
        if (sh >= 128) return 0;
        u128 low = n & (((u128)1 << (sh - 1)) - 1);
        *q = (uint64_t)(n >> sh);
        *frac = frac_class((int)((n >> (sh - 1)) & 1), low != 0);
        return 1;
    }
    uint64_t n[NLIMB + 1];   /* little-endian limbs, n[len] zero below */
    int len = 1;
    n[0] = m;
    while (s > 0) {
        int c = s > 27 ? 27 : s;
        s -= c;
        uint64_t carry = 0;
        for (int k = 0; k < len; k++) {
            u128 p = (u128)n[k] * POW5[c] + carry;
            n[k] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        if (carry) {
            if (len == NLIMB) return 0;
            n[len++] = carry;
        }
    }
    n[len] = 0;
    int w = sh / 64, b = sh % 64;
    /* X >= 1 puts bit sh in the top limb or below, X < 10^18 puts every bit
     * above X's 64 at zero: n[w + 1] is the last limb read */
    if (sh <= 0 || w >= len) return 0;
    *q = b ? (n[w] >> b) | (n[w + 1] << (64 - b)) : n[w];
    int half_w = (sh - 1) / 64, half_b = (sh - 1) % 64;
    uint64_t sticky = half_b ? n[half_w] & ((1ull << half_b) - 1) : 0;
    for (int k = 0; k < half_w; k++) sticky |= n[k];
    *frac = frac_class((int)((n[half_w] >> half_b) & 1), sticky != 0);
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

/* The 17 decimal digits of 10^16 <= q < 10^17 at d. */
static void put17(char *d, uint64_t q)
{
    uint64_t r = q % POW10[16];
    d[0] = (char)('0' + q / POW10[16]);
    put8(d + 1, (uint32_t)(r / 100000000u));
    put8(d + 9, (uint32_t)(r % 100000000u));
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
    /* k = floor(E log10 2): floor(log10 v) or one less.  78913 / 2^18 is
     * log10 2 close enough for that floor to be exact for |E| <= 1650 (Ryu's
     * table bound); for E < 0 it is minus the ceiling of -E log10 2, never
     * an integer. */
    int k = E >= 0 ? (int)(((uint32_t)E * 78913u) >> 18) : -(int)(((uint32_t)-E * 78913u + 262143u) >> 18);
    int s = 16 - k, frac = 0;
    uint64_t q = 0;
    int ok;
    if (s >= 0)
        ok = e >= 0 ? (q = (m << e) * POW10[s], frac = FRAC_ZERO, 1) : scale_up(m, e, s, &q, &frac);
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
    int nd = 17;   /* significant digits after dropping trailing zeros */
    for (uint64_t t = q; nd > 1 && t % 10 == 0; t /= 10) nd--;
    /* The digits are written where they go: copying them from a scratch
     * array read 16 bytes that 2-byte stores had just written, which the
     * processor cannot forward (a stall per value). */
    char *o = buf;
    if (neg) *o++ = '-';
    if (k >= 0 && k < 17) {   /* %f style with 16 - k decimals, zeros dropped */
        char dg[17];
        put17(dg, q);
        for (int j = 0; j <= k; j++) *o++ = dg[j];
        if (nd > k + 1) {
            *o++ = '.';
            for (int j = k + 1; j < nd; j++) *o++ = dg[j];
        }
    } else if (k < 0 && k >= -4) {   /* 0.000ddd: the digits whole, the length set after */
        memcpy(o, "0.000", 5);
        o += 1 - k;
        put17(o, q);
        o += nd;
    } else {   /* %e style: d.ddd e+XX (two exponent digits at least) */
        put17(o + 1, q);
        o[0] = o[1];
        o[1] = '.';
        o += nd > 1 ? nd + 1 : 1;
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
