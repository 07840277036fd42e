"""The static shape annotated in the game protos ((fagin.v1.shape), proto/fagin/v1/options.proto)
agrees with the engines, for every registered game.

The shared check (engines/shape.pyx) refuses what the annotations rule out, and a room's decoder
no longer checks it: an annotation wider than what the engine holds would let a state through
that its rules never make, one narrower would refuse a real position.  So, for every annotated
field met in positions of random play (full descriptions and views):

* a value at each bound is not refused for its range (the room may refuse it for a rule that
  ties it to other fields), a value one past is refused naming the field;
* a list of ``max_entries`` entries is not refused for its length, one more is;

and where an engine exports the constant a bound comes from, the two are equal.
"""
from __future__ import annotations

import functools
import random

import pytest

from fagin.engines import GAMES, load_game, shape

from ..games.kids_of_london.helpers import with_ as _set
from .test_hostile_positions import _positions as _states


def _positions(game_id):
    """Full descriptions and a seat's views of positions of random play."""
    out = []
    for state in _states(game_id, random.Random(f"7/{game_id}"), 30):
        out.append(state.describe())
        if not state.is_terminal() and not state.is_chance_node():
            out.append(state.view(state.current_player()))
    return out


def _places(d, descriptor, path=(), text=""):
    """Every (field, path to it, its path's text) in a description, the path as keys and indexes."""
    for field in descriptor.fields:
        where = path + (field.name,)
        name = f"{text}{field.name}"
        yield field, where, name
        value = d.get(field.name)
        if field.message_type is None or not value:
            continue
        if isinstance(value, list):
            for i, entry in enumerate(value[:2]):
                yield from _places(entry, field.message_type, where + (i,), f"{name}[{i}].")
        else:
            yield from _places(value, field.message_type, where, f"{name}.")


@functools.lru_cache(maxsize=None)
def _annotated(game_id):
    """{field full name: (field, annotation, [(description, path, text)])} of a game's state."""
    found = {}
    for d in _positions(game_id):
        for field, where, text in _places(d, shape.state_message(game_id)):
            ann = shape.field_shape(field)
            if ann is None:
                continue
            entry = found.setdefault(field.full_name, (field, ann, []))
            if len(entry[2]) < 4:
                entry[2].append((d, where, text))
    return found


def _error(game, d):
    try:
        game.from_description(d)
    except ValueError as e:
        return str(e)
    return None


CASES = [(game_id, name) for game_id in GAMES for name in sorted(_annotated(game_id))]


def test_every_seed_game_annotates_its_state():
    for game_id in ("fagins_gang", "gangs_of_kyoto", "kids_of_london", "london", "oliver_twist",
                    "kuhn_poker", "leduc_poker"):
        assert any(g == game_id for g, _ in CASES), f"{game_id}: no annotated field met in play"


def _messages(descriptor, seen=None):
    """Every message type reachable from ``descriptor`` (itself included)."""
    seen = {} if seen is None else seen
    if descriptor.full_name not in seen:
        seen[descriptor.full_name] = descriptor
        for field in descriptor.fields:
            if field.message_type is not None:
                _messages(field.message_type, seen)
    return seen.values()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_wires_list_guard_never_refuses_what_an_annotation_allows(game_id):
    """``GameSpec.max_list`` is the wire reader's coarse guard, one bound for every list of a
    game's state and typed action, applied before a byte of them is turned into Python; the
    annotations' ``max_entries`` are each list's own bound, checked after.  The guard must be
    at least every annotated bound, or a list the shape check accepts would be refused on the
    wire with another message."""
    from fagin.v1 import fagin_pb2
    guard = GAMES[game_id].max_list
    roots = [shape.state_message(game_id)]
    typed = fagin_pb2.Action.DESCRIPTOR.fields_by_name.get(game_id)
    if typed is not None:
        roots.append(typed.message_type)
    seen = {}
    for root in roots:
        if root is not None:
            _messages(root, seen)
    for message in seen.values():
        for field in message.fields:
            ann = shape.field_shape(field)
            if ann is not None and ann.HasField("max_entries"):
                assert ann.max_entries <= guard, (
                    f"{field.full_name}: max_entries {ann.max_entries} above {game_id}'s max_list {guard}")


@pytest.mark.parametrize("game_id, name", CASES)
def test_an_annotated_bound_is_the_engines(game_id, name):
    game = load_game(game_id)
    field, ann, places = _annotated(game_id)[name]
    repeated = getattr(field, "is_repeated", None)
    if repeated is None:                                   # protobuf < 5
        repeated = field.label == field.LABEL_REPEATED
    for d, where, text in places:
        if ann.HasField("min"):
            for value, inside in ((ann.min, True), (ann.max, True), (ann.min - 1, False), (ann.max + 1, False)):
                given = [value] if repeated else value
                at = f"{text}[0]" if repeated else text
                refused = f"{at}: must be a whole number from {ann.min} to {ann.max}, got {value}"
                error = _error(game, _set(d, where, given))
                if inside:
                    assert error is None or not error.startswith(refused), f"{game_id}: {error}"
                else:
                    assert error == refused, f"{game_id}: {value} given to {at}: {error}"
        if ann.HasField("max_entries"):
            entries = list(_get(d, where) or [])
            filler = entries[0] if entries else (ann.min if ann.HasField("min") else _filler(field))
            most = ann.max_entries
            longest = (entries + [filler] * most)[:most]
            error = _error(game, _set(d, where, longest))
            assert error is None or "entries, more than" not in error, f"{game_id}: {error}"
            error = _error(game, _set(d, where, longest + [filler]))
            assert error == f"{text}: {most + 1} entries, more than the {most} possible", f"{game_id}: {error}"


def _get(d, where):
    for key in where:
        d = d[key]
    return d


def _filler(field):
    """An entry of a list that is empty in every position met."""
    if field.message_type is not None:
        return {}
    if field.enum_type is not None:       # its first value, as the codec spells it
        zero, first = field.enum_type.values_by_number[0].name, field.enum_type.values_by_number[1].name
        return first[len(zero) - len("UNSPECIFIED"):].lower()
    return "x"


def _bounds(game_id, *path):
    """(min, max) or max_entries of a field of a game's state, by field names from the top."""
    descriptor = shape.state_message(game_id)
    for name in path[:-1]:
        descriptor = descriptor.fields_by_name[name].message_type
    ann = shape.field_shape(descriptor.fields_by_name[path[-1]])
    assert ann is not None, f"{game_id}: {'.'.join(path)} is not annotated"
    return (ann.min, ann.max) if ann.HasField("min") else ann.max_entries


def test_player_counts_are_the_rooms():
    for game_id, spec in GAMES.items():
        field = shape.state_message(game_id).fields_by_name.get("players")
        if field is not None and shape.field_shape(field) is not None:
            assert _bounds(game_id, "players") == (spec.min_players, spec.max_players), game_id


def test_london_bounds_are_its_engines():
    from fagin.engines.london import components, engine as E, state as S
    deck = sum(c.count for c in E.CARDS)
    assert deck == S.FULL_DECK
    for path in (("seats", "hand"), ("seats", "hand_known"), ("seats", "owner_sure"), ("discard",), ("deck",),
                 ("unseen",)):
        assert _bounds("london", *path) == deck, path
    for letter in "abc":
        assert _bounds("london", "deck_letters", letter) == (0, deck)
    assert _bounds("london", "seats", "hand_size") == (0, deck)
    assert _bounds("london", "seats", "stacks") == E.MAX_PLACED_CARDS
    assert _bounds("london", "seats", "boroughs") == _bounds("london", "underground") == len(E.BOROUGHS)
    assert components.board().underground.counters <= len(E.BOROUGHS)
    assert _bounds("london", "deck_top") == _bounds("london", "looked") == 3       # University shows 3 (LN-50)


def test_fagins_gang_bounds_are_its_engines():
    from fagin.engines.fagins_gang import engine as E
    board = E.BOARD
    assert _bounds("fagins_gang", "round") == (0, board["max_rounds"])
    assert _bounds("fagins_gang", "seats", "home") == _bounds("fagins_gang", "seats", "den") == (0, board["urchins"])
    assert _bounds("fagins_gang", "market_sold") == (0, board["market_sell_limit"])
    assert _bounds("fagins_gang", "market_bought") == (0, board["market_buy_limit"])
    last_location = (0, E.LOCATION_COUNT - 1)
    assert _bounds("fagins_gang", "urchins", "location") == _bounds("fagins_gang", "used_locations") == last_location
    assert _bounds("fagins_gang", "setup_step") == last_location
    assert _bounds("fagins_gang", "urchins", "space") == _bounds("fagins_gang", "constables", "space") == \
        (0, E.TOP_SPACE)
    assert _bounds("fagins_gang", "wheel") == (0, E.COLOUR_COUNT - 1)


def test_kids_of_london_bounds_are_its_engines():
    from fagin.engines.kids_of_london import engine as E
    cards = E.CARD_VALUES                                       # cards 0 to 8
    assert _bounds("kids_of_london", "seats", "coins") == _bounds("kids_of_london", "fictitious", "coins") == \
        (0, E.MAX_COINS)
    for path in (("seats", "hand"), ("seats", "card"), ("fictitious", "deck"), ("fictitious", "card"),
                 ("last_hour", "cards")):
        assert _bounds("kids_of_london", *path) == (0, cards - 1), path
    assert _bounds("kids_of_london", "turn") == (0, cards)       # an hour a card, the ninth ends it


def test_oliver_twist_bounds_are_its_engines():
    from fagin.engines.oliver_twist import engine as E
    round_tokens = sum(E.round_count(k) for k in range(E.KIND_COUNT))
    starting = sum(E.start_count(k) for k in range(E.KIND_COUNT))
    cards = sum(E.burglary_count(v) for v in range(E.BURGLARY_VALUE_COUNT))
    for path in (("bag_size",), ("face_down_pool_size",), ("seats", "police_file_size")):
        assert _bounds("oliver_twist", *path) == (0, round_tokens + starting), path
    assert _bounds("oliver_twist", "starting_aside_size") == (0, starting)
    assert _bounds("oliver_twist", "seats", "stash_size") == (0, E.STASH_CAPACITY)
    assert _bounds("oliver_twist", "seats", "character_count") == _bounds("oliver_twist", "character_draw_size") \
        == (0, E.CHARACTER_COUNT)
    assert _bounds("oliver_twist", "seats", "burglary_count") == _bounds("oliver_twist", "burglary_draw_size") \
        == (0, cards)


def test_reference_poker_card_ids_are_their_engines():
    from fagin.engines.kuhn_poker import engine as kuhn
    from fagin.engines.leduc_poker import engine as leduc
    assert _bounds("kuhn_poker", "cards") == (-1, len(kuhn.CARD_NAMES) - 1)       # -1: hidden in a view
    assert _bounds("leduc_poker", "private_cards") == (-1, len(leduc.CARD_NAMES) - 1)
    assert _bounds("leduc_poker", "public_card") == (0, len(leduc.CARD_NAMES) - 1)
