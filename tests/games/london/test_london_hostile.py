"""London's validating constructor under hostile input (the outside tester's pass).

Positions come from seeded random play at 2 to 4 players; each test edits one
real description the way a hostile or careless client could, and checks that
``from_description`` refuses it with a ValueError naming the field — the nogil
engine trusts every state it is given, so a position that could leave the seat
to act with nothing to do must never reach it.  Rulings cited: LN-28 (paying
for a placement), LN-36 (Run City), LN-47 (School).
"""
from __future__ import annotations

import copy
import functools
import random

import pytest

from fagin.engines.registry import load_game

GAME = load_game("london")


@functools.lru_cache(maxsize=None)
def _positions(phase, players=3, want=4, games=40):
    """Up to ``want`` descriptions in ``phase`` met in seeded random games."""
    out = []
    for g in range(games):
        rng = random.Random(f"hostile/{players}/{g}")
        state = GAME.new_initial_state(players)
        while not state.is_terminal() and len(out) < want:
            d = state.describe()
            if d["phase"] == phase and rng.random() < 0.5:
                out.append(d)
                break
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            else:
                state.apply(rng.choice(state.legal_actions()))
        if len(out) >= want:
            break
    assert out, f"no position in phase {phase}"
    return tuple(out)


def _position(phase, players=3, where=lambda d: True):
    for d in _positions(phase, players):
        if where(d):
            return copy.deepcopy(d)
    # A check with no position to run on has checked nothing: it fails, not skips.
    pytest.fail(f"no {phase} position fits: seed more games in _positions")


def _refused(d, field):
    with pytest.raises(ValueError) as info:
        GAME.from_description(d)
    assert str(info.value).startswith(field), str(info.value)
    return str(info.value)


# ------------------------------------------------------------------ shapes

@pytest.mark.parametrize("bad", [["st_pauls"], {"card": "st_pauls"}, 7, None])
def test_a_card_id_that_is_not_a_string_is_refused_by_field(bad):
    """A list or a dict where a card id goes was a TypeError (unhashable), not a ValueError."""
    d = _position("action")
    d["seats"][0]["hand"] = d["seats"][0]["hand"] + [bad]
    _refused(d, "seats[0].hand[")
    d = _position("action")
    d["discard"] = [bad]
    _refused(d, "discard[0]")
    d = _position("action", where=lambda d: any(st["stacks"] for st in d["seats"]))
    seat = next(i for i, st in enumerate(d["seats"]) if st["stacks"])
    d["seats"][seat]["stacks"][0]["cards"][-1]["card"] = bad
    _refused(d, f"seats[{seat}].stacks[0].cards[")
    d = _position("where")
    d["placing"] = bad
    _refused(d, "placing")


@pytest.mark.parametrize("bad", [["city"], {"id": "city"}, 3])
def test_a_borough_id_that_is_not_a_string_is_refused_by_field(bad):
    d = _position("action")
    d["seats"][1]["boroughs"] = [bad]
    _refused(d, "seats[1].boroughs[0]")
    d = _position("action")
    d["underground"] = [bad]
    _refused(d, "underground[0]")


@pytest.mark.parametrize("field, bad", [("card", ["st_pauls"]), ("card", {"x": 1}), ("borough", ["city"])])
def test_a_typed_action_with_a_non_string_id_is_refused_by_field(field, bad):
    kind = "buy" if field == "borough" else "place"
    with pytest.raises(ValueError, match=f"^{field}:"):
        GAME.action_from_typed({"kind": kind, field: bad})


# ------------------------------------------------------------------ dead ends

def _colour(card):
    E = GAME.engine
    return E.CARDS[E.VERSION_INDEX[card]].colour


def test_where_refuses_a_card_its_seat_could_not_pay_for_LN_28_LN_47():
    """Phase where with no card of the placed card's colour left in hand (and no School, no
    Wren waiver, not a Coffee House): "new stack" is legal, then phase pay has nothing."""
    def fits(d):
        stacks = d["seats"][d["active_player"]]["stacks"]
        return (d["placing"] != "coffee_house" and not d["wren_waivers"]
                and not any(c["card"].startswith("school") for s in stacks for c in s["cards"]))
    d = _position("where", where=fits)
    seat = d["seats"][d["active_player"]]
    colour = _colour(d["placing"])
    kept = [c for c in seat["hand"] if _colour(c) != colour]
    d["discard"] = sorted(d["discard"] + [c for c in seat["hand"] if _colour(c) == colour])
    seat.update(hand=kept, hand_known=[], owner_sure=[], hand_size=len(kept))
    assert "could not be paid for" in _refused(d, "placing")


def test_activations_count_every_card_marked_activated_LN_36():
    """Phase run with activations 0 and cards marked activated: once the last activatable
    card is used, "done" (offered only after an activation) never comes."""
    d = _position("run", where=lambda d: d["activations"] > 0)
    d["activations"] = 0
    _refused(d, "activations")


def test_activations_are_bounded_by_the_cards_still_to_activate_LN_36():
    d = _position("run", where=lambda d: any(not c["activated"] for s in d["seats"][d["active_player"]]["stacks"]
                                              for c in s["cards"]))
    d["activations"] = 1000
    _refused(d, "activations")
    d["activations"] = 990
    GAME.from_description(d)


def test_determinize_for_another_seat_keeps_a_placement_payable_LN_28():
    """A world sampled for a seat not to act, while the seat to act is placing a card, must
    leave it a card to pay with: else "new stack" leads to phase pay with no legal action
    (state.py refuses such a world as a description)."""
    rng = random.Random("2/0")
    state = GAME.new_initial_state(2)
    dead = 0
    while not state.is_terminal():
        if state.describe()["phase"] == "where":
            for seed in range(5):
                world = state.determinize(1 - state.current_player(), seed)
                world.apply(GAME.engine.ACTION_NEW_STACK)
                dead += not world.is_terminal() and not world.legal_actions()
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node()
                    else rng.choice(state.legal_actions()))
    assert dead == 0, f"{dead} sampled worlds leave the seat to act nothing to do in phase pay"


def test_a_look_wanting_more_cards_than_the_deck_holds_is_refused_LN_50():
    """Phase draw into University's look with look_target 3 and one card in the deck: after
    that card, the engine asks for another draw from an empty deck (no chance outcome)."""
    d = _position("take_looked")
    d["deck"] = sorted(d["deck"] + d["looked"])
    d.update(looked=[], looked_letters=[], deck_letters=None)
    d["discard"] = sorted(d["discard"] + d["deck"][1:])
    d["deck"] = d["deck"][:1]
    d.update(phase="draw", draw_to="look", look_target=3, draws_left=0, draws_taken=0, draws_min=0)
    _refused(d, "look_target")
    d["look_target"] = 1                            # one card to look at, one in the deck: fine
    state = GAME.from_description(d)
    assert state.is_chance_node() and len(state.legal_actions()) == 1


def test_a_draw_is_bounded_by_the_cards_taken_and_still_due():
    """draws_taken 20 with a card still due was accepted, and the card taken made 21, past
    the range the decoder accepts: a successor whose description was refused (found by
    bench/fuzz_states.py).  The sum of the two is what the draw began with: bounded, and for
    the turn's card without Parliament exactly one (LN-13)."""
    d = _position("source", where=lambda d: d["draw_for"] == "turn")
    d.update(draws_taken=20, draws_left=1, draws_min=0)
    _refused(d, "draws_taken")
    d.update(draws_taken=19, draws_min=None)
    assert "LN-13" in _refused(d, "draws_taken")
    d.update(draws_taken=0)
    state = GAME.from_description(d)
    rng = random.Random(3)
    while state.describe()["phase"] in ("source", "draw"):
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node()
                    else rng.choice(state.legal_actions()))
        assert GAME.from_description(state.describe()).describe() == state.describe()


def _turn_card_position(**kw):
    """A real start-of-turn position (phase source, the turn's card still due) as a dict."""
    from tests.games.london.helpers import turn_start
    d = GAME.from_description(turn_start(**kw).describe()).describe()
    assert d["phase"] == "source" and d["draw_for"] == "turn"
    return d


def test_the_turn_card_stays_compulsory_when_draws_min_is_left_out_LN_13():
    """A start-of-turn position without draws_min read the proto default 0: the engine then
    offered "stop" to a seat without Parliament, skipping the card LN-13 makes compulsory.
    The rules fix draws_min: left out it is derived, given it must match."""
    d = _turn_card_position(display_top=["grocers"])
    assert d["draws_min"] == 1
    d["draws_min"] = None
    state = GAME.from_description(d)
    assert state.describe()["draws_min"] == 1
    assert "stop" not in {state.action_label(a) for a in state.legal_actions()}
    d["draws_min"] = 0
    message = _refused(d, "draws_min")
    assert "LN-13" in message, message


def test_parliament_sets_draws_min_and_the_draw_size_LN_49():
    """With a face-up Parliament (0 to 2 cards) the turn's draw is two cards of which none
    must be taken: derived when left out; any other figure is refused."""
    d = _turn_card_position(stacks={0: [["parliament"]]}, display_top=["grocers"])
    assert (d["draws_min"], d["draws_left"], d["draws_taken"]) == (0, 2, 0)
    d["draws_min"] = None
    state = GAME.from_description(d)
    assert state.describe()["draws_min"] == 0
    assert "stop" in {state.action_label(a) for a in state.legal_actions()}
    d["draws_min"] = 1
    assert "LN-49" in _refused(d, "draws_min")
    d.update(draws_min=None, draws_left=1)          # a Parliament draw is of two cards
    assert "LN-49" in _refused(d, "draws_taken")


def test_no_card_is_due_outside_a_draw_LN_15():
    """Every draw ends with nothing still due; draws_left outside a draw is refused."""
    d = _position("action")
    d["draws_left"] = 1
    _refused(d, "draws_left")


def test_output_only_counts_may_be_left_out_LN_4():
    """building_counters_left and underground_left are output only: a client leaving them out
    (proto3 read them as 0, and the state was refused) gets them derived; a wrong one given is
    still refused."""
    from fagin.server import codec
    d = _position("action", where=lambda d: any(seat["boroughs"] for seat in d["seats"]))
    message = codec.encode_description(GAME, d).london
    for seat in message.seats:
        seat.ClearField("building_counters_left")
    message.ClearField("underground_left")
    message.ClearField("draws_min")
    back = codec.message_to_dict(message)
    assert back["underground_left"] is None and back["seats"][0]["building_counters_left"] is None
    assert GAME.from_description(back).describe() == GAME.from_description(d).describe()
    d["underground_left"] = d["underground_left"] - 1
    _refused(d, "underground_left")


# ------------------------------------------------------------------ random edits (hypothesis)

from hypothesis import given, settings, strategies as st  # noqa: E402

_PHASES = ("action", "play", "where", "pay", "run", "run_cost", "source", "buy", "cut", "prison",
           "underground", "hospital", "swap", "give", "put_back", "take_looked")
_FIELDS = {"phase": list(GAME.engine.PHASES), "activations": [0, 1, 3], "placed": [0, 1], "choices_left": [0, 1, 9],
           "wren_waivers": [0, 2], "draws_left": [0, 1, 20], "draws_taken": [0, 3], "draws_min": [0, 1, 20],
           "look_target": [0, 3], "swap_row": [None, 0, 1], "swapped": [False, True], "last_round": [False, True],
           "turns_left": [None, 0, 1, 3], "active_player": [0, 1, 2], "turns": [0, 299, 2 ** 31 - 1, -1],
           "activating_stack": [None, 0, 2, 99], "effect_stack": [None, 0, 1], "placing_on_stack": [None, 0, 1],
           "action": ["none", "play_cards", "run_city", "buy_land", "take_three"]}
_FLAGS = ("face_down", "placed_this_turn", "activated", "kept")


@pytest.mark.long(5)
@settings(max_examples=40, deadline=None)
@given(phase=st.sampled_from(_PHASES), which=st.integers(0, 3), data=st.data())
def test_edited_positions_are_refused_by_field_or_playable(phase, which, data):
    """One to three edits of a real position (turn fields, card flags, a card moved between
    places): from_description answers a ValueError naming a field, or a position whose seat
    to act can act, at every step of a random playout to the end."""
    found = _positions(phase)
    d = copy.deepcopy(found[which % len(found)])
    for _ in range(data.draw(st.integers(1, 3))):
        edit = data.draw(st.sampled_from(("field", "flag", "move")))
        if edit == "field":
            name = data.draw(st.sampled_from(sorted(_FIELDS)))
            d[name] = data.draw(st.sampled_from(_FIELDS[name]))
        elif edit == "flag":
            cards = [c for seat in d["seats"] for s in seat["stacks"] for c in s["cards"]]
            if cards:
                card = data.draw(st.sampled_from(cards))
                flag = data.draw(st.sampled_from(_FLAGS))
                card[flag] = not card[flag]
        else:
            places = [(d, k) for k in ("deck", "discard", "display_top", "display_bottom")]
            places += [(seat, "hand") for seat in d["seats"]]
            (src, a), (dst, b) = data.draw(st.sampled_from(places)), data.draw(st.sampled_from(places))
            if src[a]:
                dst[b] = dst[b] + [src[a].pop(data.draw(st.integers(0, len(src[a]) - 1)))]
                for seat in d["seats"]:
                    seat.update(hand_known=[], owner_sure=[], hand_size=len(seat["hand"]))
                d["deck_letters"] = None
    try:
        state = GAME.from_description(d)
    except ValueError as e:
        field = str(e).split(":")[0]
        assert field and " " not in field, str(e)
        return
    rng = random.Random(0)
    for _ in range(5000):
        if state.is_terminal():
            return
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.describe()['phase']}"
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node() else rng.choice(legal))
    raise AssertionError("a random playout did not end")


def test_a_finished_game_is_scored_from_its_position_not_from_the_client_LN_75_LN_81():
    """Phase over with made-up final VP and winners: the state scores the position itself, so
    the returns cannot be set by a description."""
    rng = random.Random("over")
    state = GAME.new_initial_state(2)
    while not state.is_terminal():
        state.apply(state.sample_chance(rng.getrandbits(63)) if state.is_chance_node()
                    else rng.choice(state.legal_actions()))
    d = state.describe()
    honest = GAME.from_description(d)
    d["final_vp"] = [v + 50 * (p + 1) for p, v in enumerate(d["final_vp"])]
    d["winners"] = [p for p in range(2) if p not in d["winners"]] or [0]
    made_up = GAME.from_description(d)
    assert made_up.describe()["final_vp"] == honest.describe()["final_vp"]
    assert made_up.returns() == honest.returns()
