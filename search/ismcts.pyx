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
3. adds the first unseen information set, then plays out to the end with
   the game's rollout policy (``GameDef.rollout_action``) or uniformly at
   random (the ``rollout`` setting);
4. backs up each node with the return of the seat that acts there.

Each node holds exactly one *slot* (an action's statistics) per legal action
it had when it was added, taken from one growable array of slots, so a game
whose largest decision has hundreds of options pays for them only where they
occur.  Regret-matching selections ("rm", "os") share ``search/regret.pxd``
with the CFR solvers.

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
from search.regret cimport regret_matching

from dataclasses import dataclass

from fagin.search.limits import (DEFAULT_EXPLORATION, DEFAULT_GAMMA, DEFAULT_ITERATIONS, DEFAULT_MAX_NODES,
                                 MAX_ITERATIONS, MAX_NODES, MAX_TIME_MS)

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
    int64_t first        # index of the node's first slot in the slot array
    int32_t seat
    int32_t num_slots    # its legal actions when it was added, in ascending order

cdef enum:
    STOP_NONE = 0
    STOP_ITERATIONS = 1
    STOP_TIME = 2
    STOP_CANCELLED = 3
    STOP_TERMINAL_ROOT = 4

STOP_REASONS = {STOP_ITERATIONS: "iterations", STOP_TIME: "time", STOP_CANCELLED: "cancelled"}

# Most iterations one tree runs in all: its 32-bit visit counts must not wrap.
cdef int64_t TREE_ITERATION_CAP = 0xFFFFFFFF - 1

# Sentinel for "no limit" on iterations.
cdef int64_t NO_LIMIT = 0x7FFFFFFFFFFFFFFF
# Slots a fresh search reserves (the array doubles as nodes are added).
cdef int64_t FIRST_SLOTS = 4096

#: Rollout settings: "policy" plays out with the game's rollout policy where it
#: has one (uniform otherwise) -- and, where the game also has an evaluation
#: (``GameDef.evaluate``, London), stops after ``GameDef.rollout_depth`` rollout
#: actions and takes the evaluation's estimate; "random" always plays uniformly
#: to the end.
ROLLOUTS = ("policy", "random")
DEFAULT_ROLLOUT = "random"


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
    cdef readonly str selection
    cdef readonly str rollout
    cdef readonly double gamma
    cdef int use_rm
    cdef int use_os
    cdef int use_policy         # play out with gd.rollout_action
    cdef int cutoff             # > 0: policy rollouts stop after this many actions, gd.evaluate scores them
    cdef unsigned char* root
    cdef unsigned char* work
    cdef int* legal             # the current legal actions (room for max_legal_actions)
    cdef int legal_cap
    cdef int slot_bound         # most slots of one node (max_decision_actions)
    cdef int* mapped            # slots of the current node's legal actions
    cdef double* sigma          # rm: the regret-matching strategy over `mapped`
    cdef int64_t* path_node
    cdef int32_t* path_slot
    cdef double* path_prob
    cdef int path_cap
    cdef double* path_sigma     # os: the strategy of each legal slot on the path
    cdef int32_t* path_legal    # os: the legal slots on the path
    cdef int32_t* path_n
    cdef double* path_w         # os: others' reach / sample reach at the node
    cdef double* path_m         # os: own reach / sample reach at the node
    cdef double* path_sig_a     # os: the strategy's probability of the chosen slot
    cdef double reach_own, reach_others, reach_sample   # os: along the current descent
    cdef Node* nodes
    cdef Slot* slots
    cdef size_t nodes_bytes, slots_bytes   # allocated sizes (room for more than in use)
    cdef int64_t num_nodes, node_cap, max_nodes
    cdef int64_t num_slots                 # slots in use
    cdef int32_t* table            # node index + 1, 0 = empty
    cdef uint64_t table_mask
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
        self.mapped = NULL
        self.sigma = NULL
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

    def __init__(self, state, int seat, seed=0, double exploration=DEFAULT_EXPLORATION,
                 max_nodes=DEFAULT_MAX_NODES, selection="ucb", gamma=None, rollout=DEFAULT_ROLLOUT):
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
        since the search starts at the current position).  ``gamma``
        defaults to ``limits.DEFAULT_GAMMA`` of the selection.
        ``max_nodes`` caps the tree's memory: past it no node is added and
        iterations keep refining the existing tree.

        ``rollout``: how an iteration plays on once it has left the tree.
        ``"policy"`` uses the game's rollout policy (``GameDef.rollout_action``,
        a cheap heuristic mixed with randomness) where the game has one and
        plays uniformly where it has none; ``"random"`` always plays
        uniformly.  The default is ``"random"``, chosen by arena evidence at
        equal wall time (50 ms a move, ``python -m fagin.search.arena``, 800
        seat-rotated games each, 95 % Wilson intervals): the policy made no
        measurable difference against the heuristic bots.  Kids of London,
        ISMCTS + 3 heuristic: policy 43.9 % [40.5, 47.3] of games won,
        random 44.1 % [40.7, 47.6]; Gangs of Kyoto, ISMCTS + 2 heuristic:
        policy 50.2 % [46.8, 53.7], random 50.5 % [47.0, 54.0].  Meanwhile it
        costs about 30 % of the iterations per second in Gangs of Kyoto
        (about none in Kids of London; ``bench/ismcts_speed.py --compare``),
        and against uniformly random opponents, whom it models
        worse, it did worse (43.8 % vs 48.8 % of 80 Kids of London games at
        300 iterations; weak evidence).  Uniform playouts also keep a
        search's answers those of the search before the policy existed.
        """
        if selection not in ("ucb", "rm", "os"):
            raise ValueError(f"selection: 'ucb', 'rm' or 'os', got {selection!r}")
        if gamma is None:
            gamma = DEFAULT_GAMMA[selection]
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma: must be in (0, 1], got {gamma}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout: 'policy' or 'random', got {rollout!r}")
        capsule = state.game.capsule
        if not PyCapsule_IsValid(capsule, GAMEDEF_CAPSULE):
            raise TypeError("state's game carries no fagin.GameDef")
        if not exploration >= 0:
            raise ValueError(f"exploration: must be >= 0, got {exploration}")
        if not 1 <= max_nodes <= MAX_NODES:
            raise ValueError(f"max_nodes: must be in 1..{MAX_NODES}, got {max_nodes}")
        self.selection = selection
        self.rollout = rollout
        self.use_rm = selection in ("rm", "os")
        self.use_os = selection == "os"
        self.gamma = gamma
        self.gd = <const GameDef*>PyCapsule_GetPointer(capsule, GAMEDEF_CAPSULE)
        self.use_policy = rollout == "policy" and self.gd.rollout_action != NULL
        self.cutoff = self.gd.rollout_depth if self.use_policy and self.gd.evaluate != NULL else 0
        self.state = state
        self.seat = seat
        self.exploration = exploration
        self.max_nodes = max_nodes
        cdef int size = self.gd.state_size
        self.root = <unsigned char*>malloc(size)
        self.work = <unsigned char*>malloc(size)
        # Chance nodes may list more outcomes than any decision has actions;
        # nodes (decisions only) never hold more than max_decision_actions
        # slots.  Legal action ids are distinct and below num_distinct_actions,
        # so an engine that lists more than it declared still cannot write
        # past this buffer.
        self.slot_bound = max(1, self.gd.max_decision_actions)
        self.legal_cap = max(self.slot_bound, self.gd.max_legal_actions, self.gd.num_distinct_actions)
        self.legal = <int*>malloc(sizeof(int) * self.legal_cap)
        self.mapped = <int*>malloc(sizeof(int) * self.slot_bound)
        self.sigma = <double*>malloc(sizeof(double) * self.slot_bound)
        self.path_cap = self.gd.max_game_length + 1
        self.path_node = <int64_t*>malloc(sizeof(int64_t) * self.path_cap)
        self.path_slot = <int32_t*>malloc(sizeof(int32_t) * self.path_cap)
        self.path_prob = <double*>malloc(sizeof(double) * self.path_cap)
        if not (self.root and self.work and self.legal and self.mapped and self.sigma and self.path_node
                and self.path_slot and self.path_prob):
            raise MemoryError()
        if self.use_os:
            self.path_sigma = <double*>malloc(sizeof(double) * self.path_cap * self.slot_bound)
            self.path_legal = <int32_t*>malloc(sizeof(int32_t) * self.path_cap * self.slot_bound)
            self.path_n = <int32_t*>malloc(sizeof(int32_t) * self.path_cap)
            self.path_w = <double*>malloc(sizeof(double) * self.path_cap)
            self.path_m = <double*>malloc(sizeof(double) * self.path_cap)
            self.path_sig_a = <double*>malloc(sizeof(double) * self.path_cap)
            if not (self.path_sigma and self.path_legal and self.path_n and self.path_w and self.path_m
                    and self.path_sig_a):
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
        if self._set_node_cap(min(max_nodes, 1 << 10)) < 0 or self._reserve_slots(FIRST_SLOTS) < 0:
            raise MemoryError()

    def __dealloc__(self):
        free(self.root)
        free(self.work)
        free(self.legal)
        free(self.mapped)
        free(self.sigma)
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
        """Sets node capacity to `cap` (>= current), growing the node block only
        if it is too small, and rebuilds the hash table; -1 if out of memory."""
        if tree_grow(<void**>&self.nodes, &self.nodes_bytes, sizeof(Node) * cap,
                     sizeof(Node) * self.num_nodes) < 0:
            return -1
        self.node_cap = cap
        return self._rehash(cap * 2)

    cdef int _reserve_slots(self, int64_t more) noexcept nogil:
        """Makes room for `more` slots past those in use (the slot block at
        least doubles when it grows); -1 if out of memory."""
        cdef int64_t want = self.num_slots + more
        if sizeof(Slot) * want <= self.slots_bytes:
            return 0
        if want < 2 * self.num_slots:
            want = 2 * self.num_slots
        return tree_grow(<void**>&self.slots, &self.slots_bytes, sizeof(Slot) * want,
                         sizeof(Slot) * self.num_slots)

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

    cdef int64_t _add(self, int seat, uint64_t key, int n) noexcept nogil:
        """Adds a node with one slot per action in self.legal[0:n]; -1 if the
        tree is at max_nodes (or memory ran out)."""
        cdef int64_t cap, i, first
        cdef int j
        cdef Slot* sl
        if self.num_nodes >= self.node_cap:
            if self.node_cap >= self.max_nodes:
                return -1
            cap = self.node_cap * 2
            if cap > self.max_nodes:
                cap = self.max_nodes
            if self._set_node_cap(cap) < 0:
                return -1
        if self._reserve_slots(n) < 0:
            return -1
        first = self.num_slots
        self.num_slots += n
        for j in range(n):
            sl = &self.slots[first + j]
            sl.action = self.legal[j]
            sl.visits = 0
            sl.avail = 0
            sl.value_sum = 0.0
            sl.regret = 0.0
            sl.avg = 0.0
        i = self.num_nodes
        self.num_nodes += 1
        self.nodes[i].key = key
        self.nodes[i].seat = seat
        self.nodes[i].first = first
        self.nodes[i].num_slots = n
        cdef uint64_t h = mix64(key, <uint64_t>seat) & self.table_mask
        while self.table[h] != 0:
            h = (h + 1) & self.table_mask
        self.table[h] = <int32_t>(i + 1)
        return i

    cdef inline int _legal(self, const void* st) noexcept nogil:
        """Fills self.legal; the count is clamped to the buffer (an engine that
        returns more than it declared is not trusted past it)."""
        cdef int n = self.gd.legal_actions(st, self.legal)
        return n if n <= self.legal_cap else self.legal_cap

    cdef int _rollout_action(self, const void* st) noexcept nogil:
        """An action outside the tree: the game's rollout policy or uniform; -1 if none is legal."""
        if self.use_policy:
            return self.gd.rollout_action(st, &self.rng)
        cdef int n = self._legal(st)
        if n <= 0:
            return -1
        return self.legal[rng_below(&self.rng, n)]

    cdef int _map(self, int64_t node, int n) noexcept nogil:
        """Maps the legal actions self.legal[0:n] to the node's slots in
        self.mapped (counting their availability); returns how many map.

        Slots and legal actions are both ascending, so one merge walk finds
        them.  An information set should always show the same legal actions,
        but an action without a slot (a hash collision, an engine bug) is
        left out of selection rather than trusted."""
        cdef Slot* base = &self.slots[self.nodes[node].first]
        cdef int num = self.nodes[node].num_slots
        cdef int i, j = 0, m = 0
        for i in range(n):
            while j < num and base[j].action < self.legal[i]:
                j += 1
            if j == num:
                break
            if base[j].action == self.legal[i]:
                base[j].avail += 1
                self.mapped[m] = j
                m += 1
                j += 1
        return m

    cdef int _select_ucb(self, Slot* base, int m, bint fresh) noexcept nogil:
        """UCB1 with availability counts over the mapped slots; an untried one
        first (uniformly), and a uniform pick at a node just added."""
        cdef int i, j, best = -1, unvisited = 0
        cdef double score, best_score = -1e300
        cdef Slot* sl
        for i in range(m):
            if base[self.mapped[i]].visits == 0:
                unvisited += 1
                if rng_below(&self.rng, unvisited) == 0:
                    best = self.mapped[i]
        if best >= 0:
            return best
        if fresh:
            return self.mapped[rng_below(&self.rng, m)]
        for i in range(m):
            j = self.mapped[i]
            sl = &base[j]
            score = sl.value_sum / sl.visits + self.exploration * sqrt(log(<double>sl.avail) / sl.visits)
            if score > best_score:
                best_score = score
                best = j
        return best

    cdef int _sample(self, const double* sigma, int m, double mix) noexcept nogil:
        """An index drawn from (1 - mix) * sigma + mix * uniform; its probability
        goes to self.sample_prob."""
        cdef double r = rng_double(&self.rng), q = 0.0
        cdef int i
        for i in range(m):
            q = (1.0 - mix) * sigma[i] + mix / m
            r -= q
            if r < 0:
                self.sample_prob = q
                return i
        self.sample_prob = q            # rounding left r >= 0: the last one
        return m - 1

    cdef int _select_rm(self, Slot* base, int m) noexcept nogil:
        """Regret matching mixed with gamma-uniform exploration; the node's
        average strategy takes the unmixed strategy."""
        cdef int i
        regret_matching(&base[0].regret, sizeof(Slot), self.mapped, m, self.sigma)
        for i in range(m):
            base[self.mapped[i]].avg += self.sigma[i]
        return self.mapped[self._sample(self.sigma, m, self.gamma)]

    cdef int _select_os(self, Slot* base, int m, int depth, bint updating) noexcept nogil:
        """Outcome sampling: regret matching, explored with probability gamma by
        the updating seat only; records what the update of this node needs."""
        cdef double* sig = &self.path_sigma[depth * self.slot_bound]
        cdef int i, chosen
        regret_matching(&base[0].regret, sizeof(Slot), self.mapped, m, sig)
        for i in range(m):
            self.path_legal[depth * self.slot_bound + i] = self.mapped[i]
        chosen = self._sample(sig, m, self.gamma if updating else 0.0)
        if self.sample_prob <= 0:
            self.sample_prob = 1e-12
        self.path_sig_a[depth] = sig[chosen]
        self.path_n[depth] = m
        self.path_w[depth] = self.reach_others / self.reach_sample
        self.path_m[depth] = self.reach_own / self.reach_sample
        if updating:
            self.reach_own *= sig[chosen]
        else:
            self.reach_others *= sig[chosen]
        self.reach_sample *= self.sample_prob
        return self.mapped[chosen]

    cdef int _iterate(self, int update) noexcept nogil:
        """One iteration: a determinization, one descent and its backup.
        `update` is the seat whose regrets an "os" iteration updates.
        Returns -1 if the iteration was abandoned (an engine listed no legal
        action at a decision), else 0."""
        cdef const GameDef* gd = self.gd
        cdef void* st = self.work
        cdef int p, n, m, depth = 0, slot, a
        cdef int64_t node
        cdef uint64_t key
        cdef bint in_tree = True
        cdef bint evaluated = False
        cdef int out_steps = 0
        cdef Slot* base
        cdef double returns[MAX_SEATS]
        memcpy(st, self.root, gd.state_size)
        gd.determinize(st, self.seat, &self.rng)
        self.reach_own = 1.0
        self.reach_others = 1.0
        self.reach_sample = 1.0
        while True:
            p = gd.current_player(st)
            if p == PLAYER_TERMINAL:
                break
            if p == PLAYER_CHANCE:
                gd.apply_action(st, gd.sample_chance(st, &self.rng))
                continue
            if not in_tree or depth >= self.path_cap:
                if self.cutoff > 0 and out_steps >= self.cutoff:
                    gd.evaluate(st, returns)
                    evaluated = True
                    break
                a = self._rollout_action(st)
                if a < 0:
                    return -1
                gd.apply_action(st, a)
                out_steps += 1
                continue
            n = self._legal(st)
            if n <= 0:
                return -1
            key = gd.infoset_key(st, p)
            node = self._find(p, key)
            if node < 0:
                # The first unseen information set ends the in-tree part.
                in_tree = False
                node = self._add(p, key, n if n <= self.slot_bound else self.slot_bound)
                if node < 0:
                    gd.apply_action(st, self.legal[rng_below(&self.rng, n)])     # the tree is full
                    continue
            m = self._map(node, n)
            if m == 0:
                # No legal action has a slot here: the node cannot be trusted.
                in_tree = False
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            base = &self.slots[self.nodes[node].first]
            if self.use_os:
                slot = self._select_os(base, m, depth, p == update)
            elif self.use_rm:
                slot = self._select_rm(base, m)
            else:
                slot = self._select_ucb(base, m, not in_tree)
            self.path_node[depth] = node
            self.path_slot[depth] = slot
            self.path_prob[depth] = self.sample_prob
            depth += 1
            gd.apply_action(st, base[slot].action)
        if not evaluated:
            gd.returns(st, returns)
        if self.use_os:
            self._backup_os(depth, returns, update)
        else:
            self._backup(depth, returns)
        return 0

    cdef void _backup(self, int depth, const double* returns) noexcept nogil:
        """UCB and RM: each node on the path takes the return of its seat."""
        cdef int i, j
        cdef double u
        cdef Slot* base
        cdef Slot* sl
        cdef int64_t node
        for i in range(depth):
            node = self.path_node[i]
            u = returns[self.nodes[node].seat]
            base = &self.slots[self.nodes[node].first]
            sl = &base[self.path_slot[i]]
            sl.visits += 1
            sl.value_sum += u
            if self.use_rm:
                # Sampled regrets: the chosen action's value importance-weighted, the others 0.
                for j in range(self.nodes[node].num_slots):
                    base[j].regret += (u / self.path_prob[i] if j == self.path_slot[i] else 0.0) - u

    cdef void _backup_os(self, int depth, const double* returns, int update) noexcept nogil:
        """Outcome sampling: the updating seat's regrets and average strategy,
        from the leaf up (each node's sampled value feeds its parent's)."""
        cdef int i, k, slot
        cdef int64_t node
        cdef double value = returns[update], child, est
        cdef Slot* base
        cdef double* sig
        for i in range(depth - 1, -1, -1):
            node = self.path_node[i]
            base = &self.slots[self.nodes[node].first]
            base[self.path_slot[i]].visits += 1
            base[self.path_slot[i]].value_sum += returns[self.nodes[node].seat]
            child = value / self.path_prob[i]
            est = self.path_sig_a[i] * child
            if self.nodes[node].seat == update:
                sig = &self.path_sigma[i * self.slot_bound]
                for k in range(self.path_n[i]):
                    slot = self.path_legal[i * self.slot_bound + k]
                    base[slot].regret += ((child if slot == self.path_slot[i] else 0.0) - est) * self.path_w[i]
                    base[slot].avg += self.path_m[i] * sig[k]
            value = est

    def run(self, iterations=None, time_ms=None):
        """Runs until ``iterations`` more iterations, ``time_ms`` more milliseconds, or cancel.

        At least one limit is required.  Returns the stop reason:
        ``"iterations"``, ``"time"`` or ``"cancelled"``.
        """
        if iterations is None and time_ms is None:
            raise ValueError("iterations/time_ms: give at least one budget")
        if iterations is not None and not 0 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations: must be in 0..{MAX_ITERATIONS}, got {iterations}")
        if time_ms is not None and not 0 <= time_ms <= MAX_TIME_MS:
            raise ValueError(f"time_ms: must be in 0..{MAX_TIME_MS}, got {time_ms}")
        if self.running:
            raise RuntimeError("this search is already running in another thread")
        cdef int64_t limit = NO_LIMIT if iterations is None else iterations
        # Visit and availability counts are 32-bit: one tree never runs more
        # iterations than they can count (a long time-only search stops there,
        # as if its iteration budget were used up).
        if limit > TREE_ITERATION_CAP - self.iterations:
            limit = TREE_ITERATION_CAP - self.iterations if self.iterations < TREE_ITERATION_CAP else 0
        cdef double budget = -1.0 if time_ms is None else time_ms
        cdef int64_t done = 0
        cdef int reason = STOP_ITERATIONS
        cdef int players = self.gd.num_players(self.root)
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
                    # os updates the seats in turn; the others ignore `update`.
                    self._iterate(<int>((self.iterations + done) % players))
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

    @property
    def num_slots(self):
        """Slots in use: one per legal action of each node when it was added."""
        return self.num_slots

    def node_actions(self, int seat, uint64_t key):
        """The actions of the slots of seat's node at information set ``key``
        (None if the tree has no such node)."""
        cdef int64_t node = self._find(seat, key)
        if node < 0:
            return None
        cdef Slot* base = &self.slots[self.nodes[node].first]
        return [base[j].action for j in range(self.nodes[node].num_slots)]

    @property
    def root_key(self):
        """The searching seat's information-set key at the root."""
        return self.root_key

    @property
    def tree_bytes(self):
        """Bytes the tree occupies: its nodes, their slots and the hash table
        (what is in use, not what the recycled blocks could hold)."""
        return (sizeof(Node) * self.num_nodes + sizeof(Slot) * self.num_slots
                + sizeof(int32_t) * (self.table_mask + 1))

    def result(self, stop_reason="iterations"):
        """The recommendation so far: most visited root action (ties: best mean)."""
        cdef int i, j, n
        cdef int64_t root = self._find(self.seat, self.root_key)
        cdef Slot* base
        cdef uint32_t visits
        st = self.state
        n = self._legal(self.root)
        actions = [self.legal[i] for i in range(n)]
        counts = {a: (0, 0.0) for a in actions}
        if root >= 0:
            base = &self.slots[self.nodes[root].first]
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
            base = &self.slots[self.nodes[node].first]
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


def search(state, int seat, iterations=None, time_ms=None, seed=0, exploration=DEFAULT_EXPLORATION,
           max_nodes=DEFAULT_MAX_NODES, selection="ucb", gamma=None, rollout=DEFAULT_ROLLOUT):
    """Runs one ISMCTS search and returns its :class:`SearchResult`.

    With neither budget given, ``limits.DEFAULT_ITERATIONS`` iterations are run.
    """
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    s = ISMCTS(state, seat, seed=seed, exploration=exploration, max_nodes=max_nodes,
               selection=selection, gamma=gamma, rollout=rollout)
    reason = s.run(iterations=iterations, time_ms=time_ms)
    return s.result(reason)
