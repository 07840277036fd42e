"""Gangs of Kyoto's end explained from the engine's own figures (``final_standing``): each
seat's bells by where they came from (``bell_sources``: banked from the rows, GK-12, or Bell
cards, GK-7), the rule that ended the game (``ending_rule``: GK-14, GK-16 or GK-19) and, where
seats were level on bells, GK-14's tie-break by the First Player card. The victory piles are
known to all (GK-17)."""
from __future__ import annotations

from fagin.engines.final_scores import FinalScores, ScorePart, SeatScore, seat_list, sentence


def _engine():
    from fagin.engines.gangs_of_kyoto import engine
    return engine


def final_scores(state) -> FinalScores:
    standing = _engine().final_standing(state.to_bytes())
    rows = standing["seats"]
    seats = tuple(SeatScore(p, f"seat {p}", r["bells"],
                            (ScorePart("banked from rows", r["banked"], "cards with bells banked (GK-12)"),
                             ScorePart("Bell cards", r["bell_cards"], "straight to the victory pile (GK-7)")))
                  for p, r in enumerate(rows))
    winner = standing["winner"]
    if winner is None:          # a finished game always has one (GK-14)
        raise ValueError("gangs_of_kyoto: a finished game without a winner")
    bells = rows[winner]["bells"]
    rule = standing["rule"]
    candidates = standing["candidates"]
    if rule == 14:
        reached = [p for p in candidates if p != winner]
        how = (f"reaching {standing['win_bells']} bells first (GK-14)" if not reached else
               f"the most bells of the seats that reached {standing['win_bells']} at the same banking, "
               f"{seat_list(candidates)} (GK-14)")
    elif rule == 19:
        how = "the most bells when no card was left to draw (GK-19)"
    else:                       # 16, or a client's finished play_through position (None)
        how = "the most bells when the first bust after the deck ran out ended the game (GK-16)"
    count = f"{bells} bell{'' if bells == 1 else 's'}"
    why = f"{seat_list([winner])} wins Gangs of Kyoto with {count}, {how}"
    level = [p for p in candidates if p != winner and rows[p]["bells"] == bells]
    tie_break = ""
    if level:
        holder = standing["first_player"]
        tie_break = (f"level on {count} with {seat_list(level)}, {seat_list([winner])} sits "
                     f"furthest after the First Player card's holder, seat {holder} (GK-14)")
        why += f"; {tie_break}"
    return FinalScores("bells", seats, (winner,), sentence(why), tie_break)
