/* random.h -- the counter-based random numbers of the random sources: draw j
 * of stream `seed` depends on (seed, j) only, so runs are reproducible and
 * independent of how often the solver evaluates a block. */
#ifndef JG_BLOCKS_RANDOM_H
#define JG_BLOCKS_RANDOM_H
#include <stdint.h>

/* Uniform in (0, 1), never 0 or 1: the top 53 bits of splitmix64 output j of
 * seed (z = seed + (j + 1) 0x9E3779B97F4A7C15 through the splitmix64
 * finalizer; Steele, Lea and Flood 2014).  O(1), no state. */
double jg__rand_uniform(uint64_t seed, uint64_t j);
/* N(0, 1) from the uniforms 2n and 2n + 1 of seed by Box-Muller
 * (sqrt(-2 ln u1) cos(2 pi u2)).  O(1), no state. */
double jg__rand_normal(uint64_t seed, uint64_t n);

#endif
