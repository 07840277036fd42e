# cython: language_level=3
"""The ISMCTS tree's types: slots, nodes, chunks and the tree that holds them.

Declarations only, like ``engines/abi.pxd``; the functions over a ``Tree``
(find, insert, add, grow, migrate) are in ``search/tree.pxi``, included by
``search/ismcts.pyx``, so that the search loop calls them directly and the C
compiler may inline them.  The memory under the tree comes from the C header
``search/tree_memory.h``.
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t


cdef extern from "tree_memory.h":
    double now_ms "fagin_now_ms"() noexcept nogil
    void* chunk_take "fagin_chunk_take"(size_t want, size_t* got) noexcept nogil
    void chunk_give "fagin_chunk_give"(void* p, size_t want, size_t got) noexcept nogil
    size_t pool_release "fagin_pool_release"() noexcept nogil
    int pool_stats "fagin_pool_stats"(size_t* nbytes) noexcept nogil
    int32_t* table_alloc "fagin_table_alloc"(size_t entries) noexcept nogil
    void table_free "fagin_table_free"(int32_t* t, size_t entries) noexcept nogil
    void touch "fagin_touch"(int32_t* t, size_t at) noexcept nogil
    int load_flag "fagin_load_flag"(int* p) noexcept nogil
    void store_flag "fagin_store_flag"(int* p, int v) noexcept nogil
    size_t load_size "fagin_load_size"(size_t* p) noexcept nogil
    void add_size "fagin_add_size"(size_t* p, size_t v) noexcept nogil


ctypedef struct Slot:
    int32_t action
    uint32_t visits
    uint32_t avail       # iterations in which the action was legal here
    double value_sum
    double regret        # regret-matching selection: cumulative regret
    double avg           # regret-matching selection: cumulative strategy

ctypedef struct Node:
    uint64_t key
    Slot* slots          # its first slot (all of a node's slots are in one slot chunk)
    int32_t seat
    int32_t num_slots    # its legal actions when it was added, in ascending order

# A chunk of tree memory: `want` bytes asked for, `got` held (see fagin_tree_alloc).
ctypedef struct Chunk:
    void* p
    size_t want
    size_t got

# The tree (see "tree storage" in search/tree.pxi).  A tree starts all zero
# but for max_nodes and slot_bound; tree_start makes its first chunks.
ctypedef struct Tree:
    Node** node_chunks
    Chunk* node_chunk_info
    int64_t node_chunks_len, node_chunks_cap
    int64_t num_nodes, node_room, max_nodes   # node_room: nodes the chunks hold
    Chunk* slot_chunks
    int64_t slot_chunks_len, slot_chunks_cap
    Slot* slot_next           # the first free slot of the current slot chunk
    int64_t slot_left         # free slots after it
    size_t last_slot_chunk    # bytes asked for the latest slot chunk
    int64_t num_slots         # slots in use
    int slot_bound            # most slots of one node (the game's max_decision_actions)
    size_t held_bytes         # bytes held by the chunks and hash tables (ISMCTS.tree_bytes)
    int32_t* table            # node index + 1, 0 = empty
    uint64_t table_mask
    int32_t* old_table        # the table being emptied into `table`, or NULL
    uint64_t old_mask
    uint64_t migrated         # old_table buckets already moved
    int32_t* next_table       # the table that will replace `table` (pages being written), or NULL
    size_t next_touched       # bytes of next_table whose pages are written


cdef enum:
    NODE_SHIFT = 16
    NODE_CHUNK = 1 << NODE_SHIFT
    FIRST_NODES = 1024
    FIRST_SLOTS = 4096
    HUGE_BYTES = 2 << 20             # FAGIN_HUGE
    SLOT_CHUNK_BYTES = 16 << 20
    # Old buckets moved per added node: at least 2, so that the old table
    # (S buckets, S/2 nodes) is emptied before the new one (2S buckets) is half full.
    MIGRATE_STEP = 8
    PAGE_BYTES = 4096
    TABLE_MAP_BYTES = 1 << 20        # FAGIN_TABLE_MAP_BYTES
