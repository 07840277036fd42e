# cython: language_level=3
"""Leaf values: from where a descent left the ISMCTS tree, each seat's return
(``parts.LeafValue``; the ``rollout``, ``cutoff``, ``turns``, ``evaluation`` and
``margin_scale`` settings).

- a uniform playout to the end (``rollout="random"``, or a game without a rollout policy);
- a playout to the end with the game's rollout policy (``GameDef.rollout_action``);
- a policy playout cut off after ``cutoff`` actions or where the ``turns``-th turn out of
  the tree ends (a turn ends where another seat than the last to decide is to decide),
  scored there by the game's hand-written evaluation (``GameDef.evaluate``), its learned
  one (``GameDef.evaluate_learned``) or its score margins (``GameDef.scores``: each seat's
  margin against the best other seat through a logistic, ``1 / (1 + exp(-margin /
  margin_scale))``).

Chance events on the way are drawn (``GameDef.sample_chance``).
"""
from libc.math cimport exp
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc

from fagin.engines.abi cimport GameDef, MAX_SEATS, PLAYER_CHANCE, PLAYER_TERMINAL
from fagin.engines.rng cimport Rng, rng_below
from fagin.search.parts cimport LeafValue, part_context, release_nothing

# A cut-off setting of 0 never cuts.
cdef int NEVER = 0x7FFFFFFF


ctypedef struct UniformPlayout:
    int* legal
    int legal_cap


ctypedef void (*Score)(const GameDef* gd, const void* st, double margin_scale, double* out) noexcept nogil


ctypedef struct CutOff:
    int actions               # rollout actions played before the playout is scored
    int turns                 # turns out of the tree ended before it is
    Score score
    double margin_scale


cdef int _uniform(void* ctx, const GameDef* gd, void* st, int last_seat, Rng* rng, double* returns,
                  int64_t* steps) noexcept nogil:
    cdef UniformPlayout* c = <UniformPlayout*>ctx
    cdef int p, n
    cdef int64_t played = 0
    while True:
        p = gd.current_player(st)
        if p == PLAYER_TERMINAL:
            break
        if p == PLAYER_CHANCE:
            gd.apply_action(st, gd.sample_chance(st, rng))
            continue
        # The count is clamped to the buffer: an engine that lists more than it declared
        # is not trusted past it.
        n = gd.legal_actions(st, c.legal)
        if n > c.legal_cap:
            n = c.legal_cap
        if n <= 0:
            return -1
        gd.apply_action(st, c.legal[rng_below(rng, n)])
        played += 1
    gd.returns(st, returns)
    steps[0] = played
    return 0


cdef int _policy(void* ctx, const GameDef* gd, void* st, int last_seat, Rng* rng, double* returns,
                 int64_t* steps) noexcept nogil:
    cdef int p, a
    cdef int64_t played = 0
    while True:
        p = gd.current_player(st)
        if p == PLAYER_TERMINAL:
            break
        if p == PLAYER_CHANCE:
            gd.apply_action(st, gd.sample_chance(st, rng))
            continue
        a = gd.rollout_action(st, rng)
        if a < 0:
            return -1
        gd.apply_action(st, a)
        played += 1
    gd.returns(st, returns)
    steps[0] = played
    return 0


cdef int _cut_off(void* ctx, const GameDef* gd, void* st, int last_seat, Rng* rng, double* returns,
                  int64_t* steps) noexcept nogil:
    cdef CutOff* c = <CutOff*>ctx
    cdef int p, a, turns = 0
    cdef int64_t played = 0
    while True:
        p = gd.current_player(st)
        if p == PLAYER_TERMINAL:
            break
        if p == PLAYER_CHANCE:
            gd.apply_action(st, gd.sample_chance(st, rng))
            continue
        # A turn ends where another seat than the last decider is to decide.
        if last_seat >= 0 and p != last_seat:
            turns += 1
        last_seat = p
        if played >= c.actions or turns >= c.turns:
            c.score(gd, st, c.margin_scale, returns)
            steps[0] = played
            return 1
        a = gd.rollout_action(st, rng)
        if a < 0:
            return -1
        gd.apply_action(st, a)
        played += 1
    gd.returns(st, returns)
    steps[0] = played
    return 0


cdef void _handwritten(const GameDef* gd, const void* st, double margin_scale, double* out) noexcept nogil:
    gd.evaluate(st, out)


cdef void _learned(const GameDef* gd, const void* st, double margin_scale, double* out) noexcept nogil:
    gd.evaluate_learned(gd.learned, st, out)


cdef void _margins(const GameDef* gd, const void* st, double margin_scale, double* out) noexcept nogil:
    cdef double margins[MAX_SEATS]
    cdef int p
    score_margins(gd, st, margins)
    for p in range(gd.num_players(st)):
        out[p] = 1.0 / (1.0 + exp(-margins[p] / margin_scale))



cdef void _release(void* ctx) noexcept nogil:
    free(ctx)


cdef void _release_uniform(void* ctx) noexcept nogil:
    if ctx != NULL:
        free((<UniformPlayout*>ctx).legal)
        free(ctx)


cdef int uniform_playout(LeafValue* out, int legal_cap) except -1:
    """``legal_cap``: room for any list of legal actions the game may give."""
    cdef UniformPlayout* c = <UniformPlayout*>part_context(sizeof(UniformPlayout))
    out.ctx = c
    out.release = _release_uniform
    c.legal = <int*>malloc(sizeof(int) * legal_cap)
    if c.legal == NULL:
        raise MemoryError()
    c.legal_cap = legal_cap
    out.value = _uniform
    return 0


cdef int policy_playout(LeafValue* out) except -1:
    out.ctx = NULL
    out.release = release_nothing
    out.value = _policy
    return 0


cdef int cut_off_playout(LeafValue* out, int cutoff, int turns, str evaluation, double margin_scale) except -1:
    """A policy playout cut off after ``cutoff`` actions (0: never) or ``turns`` turns (0: never),
    scored by ``evaluation`` ("handwritten", "learned" or "margin")."""
    cdef CutOff* c = <CutOff*>part_context(sizeof(CutOff))
    out.ctx = c
    out.release = _release
    c.actions = cutoff if cutoff > 0 else NEVER
    c.turns = turns if turns > 0 else NEVER
    c.margin_scale = margin_scale
    c.score = _handwritten
    if evaluation == "learned":
        c.score = _learned
    elif evaluation == "margin":
        c.score = _margins
    out.value = _cut_off
    return 0
