/* jacgraph/export.h -- JG_API, the mark of the public API: the functions that
 * libjacgraph.so exports.
 *
 * The library is compiled with -fvisibility=hidden, so every function is
 * private to it unless its declaration in a public header (lib/include/jacgraph)
 * starts with JG_API.  Internal functions (the jg__ ones, and those declared
 * only in a module's private _impl.h or _internal.h headers) are therefore
 * not part of the shared library's ABI; tests that exercise them link the
 * static library.  Every public header includes this one.
 *
 * For a user JG_API is only a declaration attribute and changes nothing.
 * With a compiler that has no visibility attribute it is empty; a build may
 * also define JG_API itself before including any jacgraph header.
 */
#ifndef JACGRAPH_EXPORT_H
#define JACGRAPH_EXPORT_H

#ifndef JG_API
#if defined(__GNUC__) || defined(__clang__)
#define JG_API __attribute__((visibility("default")))
#else
#define JG_API
#endif
#endif

#endif
