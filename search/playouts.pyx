# cython: language_level=3
"""Uniformly random playouts over the engine ABI, without the GIL.

Used to measure an engine's raw speed and to estimate values by Monte Carlo.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, rng_below, rng_seed

import time


def random_playouts(state, int64_t count, seed=0):
    """Plays ``count`` random games from ``state``.

    Returns ``(mean_returns, actions_per_playout, seconds)``; chance events
    follow their true distribution and every decision is uniform.
    """
    if count < 1:
        raise ValueError(f"count: must be positive, got {count}")
    cdef const GameDef* gd = <const GameDef*>PyCapsule_GetPointer(state.game.capsule, GAMEDEF_CAPSULE)
    cdef int size = gd.state_size
    cdef const void* root = <const void*><size_t>state._address()
    cdef unsigned char* st = <unsigned char*>malloc(size)
    cdef int* legal = <int*>malloc(sizeof(int) * gd.max_legal_actions)
    if st == NULL or legal == NULL:
        free(st)
        free(legal)
        raise MemoryError()
    cdef Rng rng
    rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    cdef double sums[MAX_SEATS]
    cdef double out[MAX_SEATS]
    cdef int i, p, n, players = gd.num_players(root)
    cdef int64_t k, actions = 0
    for i in range(MAX_SEATS):
        sums[i] = 0.0
    start = time.perf_counter()
    with nogil:
        for k in range(count):
            memcpy(st, root, size)
            while True:
                p = gd.current_player(st)
                if p == PLAYER_TERMINAL:
                    break
                if p == PLAYER_CHANCE:
                    gd.apply_action(st, gd.sample_chance(st, &rng))
                else:
                    n = gd.legal_actions(st, legal)
                    gd.apply_action(st, legal[rng_below(&rng, n)])
                actions += 1
            gd.returns(st, out)
            for i in range(players):
                sums[i] += out[i]
    seconds = time.perf_counter() - start
    free(st)
    free(legal)
    return [sums[i] / count for i in range(players)], actions / count, seconds
