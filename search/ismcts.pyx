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

The loop holds no Python objects and runs without the GIL.  The tree never
moves once built, so no iteration pays for the tree's size: nodes and slots
live in fixed chunks that are added, never copied, and the hash table grows
incrementally (see "tree storage" below).  A finished search hands its chunks
to the next one (see "recycled tree memory").
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, mix64, rng_below, rng_double, rng_seed
from search.regret cimport regret_matching

from dataclasses import dataclass

from fagin.search.limits import (PRIOR_WEIGHT, MAX_PRIOR, DEFAULT_EXPLORATION, DEFAULT_GAMMA, DEFAULT_ITERATIONS, DEFAULT_MAX_NODES,
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
    /* The tree's byte count is written by the searching thread and may be read from any other. */
    static inline size_t fagin_load_size(size_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void fagin_add_size(size_t *p, size_t v) {
        __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
    }

    #include <pthread.h>
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/mman.h>
    /* Tree chunks of 2 MiB or more are 2 MiB-aligned and asked to live on
       huge pages: the search reads nodes at random, so with 4 KiB pages most
       reads miss the TLB, and where a chunk's pages fall in the caches
       would differ from process to process. */
    #define FAGIN_HUGE ((size_t)2 << 20)
    /* Large chunks are mapped directly (aligned by trimming a larger
       mapping), not taken from malloc, whose heap trimming made freeing a
       tree of hundreds of 2 MiB chunks take ten times as long as unmapping them. */
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
       tree memory").  Searches take chunks while they run, without the GIL,
       so the pool has its own lock; it is held for a scan of at most
       FAGIN_POOL_ENTRIES entries, a few times per 2 MiB of tree. */
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
       heap would clear it all at once (milliseconds at millions of nodes). */
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
    """
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

cdef enum:
    STOP_NONE = 0
    STOP_ITERATIONS = 1
    STOP_TIME = 2
    STOP_CANCELLED = 3
    STOP_TERMINAL_ROOT = 4

STOP_REASONS = {STOP_ITERATIONS: "iterations", STOP_TIME: "time", STOP_CANCELLED: "cancelled"}

# Most iterations one tree runs in all: its 32-bit visit counts must not wrap.
cdef int64_t TREE_ITERATION_CAP = 0xFFFFFFFF - 1

# A timed run reads the clock about every CHECK_MS ms, at most every
# MAX_CHECK_STRIDE iterations apart.
cdef double CHECK_MS = 0.1
cdef int64_t MAX_CHECK_STRIDE = 64

# Analysis sums per root slot: visits, each seat's return sum, each seat's margin sum,
# the searching seat's return square sum and margin square sum (see _record_root).
cdef enum:
    AN_STRIDE = 2 * MAX_SEATS + 3

# Sentinel for "no limit" on iterations.
cdef int64_t NO_LIMIT = 0x7FFFFFFFFFFFFFFF
# ------------------------------------------------------------ tree storage
# Growing the tree must cost about the same whatever its size: the server stops
# a search a few tens of ms before its deadline, and copying or rehashing a
# tree of millions of nodes in one iteration took a second (a doubling of the
# node and slot blocks plus a rebuilt hash table: 0.2 s at 262k nodes, 1.7 s
# at 2M).  So:
# - nodes live in chunks of NODE_CHUNK; node i is node_chunks[i >> NODE_SHIFT]
#   [i & (NODE_CHUNK - 1)].  Only chunk 0 moves: it doubles from FIRST_NODES
#   up to NODE_CHUNK (a copy of at most 1.5 MiB), so a small search stays small;
#   later chunks are added whole.  Iterations hold node indices, never pointers.
# - slots live in chunks that never move: each node's slots are contiguous in
#   one chunk (a node whose slots do not fit in what is left of the current
#   chunk starts a new one), chunk sizes doubling from FIRST_SLOTS slots to
#   SLOT_CHUNK_BYTES, whole 2 MiB huge pages from 2 MiB up: the chunk being
#   filled is written in order, so it costs one page fault at a time, and
#   large chunks keep freeing a big tree quick (unmapping 2 MiB chunks one by
#   one took 76 ms for a tree of 600 MiB, against 8 ms for one block).
# - the hash table doubles incrementally: the new table takes new nodes, the
#   old one is still searched, and each added node moves MIGRATE_STEP of the
#   old table's buckets into the new one; the old table is gone well before
#   the new one is half full.  The new table itself is allocated ahead, when
#   the current one is 3/8 full, and each added node writes into one more of
#   its pages: a fresh table is written at random, so its first inserts would
#   otherwise fault in all its pages at once (57 ms for the 32 MiB table of
#   2M nodes, where the kernel has to zero fresh pages).
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
    PATH_START = 16                  # path entries allocated at first (grown by doubling)


cdef bint _grow_doubles(double** p, int64_t n) noexcept nogil:
    cdef double* q = <double*>realloc(p[0], sizeof(double) * n)
    if q == NULL:
        return False
    p[0] = q
    return True


cdef bint _grow_int32s(int32_t** p, int64_t n) noexcept nogil:
    cdef int32_t* q = <int32_t*>realloc(p[0], sizeof(int32_t) * n)
    if q == NULL:
        return False
    p[0] = q
    return True

#: Rollout settings: "policy" plays out with the game's rollout policy where it
#: has one (uniform otherwise) -- and, where the game also has an evaluation
#: (``GameDef.evaluate``, London), stops after ``GameDef.rollout_depth`` rollout
#: actions and takes the evaluation's estimate; "random" always plays uniformly
#: to the end.
ROLLOUTS = ("policy", "random")
DEFAULT_ROLLOUT = "random"


# ------------------------------------------------------ recycled tree memory
# Every page of a new chunk costs a page fault when first written, and in a
# server worker thread the malloc arena also hands freed memory back to the
# kernel, so every search paid for it again.  A finished search therefore
# leaves its node and slot chunks in a pool (up to 128 chunks, 256 MiB in all)
# and later searches take chunks of the same sizes from it: already mapped.
# (With the huge pages: 1.02-1.04x at 10,000 iterations and 1.06x at 100,000
# in the Kids of London opening, measured when the tree was two blocks.)


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


class SearchError(ValueError):
    """The search cannot run from this state/seat (terminal, chance, no decision pending)."""


class ActionStats:
    """Statistics of one legal action at the root.

    ``label`` may be given as a function of the action id: it is then worked out
    when first read, since a server answering with its cached action messages
    never reads it (London's labels cost ~1 us each).  Compares and hashes by
    value, like the frozen dataclass it replaces (a slotted class is ~4x cheaper
    to build, and a result has one per legal action)."""

    __slots__ = ("action", "visits", "mean_value", "policy", "_label")

    def __init__(self, action, label, visits, mean_value, policy):
        self.action = action
        self._label = label
        self.visits = visits
        self.mean_value = mean_value
        self.policy = policy

    @property
    def label(self):
        label = self._label
        if not isinstance(label, str):
            label = self._label = label(self.action)
        return label

    def with_counts(self, visits, mean_value, policy):
        """These statistics for the same action with other counts (the label as given here)."""
        return ActionStats(self.action, self._label, visits, mean_value, policy)

    def _fields(self):
        return (self.action, self.label, self.visits, self.mean_value, self.policy)

    def __eq__(self, other):
        if type(other) is not ActionStats:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (f"ActionStats(action={self.action!r}, label={self.label!r}, visits={self.visits!r}, "
                f"mean_value={self.mean_value!r}, policy={self.policy!r})")


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
    cdef readonly double prior  # ucb: weight of the rollout policy's pick in the tree (progressive bias)
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
    cdef int path_cap           # the deepest path a game may have (max_game_length + 1)
    cdef int path_len           # the path entries allocated so far (grown as paths deepen)
    cdef double* path_sigma     # os: the strategy of each legal slot on the path
    cdef int32_t* path_legal    # os: the legal slots on the path
    cdef int32_t* path_n
    cdef double* path_w         # os: others' reach / sample reach at the node
    cdef double* path_m         # os: own reach / sample reach at the node
    cdef double* path_sig_a     # os: the strategy's probability of the chosen slot
    cdef double reach_own, reach_others, reach_sample   # os: along the current descent
    cdef Node** node_chunks        # see "tree storage"
    cdef Chunk* node_chunk_info
    cdef int64_t node_chunks_len, node_chunks_cap
    cdef int64_t num_nodes, node_room, max_nodes   # node_room: nodes the chunks hold
    cdef Chunk* slot_chunks
    cdef int64_t slot_chunks_len, slot_chunks_cap
    cdef Slot* slot_next           # the first free slot of the current slot chunk
    cdef int64_t slot_left         # free slots after it
    cdef size_t last_slot_chunk    # bytes asked for the latest slot chunk
    cdef int64_t num_slots         # slots in use
    cdef size_t held_bytes         # bytes held by the chunks and hash tables (see tree_bytes)
    cdef int32_t* table            # node index + 1, 0 = empty
    cdef uint64_t table_mask
    cdef int32_t* old_table        # the table being emptied into `table`, or NULL
    cdef uint64_t old_mask
    cdef uint64_t migrated         # old_table buckets already moved
    cdef int32_t* next_table       # the table that will replace `table` (pages being written), or NULL
    cdef size_t next_touched       # bytes of next_table whose pages are written
    cdef Rng rng
    cdef readonly int64_t iterations
    cdef readonly double elapsed_ms
    cdef int cancel_flag
    cdef int running
    cdef uint64_t root_key
    cdef double sample_prob
    # Analysis (see "analysis" below): off unless asked for; the loop then pays one
    # test of each flag an iteration and allocates nothing.
    cdef int analysis            # gather the root's returns, margins and policy picks
    cdef int want_beliefs        # tally the determinizations' hidden counts
    cdef double* an_root         # per root slot: AN_STRIDE sums (see _record_root)
    cdef double* an_picks        # per action id: root descents where the rollout policy picked it
    cdef int* an_counts          # one determinization's hidden counts
    cdef double* an_copies       # per cell: copies summed over the determinizations
    cdef double* an_present      # per cell: determinizations with a copy there
    cdef int an_cells
    cdef int64_t an_draws        # determinizations tallied

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
        self.node_chunks = NULL
        self.node_chunk_info = NULL
        self.slot_chunks = NULL
        self.table = NULL
        self.old_table = NULL
        self.next_table = NULL
        self.an_root = NULL
        self.an_picks = NULL
        self.an_counts = NULL
        self.an_copies = NULL
        self.an_present = NULL

    def __init__(self, state, int seat, seed=0, double exploration=DEFAULT_EXPLORATION,
                 max_nodes=DEFAULT_MAX_NODES, selection="ucb", gamma=None, rollout=DEFAULT_ROLLOUT,
                 prior=None, analysis=False, beliefs=False):
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

        ``prior`` (UCB selection with the policy rollout only): at each node
        of the tree the game's rollout policy is asked for its pick, which
        is tried first (before the other untried actions, and as the first
        move from a node just added) and whose UCB score gets a progressive
        bias of ``prior / (visits + 1)`` (Chaslot et al. 2008): a
        heuristic's advice steers the first iterations, and the statistics
        take over as visits grow.  The default is 0 (off) for games without
        ``GameDef.rollout_depth`` and ``PRIOR_WEIGHT`` for games with it
        (London, whose 300-iteration searches otherwise spread over ~20
        untried actions at every node); see the arena figures in
        ``seeds/london.md``.
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
        if prior is None:
            prior = PRIOR_WEIGHT if self.cutoff > 0 else 0.0
        if not (prior >= 0 and prior <= MAX_PRIOR):
            raise ValueError(f"prior: must be a number from 0 to {MAX_PRIOR:g}, got {prior}")
        self.prior = prior if self.use_policy and selection == "ucb" else 0.0
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
        # Paths start short and grow as the tree deepens (one level an iteration at
        # most): a game that may last 20,000 moves (Gangs of Kyoto, London) would
        # otherwise allocate and free ~0.4 MB for every search, a small one included.
        self.path_cap = self.gd.max_game_length + 1
        if not (self.root and self.work and self.legal and self.mapped and self.sigma
                and self._grow_path(PATH_START if PATH_START < self.path_cap else self.path_cap)):
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
        if self.slot_bound * sizeof(Slot) > SLOT_CHUNK_BYTES:
            raise ValueError(f"the game's decisions have up to {self.slot_bound} actions; "
                             f"a search handles up to {SLOT_CHUNK_BYTES // sizeof(Slot)}")
        if analysis or beliefs:
            self._start_analysis(analysis, beliefs)
        # The tree's first chunks are made by the first run: a search made and not yet run
        # (one waiting for a server's admission) holds no tree memory.

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
        table_free(self.table, self.table_mask + 1)
        table_free(self.old_table, self.old_mask + 1)
        table_free(self.next_table, 2 * (self.table_mask + 1))
        cdef int64_t i
        if self.node_chunk_info != NULL:
            for i in range(self.node_chunks_len):
                chunk_give(self.node_chunk_info[i].p, self.node_chunk_info[i].want, self.node_chunk_info[i].got)
        if self.slot_chunks != NULL:
            for i in range(self.slot_chunks_len):
                chunk_give(self.slot_chunks[i].p, self.slot_chunks[i].want, self.slot_chunks[i].got)
        free(self.node_chunks)
        free(self.node_chunk_info)
        free(self.slot_chunks)
        free(self.an_root)
        free(self.an_picks)
        free(self.an_counts)
        free(self.an_copies)
        free(self.an_present)

    @property
    def path_entries(self):
        """Path entries allocated: they grow as the tree deepens (one level an iteration at most)."""
        return self.path_len

    def _reserve_path(self, int length):
        """Grows the path to ``length`` entries (at most the game's longest); for tests, since
        trees deep enough to grow it take long narrow games."""
        if not self._grow_path(length):
            raise MemoryError()

    cdef bint _grow_path(self, int length) noexcept nogil:
        """Room for ``length`` path entries (at most path_cap); False if out of memory,
        with the path as it was."""
        if length > self.path_cap:
            length = self.path_cap
        if length <= self.path_len:
            return length > 0
        cdef int64_t* node = <int64_t*>realloc(self.path_node, sizeof(int64_t) * length)
        if node == NULL:
            return False
        self.path_node = node
        cdef int32_t* slot = <int32_t*>realloc(self.path_slot, sizeof(int32_t) * length)
        if slot == NULL:
            return False
        self.path_slot = slot
        cdef double* prob = <double*>realloc(self.path_prob, sizeof(double) * length)
        if prob == NULL:
            return False
        self.path_prob = prob
        if self.use_os:
            # Each array is kept as soon as it has grown, so a failure part-way leaves
            # every one at least path_len long.
            if not (_grow_doubles(&self.path_sigma, length * self.slot_bound)
                    and _grow_int32s(&self.path_legal, length * self.slot_bound)
                    and _grow_int32s(&self.path_n, length) and _grow_doubles(&self.path_w, length)
                    and _grow_doubles(&self.path_m, length) and _grow_doubles(&self.path_sig_a, length)):
                return False
        self.path_len = length
        return True

    cdef int _start_tree(self) noexcept nogil:
        """Node chunk 0 and the first hash table; -1 if out of memory."""
        cdef int64_t room = FIRST_NODES if self.max_nodes > FIRST_NODES else self.max_nodes
        cdef uint64_t size = 16
        self.node_chunks_cap = 8
        self.node_chunks = <Node**>malloc(sizeof(Node*) * self.node_chunks_cap)
        self.node_chunk_info = <Chunk*>malloc(sizeof(Chunk) * self.node_chunks_cap)
        if self.node_chunks == NULL or self.node_chunk_info == NULL:
            return -1
        if self._take_chunk(&self.node_chunk_info[0], sizeof(Node) * room) < 0:
            return -1
        self.node_chunks[0] = <Node*>self.node_chunk_info[0].p
        self.node_chunks_len = 1
        self.node_room = room
        while size < <uint64_t>(2 * room):
            size <<= 1
        self.table = table_alloc(size)
        if self.table == NULL:
            return -1
        self.table_mask = size - 1
        add_size(&self.held_bytes, sizeof(int32_t) * size)
        return 0

    cdef int _take_chunk(self, Chunk* c, size_t want) noexcept nogil:
        c.want = want
        c.p = chunk_take(want, &c.got)
        if c.p == NULL:
            return -1
        add_size(&self.held_bytes, c.got)
        return 0

    cdef void _give_chunk(self, Chunk* c) noexcept nogil:
        add_size(&self.held_bytes, -c.got)
        chunk_give(c.p, c.want, c.got)
        c.p = NULL

    cdef int _grow_nodes(self) noexcept nogil:
        """Room for at least one more node: chunk 0 doubled while it is not
        full-sized, else a new chunk; -1 if out of memory."""
        cdef Chunk c
        cdef int64_t room
        cdef void* grown
        if self.node_room < NODE_CHUNK:
            room = 2 * self.node_room
            if room > NODE_CHUNK:
                room = NODE_CHUNK
            if room > self.max_nodes:
                room = self.max_nodes
            if self._take_chunk(&c, sizeof(Node) * room) < 0:
                return -1
            memcpy(c.p, self.node_chunks[0], sizeof(Node) * self.num_nodes)
            self._give_chunk(&self.node_chunk_info[0])
            self.node_chunk_info[0] = c
            self.node_chunks[0] = <Node*>c.p
            self.node_room = room
            return 0
        cdef int64_t last = self.node_chunks_len - 1
        cdef int64_t first = last << NODE_SHIFT      # the last chunk's first node
        if self.node_room - first < NODE_CHUNK:
            # The last chunk was cut to a cap since raised (cap_nodes): it grows in place
            # of a new chunk, since node i is found in chunk i >> NODE_SHIFT.
            room = NODE_CHUNK
            if room > self.max_nodes - first:
                room = self.max_nodes - first
            if self._take_chunk(&c, sizeof(Node) * room) < 0:
                return -1
            memcpy(c.p, self.node_chunks[last], sizeof(Node) * (self.num_nodes - first))
            self._give_chunk(&self.node_chunk_info[last])
            self.node_chunk_info[last] = c
            self.node_chunks[last] = <Node*>c.p
            self.node_room = first + room
            return 0
        if self.node_chunks_len == self.node_chunks_cap:
            grown = realloc(self.node_chunks, sizeof(Node*) * 2 * self.node_chunks_cap)
            if grown == NULL:
                return -1
            self.node_chunks = <Node**>grown
            grown = realloc(self.node_chunk_info, sizeof(Chunk) * 2 * self.node_chunks_cap)
            if grown == NULL:
                return -1
            self.node_chunk_info = <Chunk*>grown
            self.node_chunks_cap *= 2
        room = NODE_CHUNK
        if room > self.max_nodes - self.node_room:
            room = self.max_nodes - self.node_room      # the last chunk a capped tree needs
        if self._take_chunk(&self.node_chunk_info[self.node_chunks_len], sizeof(Node) * room) < 0:
            return -1
        self.node_chunks[self.node_chunks_len] = <Node*>self.node_chunk_info[self.node_chunks_len].p
        self.node_chunks_len += 1
        self.node_room += room
        return 0

    cdef int _grow_slots(self) noexcept nogil:
        """A new current slot chunk (the rest of the old one stays unused); -1 if out of memory."""
        cdef size_t want
        cdef void* grown
        if self.slot_chunks_len == self.slot_chunks_cap:
            grown = realloc(self.slot_chunks, sizeof(Chunk) * (2 * self.slot_chunks_cap + 8))
            if grown == NULL:
                return -1
            self.slot_chunks = <Chunk*>grown
            self.slot_chunks_cap = 2 * self.slot_chunks_cap + 8
        if self.slot_chunks_len == 0:
            want = sizeof(Slot) * (FIRST_SLOTS if FIRST_SLOTS > self.slot_bound else self.slot_bound)
        else:
            want = 2 * self.last_slot_chunk
        if want > HUGE_BYTES:
            want = (want + HUGE_BYTES - 1) & ~(<size_t>HUGE_BYTES - 1)    # whole huge pages
        if want > SLOT_CHUNK_BYTES:
            want = SLOT_CHUNK_BYTES
        if self._take_chunk(&self.slot_chunks[self.slot_chunks_len], want) < 0:
            return -1
        self.slot_next = <Slot*>self.slot_chunks[self.slot_chunks_len].p
        self.slot_left = self.slot_chunks[self.slot_chunks_len].got // sizeof(Slot)
        self.slot_chunks_len += 1
        self.last_slot_chunk = want
        return 0

    cdef inline Node* _node(self, int64_t i) noexcept nogil:
        return &self.node_chunks[i >> NODE_SHIFT][i & (NODE_CHUNK - 1)]

    cdef inline int64_t _probe(self, const int32_t* table, uint64_t mask, uint64_t h,
                               int seat, uint64_t key) noexcept nogil:
        cdef int32_t idx
        cdef Node* nd
        h &= mask
        while True:
            idx = table[h]
            if idx == 0:
                return -1
            nd = self._node(idx - 1)
            if nd.key == key and nd.seat == seat:
                return idx - 1
            h = (h + 1) & mask

    cdef inline int64_t _find(self, int seat, uint64_t key) noexcept nogil:
        if self.table == NULL:
            return -1                       # not run yet: no tree
        cdef uint64_t h = mix64(key, <uint64_t>seat)
        cdef int64_t i = self._probe(self.table, self.table_mask, h, seat, key)
        if i >= 0 or self.old_table == NULL:
            return i
        return self._probe(self.old_table, self.old_mask, h, seat, key)

    cdef inline void _insert(self, uint64_t h, int32_t entry) noexcept nogil:
        h &= self.table_mask
        while self.table[h] != 0:
            h = (h + 1) & self.table_mask
        self.table[h] = entry

    cdef void _migrate(self, uint64_t buckets) noexcept nogil:
        """Moves up to `buckets` buckets of the old table into the new one (the
        old table is left intact, so searches of it stay right meanwhile) and
        frees the old table once all are moved."""
        cdef uint64_t size = self.old_mask + 1
        cdef uint64_t end = self.migrated + buckets
        cdef int32_t entry
        cdef Node* nd
        if end > size:
            end = size
        while self.migrated < end:
            entry = self.old_table[self.migrated]
            if entry != 0:
                nd = self._node(entry - 1)
                self._insert(mix64(nd.key, <uint64_t>nd.seat), entry)
            self.migrated += 1
        if self.migrated == size:
            table_free(self.old_table, size)
            self.old_table = NULL
            add_size(&self.held_bytes, -(sizeof(int32_t) * size))

    cdef void _prepare_table(self) noexcept nogil:
        """Allocates the next table (twice the size), its pages to be written
        in by later additions; leaves it NULL if out of memory."""
        cdef uint64_t size = 2 * (self.table_mask + 1)
        self.next_table = table_alloc(size)
        if self.next_table == NULL:
            return
        add_size(&self.held_bytes, sizeof(int32_t) * size)
        # A small table comes from calloc, already written.
        self.next_touched = 0 if sizeof(int32_t) * size >= TABLE_MAP_BYTES else sizeof(int32_t) * size

    cdef int _grow_table(self) noexcept nogil:
        """Starts moving to a table twice the size; -1 if out of memory."""
        cdef uint64_t size = 2 * (self.table_mask + 1)
        cdef int32_t* table
        if self.old_table != NULL:
            self._migrate(self.old_mask + 1)     # never: MIGRATE_STEP empties it first
        if self.next_table == NULL:
            self._prepare_table()
            if self.next_table == NULL:
                return -1
        table = self.next_table
        self.next_table = NULL
        self.old_table = self.table
        self.old_mask = self.table_mask
        self.migrated = 0
        self.table = table
        self.table_mask = size - 1
        return 0

    cdef int64_t _add(self, int seat, uint64_t key, int n) noexcept nogil:
        """Adds a node with one slot per action in self.legal[0:n]; -1 if the
        tree is at max_nodes (or memory ran out).  Costs about the same
        whatever the tree's size (see "tree storage")."""
        cdef int64_t i = self.num_nodes
        cdef int j
        cdef Node* nd
        cdef Slot* sl
        if i >= self.max_nodes:
            return -1
        if self.old_table != NULL:
            self._migrate(MIGRATE_STEP)
        if self.next_table != NULL:
            if self.next_touched < sizeof(int32_t) * 2 * (self.table_mask + 1):
                touch(self.next_table, self.next_touched)
                self.next_touched += PAGE_BYTES
        elif <uint64_t>(8 * (i + 1)) > 3 * (self.table_mask + 1):
            self._prepare_table()
        if <uint64_t>(2 * (i + 1)) > self.table_mask + 1 and self._grow_table() < 0:
            return -1
        if i == self.node_room and self._grow_nodes() < 0:
            return -1
        if n > self.slot_left and self._grow_slots() < 0:
            return -1
        sl = self.slot_next
        self.slot_next += n
        self.slot_left -= n
        self.num_slots += n
        for j in range(n):
            sl[j].action = self.legal[j]
            sl[j].visits = 0
            sl[j].avail = 0
            sl[j].value_sum = 0.0
            sl[j].regret = 0.0
            sl[j].avg = 0.0
        self.num_nodes += 1
        nd = self._node(i)
        nd.key = key
        nd.seat = seat
        nd.slots = sl
        nd.num_slots = n
        self._insert(mix64(key, <uint64_t>seat), <int32_t>(i + 1))
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
        cdef Node* nd = self._node(node)
        cdef Slot* base = nd.slots
        cdef int num = nd.num_slots
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

    cdef int _select_ucb(self, Slot* base, int m, bint fresh, int hint) noexcept nogil:
        """UCB1 with availability counts over the mapped slots; an untried one
        first (uniformly), and a uniform pick at a node just added.  With a
        prior, `hint` (the rollout policy's pick, -1: none) is tried first and
        its score gets the progressive bias."""
        cdef int i, j, best = -1, unvisited = 0, hinted = -1
        cdef double score, best_score = -1e300
        cdef Slot* sl
        if hint >= 0:
            for i in range(m):
                if base[self.mapped[i]].action == hint:
                    hinted = self.mapped[i]
                    break
            if hinted >= 0 and (fresh or base[hinted].visits == 0):
                return hinted
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
            if j == hinted:
                score += self.prior / (sl.visits + 1.0)
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
        cdef int p, n, m, depth = 0, slot, a, hint
        cdef int64_t node
        cdef uint64_t key
        cdef bint in_tree = True
        cdef bint evaluated = False
        cdef int out_steps = 0
        cdef Slot* base
        cdef double returns[MAX_SEATS]
        memcpy(st, self.root, gd.state_size)
        gd.determinize(st, self.seat, &self.rng)
        if self.want_beliefs:
            self._tally_beliefs(st)
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
            if not in_tree or (depth >= self.path_len and not self._grow_path(2 * self.path_len)):
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
            base = self._node(node).slots
            if self.use_os:
                slot = self._select_os(base, m, depth, p == update)
            elif self.use_rm:
                slot = self._select_rm(base, m)
            else:
                # The policy's pick is asked before any of this node's moves is made.
                hint = gd.rollout_action(st, &self.rng) if self.prior > 0 else -1
                if depth == 0 and self.analysis and hint >= 0:
                    self.an_picks[hint] += 1
                slot = self._select_ucb(base, m, not in_tree, hint)
            self.path_node[depth] = node
            self.path_slot[depth] = slot
            self.path_prob[depth] = self.sample_prob
            depth += 1
            gd.apply_action(st, base[slot].action)
        if not evaluated:
            gd.returns(st, returns)
        if self.analysis and depth > 0:
            self._record_root(st, returns)
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
        cdef Node* nd
        for i in range(depth):
            nd = self._node(self.path_node[i])
            u = returns[nd.seat]
            base = nd.slots
            sl = &base[self.path_slot[i]]
            sl.visits += 1
            sl.value_sum += u
            if self.use_rm:
                # Sampled regrets: the chosen action's value importance-weighted, the others 0.
                for j in range(nd.num_slots):
                    base[j].regret += (u / self.path_prob[i] if j == self.path_slot[i] else 0.0) - u

    cdef void _backup_os(self, int depth, const double* returns, int update) noexcept nogil:
        """Outcome sampling: the updating seat's regrets and average strategy,
        from the leaf up (each node's sampled value feeds its parent's)."""
        cdef int i, k, slot
        cdef Node* nd
        cdef double value = returns[update], child, est
        cdef Slot* base
        cdef double* sig
        for i in range(depth - 1, -1, -1):
            nd = self._node(self.path_node[i])
            base = nd.slots
            base[self.path_slot[i]].visits += 1
            base[self.path_slot[i]].value_sum += returns[nd.seat]
            child = value / self.path_prob[i]
            est = self.path_sig_a[i] * child
            if nd.seat == update:
                sig = &self.path_sigma[i * self.slot_bound]
                for k in range(self.path_n[i]):
                    slot = self.path_legal[i * self.slot_bound + k]
                    base[slot].regret += ((child if slot == self.path_slot[i] else 0.0) - est) * self.path_w[i]
                    base[slot].avg += self.path_m[i] * sig[k]
            value = est

    # ------------------------------------------------------------ analysis
    # An analysis search (``analysis=True``) also sums, for each root action, every
    # seat's return and score margin (``GameDef.scores``: a seat's score less the best
    # other seat's) and the squares of the searching seat's, and counts the root descents
    # in which the rollout policy picked each action (the progressive bias's prior).  A
    # search asked for ``beliefs`` tallies each determinization's hidden counts
    # (``GameDef.hidden_counts``).  All of it is allocated here, once, never in the loop;
    # search/analysis.py turns the sums into an answer.

    cdef void _start_analysis(self, bint analysis, bint beliefs) except *:
        cdef int cells
        if analysis:
            self.an_root = <double*>calloc(self.slot_bound * AN_STRIDE, sizeof(double))
            self.an_picks = <double*>calloc(self.legal_cap, sizeof(double))
            if self.an_root == NULL or self.an_picks == NULL:
                raise MemoryError()
            self.analysis = 1
        if beliefs and self.gd.hidden_counts != NULL and self.gd.belief_places > 0 and self.gd.belief_items > 0:
            cells = self.gd.belief_places * self.gd.belief_items
            self.an_counts = <int*>calloc(cells, sizeof(int))
            self.an_copies = <double*>calloc(cells, sizeof(double))
            self.an_present = <double*>calloc(cells, sizeof(double))
            if self.an_counts == NULL or self.an_copies == NULL or self.an_present == NULL:
                raise MemoryError()
            self.an_cells = cells
            self.want_beliefs = 1

    cdef void _record_root(self, const void* st, const double* returns) noexcept nogil:
        """Adds an iteration's outcome to the sums of the root action it took."""
        cdef Node* nd = self._node(self.path_node[0])
        cdef double scores[MAX_SEATS]
        cdef double* row
        cdef double best, u, margin
        cdef int p, q, n
        if nd.seat != self.seat or nd.key != self.root_key:
            return
        row = &self.an_root[self.path_slot[0] * AN_STRIDE]
        n = self.gd.num_players(st)
        row[0] += 1
        for p in range(n):
            row[1 + p] += returns[p]
        u = returns[self.seat]
        row[1 + 2 * MAX_SEATS] += u * u
        if self.gd.scores == NULL:
            return
        self.gd.scores(st, scores)
        for p in range(n):
            best = -1e300
            for q in range(n):
                if q != p and scores[q] > best:
                    best = scores[q]
            margin = scores[p] - best if n > 1 else scores[p]
            row[1 + MAX_SEATS + p] += margin
            if p == self.seat:
                row[2 + 2 * MAX_SEATS] += margin * margin

    cdef void _tally_beliefs(self, const void* st) noexcept nogil:
        """Adds a determinization's hidden counts to the beliefs' sums."""
        cdef int i, c
        self.gd.hidden_counts(st, self.seat, self.an_counts)
        for i in range(self.an_cells):
            c = self.an_counts[i]
            if c > 0:
                self.an_copies[i] += c
                self.an_present[i] += 1
        self.an_draws += 1

    def analysis_sums(self):
        """The analysis sums so far, or None for a search made without ``analysis`` or
        ``beliefs``: a dict with ``root`` ({action: (visits, [return sum by seat],
        [margin sum by seat], return square sum, margin square sum)}, every root slot,
        margins 0 where the game has no scores), ``picks`` ({action: root descents where
        the rollout policy picked it}), ``determinizations`` (those tallied for beliefs),
        ``copies`` and ``present`` (per cell of ``GameDef.hidden_counts``: copies summed,
        determinizations holding one; empty without beliefs)."""
        cdef int64_t root
        cdef Node* nd
        cdef double* row
        cdef int j, p, n = self.gd.num_players(self.root)
        if not (self.analysis or self.want_beliefs):
            return None
        sums = {}
        picks = {}
        if self.analysis:
            root = self._find(self.seat, self.root_key) if self.table != NULL else -1
            if root >= 0:
                nd = self._node(root)
                for j in range(nd.num_slots):
                    row = &self.an_root[j * AN_STRIDE]
                    sums[nd.slots[j].action] = (int(row[0]), [row[1 + p] for p in range(n)],
                                                [row[1 + MAX_SEATS + p] for p in range(n)],
                                                row[1 + 2 * MAX_SEATS], row[2 + 2 * MAX_SEATS])
            picks = {a: self.an_picks[a] for a in range(self.legal_cap) if self.an_picks[a] > 0}
        return {"root": sums, "picks": picks, "determinizations": self.an_draws,
                "copies": [self.an_copies[j] for j in range(self.an_cells)],
                "present": [self.an_present[j] for j in range(self.an_cells)]}

    def node_visits(self, int seat, uint64_t key):
        """{action: visits} of seat's node at information set ``key`` (None if the tree has
        no such node): what a principal variation follows."""
        if self.table == NULL:
            return None
        cdef int64_t node = self._find(seat, key)
        if node < 0:
            return None
        cdef Node* nd = self._node(node)
        return {nd.slots[j].action: nd.slots[j].visits for j in range(nd.num_slots)}

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
        cdef double start, deadline, now, checked
        # The clock is read every `stride` iterations, the stride adapting so
        # that reads come about every CHECK_MS whatever an iteration costs
        # (well under a microsecond in Kuhn poker, a millisecond in London).
        cdef int64_t stride = 1, next_check = 0
        if self.table == NULL and self._start_tree() < 0:
            raise MemoryError()
        self.running = 1
        try:
            with nogil:
                start = now_ms()
                deadline = start + budget
                checked = start
                while done < limit:
                    if load_flag(&self.cancel_flag):
                        reason = STOP_CANCELLED
                        break
                    if budget >= 0 and done >= next_check:
                        now = now_ms()
                        if now >= deadline:
                            reason = STOP_TIME
                            break
                        if now - checked < 0.5 * CHECK_MS:
                            if stride < MAX_CHECK_STRIDE:
                                stride *= 2
                        elif now - checked > 2 * CHECK_MS and stride > 1:
                            stride >>= 1
                        checked = now
                        next_check = done + stride
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
    def max_nodes(self):
        """The most nodes the tree may hold (see ``cap_nodes``)."""
        return self.max_nodes

    def cap_nodes(self, int64_t n):
        """Sets the most nodes the tree may hold from the next ``run`` on, up or down
        (from 1 to MAX_NODES; never below what it holds, which it keeps): a server grows
        a search's cap as its tree-memory reservation grows.  Not while it runs."""
        if self.running:
            raise RuntimeError("cap_nodes: the search is running")
        if not 1 <= n <= MAX_NODES:
            raise ValueError(f"max_nodes: must be in 1..{MAX_NODES}, got {n}")
        self.max_nodes = n if n > self.num_nodes else self.num_nodes

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
        cdef Node* nd = self._node(node)
        return [nd.slots[j].action for j in range(nd.num_slots)]

    @property
    def root_key(self):
        """The searching seat's information-set key at the root."""
        return self.root_key

    @property
    def tree_bytes(self):
        """Bytes the tree holds: its node and slot chunks (the free room at
        their ends included) and its hash table (two while one is being
        moved into the other).  Chunks come from the pool of recycled tree
        memory and go back to it when the search is freed.  May be read from
        any thread while the search runs."""
        return load_size(&self.held_bytes)

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
            base = self._node(root).slots
            for j in range(self._node(root).num_slots):
                if base[j].action in counts:
                    visits = base[j].visits
                    counts[base[j].action] = (visits, base[j].value_sum / visits if visits else 0.0)
        policy = self.node_policy(self.seat, self.root_key, actions)
        stats = [ActionStats(a, st.action_label, counts[a][0], counts[a][1], policy[a]) for a in actions]
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
            base = self._node(node).slots
            for j in range(self._node(node).num_slots):
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
