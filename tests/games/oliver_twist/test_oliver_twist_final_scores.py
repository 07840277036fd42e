"""Oliver Twist's final scores (StateStatus.final_scores): money plus the Burglary cards shown at
the end, adding up to the engine's final score (OT-29); the richest win, equal richest all."""
from fagin.engines import GAMES

from .helpers import GIVE_UP, act, position

SPEC = GAMES["oliver_twist"]


def finished(money, kept):
    st = position(night=True, board={}, hands={1: ["bet"]}, active=1, money=money, kept=kept)
    act(st, GIVE_UP)
    assert st.is_terminal()
    return st


def test_the_rulebook_example_money_and_cards():
    """OT-29, the rulebook's example: £63 + 10 + 8 + 7 - 3 = £85."""
    st = finished({0: 63, 1: 60, 2: 10}, {0: [10, 8, 7, -3], 1: [9, 6, 5]})
    scores = SPEC.final_scores(st)
    assert scores.unit == "£" and scores.winners == (0,) and st.returns() == [1.0, 0.0, 0.0]
    assert [(p.name, p.points, p.detail) for p in scores.seat(0).parts] == [
        ("money", 63, ""), ("Burglary cards", 22, "+10 +8 +7 -3")]
    finals = [s["final_score"] for s in st.describe()["seats"]]
    assert [s.total for s in scores.seats] == finals == [85, 76, 10]
    for s in scores.seats:
        assert sum(p.points for p in s.parts) == s.total
    assert scores.explanation == ("Seat 0 wins Oliver Twist with £85, the richest: £63 in money and +22 from "
                                  "Burglary cards (OT-29).")


def test_equal_richest_share_the_win():
    """OT-29 (decision): no tie-break; equal richest all win."""
    st = finished({0: 63, 1: 69, 2: 10}, {0: [10, 8, 7, -3], 1: [9, 6, 5]})
    scores = SPEC.final_scores(st)
    assert scores.winners == (0, 1) and scores.tie_break == ""
    assert scores.explanation == ("Seats 0 and 1 share the win in Oliver Twist with £85 each, the richest; the "
                                  "rules name no tie-break (OT-29).")
