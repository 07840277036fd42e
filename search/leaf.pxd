# cython: language_level=3
"""Leaf values (``parts.LeafValue``): what a descent that left the tree is worth to each seat."""
from fagin.engines.abi cimport GameDef, MAX_SEATS
from fagin.search.parts cimport LeafValue


cdef int uniform_playout(LeafValue* out, int legal_cap) except -1
cdef int policy_playout(LeafValue* out) except -1
cdef int cut_off_playout(LeafValue* out, int cutoff, int turns, str evaluation, double margin_scale) except -1


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
