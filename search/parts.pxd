# cython: language_level=3
"""The parts of an ISMCTS search: what each one is, as a struct of nogil functions.

``search/ismcts.pyx`` is the core: it copies the root, descends the tree, and
hands each step of an iteration to a part chosen once, when the search is made
(``ISMCTS._choose_parts``).  A part is a ``void* ctx`` (its own settings and
state, allocated by the function that makes it) and its functions, which take
that context first, as ``GameDef`` is a table of a game's functions.  A new
technique is a new function that fills one of these structs, in its module,
and one line where the parts are chosen (docs/search.md, "Adding a search part").

Declarations only; the parts are made in ``worlds.pyx``, ``opponents.pyx``,
``prior.pyx``, ``selection.pyx``, ``leaf.pyx`` and ``tallies.pyx``.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc

from fagin.engines.abi cimport GameDef
from fagin.engines.rng cimport Rng
from fagin.search.tree cimport Slot, Tree


#: What an opponent model's ``play`` returns where the tree decides (a node, selection).
cdef enum:
    TREE_DECIDES = -2

#: What a part's ``release`` is given: its context, which it frees.
ctypedef void (*ReleaseFn)(void* ctx) noexcept nogil


cdef inline void release_nothing(void* ctx) noexcept nogil:
    """The release of a part that keeps nothing (its ``ctx`` is NULL)."""
    pass


cdef inline void* part_context(size_t size) except NULL:
    """``size`` bytes, zeroed, for a part's context or the arrays it keeps; MemoryError where
    there is no room."""
    cdef void* c = calloc(1, size)
    if c == NULL:
        raise MemoryError()
    return c


# The descent the core keeps, which the parts read: the tree, the path from the root
# (a node index, the slot taken and the probability it was sampled with, at each
# depth) and the root.  The core grows the path as the tree deepens; a part reads it
# through this struct, never keeping its arrays.
ctypedef struct Descent:
    const GameDef* game
    Tree* tree
    int64_t* nodes            # the node at each depth of the current descent
    int32_t* slots            # the slot selected there
    double* probs             # the probability that slot was sampled with (regret matching)
    int seat                  # the searching seat
    uint64_t root_key         # its information set at the root
    double* root_squares      # per root slot: the sum of squared returns (the final-move rules' spreads)
    int root_recurred         # the root's information set came back within a descent


# The world sampler: each iteration searches one world, the root with everything the
# searching seat cannot see drawn again (the game's determinize: what it knows, and
# uniformly the rest).  A sampler with beliefs about the hidden draws keeps them in ctx.
ctypedef struct WorldSampler:
    void* ctx
    void (*sample)(void* ctx, const GameDef* gd, void* st, int seat, Rng* rng) noexcept nogil
    ReleaseFn release


# The opponent model: how a decision of another seat than the searching one is made in
# the tree.  ``play`` returns the action the model plays there itself, outside the tree
# (-1: none is legal), or TREE_DECIDES; then ``key`` keys the decider's node
# (``legal[0:n]``: its legal actions).
ctypedef struct OpponentModel:
    void* ctx
    int (*play)(void* ctx, const GameDef* gd, void* st, int p, Rng* rng) noexcept nogil
    uint64_t (*key)(void* ctx, const GameDef* gd, const void* st, int p, int seat,
                    const int* legal, int n) noexcept nogil
    ReleaseFn release


# The prior: before selection at a node, its pick (an action id, -1: none) and the weight
# the selection gives it there (``own``: the searching seat decides).  ``root_picks``:
# per action id, the root descents in which it picked that action (NULL where it never
# picks at the root), which the final-move rule "prior" and an analysis read.
ctypedef struct Prior:
    void* ctx
    int (*pick)(void* ctx, const GameDef* gd, const void* st, bint own, int depth, Rng* rng,
                double* weight) noexcept nogil
    double* root_picks
    ReleaseFn release


# One decision in the tree, as a selection sees it: the node's slots, the slots of its
# legal actions (``mapped[0:m]``, which a selection may reorder), and what the core and
# the prior know of it.
ctypedef struct Decision:
    Slot* slots
    int* mapped
    int m
    int depth
    bint fresh                # the node was added by this descent
    bint updating             # the seat this iteration updates (outcome sampling) decides here
    int hint                  # the prior's pick, -1: none
    double weight             # the prior's weight here


# The selection: which slot a descent takes at a node, and how the descent's outcome is
# backed up.  ``select`` writes the probability it sampled the slot with to ``prob``
# (regret matching; a deterministic selection leaves it).  ``grow`` makes room for
# ``length`` depths of whatever the selection records along a descent (False: out of
# memory, what it had kept).
ctypedef struct Selection:
    void* ctx
    int (*select)(void* ctx, Decision* at, Rng* rng, double* prob) noexcept nogil
    void (*backup)(void* ctx, Descent* d, int depth, const double* returns, int update) noexcept nogil
    bint (*grow)(void* ctx, int length) noexcept nogil
    ReleaseFn release


# The leaf value: from where a descent left the tree, each seat's return, written to
# ``returns``.  Returns 1 if the value is an evaluation (a playout cut off), 0 if the
# game was played to its end, -1 if the iteration is abandoned (no legal action at a
# decision).  ``last_seat``: the last seat that decided in the tree (-1: none);
# ``steps``: the actions it played.
ctypedef struct LeafValue:
    void* ctx
    int (*value)(void* ctx, const GameDef* gd, void* st, int last_seat, Rng* rng, double* returns,
                 int64_t* steps) noexcept nogil
    ReleaseFn release


# The tallies an analysis gathers beside the search: ``world`` sees each world drawn,
# ``outcome`` each finished descent (``cut_off``: its value is an evaluation).
ctypedef struct Tally:
    void* ctx
    void (*world)(void* ctx, const GameDef* gd, const void* st, int seat) noexcept nogil
    void (*outcome)(void* ctx, const Descent* d, int depth, const void* st, const double* returns,
                    bint cut_off) noexcept nogil
    ReleaseFn release
