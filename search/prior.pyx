# cython: language_level=3
"""Priors: at each node of the tree, an action for the selection to favour and how much
(``parts.Prior``).

- none: no pick;
- the rollout policy's pick (``GameDef.rollout_action``, asked before the node's move is
  made), weighted ``prior`` at the searching seat's nodes and ``opponent_prior`` at the
  others' (a heavier weight there models the other seats as playing closer to the
  policy).  UCB tries the pick first and adds a progressive bias of weight / (visits + 1)
  (Chaslot et al. 2008); progressive widening ranks a node's actions by the picks, so
  with widening the policy is asked at every node, whatever the weight.
"""
from libc.stdlib cimport calloc, free

from fagin.engines.abi cimport GameDef
from fagin.engines.rng cimport Rng
from fagin.search.parts cimport Prior, part_context, release_nothing


ctypedef struct PolicyPrior:
    double own_weight         # at the searching seat's nodes
    double other_weight       # at the other seats' nodes
    int actions               # root_picks' length: the game's action ids
    double* root_picks


cdef int _no_pick(void* ctx, const GameDef* gd, const void* st, bint own, int depth, Rng* rng,
                  double* weight) noexcept nogil:
    weight[0] = 0.0
    return -1


cdef inline int _count_root(PolicyPrior* c, int hint, int depth) noexcept nogil:
    # Depth 0 is the root, always the searching seat's node.
    if depth == 0 and 0 <= hint < c.actions:
        c.root_picks[hint] += 1
    return hint


cdef int _pick_everywhere(void* ctx, const GameDef* gd, const void* st, bint own, int depth, Rng* rng,
                          double* weight) noexcept nogil:
    cdef PolicyPrior* c = <PolicyPrior*>ctx
    weight[0] = c.own_weight if own else c.other_weight
    return _count_root(c, gd.rollout_action(st, rng), depth)


cdef int _pick_at_own(void* ctx, const GameDef* gd, const void* st, bint own, int depth, Rng* rng,
                      double* weight) noexcept nogil:
    cdef PolicyPrior* c = <PolicyPrior*>ctx
    if not own:
        weight[0] = c.other_weight
        return -1
    weight[0] = c.own_weight
    return _count_root(c, gd.rollout_action(st, rng), depth)


cdef int _pick_at_others(void* ctx, const GameDef* gd, const void* st, bint own, int depth, Rng* rng,
                         double* weight) noexcept nogil:
    cdef PolicyPrior* c = <PolicyPrior*>ctx
    if own:
        weight[0] = c.own_weight
        return -1
    weight[0] = c.other_weight
    return gd.rollout_action(st, rng)



cdef void _release_policy(void* ctx) noexcept nogil:
    if ctx != NULL:
        free((<PolicyPrior*>ctx).root_picks)
        free(ctx)


cdef int no_prior(Prior* out) except -1:
    out.ctx = NULL
    out.pick = _no_pick
    out.root_picks = NULL
    out.release = release_nothing
    return 0


cdef int policy_prior(Prior* out, double own_weight, double other_weight, bint widening,
                      int actions) except -1:
    """The rollout policy's pick, asked where a weight is above 0 (or everywhere, ``widening``:
    at least one must hold); ``actions``: the game's distinct action ids (the root's picks are
    counted by id)."""
    cdef bint ask_own, ask_other
    cdef PolicyPrior* c = <PolicyPrior*>part_context(sizeof(PolicyPrior))
    out.ctx = c
    out.release = _release_policy
    c.root_picks = <double*>part_context(actions * sizeof(double))
    c.own_weight = own_weight
    c.other_weight = other_weight
    c.actions = actions
    # The policy is asked where its pick weighs, and everywhere under widening, which ranks
    # a node's actions by the picks.
    ask_own = own_weight > 0 or widening
    ask_other = other_weight > 0 or widening
    if ask_own and ask_other:
        out.pick = _pick_everywhere
    elif ask_own:
        out.pick = _pick_at_own
    else:
        out.pick = _pick_at_others
    # The root's picks are reported only where the policy is asked at the root.
    out.root_picks = c.root_picks if ask_own else NULL
    return 0
