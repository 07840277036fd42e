# cython: language_level=3
"""The room's kit: the two things every engine does the same way, written once.

``export_game_def`` wraps a room's ``GameDef`` table in the capsule
``fagin.engines.core.Game`` reads (the room's ``GAME_DEF``); ``read_state``
copies a state's bytes into the room's struct, refusing bytes of any other
length before a field is read.  Inline helpers, cimported by the rooms.
"""
from cpython.pycapsule cimport PyCapsule_New
from libc.string cimport memcpy, memset

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE


cdef inline object export_game_def(GameDef* gd):
    """A room's ``GAME_DEF``: its table, in the capsule ``fagin.engines.core.Game`` reads."""
    return PyCapsule_New(<void*>gd, GAMEDEF_CAPSULE, NULL)


cdef inline void read_state(data, void* out, size_t size, str message) except *:
    """Copies the state in ``data`` (a state's bytes, or any buffer) into ``out``, a struct
    of ``size`` bytes: ValueError ``message`` unless ``data`` is exactly ``size`` bytes long.
    The copy is made while the buffer is held, so nothing read later can change under it.
    ``out`` is zeroed first, so that no path leaves it unwritten."""
    memset(out, 0, size)
    cdef const unsigned char[::1] view = data
    if <size_t>view.shape[0] != size:
        raise ValueError(message)
    memcpy(out, &view[0], size)
