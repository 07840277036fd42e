# cython: language_level=3
"""Playouts over the engine ABI, without the GIL.

Used to measure an engine's raw speed, to estimate values by Monte Carlo, and
to check a game's rollout policy (``GameDef.rollout_action``) against its
rules.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from fagin.engines.abi cimport GameDef, GAMEDEF_CAPSULE, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.rng cimport Rng, rng_below, rng_seed

import time


cdef const GameDef* _game_def(state):
    return <const GameDef*>PyCapsule_GetPointer(state.game.capsule, GAMEDEF_CAPSULE)


cdef inline int _decision(const GameDef* gd, const void* st, int* legal, Rng* rng,
                          bint use_policy) noexcept nogil:
    """A playout's action at a decision: the game's rollout policy's, or uniform."""
    if use_policy:
        return gd.rollout_action(st, rng)
    return legal[rng_below(rng, gd.legal_actions(st, legal))]


cdef inline int _next_decision(const GameDef* gd, void* st, Rng* rng) noexcept nogil:
    """Plays the chance events ahead (each drawn by its distribution) up to a seat's decision or
    the game's end; that seat, or PLAYER_TERMINAL."""
    cdef int p = gd.current_player(st)
    while p == PLAYER_CHANCE:
        gd.apply_action(st, gd.sample_chance(st, rng))
        p = gd.current_player(st)
    return p


cdef class _Scratch:
    """What a run of playouts from ``state`` works in: the state it starts from, a state
    buffer to play in and room for the legal actions; freed with the object, whatever
    the run raises."""
    cdef const void* root
    cdef unsigned char* st
    cdef int* legal

    def __cinit__(self, state):
        cdef const GameDef* gd = _game_def(state)
        self.root = <const void*><size_t>state._address()
        self.st = <unsigned char*>malloc(gd.state_size)
        self.legal = <int*>malloc(sizeof(int) * gd.max_legal_actions)
        if self.st == NULL or self.legal == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.st)
        free(self.legal)


def has_rollout_policy(state):
    """Whether the state's game declares a rollout policy."""
    return _game_def(state).rollout_action != NULL


def has_evaluation(state):
    """Whether the state's game declares an evaluation that can score a cut-off policy playout
    (``GameDef.evaluate``; its ``rollout_depth`` may be 0: playouts then run to the end unless a
    search asks for a cut-off)."""
    return _game_def(state).evaluate != NULL


def has_scores(state):
    """Whether the state's game keeps a score (``GameDef.scores``): analysis margins, and the
    "margin" evaluation of a cut-off playout."""
    return _game_def(state).scores != NULL


def has_learned_evaluation(state):
    """Whether the state's game ships a learned evaluation (``GameDef.evaluate_learned``)."""
    return _game_def(state).evaluate_learned != NULL


def random_playouts(state, int64_t count, seed=0, policy=False):
    """Plays ``count`` games from ``state``.

    Returns ``(mean_returns, actions_per_playout, seconds)``; chance events
    follow their true distribution and every decision is uniform, or, with
    ``policy``, the game's rollout policy where it has one.
    """
    if count < 1:
        raise ValueError(f"count: must be positive, got {count}")
    cdef const GameDef* gd = _game_def(state)
    cdef _Scratch scratch = _Scratch(state)
    cdef int size = gd.state_size
    cdef const void* root = scratch.root
    cdef unsigned char* st = scratch.st
    cdef int* legal = scratch.legal
    cdef bint use_policy = policy and gd.rollout_action != NULL
    cdef Rng rng
    rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    cdef double sums[MAX_SEATS]
    cdef double out[MAX_SEATS]
    cdef int i, p, players = gd.num_players(root)
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
                    gd.apply_action(st, _decision(gd, st, legal, &rng, use_policy))
                actions += 1
            gd.returns(st, out)
            for i in range(players):
                sums[i] += out[i]
    seconds = time.perf_counter() - start
    return [sums[i] / count for i in range(players)], actions / count, seconds


def rollout_policy_violations(state, int64_t count, seed=0, int asks=4):
    """Checks the game's rollout policy at every decision of ``count`` seeded
    uniformly random playouts from ``state``: asks it ``asks`` times per
    decision (it is randomised) and compares each answer with the legal actions.

    Returns ``(answers_checked, illegal_answers)``.
    """
    if count < 1 or asks < 1:
        raise ValueError(f"count/asks: must be positive, got {count}/{asks}")
    cdef const GameDef* gd = _game_def(state)
    if gd.rollout_action == NULL:
        raise ValueError(f"state: {gd.game_id.decode()} has no rollout policy")
    cdef _Scratch scratch = _Scratch(state)
    cdef int size = gd.state_size
    cdef const void* root = scratch.root
    cdef unsigned char* st = scratch.st
    cdef int* legal = scratch.legal
    cdef Rng play_rng, policy_rng
    rng_seed(&play_rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    rng_seed(&policy_rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF) ^ <uint64_t>0x5DEECE66D)
    cdef int i, j, n, a
    cdef bint ok
    cdef int64_t k, checked = 0, illegal = 0
    with nogil:
        for k in range(count):
            memcpy(st, root, size)
            while True:
                if _next_decision(gd, st, &play_rng) == PLAYER_TERMINAL:
                    break
                n = gd.legal_actions(st, legal)
                for j in range(asks):
                    a = gd.rollout_action(st, &policy_rng)
                    ok = False
                    for i in range(n):
                        if legal[i] == a:
                            ok = True
                    checked += 1
                    if not ok:
                        illegal += 1
                gd.apply_action(st, legal[rng_below(&play_rng, n)])
    return checked, illegal


def rollout_policy_answers(state, int count, seed=0):
    """How often the game's rollout policy answers each action at ``state``
    (asked ``count`` times with one seeded generator): ``{action: times}``."""
    if count < 1:
        raise ValueError(f"count: must be positive, got {count}")
    cdef const GameDef* gd = _game_def(state)
    if gd.rollout_action == NULL:
        raise ValueError(f"state: {gd.game_id.decode()} has no rollout policy")
    cdef const void* st = <const void*><size_t>state._address()
    if gd.current_player(st) < 0:
        raise ValueError("state: no decision is pending")
    cdef Rng rng
    rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    answers = {}
    cdef int i, a
    for i in range(count):
        a = gd.rollout_action(st, &rng)
        answers[a] = answers.get(a, 0) + 1
    return answers


def sampled_playouts(state, int64_t count, seed=0, double sample=0.05, policy=True):
    """Plays ``count`` games from ``state`` as :func:`random_playouts` does (chance by its
    distribution; the rollout policy, with ``policy`` where the game has one, else uniform)
    and keeps each decision state on the way with probability ``sample``: training positions
    for a learned evaluation (``python -m fagin.train``).

    Returns one ``(positions, returns, scores)`` per game: the kept states' bytes, in the order
    played, the game's final returns, and its final scores (``GameDef.scores``; None for a game
    that keeps none)."""
    if count < 1:
        raise ValueError(f"count: must be positive, got {count}")
    if not 0.0 <= sample <= 1.0:
        raise ValueError(f"sample: must be from 0 to 1, got {sample}")
    cdef const GameDef* gd = _game_def(state)
    cdef _Scratch scratch = _Scratch(state)
    cdef int size = gd.state_size
    cdef const void* root = scratch.root
    cdef unsigned char* st = scratch.st
    cdef int* legal = scratch.legal
    cdef bint use_policy = policy and gd.rollout_action != NULL
    cdef Rng rng, keep_rng
    rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    rng_seed(&keep_rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF) ^ <uint64_t>0x9E3779B97F4A7C15)
    cdef double out[MAX_SEATS]
    cdef int i, players = gd.num_players(root)
    cdef uint64_t threshold = <uint64_t>(sample * 1048576.0)
    cdef int64_t k
    games = []
    for k in range(count):
        memcpy(st, root, size)
        kept = []
        while True:
            if _next_decision(gd, st, &rng) == PLAYER_TERMINAL:
                break
            if rng_below(&keep_rng, 1048576) < threshold:
                kept.append((<char*>st)[:size])
            gd.apply_action(st, _decision(gd, st, legal, &rng, use_policy))
        gd.returns(st, out)
        returns = [out[i] for i in range(players)]
        scores = None
        if gd.scores != NULL:
            gd.scores(st, out)
            scores = [out[i] for i in range(players)]
        games.append((kept, returns, scores))
    return games
