/* The clock and the relaxed atomics the search loop reads without the GIL.

   Plain C with inline functions only, so that any search module may include
   it (search/tree_memory.h, which includes it too, holds static state that
   only search/tree.pyx may include). */
#ifndef FAGIN_RELAXED_H
#define FAGIN_RELAXED_H

#include <stddef.h>
#include <time.h>

static inline double fagin_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
static inline int fagin_load_flag(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void fagin_store_flag(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
/* The tree's byte count is written by the searching thread and may be read from any other. */
static inline size_t fagin_load_size(size_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void fagin_add_size(size_t *p, size_t v) {
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

#endif
