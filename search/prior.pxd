# cython: language_level=3
"""Priors (``parts.Prior``): an action a selection favours at a node, and its weight."""
from fagin.search.parts cimport Prior


cdef int no_prior(Prior* out) except -1
cdef int policy_prior(Prior* out, double own_weight, double other_weight, bint widening,
                      int actions) except -1
