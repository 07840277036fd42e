"""Oliver Twist's end explained as OT-29 scores it: each seat's money plus its Burglary cards,
shown at the end, the engine's final score (``final_score`` in the state, which the engine
derived); the richest win, equal richest all (no tie-break)."""
from __future__ import annotations

from fagin.engines.final_scores import FinalScores, ScorePart, SeatScore, seat_list, sentence


def final_scores(state) -> FinalScores:
    described = state.describe()["seats"]
    seats = []
    for p, st in enumerate(described):
        cards = st["burglary_cards"]
        parts = (ScorePart("money", st["money"]),
                 ScorePart("Burglary cards", sum(cards), " ".join(f"{c:+d}" for c in cards) or "none"))
        seats.append(SeatScore(p, f"seat {p}", st["final_score"], parts))
    winners = tuple(p for p, r in enumerate(state.returns()) if r > 0)
    best = described[winners[0]]["final_score"]
    if len(winners) == 1:
        money, cards = seats[winners[0]].parts
        why = (f"{seat_list(winners)} wins Oliver Twist with £{best}, the richest: £{money.points} in "
               f"money and {cards.points:+d} from Burglary cards (OT-29)")
    else:
        why = (f"{seat_list(winners)} share the win in Oliver Twist with £{best} each, the richest; "
               f"the rules name no tie-break (OT-29)")
    return FinalScores("£", tuple(seats), winners, sentence(why))
