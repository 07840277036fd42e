"""London's end explained: each seat's final VP by category as the engine scored them
(``final_scoring``, LN-75 to LN-80), and the winners as LN-81 ranked them (``final_ranking``).
Everything scored is open at the end: money, loans, displays, boroughs and the number of cards
in each hand (LN-77 counts them, whatever they are)."""
from __future__ import annotations

from fagin.engines.final_scores import FinalScores, ScorePart, SeatScore, names_list, seat_list, sentence

#: LN-81's keys as ``final_ranking`` numbers them: what the winners had, said of them.
_KEYS = {2: "fewer poverty points", 3: "more boroughs", 4: "a higher best card in the Building Display"}


def _engine():
    from fagin.engines.london import engine
    return engine


def _plural(n, one, many=None):
    return f"{n} {one if n == 1 else (many or one + 's')}"


def seat_parts(sc: dict, lowest: int) -> tuple[ScorePart, ...]:
    """A seat's parts from its ``final_scoring`` entry (``lowest``: the fewest poverty points
    at the table, LN-79); they add up to its ``vp``."""
    money = f"£{sc['money_left']} left"
    if sc["repaid"]:
        money += f" after repaying {_plural(sc['repaid'], 'loan')}"
    above = sc["poverty"] - lowest
    return (ScorePart("VP counters", sc["vp_counters"]),
            ScorePart("buildings", sc["card_vp"], "the Building Display's cards"),
            ScorePart("boroughs", sc["borough_vp"], _plural(sc["boroughs"], "borough")),
            ScorePart("Underground", sc["underground_vp"], "2 VP per counter"),
            ScorePart("money", sc["money_vp"], money + ", 1 VP per £3"),
            ScorePart("unpaid loans", -7 * sc["unpaid"], f"{sc['unpaid']} unpaid, 7 VP each"),
            ScorePart("poverty", -sc["poverty_penalty"],
                      f"{_plural(sc['poverty'], 'poverty point')}, {above} above the fewest"))


def final_scores(state) -> FinalScores:
    E = _engine()
    data = state.to_bytes()
    scores = E.final_scoring(data)
    ranking = E.final_ranking(data)
    lowest = min(sc["poverty"] for sc in scores)
    seats = tuple(SeatScore(p, f"seat {p}", sc["vp"], seat_parts(sc, lowest))
                  for p, sc in enumerate(scores))
    winners = tuple(ranking["winners"])
    first = scores[winners[0]]
    gains = [f"{p.points} from {p.name}" for p in seats[winners[0]].parts if p.points > 0]
    losses = [f"{-p.points} for {p.name}" for p in seats[winners[0]].parts if p.points < 0]
    how = f"{first['vp']} VP" + (f": {names_list(gains)}" if gains else "")
    if losses:
        how += f", less {names_list(losses)}"
    poverty = {p.seat: p.parts[-1] for p in seats}
    if losses and poverty[winners[0]].points < 0:
        how += f" ({poverty[winners[0]].detail})"
    if len(winners) == 1:
        why = f"{seat_list(winners)} wins London with {how}"
    else:
        why = f"{seat_list(winners)} share the win in London, each with {how}"
    tie_break = ""
    key, runner = ranking["key"], ranking["runner_up"]
    if key in _KEYS:
        rival = scores[runner]
        tie_break = (f"level on {first['vp']} VP with {seat_list([runner])}, "
                     f"{seat_list(winners)} {'has' if len(winners) == 1 else 'have'} {_KEYS[key]} "
                     f"({_key_figures(key, first, rival)}) (LN-81)")
    if len(winners) > 1:
        shared = ("level with each other on VP, poverty points, boroughs and best card, they share "
                  "the win (LN-81)")
        tie_break = f"{tie_break[:-len(' (LN-81)')]}; {shared}" if tie_break else shared
    if tie_break:
        why += f"; {tie_break}"
    return FinalScores("VP", seats, winners, sentence(why), tie_break)


def _key_figures(key, winner, rival):
    field = {2: "poverty", 3: "boroughs", 4: "top_card"}[key]
    return f"{winner[field]} to {rival[field]}"
