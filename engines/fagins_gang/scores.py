"""Fagin's Gang's end explained as FG-24 ranks it, from the engine's own comparison
(``final_ranking``, read by the winner's choice): most urchins home, then most shillings, then
most goods, then the seat later in the round's turn order. A seat's parts are those keys in
order, not a sum. Nothing is hidden (FG-27)."""
from __future__ import annotations

from fagin.engines.final_scores import FinalScores, ScorePart, SeatScore, names_list, seat_list, sentence

#: FG-24's keys as ``rank_key`` numbers them: the key, and what the winner had by it.
_KEYS = {1: ("urchins home", "more urchins home"), 2: ("shillings", "more shillings"),
         3: ("goods", "more goods"), 4: ("turn order", "a later place in the round's turn order")}


def _engine():
    from fagin.engines.fagins_gang import engine
    return engine


def final_scores(state) -> FinalScores:
    ranking = _engine().final_ranking(state.to_bytes())
    rows = ranking["seats"]
    seats = tuple(SeatScore(p, f"seat {p}", r["home"],
                            (ScorePart("urchins home", r["home"]), ScorePart("shillings", r["shillings"]),
                             ScorePart("goods", r["goods"], "cubes"),
                             ScorePart("turn order", r["turn_position"], "place in the round")))
                  for p, r in enumerate(rows))
    winner, key, runner = ranking["winner"], ranking["key"], ranking["runner_up"]
    home = rows[winner]["home"]
    if any(r["home"] >= ranking["home_to_win"] for r in rows):
        end = f"the game ended once a seat had {ranking['home_to_win']} urchins home (FG-23)"
    else:
        end = f"the game ended after round {ranking['round']}, the last (FG-25)"
    urchins = f"{home} urchin{'' if home == 1 else 's'} home"
    why = f"{seat_list([winner])} wins Fagin's Gang with {urchins}; {end}"
    tie_break = ""
    if key == 1:
        why += f"; {seat_list([runner])}, next, had {rows[runner]['home']} (FG-24)"
    elif key is not None:
        field = ("home", "shillings", "goods", "turn_position")[key - 1]
        level = names_list([_KEYS[k][0] for k in range(1, key)])
        tie_break = (f"level with {seat_list([runner])} on {level}, {seat_list([winner])} had "
                     f"{_KEYS[key][1]} ({rows[winner][field]} to {rows[runner][field]}) (FG-24)")
        why += f"; {tie_break}"
    return FinalScores("urchins home", seats, (winner,), sentence(why), tie_break, parts_add_up=False)
