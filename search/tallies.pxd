# cython: language_level=3
"""Analysis tallies (``parts.Tally``): what an analysis gathers beside the search."""
from libc.stdint cimport int64_t

from fagin.engines.abi cimport GameDef, MAX_SEATS
from fagin.search.parts cimport Tally

# Sums per root slot: visits, each seat's return sum, each seat's margin sum, the
# searching seat's return square sum and margin square sum.
cdef enum:
    ROOT_SUMS_STRIDE = 2 * MAX_SEATS + 3

ctypedef struct Tallies:
    double* root_sums         # per root slot: ROOT_SUMS_STRIDE sums (NULL: not gathered)
    int* counts               # one world's hidden counts (NULL: no beliefs)
    double* copies            # per cell: copies summed over the worlds
    double* present           # per cell: worlds with a copy there
    int cells
    int64_t worlds            # worlds tallied


cdef int no_tallies(Tally* out) except -1
cdef int analysis_tallies(Tally* out, const GameDef* gd, bint root_sums, bint beliefs, int slot_bound) except -1
