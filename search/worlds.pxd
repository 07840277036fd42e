# cython: language_level=3
"""World samplers (``parts.WorldSampler``): the world each iteration searches."""
from fagin.search.parts cimport WorldSampler


cdef int determinized_worlds(WorldSampler* out) except -1
