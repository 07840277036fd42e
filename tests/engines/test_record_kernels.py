"""The engine's kernels behind game records' seat views: ``State.view_key`` (the key of a seat's
view, which a view's checks read), ``State.observation`` (a check), ``State.next_moves_observed``
(the fills of an unseen move) and ``State.sees_next`` (whether a seat sees the next move).

* A view's key is equal for two positions exactly when the seat's views of them are: over the
  positions of random games and their determinizations for each seat (equal views) and for the
  other seats (views that differ), for London, whose key tells apart the copies of identical
  cards that its information-set key merges (LN-93); every other game's is its
  information-set key.
* A check is the same for every position the seat cannot tell apart (its determinizations for
  the seat), is made of the information-set key and, in London, the view's key; the moves
  observed are those whose child gives the check.
* ``sees_next`` gives the verdict of the definition it implements in C, written here once more
  in Python over the rooms' views: over the determinizations of the position for the seat,
  every move possible leads it to a different information set (or, where the engine keys
  views, a different view).
* Bad arguments are refused naming them.
"""
from __future__ import annotations

import json
import random

import pytest

from fagin.engines import GAMES, load_game
from fagin.engines.core import CHANCE
from fagin.engines import records


def _positions(game_id, players, seed, every=1):
    """The positions of a random game, every ``every``-th, the seat to act made current."""
    rng = random.Random(f"kernels/{game_id}/{players}/{seed}")
    state = load_game(game_id).new_initial_state(players)
    out = []
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng.getrandbits(63))
        else:
            state.make_current(rng.choice(state.pending_seats()))
            action = rng.choice(state.legal_actions())
        if k % every == 0:
            out.append(state.clone())
        k += 1
        state.apply(action)
    out.append(state.clone())
    return out


def _view_text(state, seat):
    return json.dumps(state.view(seat), sort_keys=True, default=lambda v: sorted(v, key=repr))


@pytest.mark.long(4)
def test_london_view_key_is_equal_exactly_when_the_view_is():
    keys_of_view, views_of_key = {}, {}
    for players in (2, 4):
        for position in _positions("london", players, 1, every=13):
            for seat in range(players):
                # Equal views (twins for the seat) and different ones (twins for another seat).
                twins = [position] + [position.determinize(s, 11 + s) for s in range(players)]
                for twin in twins:
                    view, key = (players, seat, _view_text(twin, seat)), (players, seat, twin.view_key(seat))
                    keys_of_view.setdefault(view, set()).add(key)
                    views_of_key.setdefault(key, set()).add(view)
    assert all(len(k) == 1 for k in keys_of_view.values()), "one view, two keys"
    assert all(len(v) == 1 for v in views_of_key.values()), "two views, one key"
    # The sample tells copies apart where the information-set key does not.
    assert len(views_of_key) > 500


@pytest.mark.parametrize("game_id", [g for g in GAMES if g != "london"])
def test_a_view_key_is_the_information_set_key_where_the_engine_keys_no_views(game_id):
    game = load_game(game_id)
    assert not game.has_view_key
    for position in _positions(game_id, GAMES[game_id].min_players, 2, every=5):
        for seat in range(position.num_players):
            assert position.view_key(seat) == position.infoset_key(seat)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_check_is_what_the_seat_knows(game_id):
    spec = GAMES[game_id]
    views = load_game(game_id).has_view_key
    ends = 0
    for players in sorted({spec.min_players, spec.max_players}):
        positions = _positions(game_id, players, 4)
        for position in positions[::max(1, len(positions) // 40)] + positions[-1:]:
            for seat in range(players):
                check = position.observation(seat)
                assert records.observation(position, seat) == check
                for k in range(3):
                    assert position.determinize(seat, 100 + k).observation(seat) == check
                if position.is_terminal():
                    # The returns are in it: not the key's alone.
                    ends += 1
                    assert check & ~records._VIEW_BITS != position.infoset_key(seat) & ~records._VIEW_BITS
                elif views:
                    assert check == (position.infoset_key(seat) & ~records._VIEW_BITS) | \
                        (position.view_key(seat) & records._VIEW_BITS)
                else:
                    assert check == position.infoset_key(seat)
    assert ends > 0


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_moves_observed_are_those_whose_child_gives_the_check(game_id):
    spec = GAMES[game_id]
    for players in sorted({spec.min_players, spec.max_players}):
        positions = _positions(game_id, players, 5)
        for position in positions[::max(1, len(positions) // 30)]:
            possible = _possible(position)
            assert position.next_moves_observed(0, None) == (len(possible), possible)
            for a in possible[:3]:
                for seat in range(players):
                    check = position.child(a).observation(seat)
                    want = [b for b in possible if position.child(b).observation(seat) == check]
                    assert a in want
                    assert position.next_moves_observed(seat, check) == (len(possible), want)


def _possible(state):
    if state.is_chance_node():
        return [a for a, q in state.chance_outcomes() if q > 0]
    return state.legal_actions()


def _sees_in_python(before, seat, twins, seed):
    """The definition ``State.sees_next`` implements (engines/records.py's ``sees``), over the
    rooms' views in Python."""
    actor = before.current_player()
    if actor == seat:
        return True
    views = before.game.has_view_key
    seen = {}
    for k in range(twins):
        twin = before.determinize(seat, seed + k)
        if actor != CHANCE and not twin.make_current(actor):
            return False
        for a in _possible(twin):
            child = twin.child(a)
            alike = seen.setdefault(child.infoset_key(seat), [])
            if any(b != a for b, _ in alike):
                if not views:
                    return False
                view = child.view(seat)
                if any(b != a and v == view for b, v in alike):
                    return False
                alike.append((a, view))
            elif not alike:
                alike.append((a, child.view(seat) if views else None))
    return len(seen) > 1 or (actor != CHANCE and len(seen) == 1)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_sees_next_gives_the_verdict_of_its_definition(game_id):
    spec = GAMES[game_id]
    verdicts = set()
    for players in sorted({spec.min_players, spec.max_players}):
        positions = _positions(game_id, players, 3)
        for position in positions[::max(1, len(positions) // 60)]:
            if position.is_terminal():
                continue
            for seat in range(players):
                want = _sees_in_python(position, seat, records.SEEN_TWINS, records._SEEN_SEED)
                assert position.sees_next(seat, records.SEEN_TWINS, records._SEEN_SEED) == want, \
                    f"{game_id} {players}p seat {seat}: {position!r}"
                verdicts.add(want)
    assert True in verdicts


def test_the_kernels_refuse_bad_arguments_naming_them():
    state = load_game("london").new_initial_state(3)
    for seat in (-1, 3):
        with pytest.raises(ValueError, match=r"^seat: seat"):
            state.view_key(seat)
        with pytest.raises(ValueError, match=r"^seat: seat"):
            state.sees_next(seat, 4, 0)
    for twins in (0, 65):
        with pytest.raises(ValueError, match=rf"^twins: {twins}, not in \[1, 64\]"):
            state.sees_next(0, twins, 0)
        with pytest.raises(ValueError, match=r"^seat: seat"):
            state.observation(seat)
        with pytest.raises(ValueError, match=r"^seat: seat"):
            state.next_moves_observed(seat, None)
    # A seed or a check beyond 64 bits is none.
    for beyond in (-1, 1 << 64):
        with pytest.raises(OverflowError):
            state.sees_next(0, 4, beyond)
        with pytest.raises(OverflowError):
            state.next_moves_observed(0, beyond)
