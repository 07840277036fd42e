"""Kids of London's end explained as KL-20 scores it, from the engine's own figures
(``final_standing``, read by its returns): every seat with the most coins, the fictitious
player's counted (KL-16), is stripped of them and ranks last; the richest of the others win.
Coins are public (KL-18)."""
from __future__ import annotations

from fagin.engines.final_scores import FinalScores, ScorePart, SeatScore, names_list, seat_list, sentence


def _engine():
    from fagin.engines.kids_of_london import engine
    return engine


def final_scores(state) -> FinalScores:
    standing = _engine().final_standing(state.to_bytes())
    coins, richest, second = standing["coins"], standing["richest"], standing["second"]
    players = state.num_players
    name = {p: (f"seat {p}" if p < players else "the fictitious player") for p in range(len(coins))}
    seats = []
    for p, c in enumerate(coins):
        parts = [ScorePart("coins", c)]
        note = ""
        if c == richest:
            parts.append(ScorePart("stripped", -c, "the most coins (KL-20)"))
            note = "the richest: stripped of everything, ranked last (KL-20)"
        elif second is not None and c == second:
            note = "the most coins after the richest (KL-20)"
        seats.append(SeatScore(p, name[p], 0 if c == richest else c, tuple(parts), note))
    winners = tuple(p for p, r in enumerate(state.returns()) if r > 0)
    stripped = [p for p, c in enumerate(coins) if c == richest]
    who_stripped = (seat_list(stripped) if all(p < players for p in stripped)
                    else names_list([name[p] for p in stripped]))
    if second is None:
        everyone = "both seats" if len(coins) == 2 else f"all {len(coins)} seats"
        why = (f"nobody wins Kids of London: {everyone} ended with {richest} coins, the most, so all "
               f"were stripped and nobody was left to be second (KL-20)")
        return FinalScores("coins", tuple(seats), (), sentence(why))
    was = "was" if len(stripped) == 1 else "were"
    rich = f"{who_stripped} {was} the richest with {richest} coins and {was} stripped"
    second_seats = [p for p, c in enumerate(coins) if c == second]
    if not winners:
        why = (f"the fictitious player wins Kids of London with {second} coins, the most after the "
               f"richest, so no seat wins: {rich} (KL-20)")
    else:
        also = ", with the fictitious player" if players in second_seats else ""
        verb = "wins" if len(winners) == 1 else "share the win in"
        why = (f"{seat_list(winners)} {verb} Kids of London{also} with {second} coins, the most after "
               f"the richest: {rich} (KL-20)")
    return FinalScores("coins", tuple(seats), winners, sentence(why))
