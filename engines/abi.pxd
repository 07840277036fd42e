# cython: language_level=3
"""The engine ABI: one function table every game implements over a POD state.

This file holds *types only* (plus constants).  Each Cython module cimports it
(``from fagin.engines.abi cimport ...``) for the layout of ``GameDef``; the table
itself travels between modules at run time inside a PyCapsule named
``GAMEDEF_CAPSULE``, so the search is compiled knowing no game and a game is added
without rebuilding it.  (Modules may cimport each other's functions by their
package names, see docs/architecture.md; a game's table is data, chosen at run time.)

A state is a fixed-size plain-old-data struct of ``state_size`` bytes: no
pointers, no Python objects, so that a copy is one ``memcpy`` and the search
loop never needs the GIL.
"""
from libc.stdint cimport uint64_t
from fagin.engines.rng cimport Rng

cdef enum:
    # Values returned by current_player() besides a seat number.
    PLAYER_CHANCE = -1
    PLAYER_TERMINAL = -2
    # Largest number of seats any engine may have; sizes the returns buffers.
    MAX_SEATS = 8

# The shapes of the table's functions, by what they do with a state (the room kit's
# game_def takes a room's functions through them, engines/room.pxd).
ctypedef int (*StateInt)(const void* st) noexcept nogil                 # num_players, current_player
ctypedef int (*StateActions)(const void* st, int* out) noexcept nogil   # legal_actions
ctypedef void (*StateApply)(void* st, int action) noexcept nogil
ctypedef int (*StateChances)(const void* st, int* actions, double* probs) noexcept nogil
ctypedef int (*StateDraw)(const void* st, Rng* rng) noexcept nogil      # sample_chance, a player's action
ctypedef void (*StateValues)(const void* st, double* out) noexcept nogil  # returns, evaluations, scores, features
# The learned entries read the room's model, which the table carries (`learned`).
ctypedef void (*ModelValues)(const void* model, const void* st, double* out) noexcept nogil  # evaluate_learned
ctypedef bint (*ModelMaybeValues)(const void* model, const void* st, double* out) noexcept nogil  # margins_learned
ctypedef void (*StateResample)(void* st, int observer, Rng* rng) noexcept nogil
ctypedef uint64_t (*StateKey)(const void* st, int player) noexcept nogil
ctypedef int (*StateMakeCurrent)(void* st, int seat) noexcept nogil
ctypedef void (*StateCounts)(const void* st, int observer, int* out) noexcept nogil  # hidden_counts

ctypedef struct GameDef:
    # Static facts about the game.
    const char* game_id
    int state_size              # sizeof the engine's POD state
    int max_players             # largest number of seats with returns
    int num_distinct_actions    # every action id lies in [0, num_distinct_actions)
    int max_legal_actions       # bound on legal_actions() and chance_outcomes() counts
    int max_decision_actions    # bound on legal_actions() at a seat's decision (sizes search nodes)
    int max_game_length         # bound on the number of actions from any state to the end

    # Seats with returns in this state (the player count of this game).
    int (*num_players)(const void* st) noexcept nogil
    # The seat to act, PLAYER_CHANCE or PLAYER_TERMINAL.
    int (*current_player)(const void* st) noexcept nogil
    # Legal actions of the current player (or chance outcomes' ids), ascending;
    # returns their count.
    int (*legal_actions)(const void* st, int* out) noexcept nogil
    # Applies a legal action (or chance outcome); callers guarantee legality.
    void (*apply_action)(void* st, int action) noexcept nogil
    # Exact chance distribution at a chance node; returns the outcome count.
    int (*chance_outcomes)(const void* st, int* actions, double* probs) noexcept nogil
    # Draws one chance outcome at a chance node (the fast path for search).
    int (*sample_chance)(const void* st, Rng* rng) noexcept nogil
    # Per-seat returns of a terminal state, written to out[0:num_players].
    void (*returns)(const void* st, double* out) noexcept nogil
    # Resamples (or forgets) everything `observer` cannot see.  Must leave the
    # observer's infoset key and legal actions unchanged.
    void (*determinize)(void* st, int observer, Rng* rng) noexcept nogil
    # 64-bit key of the information set of `player`: equal for two states iff
    # that player cannot tell them apart (up to hash collisions).
    uint64_t (*infoset_key)(const void* st, int player) noexcept nogil
    # In a simultaneous phase, makes `seat` the next to decide (if it has a
    # decision pending).  Returns 1 if `seat` is now the current player, 0 if
    # it has no decision pending.  Never changes any infoset key.
    int (*make_current)(void* st, int seat) noexcept nogil
    # Optional (NULL: uniform random): a cheap default policy for the search's
    # rollouts; returns one of the current player's legal actions at a
    # decision.  It may read the whole (determinized) state.
    int (*rollout_action)(const void* st, Rng* rng) noexcept nogil
    # Optional (NULL: none): an estimate of each seat's return in a
    # non-terminal state, written to out[0:num_players] on the scale of
    # returns().  With it and a positive `rollout_depth`, a search's "policy"
    # rollouts stop after that many rollout actions and take this estimate
    # instead of playing to the end (long games, where a playout's result is
    # mostly noise).
    void (*evaluate)(const void* st, double* out) noexcept nogil
    int rollout_depth
    # Optional (NULL: the game reports no scores): each seat's score in the
    # game's own units (London VP, Oliver Twist pounds, ...), written to
    # out[0:num_players]: the final score at a terminal state, the score as it
    # stands otherwise (where a "policy" rollout stopped early).  Read by an
    # analysis search (score margins, see search/analysis.py; at a cut-off
    # `margins_learned` comes first), by the "margin" evaluation of a cut-off
    # and by the trainer (final margins, python -m fagin.train).
    void (*scores)(const void* st, double* out) noexcept nogil
    # Optional (NULL: the game hides nothing a determinization fixes): writes,
    # for every place `observer` cannot see into and every item, the copies of
    # the item there to out[place * belief_items + item] (every cell written,
    # zeros included).  Called on determinized states by a search asked for
    # beliefs only; the engine's Python side names the places and items
    # (`belief_layout`).  Must read only the places it reports, so that twin
    # positions give the same counts for the same determinization.
    void (*hidden_counts)(const void* st, int observer, int* out) noexcept nogil
    int belief_places
    int belief_items
    # Optional (NULL: none): a learned estimate of each seat's return, as
    # `evaluate` (same scale, same use at a policy rollout's cut-off), fitted
    # to self-play positions and shipped as data in the game's room.  A
    # search takes it instead of `evaluate` when asked (ISMCTS
    # evaluation="learned").  Called with the table's `learned`, the room's
    # model, first: the learned kit's one function serves every room.
    void (*evaluate_learned)(const void* model, const void* st, double* out) noexcept nogil
    # Optional (NULL: none): a learned estimate of each seat's final score
    # margin (its final score less the best other seat's, in the units of
    # `scores`) in a non-terminal state, written to out[0:num_players]; False,
    # out untouched, for a player count the room's model holds none for.  An
    # analysis reports it where a playout stopped early instead of the margin
    # as it stands.
    bint (*margins_learned)(const void* model, const void* st, double* out) noexcept nogil
    # What the two learned entries read (NULL: none): the room's model, which the
    # learned kit loads and owns (engines/learned.pxd, `LearnedRoom`).
    const void* learned
    # Optional (NULL, 0: none): the inputs of the learned evaluation, every
    # seat's `num_features` values, seat p's at out[p * num_features:], as the
    # trainer (python -m fagin.train), `evaluate_learned` and `margins_learned`
    # read them.  The
    # room names them (FEATURE_NAMES) in the same order.
    void (*features)(const void* st, double* out) noexcept nogil
    int num_features
    # Optional (NULL: the room's heuristic bot is Python): the rule-based
    # player's action for the seat to act at a decision, ties broken by `rng`
    # (the heuristic bot's choice, without the rollout policy's random share).
    int (*heuristic_action)(const void* st, Rng* rng) noexcept nogil
    # Optional (NULL: `infoset_key` tells apart everything a seat's view shows): a 64-bit key
    # of what `seat`'s view (the room's view(data, seat)) shows, equal for two states iff
    # their views for the seat are equal (up to hash collisions).  Where a game merges
    # identical cards into one action (London, LN-93), its infoset key does not tell their
    # copies apart but its view does; a game record's checks read this key, so that a seat's
    # view of a record replays to the very copies the seat saw (engines/records.py).
    uint64_t (*view_key)(const void* st, int seat) noexcept nogil

# Name of the PyCapsule that carries a `GameDef*`.
cdef extern from *:
    """
    #define FAGIN_GAMEDEF_CAPSULE "fagin.GameDef"
    """
    const char* GAMEDEF_CAPSULE "FAGIN_GAMEDEF_CAPSULE"

