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
incrementally (see "tree storage" in ``search/tree.pxi``).  A finished search
hands its chunks to the next one (see "recycled tree memory").

The module is in parts, each compiled into this one extension: the tree's
memory is the C header ``search/tree_memory.h``; the tree's types are in
``search/tree.pxd`` and its functions (find, add, grow) in ``search/tree.pxi``;
the selection kernels (UCB, RM, OS) in ``search/selection.pxi``; the result
classes in the plain Python module ``search/results.py``.  What stays here is
the search: its settings, the iteration loop, the backups and the results.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport ceil, exp, log, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

import operator

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.rng cimport Rng, mix64, rng_below, rng_double, rng_seed
from fagin.search.regret cimport regret_matching
from fagin.search.tree cimport (Chunk, Node, Slot, Tree, FIRST_NODES, FIRST_SLOTS, HUGE_BYTES, MIGRATE_STEP, NODE_CHUNK,
                          NODE_SHIFT, PAGE_BYTES, SLOT_CHUNK_BYTES, TABLE_MAP_BYTES, add_size, chunk_give,
                          chunk_take, load_flag, load_size, now_ms, pool_release, pool_stats, store_flag,
                          table_alloc, table_free, touch)

from fagin.search.limits import (tuned, PRIOR_WEIGHT, MAX_PRIOR, MAX_WIDEN, DEFAULT_EXPLORATION, DEFAULT_GAMMA, DEFAULT_ITERATIONS, DEFAULT_MAX_NODES,
                                 MAX_ITERATIONS, MAX_NODES, MAX_TIME_MS)
# The result classes are plain Python; importers take them from here too.
from fagin.search.results import ActionStats, FINAL_RULES, SearchError, SearchResult, best_action

include "tree.pxi"
include "selection.pxi"


cdef enum:
    STOP_NONE = 0
    STOP_ITERATIONS = 1
    STOP_TIME = 2
    STOP_CANCELLED = 3
    STOP_TERMINAL_ROOT = 4
    STOP_DECIDED = 5

STOP_REASONS = {STOP_ITERATIONS: "iterations", STOP_TIME: "time", STOP_CANCELLED: "cancelled",
                STOP_DECIDED: "decided"}

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
cdef enum:
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
#: What scores a cut-off playout (ISMCTS ``evaluation``): the game's hand-written
#: ``GameDef.evaluate``, its learned ``GameDef.evaluate_learned``, or "margin": each seat's
#: score margin against the best other seat (``GameDef.scores``, the score as it stands),
#: squashed to (0, 1) by a logistic of ``margin / margin_scale``.
EVALUATIONS = ("handwritten", "learned", "margin")
#: Score units a "margin" evaluation takes for one unit of its logistic (a margin of this
#: many points scores 0.73), when the game's tuned settings name none.
DEFAULT_MARGIN_SCALE = 4.0
#: The widest scale a search accepts.
MAX_MARGIN_SCALE = 1e6
#: Whose view keys a node where another seat than the searching one decides (ISMCTS
#: ``opponents``): "own", that seat's own information set (which holds its hidden cards, so
#: in a game with hidden hands each determinization makes a new node and the tree stops at
#: the first such decision); "observer", the searching seat's information set and the
#: decision's legal actions (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012): the
#: node is shared by every determinization that shows the searching seat the same position
#: and the decider the same options, so the tree grows through the other seats' turns;
#: "policy", no node at all: an opponent model in which the other seats play the game's
#: rollout policy in the tree as in the playouts, so the tree holds the searching seat's
#: decisions only (policy rollouts only).
OPPONENT_KEYS = ("own", "observer", "policy")

ctypedef void (*EvalFn)(const void* st, double* out) noexcept nogil


cdef inline void score_margins(const GameDef* gd, const void* st, double* out) noexcept nogil:
    """Each seat's score (``GameDef.scores``) less the best other seat's, at out[0:players]; a
    lone seat's margin is its score.  What the "margin" evaluation scores, and what an
    analysis reports where a playout reached the end (or was cut off where the room has no
    learned margin, ``GameDef.margins_learned``)."""
    cdef double scores[MAX_SEATS]
    cdef double best
    cdef int n = gd.num_players(st), p, q
    gd.scores(st, scores)
    for p in range(n):
        best = -1e300
        for q in range(n):
            if q != p and scores[q] > best:
                best = scores[q]
        out[p] = scores[p] - best if n > 1 else scores[p]


DEFAULT_ROLLOUT = "random"


# ------------------------------------------------------ recycled tree memory
# Every page of a new chunk costs a page fault when first written, and in a
# server worker thread the malloc arena also hands freed memory back to the
# kernel, so every search paid for it again.  A finished search therefore
# leaves its node and slot chunks in a pool (up to 128 chunks, 256 MiB in all)
# and later searches take chunks of the same sizes from it: already mapped
# (the pool itself is in search/tree_memory.h; its speed-up: docs/search.md,
# "Tree memory").


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
    cdef readonly double opponent_prior  # ucb: the prior's weight where another seat decides
    cdef readonly double widen  # ucb: > 0, progressive widening in the policy's order (select_widened)
    cdef readonly str final     # the final-move rule (results.FINAL_RULES)
    cdef readonly str opponents # OPPONENT_KEYS: whose view keys the other seats' nodes
    cdef int observer_keys      # opponents == "observer"
    cdef int policy_opponents   # opponents == "policy": the other seats play the rollout policy
    cdef double* root_picks     # with a prior: per action id, root descents where the policy picked it
    cdef double* root_sq        # per root slot: the sum of squared returns (the final-move rules' spreads)
    cdef int cutoff             # > 0: policy rollouts stop after this many actions, gd.evaluate scores them
    cdef readonly int turns     # > 0: policy rollouts also stop where the turns-th turn out of the tree ends
    cdef EvalFn evaluate_fn     # what scores a cut-off playout: gd.evaluate, or gd.evaluate_learned
    cdef readonly str evaluation  # EVALUATIONS: which of the three
    cdef readonly double margin_scale  # > 0: a cut-off playout is scored by score margins (gd.scores)
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
    cdef Reach reach            # os: along the current descent
    cdef Tree tree              # nodes, slots and the hash table (search/tree.pxi)
    cdef Rng rng
    cdef readonly int64_t iterations
    cdef readonly int64_t rollout_actions   # actions played outside the tree, all iterations
    cdef readonly int64_t evaluated         # playouts scored by the evaluation at a cut-off
    cdef readonly double elapsed_ms
    cdef int cancel_flag
    cdef int running
    cdef uint64_t root_key
    cdef int root_recurred      # the root's information set came back within a descent (_decided)
    cdef double sample_prob
    # Analysis (see "analysis" below): off unless asked for; the loop then pays one
    # test of each flag an iteration and allocates nothing.
    cdef int analysis            # gather the root's returns, margins and policy picks
    cdef int want_beliefs        # tally the determinizations' hidden counts
    cdef double* an_root         # per root slot: AN_STRIDE sums (see _record_root)
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
        self.root_picks = NULL
        self.root_sq = NULL
        self.path_node = NULL
        self.path_slot = NULL
        self.path_prob = NULL
        self.path_sigma = NULL
        self.path_legal = NULL
        self.path_n = NULL
        self.path_w = NULL
        self.path_m = NULL
        self.path_sig_a = NULL
        memset(&self.tree, 0, sizeof(Tree))
        self.an_root = NULL
        self.an_counts = NULL
        self.an_copies = NULL
        self.an_present = NULL

    def __init__(self, state, int seat, seed=0, exploration=None,
                 max_nodes=DEFAULT_MAX_NODES, selection="ucb", gamma=None, rollout=DEFAULT_ROLLOUT,
                 prior=None, cutoff=None, final=None, analysis=False, beliefs=False, evaluation=None,
                 opponents=None, turns=None, margin_scale=None, widen=None, budget=None,
                 opponent_prior=None):
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
        uniformly.  The default is ``"random"``: at equal wall time the
        policy made no measurable difference against the heuristic bots and
        costs iterations, and uniform playouts keep a search's answers those
        of the search before the policy existed (the arena figures:
        docs/search.md, "The rollout setting").

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

        ``opponent_prior``: the same bias at the nodes where another seat
        decides (None: ``prior``).  A heavier weight there models the other
        seats as playing closer to the rollout policy, while the searching
        seat's own nodes keep the light ``prior``.

        ``cutoff`` (games with an evaluation, policy rollouts): rollout actions
        before ``GameDef.evaluate`` scores the playout, 0 to play to the end;
        default ``GameDef.rollout_depth``.  ``final``: the final-move rule,
        ``"visits"``, ``"lcb"`` or ``"prior"`` (``results.FINAL_RULES``).

        ``evaluation``: what scores a cut-off playout, ``"handwritten"``
        (``GameDef.evaluate``, the default), ``"learned"``
        (``GameDef.evaluate_learned``, a model shipped in the game's room) or
        ``"margin"`` (each seat's score margin against the best other seat,
        from ``GameDef.scores``, through a logistic: ``1 / (1 + exp(-margin /
        margin_scale))``; ``margin_scale`` in the game's score units, default
        ``DEFAULT_MARGIN_SCALE``).

        ``turns`` (games with an evaluation, policy rollouts): a playout also
        stops, and is scored, where the ``turns``-th turn out of the tree ends
        (a turn ends where another seat than the last to decide is to decide);
        0, the default, cuts by ``cutoff`` alone.  ``opponents``: whose view
        keys a node where another seat decides (``OPPONENT_KEYS``): ``"own"``
        (the default: that seat's information set, one tree per seat) or
        ``"observer"`` (the searching seat's view and the decider's options:
        one tree, grown through the other seats' turns), or ``"policy"`` (an
        opponent model: no node, the other seats play the game's rollout
        policy in the tree as in the playouts; policy rollouts only).  A
        simultaneous choice is best left to ``"own"``: under the searching
        seat's view the others' nodes would follow its own secret choice.

        ``widen`` (UCB selection with the policy rollout only): progressive
        widening in the policy's order.  At a node that has given its legal
        actions n visits, only the first ``ceil(widen * sqrt(n + 1))`` of them
        take part in selection, ranked by how often the rollout policy picked
        each there (its pick is asked at every node of the tree, as for
        ``prior``), then by visits: a wide node is searched deep along the
        policy's favourites first and widened as visits grow.  0 (the
        default) considers every legal action.

        ``exploration``, ``prior``, ``cutoff``, ``final``, ``evaluation``, ``turns``,
        ``margin_scale``, ``widen`` and ``opponents`` left out (None)
        take the game's tuned values for the player count (``GameSpec.tuned_settings``,
        ``limits.tuned``), else the defaults above; a tuned ``"policy"``
        opponent model applies to policy rollouts only (else ``"own"``).  ``budget``: the iterations
        the caller means this tree to run (None on time alone), for the
        settings a game tunes for large budgets (``GameSpec.budget_settings``,
        UCB only; the rollout among them is the caller's,
        ``limits.default_rollout``).
        """
        if selection not in ("ucb", "rm", "os"):
            raise ValueError(f"selection: 'ucb', 'rm' or 'os', got {selection!r}")
        spec = getattr(state.game, "spec", None)      # a test's patched game may have none
        if budget is not None:
            try:
                budget = -1 if isinstance(budget, bool) else operator.index(budget)
            except TypeError:
                budget = -1
            if budget < 0:
                raise ValueError(f"budget: a whole number of iterations from 0, or None")
        own = tuned(spec, state.num_players, budget, selection) if spec is not None else {}
        if exploration is None:
            exploration = own.get("exploration", DEFAULT_EXPLORATION)
        if prior is None:
            prior = own.get("prior")
        if opponent_prior is None:
            opponent_prior = own.get("opponent_prior")
        if cutoff is None:
            cutoff = own.get("cutoff")
        if final is None:
            final = own.get("final", "visits")
        if final not in FINAL_RULES:
            raise ValueError(f"final: one of {', '.join(FINAL_RULES)}, got {final!r}")
        asked_opponents = opponents is not None
        if opponents is None:
            opponents = own.get("opponents", "own")
        if opponents not in OPPONENT_KEYS:
            raise ValueError(f"opponents: one of {', '.join(OPPONENT_KEYS)}, got {opponents!r}")
        self.opponents = opponents
        self.observer_keys = opponents == "observer"
        self.policy_opponents = opponents == "policy"
        if evaluation is None:
            evaluation = own.get("evaluation", "handwritten")
        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation: one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
        if margin_scale is None:
            margin_scale = own.get("margin_scale", DEFAULT_MARGIN_SCALE)
        if isinstance(margin_scale, bool) or not (isinstance(margin_scale, (int, float))
                                                  and 0 < margin_scale <= MAX_MARGIN_SCALE):
            raise ValueError(f"margin_scale: must be a number above 0 and at most {MAX_MARGIN_SCALE:g}, "
                             f"got {margin_scale!r}")
        if turns is None:
            turns = own.get("turns", 0)
        if widen is None:
            widen = own.get("widen", 0.0)
        if isinstance(widen, bool) or not (isinstance(widen, (int, float)) and 0 <= widen <= MAX_WIDEN):
            raise ValueError(f"widen: must be a number from 0 to {MAX_WIDEN:g}, got {widen!r}")
        if not (isinstance(turns, int) and 0 <= turns <= 10_000):
            raise ValueError(f"turns: must be from 0 to 10000 turns, got {turns!r}")
        if cutoff is not None and not (isinstance(cutoff, int) and 0 <= cutoff <= 100_000):
            raise ValueError(f"cutoff: must be from 0 to 100000 rollout actions, got {cutoff!r}")
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
        if self.policy_opponents and not self.use_policy:
            if not asked_opponents:
                # A game's tuned opponent model applies to its policy searches only, as its cut-off does.
                self.opponents = "own"
                self.policy_opponents = 0
            else:
                raise ValueError(f"opponents: 'policy' needs the game's rollout policy (rollout='policy'; "
                                 f"{self.gd.game_id.decode()} has {'one' if self.gd.rollout_action != NULL else 'none'})")
        self.final = final
        self.evaluation = evaluation
        self.evaluate_fn = self.gd.evaluate
        if evaluation == "learned":
            if self.gd.evaluate_learned == NULL:
                raise ValueError(f"evaluation: {self.gd.game_id.decode()} has no learned evaluation")
            self.evaluate_fn = self.gd.evaluate_learned
        self.margin_scale = 0.0
        if evaluation == "margin":
            if self.gd.scores == NULL:
                raise ValueError(f"evaluation: {self.gd.game_id.decode()} keeps no score to take a margin of")
            self.margin_scale = margin_scale
        self.cutoff = 0
        self.turns = 0
        # A cut-off needs something to score it: the game's evaluation, or its scores.
        if self.use_policy and (self.gd.evaluate != NULL or self.margin_scale > 0):
            self.cutoff = self.gd.rollout_depth if cutoff is None else cutoff
            self.turns = turns
        if prior is None:
            prior = PRIOR_WEIGHT if self.cutoff > 0 else 0.0
        if not (prior >= 0 and prior <= MAX_PRIOR):
            raise ValueError(f"prior: must be a number from 0 to {MAX_PRIOR:g}, got {prior}")
        self.prior = prior if self.use_policy and selection == "ucb" else 0.0
        if opponent_prior is None:
            opponent_prior = prior
        if isinstance(opponent_prior, bool) or not (isinstance(opponent_prior, (int, float))
                                                    and 0 <= opponent_prior <= MAX_PRIOR):
            raise ValueError(f"opponent_prior: must be a number from 0 to {MAX_PRIOR:g}, got {opponent_prior!r}")
        self.opponent_prior = opponent_prior if self.use_policy and selection == "ucb" else 0.0
        self.widen = widen if self.use_policy and selection == "ucb" else 0.0
        self.state = state
        self.seat = seat
        self.exploration = exploration
        self.tree.max_nodes = max_nodes
        cdef int size = self.gd.state_size
        self.root = <unsigned char*>malloc(size)
        self.work = <unsigned char*>malloc(size)
        # Chance nodes may list more outcomes than any decision has actions;
        # nodes (decisions only) never hold more than max_decision_actions
        # slots.  Legal action ids are distinct and below num_distinct_actions,
        # so an engine that lists more than it declared still cannot write
        # past this buffer.
        self.slot_bound = max(1, self.gd.max_decision_actions)
        self.tree.slot_bound = self.slot_bound
        self.legal_cap = max(self.slot_bound, self.gd.max_legal_actions, self.gd.num_distinct_actions)
        self.legal = <int*>malloc(sizeof(int) * self.legal_cap)
        self.mapped = <int*>malloc(sizeof(int) * self.slot_bound)
        self.sigma = <double*>malloc(sizeof(double) * self.slot_bound)
        # Paths start short and grow as the tree deepens (one level an iteration at
        # most): a game that may last 20,000 moves (Gangs of Kyoto, London) would
        # otherwise allocate and free ~0.4 MB for every search, a small one included.
        self.path_cap = self.gd.max_game_length + 1
        # Root picks are counted at depth 0, which is always the searching seat's node (run()
        # makes it current), where the policy is asked only with `prior` or `widen`.
        if self.prior > 0 or self.widen > 0:
            self.root_picks = <double*>calloc(self.legal_cap, sizeof(double))
            if self.root_picks == NULL:
                raise MemoryError()
        self.root_sq = <double*>calloc(self.slot_bound, sizeof(double))
        if not (self.root and self.work and self.legal and self.mapped and self.sigma and self.root_sq
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
        free(self.root_picks)
        free(self.root_sq)
        free(self.path_node)
        free(self.path_slot)
        free(self.path_prob)
        free(self.path_sigma)
        free(self.path_legal)
        free(self.path_n)
        free(self.path_w)
        free(self.path_m)
        free(self.path_sig_a)
        tree_free(&self.tree)
        free(self.an_root)
        free(self.an_counts)
        free(self.an_copies)
        free(self.an_present)

    def reroot(self, state, seed=0):
        """Moves the root to ``state``, keeping the tree: the searching seat's next decision,
        from a later position of the same game, with the same seat to decide.

        The tree is a table of information sets, so the statistics already gathered under
        the new root's information set (by descents that went through it from the old root)
        are the search's head start there, and ``run`` adds to them.  They are a sample of
        the right thing: the old root's determinizations that lead to the new information set
        are draws from it.  Returns the visits the tree already holds at the new root, or -1
        (nothing changed) where the tree never reached it.  ``seed`` reseeds the search's
        random stream.  UCB selection with the "visits" final-move rule only (the other rules
        read root statistics that only the root gathers), and not for analysis."""
        if self.running:
            raise RuntimeError("reroot: the search is running")
        if self.use_rm or self.final != "visits" or self.analysis or self.want_beliefs:
            raise ValueError("reroot: UCB selection with final='visits', and no analysis or beliefs")
        if state.game.capsule is not self.state.game.capsule and \
                PyCapsule_GetPointer(state.game.capsule, GAMEDEF_CAPSULE) != <void*>self.gd:
            raise ValueError("reroot: a state of another game")
        if self.tree.table == NULL:
            return -1
        cdef int size = self.gd.state_size
        cdef unsigned char* st = self.work
        memcpy(st, <void*><size_t>state._address(), size)
        if self.gd.num_players(st) != self.gd.num_players(self.root):
            raise ValueError("reroot: a state with another number of players")
        cdef int p = self.gd.current_player(st)
        if p < 0 or not self.gd.make_current(st, self.seat):
            return -1
        cdef uint64_t key = self.gd.infoset_key(st, self.seat)
        cdef int64_t node = tree_find(&self.tree, self.seat, key)
        if node < 0:
            return -1
        memcpy(self.root, st, size)
        self.root_key = key
        self.root_recurred = 0
        self.state = state
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        if self.root_picks != NULL:
            memset(self.root_picks, 0, sizeof(double) * self.legal_cap)
        memset(self.root_sq, 0, sizeof(double) * self.slot_bound)
        cdef Node* nd = tree_node(&self.tree, node)
        cdef int64_t visits = 0
        cdef int j
        for j in range(nd.num_slots):
            visits += nd.slots[j].visits
        return visits

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

    cdef inline int _legal(self, const void* st) noexcept nogil:
        """Fills self.legal; the count is clamped to the buffer (an engine that
        returns more than it declared is not trusted past it)."""
        cdef int n = self.gd.legal_actions(st, self.legal)
        return n if n <= self.legal_cap else self.legal_cap

    cdef void _score_margins(self, const void* st, double* out) noexcept nogil:
        """A cut-off playout scored by score margins: each seat's score less the best other
        seat's, through a logistic of ``margin_scale`` score units (the "margin" evaluation)."""
        cdef double margins[MAX_SEATS]
        cdef int p
        score_margins(self.gd, st, margins)
        for p in range(self.gd.num_players(st)):
            out[p] = 1.0 / (1.0 + exp(-margins[p] / self.margin_scale))

    cdef int _rollout_action(self, const void* st) noexcept nogil:
        """An action outside the tree: the game's rollout policy or uniform; -1 if none is legal."""
        if self.use_policy:
            return self.gd.rollout_action(st, &self.rng)
        cdef int n = self._legal(st)
        if n <= 0:
            return -1
        return self.legal[rng_below(&self.rng, n)]

    cdef uint64_t _node_key(self, const void* st, int p, int n) noexcept nogil:
        """The key of seat p's node under "observer" keys: the searching seat's information
        set and p's legal actions (self.legal[0:n]), so that every determinization that
        leads here with the same options shares the node and all of them have slots."""
        cdef uint64_t h = mix64(self.gd.infoset_key(st, self.seat), <uint64_t>(0x0B5E77E5 + n))
        cdef int i
        for i in range(n):
            h = mix64(h, <uint64_t>self.legal[i])
        return h

    cdef int _iterate(self, int update) noexcept nogil:
        """One iteration: a determinization, one descent and its backup.
        `update` is the seat whose regrets an "os" iteration updates.
        Returns -1 if the iteration was abandoned (an engine listed no legal
        action at a decision), else 0."""
        cdef const GameDef* gd = self.gd
        cdef void* st = self.work
        cdef int p, n, m, depth = 0, slot, a, hint
        cdef double bias
        cdef int64_t node
        cdef uint64_t key
        cdef bint in_tree = True
        cdef bint evaluated = False
        cdef int out_steps = 0
        cdef int last_seat = -1, turns_out = 0
        cdef Slot* base
        cdef double returns[MAX_SEATS]
        memcpy(st, self.root, gd.state_size)
        gd.determinize(st, self.seat, &self.rng)
        if self.want_beliefs:
            self._tally_beliefs(st)
        self.reach.own = 1.0
        self.reach.others = 1.0
        self.reach.sample = 1.0
        while True:
            p = gd.current_player(st)
            if p == PLAYER_TERMINAL:
                break
            if p == PLAYER_CHANCE:
                gd.apply_action(st, gd.sample_chance(st, &self.rng))
                continue
            if not in_tree or (depth >= self.path_len and not self._grow_path(2 * self.path_len)):
                if self.turns > 0:
                    # A turn ends where another seat than the last decider is to decide.
                    if last_seat >= 0 and p != last_seat:
                        turns_out += 1
                    last_seat = p
                if (self.cutoff > 0 and out_steps >= self.cutoff) or (self.turns > 0 and turns_out >= self.turns):
                    if self.margin_scale > 0:
                        self._score_margins(st, returns)
                    else:
                        self.evaluate_fn(st, returns)
                    evaluated = True
                    break
                a = self._rollout_action(st)
                if a < 0:
                    return -1
                gd.apply_action(st, a)
                out_steps += 1
                continue
            if self.policy_opponents and p != self.seat:
                # The opponent model: another seat's decision is the rollout policy's, in the tree too.
                a = gd.rollout_action(st, &self.rng)
                if a < 0:
                    return -1
                last_seat = p
                gd.apply_action(st, a)
                continue
            n = self._legal(st)
            if n <= 0:
                return -1
            last_seat = p
            key = self._node_key(st, p, n) if self.observer_keys and p != self.seat else gd.infoset_key(st, p)
            node = tree_find(&self.tree, p, key)
            if node < 0:
                # The first unseen information set ends the in-tree part.
                in_tree = False
                node = tree_add(&self.tree, p, key, self.legal, n if n <= self.slot_bound else self.slot_bound)
                if node < 0:
                    gd.apply_action(st, self.legal[rng_below(&self.rng, n)])     # the tree is full
                    continue
            m = tree_map(&self.tree, node, self.legal, n, self.mapped)
            if m == 0:
                # No legal action has a slot here: the node cannot be trusted.
                in_tree = False
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                continue
            base = tree_node(&self.tree, node).slots
            if self.use_os:
                slot = select_os(base, self.mapped, m, p == update, self.gamma, &self.rng, &self.reach,
                                 &self.path_sigma[depth * self.slot_bound],
                                 &self.path_legal[depth * self.slot_bound], &self.path_sig_a[depth],
                                 &self.path_n[depth], &self.path_w[depth], &self.path_m[depth], &self.sample_prob)
            elif self.use_rm:
                slot = select_rm(base, self.mapped, m, self.gamma, &self.rng, self.sigma, &self.sample_prob)
            else:
                # The policy's pick is asked before any of this node's moves is made.
                # (The searching seat's nodes take `prior`, the other seats' `opponent_prior`.)
                bias = self.prior if p == self.seat else self.opponent_prior
                hint = gd.rollout_action(st, &self.rng) if bias > 0 or self.widen > 0 else -1
                if depth == 0 and 0 <= hint < self.legal_cap:
                    self.root_picks[hint] += 1
                if self.widen > 0:
                    slot = select_widened(base, self.mapped, m, not in_tree, hint, self.exploration, bias,
                                          self.widen, &self.rng)
                else:
                    slot = select_ucb(base, self.mapped, m, not in_tree, hint, self.exploration, bias,
                                      &self.rng)
            self.path_node[depth] = node
            self.path_slot[depth] = slot
            self.path_prob[depth] = self.sample_prob
            depth += 1
            gd.apply_action(st, base[slot].action)
        self.rollout_actions += out_steps
        if evaluated:
            self.evaluated += 1
        else:
            gd.returns(st, returns)
        if self.analysis and depth > 0:
            self._record_root(st, returns, evaluated)
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
            nd = tree_node(&self.tree, self.path_node[i])
            u = returns[nd.seat]
            base = nd.slots
            sl = &base[self.path_slot[i]]
            sl.visits += 1
            sl.value_sum += u
            if nd.seat == self.seat and nd.key == self.root_key:
                if i == 0:
                    self.root_sq[self.path_slot[0]] += u * u
                else:
                    self.root_recurred = 1
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
            nd = tree_node(&self.tree, self.path_node[i])
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
    # other seat's; at a cut-off the room's learned expected final margin where it has one,
    # ``GameDef.margins_learned``) and the squares of the searching seat's, and counts the root descents
    # in which the rollout policy picked each action (the progressive bias's prior).  A
    # search asked for ``beliefs`` tallies each determinization's hidden counts
    # (``GameDef.hidden_counts``).  All of it is allocated here, once, never in the loop;
    # search/analysis.py turns the sums into an answer.

    cdef void _start_analysis(self, bint analysis, bint beliefs) except *:
        cdef int cells
        if analysis:
            self.an_root = <double*>calloc(self.slot_bound * AN_STRIDE, sizeof(double))
            if self.an_root == NULL:
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

    cdef void _record_root(self, const void* st, const double* returns, bint cut_off) noexcept nogil:
        """Adds an iteration's outcome to the sums of the root action it took.  The margin of a
        playout ``cut_off`` before the end is the room's learned expected final margin
        (``GameDef.margins_learned``) where its model holds one for this player count, else the
        margin as it stands."""
        cdef Node* nd = tree_node(&self.tree, self.path_node[0])
        cdef double margins[MAX_SEATS]
        cdef double* row
        cdef double u, margin
        cdef int p, n
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
        if not (cut_off and self.gd.margins_learned != NULL and self.gd.margins_learned(st, margins)):
            score_margins(self.gd, st, margins)
        for p in range(n):
            margin = margins[p]
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
            root = tree_find(&self.tree, self.seat, self.root_key)
            if root >= 0:
                nd = tree_node(&self.tree, root)
                for j in range(nd.num_slots):
                    row = &self.an_root[j * AN_STRIDE]
                    sums[nd.slots[j].action] = (int(row[0]), [row[1 + p] for p in range(n)],
                                                [row[1 + MAX_SEATS + p] for p in range(n)],
                                                row[1 + 2 * MAX_SEATS], row[2 + 2 * MAX_SEATS])
            # The root's policy picks are counted for the final-move rules too (root_picks).
            if self.root_picks != NULL:
                picks = {a: self.root_picks[a] for a in range(self.legal_cap) if self.root_picks[a] > 0}
        return {"root": sums, "picks": picks, "determinizations": self.an_draws,
                "copies": [self.an_copies[j] for j in range(self.an_cells)],
                "present": [self.an_present[j] for j in range(self.an_cells)]}

    def tree_census(self):
        """{seat: (nodes, nodes visited more than once, visits through them)}: where the tree
        grew, for diagnostics (bench/strength.py)."""
        cdef int64_t i
        cdef int j
        cdef uint64_t v
        cdef Node* nd
        out = {}
        for i in range(self.tree.num_nodes):
            nd = tree_node(&self.tree, i)
            v = 0
            for j in range(nd.num_slots):
                v += nd.slots[j].visits
            row = out.setdefault(nd.seat, [0, 0, 0])
            row[0] += 1
            if v > 1:
                row[1] += 1
            row[2] += v
        return {seat: tuple(row) for seat, row in sorted(out.items())}

    def node_visits(self, int seat, uint64_t key):
        """{action: visits} of seat's node at information set ``key`` (None if the tree has
        no such node): what a principal variation follows."""
        cdef int64_t node = tree_find(&self.tree, seat, key)
        if node < 0:
            return None
        cdef Node* nd = tree_node(&self.tree, node)
        return {nd.slots[j].action: nd.slots[j].visits for j in range(nd.num_slots)}

    cdef bint _decided(self, int64_t* root, int64_t remaining) noexcept nogil:
        """Whether the root's most visited action stays so through ``remaining`` more iterations
        (its lead in visits is larger), so that more of them cannot change the recommendation.
        ``root``: the root's node index, looked up once it exists (a node keeps its index), -1
        until then: the check runs every iteration, and a hash lookup each time would be waste."""
        cdef Node* nd
        cdef uint32_t top = 0, second = 0, v
        cdef int j
        # The rule counts one root visit an iteration: where the root's information set came
        # back within a descent, an iteration may add more, and the rule is no longer sure.
        if self.root_recurred:
            return False
        if root[0] < 0:
            root[0] = tree_find(&self.tree, self.seat, self.root_key)
            if root[0] < 0:
                return False
        nd = tree_node(&self.tree, root[0])
        for j in range(nd.num_slots):
            v = nd.slots[j].visits
            if v > top:
                second = top
                top = v
            elif v > second:
                second = v
        return <int64_t>(top - second) > remaining

    def run(self, iterations=None, time_ms=None, decided=False, decided_left=None):
        """Runs until ``iterations`` more iterations, ``time_ms`` more milliseconds, or cancel.

        At least one limit is required.  Returns the stop reason:
        ``"iterations"``, ``"time"`` or ``"cancelled"``; with ``decided`` (an iteration budget,
        UCB selection), also ``"decided"``: the run stopped early because the root's most
        visited action leads the next by more visits than the iterations left, so that the
        rest of the budget could not change what is recommended (final rule "visits").

        ``decided_left`` (with ``decided``): the iterations left of the whole budget this run
        is a slice of, at least ``iterations``; a caller that runs one budget in several
        ``run`` calls (a server's time slices) gives it, so that the lead is weighed against
        what the whole budget could still add rather than what this slice could.  Omitted:
        ``iterations``.
        """
        if iterations is None and time_ms is None:
            raise ValueError("iterations/time_ms: give at least one budget")
        if iterations is not None and not 0 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations: must be in 0..{MAX_ITERATIONS}, got {iterations}")
        if decided_left is not None and (iterations is None or not iterations <= decided_left <= MAX_ITERATIONS):
            raise ValueError(f"decided_left: an iteration budget's remainder from iterations "
                             f"({iterations}) to {MAX_ITERATIONS}, got {decided_left}")
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
        # What the whole budget may still add beyond this run's own iterations.
        cdef int64_t beyond = 0 if decided_left is None else decided_left - iterations
        cdef bint stop_decided = decided and iterations is not None and not self.use_rm and self.final == "visits"
        cdef int64_t root_node = -1
        if self.tree.table == NULL and tree_start(&self.tree) < 0:
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
                    if stop_decided and self._decided(&root_node, limit - done + beyond):
                        reason = STOP_DECIDED
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
        return self.tree.num_nodes

    @property
    def max_nodes(self):
        """The most nodes the tree may hold (see ``cap_nodes``)."""
        return self.tree.max_nodes

    def cap_nodes(self, int64_t n):
        """Sets the most nodes the tree may hold from the next ``run`` on, up or down
        (from 1 to MAX_NODES; never below what it holds, which it keeps): a server grows
        a search's cap as its tree-memory reservation grows.  Not while it runs."""
        if self.running:
            raise RuntimeError("cap_nodes: the search is running")
        if not 1 <= n <= MAX_NODES:
            raise ValueError(f"max_nodes: must be in 1..{MAX_NODES}, got {n}")
        self.tree.max_nodes = n if n > self.tree.num_nodes else self.tree.num_nodes

    @property
    def num_slots(self):
        """Slots in use: one per legal action of each node when it was added."""
        return self.tree.num_slots

    def node_actions(self, int seat, uint64_t key):
        """The actions of the slots of seat's node at information set ``key``
        (None if the tree has no such node)."""
        cdef int64_t node = tree_find(&self.tree, seat, key)
        if node < 0:
            return None
        cdef Node* nd = tree_node(&self.tree, node)
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
        return load_size(&self.tree.held_bytes)

    def bytes_at(self, int64_t nodes, int64_t slots_per_node):
        """The most bytes the tree will hold (``tree_bytes``) once it has ``nodes`` nodes
        under a cap of ``nodes`` (``cap_nodes``), each node added from now taking
        ``slots_per_node`` slots: its chunks and tables as the tree allocates them, step by
        step, so that a server can reserve for a tree before it grows and cap it to what it
        reserved.  Never less than the tree holds now, for a tree of at least its nodes."""
        if nodes > MAX_NODES:
            raise ValueError(f"nodes: at most {MAX_NODES}, got {nodes}")
        return max(<int64_t>tree_bytes_at(&self.tree, nodes, slots_per_node), <int64_t>self.tree_bytes)

    def result(self, stop_reason="iterations"):
        """The recommendation so far: most visited root action (ties: best mean)."""
        cdef int i, j, n
        cdef int64_t root = tree_find(&self.tree, self.seat, self.root_key)
        cdef Slot* base
        cdef uint32_t visits
        st = self.state
        n = self._legal(self.root)
        actions = [self.legal[i] for i in range(n)]
        counts = {a: (0, 0.0) for a in actions}
        spreads = {}
        if root >= 0:
            base = tree_node(&self.tree, root).slots
            for j in range(tree_node(&self.tree, root).num_slots):
                if base[j].action in counts:
                    visits = base[j].visits
                    counts[base[j].action] = (visits, base[j].value_sum / visits if visits else 0.0)
                    if visits > 1:
                        var = (self.root_sq[j] - base[j].value_sum * base[j].value_sum / visits) / (visits - 1)
                        spreads[base[j].action] = sqrt(var / visits) if var > 0 else 0.0
        picks = None
        if self.root_picks != NULL:
            picks = {a: self.root_picks[a] for a in actions if self.root_picks[a] > 0}
        policy = self.node_policy(self.seat, self.root_key, actions)
        stats = [ActionStats(a, st.action_label, counts[a][0], counts[a][1], policy[a]) for a in actions]
        best = best_action(stats, self.selection, self.final, spreads, picks)
        return SearchResult(best.action, best.label, stats, self.iterations, self.tree.num_nodes,
                            self.elapsed_ms, stop_reason, spreads, picks)

    def node_policy(self, int seat, uint64_t key, actions):
        """The search's policy at an information set: visit shares (UCB) or the
        average strategy (RM); uniform over ``actions`` where the set was never reached."""
        cdef int64_t node = tree_find(&self.tree, seat, key)
        cdef Slot* base
        cdef int j
        weights = {a: 0.0 for a in actions}
        if node >= 0:
            base = tree_node(&self.tree, node).slots
            for j in range(tree_node(&self.tree, node).num_slots):
                if base[j].action in weights:
                    weights[base[j].action] = base[j].avg if self.use_rm else base[j].visits
        total = sum(weights.values())
        if total <= 0:
            return {a: 1.0 / len(actions) for a in actions}
        return {a: w / total for a, w in weights.items()}


def search(state, int seat, iterations=None, time_ms=None, seed=0, exploration=None,
           max_nodes=DEFAULT_MAX_NODES, selection="ucb", gamma=None, rollout=DEFAULT_ROLLOUT, **settings):
    """Runs one ISMCTS search and returns its :class:`SearchResult`.

    With neither budget given, ``limits.DEFAULT_ITERATIONS`` iterations are run.
    """
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    settings.setdefault("budget", iterations)
    s = ISMCTS(state, seat, seed=seed, exploration=exploration, max_nodes=max_nodes,
               selection=selection, gamma=gamma, rollout=rollout, **settings)
    reason = s.run(iterations=iterations, time_ms=time_ms)
    return s.result(reason)
