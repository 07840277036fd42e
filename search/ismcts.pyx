# cython: language_level=3
"""Information-set Monte Carlo tree search over the engine ABI.

Game-agnostic: it sees a game only through its ``GameDef`` function table.
Nodes are information sets, keyed by ``(seat, infoset_key)`` in one flat
open-addressing hash table, so every seat keeps its own statistics in the
same table (the multiple-observer view of Cowling, Powley & Whitehouse 2012).
Each iteration:

1. copies the root (``memcpy``) and determinizes it for the searching seat,
   so that only what that seat knows is fixed;
2. descends, at each decision choosing by UCB1 with *availability counts*
   (an action's exploration term uses how often it was legal, not the
   parent's visits) — chance nodes are sampled;
3. adds the first unseen information set, then plays uniformly at random to
   the end;
4. backs up each node with the return of the seat that acts there.

The loop holds no Python objects and runs without the GIL; memory grows only
by doubling (rarely), never per iteration, and a finished search hands its
tree memory to the next one (see "recycled tree memory" below).
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, mix64, rng_below, rng_double, rng_seed

import time as _time
from dataclasses import dataclass

cdef extern from *:
    """
    #include <time.h>
    static inline double fagin_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    }
    static inline int fagin_load_flag(int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void fagin_store_flag(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

    #include <stdlib.h>
    #include <string.h>
    #include <sys/mman.h>
    /* Tree blocks of 2 MiB or more are 2 MiB-aligned and asked to live on
       huge pages: the search reads nodes at random, so with 4 KiB pages most
       reads miss the TLB, and where a block's pages fall in the caches
       would differ from process to process. */
    #define FAGIN_HUGE ((size_t)2 << 20)
    static void *fagin_tree_alloc(size_t bytes, size_t *got) {
        void *p;
        if (bytes < FAGIN_HUGE) {
            *got = bytes;
            return malloc(bytes);
        }
        bytes = (bytes + FAGIN_HUGE - 1) & ~(FAGIN_HUGE - 1);
        p = aligned_alloc(FAGIN_HUGE, bytes);
        if (p == NULL) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        *got = bytes;
        return p;
    }
    /* Makes *block (of *bytes) hold at least `want` bytes, keeping its first
       `used` bytes; a block that is already large enough is left alone.
       -1 if out of memory (the old block is then untouched). */
    static int fagin_tree_grow(void **block, size_t *bytes, size_t want, size_t used) {
        size_t got;
        void *p;
        if (*bytes >= want) return 0;
        p = fagin_tree_alloc(want, &got);
        if (p == NULL) return -1;
        if (used) memcpy(p, *block, used);
        free(*block);
        *block = p;
        *bytes = got;
        return 0;
    }
    """
    double now_ms "fagin_now_ms"() noexcept nogil
    int tree_grow "fagin_tree_grow"(void** block, size_t* nbytes, size_t want, size_t used) noexcept nogil
    int load_flag "fagin_load_flag"(int* p) noexcept nogil
    void store_flag "fagin_store_flag"(int* p, int v) noexcept nogil

ctypedef struct Slot:
    int32_t action
    uint32_t visits
    uint32_t avail       # iterations in which the action was legal here
    double value_sum
    double regret        # regret-matching selection: cumulative regret
    double avg           # regret-matching selection: cumulative strategy

ctypedef struct Node:
    uint64_t key
    int32_t seat
    int32_t num_slots

cdef enum:
    STOP_NONE = 0
    STOP_ITERATIONS = 1
    STOP_TIME = 2
    STOP_CANCELLED = 3
    STOP_TERMINAL_ROOT = 4

STOP_REASONS = {STOP_ITERATIONS: "iterations", STOP_TIME: "time", STOP_CANCELLED: "cancelled"}

# Sentinel for "no limit" on iterations.
cdef int64_t NO_LIMIT = 0x7FFFFFFFFFFFFFFF


# ------------------------------------------------------ recycled tree memory
# Every page of a new block costs a page fault when first written, and a
# growing block is copied each time it moves; in a server worker thread the
# malloc arena also hands freed blocks back to the kernel, so every search
# paid for both again.  A finished search therefore leaves its node and slot
# blocks here and the next search starts on them: already mapped, already
# large.  (With the huge pages below: 1.02-1.04x at 10,000 iterations and
# 1.06x at 100,000 in the Kids of London opening, old and new side by side.)
# Guarded by the GIL: only __init__ and __dealloc__ touch it, and both hold it.

ctypedef struct TreeBlocks:
    void* nodes
    size_t nodes_bytes
    void* slots
    size_t slots_bytes

cdef enum:
    POOL_ENTRIES = 16

# Blocks larger than this are freed rather than kept (a search of a few
# hundred thousand nodes; bigger ones are rare and would pin a lot of memory).
cdef size_t POOL_MAX_BLOCK_BYTES = 64 << 20
cdef TreeBlocks tree_pool[POOL_ENTRIES]
cdef int tree_pool_len = 0


cdef TreeBlocks pool_take():
    """The largest kept pair of blocks (both NULL if none is kept)."""
    global tree_pool_len
    cdef TreeBlocks out
    cdef int i, best = -1
    out.nodes = NULL
    out.slots = NULL
    out.nodes_bytes = 0
    out.slots_bytes = 0
    for i in range(tree_pool_len):
        if best < 0 or tree_pool[i].slots_bytes > tree_pool[best].slots_bytes:
            best = i
    if best >= 0:
        out = tree_pool[best]
        tree_pool_len -= 1
        tree_pool[best] = tree_pool[tree_pool_len]
    return out


cdef void pool_give(TreeBlocks blocks):
    """Keeps a pair of blocks for a later search, or frees it."""
    global tree_pool_len
    cdef int i, smallest = -1
    if blocks.nodes == NULL and blocks.slots == NULL:
        return
    if blocks.nodes_bytes + blocks.slots_bytes <= POOL_MAX_BLOCK_BYTES:
        if tree_pool_len < POOL_ENTRIES:
            tree_pool[tree_pool_len] = blocks
            tree_pool_len += 1
            return
        for i in range(tree_pool_len):
            if smallest < 0 or tree_pool[i].slots_bytes < tree_pool[smallest].slots_bytes:
                smallest = i
        if tree_pool[smallest].slots_bytes < blocks.slots_bytes:
            blocks, tree_pool[smallest] = tree_pool[smallest], blocks
    free(blocks.nodes)
    free(blocks.slots)


def release_tree_memory():
    """Frees the tree memory kept from finished searches; returns the bytes freed.

    Searches keep it (up to 16 blocks of at most 64 MiB) so that the next
    search starts on memory that is already mapped; a long-lived process that
    has finished searching for a while may give it back with this call.
    """
    global tree_pool_len
    cdef size_t total = 0
    while tree_pool_len > 0:
        tree_pool_len -= 1
        total += tree_pool[tree_pool_len].nodes_bytes + tree_pool[tree_pool_len].slots_bytes
        free(tree_pool[tree_pool_len].nodes)
        free(tree_pool[tree_pool_len].slots)
    return total


def kept_tree_memory():
    """(blocks, bytes) of tree memory kept from finished searches for the next ones."""
    cdef size_t total = 0
    cdef int i
    for i in range(tree_pool_len):
        total += tree_pool[i].nodes_bytes + tree_pool[i].slots_bytes
    return tree_pool_len, total


class SearchError(ValueError):
    """The search cannot run from this state/seat (terminal, chance, no decision pending)."""


@dataclass(frozen=True)
class ActionStats:
    """Statistics of one legal action at the root."""

    action: int
    label: str
    visits: int
    mean_value: float
    policy: float


@dataclass(frozen=True)
class SearchResult:
    """What a search concluded: the recommended action and the evidence."""

    action: int
    label: str
    stats: list
    iterations: int
    nodes: int
    elapsed_ms: float
    stop_reason: str

    def by_action(self):
        return {s.action: s for s in self.stats}


cdef class ISMCTS:
    """A resumable ISMCTS search for one seat of one state.

    ``run`` may be called several times (for progress reports); statistics
    accumulate.  ``cancel`` may be called from another thread while ``run``
    is in progress.  One object must not ``run`` in two threads at once.
    """
    cdef const GameDef* gd
    cdef object state          # keeps the Python state (and its game) alive
    cdef readonly int seat
    cdef readonly double exploration
    cdef unsigned char* root
    cdef unsigned char* work
    cdef int* legal
    cdef int64_t* path_node
    cdef int32_t* path_slot
    cdef double* path_prob
    cdef int path_cap
    cdef readonly str selection
    cdef int use_rm
    cdef int use_os
    cdef double gamma
    cdef double* path_sigma     # os: the strategy of each legal slot on the path
    cdef int32_t* path_legal    # os: the legal slots on the path
    cdef int32_t* path_n
    cdef double* path_w         # os: others' reach / sample reach at the node
    cdef double* path_m         # os: own reach / sample reach at the node
    cdef double* path_sig_a     # os: the strategy's probability of the chosen slot
    cdef Node* nodes
    cdef Slot* slots
    cdef size_t nodes_bytes, slots_bytes   # allocated sizes (room for more than node_cap)
    cdef int64_t num_nodes, node_cap, max_nodes
    cdef int32_t* table            # node index + 1, 0 = empty
    cdef uint64_t table_mask
    cdef int slot_cap
    cdef Rng rng
    cdef readonly int64_t iterations
    cdef readonly double elapsed_ms
    cdef int cancel_flag
    cdef int running
    cdef uint64_t root_key
    cdef double sample_prob

    def __cinit__(self):
        self.root = NULL
        self.work = NULL
        self.legal = NULL
        self.path_node = NULL
        self.path_slot = NULL
        self.path_prob = NULL
        self.path_sigma = NULL
        self.path_legal = NULL
        self.path_n = NULL
        self.path_w = NULL
        self.path_m = NULL
        self.path_sig_a = NULL
        self.nodes = NULL
        self.slots = NULL
        self.table = NULL

    def __init__(self, state, int seat, seed=0, double exploration=0.7, max_nodes=4_000_000,
                 selection="ucb", double gamma=0.1):
        """Prepares a search of ``state`` for ``seat``.

        ``selection``: ``"ucb"`` (UCB1 with availability counts; ``exploration``
        is its constant), ``"rm"`` (regret matching, as in SM-MCTS-RM of
        Lisý, Kovařík, Lanctot & Bošanský 2013: each node samples from its
        regret-matching strategy mixed with ``gamma`` uniform exploration, and
        the recommendation is its average strategy — a mixed strategy that
        resists exploitation in simultaneous and bluffing situations), or
        ``"os"`` (online outcome sampling, after Lisý, Lanctot & Bowling 2015:
        outcome-sampling MCCFR on the information-set tree grown from the
        determinized current position, players updated in turn, the updating
        player exploring with probability ``gamma``; no targeting is needed
        since the search starts at the current position).
        ``max_nodes`` caps the tree's memory: past it no node is added and
        iterations keep refining the existing tree.
        """
        if selection not in ("ucb", "rm", "os"):
            raise ValueError(f"selection: 'ucb', 'rm' or 'os', got {selection!r}")
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma: must be in (0, 1], got {gamma}")
        self.selection = selection
        self.use_rm = selection in ("rm", "os")
        self.use_os = selection == "os"
        self.gamma = gamma
        capsule = state.game.capsule
        if not PyCapsule_IsValid(capsule, GAMEDEF_CAPSULE):
            raise TypeError("state's game carries no fagin.GameDef")
        if not exploration >= 0:
            raise ValueError(f"exploration: must be >= 0, got {exploration}")
        if not 1 <= max_nodes <= 1 << 30:
            raise ValueError(f"max_nodes: must be in 1..2**30, got {max_nodes}")
        self.gd = <const GameDef*>PyCapsule_GetPointer(capsule, GAMEDEF_CAPSULE)
        self.state = state
        self.seat = seat
        self.exploration = exploration
        self.max_nodes = max_nodes
        cdef int size = self.gd.state_size
        self.root = <unsigned char*>malloc(size)
        self.work = <unsigned char*>malloc(size)
        # Nodes hold one slot per decision action (chance outcomes never reach a node).
        self.slot_cap = self.gd.max_decision_actions
        self.legal = <int*>malloc(sizeof(int) * self.slot_cap)
        self.path_cap = self.gd.max_game_length + 1
        self.path_node = <int64_t*>malloc(sizeof(int64_t) * self.path_cap)
        self.path_slot = <int32_t*>malloc(sizeof(int32_t) * self.path_cap)
        self.path_prob = <double*>malloc(sizeof(double) * self.path_cap)
        self.path_sigma = <double*>malloc(sizeof(double) * self.path_cap * self.slot_cap)
        self.path_legal = <int32_t*>malloc(sizeof(int32_t) * self.path_cap * self.slot_cap)
        self.path_n = <int32_t*>malloc(sizeof(int32_t) * self.path_cap)
        self.path_w = <double*>malloc(sizeof(double) * self.path_cap)
        self.path_m = <double*>malloc(sizeof(double) * self.path_cap)
        self.path_sig_a = <double*>malloc(sizeof(double) * self.path_cap)
        if not (self.root and self.work and self.legal and self.path_node and self.path_slot
                and self.path_prob and self.path_sigma and self.path_legal and self.path_n
                and self.path_w and self.path_m and self.path_sig_a):
            raise MemoryError()
        memcpy(self.root, <void*><size_t>state._address(), size)
        cdef int n = self.gd.num_players(self.root)
        if not 0 <= seat < n:
            raise SearchError(f"seat: {seat} is not a seat of this {n}-player state")
        cdef int p = self.gd.current_player(self.root)
        if p == PLAYER_TERMINAL:
            raise SearchError("state: the game is over; there is nothing to recommend")
        if p == PLAYER_CHANCE:
            raise SearchError("state: a chance event is pending; resolve it before searching")
        if not self.gd.make_current(self.root, seat):
            raise SearchError(f"seat: seat {seat} has no decision pending (seat {p} is to act)")
        self.root_key = self.gd.infoset_key(self.root, seat)
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        cdef TreeBlocks blocks = pool_take()
        self.nodes = <Node*>blocks.nodes
        self.nodes_bytes = blocks.nodes_bytes
        self.slots = <Slot*>blocks.slots
        self.slots_bytes = blocks.slots_bytes
        if self._set_node_cap(min(max_nodes, 1 << 10)) < 0:
            raise MemoryError()

    def __dealloc__(self):
        free(self.root)
        free(self.work)
        free(self.legal)
        free(self.path_node)
        free(self.path_slot)
        free(self.path_prob)
        free(self.path_sigma)
        free(self.path_legal)
        free(self.path_n)
        free(self.path_w)
        free(self.path_m)
        free(self.path_sig_a)
        free(self.table)
        cdef TreeBlocks blocks
        blocks.nodes = self.nodes
        blocks.nodes_bytes = self.nodes_bytes
        blocks.slots = self.slots
        blocks.slots_bytes = self.slots_bytes
        self.nodes = NULL
        self.slots = NULL
        pool_give(blocks)

    cdef int _set_node_cap(self, int64_t cap) noexcept nogil:
        """Sets node capacity to `cap` (>= current), growing the blocks only
        if they are too small, and rebuilds the hash table; -1 if out of memory."""
        if tree_grow(<void**>&self.nodes, &self.nodes_bytes, sizeof(Node) * cap,
                     sizeof(Node) * self.num_nodes) < 0:
            return -1
        if tree_grow(<void**>&self.slots, &self.slots_bytes, sizeof(Slot) * cap * self.slot_cap,
                     sizeof(Slot) * self.slot_cap * self.num_nodes) < 0:
            return -1
        self.node_cap = cap
        return self._rehash(cap * 2)

    cdef int _rehash(self, int64_t want) noexcept nogil:
        """Rebuilds the hash table with room for `want` entries; -1 if out of memory."""
        cdef uint64_t size = 16
        while size < <uint64_t>want:
            size <<= 1
        free(self.table)
        self.table = <int32_t*>calloc(size, sizeof(int32_t))
        if self.table == NULL:
            return -1
        self.table_mask = size - 1
        cdef int64_t i
        cdef uint64_t h
        for i in range(self.num_nodes):
            h = mix64(self.nodes[i].key, <uint64_t>self.nodes[i].seat) & self.table_mask
            while self.table[h] != 0:
                h = (h + 1) & self.table_mask
            self.table[h] = <int32_t>(i + 1)
        return 0

    cdef inline int64_t _find(self, int seat, uint64_t key) noexcept nogil:
        cdef uint64_t h = mix64(key, <uint64_t>seat) & self.table_mask
        cdef int32_t idx
        while True:
            idx = self.table[h]
            if idx == 0:
                return -1
            if self.nodes[idx - 1].key == key and self.nodes[idx - 1].seat == seat:
                return idx - 1
            h = (h + 1) & self.table_mask

    cdef int64_t _add(self, int seat, uint64_t key) noexcept nogil:
        """Adds a node; -1 if the tree is at max_nodes (or memory ran out)."""
        cdef int64_t cap
        if self.num_nodes >= self.node_cap:
            if self.node_cap >= self.max_nodes:
                return -1
            cap = self.node_cap * 2
            if cap > self.max_nodes:
                cap = self.max_nodes
            if self._set_node_cap(cap) < 0:
                return -1
        cdef int64_t i = self.num_nodes
        self.num_nodes += 1
        self.nodes[i].key = key
        self.nodes[i].seat = seat
        self.nodes[i].num_slots = 0
        cdef uint64_t h = mix64(key, <uint64_t>seat) & self.table_mask
        while self.table[h] != 0:
            h = (h + 1) & self.table_mask
        self.table[h] = <int32_t>(i + 1)
        return i

    cdef int64_t _enter(self, int p, const void* st, bint* in_tree) noexcept nogil:
        """The node of seat p's information set; a new one is added and ends the
        in-tree part of the iteration.  -1 if the tree is full."""
        cdef uint64_t key = self.gd.infoset_key(st, p)
        cdef int64_t node = self._find(p, key)
        if node < 0:
            in_tree[0] = False
            node = self._add(p, key)
        return node

    cdef int _select(self, int64_t node, int n, bint fresh) noexcept nogil:
        """Picks a slot among the `n` legal actions in self.legal, counting availability."""
        cdef Node* nd = &self.nodes[node]
        cdef Slot* base = &self.slots[node * self.slot_cap]
        cdef int i, j, best = -1, unvisited = 0
        cdef double score, best_score = -1e300
        cdef Slot* sl
        # Map each legal action to its slot (adding slots for actions seen
        # for the first time), bump availability, and pick an untried one
        # uniformly if there is any.
        for i in range(n):
            j = 0
            while j < nd.num_slots and base[j].action != self.legal[i]:
                j += 1
            if j == nd.num_slots:
                if j >= self.slot_cap:
                    continue      # cannot happen with a correct max_legal_actions
                base[j].action = self.legal[i]
                base[j].visits = 0
                base[j].avail = 0
                base[j].value_sum = 0.0
                base[j].regret = 0.0
                base[j].avg = 0.0
                nd.num_slots += 1
            base[j].avail += 1
            self.legal[i] = j     # reuse the buffer: legal[i] now holds the slot index
            if base[j].visits == 0:
                unvisited += 1
                if rng_below(&self.rng, unvisited) == 0:
                    best = j
        if self.use_os:
            return 0            # _iterate_os does its own sampling over the mapped slots
        if self.use_rm:
            return self._select_rm(base, n)
        if best >= 0 or fresh:
            return best if best >= 0 else self.legal[rng_below(&self.rng, n)]
        for i in range(n):
            sl = &base[self.legal[i]]
            score = sl.value_sum / sl.visits + self.exploration * sqrt(log(<double>sl.avail) / sl.visits)
            if score > best_score:
                best_score = score
                best = self.legal[i]
        return best

    cdef int _select_rm(self, Slot* base, int n) noexcept nogil:
        """Regret matching mixed with gamma-uniform exploration; the chosen slot's
        sampling probability goes to self.sample_prob, and the node's average
        strategy takes the unmixed strategy."""
        cdef int i, j, chosen = self.legal[n - 1]
        cdef double total = 0.0, sigma, r, q
        for i in range(n):
            j = self.legal[i]
            if base[j].regret > 0:
                total += base[j].regret
        r = rng_double(&self.rng)
        self.sample_prob = 1.0
        for i in range(n):
            j = self.legal[i]
            sigma = (base[j].regret / total if base[j].regret > 0 else 0.0) if total > 0 else 1.0 / n
            base[j].avg += sigma
            q = (1.0 - self.gamma) * sigma + self.gamma / n
            if r >= 0:
                r -= q
                if r < 0:
                    chosen = j
                    self.sample_prob = q
        if r >= 0:
            self.sample_prob = (1.0 - self.gamma) * ((base[chosen].regret / total if base[chosen].regret > 0
                                                      else 0.0) if total > 0 else 1.0 / n) + self.gamma / n
        return chosen

    cdef int _iterate_os(self, int update) noexcept nogil:
        """One online outcome-sampling iteration, updating seat `update`."""
        cdef const GameDef* gd = self.gd
        cdef void* st = self.work
        cdef int p, n, depth = 0, i, k, slot, chosen
        cdef int64_t node
        cdef bint in_tree = True
        cdef double returns[MAX_SEATS]
        cdef double my = 1.0, opp = 1.0, smp = 1.0, total, r, q, qa = 1.0
        cdef double value, child, est
        cdef Slot* base
        cdef double* sig
        memcpy(st, self.root, gd.state_size)
        gd.determinize(st, self.seat, &self.rng)
        while True:
            p = gd.current_player(st)
            if p == PLAYER_TERMINAL:
                break
            if p == PLAYER_CHANCE:
                gd.apply_action(st, gd.sample_chance(st, &self.rng))
                continue
            n = gd.legal_actions(st, self.legal)
            if not in_tree or depth >= self.path_cap:
                # Outside the tree: uniform play, whose sampling ratio is 1 (nothing to record).
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            node = self._enter(p, st, &in_tree)
            if node < 0:
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            self._select(node, n, False)            # maps legal actions to slots in self.legal
            base = &self.slots[node * self.slot_cap]
            sig = &self.path_sigma[depth * self.slot_cap]
            total = 0.0
            for i in range(n):
                if base[self.legal[i]].regret > 0:
                    total += base[self.legal[i]].regret
            r = rng_double(&self.rng)
            chosen = n - 1
            for i in range(n):
                slot = self.legal[i]
                sig[i] = (base[slot].regret / total if base[slot].regret > 0 else 0.0) if total > 0 else 1.0 / n
                self.path_legal[depth * self.slot_cap + i] = slot
            for i in range(n):
                q = (self.gamma / n + (1.0 - self.gamma) * sig[i]) if p == update else sig[i]
                r -= q
                if r < 0:
                    chosen = i
                    break
            qa = (self.gamma / n + (1.0 - self.gamma) * sig[chosen]) if p == update else sig[chosen]
            if qa <= 0:
                qa = 1e-12
            self.path_node[depth] = node
            self.path_slot[depth] = self.legal[chosen]
            self.path_prob[depth] = qa
            self.path_sig_a[depth] = sig[chosen]
            self.path_n[depth] = n
            self.path_w[depth] = opp / smp
            self.path_m[depth] = my / smp
            depth += 1
            if p == update:
                my *= sig[chosen]
            else:
                opp *= sig[chosen]
            smp *= qa
            gd.apply_action(st, base[self.legal[chosen]].action)
        gd.returns(st, returns)
        value = returns[update]
        for i in range(depth - 1, -1, -1):
            node = self.path_node[i]
            base = &self.slots[node * self.slot_cap]
            base[self.path_slot[i]].visits += 1
            base[self.path_slot[i]].value_sum += returns[self.nodes[node].seat]
            child = value / self.path_prob[i]
            est = self.path_sig_a[i] * child
            if self.nodes[node].seat == update:
                sig = &self.path_sigma[i * self.slot_cap]
                for k in range(self.path_n[i]):
                    slot = self.path_legal[i * self.slot_cap + k]
                    base[slot].regret += ((child if slot == self.path_slot[i] else 0.0) - est) * self.path_w[i]
                    base[slot].avg += self.path_m[i] * sig[k]
            value = est
        return 0

    cdef int _iterate(self) noexcept nogil:
        """One iteration; returns 0 (never fails)."""
        cdef const GameDef* gd = self.gd
        cdef void* st = self.work
        cdef int p, n, depth = 0, slot, a
        cdef int64_t node
        cdef bint in_tree = True, fresh
        cdef double returns[MAX_SEATS]
        memcpy(st, self.root, gd.state_size)
        gd.determinize(st, self.seat, &self.rng)
        while True:
            p = gd.current_player(st)
            if p == PLAYER_TERMINAL:
                break
            if p == PLAYER_CHANCE:
                gd.apply_action(st, gd.sample_chance(st, &self.rng))
                continue
            n = gd.legal_actions(st, self.legal)
            if not in_tree:
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            node = self._enter(p, st, &in_tree)
            fresh = not in_tree
            if node < 0:
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            slot = self._select(node, n, fresh)
            a = self.slots[node * self.slot_cap + slot].action
            if depth < self.path_cap:
                self.path_node[depth] = node
                self.path_slot[depth] = slot
                self.path_prob[depth] = self.sample_prob
                depth += 1
            gd.apply_action(st, a)
        gd.returns(st, returns)
        cdef int i
        cdef Slot* sl
        cdef int j
        cdef double u
        cdef Slot* base
        for i in range(depth):
            node = self.path_node[i]
            u = returns[self.nodes[node].seat]
            sl = &self.slots[node * self.slot_cap + self.path_slot[i]]
            sl.visits += 1
            sl.value_sum += u
            if self.use_rm:
                # Sampled regrets: the chosen action's value importance-weighted, the others 0.
                base = &self.slots[node * self.slot_cap]
                for j in range(self.nodes[node].num_slots):
                    base[j].regret += (u / self.path_prob[i] if j == self.path_slot[i] else 0.0) - u
        return 0

    def run(self, iterations=None, time_ms=None):
        """Runs until ``iterations`` more iterations, ``time_ms`` more milliseconds, or cancel.

        At least one limit is required.  Returns the stop reason:
        ``"iterations"``, ``"time"`` or ``"cancelled"``.
        """
        if iterations is None and time_ms is None:
            raise ValueError("iterations/time_ms: give at least one budget")
        if iterations is not None and not 0 <= iterations <= 10**12:
            raise ValueError(f"iterations: must be in 0..10**12, got {iterations}")
        if time_ms is not None and not 0 <= time_ms <= 86_400_000:
            raise ValueError(f"time_ms: must be in 0..86400000, got {time_ms}")
        if self.running:
            raise RuntimeError("this search is already running in another thread")
        cdef int64_t limit = NO_LIMIT if iterations is None else iterations
        cdef double budget = -1.0 if time_ms is None else time_ms
        cdef int64_t done = 0
        cdef int reason = STOP_ITERATIONS
        cdef double start, deadline, now
        self.running = 1
        try:
            with nogil:
                start = now_ms()
                deadline = start + budget
                while done < limit:
                    if load_flag(&self.cancel_flag):
                        reason = STOP_CANCELLED
                        break
                    if budget >= 0 and (done & 15) == 0 and now_ms() >= deadline:
                        reason = STOP_TIME
                        break
                    if self.use_os:
                        self._iterate_os(<int>((self.iterations + done) % self.gd.num_players(self.root)))
                    else:
                        self._iterate()
                    done += 1
                if reason == STOP_ITERATIONS and budget >= 0 and done < limit:
                    reason = STOP_TIME
                now = now_ms()
        finally:
            self.running = 0
        self.iterations += done
        self.elapsed_ms += now - start
        return STOP_REASONS[reason]

    def cancel(self):
        """Asks a running (or the next) ``run`` to stop; safe from any thread."""
        store_flag(&self.cancel_flag, 1)

    @property
    def num_nodes(self):
        return self.num_nodes

    def result(self, stop_reason="iterations"):
        """The recommendation so far: most visited root action (ties: best mean)."""
        cdef int i, j, n
        cdef int64_t root = self._find(self.seat, self.root_key)
        cdef Slot* base
        cdef uint32_t visits
        st = self.state
        n = self.gd.legal_actions(self.root, self.legal)
        actions = [self.legal[i] for i in range(n)]
        counts = {a: (0, 0.0) for a in actions}
        if root >= 0:
            base = &self.slots[root * self.slot_cap]
            for j in range(self.nodes[root].num_slots):
                if base[j].action in counts:
                    visits = base[j].visits
                    counts[base[j].action] = (visits, base[j].value_sum / visits if visits else 0.0)
        policy = self.node_policy(self.seat, self.root_key, actions)
        stats = [ActionStats(a, st.action_label(a), counts[a][0], counts[a][1], policy[a]) for a in actions]
        best = best_action(stats, self.selection)
        return SearchResult(best.action, best.label, stats, self.iterations, self.num_nodes,
                            self.elapsed_ms, stop_reason)


    def node_policy(self, int seat, uint64_t key, actions):
        """The search's policy at an information set: visit shares (UCB) or the
        average strategy (RM); uniform over ``actions`` where the set was never reached."""
        cdef int64_t node = self._find(seat, key)
        cdef Slot* base
        cdef int j
        weights = {a: 0.0 for a in actions}
        if node >= 0:
            base = &self.slots[node * self.slot_cap]
            for j in range(self.nodes[node].num_slots):
                if base[j].action in weights:
                    weights[base[j].action] = base[j].avg if self.use_rm else base[j].visits
        total = sum(weights.values())
        if total <= 0:
            return {a: 1.0 / len(actions) for a in actions}
        return {a: w / total for a, w in weights.items()}


def best_action(stats, selection):
    """The recommended one of a root's ActionStats: the most visited (ties: the
    higher mean value) for UCB; the highest average-strategy probability for
    regret-matching selections ("rm", "os").  Lower ids win remaining ties."""
    if selection in ("rm", "os"):
        return max(stats, key=lambda s: (s.policy, s.visits, -s.action))
    return max(stats, key=lambda s: (s.visits, s.mean_value, -s.action))


def search(state, int seat, iterations=None, time_ms=None, seed=0, exploration=0.7,
           max_nodes=4_000_000, selection="ucb", gamma=0.1):
    """Runs one ISMCTS search and returns its :class:`SearchResult`.

    With neither budget given, 1,000 iterations are run.
    """
    if iterations is None and time_ms is None:
        iterations = 1000
    s = ISMCTS(state, seat, seed=seed, exploration=exploration, max_nodes=max_nodes,
               selection=selection, gamma=gamma)
    reason = s.run(iterations=iterations, time_ms=time_ms)
    return s.result(reason)
