# cython: language_level=3
"""Selection at a node of the ISMCTS tree, and the backup that goes with it
(``parts.Selection``; the ``selection`` setting):

- "ucb": UCB1 with availability counts (an action's exploration term uses how often it
  was legal, not the parent's visits), the prior's pick tried first and biased; with
  ``widen``, progressive widening in the prior's order;
- "rm": regret matching mixed with ``gamma`` uniform exploration (SM-MCTS-RM, Lisý,
  Kovařík, Lanctot & Bošanský 2013), its regrets sampled;
- "os": online outcome sampling (after Lisý, Lanctot & Bowling 2015): outcome-sampling
  MCCFR on the tree, the seats updated in turn, the updating seat exploring.

Each kernel is a nogil C function over a node's slots (``Decision.slots``) and the slots
of its legal actions (``Decision.mapped[0:m]``, from ``tree_map``).  Regret matching
itself is shared with the CFR solvers (``search/regret.pxd``).
"""
from libc.math cimport ceil, log, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, realloc

from fagin.engines.rng cimport Rng, rng_below, rng_double
from fagin.search.parts cimport Decision, Descent, Selection, part_context
from fagin.search.regret cimport regret_matching
from fagin.search.tree cimport Node, Slot, tree_node


# ------------------------------------------------------------------ UCB

ctypedef struct Ucb:
    double exploration
    double widen              # > 0: progressive widening (widened_ucb_selection)


cdef int select_ucb(Slot* base, const int* mapped, int m, bint fresh, int hint,
                    double exploration, double prior, Rng* rng) noexcept nogil:
    """UCB1 with availability counts over the mapped slots; an untried one
    first (uniformly), and a uniform pick at a node just added.  With a
    prior, `hint` (the prior's pick, -1: none) is tried first and
    its score gets the progressive bias prior / (visits + 1)."""
    cdef int i, j, best = -1, unvisited = 0, hinted = -1
    cdef double score, best_score = -1e300
    cdef Slot* sl
    if hint >= 0:
        for i in range(m):
            if base[mapped[i]].action == hint:
                hinted = mapped[i]
                break
        if hinted >= 0 and (fresh or base[hinted].visits == 0):
            return hinted
    for i in range(m):
        if base[mapped[i]].visits == 0:
            unvisited += 1
            if rng_below(rng, unvisited) == 0:
                best = mapped[i]
    if best >= 0:
        return best
    if fresh:
        return mapped[rng_below(rng, m)]
    for i in range(m):
        j = mapped[i]
        sl = &base[j]
        score = sl.value_sum / sl.visits + exploration * sqrt(log(<double>sl.avail) / sl.visits)
        if j == hinted:
            score += prior / (sl.visits + 1.0)
        if score > best_score:
            best_score = score
            best = j
    return best


cdef int select_widened(Slot* base, int* mapped, int m, bint fresh, int hint, double exploration,
                        double prior, double widen, Rng* rng) noexcept nogil:
    """Progressive widening in the prior's order (progressive unpruning,
    Chaslot et al. 2008): of the m legal slots only the first
    k = ceil(widen * sqrt(n + 1)) take part, n the visits the node has given
    them, ranked by how often the prior has picked each at this node
    (a slot's `avg`, which UCB does not otherwise use), then by visits, ties
    drawn at random; among those, select_ucb.  The pick `hint` is counted
    first, so a node just added tries the prior's pick.  `mapped` is put in
    rank order as far as needed (the caller rebuilds it for every node)."""
    cdef int i, j, top, k, ties, hinted = -1
    cdef int64_t n = 0
    cdef Slot* a
    cdef Slot* b
    if hint >= 0:
        for i in range(m):
            if base[mapped[i]].action == hint:
                hinted = mapped[i]
                break
        if hinted >= 0:
            base[hinted].avg += 1.0
    for i in range(m):
        n += base[mapped[i]].visits
    k = <int>ceil(widen * sqrt(n + 1.0))
    if k < 1:
        k = 1
    if k < m:
        # A partial selection sort: the k best to the front, in order.
        for i in range(k):
            top = i
            ties = 1
            for j in range(i + 1, m):
                a = &base[mapped[j]]
                b = &base[mapped[top]]
                if a.avg > b.avg or (a.avg == b.avg and a.visits > b.visits):
                    top = j
                    ties = 1
                elif a.avg == b.avg and a.visits == b.visits:
                    ties += 1
                    if rng_below(rng, ties) == 0:
                        top = j
            j = mapped[i]
            mapped[i] = mapped[top]
            mapped[top] = j
        m = k
    return select_ucb(base, mapped, m, fresh, hint, exploration, prior, rng)


cdef int _ucb(void* ctx, Decision* at, Rng* rng, double* prob) noexcept nogil:
    return select_ucb(at.slots, at.mapped, at.m, at.fresh, at.hint, (<Ucb*>ctx).exploration, at.weight, rng)


cdef int _widened_ucb(void* ctx, Decision* at, Rng* rng, double* prob) noexcept nogil:
    cdef Ucb* c = <Ucb*>ctx
    return select_widened(at.slots, at.mapped, at.m, at.fresh, at.hint, c.exploration, at.weight, c.widen, rng)


cdef inline Node* _visit(Descent* d, int i, const double* returns) noexcept nogil:
    """Depth i's node takes a visit and the return of its seat at the slot taken; the
    root's squared returns (and whether its information set came back lower) are noted."""
    cdef Node* nd = tree_node(d.tree, d.nodes[i])
    cdef double u = returns[nd.seat]
    cdef Slot* sl = &nd.slots[d.slots[i]]
    sl.visits += 1
    sl.value_sum += u
    if nd.seat == d.seat and nd.key == d.root_key:
        if i == 0:
            d.root_squares[d.slots[0]] += u * u
        else:
            d.root_recurred = 1
    return nd


cdef void _backup_visits(void* ctx, Descent* d, int depth, const double* returns, int update) noexcept nogil:
    """Each node on the path takes the return of its seat."""
    cdef int i
    for i in range(depth):
        _visit(d, i, returns)


cdef bint _grow_nothing(void* ctx, int length) noexcept nogil:
    return True


# ------------------------------------------------------- regret matching

ctypedef struct RegretMatching:
    double gamma
    double* sigma             # the strategy over a node's mapped slots


cdef int sample_mixed(const double* sigma, int m, double mix, Rng* rng, double* prob) noexcept nogil:
    """An index drawn from (1 - mix) * sigma + mix * uniform; its probability
    goes to prob[0]."""
    cdef double r = rng_double(rng), q = 0.0
    cdef int i
    for i in range(m):
        q = (1.0 - mix) * sigma[i] + mix / m
        r -= q
        if r < 0:
            prob[0] = q
            return i
    prob[0] = q            # rounding left r >= 0: the last one
    return m - 1


cdef int _regret_matching(void* ctx, Decision* at, Rng* rng, double* prob) noexcept nogil:
    """Regret matching mixed with gamma-uniform exploration; the node's average strategy
    takes the unmixed strategy."""
    cdef RegretMatching* c = <RegretMatching*>ctx
    cdef Slot* base = at.slots
    cdef int i
    regret_matching(&base[0].regret, sizeof(Slot), at.mapped, at.m, c.sigma)
    for i in range(at.m):
        base[at.mapped[i]].avg += c.sigma[i]
    return at.mapped[sample_mixed(c.sigma, at.m, c.gamma, rng, prob)]


cdef void _backup_regrets(void* ctx, Descent* d, int depth, const double* returns, int update) noexcept nogil:
    """As UCB's, and each node's sampled regrets: the chosen action's value importance-weighted,
    the others 0."""
    cdef int i, j
    cdef double u
    cdef Node* nd
    for i in range(depth):
        nd = _visit(d, i, returns)
        u = returns[nd.seat]
        for j in range(nd.num_slots):
            nd.slots[j].regret += (u / d.probs[i] if j == d.slots[i] else 0.0) - u


cdef void _release_regret_matching(void* ctx) noexcept nogil:
    if ctx != NULL:
        free((<RegretMatching*>ctx).sigma)
        free(ctx)


# ---------------------------------------------------- outcome sampling

ctypedef struct OutcomeSampling:
    double gamma
    int slot_bound            # most slots of a node: the stride of the per-slot records
    int length                # depths recorded room for
    # The reach probabilities along the current descent.
    double own_reach          # the updating seat's strategy
    double others_reach       # every other seat's strategy
    double sample_reach       # the sampling strategy
    # What each depth's update needs, recorded as the descent passes:
    double* strategy          # the strategy over the node's legal slots (slot_bound a depth)
    int32_t* strategy_slots   # those slots (slot_bound a depth)
    int32_t* strategy_len     # how many
    double* chosen_share      # the strategy's probability of the slot taken
    double* others_weight     # others' reach over the sample reach at the node
    double* own_weight        # own reach over the sample reach at the node


cdef int _outcome_sampling(void* ctx, Decision* at, Rng* rng, double* prob) noexcept nogil:
    """Regret matching, explored with probability gamma by the updating seat only.  Records
    what the update of this node needs, then moves the reach past the choice."""
    cdef OutcomeSampling* c = <OutcomeSampling*>ctx
    cdef int i, chosen, d = at.depth, m = at.m
    cdef double* sig = &c.strategy[d * c.slot_bound]
    cdef int32_t* legal = &c.strategy_slots[d * c.slot_bound]
    if d == 0:
        c.own_reach = 1.0
        c.others_reach = 1.0
        c.sample_reach = 1.0
    regret_matching(&at.slots[0].regret, sizeof(Slot), at.mapped, m, sig)
    for i in range(m):
        legal[i] = at.mapped[i]
    chosen = sample_mixed(sig, m, c.gamma if at.updating else 0.0, rng, prob)
    if prob[0] <= 0:
        prob[0] = 1e-12
    c.chosen_share[d] = sig[chosen]
    c.strategy_len[d] = m
    c.others_weight[d] = c.others_reach / c.sample_reach
    c.own_weight[d] = c.own_reach / c.sample_reach
    if at.updating:
        c.own_reach *= sig[chosen]
    else:
        c.others_reach *= sig[chosen]
    c.sample_reach *= prob[0]
    return at.mapped[chosen]


cdef void _backup_outcome_sampling(void* ctx, Descent* d, int depth, const double* returns,
                                   int update) noexcept nogil:
    """The updating seat's regrets and average strategy, from the leaf up (each node's
    sampled value feeds its parent's)."""
    cdef OutcomeSampling* c = <OutcomeSampling*>ctx
    cdef int i, k, slot
    cdef Node* nd
    cdef double value = returns[update], child, est
    cdef Slot* base
    cdef double* sig
    for i in range(depth - 1, -1, -1):
        nd = tree_node(d.tree, d.nodes[i])
        base = nd.slots
        base[d.slots[i]].visits += 1
        base[d.slots[i]].value_sum += returns[nd.seat]
        child = value / d.probs[i]
        est = c.chosen_share[i] * child
        if nd.seat == update:
            sig = &c.strategy[i * c.slot_bound]
            for k in range(c.strategy_len[i]):
                slot = c.strategy_slots[i * c.slot_bound + k]
                base[slot].regret += ((child if slot == d.slots[i] else 0.0) - est) * c.others_weight[i]
                base[slot].avg += c.own_weight[i] * sig[k]
        value = est


cdef bint _grow(void** p, size_t n) noexcept nogil:
    cdef void* q = realloc(p[0], n)
    if q == NULL:
        return False
    p[0] = q
    return True


cdef bint _grow_outcome_sampling(void* ctx, int length) noexcept nogil:
    cdef OutcomeSampling* c = <OutcomeSampling*>ctx
    cdef size_t wide = <size_t>length * c.slot_bound
    if length <= c.length:
        return True
    # Each array is kept as soon as it has grown, so a failure part-way leaves
    # every one at least the old length.
    if not (_grow(<void**>&c.strategy, sizeof(double) * wide)
            and _grow(<void**>&c.strategy_slots, sizeof(int32_t) * wide)
            and _grow(<void**>&c.strategy_len, sizeof(int32_t) * length)
            and _grow(<void**>&c.others_weight, sizeof(double) * length)
            and _grow(<void**>&c.own_weight, sizeof(double) * length)
            and _grow(<void**>&c.chosen_share, sizeof(double) * length)):
        return False
    c.length = length
    return True


cdef void _release_outcome_sampling(void* ctx) noexcept nogil:
    cdef OutcomeSampling* c = <OutcomeSampling*>ctx
    if c != NULL:
        free(c.strategy)
        free(c.strategy_slots)
        free(c.strategy_len)
        free(c.others_weight)
        free(c.own_weight)
        free(c.chosen_share)
        free(c)


# ------------------------------------------------------------- making them

cdef void _release(void* ctx) noexcept nogil:
    free(ctx)


cdef Ucb* _ucb_context(Selection* out, double exploration) except NULL:
    cdef Ucb* c = <Ucb*>part_context(sizeof(Ucb))
    out.ctx = c
    out.release = _release
    out.backup = _backup_visits
    out.grow = _grow_nothing
    c.exploration = exploration
    return c


cdef int ucb_selection(Selection* out, double exploration) except -1:
    _ucb_context(out, exploration)
    out.select = _ucb
    return 0


cdef int widened_ucb_selection(Selection* out, double exploration, double widen) except -1:
    _ucb_context(out, exploration).widen = widen
    out.select = _widened_ucb
    return 0


cdef int regret_matching_selection(Selection* out, double gamma, int slot_bound) except -1:
    cdef RegretMatching* c = <RegretMatching*>part_context(sizeof(RegretMatching))
    out.ctx = c
    out.release = _release_regret_matching
    c.sigma = <double*>part_context(slot_bound * sizeof(double))
    c.gamma = gamma
    out.select = _regret_matching
    out.backup = _backup_regrets
    out.grow = _grow_nothing
    return 0


cdef int outcome_sampling_selection(Selection* out, double gamma, int slot_bound) except -1:
    cdef OutcomeSampling* c = <OutcomeSampling*>part_context(sizeof(OutcomeSampling))
    out.ctx = c
    out.release = _release_outcome_sampling
    c.gamma = gamma
    c.slot_bound = slot_bound
    out.select = _outcome_sampling
    out.backup = _backup_outcome_sampling
    out.grow = _grow_outcome_sampling
    return 0
