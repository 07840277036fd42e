"""The shared shape check (engines/shape.pyx): what it refuses, in the decoders' words, and what it
leaves to them; through Game.from_description, the one place every description passes."""
import pytest

from fagin.engines import load_game, shape
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import kids_of_london_pb2 as kpb

from ..games.kids_of_london.helpers import position, with_ as _with

KOL = load_game("kids_of_london")
CHARACTERS = ", ".join(v.name for v in kpb.KidsOfLondonState.Character.DESCRIPTOR.values if v.number)
PHASES = ", ".join(v.name for v in kpb.KidsOfLondonState.Phase.DESCRIPTOR.values if v.number)


def _base():
    return position(3, "banker").describe()


def _message(game, d):
    with pytest.raises(ValueError) as e:
        game.from_description(d)
    return str(e.value)


@pytest.mark.parametrize("path, value, message", [
    (("seats", 1, "coins"), -1, "seats[1].coins: must be a whole number from 0 to 1000000, got -1"),
    (("seats", 1, "coins"), 10**6 + 1, "seats[1].coins: must be a whole number from 0 to 1000000, got 1000001"),
    (("seats", 1, "coins"), 2**80, f"seats[1].coins: must be a whole number from 0 to 1000000, got {2**80}"),
    (("seats", 1, "coins"), True, "seats[1].coins: must be a whole number from 0 to 1000000, got True"),
    (("seats", 1, "coins"), 3.0, "seats[1].coins: must be a whole number from 0 to 1000000, got 3.0"),
    (("seats", 1, "coins"), "3", "seats[1].coins: must be a whole number from 0 to 1000000, got '3'"),
    (("players",), None, "players: must be a whole number from 2 to 5, got None"),
    (("players",), 0, "players: must be a whole number from 2 to 5, got 0"),
    (("seats", 0, "hand", 2), 9, "seats[0].hand[2]: must be a whole number from 0 to 8, got 9"),
    (("seats", 0, "card"), -1, "seats[0].card: must be a whole number from 0 to 8, got -1"),
    (("seats",), "abc", "seats: expected a list"),
    (("seats", 2), 7, "seats[2]: expected a mapping"),
    (("seats", 0, "hand"), {"0": 1}, "seats[0].hand: expected a list"),
    (("fictitious",), [], "fictitious: expected a mapping"),
    (("seats", 1, "chosen"), "yes", "seats[1].chosen: expected true or false, got 'yes'"),
    (("seats", 1, "chosen"), 1, "seats[1].chosen: expected true or false, got 1"),
    (("phase",), "dance", f"phase: unknown value 'dance'; expected one of {PHASES}"),
    (("phase",), "unknown_42", f"phase: unknown enum number 42; expected one of {PHASES}"),
    (("phase",), ["choose_card"], f"phase: unknown value ['choose_card']; expected one of {PHASES}"),
    (("character",), "CHARACTER_UNSPECIFIED", f"character: missing; expected one of {CHARACTERS}"),
    (("pile", 1), None, f"pile[1]: missing; expected one of {CHARACTERS}"),
    (("pile", 1), "duke", f"pile[1]: unknown value 'duke'; expected one of {CHARACTERS}"),
    (("last_hour",), {"character": "banker", "cards": [1, 2, 99]},
     "last_hour.cards[2]: must be a whole number from 0 to 8, got 99"),
])
def test_a_bad_shape_is_refused_in_the_decoders_words(path, value, message):
    assert _message(KOL, _with(_base(), path, value)) == message


def test_a_description_that_is_no_mapping_is_refused():
    for d in (None, [], "state", 3):
        assert _message(KOL, d) == "state: expected a mapping"


def test_unset_values_pass_to_the_decoder():
    """None is unset: a number whose range holds 0 (proto3's default), a list, a bool, a message,
    an enum (whether it may be missing is the room's call: here the revealed character)."""
    base = _base()
    assert KOL.from_description(_with(base, ("seats", 1, "chosen"), None)) == KOL.from_description(base)
    d = _with(base, ("seats", 0, "coins"), None)
    assert KOL.from_description(d).describe()["seats"][0]["coins"] == 0
    assert _message(KOL, _with(base, ("character",), None)).startswith(
        "character: missing (phase choose_card needs the revealed character)")


def test_enum_values_may_be_spelt_as_in_the_proto():
    base = _base()
    spelt = _with(_with(base, ("phase",), "PHASE_CHOOSE_CARD"), ("character",), "CHARACTER_banker")
    spelt["pile"] = ["CHARACTER_" + name.upper() for name in base["pile"]]
    assert KOL.from_description(spelt) == KOL.from_description(base)


def test_list_lengths_past_their_annotation_are_refused():
    london = load_game("london")
    from fagin.engines import new_game
    d = new_game("london", 2, seed=3).describe()
    d["deck_top"] = ["st_pauls"] * 4
    assert _message(london, d) == "deck_top: 4 entries, more than the 3 possible"
    d["deck_top"] = ("st_pauls",) * 4              # a tuple is a list too
    assert _message(london, d) == "deck_top: 4 entries, more than the 3 possible"


def test_a_shared_entry_is_checked_once_and_named_where_first_met():
    gk = load_game("gangs_of_kyoto")
    from fagin.engines import new_game
    d = new_game("gangs_of_kyoto", 3, seed=2).describe()
    bad = {**d["deck"][0], "draw": "no"}
    d["deck"] = d["deck"][:3] + [bad] * 4 + d["deck"][7:]
    assert _message(gk, d) == "deck[3].draw: expected true or false, got 'no'"


def test_through_the_server_the_path_is_the_requests():
    """A number a client sends out of its annotated range: the codec's message names the state."""
    msg = codec.encode_description(KOL, _base())
    msg.kids_of_london.seats[1].coins = -1
    with pytest.raises(codec.BadRequest) as e:
        codec.decode_state(msg)
    assert str(e.value) == ("state.kids_of_london.seats[1].coins: must be a whole number from 0 to 1000000, "
                            "got -1")
    msg = codec.encode_description(KOL, _base())
    msg.kids_of_london.pile[0] = 99                 # an enum number the proto lacks
    with pytest.raises(codec.BadRequest) as e:
        codec.decode_state(pb.GameState.FromString(msg.SerializeToString()))
    assert str(e.value) == f"state.kids_of_london.pile[0]: unknown enum number 99; expected one of {CHARACTERS}"


def test_every_game_has_a_plan_and_no_stray_annotation():
    """Every annotation is well formed: min and max together on whole numbers, max_entries on
    lists (a plan is refused otherwise); only state messages' fields are annotated."""
    from fagin.engines.registry import GAMES
    for game_id in GAMES:
        assert shape.checker(game_id) is not None
        state = shape.state_message(game_id)
        shape.plan(state)
        for field in _fields_outside(pb.Action.DESCRIPTOR.fields_by_name[game_id].message_type, state):
            assert shape.field_shape(field) is None, f"{field.full_name}: only a state's shape is checked"


def _fields_outside(descriptor, state, seen=None):
    """The fields of ``descriptor`` and the messages below it that no state message holds."""
    seen = set() if seen is None else seen
    if descriptor.full_name in seen or descriptor.full_name.startswith(state.full_name):
        return
    seen.add(descriptor.full_name)
    for field in descriptor.fields:
        yield field
        if field.message_type is not None:
            yield from _fields_outside(field.message_type, state, seen)
