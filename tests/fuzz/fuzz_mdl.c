/* Fuzz target "mdl": a Simulink model file as text -- the classic MDL
 * tokenizer and section reader, or an OPC-text package (its parts then go
 * through the XML reader) -- read from memory and converted to our JSON model. */
#include "fuzz.h"
#include "fz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    /* the zip container has its own target (fuzz_slx) */
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') return 0;
    fz_import((const char *)data, size);
    return 0;
}
