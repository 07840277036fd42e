# cython: language_level=3
"""Regret-based solvers for small games: CFR, CFR+, Discounted CFR, external- and
outcome-sampling MCCFR, and exact best response / NashConv.

The whole game tree is built once from the engine ABI into flat arrays
(:class:`GameTree`); the solver iterations then run over those arrays
without the GIL.  Information sets are the engine's ``(player, infoset_key)``
pairs, so the same engines serve ISMCTS and the solvers.

References: Zinkevich et al. 2007 (CFR); Tammelin 2014 (CFR+); Brown &
Sandholm 2019 (Discounted CFR); Lanctot et al. 2009 (MCCFR).
"""
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport pow
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.rng cimport Rng, rng_below, rng_double, rng_seed
from fagin.search.regret cimport regret_matching

import numpy as np

cdef enum:
    TERMINAL_NODE = 0
    CHANCE_NODE = 1
    DECISION_NODE = 2

ctypedef struct Tree:
    # The arrays the solvers walk, without the GIL (owned by a GameTree).
    int32_t* kind
    int32_t* player
    int32_t* infoset
    int32_t* first_edge
    int32_t* num_children
    int32_t* edge_child
    int32_t* infoset_offset
    double* utility
    double* edge_prob
    int max_children
    int num_infoset_actions


cdef class GameTree:
    """The full tree of a small 2-player zero-sum game, in flat arrays.

    ``nodes`` are in depth-first pre-order; each node's children are the
    consecutive ``edges`` from ``first_edge``.  Decision nodes point to their
    information set; every information set has its actions in the order the
    engine lists them.
    """
    cdef readonly int num_nodes, num_edges, num_infosets
    cdef int32_t* kind
    cdef int32_t* player
    cdef int32_t* infoset
    cdef int32_t* first_edge
    cdef int32_t* num_children
    cdef double* utility            # return of player 0 at terminal nodes
    cdef int32_t* edge_child
    cdef int32_t* edge_action
    cdef double* edge_prob          # chance probability (chance nodes)
    cdef int32_t* infoset_player
    cdef int32_t* infoset_num_actions
    cdef int32_t* infoset_offset    # into per-action arrays
    cdef readonly int num_infoset_actions
    cdef readonly int max_depth, max_children
    cdef readonly object infoset_actions     # list of action lists
    cdef readonly object infoset_history     # a history (actions from the root) reaching each infoset
    cdef readonly object infoset_nodes       # node indices of each infoset
    cdef readonly object infoset_keys        # (player, engine infoset key) of each infoset
    cdef readonly object game
    cdef Tree t

    def __cinit__(self):
        self.kind = NULL

    def __init__(self, state, max_nodes=5_000_000):
        """Expands every history of ``state`` (usually the game's initial state)."""
        if state.num_players != 2:
            raise ValueError("the solvers handle 2-player zero-sum games")
        self.game = state.game
        kinds, players, infosets, first, nchild, util = [], [], [], [], [], []
        e_child, e_action, e_prob = [], [], []
        index = {}
        self.infoset_actions = []
        self.infoset_history = []
        self.infoset_nodes = []
        self.infoset_keys = []
        iplayer = []
        # Iterative DFS in pre-order; children's edges are filled when the node is expanded.
        stack = [(state.clone(), (), -1, 0)]
        max_depth = 0
        max_children = 1
        while stack:
            st, history, parent_edge, depth = stack.pop()
            max_depth = max(max_depth, depth)
            node = len(kinds)
            if node >= max_nodes:
                raise ValueError(f"the game has more than {max_nodes} nodes")
            if parent_edge >= 0:
                e_child[parent_edge] = node
            p = st.current_player()
            if p == PLAYER_TERMINAL:
                kinds.append(TERMINAL_NODE)
                players.append(-1)
                infosets.append(-1)
                first.append(len(e_child))
                nchild.append(0)
                util.append(st.returns()[0])
                continue
            if p == PLAYER_CHANCE:
                outcomes = st.chance_outcomes()
                kinds.append(CHANCE_NODE)
                players.append(-1)
                infosets.append(-1)
                actions = [a for a, _ in outcomes]
                probs = [pr for _, pr in outcomes]
            else:
                kinds.append(DECISION_NODE)
                players.append(p)
                key = (p, st.infoset_key(p))
                actions = st.legal_actions()
                i = index.get(key)
                if i is None:
                    i = index[key] = len(self.infoset_actions)
                    self.infoset_actions.append(actions)
                    self.infoset_history.append(history)
                    self.infoset_nodes.append([])
                    self.infoset_keys.append(key)
                    iplayer.append(p)
                elif self.infoset_actions[i] != actions:
                    raise ValueError("an information set with different legal actions (imperfect recall?)")
                self.infoset_nodes[i].append(node)
                infosets.append(i)
                probs = [0.0] * len(actions)
            first.append(len(e_child))
            nchild.append(len(actions))
            max_children = max(max_children, len(actions))
            util.append(0.0)
            base = len(e_child)
            for a, pr in zip(actions, probs):
                e_child.append(-1)
                e_action.append(a)
                e_prob.append(pr)
            # Push children in reverse so that they are expanded in order.
            for j in range(len(actions) - 1, -1, -1):
                stack.append((st.child(actions[j]), history + (actions[j],), base + j, depth + 1))
        self.max_depth = max_depth
        self.max_children = max_children
        self.num_nodes = len(kinds)
        self.num_edges = len(e_child)
        self.num_infosets = len(self.infoset_actions)
        self.kind = _ints(kinds)
        self.player = _ints(players)
        self.infoset = _ints(infosets)
        self.first_edge = _ints(first)
        self.num_children = _ints(nchild)
        self.utility = _doubles(util)
        self.edge_child = _ints(e_child)
        self.edge_action = _ints(e_action)
        self.edge_prob = _doubles(e_prob)
        self.infoset_player = _ints(iplayer)
        self.infoset_num_actions = _ints([len(a) for a in self.infoset_actions])
        offsets, total = [], 0
        for a in self.infoset_actions:
            offsets.append(total)
            total += len(a)
        self.infoset_offset = _ints(offsets)
        self.num_infoset_actions = total
        self.t.kind = self.kind
        self.t.player = self.player
        self.t.infoset = self.infoset
        self.t.first_edge = self.first_edge
        self.t.num_children = self.num_children
        self.t.edge_child = self.edge_child
        self.t.infoset_offset = self.infoset_offset
        self.t.utility = self.utility
        self.t.edge_prob = self.edge_prob
        self.t.max_children = self.max_children
        self.t.num_infoset_actions = total

    def __dealloc__(self):
        if self.kind == NULL:
            return
        for ptr in (<size_t>self.kind, <size_t>self.player, <size_t>self.infoset, <size_t>self.first_edge,
                    <size_t>self.num_children, <size_t>self.edge_child, <size_t>self.edge_action,
                    <size_t>self.infoset_player, <size_t>self.infoset_num_actions,
                    <size_t>self.infoset_offset):
            free(<void*>ptr)
        free(self.utility)
        free(self.edge_prob)

    cdef int32_t* infoset_num_actions_ptr(self):
        return self.infoset_num_actions

    def uniform_policy(self):
        """A policy array (one row per information set, padded) playing uniformly."""
        pol = np.zeros(self.num_infoset_actions)
        for i, acts in enumerate(self.infoset_actions):
            off = self.infoset_offset[i]
            pol[off:off + len(acts)] = 1.0 / len(acts)
        return pol

    def policy_from(self, policy_of):
        """A policy array from ``policy_of(player, key, actions) -> {action: probability}``."""
        pol = np.zeros(self.num_infoset_actions)
        for i, acts in enumerate(self.infoset_actions):
            player, key = self.infoset_keys[i]
            probs = policy_of(player, key, acts)
            off = self.infoset_offset[i]
            for j, a in enumerate(acts):
                pol[off + j] = probs[a]
        return pol

    def policy_dict(self, policy):
        """``{(player, history of the first node reaching it): {action: probability}}`` per infoset."""
        out = {}
        for i, acts in enumerate(self.infoset_actions):
            off = self.infoset_offset[i]
            out[(self.infoset_player[i], self.infoset_history[i])] = {
                a: float(policy[off + j]) for j, a in enumerate(acts)}
        return out

    # ---------------------------------------------------------- evaluation

    def expected_value(self, policy):
        """Player 0's expected return when both play ``policy``."""
        cdef double[::1] pol = np.ascontiguousarray(policy, dtype=np.float64)
        return self._value(0, &pol[0])

    cdef double _value(self, int node, const double* pol) noexcept nogil:
        cdef int k = self.kind[node], j, e
        cdef double v = 0.0, w
        if k == TERMINAL_NODE:
            return self.utility[node]
        e = self.first_edge[node]
        for j in range(self.num_children[node]):
            if k == CHANCE_NODE:
                w = self.edge_prob[e + j]
            else:
                w = pol[self.infoset_offset[self.infoset[node]] + j]
            if w > 0:
                v += w * self._value(self.edge_child[e + j], pol)
        return v

    def best_response_value(self, int player, policy):
        """The value ``player`` gets by best-responding to ``policy`` (played by the other seat)."""
        cdef double[::1] pol = np.ascontiguousarray(policy, dtype=np.float64)
        reach = np.zeros(self.num_nodes)
        cdef double[::1] r = reach
        self._reach(0, 1.0, player, &pol[0], &r[0])
        best = np.full(self.num_infosets, -1, dtype=np.int32)
        cdef int[::1] b = best
        memo = np.full(self.num_nodes, np.nan)
        cdef double[::1] m = memo
        v = self._br(0, player, &pol[0], &r[0], &b[0], &m[0])
        return v if player == 0 else -v

    cdef void _reach(self, int node, double p, int player, const double* pol, double* out) noexcept:
        cdef int k = self.kind[node], j, e
        cdef double w
        out[node] = p
        if k == TERMINAL_NODE:
            return
        e = self.first_edge[node]
        for j in range(self.num_children[node]):
            if k == CHANCE_NODE:
                w = self.edge_prob[e + j]
            elif self.player[node] == player:
                w = 1.0
            else:
                w = pol[self.infoset_offset[self.infoset[node]] + j]
            self._reach(self.edge_child[e + j], p * w, player, pol, out)

    cdef double _br(self, int node, int player, const double* pol, const double* reach, int* best,
                    double* memo) except? -1e300:
        """Player 0's value at `node` when `player` best-responds (zero-sum)."""
        cdef int k = self.kind[node], j, e, i, a, n
        cdef double v = 0.0, w, q, best_q
        if memo[node] == memo[node]:
            return memo[node]
        if k == TERMINAL_NODE:
            return self.utility[node]
        e = self.first_edge[node]
        if k == CHANCE_NODE or self.player[node] != player:
            for j in range(self.num_children[node]):
                if k == CHANCE_NODE:
                    w = self.edge_prob[e + j]
                else:
                    w = pol[self.infoset_offset[self.infoset[node]] + j]
                if w > 0 or k == CHANCE_NODE:
                    v += w * self._br(self.edge_child[e + j], player, pol, reach, best, memo)
            memo[node] = v
            return v
        i = self.infoset[node]
        if best[i] < 0:
            # The best action is the same in every history of the infoset:
            # weigh each by the others' reach (perfect recall).
            n = self.infoset_num_actions[i]
            best_q = -1e300
            for a in range(n):
                q = 0.0
                for h in self.infoset_nodes[i]:
                    if reach[h] > 0:
                        q += reach[h] * self._br(self.edge_child[self.first_edge[h] + a], player, pol,
                                                 reach, best, memo)
                if player == 1:
                    q = -q
                if q > best_q + 1e-15:
                    best_q = q
                    best[i] = a
        v = self._br(self.edge_child[e + best[i]], player, pol, reach, best, memo)
        memo[node] = v
        return v

    def nash_conv(self, policy):
        """NashConv: how much both seats together gain by best-responding to ``policy``."""
        v0 = self.expected_value(policy)
        return (self.best_response_value(0, policy) - v0) + (self.best_response_value(1, policy) + v0)

    def exploitability(self, policy):
        """OpenSpiel's exploitability: NashConv / number of players."""
        return self.nash_conv(policy) / 2


cdef int32_t* _ints(values) except NULL:
    cdef int32_t* p = <int32_t*>malloc(sizeof(int32_t) * max(1, len(values)))
    if p == NULL:
        raise MemoryError()
    for i, v in enumerate(values):
        p[i] = v
    return p


cdef double* _doubles(values) except NULL:
    cdef double* p = <double*>malloc(sizeof(double) * max(1, len(values)))
    if p == NULL:
        raise MemoryError()
    for i, v in enumerate(values):
        p[i] = v
    return p


ALGORITHMS = ("cfr", "cfr+", "dcfr", "external_sampling", "outcome_sampling")


cdef class Solver:
    """A regret-minimising solver over a :class:`GameTree`.

    ``algorithm``: ``"cfr"`` (vanilla, simultaneous), ``"cfr+"`` (regret
    matching+, alternating updates, linear averaging), ``"dcfr"`` (Discounted
    CFR, alpha 1.5, beta 0, gamma 2), ``"external_sampling"`` or
    ``"outcome_sampling"`` (MCCFR; exploration 0.6 for outcome sampling).
    """
    cdef GameTree tree
    cdef Tree t
    cdef int variant
    cdef int32_t* infoset_num_actions
    cdef int num_infosets
    cdef readonly str algorithm
    cdef double* regret
    cdef double* strategy_sum
    cdef double* current           # the policy of the pass under way (full-width variants)
    cdef double* scratch
    cdef readonly int64_t iterations
    cdef Rng rng
    cdef double epsilon
    cdef int stride

    def __init__(self, GameTree tree, algorithm="cfr+", seed=0, epsilon=0.6):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm: {algorithm!r} is not one of {', '.join(ALGORITHMS)}")
        self.tree = tree
        self.t = tree.t
        self.algorithm = algorithm
        self.variant = ALGORITHMS.index(algorithm)
        self.epsilon = epsilon
        n = max(1, tree.num_infoset_actions)
        self.regret = <double*>calloc(n, sizeof(double))
        self.strategy_sum = <double*>calloc(n, sizeof(double))
        self.current = <double*>calloc(n, sizeof(double))
        # Per-depth scratch for the strategies and values of the nodes on the
        # current path: no allocation during iterations.
        self.stride = 2 * tree.max_children
        self.scratch = <double*>calloc((tree.max_depth + 2) * self.stride, sizeof(double))
        if not (self.regret and self.strategy_sum and self.scratch and self.current):
            raise MemoryError()
        self.infoset_num_actions = tree.infoset_num_actions_ptr()
        self.num_infosets = tree.num_infosets
        rng_seed(&self.rng, <uint64_t>seed)

    def __dealloc__(self):
        free(self.regret)
        free(self.strategy_sum)
        free(self.current)
        free(self.scratch)

    def run(self, int64_t iterations):
        """Runs more iterations (without the GIL)."""
        cdef int64_t t
        cdef int p
        cdef int variant = self.variant
        with nogil:
            for t in range(iterations):
                self.iterations += 1
                if variant == 0:                          # cfr: simultaneous updates
                    self._refresh()
                    self._cfr(0, -1, 1.0, 1.0, 1.0, 0)
                elif variant == 3:
                    for p in range(2):
                        self._external(0, p, 0)
                elif variant == 4:
                    for p in range(2):
                        self._outcome(0, p, 1.0, 1.0, 1.0, 0)
                else:                                     # cfr+ and dcfr: alternating updates
                    for p in range(2):
                        self._refresh()
                        self._cfr(0, p, 1.0, 1.0, 1.0, 0)
                        if variant == 1:
                            self._clip()
                    if variant == 2:
                        self._discount()
        return self

    cdef void _refresh(self) noexcept nogil:
        """The current policy, fixed for a whole pass (as OpenSpiel's CFR solvers)."""
        cdef int i, off
        for i in range(self.num_infosets):
            off = self.t.infoset_offset[i]
            regret_matching(&self.regret[off], sizeof(double), NULL, self.infoset_num_actions[i], &self.current[off])

    cdef void _clip(self) noexcept nogil:
        cdef int i
        for i in range(self.t.num_infoset_actions):
            if self.regret[i] < 0:
                self.regret[i] = 0.0

    cdef void _discount(self) noexcept nogil:
        # DCFR after iteration t: positive regrets * t^1.5 / (t^1.5 + 1), negative
        # ones * 1/2 (beta = 0); the average so far * (t / (t + 1))^2 (gamma = 2).
        cdef double t = self.iterations
        cdef double pos = pow(t, 1.5) / (pow(t, 1.5) + 1.0)
        cdef double avg = pow(t / (t + 1.0), 2.0)
        cdef int i
        for i in range(self.t.num_infoset_actions):
            self.regret[i] *= pos if self.regret[i] > 0 else 0.5
            self.strategy_sum[i] *= avg

    cdef double _cfr(self, int node, int update, double pi0, double pi1, double pic,
                     int depth) noexcept nogil:
        """Counterfactual regret update; returns player 0's value. update = -1: both players."""
        cdef Tree* tr = &self.t
        cdef int k = tr.kind[node], j, e, n, i, off, p
        cdef double v = 0.0, w, weight
        cdef double* sigma
        cdef double* values
        if k == TERMINAL_NODE:
            return tr.utility[node]
        e = tr.first_edge[node]
        n = tr.num_children[node]
        if k == CHANCE_NODE:
            for j in range(n):
                w = tr.edge_prob[e + j]
                v += w * self._cfr(tr.edge_child[e + j], update, pi0, pi1, pic * w, depth + 1)
            return v
        i = tr.infoset[node]
        p = tr.player[node]
        off = tr.infoset_offset[i]
        sigma = &self.current[off]
        values = &self.scratch[depth * self.stride]
        for j in range(n):
            if p == 0:
                values[j] = self._cfr(tr.edge_child[e + j], update, pi0 * sigma[j], pi1, pic, depth + 1)
            else:
                values[j] = self._cfr(tr.edge_child[e + j], update, pi0, pi1 * sigma[j], pic, depth + 1)
            v += sigma[j] * values[j]
        if update < 0 or update == p:
            # Regrets of the acting player, weighted by the others' reach.
            w = (pi1 if p == 0 else pi0) * pic
            for j in range(n):
                self.regret[off + j] += w * ((values[j] - v) if p == 0 else (v - values[j]))
            weight = 1.0
            if self.variant == 1:
                weight = <double>self.iterations      # cfr+: linear averaging
            w = pi0 if p == 0 else pi1
            for j in range(n):
                self.strategy_sum[off + j] += weight * w * sigma[j]
        return v

    cdef inline int _sample_edge(self, int e, int n) noexcept nogil:
        """A chance edge among the `n` from `e`, drawn with the chance probabilities."""
        cdef double r = rng_double(&self.rng)
        cdef int j
        for j in range(n - 1):
            r -= self.t.edge_prob[e + j]
            if r < 0:
                return e + j
        return e + n - 1

    cdef double _external(self, int node, int update, int depth) noexcept nogil:
        """External-sampling MCCFR: returns the update player's sampled value."""
        cdef Tree* tr = &self.t
        cdef int k = tr.kind[node], j, e, n, i, off, p, a
        cdef double v = 0.0, r
        cdef double* sigma
        cdef double* values
        if k == TERMINAL_NODE:
            return tr.utility[node] if update == 0 else -tr.utility[node]
        e = tr.first_edge[node]
        n = tr.num_children[node]
        if k == CHANCE_NODE:
            return self._external(tr.edge_child[self._sample_edge(e, n)], update, depth + 1)
        i = tr.infoset[node]
        p = tr.player[node]
        off = tr.infoset_offset[i]
        sigma = &self.scratch[depth * self.stride]
        values = sigma + tr.max_children
        regret_matching(&self.regret[off], sizeof(double), NULL, n, sigma)
        if p == update:
            for j in range(n):
                values[j] = self._external(tr.edge_child[e + j], update, depth + 1)
                v += sigma[j] * values[j]
            for j in range(n):
                self.regret[off + j] += values[j] - v
            return v
        # The other seat samples one action and records its strategy ("simple" averaging).
        for j in range(n):
            self.strategy_sum[off + j] += sigma[j]
        r = rng_double(&self.rng)
        a = n - 1
        for j in range(n):
            r -= sigma[j]
            if r < 0:
                a = j
                break
        return self._external(tr.edge_child[e + a], update, depth + 1)

    cdef double _outcome(self, int node, int update, double my_reach, double opp_reach,
                         double sample_reach, int depth) noexcept nogil:
        """Outcome-sampling MCCFR, as OpenSpiel's (no baseline): the sampled value estimate."""
        cdef Tree* tr = &self.t
        cdef int k = tr.kind[node], j, e, n, i, off, p, a
        cdef double r, child, q, estimate, cf_value
        cdef double* sigma
        cdef double* sample
        if k == TERMINAL_NODE:
            return tr.utility[node] if update == 0 else -tr.utility[node]
        e = tr.first_edge[node]
        n = tr.num_children[node]
        if k == CHANCE_NODE:
            # Chance is sampled on-policy: its probability multiplies both reaches alike.
            j = self._sample_edge(e, n)
            q = tr.edge_prob[j]
            return self._outcome(tr.edge_child[j], update, my_reach, opp_reach * q, sample_reach * q,
                                 depth + 1)
        i = tr.infoset[node]
        p = tr.player[node]
        off = tr.infoset_offset[i]
        sigma = &self.scratch[depth * self.stride]
        sample = sigma + tr.max_children
        regret_matching(&self.regret[off], sizeof(double), NULL, n, sigma)
        for j in range(n):
            sample[j] = (self.epsilon / n + (1.0 - self.epsilon) * sigma[j]) if p == update else sigma[j]
        r = rng_double(&self.rng)
        a = n - 1
        for j in range(n):
            r -= sample[j]
            if r < 0:
                a = j
                break
        if p == update:
            child = self._outcome(tr.edge_child[e + a], update, my_reach * sigma[a], opp_reach,
                                  sample_reach * sample[a], depth + 1)
        else:
            child = self._outcome(tr.edge_child[e + a], update, my_reach, opp_reach * sigma[a],
                                  sample_reach * sample[a], depth + 1)
        # The sampled child's value, importance-corrected; the others count 0.
        child = child / sample[a]
        estimate = sigma[a] * child
        if p == update:
            cf_value = estimate * opp_reach / sample_reach
            for j in range(n):
                self.regret[off + j] += ((child if j == a else 0.0) * opp_reach / sample_reach) - cf_value
            for j in range(n):
                self.strategy_sum[off + j] += my_reach * sigma[j] / sample_reach
        return estimate

    def current_policy(self):
        pol = np.zeros(self.tree.num_infoset_actions)
        cdef double[::1] out = pol
        cdef int i, off, n
        for i in range(self.tree.num_infosets):
            off = self.tree.infoset_offset[i]
            n = self.tree.infoset_num_actions[i]
            regret_matching(&self.regret[off], sizeof(double), NULL, n, &out[off])
        return pol

    def average_policy(self):
        """The average strategy, the one that converges to equilibrium."""
        pol = np.zeros(self.tree.num_infoset_actions)
        cdef int i, off, n, a
        cdef double total
        for i in range(self.tree.num_infosets):
            off = self.tree.infoset_offset[i]
            n = self.tree.infoset_num_actions[i]
            total = 0.0
            for a in range(n):
                total += self.strategy_sum[off + a]
            for a in range(n):
                pol[off + a] = self.strategy_sum[off + a] / total if total > 0 else 1.0 / n
        return pol


def to_openspiel_policy(GameTree tree, policy, openspiel_game):
    """An OpenSpiel ``TabularPolicy`` playing ``policy``, for OpenSpiel's own exploitability.

    Each information set is matched to OpenSpiel's by replaying a history that
    reaches it (the action ids are OpenSpiel's for the reference games).
    """
    from open_spiel.python import policy as os_policy
    tab = os_policy.TabularPolicy(openspiel_game)
    for i, acts in enumerate(tree.infoset_actions):
        st = openspiel_game.new_initial_state()
        for a in tree.infoset_history[i]:
            st.apply_action(a)
        p = st.current_player()
        row = tab.policy_for_key(st.information_state_string(p))
        row[:] = 0.0
        off = tree.infoset_offset[i]
        for j, a in enumerate(acts):
            row[a] = policy[off + j]
    return tab
