"""London's final scores as the page and the terminal show them (StateStatus.final_scores): the
parts are the engine's own categories (final_scoring, LN-75 to LN-80) and add up to its final VP,
and the sentence names the winners LN-81 found, with the tie-break where one decided."""
from fagin.engines import GAMES
from fagin.engines.london import engine as E

from .helpers import raw, scored

SPEC = GAMES["london"]


def parts(scores, seat):
    return {p.name: p.points for p in scores.seat(seat).parts}


def test_parts_are_the_categories_and_add_up_to_the_final_vp():
    """LN-76, LN-78, LN-79: seat 0 has £40 and 3 loans (2 repaid, £10 left: 3 VP; 1 unpaid: -7),
    boroughs City and Hackney (hand-counted below), 3 VP counters and 14 poverty against seat 1's
    2 (12 above the fewest: the table's 21)."""
    st = scored(money={0: 40, 1: 0}, loans={0: 3}, vp={0: 3}, poverty={0: 14, 1: 2},
                boroughs={"city": 0, "hackney": 0}, underground=("hackney",))
    scores = SPEC.final_scores(st)
    mine = parts(scores, 0)
    boroughs = E.final_scoring(st.to_bytes())[0]["borough_vp"]
    assert mine == {"VP counters": 3, "buildings": 0, "boroughs": boroughs, "Underground": 2, "money": 3,
                    "unpaid loans": -7, "poverty": -21}
    for seat in (0, 1):
        assert sum(parts(scores, seat).values()) == scores.seat(seat).total == raw(st)["final_vp"][seat]
    assert scores.unit == "VP" and scores.parts_add_up


def test_the_sentence_names_the_winner_and_its_categories():
    """LN-80, LN-81: seat 1 wins on VP alone; the sentence gives its VP by category and its losses."""
    st = scored(poverty={0: 14, 1: 2}, vp={1: 5})
    scores = SPEC.final_scores(st)
    assert st.returns() == [0.0, 1.0] and scores.winners == (1,)
    assert scores.explanation == "Seat 1 wins London with 5 VP: 5 from VP counters."
    assert scores.tie_break == ""
    st = scored(poverty={0: 2, 1: 5}, vp={0: 12}, loans={0: 1})
    scores = SPEC.final_scores(st)
    assert scores.explanation == ("Seat 0 wins London with 5 VP: 12 from VP counters, less 7 for unpaid loans.")


def test_a_tie_on_vp_broken_by_poverty_is_said():
    """LN-81: level on VP, the fewer poverty points win (seat 1: 3 VP counters and 2 poverty
    points more than seat 0, 2 above the fewest: the table's 3 lost)."""
    penalty = E.poverty_penalty_of(2)
    st = scored(vp={0: 0, 1: penalty}, poverty={0: 0, 1: 2})
    scores = SPEC.final_scores(st)
    assert [s.total for s in scores.seats] == [0, 0] and st.returns() == [1.0, 0.0]
    assert scores.winners == (0,)
    assert scores.tie_break == "level on 0 VP with seat 1, seat 0 has fewer poverty points (0 to 2) (LN-81)"
    assert scores.explanation.startswith("Seat 0 wins London with 0 VP") and scores.tie_break in scores.explanation


def test_a_win_shared_after_every_tie_break():
    """LN-81 (decision): still level after all three breaks, they share the win."""
    st = scored(players=3, poverty={0: 3, 1: 3, 2: 3}, boroughs={"greenwich": 2, "lewisham": 1}, vp={0: 2})
    scores = SPEC.final_scores(st)
    assert scores.winners == (1, 2) == tuple(p for p, r in enumerate(st.returns()) if r)
    assert scores.explanation.startswith("Seats 1 and 2 share the win in London, each with 2 VP")
    assert scores.tie_break == ("level on 2 VP with seat 0, seats 1 and 2 have more boroughs (1 to 0); level "
                                "with each other on VP, poverty points, boroughs and best card, they share the "
                                "win (LN-81)")
    st = scored(players=3, poverty={0: 3, 1: 3, 2: 3})
    scores = SPEC.final_scores(st)
    assert scores.winners == (0, 1, 2) and scores.explanation == (
        "Seats 0, 1 and 2 share the win in London, each with 0 VP; level with each other on VP, poverty "
        "points, boroughs and best card, they share the win (LN-81).")
