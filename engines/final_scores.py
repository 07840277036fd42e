"""A finished game's final scores and why the winners won, as people read them.

Returns say only who won (the seed games: 1 for a win, 0 for a loss). At a game's end the page,
the terminal and the API (``StateStatus.final_scores``) show instead each seat's final score in
the game's own units, its parts by category, the tie-break where one decided, and one sentence
saying why the winners won. A room explains its game in its own ``scores.py``, whose
``final_scores(state)`` reads the figures of the engine's own scoring (London's
``final_scoring``, Kids of London's ``final_standing``, ...), so that the rules are scored in
one place, the engine; a room without one gets :func:`generic_final_scores`, its returns as
scores. :meth:`fagin.engines.game.GameSpec.final_scores` picks which.

The explanation is public: it reads only what every seat knows once the game is over (the
engines' rulings say what is shown at the end), so that it is the same for every seat.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScorePart:
    """One category of a seat's final score: its ``name`` ("buildings"), its ``points`` in the
    game's unit (negative for a loss: "unpaid loans" -7), and a ``detail`` in words where the
    figure needs one ("2 loans unpaid, 7 VP each")."""

    name: str
    points: float
    detail: str = ""


@dataclass(frozen=True)
class SeatScore:
    """A seat's final score: ``seat`` (Kids of London's fictitious player is seat 2 of a
    2-player game, KL-16), ``name`` as a sentence names it ("seat 1", "the fictitious
    player"), ``total`` in the game's unit, ``parts`` (adding up to ``total`` when
    :attr:`FinalScores.parts_add_up`), and a ``note`` on how the end treated it ("the
    richest: stripped (KL-20)"), empty if none."""

    seat: int
    name: str
    total: float
    parts: tuple[ScorePart, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class FinalScores:
    """Every seat's final score and why the winners won.

    ``unit``: what ``total`` counts ("VP", "coins", "£", "bells", "urchins home"; "return" in
    the generic explanation). ``parts_add_up``: each seat's parts add up to its total (London's
    categories), else they are the ranking's keys in order (Fagin's Gang: urchins home, then
    shillings, then goods). ``winners``: the winning seats (none if nobody wins). ``tie_break``:
    how seats level on the score were told apart, empty if no tie-break decided.
    ``explanation``: one sentence naming the winners and why they won.
    """

    unit: str
    seats: tuple[SeatScore, ...]
    winners: tuple[int, ...]
    explanation: str
    tie_break: str = ""
    parts_add_up: bool = True

    def seat(self, seat: int) -> SeatScore:
        """The :class:`SeatScore` of ``seat``."""
        for s in self.seats:
            if s.seat == seat:
                return s
        raise KeyError(f"seat {seat} has no final score")


def number(x) -> str:
    """A score as people write it: 3, not 3.0; -0.5 stays."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def seat_list(seats) -> str:
    """"seat 1", "seats 0 and 2", "seats 0, 1 and 3", "nobody"."""
    seats = [str(s) for s in seats]
    if not seats:
        return "nobody"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(seats[:-1]) + " and " + seats[-1]


def names_list(names) -> str:
    """"a", "a and b", "a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised and a full stop at the end."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def generic_final_scores(state) -> FinalScores:
    """A finished game explained by its returns alone, for a room without a ``scores.py``:
    each seat's return as its score (the poker games' chips won or lost, Goofspiel's per its
    ``returns_type``). The winners are the seats with the highest return, unless every seat has
    the same (a draw; or, at a return above 0, a win shared by all)."""
    returns = list(state.returns())
    name = state.game.spec.name
    best, worst = max(returns), min(returns)
    if best > worst:
        winners = tuple(s for s, r in enumerate(returns) if r == best)
    else:
        winners = tuple(range(len(returns))) if best > 0 else ()
    seats = tuple(SeatScore(s, f"seat {s}", r) for s, r in enumerate(returns))
    if not winners:
        why = f"nobody wins {name}: every seat's return is {number(best)}"
    elif len(winners) == len(returns):
        why = f"every seat shares the win in {name}, each with a return of {number(best)}"
    else:
        verb = "wins" if len(winners) == 1 else "share the win in"
        why = f"{seat_list(winners)} {verb} {name} with the highest return, {number(best)}"
    return FinalScores("return", seats, winners, sentence(why))
