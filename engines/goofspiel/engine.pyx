# cython: language_level=3
"""Goofspiel, exactly as OpenSpiel's ``goofspiel`` (2 players): a reference game.

Each seat holds bid cards 1..N (action ids 0..N-1); each turn a point card
(ids 0..N-1, worth id + 1) is turned up — by chance, or in descending or
ascending order — and both seats bid at once; the higher bid wins the
point card's value, a tie discards it. With one card left in each hand the
last turn plays itself. OpenSpiel's simultaneous bids are two sequential
decisions here, the first hidden from the second (docs/architecture.md).
Options (OpenSpiel's): ``num_cards``, ``imp_info`` (a seat sees only who won
each turn, not the other's bids), ``points_order``, ``returns_type``
(``win_loss``: +1/-1/0; ``point_difference``: points minus the mean;
``total_points``).
"""
from libc.stdint cimport int8_t, int16_t, uint16_t, uint64_t
from libc.string cimport memset

from engines.abi cimport GameDef, GAMEDEF_CAPSULE, PLAYER_CHANCE, PLAYER_TERMINAL
from engines.rng cimport Rng, rng_below, mix64
from cpython.pycapsule cimport PyCapsule_New

cdef enum:
    MAX_CARDS = 13
    ORDER_RANDOM = 0
    ORDER_DESCENDING = 1
    ORDER_ASCENDING = 2
    RETURNS_WIN_LOSS = 0
    RETURNS_POINT_DIFFERENCE = 1
    RETURNS_TOTAL_POINTS = 2

ctypedef struct GoofState:
    uint16_t hand[2]            # bid cards left (bit = card id)
    uint16_t deck               # point cards not yet turned up
    int16_t points[2]
    int8_t n
    int8_t imp_info
    int8_t order
    int8_t returns_type
    int8_t turn                 # bidding turns completed
    int8_t need_point           # chance: the point card of this turn
    int8_t priority             # seat made current (simultaneous bids), -1 none
    int8_t pending[2]           # this turn's bids, -1 if not made
    int8_t point[MAX_CARDS]     # point card of each turn
    int8_t bids[2][MAX_CARDS]
    int8_t winner[MAX_CARDS]    # 0, 1, or 2 for a tie

cdef inline int popcount(unsigned int x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n

cdef inline int lowest(unsigned int x) noexcept nogil:
    cdef int i = 0
    while not (x >> i) & 1:
        i += 1
    return i

cdef inline int highest(unsigned int x) noexcept nogil:
    cdef int i = 15
    while not (x >> i) & 1:
        i -= 1
    return i

cdef void next_point(GoofState* s) noexcept nogil:
    """Turns up the next point card, unless chance must."""
    if s.order == ORDER_RANDOM:
        s.need_point = 1
    else:
        s.point[s.turn] = highest(s.deck) if s.order == ORDER_DESCENDING else lowest(s.deck)
        s.deck &= ~(1u << s.point[s.turn])

cdef void resolve(GoofState* s, int b0, int b1) noexcept nogil:
    cdef int t = s.turn
    s.bids[0][t] = b0
    s.bids[1][t] = b1
    s.hand[0] &= ~(1u << b0)
    s.hand[1] &= ~(1u << b1)
    if b0 > b1:
        s.winner[t] = 0
        s.points[0] += s.point[t] + 1
    elif b1 > b0:
        s.winner[t] = 1
        s.points[1] += s.point[t] + 1
    else:
        s.winner[t] = 2
    s.turn += 1

cdef void end_turn(GoofState* s) noexcept nogil:
    resolve(s, s.pending[0], s.pending[1])
    s.pending[0] = -1
    s.pending[1] = -1
    s.priority = -1
    if s.turn == s.n - 1:
        # The last cards play themselves.
        s.point[s.turn] = lowest(s.deck)
        s.deck = 0
        resolve(s, lowest(s.hand[0]), lowest(s.hand[1]))
    else:
        next_point(s)

cdef int gs_num_players(const void* st) noexcept nogil:
    return 2

cdef int gs_current_player(const void* st) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    if s.turn >= s.n:
        return PLAYER_TERMINAL
    if s.need_point:
        return PLAYER_CHANCE
    if s.priority >= 0 and s.pending[s.priority] < 0:
        return s.priority
    return 0 if s.pending[0] < 0 else 1

cdef int gs_legal_actions(const void* st, int* out) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef unsigned int bits
    cdef int n = 0, c
    if s.need_point:
        bits = s.deck
    else:
        bits = s.hand[gs_current_player(st)]
    for c in range(s.n):
        if (bits >> c) & 1:
            out[n] = c
            n += 1
    return n

cdef void gs_apply_action(void* st, int action) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    cdef int p
    if s.need_point:
        s.point[s.turn] = action
        s.deck &= ~(1u << action)
        s.need_point = 0
        return
    p = gs_current_player(st)
    s.pending[p] = action
    if s.pending[0] >= 0 and s.pending[1] >= 0:
        end_turn(s)

cdef int gs_chance_outcomes(const void* st, int* actions, double* probs) noexcept nogil:
    cdef int n = gs_legal_actions(st, actions), i
    for i in range(n):
        probs[i] = 1.0 / n
    return n

cdef int gs_sample_chance(const void* st, Rng* rng) noexcept nogil:
    cdef int acts[MAX_CARDS]
    cdef int n = gs_legal_actions(st, acts)
    return acts[rng_below(rng, n)]

cdef void gs_returns(const void* st, double* out) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef double mean = (s.points[0] + s.points[1]) / 2.0
    if s.returns_type == RETURNS_WIN_LOSS:
        out[0] = 1.0 if s.points[0] > s.points[1] else (-1.0 if s.points[0] < s.points[1] else 0.0)
        out[1] = -out[0]
    elif s.returns_type == RETURNS_POINT_DIFFERENCE:
        out[0] = s.points[0] - mean
        out[1] = s.points[1] - mean
    else:
        out[0] = s.points[0]
        out[1] = s.points[1]

cdef bint sample_bids(GoofState* s, int observer, int t, unsigned int used, Rng* rng) noexcept nogil:
    """Gives the other seat past bids consistent with what `observer` saw (imp_info)."""
    cdef int other = 1 - observer, mine, v, k, i, n = 0
    cdef int cand[MAX_CARDS]
    if t == s.turn:
        return True
    mine = s.bids[observer][t]
    for v in range(s.n):
        if (used >> v) & 1:
            continue
        # A tie (2) needs the same card; the observer's win a lower one; the other's win a higher one.
        if s.winner[t] == 2:
            if v != mine:
                continue
        elif s.winner[t] == observer:
            if v >= mine:
                continue
        elif v <= mine:
            continue
        cand[n] = v
        n += 1
    # Try the candidates in random order (a random depth-first search).
    while n > 0:
        k = rng_below(rng, n)
        v = cand[k]
        cand[k] = cand[n - 1]
        n -= 1
        s.bids[other][t] = v
        if sample_bids(s, observer, t + 1, used | (1u << v), rng):
            return True
    return False

cdef void gs_determinize(void* st, int observer, Rng* rng) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    cdef int other = 1 - observer, t
    cdef unsigned int used = 0
    cdef int8_t saved[MAX_CARDS]
    s.pending[other] = -1                          # a bid not yet shown
    if s.imp_info and s.turn > 0:
        for t in range(s.turn):
            saved[t] = s.bids[other][t]
        if not sample_bids(s, observer, 0, 0, rng):
            for t in range(s.turn):
                s.bids[other][t] = saved[t]        # cannot happen: the truth is consistent
        s.hand[other] = (1u << s.n) - 1
        for t in range(s.turn):
            s.hand[other] &= ~(1u << s.bids[other][t])

cdef uint64_t gs_infoset_key(const void* st, int player) noexcept nogil:
    cdef const GoofState* s = <const GoofState*>st
    cdef uint64_t h = mix64(<uint64_t>(player + 1), <uint64_t>(s.n * 64 + s.turn))
    cdef int t
    if s.imp_info:
        # Own bids in order, the point cards and who won each turn (OpenSpiel's view).
        for t in range(s.turn):
            h = mix64(h, <uint64_t>(s.point[t] * 256 + s.bids[player][t] * 16 + s.winner[t]))
    else:
        # OpenSpiel's perfect-information view: point cards, who won, and both hands.
        for t in range(s.turn):
            h = mix64(h, <uint64_t>(s.point[t] * 16 + s.winner[t]))
        h = mix64(h, <uint64_t>(s.hand[0] * 65536 + s.hand[1]))
    if s.turn < s.n and not s.need_point:
        h = mix64(h, <uint64_t>(2000 + s.point[s.turn]))
    h = mix64(h, <uint64_t>(3000 + s.pending[player] + 1))
    return h

cdef int gs_make_current(void* st, int seat) noexcept nogil:
    cdef GoofState* s = <GoofState*>st
    if gs_current_player(st) >= 0 and s.pending[seat] < 0:
        s.priority = seat
        return 1
    return 0

cdef GameDef GS_DEF
GS_DEF.game_id = b"goofspiel"
GS_DEF.state_size = sizeof(GoofState)
GS_DEF.max_players = 2
GS_DEF.num_distinct_actions = MAX_CARDS
GS_DEF.max_legal_actions = MAX_CARDS
GS_DEF.max_decision_actions = MAX_CARDS
GS_DEF.max_game_length = 3 * MAX_CARDS
GS_DEF.num_players = gs_num_players
GS_DEF.current_player = gs_current_player
GS_DEF.legal_actions = gs_legal_actions
GS_DEF.apply_action = gs_apply_action
GS_DEF.chance_outcomes = gs_chance_outcomes
GS_DEF.sample_chance = gs_sample_chance
GS_DEF.returns = gs_returns
GS_DEF.determinize = gs_determinize
GS_DEF.infoset_key = gs_infoset_key
GS_DEF.make_current = gs_make_current

GAME_DEF = PyCapsule_New(<void*>&GS_DEF, GAMEDEF_CAPSULE, NULL)

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
    cdef const unsigned char[::1] view = data
    cdef const GoofState* s = <const GoofState*>&view[0]
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


# Naming, typing and reading actions is plain Python, in the room's actions.py.
from fagin.engines.goofspiel.actions import action_from_typed, action_label, typed_action
