# cython: language_level=3
"""Selections (``parts.Selection``): the slot a descent takes at a node, and the backup."""
from fagin.search.parts cimport Selection


cdef int ucb_selection(Selection* out, double exploration) except -1
cdef int widened_ucb_selection(Selection* out, double exploration, double widen) except -1
cdef int regret_matching_selection(Selection* out, double gamma, int slot_bound) except -1
cdef int outcome_sampling_selection(Selection* out, double gamma, int slot_bound) except -1
