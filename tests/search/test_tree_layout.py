"""ISMCTS nodes sized by their legal actions, and a tree that does not trust the engine past its slots."""
import ctypes
import struct
from types import SimpleNamespace

import pytest

from fagin.engines import new_game
from fagin.search import ismcts
from fagin.search.ismcts import ISMCTS, SearchSettings

NODE_BYTES, SLOT_BYTES = 24, 40


def _fixed_layout_bytes(s, game):
    """What the tree took when every node reserved max_decision_actions slots (16-byte nodes then)."""
    return s.num_nodes * (16 + SLOT_BYTES * game.max_decision_actions)


@pytest.mark.parametrize("game, players, share", [("gangs_of_kyoto", 5, 0.8), ("kids_of_london", 4, 1.0)])
def test_nodes_hold_one_slot_per_legal_action(game, players, share):
    st = new_game(game, players, seed=1)
    seat = st.current_player()
    s = ISMCTS(st, seat, SearchSettings(rollout="random"), 2)
    s.run(iterations=3000)
    assert s.node_actions(seat, s.root_key) == st.legal_actions(seat)
    assert s.num_slots <= s.num_nodes * st.game.max_decision_actions
    in_use = NODE_BYTES * s.num_nodes + SLOT_BYTES * s.num_slots
    assert in_use < s.tree_bytes            # the chunks and the hash table held
    # Decisions with fewer than the largest number of actions pay only for theirs
    # (GK-5: a deal to five seats offers 5, 4, 3, then 2 receivers).
    assert in_use < share * _fixed_layout_bytes(s, st.game)


def test_a_search_of_a_refusal_keeps_two_slots():
    """GK-10: accept or refuse: the node has two slots, not one per seat."""
    from ..games.gangs_of_kyoto import helpers as gk_helpers
    row = [gk_helpers.card(3), gk_helpers.REFUSE]
    st = gk_helpers.position(4, phase="refuse", rows={2: row}, arriving=gk_helpers.card(4), receiver=2,
                             active=0, received=[2], deal=[gk_helpers.card(0), gk_helpers.card(0), gk_helpers.card(1)])
    s = ISMCTS(st, 2, None, 1)
    s.run(iterations=200)
    assert s.node_actions(2, s.root_key) == [5, 6]


# ---------------------------------------------------------------- an engine not to be trusted
# A copy of a real GameDef with some fields changed, in a capsule of its own.
# Layout (engines/abi.pxd): game_id pointer, six ints, then eleven function pointers.
_CAPSULE_NAME = ctypes.create_string_buffer(b"fagin.GameDef")
_GET = ctypes.pythonapi.PyCapsule_GetPointer
_GET.restype, _GET.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_NEW = ctypes.pythonapi.PyCapsule_New
_NEW.restype, _NEW.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
GAMEDEF_BYTES = 8 + 6 * 4 + 11 * 8
MAX_LEGAL, MAX_DECISION, INFOSET_KEY = 20, 24, 8 + 6 * 4 + 8 * 8
KEY_FN = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int)


class _Patched:
    """`state` seen through a patched copy of its game's function table."""

    def __init__(self, state, ints=(), key_fn=None):
        self.real = state
        self.buf = ctypes.create_string_buffer(ctypes.string_at(_GET(state.game.capsule, b"fagin.GameDef"),
                                                                GAMEDEF_BYTES), GAMEDEF_BYTES)
        for offset, value in ints:
            struct.pack_into("i", self.buf, offset, value)
        self.key_fn = key_fn
        if key_fn is not None:
            struct.pack_into("P", self.buf, INFOSET_KEY, ctypes.cast(key_fn, ctypes.c_void_p).value)
        self.game = SimpleNamespace(capsule=_NEW(ctypes.addressof(self.buf), _CAPSULE_NAME, None))

    def _address(self):
        return self.real._address()

    def action_label(self, action):
        return self.real.action_label(action)


def test_an_engine_listing_more_actions_than_it_declares_cannot_overflow_a_node():
    """Declared bounds of 3 actions while the opening lists 9: nodes keep 3 slots, the rest is ignored."""
    real = new_game("kids_of_london", 4, seed=1)
    seat = real.current_player()
    fake = _Patched(real, ints=[(MAX_LEGAL, 3), (MAX_DECISION, 3)])
    s = ISMCTS(fake, seat, SearchSettings(rollout="random"), 1)
    s.run(iterations=3000)
    legal = real.legal_actions(seat)
    assert len(legal) == 9 and s.node_actions(seat, s.root_key) == legal[:3]
    r = s.result()
    assert [x.action for x in r.stats] == legal
    assert sum(x.visits for x in r.stats[:3]) == 3000 and all(x.visits == 0 for x in r.stats[3:])


@pytest.mark.parametrize("selection", ["ucb", "rm", "os"])
def test_colliding_information_sets_never_write_past_a_node(selection):
    """Every information set of a seat hashed to one key: later decisions with
    other actions (a prince choice, fewer cards) find few or no slots; the
    search plays those uniformly and stays in bounds."""
    real = new_game("kids_of_london", 3, seed=2)
    seat = real.current_player()
    fake = _Patched(real, key_fn=KEY_FN(lambda st, player: 12345))
    s = ISMCTS(fake, seat, SearchSettings(selection=selection), 3)
    s.run(iterations=300)
    assert s.num_nodes <= 3 and s.num_slots <= 3 * 9
    assert s.node_actions(seat, s.root_key) == real.legal_actions(seat)
    r = s.result()
    assert r.action in real.legal_actions(seat) and sum(x.visits for x in r.stats) >= 300
