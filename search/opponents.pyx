# cython: language_level=3
"""Opponent models: how a decision of another seat than the searching one is made in
the ISMCTS tree (``parts.OpponentModel``; the ``opponents`` setting).

- "own": a node keyed by the decider's own information set.  It holds the decider's
  hidden cards, so in a game with hidden hands each world makes a new node there and
  the tree stops at the first such decision; a simultaneous choice is best left here,
  since under another view the decider's node would follow the searching seat's secret.
- "observer": a node keyed by the searching seat's information set and the decider's
  legal actions (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012): every world
  that shows the searching seat the same position and the decider the same options
  shares it, so the tree grows through the other seats' turns.
- "policy": no node; the other seats play the game's rollout policy in the tree as in
  the playouts, so the tree holds the searching seat's decisions only.
"""
from libc.stdint cimport uint64_t

from fagin.engines.abi cimport GameDef
from fagin.engines.rng cimport Rng, mix64
from fagin.search.parts cimport OpponentModel, TREE_DECIDES, release_nothing


cdef int _tree_decides(void* ctx, const GameDef* gd, void* st, int p, Rng* rng) noexcept nogil:
    return TREE_DECIDES


cdef int _rollout_policy(void* ctx, const GameDef* gd, void* st, int p, Rng* rng) noexcept nogil:
    return gd.rollout_action(st, rng)


cdef uint64_t _own_key(void* ctx, const GameDef* gd, const void* st, int p, int seat,
                       const int* legal, int n) noexcept nogil:
    return gd.infoset_key(st, p)


cdef uint64_t _observer_key(void* ctx, const GameDef* gd, const void* st, int p, int seat,
                            const int* legal, int n) noexcept nogil:
    """The searching seat's information set and the decider's legal actions, so that every
    world that leads here with the same options shares the node and all of them have slots."""
    cdef uint64_t h = mix64(gd.infoset_key(st, seat), <uint64_t>(0x0B5E77E5 + n))
    cdef int i
    for i in range(n):
        h = mix64(h, <uint64_t>legal[i])
    return h



ctypedef int (*Play)(void* ctx, const GameDef* gd, void* st, int p, Rng* rng) noexcept nogil
ctypedef uint64_t (*Key)(void* ctx, const GameDef* gd, const void* st, int p, int seat,
                         const int* legal, int n) noexcept nogil


cdef int _opponent_model(OpponentModel* out, Play play, Key key) except -1:
    out.ctx = NULL
    out.play = play
    out.key = key
    out.release = release_nothing
    return 0


cdef int own_view_opponents(OpponentModel* out) except -1:
    return _opponent_model(out, _tree_decides, _own_key)


cdef int observer_view_opponents(OpponentModel* out) except -1:
    return _opponent_model(out, _tree_decides, _observer_key)


cdef int policy_opponents(OpponentModel* out) except -1:
    # The key is never asked: the policy plays every other seat's decision.
    return _opponent_model(out, _rollout_policy, _own_key)
