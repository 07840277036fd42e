# cython: language_level=3
"""Analysis tallies (``parts.Tally``; the ``analysis`` and ``beliefs`` settings).

An analysis search sums, for each root action, every seat's return and score margin
(``GameDef.scores``: a seat's score less the best other seat's; at a cut-off the room's
learned expected final margin where it has one, ``GameDef.margins_learned``) and the
squares of the searching seat's.  A search asked for beliefs tallies each world's hidden
counts (``GameDef.hidden_counts``).  All of it is allocated when the search is made, never
in the loop; ``search/analysis.py`` turns the sums into an answer.
"""
from libc.stdlib cimport calloc, free

from fagin.engines.abi cimport GameDef, MAX_SEATS
from fagin.search.leaf cimport score_margins
from fagin.search.parts cimport Descent, Tally, part_context, release_nothing
from fagin.search.tree cimport Node, tree_node


cdef void _no_world(void* ctx, const GameDef* gd, const void* st, int seat) noexcept nogil:
    pass


cdef void _no_outcome(void* ctx, const Descent* d, int depth, const void* st, const double* returns,
                      bint cut_off) noexcept nogil:
    pass


cdef void _hidden_counts(void* ctx, const GameDef* gd, const void* st, int seat) noexcept nogil:
    """Adds a world's hidden counts to the beliefs' sums."""
    cdef Tallies* c = <Tallies*>ctx
    cdef int i, k
    gd.hidden_counts(st, seat, c.counts)
    for i in range(c.cells):
        k = c.counts[i]
        if k > 0:
            c.copies[i] += k
            c.present[i] += 1
    c.worlds += 1


cdef void _root_sums(void* ctx, const Descent* d, int depth, const void* st, const double* returns,
                     bint cut_off) noexcept nogil:
    """Adds a descent's outcome to the sums of the root action it took.  The margin of a
    playout ``cut_off`` before the end is the room's learned expected final margin
    (``GameDef.margins_learned``) where its model holds one for this player count, else the
    margin as it stands."""
    cdef const GameDef* gd = d.game
    cdef Node* nd
    cdef double margins[MAX_SEATS]
    cdef double* row
    cdef double u, margin
    cdef int p, n
    if depth <= 0:
        return
    nd = tree_node(d.tree, d.nodes[0])
    if nd.seat != d.seat or nd.key != d.root_key:
        return
    row = &(<Tallies*>ctx).root_sums[d.slots[0] * ROOT_SUMS_STRIDE]
    n = gd.num_players(st)
    row[0] += 1
    for p in range(n):
        row[1 + p] += returns[p]
    u = returns[d.seat]
    row[1 + 2 * MAX_SEATS] += u * u
    if gd.scores == NULL:
        return
    if not (cut_off and gd.margins_learned != NULL and gd.margins_learned(gd.learned, st, margins)):
        score_margins(gd, st, margins)
    for p in range(n):
        margin = margins[p]
        row[1 + MAX_SEATS + p] += margin
        if p == d.seat:
            row[2 + 2 * MAX_SEATS] += margin * margin



cdef void _release(void* ctx) noexcept nogil:
    cdef Tallies* c = <Tallies*>ctx
    if c != NULL:
        free(c.root_sums)
        free(c.counts)
        free(c.copies)
        free(c.present)
        free(c)


cdef int no_tallies(Tally* out) except -1:
    out.ctx = NULL
    out.world = _no_world
    out.outcome = _no_outcome
    out.release = release_nothing
    return 0


cdef int analysis_tallies(Tally* out, const GameDef* gd, bint root_sums, bint beliefs, int slot_bound) except -1:
    """The root's sums (``root_sums``) and the worlds' hidden counts (``beliefs``, where the
    game tallies any); the context is a ``Tallies``."""
    cdef Tallies* c = <Tallies*>part_context(sizeof(Tallies))
    cdef int cells
    out.ctx = c
    out.release = _release
    out.world = _no_world
    out.outcome = _no_outcome
    if root_sums:
        c.root_sums = <double*>part_context(slot_bound * ROOT_SUMS_STRIDE * sizeof(double))
        out.outcome = _root_sums
    if beliefs and gd.hidden_counts != NULL and gd.belief_places > 0 and gd.belief_items > 0:
        cells = gd.belief_places * gd.belief_items
        c.counts = <int*>calloc(cells, sizeof(int))
        c.copies = <double*>calloc(cells, sizeof(double))
        c.present = <double*>calloc(cells, sizeof(double))
        if c.counts == NULL or c.copies == NULL or c.present == NULL:
            raise MemoryError()
        c.cells = cells
        out.world = _hidden_counts
    return 0
