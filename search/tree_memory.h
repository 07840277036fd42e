/* The ISMCTS tree's memory (search/tree.pyx):
   huge-page chunks, the pool of chunks kept from finished searches and the
   hash tables' mappings (the relaxed atomics and the clock are relaxed.h).

   Plain C, included by the one extension that uses it (the pool is its
   static state, so it must be one module's) and compiled on its own
   with -Wall -Wextra -Werror by tests/search/test_tree_memory_header.py.
   The measurements behind these choices are in docs/search.md ("Tree
   memory"). */
#ifndef FAGIN_TREE_MEMORY_H
#define FAGIN_TREE_MEMORY_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "relaxed.h"

/* Tree chunks of 2 MiB or more are 2 MiB-aligned and asked to live on
   huge pages: the search reads nodes at random, so with 4 KiB pages most
   reads miss the TLB, and where a chunk's pages fall in the caches
   would differ from process to process. */
#define FAGIN_HUGE ((size_t)2 << 20)
/* Large chunks are mapped directly (aligned by trimming a larger
   mapping), not taken from malloc, whose heap trimming made freeing a
   tree of hundreds of 2 MiB chunks far slower than unmapping them. */
static void *fagin_tree_alloc(size_t bytes, size_t *got) {
    char *p;
    size_t lead;
    if (bytes < FAGIN_HUGE) {
        *got = bytes;
        return malloc(bytes);
    }
    bytes = (bytes + FAGIN_HUGE - 1) & ~(FAGIN_HUGE - 1);
    p = (char *)mmap(NULL, bytes + FAGIN_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == (char *)MAP_FAILED) return NULL;
    lead = (FAGIN_HUGE - ((uintptr_t)p & (FAGIN_HUGE - 1))) & (FAGIN_HUGE - 1);
    if (lead) munmap(p, lead);
    munmap(p + lead + bytes, FAGIN_HUGE - lead);
    p += lead;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    *got = bytes;
    return p;
}
static void fagin_tree_free(void *p, size_t got) {
    if (p == NULL) return;
    if (got < FAGIN_HUGE) free(p);
    else munmap(p, got);
}

/* Chunks kept from finished searches for the next ones (see "recycled
   tree memory" in search/ismcts.pyx).  Searches take chunks while they run,
   without the GIL, so the pool has its own lock; it is held for a scan of
   at most FAGIN_POOL_ENTRIES entries, a few times per 2 MiB of tree. */
#define FAGIN_POOL_ENTRIES 128
#define FAGIN_POOL_MAX_BYTES ((size_t)256 << 20)
typedef struct { void *p; size_t want; size_t got; } fagin_chunk;
static fagin_chunk fagin_pool[FAGIN_POOL_ENTRIES];
static int fagin_pool_len = 0;
static size_t fagin_pool_bytes = 0;
static pthread_mutex_t fagin_pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* A chunk of `want` bytes (*got: what it really holds), kept or new; NULL if out of memory. */
static void *fagin_chunk_take(size_t want, size_t *got) {
    void *p = NULL;
    int i;
    pthread_mutex_lock(&fagin_pool_lock);
    for (i = fagin_pool_len - 1; i >= 0; i--) {
        if (fagin_pool[i].want == want) {
            p = fagin_pool[i].p;
            *got = fagin_pool[i].got;
            fagin_pool_bytes -= *got;
            fagin_pool[i] = fagin_pool[--fagin_pool_len];
            break;
        }
    }
    pthread_mutex_unlock(&fagin_pool_lock);
    return p != NULL ? p : fagin_tree_alloc(want, got);
}
/* Keeps a chunk for a later search while the pool has room, else frees it. */
static void fagin_chunk_give(void *p, size_t want, size_t got) {
    if (p == NULL) return;
    pthread_mutex_lock(&fagin_pool_lock);
    if (fagin_pool_len < FAGIN_POOL_ENTRIES && fagin_pool_bytes + got <= FAGIN_POOL_MAX_BYTES) {
        fagin_pool[fagin_pool_len].p = p;
        fagin_pool[fagin_pool_len].want = want;
        fagin_pool[fagin_pool_len].got = got;
        fagin_pool_len++;
        fagin_pool_bytes += got;
        p = NULL;
    }
    pthread_mutex_unlock(&fagin_pool_lock);
    fagin_tree_free(p, got);
}
static size_t fagin_pool_release(void) {
    fagin_chunk kept[FAGIN_POOL_ENTRIES];
    size_t total = 0;
    int i, n;
    pthread_mutex_lock(&fagin_pool_lock);
    n = fagin_pool_len;
    memcpy(kept, fagin_pool, n * sizeof(fagin_chunk));
    fagin_pool_len = 0;
    fagin_pool_bytes = 0;
    pthread_mutex_unlock(&fagin_pool_lock);
    for (i = 0; i < n; i++) {
        total += kept[i].got;
        fagin_tree_free(kept[i].p, kept[i].got);
    }
    return total;
}
static int fagin_pool_stats(size_t *bytes) {
    int n;
    pthread_mutex_lock(&fagin_pool_lock);
    n = fagin_pool_len;
    *bytes = fagin_pool_bytes;
    pthread_mutex_unlock(&fagin_pool_lock);
    return n;
}

/* Hash tables come zeroed.  A large one is mapped directly: its pages
   are zeroed by the kernel as the table fills, where calloc from the
   heap would clear it all at once. */
#define FAGIN_TABLE_MAP_BYTES ((size_t)1 << 20)
static int32_t *fagin_table_alloc(size_t entries) {
    size_t bytes = entries * sizeof(int32_t);
    void *p;
    if (bytes < FAGIN_TABLE_MAP_BYTES) return (int32_t *)calloc(entries, sizeof(int32_t));
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= FAGIN_HUGE) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return (int32_t *)p;
}
/* Writes (a zero) into the page of table byte `at`, so that the kernel maps
   it now rather than when the table is in use. */
static inline void fagin_touch(int32_t *t, size_t at) { ((volatile char *)t)[at] = 0; }
static void fagin_table_free(int32_t *t, size_t entries) {
    size_t bytes = entries * sizeof(int32_t);
    if (t == NULL) return;
    if (bytes < FAGIN_TABLE_MAP_BYTES) free(t);
    else munmap(t, bytes);
}

#endif /* FAGIN_TREE_MEMORY_H */
