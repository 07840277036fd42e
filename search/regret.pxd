# cython: language_level=3
"""Regret matching, shared by the CFR solvers (``cfr.pyx``) and ISMCTS (``ismcts.pyx``).

Inline, like ``engines/rng.pxd``: it runs in both searches' loops, where the C
compiler inlines it.
"""


cdef inline void regret_matching(const void* first, size_t stride, const int* index, int n,
                                 double* out) noexcept nogil:
    """The regret-matching strategy over ``n`` actions, written to ``out[0:n]``.

    Action ``i``'s cumulative regret is the double at byte offset
    ``stride * index[i]`` from ``first`` (``index`` NULL: ``stride * i``), so
    both a flat array of regrets (CFR) and a field of an array of structs
    picked through a map of slots (ISMCTS) are read in place.  Each action
    gets its positive regret's share of the total positive regret; with no
    positive regret, the strategy is uniform.
    """
    cdef int i
    cdef double total = 0.0, r
    cdef const char* base = <const char*>first
    for i in range(n):
        r = (<const double*>(base + stride * <size_t>(index[i] if index != NULL else i)))[0]
        out[i] = r if r > 0 else 0.0
        total += out[i]
    if total > 0:
        for i in range(n):
            out[i] = out[i] / total
    else:
        for i in range(n):
            out[i] = 1.0 / n
