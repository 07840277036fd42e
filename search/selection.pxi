# Selection at a node of the ISMCTS tree: UCB1 with availability counts
# ("ucb"), regret matching ("rm", SM-MCTS-RM) and outcome sampling ("os").
# Included by search/ismcts.pyx after search/tree.pxi: each kernel is a plain
# nogil C function over a node's slots (`base`) and the slots of the legal
# actions (`mapped[0:m]`, from tree_map); the search's own state comes in as
# arguments.  Regret matching itself is shared with the CFR solvers
# (search/regret.pxd).  The names they use are cimported by ismcts.pyx.


# Outcome sampling: the reach probabilities along the current descent.
ctypedef struct Reach:
    double own          # the updating seat's strategy
    double others       # every other seat's strategy
    double sample       # the sampling strategy


cdef int select_ucb(Slot* base, const int* mapped, int m, bint fresh, int hint,
                    double exploration, double prior, Rng* rng) noexcept nogil:
    """UCB1 with availability counts over the mapped slots; an untried one
    first (uniformly), and a uniform pick at a node just added.  With a
    prior, `hint` (the rollout policy's pick, -1: none) is tried first and
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
    """Progressive widening in the policy's order (progressive unpruning,
    Chaslot et al. 2008): of the m legal slots only the first
    k = ceil(widen * sqrt(n + 1)) take part, n the visits the node has given
    them, ranked by how often the rollout policy has picked each at this node
    (a slot's `avg`, which UCB does not otherwise use), then by visits, ties
    drawn at random; among those, select_ucb.  The pick `hint` is counted
    first, so a node just added tries the policy's pick.  `mapped` is put in
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


cdef int select_rm(Slot* base, const int* mapped, int m, double gamma, Rng* rng,
                   double* sigma, double* prob) noexcept nogil:
    """Regret matching (written to sigma[0:m]) mixed with gamma-uniform
    exploration; the node's average strategy takes the unmixed strategy."""
    cdef int i
    regret_matching(&base[0].regret, sizeof(Slot), mapped, m, sigma)
    for i in range(m):
        base[mapped[i]].avg += sigma[i]
    return mapped[sample_mixed(sigma, m, gamma, rng, prob)]


cdef int select_os(Slot* base, const int* mapped, int m, bint updating, double gamma, Rng* rng,
                   Reach* reach, double* sig, int32_t* legal, double* sig_a, int32_t* n,
                   double* w, double* own, double* prob) noexcept nogil:
    """Outcome sampling: regret matching, explored with probability gamma by
    the updating seat only.  Records what the update of this node needs: the
    strategy (sig[0:m]) over its legal slots (legal[0:m]), the chosen slot's
    probability (sig_a), m (n), others' and own reach over the sample reach
    (w, own); then moves `reach` past the choice."""
    cdef int i, chosen
    regret_matching(&base[0].regret, sizeof(Slot), mapped, m, sig)
    for i in range(m):
        legal[i] = mapped[i]
    chosen = sample_mixed(sig, m, gamma if updating else 0.0, rng, prob)
    if prob[0] <= 0:
        prob[0] = 1e-12
    sig_a[0] = sig[chosen]
    n[0] = m
    w[0] = reach.others / reach.sample
    own[0] = reach.own / reach.sample
    if updating:
        reach.own *= sig[chosen]
    else:
        reach.others *= sig[chosen]
    reach.sample *= prob[0]
    return mapped[chosen]
