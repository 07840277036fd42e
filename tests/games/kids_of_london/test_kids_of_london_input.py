"""Kids of London positions built by hand: the decoder's checks and messages, choices
made but not shown (KL-23), state bytes, and the text view."""
import pathlib
import subprocess
import sys

import pytest

from fagin.engines.kids_of_london import engine as kol
from fagin.engines.kids_of_london import actions as kol_actions
from fagin.v1 import kids_of_london_pb2 as kpb

from .helpers import GAME, play, position, with_

PRINCE = kol.ACTION_PRINCE
ROOT = pathlib.Path(__file__).resolve().parents[3]


# ------------------------------------------------------------- seat counts

@pytest.mark.parametrize("players", [1, 6, 7, 2**40, -1, True, "3", None])
def test_seat_counts_beyond_the_engine_are_refused_naming_players(players):
    with pytest.raises(ValueError, match="^players: "):
        kol.initial_state_bytes(players)
    with pytest.raises(ValueError, match="^players: "):
        GAME.from_description({**position(3, "banker").describe(), "players": players})


# Offsets in KLState: public_hash (8), coins (6 x 4), hand (6 x 2), committed,
# prince_pick and last_cards (6 each), pile (7), then players, seats, turn, phase.
PLAYERS_AT, SEATS_AT, PHASE_AT = 69, 70, 72


@pytest.mark.parametrize("at, value, field", [
    (PLAYERS_AT, 6, "players"), (PLAYERS_AT, 100, "players"), (PLAYERS_AT, 0xFF, "players"),
    (SEATS_AT, 100, "seats"), (PHASE_AT, 100, "phase"),
])
def test_state_bytes_with_fields_beyond_the_arrays_are_refused(at, value, field):
    """No public call reads raw bytes back (see tests/engines/test_core.py), but the
    engine's own reader still refuses fields that would index past its arrays."""
    good = GAME.new_initial_state(3).to_bytes()
    assert (good[PLAYERS_AT], good[SEATS_AT], good[PHASE_AT]) == (3, 3, 0)   # the layout above
    bad = bytearray(good)
    bad[at] = value
    with pytest.raises(ValueError, match=f"{field}: "):
        kol.describe(bytes(bad))


# ------------------------------------------------------------- enum errors

STATE = kpb.KidsOfLondonState


def _accepted(enum):
    return sorted(name for name in enum.keys() if not name.endswith("_UNSPECIFIED"))


@pytest.mark.parametrize("path, value, field, enum", [
    (("phase",), None, "phase", STATE.Phase),
    (("phase",), "dancing", "phase", STATE.Phase),
    (("phase",), "unknown_42", "phase", STATE.Phase),     # the codec's name for an unknown number
    (("character",), None, "character", STATE.Character),
    (("character",), "duke", "character", STATE.Character),
    (("pile", 0), None, r"pile\[0\]", STATE.Character),
    (("last_hour",), {"character": None, "cards": [1, 2, 3]}, "last_hour.character", STATE.Character),
])
def test_enum_errors_list_the_spelling_a_client_writes(path, value, field, enum):
    d = with_(position(3, "banker").describe(), path, value)
    with pytest.raises(ValueError, match=f"^{field}: ") as e:
        GAME.from_description(d)
    _check_enum_message(str(e.value), value["character"] if isinstance(value, dict) else value, enum)


@pytest.mark.parametrize("typed, field, enum", [
    ({"kind": None}, "kind", kpb.KidsOfLondonAction.Kind),
    ({"kind": "dance"}, "kind", kpb.KidsOfLondonAction.Kind),
    ({"kind": "reveal_character", "character": None}, "character", STATE.Character),
])
def test_typed_action_enum_errors_list_the_spelling_a_client_writes(typed, field, enum):
    with pytest.raises(ValueError, match=f"^{field}: ") as e:
        kol_actions.action_from_typed(typed)
    _check_enum_message(str(e.value), typed.get(field), enum)


def _check_enum_message(msg, value, enum):
    assert "None" not in msg
    if value is None:
        assert msg.split(": ", 1)[1].startswith("missing")
    elif value.startswith("unknown_"):
        assert "unknown enum number 42" in msg
    else:
        assert repr(value) in msg
    # Exactly the names the proto (so its JSON form) accepts.
    assert sorted(msg.split("expected one of ")[1].split(", ")) == _accepted(enum)


def test_the_engine_names_match_the_proto_enums():
    assert sorted(f"PHASE_{p.upper()}" for p in kol.PHASES) == _accepted(STATE.Phase)
    assert sorted(f"CHARACTER_{c.upper()}" for c in kol.CHARACTERS) == _accepted(STATE.Character)
    assert sorted(f"KIND_{k.upper()}" for k in kol_actions.ACTION_KINDS) == _accepted(kpb.KidsOfLondonAction.Kind)


# ------------------------------------------------------------- tile counts

def test_too_many_tiles_of_a_kind_states_the_total():
    d = position(3, "jeweller").describe()
    pile = list(d["pile"])
    pile[pile.index("merchant")] = "jeweller"          # 2 face down + the face-up one
    with pytest.raises(ValueError, match="^pile: jeweller tiles: 2 face down and 1 face up make 3, "
                                         "more than the 2 the game has$"):
        GAME.from_description({**d, "pile": pile})
    d = position(3, "banker").describe()
    pile = list(d["pile"])
    pile[pile.index("merchant")] = "jeweller"          # 3 face down, none up
    with pytest.raises(ValueError, match="^pile: jeweller tiles: 3 face down, more than the 2 the game has$"):
        GAME.from_description({**d, "pile": pile})


# ----------------------------------------------- choices made but not shown

def _with_choices():
    """Positions in a secret choice with some seats chosen, others pending."""
    first = play(position(4, "banker"), 5)                    # seat 0 has chosen
    later = position(4, "banker")
    later.make_current(2)
    later.apply(kol_actions.card_action(3))                           # seat 2 first (KL-22)
    later.make_current(3)
    later.apply(kol_actions.card_action(8))
    two = play(position(2, "banker", fict_card=2), 8)         # 2 players: seat 0 has chosen
    prince = play(position(4, "prince"), 6, 6, 6, 1).apply(PRINCE)   # robber 0 has chosen
    return [first, later, two, prince]


def test_KL_23_a_view_has_the_pending_seats_of_the_full_position():
    """KL-18, KL-23: a seat sees who has chosen; its view, rebuilt, has the same pending seats."""
    for st in _with_choices():
        for seat in range(st.num_players):
            seen = st.view(seat)
            rebuilt = GAME.from_description(seen)
            assert rebuilt.pending_seats() == st.pending_seats()
            assert rebuilt.current_player() == st.current_player()
            assert [i for i, s in enumerate(seen["seats"]) if s["chosen"]] == \
                [i for i, s in enumerate(st.describe()["seats"]) if s["chosen"]]
            assert rebuilt.view(seat) == seen
            # The viewer's own choice is still part of its key; nobody else's is.
            again = GAME.from_description(st.describe())
            assert rebuilt.infoset_key(seat) == again.infoset_key(seat)


def test_KL_19_a_built_position_keys_only_its_public_contents():
    """KL-19: a card put down is not public, so it is no part of the other seats' keys."""
    built = [GAME.from_description(play(position(3, "banker"), card).describe()) for card in (2, 5)]
    fresh = position(3, "banker")
    assert built[0].infoset_key(1) == built[1].infoset_key(1) == fresh.infoset_key(1)
    assert built[0].infoset_key(0) != built[1].infoset_key(0)
    # Face-up cards are public: the same hands, seat 2's 3 or 4 face up (the other played before).
    lone = []
    for up, before in ((3, 4), (4, 3)):
        hands = [list(range(1, 9))] * 2 + [[v for v in range(9) if v != before]]
        lone.append(play(position(3, "banker", turn=1, hands=hands), 8, 8, up).describe())
    assert lone[0]["seats"][2]["hand"] == lone[1]["seats"][2]["hand"]
    keys = [GAME.from_description(d).infoset_key(0) for d in lone]
    assert keys[0] != keys[1]


def test_KL_23_determinizing_keeps_who_has_chosen():
    """KL-23: a determinization forgets other seats' choices but not that they were made."""
    for st in _with_choices():
        for observer in range(st.num_players):
            det = st.determinize(observer, seed=3)
            assert det.view(observer) == st.view(observer)
            assert det.pending_seats() == st.pending_seats()


def test_KL_23_the_next_choice_reopens_hidden_ones():
    """KL-23: a hidden choice cannot be revealed; the next choice applied makes it again."""
    st = play(position(3, "banker"), 5)
    seen = GAME.from_description(st.view(1))
    assert seen.pending_seats() == [1, 2]
    assert seen.describe()["seats"][0] == {"coins": 0, "hand": list(range(9)), "card": None,
                                           "prince_choice": None, "chosen": True}
    seen.make_current(1)
    seen.apply(kol_actions.card_action(3))
    assert seen.pending_seats() == [0, 2]
    assert not seen.describe()["seats"][0]["chosen"]
    play(seen, 5, 1)                                            # seat 0 again, then seat 2
    assert [s["coins"] for s in seen.describe()["seats"]] == [7, 0, 1]
    # The same for a prince choice.
    st = play(position(4, "prince"), 6, 6, 6, 1).apply(PRINCE)
    seen = GAME.from_description(st.view(1))
    assert seen.pending_seats() == [1, 2]
    seen.apply(PRINCE)
    assert seen.pending_seats() == [0, 2]


@pytest.mark.parametrize("make, path, field", [
    # No secret choice in a chance phase, at the end, or at the lone survivor's choice.
    (lambda: GAME.new_initial_state(3), ("seats", 0, "chosen"), r"seats\[0\].chosen"),
    (lambda: play(position(3, "banker"), 8, 8, 3), ("seats", 2, "chosen"), r"seats\[2\].chosen"),
    # Only a robber chooses prince or comedian.
    (lambda: play(position(4, "prince"), 6, 6, 1, 2), ("seats", 3, "chosen"), r"seats\[3\].chosen"),
])
def test_KL_23_chosen_is_refused_where_no_choice_is_made(make, path, field):
    d = make().describe()
    assert GAME.from_description(d)
    with pytest.raises(ValueError, match=f"^{field}: "):
        GAME.from_description(with_(d, path, True))


def test_KL_23_chosen_without_a_card_is_refused_when_the_hand_lacks_it():
    d = position(3, "banker").describe()
    d["seats"][0]["chosen"] = True
    d["seats"][0]["hand"].remove(4)                  # the card taken out of the hand, but not given
    with pytest.raises(ValueError, match=r"^seats\[0\].card: chosen is true but card is missing"):
        GAME.from_description(d)
    with pytest.raises(ValueError, match=r"^seats\[1\].chosen: expected true or false"):
        GAME.from_description(with_(position(3, "banker").describe(), ("seats", 1, "chosen"), "yes"))
    every = position(3, "banker").describe()
    for seat in every["seats"]:
        seat["chosen"] = True
    with pytest.raises(ValueError, match="^seats: every player has put a card down"):
        GAME.from_description(every)


# --------------------------------------------------------------- text view

def test_render_counts_its_nouns():
    st = position(2, "banker", coins=[1, 2], turn=7, hands=[[1, 2], [3, 4]], fict_card=5,
                  fict_coins=1, fict_deck=[6])
    text = st.render()
    assert "seat 0:    1 coin, hand" in text and "seat 1:   2 coins, hand" in text
    assert "fictitious:    1 coin, face-up card 5, 1 card face down" in text
    assert "1 coins" not in text and "1 cards" not in text
    alone = play(position(3, "prince"), 7, 1, 2)
    assert "robbing the prince: seat 0\n" in alone.render() + "\n"
    shared = play(position(4, "prince"), 6, 6, 6, 1).apply(PRINCE)
    assert "robbing the prince: seats 0, 1, 2" in shared.render()
    assert "seat 0:   0 coins, hand 0 1 2 3 4 5 7 8, played 6, has chosen" in shared.render(1)


# ---------------------------------------------------------------- dead code

def test_the_engine_has_no_unused_cython_names(tmp_path):
    src = ROOT / "engines" / "kids_of_london" / "engine.pyx"
    # The engine cimports by run-time names (fagin.engines.abi): setup.py's tree of links,
    # build/cython/fagin/, is where they are found, as in the build itself.
    done = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", str(ROOT / "build" / "cython"), "-X", "warn.unused=True",
                           str(src), "-o", str(tmp_path / "engine.c")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Unused" not in done.stderr + done.stdout, done.stderr
    assert not hasattr(kol, "NUM_DISTINCT_ACTIONS")
