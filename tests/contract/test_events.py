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
"""
from __future__ import annotations

import random

import pytest

from fagin.engines import load_game
from fagin.server import codec

from .test_game_contract import PLAYOUTS, configurations

# Transitions whose events are checked per playout (and every one of a shorter game), and
# twins tried at each, with up to this many of the twin's actions each.
CHECKED_STEPS = 40
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


def play_and_check(game_id, players, options, playout, rng=None):
    """Plays one seeded random game, checking events at a sample of its transitions;
    returns the number of twin transitions compared."""
    game = load_game(game_id)
    rng = rng or random.Random(f"events/{game_id}/{players}/{sorted(options.items())}/{playout}")
    state = game.new_initial_state(players, **options)
    path = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng.getrandbits(63))
        else:
            state = state.with_seat_to_act(rng.choice(state.pending_seats()))
            action = rng.choice(state.legal_actions())
        child = state.child(action)
        path.append((state, action, child))
        state = child
    step = max(1, len(path) // CHECKED_STEPS)
    compared = 0
    for i, (before, action, after) in enumerate(path):
        if i % step and i != len(path) - 1:
            continue
        where = f"{game_id} {players}p {options} playout {playout} step {i}"
        for seat in range(before.num_players):
            events = before.events(action, after, seat)
            _check_labels(game, events, where)
            if seat == before.current_player():
                assert events, f"{where}: seat {seat} decided and is told nothing"
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
