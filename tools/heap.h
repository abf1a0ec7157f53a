/* heap.h -- the CLI's heap policy (tools/heap.c). */
#ifndef JG_CLI_HEAP_H
#define JG_CLI_HEAP_H

/* Sets glibc's heap options for a large model (freed memory kept, no
 * fastbins) and starts a detached thread that maps the heap's new pages
 * before the main thread writes them (see heap.c).  Call first in main(),
 * before any allocation of note and before threads or fork.  The
 * environment variable JACGRAPH_PREFAULT=0 leaves the thread out.  Never
 * fails: what cannot be set up is left as glibc's default. */
void cli_heap_init(void);

#endif
