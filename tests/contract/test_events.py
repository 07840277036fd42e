"""Events, for every registered game: what each seat is told of every transition.

Over seeded random playouts of every configuration the contract suite plays, at a sample
of transitions (all of them in short games, the last always):

* every event has a non-empty label and a typed form the game's ``<Game>Event`` message
  holds (it goes through the API's ``Event``), and the seat that decided is told something;
* a seat's events depend only on what it can know: from a twin of the position (a
  determinization for that seat, which differs only in what the seat cannot see), every
  transition that leaves the seat in the same information set (equal infoset keys before
  and after, and equal views after; at the end also equal returns, public once a game is
  over) gives it equal events. The twin's action may differ from the real one: a secret card played, a card
  drawn into another hand.
* events are complete: whatever differs between a seat's view before and after a transition
  is told by that transition's events to that seat. The difference is structural
  (``fagin.engines.game.view_changes``: the changed leaf paths, and for a list such as a
  hand the items added and removed), and each room says how a difference is matched to its
  events in its ``events.py``'s ``VIEW_CHANGES``: for each view path, the typed event
  fields that must carry what changed (the card expended, the seat's new money or its
  change), or why the path is bookkeeping no event need tell (whose turn it is, a derived
  total). A path no entry covers is untold, so a new view field cannot go untold silently.
"""
from __future__ import annotations

import importlib
import random

import pytest

from fagin.engines import load_game
from fagin.engines.game import Move, bookkeeping, random_moves, transition_events, untold_changes
from fagin.server import codec

from .test_game_contract import PLAYOUTS, configurations

# Transitions whose events are checked per playout (and every one of a shorter game), and
# twins tried at each, with up to this many of the twin's actions each.
CHECKED_STEPS = 40
# Transitions whose events are checked complete per playout (a cheaper check, so more of them).
COMPLETE_STEPS = 160
TWINS = 2
TWIN_ACTIONS = 3


def _check_labels(game, events, where):
    for e in events:
        assert isinstance(e["label"], str) and e["label"].strip(), f"{where}: an event without a label: {e}"
        msg = codec.encode_event(game, e)
        assert msg.label == e["label"] and msg.WhichOneof("typed") == game.id, f"{where}: {e}"


def check_twins(state, action, child, seat, events, rng, where):
    """The seat's events from twins of ``state`` that it cannot tell from the real
    transition equal ``events``; returns how many such twin transitions were compared."""
    compared = 0
    actor = None if state.is_chance_node() else state.current_player()
    for _ in range(TWINS):
        twin = state.determinize(seat, rng.getrandbits(63))
        if actor is None:
            if not twin.is_chance_node():
                continue
            candidates = [a for a, _ in twin.chance_outcomes()]
        else:
            if actor not in twin.pending_seats():
                continue
            twin = twin.with_seat_to_act(actor)
            candidates = twin.legal_actions()
        picks = ([action] if action in candidates else []) + rng.sample(candidates, min(TWIN_ACTIONS, len(candidates)))
        for b in picks:
            after = twin.child(b)
            if after.infoset_key(seat) != child.infoset_key(seat) or after.view(seat) != child.view(seat):
                continue
            if child.is_terminal() and (not after.is_terminal() or after.returns() != child.returns()):
                continue
            assert twin.events(b, after, seat) == events, \
                f"{where}: seat {seat} is told differently of a transition it cannot tell apart " \
                f"(action {action} here, {b} in the twin)"
            compared += 1
    return compared


def check_complete(game_id, move, seat, events, where):
    """Every change in the seat's view is told by its events, as the room's VIEW_CHANGES says."""
    rules = importlib.import_module(f"fagin.engines.{game_id}.events").VIEW_CHANGES
    before, action = move.before, move.action
    untold = untold_changes(move, seat, events, rules)
    assert not untold, (f"{where}: seat {seat} is not told of changes in its view "
                        f"(action {before.action_label(action)!r}): "
                        + "; ".join(f"{c!r}, {why}" for c, why in untold)
                        + f"; its events: {[e['label'] for e in events]}")


def play_and_check(game_id, players, options, playout, rng=None):
    """Plays one seeded random game, checking events at a sample of its transitions;
    returns the number of twin transitions compared."""
    game = load_game(game_id)
    rng = rng or random.Random(f"events/{game_id}/{players}/{sorted(options.items())}/{playout}")
    path = [(mover, action, after) for _, mover, action, after
            in random_moves(game.new_initial_state(players, **options), rng)]
    step = max(1, len(path) // CHECKED_STEPS)
    complete_step = max(1, len(path) // COMPLETE_STEPS)
    compared = 0
    for i, (before, action, after) in enumerate(path):
        twins = not i % step or i == len(path) - 1
        if not twins and i % complete_step:
            continue
        where = f"{game_id} {players}p {options} playout {playout} step {i}"
        move = Move(before, action, after)
        for seat in range(before.num_players):
            # As State.events writes them, with the transition's views shared among seats.
            events = transition_events(before, action, after, seat, move)
            _check_labels(game, events, where)
            check_complete(game_id, move, seat, events, where)
            if seat == before.current_player():
                assert events, f"{where}: seat {seat} decided and is told nothing"
            if twins:
                compared += check_twins(before, action, after, seat, events, rng, where)
    return compared


@pytest.mark.parametrize("game_id, players, options", list(configurations()))
def test_events_tell_each_seat_only_what_it_may_know(game_id, players, options):
    compared = sum(play_and_check(game_id, players, options, playout) for playout in range(PLAYOUTS))
    assert compared > 0, f"{game_id}: no twin transition was compared"


def test_a_seat_told_a_secret_is_caught(monkeypatch):
    """The check fails for a room whose events leak: Kids of London telling every seat which
    card another put down (KL-23 keeps it secret until the hour's reveal)."""
    from fagin.engines.kids_of_london import events as room

    honest = room.events

    def leaky(move, seat):
        out = honest(move, seat)
        if not move.chance and move.actor != seat:
            out[0] = {**out[0], "label": f"{out[0]['label']} ({move.label})"}
        return out

    monkeypatch.setattr(room, "events", leaky)
    with pytest.raises(AssertionError, match="told differently"):
        play_and_check("kids_of_london", 3, {}, 0)


def test_a_seat_not_told_an_expended_card_is_caught(monkeypatch):
    """The completeness check fails for a room whose events leave out a change the seat
    sees: London not naming the card a seat expends to pay for the card it places (it goes
    face up to the Card Display, open to all)."""
    from fagin.engines.london import events as room

    honest = room.events

    def silent(move, seat):
        out = honest(move, seat)
        if not move.chance and move.typed["kind"] in ("expend", "school_expend"):
            for e in out:
                e["typed"]["changes"] = [{**c, "removed": [x for x in c["removed"] if x != move.typed["card"]]}
                                         if c["place"] == "hand" else c for c in e["typed"].get("changes", ())]
        return out

    monkeypatch.setattr(room, "events", silent)
    with pytest.raises(AssertionError, match=r"not told of changes .*action 'expend .*hand: added \[\], removed"):
        play_and_check("london", 2, {}, 0)


def test_a_view_field_no_room_declares_is_untold():
    """A changed path that VIEW_CHANGES does not cover is reported, not passed over."""
    from fagin.engines.game import view_changes

    class Stub:
        def __init__(self, views):
            self._views = views

        def view_before(self, seat):
            return self._views[0]

        def view_after(self, seat):
            return self._views[1]

    move = Stub(({"money": 1, "turn": 3}, {"money": 2, "turn": 4}))
    assert [repr(c) for c in view_changes(*move._views)] == ["money: 1 → 2", "turn: 3 → 4"]
    untold = untold_changes(move, 0, [], {"turn": bookkeeping("a counter")})
    assert [(c.path, why) for c, why in untold] == [(("money",), "no entry of VIEW_CHANGES covers this path")]
