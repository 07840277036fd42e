# cython: language_level=3
"""The room's kit: what every engine does the same way, written once.

``game_def`` fills a room's ``GameDef`` table from its facts and rules functions,
``game_def_knowledge`` and ``game_def_beliefs`` add what a seed game's search may
use besides; ``export_game_def`` wraps the table in the capsule
``fagin.engines.core.Game`` reads (the room's ``GAME_DEF``); ``read_state``
copies a state's bytes into the room's struct, refusing bytes of any other
length before a field is read.  Inline helpers, cimported by the rooms (the
learned evaluation's part of the table comes from ``engines/learned.pxd``).
"""
from cpython.pycapsule cimport PyCapsule_New
from libc.string cimport memcpy, memset

from fagin.engines.abi cimport (GameDef, GAMEDEF_CAPSULE, StateActions, StateApply, StateChances, StateCounts,
                               StateDraw, StateInt, StateKey, StateMakeCurrent, StateResample, StateValues)


cdef inline void game_def(GameDef* gd, const char* game_id, int state_size, int max_players,
                          int num_distinct_actions, int max_legal_actions, int max_decision_actions,
                          int max_game_length, StateInt num_players, StateInt current_player,
                          StateActions legal_actions, StateApply apply_action, StateChances chance_outcomes,
                          StateDraw sample_chance, StateValues returns, StateResample determinize,
                          StateKey infoset_key, StateMakeCurrent make_current) noexcept:
    """Fills a room's table ``gd`` (engines/abi.pxd) with its static facts and the functions of
    its rules, in the order of the table.  The table is a module-level struct, zeroed as C's
    globals are, so every optional field is empty (NULL, 0) until a helper below, called
    before or after this one, fills it."""
    gd.game_id = game_id
    gd.state_size = state_size
    gd.max_players = max_players
    gd.num_distinct_actions = num_distinct_actions
    gd.max_legal_actions = max_legal_actions
    gd.max_decision_actions = max_decision_actions
    gd.max_game_length = max_game_length
    gd.num_players = num_players
    gd.current_player = current_player
    gd.legal_actions = legal_actions
    gd.apply_action = apply_action
    gd.chance_outcomes = chance_outcomes
    gd.sample_chance = sample_chance
    gd.returns = returns
    gd.determinize = determinize
    gd.infoset_key = infoset_key
    gd.make_current = make_current


cdef inline void game_def_knowledge(GameDef* gd, StateDraw rollout_action, StateDraw heuristic_action,
                                    StateValues evaluate, int rollout_depth, StateValues scores,
                                    StateValues features, int num_features) noexcept:
    """What a seed game knows besides its rules: its rollout policy and rule-based player, its
    hand-written evaluation (a cut-off ``rollout_depth`` actions into a playout, 0: none unless a
    search asks), its scores and the learned evaluation's features."""
    gd.rollout_action = rollout_action
    gd.heuristic_action = heuristic_action
    gd.evaluate = evaluate
    gd.rollout_depth = rollout_depth
    gd.scores = scores
    gd.features = features
    gd.num_features = num_features


cdef inline void game_def_beliefs(GameDef* gd, StateCounts hidden_counts, int places, int items) noexcept:
    """A room that counts what a seat cannot see (an analysis's beliefs): ``places`` x ``items`` cells."""
    gd.hidden_counts = hidden_counts
    gd.belief_places = places
    gd.belief_items = items


cdef inline void game_def_view_key(GameDef* gd, StateKey view_key) noexcept:
    """A room whose seats' views show more than their information-set keys tell apart
    (London's copies of identical cards, LN-93): the key of a seat's view."""
    gd.view_key = view_key


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
