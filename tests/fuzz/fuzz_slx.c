/* Fuzz target "slx": an SLX package (a zip read through libzip, its XML parts
 * through the XML reader) read from memory and converted to our JSON model. */
#include "fuzz.h"
#include "fz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    /* text files have their own target (fuzz_mdl) */
    if (size < 2 || data[0] != 'P' || data[1] != 'K') return 0;
    fz_import((const char *)data, size);
    return 0;
}
