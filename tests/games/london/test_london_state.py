"""London's Python side: descriptions, views, the validating constructor, action labels.

Positions come from seeded random play and, for University of London (which random
play almost never builds), from descriptions edited by hand.  Rulings: LN-82 to
LN-88 (what each seat knows), LN-93 (kinds in actions).
"""
from __future__ import annotations

import copy
import random

import pytest

import fagin.engines.london.engine as E
from fagin.engines.core import Game
from fagin.engines.london import GAME
from fagin.engines.london.actions import ACTION_KINDS, RANGE_KINDS

from ...positions import named_ids

GAMEOBJ = Game(E, GAME)


def _positions(players, games=2, seed=0, every=7):
    rng = random.Random(f"{players}/{seed}")
    out = []
    for _ in range(games):
        state = GAMEOBJ.new_initial_state(players)
        step = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            if step % every == 0:
                out.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        out.append(state)
    return out


def _university_positions(players=3):
    """Seat 0 owns a face-up University of London: it looks, keeps one card, puts two back;
    then seat 1 takes the turn's card from the deck (one of those put back, LN-50, LN-85)."""
    state = GAMEOBJ.new_initial_state(players)
    state.resolve_chance(11)
    d = state.describe()
    d["deck"].remove("university_of_london")
    d["deck_letters"]["b"] -= 1
    d["seats"][0]["stacks"].append({"cards": [{"card": "university_of_london"}]})
    d["phase"] = "look"
    state = GAMEOBJ.from_description(d)
    out = [state.clone()]
    rng = random.Random(3)
    state.apply(E.ACTION_LOOK)
    while state.is_chance_node():
        state.apply(state.sample_chance(rng.getrandbits(63)))
    out.append(state.clone())                       # looking (take_looked)
    take = [a for a in state.legal_actions() if E.split_action(a) and E.split_action(a)[0] == "take_looked"]
    state.apply(take[0])
    out.append(state.clone())                       # putting back
    while state.describe()["phase"] == "put_back":
        state.apply(state.legal_actions()[0])
    out.append(state.clone())                       # two cards on top, known to seat 0
    d = state.describe()
    assert len(d["deck_top"]) == 2 and d["uni_owner"] == 0
    d.update(active_player=1, phase="source", draw_for="turn", draws_left=1, draws_taken=0, draws_min=1,
             action="none", swapped=False, swap_row=None)
    state = GAMEOBJ.from_description(d)
    state.apply(E.ACTION_DECK)                      # seat 1 draws a card put back by seat 0
    out.append(state.clone())
    return out


def _check_knowledge(state):
    """LN-82 to LN-88: views round-trip, keep the seat's key, and ignore what it cannot see."""
    rebuilt = GAMEOBJ.from_description(state.describe())
    assert rebuilt.describe() == state.describe()
    for seat in range(state.num_players):
        view = state.view(seat)
        seen = GAMEOBJ.from_description(view)
        assert seen.view(seat) == view
        assert seen.infoset_key(seat) == rebuilt.infoset_key(seat), "LN-88: a view gives the seat's infoset"
        for s in range(3):
            world = state.determinize(seat, s)
            assert world.view(seat) == view, "LN-87: a determinization changes nothing the seat knows"
            twin = GAMEOBJ.from_description(world.describe())
            assert twin.view(seat) == rebuilt.view(seat)
            assert twin.infoset_key(seat) == rebuilt.infoset_key(seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_round_trip_and_keep_the_seats_information_set_LN_82_LN_87_LN_88(players):
    for state in _positions(players, games=1, every=29):
        if state.current_player() >= 0:
            _check_knowledge(state)


def test_university_knowledge_LN_50_LN_85_LN_86():
    positions = _university_positions()
    for state in positions:
        _check_knowledge(state)
    looking = positions[1].describe()
    assert len(looking["looked"]) == 3
    assert positions[1].view(0)["looked"] == looking["looked"], "the active seat sees its look"
    other = positions[1].view(1)
    assert other["looked"] == [] and other["looked_letters"] == looking["looked_letters"]
    put_back = positions[3]
    assert put_back.view(0)["deck_top"] == put_back.describe()["deck_top"], "the owner knows the cards put back"
    assert put_back.view(1)["deck_top"] == [] and len(put_back.view(1)["deck_top_letters"]) == 2
    drawn = positions[4].describe()
    sure = drawn["seats"][1]["owner_sure"]
    assert len(sure) == 1 and sure[0] == put_back.describe()["deck_top"][0]
    assert sure[0] in positions[4].view(0)["seats"][1]["hand"], "LN-85: the owner knows what seat 1 drew"
    assert positions[4].view(2)["seats"][1]["owner_sure"] == []
    assert sure[0] not in positions[4].view(2)["seats"][1]["hand_known"]


def test_a_view_shows_other_hands_known_cards_and_letters_only_LN_84_LN_86():
    state = _positions(3, games=1, every=40)[2]
    d = state.describe()
    for seat in range(3):
        view = state.view(seat)
        assert view["deck"] == [] and sum(view["deck_letters"].values()) == len(d["deck"])
        hidden = len(d["deck"]) + len(d["deck_top"]) * (seat != d["uni_owner"])
        for p, st in enumerate(view["seats"]):
            if p == seat:
                assert st["hand"] == d["seats"][p]["hand"]
                continue
            assert st["hand"] == d["seats"][p]["hand_known"]
            assert st["hand_size"] == d["seats"][p]["hand_size"]
            assert sum(st["hand_hidden"].values()) == st["hand_size"] - len(st["hand"])
            hidden += st["hand_size"] - len(st["hand"])
        assert len(view["unseen"]) == hidden
        assert view["unseen"] == sorted(view["unseen"], key=E.VERSION_INDEX.__getitem__)


def test_enum_values_by_proto_name_are_accepted():
    state = _positions(2, games=1, every=50)[1]
    d = state.describe()
    d["phase"] = "PHASE_" + d["phase"].upper()
    d["action"] = "ACTION_" + d["action"].upper()
    d["deck_top_letters"] = ["LETTER_" + x.upper() for x in d["deck_top_letters"]]
    assert GAMEOBJ.from_description(d) == GAMEOBJ.from_description(state.describe())


def _expect(d, field):
    with pytest.raises(ValueError) as e:
        GAMEOBJ.from_description(d)
    assert str(e.value).startswith(field), str(e.value)


def test_bad_descriptions_name_the_field():
    state = _positions(3, games=1, every=50)[3]
    base = state.describe()
    d = copy.deepcopy(base)
    d["seats"][1]["hand"].append("no_such_card")
    _expect(d, "seats[1].hand[")
    d = copy.deepcopy(base)
    d["discard"].append("st_pauls")                 # one copy too many
    _expect(d, "cards")
    d = copy.deepcopy(base)
    d["seats"][0]["hand_size"] += 1
    _expect(d, "seats[0].hand_size")
    d = copy.deepcopy(base)
    d["players"] = 5
    _expect(d, "players")
    d = copy.deepcopy(base)
    d["seats"][0]["money"] = -1
    _expect(d, "seats[0].money")
    d = copy.deepcopy(base)
    d["phase"] = "nonsense"
    _expect(d, "phase")
    d = copy.deepcopy(base)
    d["underground"] = ["lewisham"]
    _expect(d, "underground[0]")
    d = copy.deepcopy(base)
    d["display_top"] = d["display_top"] + d["deck"][:5]
    del d["deck"][:5]
    d["deck_letters"] = None
    _expect(d, "display_top")
    d = copy.deepcopy(base)
    d["phase"] = "pay"                              # no card being placed
    _expect(d, "placing")
    d = copy.deepcopy(base)
    d["phase"] = "coffee"
    _expect(d, "activating_stack")


def test_every_action_id_has_a_label_and_typed_form_LN_93():
    named = named_ids(GAMEOBJ.action_label, E.NUM_DISTINCT_ACTIONS)
    for a in named:
        label = GAMEOBJ.action_label(a)
        assert label and "/" not in label
        chance = a >= E.ACTION_CHANCE
        assert GAMEOBJ.action_from_typed(GAMEOBJ.typed_action(a, chance), chance) == a
    assert len(named) == 11 + 4 + 20 + 20 + len(RANGE_KINDS) * len(E.KINDS) + len(E.VERSIONS)
    assert RANGE_KINDS == E.RANGES and set(ACTION_KINDS) > set(RANGE_KINDS)


def test_labels_read_like_the_game_LN_93():
    place = E.kind_action("place", E.KIND_OF[E.VERSION_INDEX["st_pauls"]])
    assert GAMEOBJ.action_label(place) == "place St Paul's"
    take = E.kind_action("take_top", E.KIND_OF[E.VERSION_INDEX["grocers"]])
    assert GAMEOBJ.action_label(take) == "take Salters or Vintners or Haberdashers or Grocers from the top row"
    # Any version of a kind names the kind's action.
    assert GAMEOBJ.action_from_typed({"kind": "take_top", "card": "grocers"}) == take
    assert GAMEOBJ.action_from_typed({"kind": "KIND_TAKE_TOP", "card": "salters"}) == take
    assert GAMEOBJ.action_label(E.ACTION_BUY + E.BOROUGH_INDEX["city"]) == "buy City"
    assert GAMEOBJ.action_label(E.ACTION_COUNTER + E.BOROUGH_INDEX["lambeth"]) == "Underground counter in Lambeth"
    assert GAMEOBJ.action_label(E.ACTION_CHANCE + E.VERSION_INDEX["water_works"], True) == "draw Water Works"
    assert GAMEOBJ.action_label(E.ACTION_CHANCE + E.VERSION_INDEX["paupers_c"], True) == "draw Paupers (C)"
    down = E.kind_action("on_stack_down", E.KIND_OF[E.VERSION_INDEX["coffee_house"]])
    assert GAMEOBJ.action_label(down) == "on the stack topped by Coffee House (face down)"
    with pytest.raises(ValueError, match="kind"):
        GAMEOBJ.action_from_typed({"kind": "draw", "card": "st_pauls"})           # a chance outcome
    with pytest.raises(ValueError, match="kind"):
        GAMEOBJ.action_from_typed({"kind": "place", "card": "st_pauls"}, True)    # at a chance event
    with pytest.raises(ValueError, match="card"):
        GAMEOBJ.action_from_typed({"kind": "place", "card": "big_ben"})
    with pytest.raises(ValueError):
        GAMEOBJ.action_label(11)


def test_render_shows_the_table():
    state = _positions(3, games=1, every=60)[2]
    text = state.render()
    assert "Card Display top" in text and "seat 2" in text and "£" in text
    hidden = state.render(0)
    assert "unseen" in hidden
    assert "London" in repr(state) or "players" in repr(state)
