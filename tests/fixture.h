/* fixture.h -- kept only while a test still includes it: the fixture now lives
 * in testlib.h, the one shared helper header. */
#include "testlib.h"
