"""A short run of bench/fuzz_states.py: mutated states of every game through the decoders and
validators, no crash and no hang (the full run, a million inputs a game, is the script's)."""
import importlib.util
import os
import random
import sys
import threading
import time
from pathlib import Path

import pytest

from fagin.engines.registry import GAMES, load_game
from fagin.server import codec
from fagin.v1 import fagin_pb2

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "fuzz_states.py"
INPUTS = 500          # per game
TIME_LIMIT_S = 2.0


def _load():
    spec = importlib.util.spec_from_file_location("fuzz_states", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


fuzz = _load()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_mutated_states_never_crash_or_hang(game_id):
    seeds = fuzz.valid_states(game_id, seed=11)
    strings = sorted({v for s in seeds for v in fuzz._strings(fagin_pb2.GameState.FromString(s))})
    outcomes, defects = {}, []
    for i in range(INPUTS):
        start = time.perf_counter()
        kind, data = fuzz.make_input(game_id, seeds, strings, 11, i)
        if data is None:
            continue
        try:
            outcome = fuzz.check(game_id, data, random.Random(i))
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        except fuzz.Defect as e:
            defects.append(f"{game_id}:{i} ({kind}): {e}")
        if time.perf_counter() - start > TIME_LIMIT_S:
            defects.append(f"{game_id}:{i} ({kind}): took {time.perf_counter() - start:.1f} s")
    assert not defects, "\n\n".join(defects[:3])
    # The mutations reach both sides of the decoders.
    assert outcomes.get("accepted", 0) > INPUTS // 20 and outcomes.get("refused", 0) > INPUTS // 4, outcomes


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_played_states_fit_the_games_list_bound(game_id):
    """Every state a playout reaches (and every view of one) is accepted: max_list is no
    tighter than the game, and MAX_STATE_BYTES far from any state in play."""
    for data in fuzz.valid_states(game_id, seed=5):
        codec.decode_state(fagin_pb2.GameState.FromString(data))
        assert len(data) < codec.MAX_STATE_BYTES / 8


def test_a_list_over_the_bound_is_refused_with_its_path_and_a_string_over_its_limit_too():
    london = GAMES["london"].max_list
    msg = fagin_pb2.GameState()
    msg.london.seats.add().stacks.add().cards.add(card="x")
    msg.london.seats[0].stacks[0].cards.extend([msg.london.seats[0].stacks[0].cards[0]] * london)
    with pytest.raises(codec.BadRequest, match=rf"^state\.london\.seats\[0\]\.stacks\[0\]\.cards: "
                                               rf"{london + 1} items, more than this game can ever hold "
                                               rf"\({london}\)"):
        codec.decode_state(msg)
    msg = fagin_pb2.GameState()
    msg.london.seats.add().hand.extend(["school_a_blue", "y" * 10_000])
    with pytest.raises(codec.BadRequest, match=r"^state\.london\.seats\[0\]\.hand\[1\]: 10000 characters"):
        codec.decode_state(msg)


def test_the_harness_counts_a_dead_worker_as_a_crash_and_a_stuck_one_as_a_hang(monkeypatch):
    make_input = fuzz.make_input

    def faulty(game_id, seeds, strings, seed, i):
        if i == 7:
            os._exit(3)                   # as a segfault would end the worker
        if i == 12:
            threading.Event().wait()      # stuck for good
        return make_input(game_id, seeds, strings, seed, i)

    monkeypatch.setattr(fuzz, "make_input", faulty)      # the workers are forked with it
    tally = fuzz.fuzz_game("kuhn_poker", 40, workers=2, seed=0, time_limit=0.2)
    assert [(d[0], d[1]) for d in sorted(tally.defects, key=lambda d: d[1])] == [("crash", 7), ("hang", 12)]
    assert tally.inputs == 40


def test_an_input_slowed_by_a_busy_machine_is_not_a_hang(monkeypatch):
    # An input is timed in the worker's CPU: one whose worker waited (another process had the
    # core, or the run was paused with SIGSTOP) is not a hang.  (Before: timed by the wall
    # clock, a 1M run paused for a benchmark reported four "hangs" that replay in milliseconds.)
    make_input = fuzz.make_input

    def slow(game_id, seeds, strings, seed, i):
        if i == 5:
            time.sleep(0.5)               # waiting, as for a core: no CPU used
        return make_input(game_id, seeds, strings, seed, i)

    monkeypatch.setattr(fuzz, "make_input", slow)
    tally = fuzz.fuzz_game("kuhn_poker", 20, workers=1, seed=0, time_limit=0.2)
    assert tally.defects == [] and tally.inputs == 20


def test_london_placed_count_is_bounded_by_the_display():
    """Found by the fuzzer (london:143280): `placed` up to 1000 was accepted whatever the
    display, and the next placement made a state the decoder refuses."""
    game, rng = load_game("london"), random.Random(3)
    state = game.new_initial_state(2)
    checked = 0
    while not state.is_terminal() and checked < 5:
        d = state.describe()
        active = d["active_player"]
        display = sum(len(st["cards"]) for st in d["seats"][active]["stacks"])
        if display:
            game.from_description({**d, "placed": display})       # as many as the display holds
            with pytest.raises(ValueError, match=rf"^placed: {display + 1} cards placed this Play Cards"):
                game.from_description({**d, "placed": display + 1})
            checked += 1
        state.apply(state.sample_chance(rng.randrange(2**63)) if state.is_chance_node()
                    else rng.choice(state.legal_actions()))
    assert checked == 5
