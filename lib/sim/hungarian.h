/* hungarian.h -- minimum-cost perfect assignment of an n x n cost matrix (internal). */
#ifndef JG_SIM_HUNGARIAN_H
#define JG_SIM_HUNGARIAN_H
#include <stdint.h>

/* The permutation match (row i -> column match[i]) with the least sum of
 * cost[i * n + match[i]] (cost row-major, finite).  *total receives that sum
 * (may be NULL).  Returns 0, or -1 when out of memory or a cost is not
 * finite.  Cost: O(n^3) time,
 * O(n) memory. */
int jg__assignment_min(int64_t n, const double *cost, int64_t *match, double *total);

#endif
