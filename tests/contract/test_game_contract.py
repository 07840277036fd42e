"""The game contract: invariants every registered game must keep.

Run for every game the registry finds, at every player count and with each
option set away from its default, over seeded random playouts.  A new game
gets all of these checks by registering (``engines/<game>/__init__.py``).

What is checked at every state of every playout:

* action ids lie in ``[0, num_distinct_actions)``, ascending, without
  repeats; a decision always has a legal action, within the declared bounds
  (``max_decision_actions`` at a decision, ``max_legal_actions`` anywhere);
* chance outcomes have positive probabilities summing to 1, and the sampler
  only draws listed outcomes;
* every pending seat can be made to act, the current seat is among them;
* ``determinize`` keeps the observer's infoset key, legal actions and view;
* states that differ only in what a seat cannot see (a determinization of
  the full description) give that seat the same infoset key and view;
* ``describe`` and ``view`` round-trip through the validating constructor,
  and through the API's ``GameState`` message (proving the proto matches);
* typed actions round-trip, also through the API's ``Action`` message
  (proving the proto enums match the engine);
* games end within ``max_game_length`` actions, with finite returns.

``FAGIN_CONTRACT_PLAYOUTS`` sets the playouts per configuration (default 2).
"""
from __future__ import annotations

import itertools
import math
import os
import random

import pytest

from fagin.engines import GAMES, load_game
from fagin.server import codec

PLAYOUTS = int(os.environ.get("FAGIN_CONTRACT_PLAYOUTS", "2"))
# Expensive checks (determinize, round trips) run at every state of short
# games and at a sample of states of long ones.
FULL_CHECKS_UP_TO = 40


def _option_variants(spec):
    """The defaults, each option moved away from its default one at a time, and
    every option away from its default at once."""
    yield {}
    combined = {}
    for option in spec.options:
        if isinstance(option.default, bool):
            values = [not option.default]
        elif isinstance(option.default, int):
            lo, hi = _int_range(option)
            values = sorted({lo, hi} - {option.default})
        else:
            accepts = option.accepts
            assert accepts.startswith("one of "), \
                f"{spec.id}: option {option.name} is of a kind the contract suite cannot vary; teach it"
            values = [v.strip() for v in accepts.removeprefix("one of ").split(",")
                      if v.strip() != option.default]
        for v in values:
            yield {option.name: v}
        if values:
            combined[option.name] = values[-1]
    if len(combined) > 1:
        yield combined


def _int_range(option):
    words = option.accepts.split()      # "a whole number from LO to HI"
    return int(words[-3]), int(words[-1])


def configurations():
    for game_id, spec in GAMES.items():
        for players in range(spec.min_players, spec.max_players + 1):
            for options in _option_variants(spec):
                label = ",".join(f"{k}={v}" for k, v in options.items())
                yield pytest.param(game_id, players, options,
                                   id=f"{game_id}-{players}p" + (f"-{label}" if label else ""))


def _check_actions(game, actions, bound, where):
    assert actions == sorted(set(actions)), f"{where}: actions not ascending and unique: {actions}"
    assert all(0 <= a < game.num_distinct_actions for a in actions), \
        f"{where}: action ids outside [0, {game.num_distinct_actions}): {actions}"
    assert len(actions) <= bound, f"{where}: {len(actions)} actions, more than the declared {bound}"


def _check_typed_actions(game, actions, where, options=None):
    for a in actions:
        label = game.action_label(a, False, options)
        assert isinstance(label, str) and label, f"{where}: action {a} has no label"
        typed = game.typed_action(a, False, options)
        assert game.action_from_typed(typed, False, options) == a, f"{where}: typed form of {a} does not round-trip"
        # Through the API's Action message: the proto's fields and enums match the engine.
        msg = codec.encode_action(game, a, False, options)
        assert msg.id == a and msg.label == label
        assert codec.decode_action(game, msg, "action", False, options) == a, \
            f"{where}: Action message of {a}"


def _check_round_trips(game, state, where):
    d = state.describe()
    again = game.from_description(d)
    assert again.describe() == d, f"{where}: describe does not round-trip"
    assert again.current_player() == state.current_player(), f"{where}: round trip changed the mover"
    # Through the API's GameState message.
    _, decoded = codec.decode_state(codec.encode_description(game, d))
    assert decoded.describe() == d, f"{where}: GameState message does not round-trip"
    for seat in range(state.num_players):
        view = state.view(seat)
        seen = game.from_description(view)
        assert seen.view(seat) == view, f"{where}: seat {seat}'s view does not round-trip"
        # A view may forget other seats' hidden pending choices (they are
        # re-decided in search), never the seat's own turn.
        assert (seat in seen.pending_seats()) == (seat in state.pending_seats()), \
            f"{where}: seat {seat}'s view disagrees on whether it may decide"
        assert set(state.pending_seats()) <= set(seen.pending_seats()), \
            f"{where}: seat {seat}'s view drops a seat that may decide"
        _, decoded = codec.decode_state(codec.encode_description(game, view))
        assert decoded.view(seat) == view, f"{where}: seat {seat}'s view through GameState"


def _check_hidden_information(game, state, rng, where):
    """Determinizing for a seat changes nothing that seat knows."""
    rebuilt = game.from_description(state.describe())
    for seat in range(state.num_players):
        seed = rng.getrandbits(63)
        world = state.determinize(seat, seed)
        assert world.infoset_key(seat) == state.infoset_key(seat), \
            f"{where}: determinize changed seat {seat}'s infoset key"
        assert world.view(seat) == state.view(seat), f"{where}: determinize changed seat {seat}'s view"
        # Others' secret pending choices may be forgotten (re-decided in search);
        # the observer's own turn may not change, nor may a deciding seat vanish.
        assert (seat in world.pending_seats()) == (seat in state.pending_seats()), \
            f"{where}: determinize changed whether seat {seat} decides"
        assert set(state.pending_seats()) <= set(world.pending_seats()), \
            f"{where}: determinize dropped a seat that may decide"
        if seat in state.pending_seats():
            assert world.legal_actions(seat) == state.legal_actions(seat), \
                f"{where}: determinize changed seat {seat}'s legal actions"
        # Two positions that differ only in what the seat cannot see, both
        # built from descriptions: the same infoset key and the same view.
        other = game.from_description(world.describe())
        assert other.infoset_key(seat) == rebuilt.infoset_key(seat), \
            f"{where}: positions differing only in what seat {seat} cannot see have different keys"
        assert other.view(seat) == rebuilt.view(seat)


def _check_state(game, state, rng, full, where):
    player = state.current_player()
    if state.is_terminal():
        returns = state.returns()
        assert len(returns) == state.num_players and all(math.isfinite(r) for r in returns), \
            f"{where}: bad returns {returns}"
        assert state.pending_seats() == []
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        ids = [a for a, _ in outcomes]
        _check_actions(game, ids, game.max_legal_actions, where)
        assert ids == state.legal_actions(), f"{where}: chance outcomes differ from legal actions"
        assert outcomes and all(p > 0 for _, p in outcomes), f"{where}: empty or zero-probability outcomes"
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, f"{where}: probabilities sum to " \
            f"{sum(p for _, p in outcomes)}"
        assert state.sample_chance(rng.getrandbits(63)) in ids, f"{where}: sampled an unlisted outcome"
        assert state.pending_seats() == []
    else:
        pending = state.pending_seats()
        assert player in pending, f"{where}: the current seat {player} is not pending ({pending})"
        for seat in pending:
            legal = state.legal_actions(seat)
            assert legal, f"{where}: seat {seat} is pending with no legal action"
            _check_actions(game, legal, game.max_decision_actions, where + f" seat {seat}")
            if full:
                _check_typed_actions(game, legal, where, state.options() or None)
    if full:
        _check_round_trips(game, state, where)
        _check_hidden_information(game, state, rng, where)


@pytest.mark.parametrize("game_id, players, options", list(configurations()))
def test_game_contract(game_id, players, options):
    game = load_game(game_id)
    for playout in range(PLAYOUTS):
        rng = random.Random(f"{game_id}/{players}/{sorted(options.items())}/{playout}")
        state = game.new_initial_state(players, **options)
        states = [state.clone()]
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                action = state.sample_chance(rng.getrandbits(63))
            else:
                # A random pending seat acts (any of them may, in a simultaneous phase).
                seat = rng.choice(state.pending_seats())
                state = state.with_seat_to_act(seat)
                action = rng.choice(state.legal_actions())
            state.apply(action)
            steps += 1
            assert steps <= game.max_game_length, \
                f"{game_id}: a game ran past max_game_length ({game.max_game_length})"
            states.append(state.clone())
        step = max(1, len(states) // FULL_CHECKS_UP_TO)
        for i, st in enumerate(states):
            full = i % step == 0 or st.is_terminal()
            _check_state(game, st, rng, full, f"{game_id} {players}p {options} playout {playout} step {i}")


@pytest.mark.long(2)
@pytest.mark.parametrize("game_id", list(GAMES))
def test_determinize_varies_what_is_hidden(game_id):
    """Where a seat cannot see something, determinizations do change it (resampled
    or forgotten): a determinize that returned the truth would pass every check
    above while leaking."""
    game = load_game(game_id)
    spec = GAMES[game_id]
    rng = random.Random(game_id)
    varied = hidden_somewhere = False
    for _ in range(20):
        state = game.new_initial_state(spec.max_players)
        while not state.is_terminal() and not varied:
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            for seat in range(state.num_players):
                if state.view(seat) != state.describe():
                    hidden_somewhere = True
                    worlds = {repr(state.determinize(seat, s).describe()) for s in range(8)}
                    varied = varied or len(worlds | {repr(state.describe())}) > 1
            state = state.with_seat_to_act(rng.choice(state.pending_seats()))
            state.apply(rng.choice(state.legal_actions()))
        if varied:
            break
    assert varied or not hidden_somewhere, f"{game_id}: determinize never varies what a seat cannot see"


@pytest.mark.parametrize("game_id", [g for g in GAMES if load_game(g).has_rollout_policy])
def test_rollout_policy_answers_only_legal_actions(game_id):
    """The search plays the policy's answer unchecked, without the GIL: it must be legal
    at every decision (asked several times: it is randomised)."""
    from fagin.search.playouts import rollout_policy_violations
    spec = GAMES[game_id]
    for players in range(spec.min_players, spec.max_players + 1):
        for options in _option_variants(spec):
            state = load_game(game_id).new_initial_state(players, **options)
            checked, illegal = rollout_policy_violations(state, 60, seed=players, asks=3)
            assert checked > 0 and illegal == 0, f"{game_id} {players}p {options}: {illegal} illegal answers"


def test_every_game_has_a_configuration():
    ids = {p.values[0] for p in configurations()}
    assert ids == set(GAMES)


def test_option_variants_cover_each_option():
    for spec in GAMES.values():
        named = set(itertools.chain.from_iterable(v.keys() for v in _option_variants(spec)))
        assert named == {o.name for o in spec.options}, spec.id



@pytest.mark.parametrize("game_id", list(GAMES))
def test_labels_tell_decisions_from_chance_outcomes(game_id):
    """Where a game reuses ids for decisions and chance outcomes (OpenSpiel's games do),
    a label names one of them, never both, and a typed chance outcome round-trips."""
    game = load_game(game_id)
    spec = GAMES[game_id]
    rng = random.Random(game_id)
    # What each chance outcome's typed form plays when given at a decision (forms and readings
    # depend on the game, not on the position, so they are worked out once).
    played_by_chance_form = {}
    for a in range(game.num_distinct_actions):
        chance_form = _typed_or_none(game, a, chance=True)
        if chance_form is not None and chance_form != _typed_or_none(game, a, chance=False):
            played_by_chance_form[a] = _read_as(game, chance_form, chance=False)
    for _ in range(20):
        state = game.new_initial_state(spec.max_players)
        while not state.is_terminal():
            if state.is_chance_node():
                for a, _ in state.chance_outcomes():
                    label = state.action_label(a)
                    assert label == game.action_label(a, chance=True) and label
                    assert "/" not in label, f"{game_id}: chance label {label!r} names two things"
                    assert game.action_from_typed(game.typed_action(a, chance=True), chance=True) == a
                    assert codec.decode_action(game, codec.encode_action(game, a, chance=True), "a",
                                               chance=True) == a
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            state = state.with_seat_to_act(rng.choice(state.pending_seats()))
            legal = state.legal_actions()
            for a in legal:
                assert "/" not in state.action_label(a), f"{game_id}: label of {a} names two things"
                # A decision's typed form given at a chance event is never taken for that
                # outcome, unless the two forms are the same (Goofspiel's cards).
                form = game.typed_action(a)
                assert _read_as(game, form, chance=True) != a or game.typed_action(a, chance=True) == form, \
                    f"{game_id}: decision {a}'s typed form is accepted as a chance outcome"
            for a, got in played_by_chance_form.items():
                # A chance outcome's typed form given at a decision never plays a decision.
                assert got not in legal, f"{game_id}: outcome {a}'s typed form plays decision {got}"
            state.apply(rng.choice(legal))


def _typed_or_none(game, a, chance):
    try:
        return game.typed_action(a, chance=chance)
    except ValueError:
        return None


def _read_as(game, typed, chance):
    """The id ``typed`` names when read at a chance event (``chance``) or a decision; None if refused."""
    try:
        return game.action_from_typed(typed, chance=chance)
    except ValueError:
        return None
