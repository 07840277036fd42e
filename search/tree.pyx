# cython: language_level=3
"""The ISMCTS tree's storage: adding nodes, growing chunks and tables, and the memory
a tree will hold.  Its types and hot lookups are in ``search/tree.pxd``.

The memory comes from the C header ``search/tree_memory.h``, included here and
nowhere else: its pool of chunks kept from finished searches is static state, one
per extension that includes it.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from fagin.engines.rng cimport mix64


cdef extern from "tree_memory.h":
    void* chunk_take "fagin_chunk_take"(size_t want, size_t* got) noexcept nogil
    void chunk_give "fagin_chunk_give"(void* p, size_t want, size_t got) noexcept nogil
    size_t pool_release "fagin_pool_release"() noexcept nogil
    int pool_stats "fagin_pool_stats"(size_t* nbytes) noexcept nogil
    int32_t* table_alloc "fagin_table_alloc"(size_t entries) noexcept nogil
    void table_free "fagin_table_free"(int32_t* t, size_t entries) noexcept nogil
    void touch "fagin_touch"(int32_t* t, size_t at) noexcept nogil


# ------------------------------------------------------ recycled tree memory
# Every page of a new chunk costs a page fault when first written, and in a
# server worker thread the malloc arena also hands freed memory back to the
# kernel, so every search paid for it again.  A finished search therefore
# leaves its node and slot chunks in a pool (up to 128 chunks, 256 MiB in all)
# and later searches take chunks of the same sizes from it: already mapped
# (its speed-up: docs/search.md, "Tree memory").


def release_tree_memory():
    """Frees the tree memory kept from finished searches; returns the bytes freed.

    Searches keep it (up to 128 chunks, 256 MiB in all) so that the next
    search starts on memory that is already mapped; a long-lived process that
    has finished searching for a while may give it back with this call.
    """
    return pool_release()


def kept_tree_memory():
    """(chunks, bytes) of tree memory kept from finished searches for the next ones."""
    cdef size_t total = 0
    cdef int n = pool_stats(&total)
    return n, total


# ------------------------------------------------------------ tree storage
# Growing the tree must cost about the same whatever its size: the server stops
# a search a few tens of ms before its deadline, and copying or rehashing a
# tree of millions of nodes in one iteration took most of a second (figures:
# docs/search.md, "Tree memory").  So:
# - nodes live in chunks of NODE_CHUNK; node i is node_chunks[i >> NODE_SHIFT]
#   [i & (NODE_CHUNK - 1)].  Only chunk 0 moves: it doubles from FIRST_NODES
#   up to NODE_CHUNK (a copy of at most 1.5 MiB), so a small search stays small;
#   later chunks are added whole.  Iterations hold node indices, never pointers.
# - slots live in chunks that never move: each node's slots are contiguous in
#   one chunk (a node whose slots do not fit in what is left of the current
#   chunk starts a new one), chunk sizes doubling from FIRST_SLOTS slots to
#   SLOT_CHUNK_BYTES, whole 2 MiB huge pages from 2 MiB up: the chunk being
#   filled is written in order, so it costs one page fault at a time, and
#   large chunks keep freeing a big tree quick.
# - the hash table doubles incrementally: the new table takes new nodes, the
#   old one is still searched, and each added node moves MIGRATE_STEP of the
#   old table's buckets into the new one; the old table is gone well before
#   the new one is half full.  The new table itself is allocated ahead, when
#   the current one is 3/8 full, and each added node writes into one more of
#   its pages: a fresh table is written at random, so its first inserts would
#   otherwise fault in all its pages at once.


cdef void tree_free(Tree* t) noexcept nogil:
    """Gives the tree's chunks back to the pool and frees its tables and indexes."""
    cdef int64_t i
    table_free(t.table, t.table_mask + 1)
    table_free(t.old_table, t.old_mask + 1)
    table_free(t.next_table, 2 * (t.table_mask + 1))
    if t.node_chunk_info != NULL:
        for i in range(t.node_chunks_len):
            chunk_give(t.node_chunk_info[i].p, t.node_chunk_info[i].want, t.node_chunk_info[i].got)
    if t.slot_chunks != NULL:
        for i in range(t.slot_chunks_len):
            chunk_give(t.slot_chunks[i].p, t.slot_chunks[i].want, t.slot_chunks[i].got)
    free(t.node_chunks)
    free(t.node_chunk_info)
    free(t.slot_chunks)


cdef int tree_take_chunk(Tree* t, Chunk* c, size_t want) noexcept nogil:
    c.want = want
    c.p = chunk_take(want, &c.got)
    if c.p == NULL:
        return -1
    add_size(&t.held_bytes, c.got)
    return 0


cdef void tree_give_chunk(Tree* t, Chunk* c) noexcept nogil:
    add_size(&t.held_bytes, -c.got)
    chunk_give(c.p, c.want, c.got)
    c.p = NULL


cdef int tree_start(Tree* t) noexcept nogil:
    """Node chunk 0 and the first hash table; -1 if out of memory."""
    cdef int64_t room = FIRST_NODES if t.max_nodes > FIRST_NODES else t.max_nodes
    cdef uint64_t size = 16
    t.node_chunks_cap = 8
    t.node_chunks = <Node**>malloc(sizeof(Node*) * t.node_chunks_cap)
    t.node_chunk_info = <Chunk*>malloc(sizeof(Chunk) * t.node_chunks_cap)
    if t.node_chunks == NULL or t.node_chunk_info == NULL:
        return -1
    if tree_take_chunk(t, &t.node_chunk_info[0], sizeof(Node) * room) < 0:
        return -1
    t.node_chunks[0] = <Node*>t.node_chunk_info[0].p
    t.node_chunks_len = 1
    t.node_room = room
    while size < <uint64_t>(2 * room):
        size <<= 1
    t.table = table_alloc(size)
    if t.table == NULL:
        return -1
    t.table_mask = size - 1
    add_size(&t.held_bytes, sizeof(int32_t) * size)
    return 0


cdef int tree_grow_nodes(Tree* t) noexcept nogil:
    """Room for at least one more node: chunk 0 doubled while it is not
    full-sized, else a new chunk; -1 if out of memory."""
    cdef Chunk c
    cdef int64_t room
    cdef void* grown
    if t.node_room < NODE_CHUNK:
        room = 2 * t.node_room
        if room > NODE_CHUNK:
            room = NODE_CHUNK
        if room > t.max_nodes:
            room = t.max_nodes
        if tree_take_chunk(t, &c, sizeof(Node) * room) < 0:
            return -1
        memcpy(c.p, t.node_chunks[0], sizeof(Node) * t.num_nodes)
        tree_give_chunk(t, &t.node_chunk_info[0])
        t.node_chunk_info[0] = c
        t.node_chunks[0] = <Node*>c.p
        t.node_room = room
        return 0
    cdef int64_t last = t.node_chunks_len - 1
    cdef int64_t first = last << NODE_SHIFT      # the last chunk's first node
    if t.node_room - first < NODE_CHUNK:
        # The last chunk was cut to a cap since raised (cap_nodes): it grows in place
        # of a new chunk, since node i is found in chunk i >> NODE_SHIFT.
        room = NODE_CHUNK
        if room > t.max_nodes - first:
            room = t.max_nodes - first
        if tree_take_chunk(t, &c, sizeof(Node) * room) < 0:
            return -1
        memcpy(c.p, t.node_chunks[last], sizeof(Node) * (t.num_nodes - first))
        tree_give_chunk(t, &t.node_chunk_info[last])
        t.node_chunk_info[last] = c
        t.node_chunks[last] = <Node*>c.p
        t.node_room = first + room
        return 0
    if t.node_chunks_len == t.node_chunks_cap:
        grown = realloc(t.node_chunks, sizeof(Node*) * 2 * t.node_chunks_cap)
        if grown == NULL:
            return -1
        t.node_chunks = <Node**>grown
        grown = realloc(t.node_chunk_info, sizeof(Chunk) * 2 * t.node_chunks_cap)
        if grown == NULL:
            return -1
        t.node_chunk_info = <Chunk*>grown
        t.node_chunks_cap *= 2
    room = NODE_CHUNK
    if room > t.max_nodes - t.node_room:
        room = t.max_nodes - t.node_room      # the last chunk a capped tree needs
    if tree_take_chunk(t, &t.node_chunk_info[t.node_chunks_len], sizeof(Node) * room) < 0:
        return -1
    t.node_chunks[t.node_chunks_len] = <Node*>t.node_chunk_info[t.node_chunks_len].p
    t.node_chunks_len += 1
    t.node_room += room
    return 0


cdef int tree_grow_slots(Tree* t) noexcept nogil:
    """A new current slot chunk (the rest of the old one stays unused); -1 if out of memory."""
    cdef size_t want
    cdef void* grown
    if t.slot_chunks_len == t.slot_chunks_cap:
        grown = realloc(t.slot_chunks, sizeof(Chunk) * (2 * t.slot_chunks_cap + 8))
        if grown == NULL:
            return -1
        t.slot_chunks = <Chunk*>grown
        t.slot_chunks_cap = 2 * t.slot_chunks_cap + 8
    if t.slot_chunks_len == 0:
        want = sizeof(Slot) * (FIRST_SLOTS if FIRST_SLOTS > t.slot_bound else t.slot_bound)
    else:
        want = 2 * t.last_slot_chunk
    if want > HUGE_BYTES:
        want = (want + HUGE_BYTES - 1) & ~(<size_t>HUGE_BYTES - 1)    # whole huge pages
    if want > SLOT_CHUNK_BYTES:
        want = SLOT_CHUNK_BYTES
    if tree_take_chunk(t, &t.slot_chunks[t.slot_chunks_len], want) < 0:
        return -1
    t.slot_next = <Slot*>t.slot_chunks[t.slot_chunks_len].p
    t.slot_left = t.slot_chunks[t.slot_chunks_len].got // sizeof(Slot)
    t.slot_chunks_len += 1
    t.last_slot_chunk = want
    return 0


cdef inline void tree_insert(Tree* t, uint64_t h, int32_t entry) noexcept nogil:
    h &= t.table_mask
    while t.table[h] != 0:
        h = (h + 1) & t.table_mask
    t.table[h] = entry


cdef void tree_migrate(Tree* t, uint64_t buckets) noexcept nogil:
    """Moves up to `buckets` buckets of the old table into the new one (the
    old table is left intact, so searches of it stay right meanwhile) and
    frees the old table once all are moved."""
    cdef uint64_t size = t.old_mask + 1
    cdef uint64_t end = t.migrated + buckets
    cdef int32_t entry
    cdef Node* nd
    if end > size:
        end = size
    while t.migrated < end:
        entry = t.old_table[t.migrated]
        if entry != 0:
            nd = tree_node(t, entry - 1)
            tree_insert(t, mix64(nd.key, <uint64_t>nd.seat), entry)
        t.migrated += 1
    if t.migrated == size:
        table_free(t.old_table, size)
        t.old_table = NULL
        add_size(&t.held_bytes, -(sizeof(int32_t) * size))


cdef void tree_prepare_table(Tree* t) noexcept nogil:
    """Allocates the next table (twice the size), its pages to be written
    in by later additions; leaves it NULL if out of memory."""
    cdef uint64_t size = 2 * (t.table_mask + 1)
    t.next_table = table_alloc(size)
    if t.next_table == NULL:
        return
    add_size(&t.held_bytes, sizeof(int32_t) * size)
    # A small table comes from calloc, already written.
    t.next_touched = 0 if sizeof(int32_t) * size >= TABLE_MAP_BYTES else sizeof(int32_t) * size


cdef int tree_grow_table(Tree* t) noexcept nogil:
    """Starts moving to a table twice the size; -1 if out of memory."""
    cdef uint64_t size = 2 * (t.table_mask + 1)
    cdef int32_t* table
    if t.old_table != NULL:
        tree_migrate(t, t.old_mask + 1)     # never: MIGRATE_STEP empties it first
    if t.next_table == NULL:
        tree_prepare_table(t)
        if t.next_table == NULL:
            return -1
    table = t.next_table
    t.next_table = NULL
    t.old_table = t.table
    t.old_mask = t.table_mask
    t.migrated = 0
    t.table = table
    t.table_mask = size - 1
    return 0


cdef int64_t tree_add(Tree* t, int seat, uint64_t key, const int* actions, int n) noexcept nogil:
    """Adds a node with one slot per action in actions[0:n]; -1 if the tree
    is at max_nodes (or memory ran out).  Costs about the same whatever the
    tree's size (see "tree storage")."""
    cdef int64_t i = t.num_nodes
    cdef int j
    cdef Node* nd
    cdef Slot* sl
    if i >= t.max_nodes:
        return -1
    if t.old_table != NULL:
        tree_migrate(t, MIGRATE_STEP)
    if t.next_table != NULL:
        if t.next_touched < sizeof(int32_t) * 2 * (t.table_mask + 1):
            touch(t.next_table, t.next_touched)
            t.next_touched += PAGE_BYTES
    elif <uint64_t>(8 * (i + 1)) > 3 * (t.table_mask + 1):
        tree_prepare_table(t)
    if <uint64_t>(2 * (i + 1)) > t.table_mask + 1 and tree_grow_table(t) < 0:
        return -1
    if i == t.node_room and tree_grow_nodes(t) < 0:
        return -1
    if n > t.slot_left and tree_grow_slots(t) < 0:
        return -1
    sl = t.slot_next
    t.slot_next += n
    t.slot_left -= n
    t.num_slots += n
    for j in range(n):
        sl[j].action = actions[j]
        sl[j].visits = 0
        sl[j].avail = 0
        sl[j].value_sum = 0.0
        sl[j].regret = 0.0
        sl[j].avg = 0.0
    t.num_nodes += 1
    nd = tree_node(t, i)
    nd.key = key
    nd.seat = seat
    nd.slots = sl
    nd.num_slots = n
    tree_insert(t, mix64(key, <uint64_t>seat), <int32_t>(i + 1))
    return i


# ------------------------------------------------------------ memory ahead
# A server reserves tree memory before a slice runs and caps the tree to it, so
# it must know what the tree will hold at a given size.  Counting nodes at a
# flat rate missed the allocation steps (a first slot chunk of FIRST_SLOTS slots
# however small the tree, a slot chunk twice the last one, the table doubling),
# so a tree could hold more than its reservation.  These follow tree_start,
# tree_grow_nodes, tree_grow_slots and tree_add step by step.

cdef inline size_t chunk_got(size_t want) noexcept nogil:
    """What fagin_tree_alloc holds for `want` bytes: whole huge pages from HUGE_BYTES up."""
    if want < HUGE_BYTES:
        return want
    return (want + HUGE_BYTES - 1) & ~(<size_t>HUGE_BYTES - 1)


cdef size_t tree_bytes_at(const Tree* t, int64_t target, int64_t slots_per_node) noexcept nogil:
    """The most bytes the tree holds once it has `target` nodes under a cap of `target`
    (never fewer than it has), each node added from now taking `slots_per_node` slots."""
    cdef int64_t have = t.num_nodes
    cdef int64_t i, k, room, first, fit, adding
    cdef size_t nodes_b = 0, slots_b = 0, table_b, want, last
    cdef uint64_t size = 16
    cdef int64_t left
    cdef bint grew_table = False
    if target < have:
        target = have
    if target < 1:
        target = 1
    # Node chunks: chunk 0 doubles up to NODE_CHUNK, later chunks are whole but for the
    # last, which a cap cuts (a cap of `target` cuts every step to it).
    if t.table == NULL:
        room = FIRST_NODES if target > FIRST_NODES else target
        while size < <uint64_t>(2 * room):
            size <<= 1
        nodes_b = chunk_got(sizeof(Node) * room)
        have = 0
    else:
        for k in range(t.node_chunks_len):
            nodes_b += t.node_chunk_info[k].got
        room = t.node_room
        size = t.table_mask + 1
    if target > room:
        if room < NODE_CHUNK:
            # chunk 0 grows (doubling, cut to the cap) to hold min(target, NODE_CHUNK)
            # (chunk 0 is then the only one: its size is `nodes_b` so far)
            first = target if target < NODE_CHUNK else NODE_CHUNK
            nodes_b = chunk_got(sizeof(Node) * first)
            room = first
        else:
            # the last chunk, if cut, grows to a whole one or to the cap
            first = (t.node_chunks_len - 1) << NODE_SHIFT      # the last chunk's first node
            if room - first < NODE_CHUNK:
                i = target - first if target - first < NODE_CHUNK else NODE_CHUNK
                nodes_b -= t.node_chunk_info[t.node_chunks_len - 1].got
                nodes_b += chunk_got(sizeof(Node) * i)
                room = first + i
        while room < target:
            i = target - room if target - room < NODE_CHUNK else NODE_CHUNK
            nodes_b += chunk_got(sizeof(Node) * i)
            room += i
    # Slot chunks: a node whose slots do not fit what is left starts a chunk twice the last.
    if t.table == NULL:
        slots_b = 0
        left = 0
        last = 0
        i = 0                     # slot chunks so far
    else:
        for k in range(t.slot_chunks_len):
            slots_b += t.slot_chunks[k].got
        left = t.slot_left
        last = t.last_slot_chunk
        i = t.slot_chunks_len
    adding = target - have
    if slots_per_node < 1:
        slots_per_node = 1
    while adding > 0:
        fit = left // slots_per_node
        if fit >= adding:
            break
        adding -= fit
        if i == 0:
            want = sizeof(Slot) * (FIRST_SLOTS if FIRST_SLOTS > t.slot_bound else t.slot_bound)
        else:
            want = 2 * last
        if want > HUGE_BYTES:
            want = (want + HUGE_BYTES - 1) & ~(<size_t>HUGE_BYTES - 1)
        if want > SLOT_CHUNK_BYTES:
            want = SLOT_CHUNK_BYTES
        slots_b += chunk_got(want)
        left = chunk_got(want) // sizeof(Slot)
        last = want
        i += 1
    # Hash tables: the table doubles when half full, the next one is allocated at 3/8,
    # and the old one lingers while it is emptied into the new (MIGRATE_STEP buckets a node).
    while <uint64_t>(2 * target) > size:
        size <<= 1
        grew_table = True
    table_b = sizeof(int32_t) * size
    if <uint64_t>(8 * target) > 3 * size:
        table_b += sizeof(int32_t) * 2 * size
    if grew_table or t.old_table != NULL:
        table_b += sizeof(int32_t) * (size // 2)
    return nodes_b + slots_b + table_b
