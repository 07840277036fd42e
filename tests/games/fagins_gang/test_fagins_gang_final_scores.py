"""Fagin's Gang's final scores (StateStatus.final_scores): a seat's parts are FG-24's ranking keys
in order (urchins home, shillings, goods, turn order), read from the engine's own comparison
(final_ranking, rank_key), and the sentence says how the game ended (FG-23 or FG-25) and which key
put the winner above the runner-up."""
from fagin.engines import GAMES

from .test_fagins_gang import E, die, position

SPEC = GAMES["fagins_gang"]


def keys(scores, seat):
    return [(p.name, p.points) for p in scores.seat(seat).parts]


def test_three_urchins_home_win_and_the_runner_up_is_named():
    """FG-23, FG-24: seat 1 brings its third urchin home; seat 0, next, had 2."""
    st = position(players=3, home={0: 2, 1: 3, 2: 0}, shillings={0: 40, 1: 10, 2: 5}, active=2,
                  turns_done=3, phase="patrol")
    st.apply(die(1))
    scores = SPEC.final_scores(st)
    assert st.is_terminal() and scores.winners == (1,) and st.returns() == [0.0, 1.0, 0.0]
    assert scores.unit == "urchins home" and not scores.parts_add_up
    assert [s.total for s in scores.seats] == [2, 3, 0] == st.scores()
    assert keys(scores, 0)[:3] == [("urchins home", 2), ("shillings", 40), ("goods", 0)]
    assert scores.tie_break == ""
    assert scores.explanation == ("Seat 1 wins Fagin's Gang with 3 urchins home; the game ended once a seat had 3 "
                                  "urchins home (FG-23); seat 0, next, had 2 (FG-24).")


def test_level_on_urchins_more_shillings_win():
    """FG-24: level on urchins home, the most shillings win (the runner-up's figure beside)."""
    st = position(players=3, home={0: 3, 1: 3, 2: 0}, shillings={0: 31, 1: 30, 2: 50}, active=2,
                  turns_done=3, phase="patrol")
    st.apply(die(1))
    scores = SPEC.final_scores(st)
    assert scores.winners == (0,)
    shillings = [s["shillings"] for s in st.describe()["seats"]]
    assert scores.tie_break == (f"level with seat 1 on urchins home, seat 0 had more shillings "
                                f"({shillings[0]} to {shillings[1]}) (FG-24)")
    assert scores.explanation.endswith("(FG-23); " + scores.tie_break + ".")


def test_a_full_tie_goes_later_in_turn_order_and_the_round_limit_is_said():
    """FG-24, FG-25: equal home, shillings and goods after the last round: the seat later in the
    round's turn order wins."""
    last = E.BOARD["max_rounds"]
    st = position(players=2, round=last - 1, first_player=1, active=0, turns_done=2, phase="patrol")
    st.apply(die(1))
    scores = SPEC.final_scores(st)
    assert st.is_terminal() and scores.winners == (0,) and st.returns() == [1.0, 0.0]
    assert keys(scores, 0)[3] == ("turn order", 1)           # seat 1 started the round
    assert scores.tie_break == ("level with seat 1 on urchins home, shillings and goods, seat 0 had a later place "
                                "in the round's turn order (1 to 0) (FG-24)")
    assert scores.explanation == (f"Seat 0 wins Fagin's Gang with 0 urchins home; the game ended after round "
                                  f"{last}, the last (FG-25); {scores.tie_break}.")
