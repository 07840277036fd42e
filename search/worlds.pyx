# cython: language_level=3
"""World samplers: the world each ISMCTS iteration searches (``parts.WorldSampler``).

"determinize": the game's own ``GameDef.determinize``, which keeps everything the
searching seat has seen and deals the rest again, uniformly.
"""
from fagin.engines.abi cimport GameDef
from fagin.engines.rng cimport Rng
from fagin.search.parts cimport WorldSampler, release_nothing


cdef void _determinize(void* ctx, const GameDef* gd, void* st, int seat, Rng* rng) noexcept nogil:
    gd.determinize(st, seat, rng)



cdef int determinized_worlds(WorldSampler* out) except -1:
    out.ctx = NULL
    out.sample = _determinize
    out.release = release_nothing
    return 0
