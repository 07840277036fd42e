"""Game records: a game from its start, move by move, for every game through the engine ABI.

A record is a start (a new game's opening position, or a set-up position) and its moves in
order, each a seat's decision or a chance outcome. It is *complete* (a referee's: every move
given) or one seat's *view*: the moves that seat did not see are ``unseen``, and each move may
carry the seat's ``check``, what it knew after the move (:func:`observation`).

What a seat sees of a move is defined once, here, for every game, from what the engines
already define a seat to know: its information-set key (``GameDef.infoset_key``, equal exactly
when the seat cannot tell two states apart) and its determinizations (``GameDef.determinize``,
the positions the seat cannot tell from the real one). A seat sees its own decisions; it sees
another seat's decision or a chance outcome when, in the position as it knows it (a
determinization for it, the same for every position it cannot tell apart), every possible move
there leads it to a different information set: it can tell which one was made. Otherwise the
move is unseen, whatever part of it the seat may know (a card's deck letter): that part is in the
``check``.

A seat's view is replayed to a position it cannot tell from the real one (the unseen moves
filled by moves the rest of the view allows): each filled move must lead to the ``check``'s
information set; a move the fill made impossible (a card shown that another seat was not dealt
in the fill, or a display refilled a few moves before from the fill's hidden deck order) is tried
again in a determinization of the position for the seat, there or a few moves back; and a fill
that later proves wrong (a secret choice revealed) is undone and the next tried. Only the view is
read, so records that differ only in what the seat did not see replay to the same position.
Where a game merges identical cards into one action (London, LN-93), a view gives the seen moves
in typed form, naming the very copy moved, since an id moves the copy its label names in the
position it is applied to.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from fagin.engines.core import CHANCE, TERMINAL, IllegalActionError

#: The determinizations a replay of a seat's view tries for a seen move that its fill made
#: impossible, and the moves it may apply in all before it gives up: a bound on the work one
#: record can ask, far above what the games' views need (the contract suite replays every game's).
REPAIR_TRIES = 512
MAX_FILL_STEPS = 200_000
MAX_FILL_SECONDS = 5.0

#: How many moves back a repair may resample the position from.
REPAIR_DEPTH = 6

#: The determinizations over which a seat's view decides whether it sees a move.
SEEN_TWINS = 4

#: The seed of the determinization in which a seat's view decides what it sees of a move: any
#: fixed seed; a determinization depends only on what the seat knows.
_SEEN_SEED = 0x5EE5

#: The seed the move's index is mixed with for the determinizations of a repair.
_REPAIR_SEED = 0x0BAD5EED


class RecordError(ValueError):
    """A record's move that cannot be replayed: ``index`` is the move's, ``field`` the part of
    it at fault (``action_id``, ``seat``, ...), ``detail`` why. ``str()`` is the message without
    the path a caller puts before it (``moves[17].action_id: ...``). ``detail`` may be given as
    a function that writes it, called once when it is first read: a replay of a seat's view
    meets many moves that a fill made impossible and reports at most one of them, so their
    messages (the legal moves' labels) are written only for the one reported."""

    def __init__(self, index, field, detail):
        self.index, self.field, self._detail = index, field, detail
        super().__init__(index, field)

    @property
    def detail(self):
        if callable(self._detail):
            self._detail = self._detail()
        return self._detail

    def __str__(self):
        return f"moves[{self.index}]" + (f".{self.field}" if self.field else "") + f": {self.detail}"


@dataclass
class Move:
    """One move of a record. ``seat``: the deciding seat, None for a chance outcome. ``action``:
    its id (None when unseen, or given in typed form). ``typed``: the typed form given (a dict),
    if any. ``check``: the viewer's :func:`observation` after the move, if given."""
    seat: int | None
    action: int | None = None
    typed: dict | None = None
    unseen: bool = False
    check: int | None = None

    @property
    def field(self):
        return "unseen" if self.unseen else "action" if self.typed is not None else "action_id"


def observation(state, seat):
    """What ``seat`` knows of ``state``, as a 64-bit number (a record's ``check``), computed in the
    engine (``State.observation``): its information-set key, and at the end the returns too
    (public once the game is over, and not always in a key), folded in to 1e-9. Where a game
    merges identical cards into one action (London, LN-93), its key does not tell their copies
    apart but its views do: the low 24 bits then hold those of the key of the seat's view
    (``GameDef.view_key``), so that a replay reaches the copies the seat saw."""
    return state.observation(seat)


#: The bits of a check that hold those of the view's key, in a game whose engine keys views
#: (``OBSERVED_VIEW_BITS`` in engines/core.pyx).
_VIEW_BITS = (1 << 24) - 1


def observes(state, seat, check):
    """Whether ``seat`` knows of ``state`` what ``check`` (an :func:`observation`) says."""
    return state.observation(seat) == check


def _labels(state, actions, most=24):
    labels = [state.action_label(a) for a in actions[:most]]
    more = f", ... ({len(actions) - most} more)" if len(actions) > most else ""
    return ", ".join(labels) + more


def why_not(state, move, index):
    """The RecordError of a move that cannot be applied in ``state`` (its detail written when
    read, from a copy of ``state``)."""
    p = state.current_player()
    if p == TERMINAL:
        return RecordError(index, None, "the game is already over")
    if p == CHANCE:
        if move.seat is not None:
            return RecordError(index, "seat", f"a chance event is next, not a decision of seat {move.seat} "
                                              f"(leave seat unset for a chance outcome)")
        at, given = state.clone(), Move(move.seat, move.action, move.typed)
        return RecordError(index, move.field, lambda: (
            f"not a possible outcome: {_label_of(at, given)}; "
            f"possible here: {_labels(at, [a for a, q in at.chance_outcomes() if q > 0])}"))
    if move.seat is None:
        return RecordError(index, "seat", f"a decision is next (pending: seats {state.pending_seats()}), "
                                          f"not a chance outcome: name the deciding seat")
    if not 0 <= move.seat < state.num_players or move.seat not in state.pending_seats():
        return RecordError(index, "seat", f"seat {move.seat} has no decision pending; "
                                          f"pending: seats {state.pending_seats()}")
    at, given = state.with_seat_to_act(move.seat), Move(move.seat, move.action, move.typed)
    return RecordError(index, move.field, lambda: (
        f"not legal: {_label_of(at, given)}; legal here: {_labels(at, at.legal_actions())}"))


def _label_of(state, move):
    if move.action is None:
        return "the typed action"
    try:
        return f"{state.action_label(move.action)} (id {move.action})"
    except (ValueError, IndexError, KeyError):
        return f"id {move.action}"


def _apply_one(state, move, index):
    """Applies one given move in place (a typed one as ``State.apply_typed`` does, naming the very
    card among identical ones); RecordError if it cannot be applied. Returns the action id."""
    p = state.current_player()
    if p == TERMINAL or (p == CHANCE) != (move.seat is None):
        raise why_not(state, move, index)
    if move.seat is not None and (not 0 <= move.seat < state.num_players or not state.make_current(move.seat)):
        raise why_not(state, move, index)
    if move.typed is None:
        if move.action not in _possible(state):
            raise why_not(state, move, index)
        state.apply(move.action)
        return move.action
    try:
        return state.apply_typed(move.typed)
    except IllegalActionError:
        try:
            move.action = state.game.action_from_typed(move.typed, p == CHANCE, state.options() or None)
        except ValueError:
            pass
        raise why_not(state, move, index) from None
    except ValueError as e:
        raise RecordError(index, f"action.{state.game.id}", str(e)) from None


def _possible(state):
    """The moves possible now: legal actions at a decision, outcomes of positive probability at
    a chance event."""
    if state.is_chance_node():
        return [a for a, q in state.chance_outcomes() if q > 0]
    return state.legal_actions()


def replay(state, moves, first=0):
    """Replays a complete record's ``moves`` on ``state`` in place, each checked; the moves given
    by id run in C through the ABI (``State.replay``), one call for a whole game. RecordError
    naming the first move that cannot be applied (indices from ``first``)."""
    i, n = 0, len(moves)
    for k, m in enumerate(moves):
        # The ABI's own codes for a chance outcome and "whoever is to act" are no seats.
        if m.seat is not None and m.seat < 0:
            raise RecordError(first + k, "seat", f"must be a seat (0 or more), got {m.seat}")
    while i < n:
        j = i
        while j < n and moves[j].typed is None:
            j += 1
        if j > i:
            run = moves[i:j]
            done = state.replay([-1 if m.seat is None else m.seat for m in run], [m.action for m in run])
            if done < len(run):
                raise why_not(state, run[done], first + i + done)
        if j < n:
            moves[j].action = _apply_one(state, moves[j], first + j)
            j += 1
        i = j
    return state


def sees(before, action, seat):
    """Whether ``seat`` sees the move ``action`` made in ``before`` (see the module's doc): its own
    decision always; another seat's decision or a chance outcome when, over a few
    determinizations of ``before`` for the seat, every move possible in any of them leads it to
    a different information set. Its verdict depends only on what the seat knows: the
    determinizations' seeds are fixed. A chance event with one outcome in every determinization
    is unseen: a hidden order (a deck's) fixes it. Where a game merges identical cards into one
    action (London, LN-93), its keys do not tell their copies apart, but its views do: two moves
    that lead to one key are told apart when they lead to different views (the seat's own draw of
    one of two identical cards), so that a view names the copies the seat saw. Decided in the
    engine (``State.sees_next``), which reads only ``before``: ``action`` is not needed to say
    whether the seat would tell it from the others."""
    return before.sees_next(seat, SEEN_TWINS, _SEEN_SEED)


def _applied(state, move):
    """A copy of ``state`` after a complete record's ``move``."""
    after = state.clone()
    if move.seat is not None:
        after.make_current(move.seat)
    if move.typed is not None:
        after.apply_typed(move.typed)
    else:
        after.apply(move.action)
    return after


def _in_seen_order(state, moves, seat):
    """``moves`` with each move of another seat that ``seat`` could not tell had happened at all
    (its information set the same after it) put after the seat's own decisions that follow it in
    the same simultaneous phase, where the two orders reach the same position: a Goofspiel bid
    made before the seat's own, which the seat cannot know was made first. So a view is the same
    whichever seat chose first."""
    moves = list(moves)
    states = [state.clone()]
    for m in moves:
        states.append(_applied(states[-1], m))
    for k in range(len(moves)):
        if moves[k].seat != seat:
            continue
        j = k
        while j > 0:
            other, before = moves[j - 1], states[j - 1]
            if other.seat is None or other.seat == seat or \
                    states[j].infoset_key(seat) != before.infoset_key(seat) or seat not in before.pending_seats():
                break
            mine = _applied(before, moves[j])
            if other.seat not in mine.pending_seats() or _applied(mine, other) != states[j + 1]:
                break
            moves[j - 1], moves[j] = moves[j], other
            states[j] = mine
            j -= 1
    return moves


def seat_view(state, moves, seat):
    """``seat``'s view of a complete record from ``state`` (a copy is replayed): its moves, the
    unseen ones marked, each carrying the seat's :func:`observation` after it (the moves of
    others it could not tell had happened placed after its own, :func:`_in_seen_order`)."""
    state = state.clone()
    moves = _in_seen_order(state, moves, seat)
    copies = getattr(state.game.actions, "action_label_at", None) is not None
    out = []
    for i, m in enumerate(moves):
        if m.seat is not None:
            state.make_current(m.seat)
        seen = sees(state, m.action, seat)
        typed = m.typed
        after = state.clone()
        if typed is not None:
            after.apply_typed(typed)
        else:
            after.apply(m.action)
            if seen and copies and m.seat is not None:
                # An id moves the copy its label names in the position it is applied to, which in
                # the viewer's replay may be another copy: the typed form names the very card
                # (kept where it moves just what the id moved).
                named = state.typed_action(m.action)
                by_name = state.clone()
                by_name.apply_typed(named)
                if by_name == after:
                    typed = named
        state = after
        out.append(Move(m.seat, m.action if seen else None, typed if seen else None, unseen=not seen,
                        check=observation(state, seat)))
    return out


class _Budget:
    """The work one replay of a view may do: MAX_FILL_STEPS moves tried, and MAX_FILL_SECONDS of
    the thread's CPU (where checks read views, a step costs far more than a move), so that no
    record holds a decoding thread long."""

    def __init__(self):
        self.steps = 0
        self.until = time.thread_time() + MAX_FILL_SECONDS

    def spend(self, n=1):
        self.steps += n
        if self.steps > MAX_FILL_STEPS:
            return False
        return self.steps & 255 or time.thread_time() < self.until


def replay_view(state, moves, viewer):
    """Replays ``viewer``'s view of a record from ``state`` (left as it is): the position it
    reaches as the viewer knows it (see the module's doc). RecordError naming the first move
    that no fill of the unseen moves before it explains."""
    budget = _Budget()
    n = len(moves)
    frames = []                 # (index, the positions after the fills not yet tried)
    repaired = set()            # the moves whose position was resampled once already
    deepest = None              # the error at the furthest move any fill reached
    path = [state.clone()]      # path[k]: the position before move k on the fill being tried
    i = 0
    while i < n:
        m = moves[i]
        current = path[i]
        afters = _afters(current, m, viewer, i, budget)
        if isinstance(afters, RecordError) and i not in repaired and not afters.final:
            # The fill so far may have dealt what this move shows elsewhere (a card another seat
            # plays, a face-down card turned up), or a move before it may have drawn from a
            # hidden order (a display refilled from the deck) a copy of an identical card that
            # the viewer's key does not tell from the real one: a determinization of the position
            # for the viewer, here or a few moves back, is another deal it cannot tell from this
            # one. Tried once a move, so that undoing a secret choice (which a determinization
            # forgets) stays cheap.
            repaired.add(i)
            repair = _repair(path, moves, viewer, i, budget, deep=afters.field != "check")
            if repair is not None:
                j, afters = repair
                del path[j + 1:]
                path.extend(afters[:-1])
                afters = [afters[-1]]
                frames = [f for f in frames if f[0] < j]
        if not isinstance(afters, RecordError):
            if m.unseen and len(afters) > 1:
                frames.append((i, afters[1:]))
            del path[i + 1:]
            path.append(afters[0])
            i += 1
            continue
        if deepest is None or afters.index >= deepest.index:
            deepest = afters
        # Back to the latest unseen move with another fill to try.
        while frames and not frames[-1][1]:
            frames.pop()
        if not frames or not budget.spend():
            raise _explained(deepest, viewer)
        i, rest = frames.pop()
        frames.append((i, rest[1:]))
        del path[i + 1:]
        path.append(rest[0])
        i += 1
    return path[n]


def _repair(path, moves, viewer, i, budget, deep):
    """A determinization for the viewer of the position before move ``i`` (for a seen move found
    impossible, ``deep``: or before one of the REPAIR_DEPTH moves before it) from which the moves
    up to ``i`` replay: (the move it was
    taken before, the positions after each move from there to ``i``), or None."""
    # A seen move may be impossible because a move a few before it drew from a hidden order
    # (``deep``); a check not met is met by undoing fills instead (a determinization forgets
    # the secret choices a reveal shows).
    depth = REPAIR_DEPTH if deep and not moves[i].unseen else 0
    for j in range(i, max(-1, i - depth - 1), -1):
        for attempt in range(REPAIR_TRIES):
            if not budget.spend():
                return None
            current = path[j].determinize(viewer, (_REPAIR_SEED * (i + 1) + 7919 * (i - j) + attempt) % (1 << 63))
            afters = []
            for k in range(j, i + 1):
                step = _afters(current, moves[k], viewer, k, budget)
                if isinstance(step, RecordError):
                    break
                current = step[0]
                afters.append(current)
            else:
                return j, afters
    return None


def _explained(error, viewer):
    if error.field in ("unseen", "check"):
        return error
    return RecordError(error.index, error.field,
                       f"{error.detail} (in no deal that the moves before it, as seat {viewer} saw them, allow)")


def _afters(state, move, viewer, index, budget):
    """The positions a move of a seat's view may lead to from ``state``: for an unseen move, one
    for each move possible there that leads to its ``check``; for a seen move, the one it leads
    to if it is possible there and leads to its check. A RecordError if there is none (``final``
    set when no other deal could change that: whose turn it is)."""
    error = _afters_or_error(state, move, viewer, index, budget)
    if isinstance(error, RecordError) and not hasattr(error, "final"):
        error.final = False
    return error


def _final(error):
    error.final = True
    return error


def _afters_or_error(state, move, viewer, index, budget):
    p = state.current_player()
    if p == TERMINAL:
        return _final(RecordError(index, None, "the game is already over"))
    if (p == CHANCE) != (move.seat is None):
        return _final(why_not(state, move, index))
    if move.seat is not None and (not 0 <= move.seat < state.num_players or not state.make_current(move.seat)):
        return _final(why_not(state, move, index))
    if not move.unseen:
        if not budget.spend():
            return RecordError(index, move.field, "no deal found within the replay's bound")
        after = state.clone()
        try:
            _apply_one(after, move, index)
        except RecordError as e:
            return e
        if move.check is not None and not observes(after, viewer, move.check):
            return RecordError(index, "check", f"seat {viewer} knew something else after this move")
        return [after]
    if move.seat == viewer:
        return _final(RecordError(index, "unseen", f"seat {viewer} sees its own decisions: give the action"))
    possible, leading = state.next_moves_observed(viewer, move.check)
    if not budget.spend(possible):
        return RecordError(index, "unseen", "no deal found within the replay's bound")
    afters = [state.child(a) for a in leading]
    if not afters:
        return RecordError(index, "check", f"no move possible here leads to what seat {viewer} knew after it")
    return afters
