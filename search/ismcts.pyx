# cython: language_level=3
"""Information-set Monte Carlo tree search over the engine ABI.

Game-agnostic: it sees a game only through its ``GameDef`` function table.
Nodes are information sets, keyed by ``(seat, infoset_key)`` in one flat
open-addressing hash table, so every seat keeps its own statistics in the
same table (the multiple-observer view of Cowling, Powley & Whitehouse 2012).
Each iteration:

1. copies the root (``memcpy``) and samples a world from it for the searching
   seat (the game's determinize), so that only what that seat knows is fixed;
2. descends the tree, at each decision choosing by the selection (UCB1 with
   *availability counts*, regret matching or outcome sampling), the prior's
   pick favoured; chance nodes are sampled, and the opponent model keys (or
   plays) the other seats' decisions;
3. adds the first unseen information set and takes the leaf's value there:
   a playout to the end, or one cut off and evaluated;
4. backs up each node with the return of the seat that acts there.

Each step is a part chosen once, when the search is made (``_choose_parts``):
a struct of nogil functions declared in ``search/parts.pxd``, made by its own
compiled module (``worlds``, ``opponents``, ``prior``, ``selection``, ``leaf``,
``tallies``), so the loop tests no setting.  The tree (nodes, slots, the hash
table, its memory) is the module ``search/tree.pyx``, its hot lookups inline in
``search/tree.pxd``; the result classes are plain Python in ``search/results.py``
and the settings in ``search/settings.py``.  What stays here is the core: the
settings resolved, the parts chosen, the iteration loop and the results.

The loop holds no Python objects and runs without the GIL.  The tree never
moves once built, so no iteration pays for the tree's size: nodes and slots
live in fixed chunks that are added, never copied, and the hash table grows
incrementally (see "tree storage" in ``search/tree.pyx``).  A finished search
hands its chunks to the next one (``release_tree_memory``).
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.rng cimport Rng, rng_below, rng_seed
from fagin.search.leaf cimport cut_off_playout, policy_playout, uniform_playout
from fagin.search.opponents cimport observer_view_opponents, own_view_opponents, policy_opponents
from fagin.search.parts cimport (Decision, Descent, LeafValue, OpponentModel, Prior, Selection, Tally,
                                 TREE_DECIDES, WorldSampler)
from fagin.search.prior cimport no_prior, policy_prior
from fagin.search.selection cimport (outcome_sampling_selection, regret_matching_selection, ucb_selection,
                                     widened_ucb_selection)
from fagin.search.tallies cimport ROOT_SUMS_STRIDE, Tallies, analysis_tallies, no_tallies
from fagin.search.tree cimport (Node, Slot, Tree, SLOT_CHUNK_BYTES, load_flag, load_size, now_ms, store_flag,
                                tree_add, tree_bytes_at, tree_find, tree_free, tree_map, tree_node, tree_start)
from fagin.search.worlds cimport determinized_worlds

from fagin.search.limits import (tuned, PRIOR_WEIGHT, DEFAULT_EXPLORATION, DEFAULT_GAMMA, DEFAULT_ITERATIONS,
                                 MAX_ITERATIONS, MAX_NODES, MAX_TIME_MS)
# The result classes and the settings are plain Python; importers take them from here too.
from fagin.search.results import ActionStats, FINAL_RULES, SearchError, SearchResult, best_action
from fagin.search.settings import (DEFAULT_MARGIN_SCALE, DEFAULT_ROLLOUT, EVALUATIONS, MAX_MARGIN_SCALE,
                                   OPPONENT_KEYS, ROLLOUTS, SearchSettings, search_settings)
from fagin.search.tree import kept_tree_memory, release_tree_memory


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

# Sentinel for "no limit" on iterations.
cdef int64_t NO_LIMIT = 0x7FFFFFFFFFFFFFFF
cdef enum:
    PATH_START = 16                  # path entries allocated at first (grown by doubling)


def _first(*values):
    """The first value that is not None."""
    for v in values:
        if v is not None:
            return v
    return None


cdef class ISMCTS:
    """A resumable ISMCTS search for one seat of one state: ``ISMCTS(state, seat, settings, seed)``.

    ``run`` may be called several times (for progress reports); statistics
    accumulate.  ``cancel`` may be called from another thread while ``run``
    is in progress.  One object must not ``run`` in two threads at once.

    ``settings`` (a ``SearchSettings``; None: all left out) says how it searches:

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
    of the search before the policy existed (docs/search.md, "The rollout setting").

    ``prior`` (UCB selection with the policy rollout only): at each node
    of the tree the game's rollout policy is asked for its pick, which
    is tried first (before the other untried actions, and as the first
    move from a node just added) and whose UCB score gets a progressive
    bias of ``prior / (visits + 1)`` (Chaslot et al. 2008): a
    heuristic's advice steers the first iterations, and the statistics
    take over as visits grow.  The default is 0 (off) for games without
    ``GameDef.rollout_depth`` and ``PRIOR_WEIGHT`` for games with it
    (London, whose 300-iteration searches otherwise spread over ~20
    untried actions at every node); see ``seeds/london.md``.
    ``opponent_prior``: the same bias at the nodes where another seat
    decides (None: ``prior``).

    ``cutoff`` (games with an evaluation, policy rollouts): rollout actions
    before the evaluation scores the playout, 0 to play to the end;
    default ``GameDef.rollout_depth``.  ``turns``: a playout also
    stops, and is scored, where the ``turns``-th turn out of the tree ends
    (a turn ends where another seat than the last to decide is to decide);
    0, the default, cuts by ``cutoff`` alone.  ``evaluation``: what scores a
    cut-off playout, ``"handwritten"`` (``GameDef.evaluate``, the default),
    ``"learned"`` (``GameDef.evaluate_learned``) or ``"margin"`` (each seat's
    score margin against the best other seat through a logistic of
    ``margin_scale`` score units, default ``DEFAULT_MARGIN_SCALE``).
    ``final``: the final-move rule, ``"visits"``, ``"lcb"`` or ``"prior"``
    (``results.FINAL_RULES``).

    ``opponents``: the opponent model, whose view keys a node where another
    seat decides (``OPPONENT_KEYS``, search/opponents.pyx): ``"own"`` (the
    default), ``"observer"``, or ``"policy"`` (policy rollouts only).

    ``widen`` (UCB selection with the policy rollout only): progressive
    widening in the policy's order: at a node that has given its legal
    actions n visits, only the first ``ceil(widen * sqrt(n + 1))`` of them
    take part in selection, ranked by how often the rollout policy picked
    each there; 0 (the default) considers every legal action.

    ``analysis``, ``beliefs``: gather an analysis's root sums and the worlds'
    hidden counts (``analysis_sums``).

    Settings left out (None) take the game's tuned values for the player count
    (``limits.tuned``), else the defaults above; a tuned ``"policy"`` opponent
    model applies to policy rollouts only (else ``"own"``).  ``budget``: the
    iterations the caller means this tree to run (None on time alone), for the
    settings a game tunes for large budgets (``GameSpec.budget_settings``, UCB
    only; the rollout among them is the caller's, ``limits.default_rollout``).
    """
    cdef const GameDef* gd
    cdef object state          # keeps the Python state (and its game) alive
    cdef readonly int seat
    cdef readonly double exploration
    cdef readonly str selection
    cdef readonly str rollout
    cdef readonly double gamma
    cdef int use_rm             # regret matching (rm, os): a node's policy is its average strategy
    cdef int use_policy         # play out with gd.rollout_action
    cdef readonly double prior  # ucb: weight of the rollout policy's pick in the tree (progressive bias)
    cdef readonly double opponent_prior  # ucb: the prior's weight where another seat decides
    cdef readonly double widen  # ucb: > 0, progressive widening in the policy's order
    cdef readonly str final     # the final-move rule (results.FINAL_RULES)
    cdef readonly str opponents # OPPONENT_KEYS: the opponent model
    cdef int cutoff             # > 0: policy rollouts stop after this many actions
    cdef readonly int turns     # > 0: policy rollouts also stop where the turns-th turn out of the tree ends
    cdef readonly str evaluation  # EVALUATIONS: what scores a cut-off playout
    cdef readonly double margin_scale  # > 0: a cut-off playout is scored by score margins (gd.scores)
    # The parts, chosen once (_choose_parts).
    cdef WorldSampler worlds
    cdef OpponentModel opponent_model
    cdef Prior prior_part
    cdef Selection selection_part
    cdef LeafValue leaf
    cdef Tally tally
    cdef unsigned char* root
    cdef unsigned char* work
    cdef int* legal             # the current legal actions (room for max_legal_actions)
    cdef int legal_cap
    cdef int slot_bound         # most slots of one node (max_decision_actions)
    cdef int* mapped            # slots of the current node's legal actions
    cdef Descent descent        # the tree, the current descent's path and the root, as the parts read them
    cdef int path_cap           # the deepest path a game may have (max_game_length + 1)
    cdef int path_len           # the path entries allocated so far (grown as paths deepen)
    cdef Tree tree              # nodes, slots and the hash table (search/tree.pyx)
    cdef Rng rng
    cdef readonly int64_t iterations
    cdef readonly int64_t rollout_actions   # actions played outside the tree, all iterations
    cdef readonly int64_t evaluated         # playouts scored by the evaluation at a cut-off
    cdef readonly double elapsed_ms
    cdef int cancel_flag
    cdef int running
    cdef double sample_prob     # the probability the last selection sampled its slot with
    cdef int analysis            # gather the root's returns, margins and policy picks
    cdef int want_beliefs        # tally the worlds' hidden counts

    def __cinit__(self):
        self.root = NULL
        self.work = NULL
        self.legal = NULL
        self.mapped = NULL
        memset(&self.descent, 0, sizeof(Descent))
        memset(&self.tree, 0, sizeof(Tree))
        memset(&self.worlds, 0, sizeof(WorldSampler))
        memset(&self.opponent_model, 0, sizeof(OpponentModel))
        memset(&self.prior_part, 0, sizeof(Prior))
        memset(&self.selection_part, 0, sizeof(Selection))
        memset(&self.leaf, 0, sizeof(LeafValue))
        memset(&self.tally, 0, sizeof(Tally))

    def __init__(self, state, int seat, settings=None, seed=0):
        """Prepares a search of ``state`` for ``seat`` with ``settings`` (a ``SearchSettings``,
        None: all left out), its random stream seeded by ``seed``."""
        if settings is None:
            settings = SearchSettings()
        elif not isinstance(settings, SearchSettings):
            raise TypeError(f"settings: a SearchSettings, got {type(settings).__name__}")
        self._resolve(state, settings)
        self.state = state
        self.seat = seat
        self.tree.max_nodes = settings.max_nodes
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
        self.descent.game = self.gd
        self.descent.tree = &self.tree
        self.descent.seat = seat
        self.descent.root_squares = <double*>calloc(self.slot_bound, sizeof(double))
        # Paths start short and grow as the tree deepens (one level an iteration at
        # most): a game that may last 20,000 moves (Gangs of Kyoto, London) would
        # otherwise allocate and free ~0.4 MB for every search, a small one included.
        self.path_cap = self.gd.max_game_length + 1
        self._choose_parts(settings.analysis, settings.beliefs)
        if not (self.root and self.work and self.legal and self.mapped and self.descent.root_squares
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
        self.descent.root_key = self.gd.infoset_key(self.root, seat)
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        if self.slot_bound * sizeof(Slot) > SLOT_CHUNK_BYTES:
            raise ValueError(f"the game's decisions have up to {self.slot_bound} actions; "
                             f"a search handles up to {SLOT_CHUNK_BYTES // sizeof(Slot)}")
        # The tree's first chunks are made by the first run: a search made and not yet run
        # (one waiting for a server's admission) holds no tree memory.


    cdef int _resolve(self, state, settings) except -1:
        """The settings as this search plays them: the given ones, else the game's tuned ones,
        else the defaults; what the game cannot take is refused here, naming the field."""
        selection = settings.selection
        spec = getattr(state.game, "spec", None)      # a test's patched game may have none
        own = tuned(spec, state.num_players, settings.budget, selection) if spec is not None else SearchSettings()
        exploration = _first(settings.exploration, own.exploration, DEFAULT_EXPLORATION)
        prior = _first(settings.prior, own.prior)
        opponent_prior = _first(settings.opponent_prior, own.opponent_prior)
        cutoff = _first(settings.cutoff, own.cutoff)
        final = _first(settings.final, own.final, "visits")
        opponents = _first(settings.opponents, own.opponents, "own")
        evaluation = _first(settings.evaluation, own.evaluation, "handwritten")
        margin_scale = _first(settings.margin_scale, own.margin_scale, DEFAULT_MARGIN_SCALE)
        turns = _first(settings.turns, own.turns, 0)
        widen = _first(settings.widen, own.widen, 0.0)
        gamma = _first(settings.gamma, DEFAULT_GAMMA[selection])
        rollout = settings.rollout or DEFAULT_ROLLOUT
        capsule = state.game.capsule
        if not PyCapsule_IsValid(capsule, GAMEDEF_CAPSULE):
            raise TypeError("state's game carries no fagin.GameDef")
        self.selection = selection
        self.rollout = rollout
        self.use_rm = selection in ("rm", "os")
        self.gamma = gamma
        self.gd = <const GameDef*>PyCapsule_GetPointer(capsule, GAMEDEF_CAPSULE)
        self.use_policy = rollout == "policy" and self.gd.rollout_action != NULL
        if opponents == "policy" and not self.use_policy:
            if settings.opponents is None:
                # A game's tuned opponent model applies to its policy searches only, as its cut-off does.
                opponents = "own"
            else:
                raise ValueError(f"opponents: 'policy' needs the game's rollout policy (rollout='policy'; "
                                 f"{self.gd.game_id.decode()} has {'one' if self.gd.rollout_action != NULL else 'none'})")
        self.opponents = opponents
        self.final = final
        self.evaluation = evaluation
        if evaluation == "learned" and self.gd.evaluate_learned == NULL:
            raise ValueError(f"evaluation: {self.gd.game_id.decode()} has no learned evaluation")
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
        if opponent_prior is None:
            opponent_prior = prior
        # The prior and widening steer UCB by the rollout policy: off without either.
        tree_policy = self.use_policy and selection == "ucb"
        self.prior = prior if tree_policy else 0.0
        self.opponent_prior = opponent_prior if tree_policy else 0.0
        self.widen = widen if tree_policy else 0.0
        self.exploration = exploration
        return 0

    cdef int _choose_parts(self, bint analysis, bint beliefs) except -1:
        """Each step of an iteration gets its part, once: the loop calls them and tests no
        setting.  A new technique is a new part and one line here."""
        determinized_worlds(&self.worlds)
        if self.opponents == "observer":
            observer_view_opponents(&self.opponent_model)
        elif self.opponents == "policy":
            policy_opponents(&self.opponent_model)
        else:
            own_view_opponents(&self.opponent_model)
        if self.prior > 0 or self.opponent_prior > 0 or self.widen > 0:
            policy_prior(&self.prior_part, self.prior, self.opponent_prior, self.widen > 0, self.legal_cap)
        else:
            no_prior(&self.prior_part)
        if self.selection == "os":
            outcome_sampling_selection(&self.selection_part, self.gamma, self.slot_bound)
        elif self.selection == "rm":
            regret_matching_selection(&self.selection_part, self.gamma, self.slot_bound)
        elif self.widen > 0:
            widened_ucb_selection(&self.selection_part, self.exploration, self.widen)
        else:
            ucb_selection(&self.selection_part, self.exploration)
        if self.cutoff > 0 or self.turns > 0:
            cut_off_playout(&self.leaf, self.cutoff, self.turns, self.evaluation, self.margin_scale)
        elif self.use_policy:
            policy_playout(&self.leaf)
        else:
            uniform_playout(&self.leaf, self.legal_cap)
        self.analysis = analysis
        self.want_beliefs = (beliefs and self.gd.hidden_counts != NULL and self.gd.belief_places > 0
                             and self.gd.belief_items > 0)
        if self.analysis or self.want_beliefs:
            analysis_tallies(&self.tally, self.gd, analysis, beliefs, self.slot_bound)
        else:
            no_tallies(&self.tally)
        return 0

    def __dealloc__(self):
        if self.worlds.release != NULL:
            self.worlds.release(self.worlds.ctx)
        if self.opponent_model.release != NULL:
            self.opponent_model.release(self.opponent_model.ctx)
        if self.prior_part.release != NULL:
            self.prior_part.release(self.prior_part.ctx)
        if self.selection_part.release != NULL:
            self.selection_part.release(self.selection_part.ctx)
        if self.leaf.release != NULL:
            self.leaf.release(self.leaf.ctx)
        if self.tally.release != NULL:
            self.tally.release(self.tally.ctx)
        free(self.root)
        free(self.work)
        free(self.legal)
        free(self.mapped)
        free(self.descent.root_squares)
        free(self.descent.nodes)
        free(self.descent.slots)
        free(self.descent.probs)
        tree_free(&self.tree)

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
        self.descent.root_key = key
        self.descent.root_recurred = 0
        self.state = state
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        if self.prior_part.root_picks != NULL:
            memset(self.prior_part.root_picks, 0, sizeof(double) * self.legal_cap)
        memset(self.descent.root_squares, 0, sizeof(double) * self.slot_bound)
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
        """Room for ``length`` path entries (at most path_cap), in the descent and in what the
        selection records along it; False if out of memory, with the path as it was."""
        if length > self.path_cap:
            length = self.path_cap
        if length <= self.path_len:
            return length > 0
        cdef int64_t* node = <int64_t*>realloc(self.descent.nodes, sizeof(int64_t) * length)
        if node == NULL:
            return False
        self.descent.nodes = node
        cdef int32_t* slot = <int32_t*>realloc(self.descent.slots, sizeof(int32_t) * length)
        if slot == NULL:
            return False
        self.descent.slots = slot
        cdef double* prob = <double*>realloc(self.descent.probs, sizeof(double) * length)
        if prob == NULL:
            return False
        self.descent.probs = prob
        if not self.selection_part.grow(self.selection_part.ctx, length):
            return False
        self.path_len = length
        return True

    cdef inline int _legal(self, const void* st) noexcept nogil:
        """Fills self.legal; the count is clamped to the buffer (an engine that
        returns more than it declared is not trusted past it)."""
        cdef int n = self.gd.legal_actions(st, self.legal)
        return n if n <= self.legal_cap else self.legal_cap

    cdef int _iterate(self, int update) noexcept nogil:
        """One iteration: a world, a descent of the tree, the leaf's value and the backup.
        `update` is the seat whose regrets an outcome-sampling iteration updates.
        Returns -1 if the iteration was abandoned (an engine listed no legal
        action at a decision), else 0."""
        cdef const GameDef* gd = self.gd
        cdef void* st = self.work
        cdef double returns[MAX_SEATS]
        cdef int64_t steps = 0
        cdef int depth, cut_off, last_seat = -1
        memcpy(st, self.root, gd.state_size)
        self.worlds.sample(self.worlds.ctx, gd, st, self.seat, &self.rng)
        self.tally.world(self.tally.ctx, gd, st, self.seat)
        depth = self._descend(st, update, &last_seat)
        if depth < 0:
            return -1
        cut_off = self.leaf.value(self.leaf.ctx, gd, st, last_seat, &self.rng, returns, &steps)
        if cut_off < 0:
            return -1
        self.rollout_actions += steps
        self.evaluated += cut_off
        self.tally.outcome(self.tally.ctx, &self.descent, depth, st, returns, cut_off)
        self.selection_part.backup(self.selection_part.ctx, &self.descent, depth, returns, update)
        return 0

    cdef int _descend(self, void* st, int update, int* last_seat) noexcept nogil:
        """Descends the tree from the world's root, selecting at each of its nodes, until the
        game ends or the descent leaves the tree: the first unseen information set is added
        and its move made (or, in a full tree, a uniform move).  Returns the depth (the path's
        length), -1 if the descent is abandoned; ``last_seat``: the last seat to decide."""
        cdef const GameDef* gd = self.gd
        cdef int seat = self.seat
        cdef int p, n, a, slot, depth = 0
        cdef int64_t node
        cdef uint64_t key
        cdef Decision at
        at.mapped = self.mapped
        while True:
            p = gd.current_player(st)
            if p == PLAYER_TERMINAL:
                return depth
            if p == PLAYER_CHANCE:
                gd.apply_action(st, gd.sample_chance(st, &self.rng))
                continue
            if depth >= self.path_len and not self._grow_path(2 * self.path_len):
                return depth                  # out of memory for a deeper path: the leaf is here
            if p != seat:
                a = self.opponent_model.play(self.opponent_model.ctx, gd, st, p, &self.rng)
                if a != TREE_DECIDES:
                    if a < 0:
                        return -1
                    last_seat[0] = p
                    gd.apply_action(st, a)
                    continue
            n = self._legal(st)
            if n <= 0:
                return -1
            last_seat[0] = p
            if p == seat:
                key = gd.infoset_key(st, p)
            else:
                key = self.opponent_model.key(self.opponent_model.ctx, gd, st, p, seat, self.legal, n)
            at.fresh = False
            node = tree_find(&self.tree, p, key)
            if node < 0:
                # The first unseen information set ends the descent.
                at.fresh = True
                node = tree_add(&self.tree, p, key, self.legal, n if n <= self.slot_bound else self.slot_bound)
                if node < 0:
                    gd.apply_action(st, self.legal[rng_below(&self.rng, n)])     # the tree is full
                    return depth
            at.m = tree_map(&self.tree, node, self.legal, n, self.mapped)
            if at.m == 0:
                # No legal action has a slot here: the node cannot be trusted.
                gd.apply_action(st, self.legal[rng_below(&self.rng, n)])
                return depth
            at.slots = tree_node(&self.tree, node).slots
            at.depth = depth
            at.updating = p == update
            # The prior's pick is asked before any of this node's moves is made.
            at.hint = self.prior_part.pick(self.prior_part.ctx, gd, st, p == seat, depth, &self.rng, &at.weight)
            slot = self.selection_part.select(self.selection_part.ctx, &at, &self.rng, &self.sample_prob)
            self.descent.nodes[depth] = node
            self.descent.slots[depth] = slot
            self.descent.probs[depth] = self.sample_prob
            depth += 1
            gd.apply_action(st, at.slots[slot].action)
            if at.fresh:
                return depth

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
        cdef Tallies* tallies = <Tallies*>self.tally.ctx
        cdef double* root_picks = self.prior_part.root_picks
        sums = {}
        picks = {}
        if self.analysis:
            root = tree_find(&self.tree, self.seat, self.descent.root_key)
            if root >= 0:
                nd = tree_node(&self.tree, root)
                for j in range(nd.num_slots):
                    row = &tallies.root_sums[j * ROOT_SUMS_STRIDE]
                    sums[nd.slots[j].action] = (int(row[0]), [row[1 + p] for p in range(n)],
                                                [row[1 + MAX_SEATS + p] for p in range(n)],
                                                row[1 + 2 * MAX_SEATS], row[2 + 2 * MAX_SEATS])
            # The root's policy picks are counted for the final-move rules too (root_picks).
            if root_picks != NULL:
                picks = {a: root_picks[a] for a in range(self.legal_cap) if root_picks[a] > 0}
        return {"root": sums, "picks": picks, "determinizations": tallies.worlds,
                "copies": [tallies.copies[j] for j in range(tallies.cells)],
                "present": [tallies.present[j] for j in range(tallies.cells)]}

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
        if self.descent.root_recurred:
            return False
        if root[0] < 0:
            root[0] = tree_find(&self.tree, self.seat, self.descent.root_key)
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

    def clear_cancel(self):
        """Withdraws a ``cancel``: the next ``run`` runs.  For a search stopped to give its
        worker to another and run again later (a server's pondering search, which yields
        at once to any call); not while it runs."""
        if self.running:
            raise RuntimeError("clear_cancel: the search is running")
        store_flag(&self.cancel_flag, 0)

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
        return self.descent.root_key

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
        cdef int64_t root = tree_find(&self.tree, self.seat, self.descent.root_key)
        cdef double* root_picks = self.prior_part.root_picks
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
                        var = ((self.descent.root_squares[j] - base[j].value_sum * base[j].value_sum / visits)
                               / (visits - 1))
                        spreads[base[j].action] = sqrt(var / visits) if var > 0 else 0.0
        picks = None
        if root_picks != NULL:
            picks = {a: root_picks[a] for a in actions if root_picks[a] > 0}
        policy = self.node_policy(self.seat, self.descent.root_key, actions)
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



def run_search(state, int seat, settings=None, iterations=None, time_ms=None, seed=0, **fields):
    """Runs one ISMCTS search of ``state`` for ``seat`` and returns its :class:`SearchResult`.

    ``settings``: a ``SearchSettings`` (None: all left out), with ``fields`` of it changed
    (``run_search(state, 0, iterations=2000, selection="rm")``).  With neither budget given,
    ``limits.DEFAULT_ITERATIONS`` iterations are run; the budget is the settings' too, unless
    they name one.
    """
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    settings = search_settings(settings, **fields)
    if settings.budget is None and iterations is not None:
        settings = settings.replace(budget=iterations)
    s = ISMCTS(state, seat, settings, seed)
    reason = s.run(iterations=iterations, time_ms=time_ms)
    return s.result(reason)
