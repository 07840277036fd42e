# Liar's Dice's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

def initial_state_bytes(int players=2, int numdice=1, int dice_sides=6, bidding_rule="reset-face"):
    """The state before the first roll; the keywords are OpenSpiel's parameters."""
    if players != 2:
        raise ValueError(f"players: Liar's Dice is a 2-player game, not {players}")
    if not 1 <= numdice <= MAX_DICE:
        raise ValueError(f"options.numdice: expected 1 to {MAX_DICE} dice a seat, got {numdice}")
    if not 1 <= dice_sides <= MAX_SIDES:
        raise ValueError(f"options.dice_sides: expected 1 to {MAX_SIDES} sides, got {dice_sides}")
    if bidding_rule not in RULES:
        raise ValueError(f"options.bidding_rule: expected reset-face or reset-quantity, got {bidding_rule!r}")
    cdef LiarsState s
    memset(&s, 0, sizeof(LiarsState))
    s.num_dice[0] = numdice
    s.num_dice[1] = numdice
    s.total = 2 * numdice
    s.sides = dice_sides
    s.rule = RESET_FACE if bidding_rule == "reset-face" else RESET_QUANTITY
    s.winner = -1
    return (<char*>&s)[:sizeof(LiarsState)]


def options_of(data):
    """The options (OpenSpiel's parameters) a state was made with."""
    cdef LiarsState copy
    read_state(data, &copy, sizeof(LiarsState), "not a Liar's Dice state")
    cdef const LiarsState* s = &copy
    return {"numdice": s.num_dice[0], "dice_sides": s.sides, "bidding_rule": RULES[s.rule]}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ------------------------------------------------- the API's dict form
# Shaped like the LiarsDiceState message. Positions are rebuilt by replaying
# the rolls and the actions through the engine, so every rule checks them.

def describe(data):
    cdef LiarsState copy
    read_state(data, &copy, sizeof(LiarsState), "not a Liar's Dice state")
    cdef const LiarsState* s = &copy
    rolled = [min(s.rolled, s.num_dice[0]), max(0, s.rolled - s.num_dice[0])]
    return {"options": options_of(data),
            "dice0": [s.dice[0][i] for i in range(rolled[0])],
            "dice1": [s.dice[1][i] for i in range(rolled[1])],
            "actions": [s.actions[i] for i in range(s.num_actions)]}


def view(data, int seat):
    """The state as ``seat`` sees it: the other seat's dice are -1 (how many it rolled is public)."""
    if seat not in (0, 1):
        raise ValueError(f"seat: {seat} is not a seat of Liar's Dice")
    d = describe(data)
    d[f"dice{1 - seat}"] = [-1] * len(d[f"dice{1 - seat}"])
    return d


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d, game):
    """Replays the rolls and the actions; hidden dice (-1) become 1s (a search redraws them)."""
    given = given_options(d.get("options"))
    try:
        st = game.new_initial_state(2, **given)
    except ValueError as e:
        raise ValueError(f"options.{e}" if not str(e).startswith("options") else str(e)) from None
    n, sides, _ = _settings(options_of(st.to_bytes()))
    dice = [list(d.get("dice0") or []), list(d.get("dice1") or [])]
    for p in (0, 1):
        field = f"dice{p}"
        if len(dice[p]) > n:
            raise ValueError(f"{field}: seat {p} has {n} {'die' if n == 1 else 'dice'}, "
                             f"got {len(dice[p])}")
        for i, face in enumerate(dice[p]):
            if not _is_int(face) or not (face == -1 or 1 <= face <= sides):
                raise ValueError(f"{field}[{i}]: a face is 1 to {sides} (or -1 when hidden), got {face!r}")
        if -1 in dice[p] and any(f != -1 for f in dice[p]):
            raise ValueError(f"{field}: hide all of a seat's dice or none")
    if dice[1] and len(dice[0]) < n:
        raise ValueError("dice1: seat 0 rolls all its dice before seat 1 rolls")
    for p in (0, 1):
        for face in dice[p]:
            st.apply(0 if face == -1 else face - 1)
    for i, a in enumerate(d.get("actions") or []):
        if st.is_chance_node():
            raise ValueError(f"actions[{i}]: the dice are not all rolled yet")
        if st.is_terminal():
            raise ValueError(f"actions[{i}]: the game is over (the last bid was called)")
        if not _is_int(a) or a not in st.legal_actions():
            raise ValueError(f"actions[{i}]: {a!r} is not legal here (legal: {_span(st.legal_actions())})")
        st.apply(a)
    return st.to_bytes()


def _span(actions):
    return f"{actions[0]} to {actions[len(actions) - 1]}" if len(actions) > 2 else ", ".join(map(str, actions))


def _action_text(a, options):
    n, sides, _ = _settings(options)
    return "liar" if a == 2 * n * sides else "%d-%d" % _bid(a, options)


def summary(data):
    d = describe(data)
    return (f"dice {d['dice0']} {d['dice1']}, "
            f"actions {' '.join(_action_text(a, d['options']) for a in d['actions']) or '-'}")


def render(data, seat=None):
    d = describe(data) if seat is None else view(data, seat)
    dice = lambda faces: " ".join(str(f) if f > 0 else "?" for f in faces) or "-"
    return (f"Liar's Dice: seat 0 dice {dice(d['dice0'])}, seat 1 dice {dice(d['dice1'])}; "
            f"actions {' '.join(_action_text(a, d['options']) for a in d['actions']) or '-'}")
