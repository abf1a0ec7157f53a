/* Compiler context shared by compile.c and setup.c. */
#ifndef JG_COMPILE_IMPL_H
#define JG_COMPILE_IMPL_H
#include "program_impl.h"

typedef struct jg__cctx {
    jg_program_t *p;
    jg_error_t *err;
    int part_cap_blk;     /* capacity of the current block's part array */
} jg__cctx_t;

#endif
