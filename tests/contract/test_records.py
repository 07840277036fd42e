"""Game records, for every registered game: complete records and seat's views replay, twins get
one answer, and every kind of bad move is refused naming its index.

* Random complete records of every configuration replay (in C, ``State.replay``) to the very
  position the game reached; each seat's view of a prefix (``fagin.engines.records.seat_view``,
  what ViewRecord answers) replays to a position in the seat's information set there: its
  information-set key, its pending decision and its legal actions are the real ones, and so is its
  view.
* What a seat sees of a move is a function of what it knows: a twin record (the real one with
  moves the seat did not see changed, every move still legal and the seat's information the same
  after each) has the very same view, and the server answers the seat the same for the record, its
  twin and its view, and as for the position itself.
* Every kind of bad move is refused naming its index: an illegal action, by id or typed; a chance
  outcome of no probability; a seat with no decision pending; a decision where chance is next and
  a chance outcome where a seat decides; a move after the end; an unseen move in a complete record;
  a view whose check no deal explains.
"""
from __future__ import annotations

import random

import pytest

from fagin.engines import GAMES, load_game
from fagin.engines import records
from fagin.server import codec
from fagin.server import records as wire
from fagin.server.codec import BadRequest

from .test_game_contract import PLAYOUTS, configurations

# Prefixes of each playout whose views are replayed, and unseen moves a twin changes.
CUTS = 2
TWIN_CHANGES = 3


def _playout(game, players, options, rng):
    """(start, complete moves, the states before each move and the last) of a random game."""
    state = game.new_initial_state(players, **options)
    start, moves, states = state.clone(), [], []
    while not state.is_terminal():
        states.append(state.clone())
        if state.is_chance_node():
            action, seat = state.sample_chance(rng.getrandbits(63)), None
        else:
            seat = rng.choice(state.pending_seats())
            state.make_current(seat)
            action = rng.choice(state.legal_actions())
        moves.append(records.Move(seat, action))
        state.apply(action)
    states.append(state.clone())
    return start, moves, states


def _same_for(seat, got, truth):
    assert records.observation(got, seat) == records.observation(truth, seat)
    assert got.pending_seats() == truth.pending_seats()
    if seat in truth.pending_seats():
        assert got.legal_actions(seat) == truth.legal_actions(seat)
    assert got.view(seat) == truth.view(seat)


#: The configurations whose replays take many seconds (long games whose views are made and
#: replayed for every seat), for the test scheduler.
SLOW = {"london": 12, "oliver_twist": 8}


def _timed(params):
    for p in params:
        seconds = SLOW.get(p.values[0])
        yield pytest.param(*p.values, id=p.id, marks=[pytest.mark.long(seconds)] if seconds else [])


@pytest.mark.parametrize("game_id, players, options", list(_timed(configurations())))
def test_complete_records_and_seat_views_replay(game_id, players, options):
    game = load_game(game_id)
    for playout in range(PLAYOUTS):
        rng = random.Random(f"records/{game_id}/{players}/{sorted(options.items())}/{playout}")
        start, moves, states = _playout(game, players, options, rng)
        assert records.replay(start.clone(), list(moves)) == states[-1]
        for cut in sorted(rng.sample(range(len(moves) + 1), min(CUTS, len(moves) + 1))):
            for seat in range(players):
                view = records.seat_view(start, moves[:cut], seat)
                # The same moves (another seat's the seat could not tell had happened may come
                # after its own), and the seat's own all seen.
                assert sorted(map(repr, (m.seat for m in view))) == sorted(map(repr, (m.seat for m in moves[:cut])))
                assert all(not m.unseen for m in view if m.seat == seat)
                got = records.replay_view(start, view, seat)
                _same_for(seat, got, states[cut])


def _twin(start, moves, seat, rng):
    """A complete record that differs from ``moves`` only in moves ``seat`` did not see and has the
    same view, or None if random tries find none."""
    view = records.seat_view(start, moves, seat)
    unseen = [i for i, m in enumerate(view) if m.unseen]
    current, changed = list(moves), False
    for i in rng.sample(unseen, min(TWIN_CHANGES, len(unseen))):
        before = records.replay(start.clone(), current[:i])
        if current[i].seat is not None:
            before.make_current(current[i].seat)
        others = [a for a in records._possible(before) if a != current[i].action]
        for a in rng.sample(others, min(4, len(others))):
            trial = current[:i] + [records.Move(current[i].seat, a)] + current[i + 1:]
            try:
                records.replay(start.clone(), list(trial))
            except records.RecordError:
                continue
            if records.seat_view(start, trial, seat) == view:
                current, changed = trial, True
                break
    return current if changed else None


def _answer(client, record_msg, seat):
    rec = client.recommend(record=record_msg, seat=seat, iterations=300, seed=11)
    return rec.action.id, [(s.action.id, s.visits, round(s.mean_value, 9), round(s.policy, 9)) for s in rec.actions]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_twin_records_get_one_view_and_one_answer(client, game_id):
    game = load_game(game_id)
    spec = GAMES[game_id]
    compared = 0
    for playout in range(6):
        rng = random.Random(f"twins/{game_id}/{playout}")
        players = rng.randint(spec.min_players, spec.max_players)
        start, moves, states = _playout(game, players, {}, rng)
        decisions = [i for i, s in enumerate(states[:-1]) if not s.is_chance_node()]
        cut = rng.choice(decisions)
        seat = rng.choice(states[cut].pending_seats())
        twin = _twin(start, moves[:cut], seat, rng)
        if twin is None:
            continue
        view = records.seat_view(start, moves[:cut], seat)
        answers = [_answer(client, wire.encode_record(game, players, {}, None, m, None), seat)
                   for m in (moves[:cut], twin)]
        answers.append(_answer(client, wire.encode_record(game, players, {}, None, view, seat), seat))
        position = client.recommend(codec.encode_state(states[cut]), seat, iterations=300, seed=11)
        answers.append((position.action.id, [(s.action.id, s.visits, round(s.mean_value, 9), round(s.policy, 9))
                                             for s in position.actions]))
        assert answers[0] == answers[1] == answers[2] == answers[3], \
            f"{game_id} {players}p seat {seat} at move {cut}: record, twin, view and position answer differently"
        compared += 1
    if not any(s.view(p) != s.describe() for s in states for p in range(s.num_players)):
        pytest.skip(f"{game_id}: nothing is ever hidden")
    assert compared > 0, f"{game_id}: no twin record found"


def _refusal(game, players, moves, viewer=None):
    with pytest.raises(BadRequest) as e:
        wire.decode_record(wire.encode_record(game, players, {}, None, moves, viewer))
    return str(e.value)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_kind_of_bad_move_is_refused_naming_it(game_id):
    game = load_game(game_id)
    spec = GAMES[game_id]
    rng = random.Random(f"bad/{game_id}")
    players = spec.max_players
    start, moves, states = _playout(game, players, {}, rng)
    decision = rng.choice([i for i, s in enumerate(states[:-1]) if not s.is_chance_node()])
    chance = [i for i, s in enumerate(states[:-1]) if s.is_chance_node()]
    before = states[decision].clone()
    seat = moves[decision].seat
    before.make_current(seat)
    illegal = next(a for a in range(game.num_distinct_actions + 1) if a not in before.legal_actions())
    head = moves[:decision]

    def refused(bad, at=decision, viewer=None):
        return _refusal(game, players, head[:at] + bad if at == decision else bad, viewer)

    assert refused([records.Move(seat, illegal)]).startswith(f"record.moves[{decision}].action_id: not legal: ")
    typed = before.typed_action(before.legal_actions()[0])
    msg = refused([records.Move(seat, None, typed)] + [records.Move(seat, None, typed)])
    assert msg.startswith(f"record.moves[{decision + 1}]"), msg
    stuck = [s for s in range(players) if s not in states[decision].pending_seats()]
    if stuck:
        assert refused([records.Move(stuck[0], moves[decision].action)]).startswith(
            f"record.moves[{decision}].seat: seat {stuck[0]} has no decision pending")
    assert refused([records.Move(players, moves[decision].action)]).startswith(
        f"record.moves[{decision}].seat: seat {players} has no decision pending")
    assert refused([records.Move(None, moves[decision].action)]).startswith(
        f"record.moves[{decision}].seat: a decision is next")
    if chance:
        c = chance[0]
        outcomes = [a for a, p in states[c].chance_outcomes() if p > 0]
        impossible = next(a for a in range(game.num_distinct_actions + 1) if a not in outcomes)
        assert _refusal(game, players, moves[:c] + [records.Move(None, impossible)]).startswith(
            f"record.moves[{c}].action_id: not a possible outcome: ")
        assert _refusal(game, players, moves[:c] + [records.Move(0, moves[c].action)]).startswith(
            f"record.moves[{c}].seat: a chance event is next")
    assert _refusal(game, players, moves + [records.Move(0, 0)]) == \
        f"record.moves[{len(moves)}]: the game is already over"
    with pytest.raises(BadRequest) as e:
        wire.decode_record(wire.encode_record(game, players, {}, None, head + [records.Move(seat, unseen=True)], None))
    assert str(e.value) == f"record.moves[{decision}].unseen: a complete record (no viewer) gives every move"
    # A seat's view whose check no deal explains: refused at that move, not before.
    viewer = rng.randrange(players)
    view = records.seat_view(start, moves[:decision + 1], viewer)
    view[decision].check ^= 1
    msg = _refusal(game, players, view, viewer)
    assert msg.startswith(f"record.moves[{decision}]."), msg
