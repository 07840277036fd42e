# Goofspiel's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

ORDERS = ("random", "descending", "ascending")
RETURNS = ("win_loss", "point_difference", "total_points")


def initial_state_bytes(int players=2, num_cards=13, imp_info=False, points_order="random",
                        returns_type="win_loss"):
    if players != 2:
        raise ValueError(f"players: Goofspiel is played by 2 here, not {players}")
    n = int(num_cards)
    if not 2 <= n <= MAX_CARDS:
        raise ValueError(f"options.num_cards: 2 to {MAX_CARDS}, got {num_cards!r}")
    if points_order not in ORDERS:
        raise ValueError(f"options.points_order: one of {', '.join(ORDERS)}, got {points_order!r}")
    if returns_type not in RETURNS:
        raise ValueError(f"options.returns_type: one of {', '.join(RETURNS)}, got {returns_type!r}")
    cdef GoofState s
    memset(&s, 0, sizeof(GoofState))
    s.n = n
    s.imp_info = 1 if imp_info else 0
    s.order = ORDERS.index(points_order)
    s.returns_type = RETURNS.index(returns_type)
    s.hand[0] = (1 << n) - 1
    s.hand[1] = (1 << n) - 1
    s.deck = (1 << n) - 1
    s.priority = -1
    s.pending[0] = -1
    s.pending[1] = -1
    next_point(&s)
    return (<char*>&s)[:sizeof(GoofState)]


def describe(data):
    """The state as a dict shaped like the ``GoofspielState`` message (card ids: value - 1)."""
    cdef GoofState copy
    read_state(data, &copy, sizeof(GoofState), "not a Goofspiel state")
    cdef const GoofState* s = &copy
    shown = s.turn + (0 if (s.need_point or s.turn >= s.n) else 1)
    return {"options": {"num_cards": s.n, "imp_info": bool(s.imp_info), "points_order": ORDERS[s.order],
                        "returns_type": RETURNS[s.returns_type]},
            "point_cards": [s.point[t] for t in range(min(shown, s.n))],
            "bids0": [s.bids[0][t] for t in range(s.turn)],
            "bids1": [s.bids[1][t] for t in range(s.turn)],
            "winners": [s.winner[t] for t in range(s.turn)],
            "pending0": s.pending[0] if s.pending[0] >= 0 else None,
            "pending1": s.pending[1] if s.pending[1] >= 0 else None,
            "points": [s.points[0], s.points[1]]}


def view(data, int seat):
    """The state as ``seat`` sees it: the other's pending bid removed and, with imp_info,
    its past bids shown as -1 (only who won each turn is known)."""
    if seat not in (0, 1):
        raise ValueError(f"seat: {seat} is not a seat of Goofspiel")
    d = describe(data)
    other = 1 - seat
    d[f"pending{other}"] = None
    if d["options"]["imp_info"]:
        d[f"bids{other}"] = [-1] * len(d[f"bids{other}"])
    return d


def _fill_hidden(mine, winners, me, n):
    """The smallest consistent bids for the other seat (GK-like canonical filling of a view)."""
    def search(t, used):
        if t == len(mine):
            return []
        for v in range(n):
            if v in used:
                continue
            w = winners[t]
            # A tie (2) needs the same card; a win of mine a lower one; the other's win a higher one.
            fits = v == mine[t] if w == 2 else (mine[t] > v if w == me else v > mine[t])
            if not fits:
                continue
            rest = search(t + 1, used | {v})
            if rest is not None:
                return [v] + rest
        return None
    return search(0, frozenset())


def from_description(d, game):
    """Replays the turns through the engine (every rule checks them)."""
    opts = d.get("options") or {}
    st = game.new_initial_state(
        2, num_cards=opts.get("num_cards") or 13, imp_info=bool(opts.get("imp_info")),
        points_order=opts.get("points_order") or "random", returns_type=opts.get("returns_type") or "win_loss")
    n = opts.get("num_cards") or 13
    bids = [list(d.get("bids0") or []), list(d.get("bids1") or [])]
    winners = list(d.get("winners") or [])
    if len(bids[0]) != len(bids[1]):
        raise ValueError("bids1: both seats have bid in the same turns")
    for me in (0, 1):
        if -1 in bids[1 - me]:
            if not opts.get("imp_info"):
                raise ValueError(f"bids{1 - me}: hidden bids (-1) only with imp_info (without it every bid "
                                 f"is shown)")
            if any(b != -1 for b in bids[1 - me]) or len(winners) != len(bids[me]):
                raise ValueError(f"bids{1 - me}: hidden bids need all of them hidden and the winners")
            filled = _fill_hidden(bids[me], winners, me, n)
            if filled is None:
                raise ValueError("winners: no bids of the other seat fit them")
            bids[1 - me] = filled
    points = list(d.get("point_cards") or [])
    turns = len(bids[0])
    for t in range(min(turns, n - 1)):
        _deal_point(st, points, t)
        for p in (0, 1):
            if bids[p][t] not in st.legal_actions():
                raise ValueError(f"bids{p}[{t}]: {bids[p][t]!r} is not a card seat {p} holds")
            st.apply(bids[p][t])
    if turns == n:
        # The last turn plays itself with the last cards: its bids and point card are the
        # engine's, and given ones must be those.
        got = describe(st.to_bytes())
        for p in (0, 1):
            if not st.is_terminal() or got[f"bids{p}"] != bids[p]:
                raise ValueError(f"bids{p}: the last turn plays itself with the last cards"
                                 + (f" (the bids are {got[f'bids{p}']})" if st.is_terminal() else ""))
    elif turns > n:
        raise ValueError(f"bids0: at most {n} turns")
    if d.get("pending0") is not None and d.get("pending1") is not None:
        raise ValueError("pending1: with both bids made the turn is over (the engine resolves it at once): "
                         "list them in bids0 and bids1")
    if not st.is_terminal():
        if st.is_chance_node() and len(points) > turns:
            _deal_point(st, points, turns)
        for p in (0, 1):
            pending = d.get(f"pending{p}")
            if pending is not None:
                if st.is_chance_node():
                    # A bid is made once the turn's point card is up: a random order's card must
                    # be listed (a fixed order turns it up by itself).
                    raise ValueError(f"pending{p}: a bid of turn {turns} needs its point card, "
                                     f"point_cards[{turns}], turned up first")
                st.make_current(p)
                if pending not in st.legal_actions():
                    raise ValueError(f"pending{p}: {pending!r} is not a card seat {p} holds")
                st.apply(pending)
    shown = describe(st.to_bytes())["point_cards"]
    for t, c in enumerate(points):
        if t >= len(shown):
            raise ValueError(f"point_cards[{t}]: only {len(shown)} point cards are turned up after {turns} turns")
        if c != shown[t]:
            raise ValueError(f"point_cards[{t}]: {c!r}, but the turn's point card is {shown[t]} "
                             f"(the points order, or the last card left)")
    if winners and describe(st.to_bytes())["winners"] != winners:
        raise ValueError("winners: the bids give other winners")
    return st.to_bytes()


def _deal_point(st, points, t):
    if st.is_chance_node():
        if t >= len(points) or points[t] not in st.legal_actions():
            raise ValueError(f"point_cards[{t}]: the point card of turn {t} is missing or not in the deck")
        st.apply(points[t])
    elif t < len(points) and describe(st.to_bytes())["point_cards"][t] != points[t]:
        raise ValueError(f"point_cards[{t}]: the points order turns up another card")


MOST_CARDS = MAX_CARDS     # card ids 0 .. MOST_CARDS - 1 (value - 1)


def summary(data):
    d = describe(data)
    return f"turn {len(d['bids0'])}, points {d['points']}, point cards {[c + 1 for c in d['point_cards']]}"


def render(data, seat=None):
    d = describe(data) if seat is None else view(data, seat)
    show = lambda bids: " ".join("?" if b < 0 else str(b + 1) for b in bids) or "-"
    return (f"Goofspiel: point cards {' '.join(str(c + 1) for c in d['point_cards']) or '-'}; "
            f"seat 0 bids {show(d['bids0'])}; seat 1 bids {show(d['bids1'])}; points {d['points']}")
