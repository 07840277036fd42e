"""Kids of London's final scores (StateStatus.final_scores) follow KL-20 as the engine scores it
(final_standing, the returns' own figures): the richest seats, the fictitious player included,
are stripped; the richest of the others win; nobody wins when every seat ties for the most."""
from fagin.engines import GAMES

from .helpers import GAME

SPEC = GAMES["kids_of_london"]


def finished(coins, fict=None):
    """The position after the ninth hour with these coins (the fictitious player's with 2 seats)."""
    d = {"players": len(coins), "turn": 9, "phase": "over", "pile": [],
         "seats": [{"coins": c, "hand": []} for c in coins]}
    if fict is not None:
        d["fictitious"] = {"coins": fict, "deck": []}
    return GAME.from_description(d)


def test_the_richest_is_stripped_and_the_second_richest_wins():
    """KL-20: seat 2 has the most coins (22) and is stripped to 0; seat 4 (15) wins."""
    st = finished([7, 7, 22, 4, 15])
    scores = SPEC.final_scores(st)
    assert scores.winners == (4,) and st.returns() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert [s.total for s in scores.seats] == [7, 7, 0, 4, 15]
    stripped = scores.seat(2)
    assert [(p.name, p.points) for p in stripped.parts] == [("coins", 22), ("stripped", -22)]
    assert "stripped" in stripped.note and "KL-20" in stripped.note
    for s in scores.seats:
        assert sum(p.points for p in s.parts) == s.total
    assert scores.explanation == ("Seat 4 wins Kids of London with 15 coins, the most after the richest: "
                                  "seat 2 was the richest with 22 coins and was stripped (KL-20).")


def test_the_fictitious_player_is_a_seat_of_the_table():
    """KL-16, KL-20: in the 2-player game the fictitious player (seat 2) is stripped as the
    richest like anyone; if it is second it wins, and a real seat that is not loses."""
    scores = SPEC.final_scores(finished([12, 10], fict=28))
    assert [(s.seat, s.name, s.total) for s in scores.seats] == [
        (0, "seat 0", 12), (1, "seat 1", 10), (2, "the fictitious player", 0)]
    assert scores.winners == (0,)
    assert scores.explanation == ("Seat 0 wins Kids of London with 12 coins, the most after the richest: "
                                  "the fictitious player was the richest with 28 coins and was stripped (KL-20).")
    st = finished([30, 10], fict=20)
    scores = SPEC.final_scores(st)
    assert scores.winners == () and st.returns() == [0.0, 0.0]
    assert scores.explanation.startswith("The fictitious player wins Kids of London with 20 coins")


def test_ties_share_the_win_or_the_stripping():
    """KL-20: tied richest are all stripped, tied second all win; everyone tied: nobody wins."""
    st = finished([9, 9, 5, 5])
    scores = SPEC.final_scores(st)
    assert scores.winners == (2, 3) and [s.total for s in scores.seats] == [0, 0, 5, 5]
    assert scores.explanation == ("Seats 2 and 3 share the win in Kids of London with 5 coins, the most after "
                                  "the richest: seats 0 and 1 were the richest with 9 coins and were "
                                  "stripped (KL-20).")
    scores = SPEC.final_scores(finished([6, 6, 6]))
    assert scores.winners == () and [s.total for s in scores.seats] == [0, 0, 0]
    assert scores.explanation == ("Nobody wins Kids of London: all 3 seats ended with 6 coins, the most, so all "
                                  "were stripped and nobody was left to be second (KL-20).")
