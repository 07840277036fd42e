# cython: language_level=3
"""Opponent models (``parts.OpponentModel``): how another seat decides in the tree."""
from fagin.search.parts cimport OpponentModel


cdef int own_view_opponents(OpponentModel* out) except -1
cdef int observer_view_opponents(OpponentModel* out) except -1
cdef int policy_opponents(OpponentModel* out) except -1
