"""Liar's Dice's Python side: descriptions, views, validation, labels and typed actions.

The rules themselves are checked against OpenSpiel in
``tests/reference/test_liars_dice_openspiel.py``.
"""
import random

import pytest

from fagin.engines import load_game
from fagin.engines.registry import GAMES


@pytest.fixture(scope="module")
def game():
    return load_game("liars_dice")


def _random_states(game, count, seed):
    """States at every step of seeded random games (chance nodes and the end included)."""
    rng = random.Random(seed)
    for _ in range(count):
        st = game.new_initial_state(2)
        yield st.clone()
        while not st.is_terminal():
            st.apply(rng.choice(st.legal_actions()))
            yield st.clone()


def test_registered_as_a_reference_game():
    spec = GAMES["liars_dice"]
    assert (spec.min_players, spec.max_players, spec.reference) == (2, 2, "liars_dice")
    # OpenSpiel's parameters, with its defaults.
    assert {o.name: o.default for o in spec.options} == \
        {"numdice": 1, "dice_sides": 6, "bidding_rule": "reset-face"}


@pytest.mark.parametrize("options, bid, label, typed", [
    ({}, 7, "bid 2-2", {"kind": "bid", "quantity": 2, "face": 2}),
    ({"numdice": 2}, 7, "bid 2-2", {"kind": "bid", "quantity": 2, "face": 2}),
    ({"numdice": 2, "dice_sides": 4, "bidding_rule": "reset-quantity"}, 7, "bid 4-2",
     {"kind": "bid", "quantity": 4, "face": 2}),
    ({"numdice": 2}, 24, "liar", {"kind": "liar"}),
])
def test_what_an_id_means_depends_on_the_options(options, bid, label, typed):
    game = load_game("liars_dice")
    state = game.new_initial_state(2, **options)
    opts = state.options()
    assert game.action_label(bid, False, opts) == label
    assert game.typed_action(bid, False, opts) == typed
    assert game.action_from_typed(typed, False, opts) == bid


def test_describe_round_trips_through_from_description(game):
    for st in _random_states(game, 60, seed=1):
        back = game.from_description(st.describe())
        assert back == st and back.describe() == st.describe()


def test_view_hides_the_other_seats_dice_and_round_trips(game):
    for st in _random_states(game, 60, seed=2):
        full = st.describe()
        for seat in (0, 1):
            v = st.view(seat)
            other = f"dice{1 - seat}"
            assert v[f"dice{seat}"] == full[f"dice{seat}"] and v["actions"] == full["actions"]
            assert v[other] == [-1] * len(full[other])
            rebuilt = game.from_description(v)
            assert rebuilt.view(seat) == v
            if not st.is_terminal() and not st.is_chance_node():
                assert rebuilt.infoset_key(seat) == st.infoset_key(seat)
                assert rebuilt.legal_actions() == st.legal_actions()


def test_view_does_not_depend_on_the_hidden_dice(game):
    a = game.from_description({"dice0": [2], "dice1": [5], "actions": [3, 7]})
    b = game.from_description({"dice0": [2], "dice1": [1], "actions": [3, 7]})
    assert a.view(0) == b.view(0) and a.infoset_key(0) == b.infoset_key(0)
    assert a.view(1) != b.view(1) and a.infoset_key(1) != b.infoset_key(1)
    assert "5" not in a.render(0).split("seat 1 dice")[1].split(";")[0]


@pytest.mark.parametrize("description, field", [
    ({"dice0": [1, 2]}, "dice0:"),
    ({"dice0": [7]}, "dice0[0]:"),
    ({"dice0": [0]}, "dice0[0]:"),
    ({"dice0": [3], "dice1": [-2]}, "dice1[0]:"),
    ({"dice0": ["3"]}, "dice0[0]:"),
    ({"dice1": [3]}, "dice1:"),                               # seat 0 rolls first
    ({"dice0": [3], "actions": [0]}, "actions[0]:"),          # seat 1 has not rolled
    ({"dice0": [3], "dice1": [4], "actions": [12]}, "actions[0]:"),   # no bid to call yet
    ({"dice0": [3], "dice1": [4], "actions": [5, 5]}, "actions[1]:"),  # bids must rise
    ({"dice0": [3], "dice1": [4], "actions": [5, 4]}, "actions[1]:"),
    ({"dice0": [3], "dice1": [4], "actions": [13]}, "actions[0]:"),
    ({"dice0": [3], "dice1": [4], "actions": [1, 12, 2]}, "actions[2]:"),  # the call ended the game
])
def test_bad_descriptions_are_refused_naming_the_field(game, description, field):
    with pytest.raises(ValueError) as e:
        game.from_description(description)
    assert str(e.value).startswith(field), str(e.value)


def test_a_call_settles_the_last_bid_with_sixes_wild(game):
    # Seat 0 holds 2, seat 1 holds 6 (wild): "two 2s" holds, so the caller (seat 1) loses.
    st = game.from_description({"dice0": [2], "dice1": [6], "actions": [7, 12]})
    assert st.returns() == [1.0, -1.0]
    # "two 3s" does not: seat 0 bid it, seat 1 called, seat 1 wins.
    st = game.from_description({"dice0": [2], "dice1": [6], "actions": [8, 12]})
    assert st.returns() == [-1.0, 1.0]


def test_typed_actions_and_labels_round_trip(game):
    ids = list(range(13))
    assert [game.action_from_typed(game.typed_action(a)) for a in ids] == ids
    assert game.typed_action(7) == {"kind": "bid", "quantity": 2, "face": 2}
    assert game.action_label(7) == "bid 2-2" and game.action_label(12) == "liar"
    assert game.action_label(3) == "bid 1-4"
    # Roll ids coincide with the lowest bids (as in OpenSpiel): a chance outcome says so.
    assert game.action_label(3, chance=True) == "roll 4"
    assert game.typed_action(3, chance=True) == {"kind": "roll", "face": 4}
    assert game.action_from_typed({"kind": "roll", "face": 4}, chance=True) == 3
    # A roll is a chance outcome, a bid a decision: neither is taken for the other.
    with pytest.raises(ValueError, match="^kind: KIND_ROLL is a chance outcome"):
        game.action_from_typed({"kind": "roll", "face": 4})
    with pytest.raises(ValueError, match="^kind: a chance event is next"):
        game.action_from_typed({"kind": "bid", "quantity": 1, "face": 4}, chance=True)
    for bad in (-1, 6, 12):
        with pytest.raises(ValueError):
            game.action_label(bad, chance=True)
    assert len({game.action_label(a) for a in ids}) == 13
    for bad in (-1, 13):
        with pytest.raises(ValueError):
            game.action_label(bad)
        with pytest.raises(ValueError):
            game.typed_action(bad)


@pytest.mark.parametrize("typed, field", [
    ({"kind": None}, "kind:"),
    ({"kind": "raise"}, "kind:"),
    ({"kind": "bid", "quantity": 3, "face": 1}, "quantity:"),
    ({"kind": "bid", "quantity": 1, "face": 0}, "face:"),
    ({"kind": "roll", "face": 7}, "face:"),
])
def test_bad_typed_actions_are_refused_naming_the_field(game, typed, field):
    with pytest.raises(ValueError) as e:
        game.action_from_typed(typed, chance=typed.get("kind") == "roll")
    assert str(e.value).startswith(field)


def test_unsupported_parameters_are_refused(game):
    for kwargs, field in [({"numdice": 6}, "options.numdice:"), ({"dice_sides": 7}, "options.dice_sides:"),
                          ({"bidding_rule": "reset"}, "options.bidding_rule:"), ({"players": 3}, "players:")]:
        with pytest.raises(ValueError) as e:
            game.engine.initial_state_bytes(**kwargs)
        assert str(e.value).startswith(field)


def test_render_and_summary(game):
    st = game.from_description({"dice0": [2], "dice1": [6], "actions": [7]})
    assert st.render() == "Liar's Dice: seat 0 dice 2, seat 1 dice 6; actions 2-2"
    assert st.render(0) == "Liar's Dice: seat 0 dice 2, seat 1 dice ?; actions 2-2"
    assert "2-2" in repr(st)
