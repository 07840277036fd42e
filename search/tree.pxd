# cython: language_level=3
"""The ISMCTS tree: its types, the hot lookups inline, and the functions of ``search/tree.pyx``.

Nodes are information sets, each with one slot per legal action it had when it was
added; a flat hash table finds them (see "tree storage" in ``search/tree.pyx``).
What runs at every node of every descent (``tree_node``, ``tree_find``, ``tree_map``)
is inline here, so that the C compiler inlines it into the search loop; growing
the tree (``tree_add`` and what it calls) is compiled once, in ``search/tree.pyx``,
which alone holds the memory under it (``search/tree_memory.h``: the pool of chunks
kept between searches is that module's static state).
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from fagin.engines.rng cimport mix64


cdef extern from "relaxed.h":
    double now_ms "fagin_now_ms"() noexcept nogil
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

# The tree (see "tree storage" in search/tree.pyx).  A tree starts all zero
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


cdef int tree_start(Tree* t) noexcept nogil
cdef void tree_free(Tree* t) noexcept nogil
cdef int64_t tree_add(Tree* t, int seat, uint64_t key, const int* actions, int n) noexcept nogil
cdef size_t tree_bytes_at(const Tree* t, int64_t target, int64_t slots_per_node) noexcept nogil


cdef inline Node* tree_node(const Tree* t, int64_t i) noexcept nogil:
    return &t.node_chunks[i >> NODE_SHIFT][i & (NODE_CHUNK - 1)]


cdef inline int64_t tree_probe(const Tree* t, const int32_t* table, uint64_t mask, uint64_t h,
                               int seat, uint64_t key) noexcept nogil:
    cdef int32_t idx
    cdef Node* nd
    h &= mask
    while True:
        idx = table[h]
        if idx == 0:
            return -1
        nd = tree_node(t, idx - 1)
        if nd.key == key and nd.seat == seat:
            return idx - 1
        h = (h + 1) & mask


cdef inline int64_t tree_find(const Tree* t, int seat, uint64_t key) noexcept nogil:
    """The index of seat's node at information set `key`; -1 if the tree has none."""
    if t.table == NULL:
        return -1                       # not run yet: no tree
    cdef uint64_t h = mix64(key, <uint64_t>seat)
    cdef int64_t i = tree_probe(t, t.table, t.table_mask, h, seat, key)
    if i >= 0 or t.old_table == NULL:
        return i
    return tree_probe(t, t.old_table, t.old_mask, h, seat, key)


cdef inline int tree_map(const Tree* t, int64_t node, const int* legal, int n, int* mapped) noexcept nogil:
    """Maps the legal actions legal[0:n] to the node's slots in `mapped`
    (counting their availability); returns how many map.

    Slots and legal actions are both ascending, so one merge walk finds
    them.  An information set should always show the same legal actions,
    but an action without a slot (a hash collision, an engine bug) is
    left out of selection rather than trusted."""
    cdef Node* nd = tree_node(t, node)
    cdef Slot* base = nd.slots
    cdef int num = nd.num_slots
    cdef int i, j = 0, m = 0
    for i in range(n):
        while j < num and base[j].action < legal[i]:
            j += 1
        if j == num:
            break
        if base[j].action == legal[i]:
            base[j].avail += 1
            mapped[m] = j
            m += 1
            j += 1
    return m
