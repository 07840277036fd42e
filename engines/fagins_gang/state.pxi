# Fagin's Gang's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

def colour_index(value, field):
    """The index of a colour name (``"blue"`` or ``"COLOUR_BLUE"``); ValueError naming ``field``."""
    return _enum_index(value, tuple(COLOURS), "COLOUR_", field)



def initial_state_bytes(int players):
    """The game before the set-up dice (FG-19): stocks, stalls, shillings, urchins in the den."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players: Fagin's Gang takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    cdef FGState s
    memset(&s, 0, sizeof(FGState))
    s.players = players
    for c in range(NC):
        s.warehouse[c] = STOCK[players] - STALL_START - players * START_GOODS
        s.stall[c] = STALL_START
    for p in range(players):
        for c in range(NC):
            s.hand[p][c] = START_GOODS
        s.shillings[p] = START_SH
        s.den[p] = URCHINS
    for L in range(NL):
        s.cdir[L] = -1                 # not placed yet: the street, facing down (a blank)
    s.winner = -1
    s.phase = PH_SETUP_CONSTABLE
    return (<char*>&s)[:sizeof(FGState)]


@cython.boundscheck(True)
@cython.wraparound(True)
cdef FGState _read(data) except *:
    cdef FGState s
    read_state(data, &s, sizeof(FGState), "not a Fagin's Gang state")
    return s


def _goods_list(counts):
    return [int(counts[c]) for c in range(NC)]


def describe(data):
    """The whole state as a plain dict, in the shape of the ``FaginsGangState`` message."""
    cdef FGState s = _read(data)
    urchins = []
    for L in range(NL):
        for q in range(s.players):
            for _ in range(s.street[L][q]):
                urchins.append({"seat": q, "location": L, "space": 0})
        for sp in range(1, N_SPACES):
            if s.board[L][sp]:
                urchins.append({"seat": s.board[L][sp] - 1, "location": L, "space": sp})
    seats = [{"shillings": s.shillings[p], "goods": _goods_list(s.hand[p]), "home": s.home[p],
              "den": s.den[p]} for p in range(s.players)]
    in_market = s.phase == PH_MARKET
    return {
        "players": s.players,
        "phase": PHASES[s.phase],
        "round": s.round,
        "first_player": s.first,
        "active_player": s.active,
        "turns_done": s.turns_done,
        "action": ACTIONS[s.action],
        "steps_done": s.ops,
        "used_locations": [L for L in range(NL) if (s.used >> L) & 1],
        "white_hands_left": s.white_left,
        "white_hand_min": COLOURS[s.white_min] if s.phase == PH_WHITE else None,
        "exchange_paid": s.swap_paid,
        "exchange_min": COLOURS[s.swap_min] if s.phase == PH_SWAP_PAY else None,
        "market_caller": s.caller if s.action == AK_MARKET else None,
        "market_seat": s.mseat if in_market else None,
        "market_visited": s.mvisited if s.action == AK_MARKET else 0,
        "market_buying": bool(s.mbuying) if in_market else False,
        "market_sold": s.msold if in_market else 0,
        "market_bought": s.mbought if in_market else 0,
        "market_last": COLOURS[s.mlast] if in_market else None,
        "setup_step": s.setup_step if s.phase == PH_SETUP_CONSTABLE else 0,
        "wheel": s.wheel,
        "prices": [price(&s, c) for c in range(NC)],
        "warehouses": _goods_list(s.warehouse),
        "stalls": _goods_list(s.stall),
        "seats": seats,
        "urchins": urchins,
        "constables": [{"space": s.cpos[L], "facing_up": s.cdir[L] > 0} for L in range(NL)],
        "winner": s.winner if s.phase == PH_OVER else None,
    }


def view(data, int seat):
    """The state as ``seat`` sees it: everything, since nothing is hidden (FG-27)."""
    cdef FGState s = _read(data)
    if not 0 <= seat < s.players:
        raise ValueError(f"seat: {seat} is not a seat of this {s.players}-player game")
    return describe(data)


def _goods_in(value, field):
    if value is None or len(value) != NC:
        raise ValueError(f"{field}: expected {NC} counts, one per colour ({', '.join(COLOURS)})")
    return value


def _colour_or_none(d, key, need):
    v = d.get(key)
    if not need:
        if v is not None:
            raise ValueError(f"{key}: only in phase {'/'.join(need_phases[key])}")
        return 0
    return colour_index(v, key)


need_phases = {"white_hand_min": ("white_hand",), "exchange_min": ("exchange_pay",),
               "market_last": ("market",)}


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d, game=None):
    """Builds a state from a dict shaped like :func:`describe`'s, checking it.

    Every cube lies in exactly one place: warehouses, stalls and seats' goods add up
    to the stock of each colour for the player count (FG-6); every seat has its five
    urchins in the den, on the board or home (FG-10); at most one urchin per space and
    none on a constable's space (FG-13, FG-14).  ``prices`` is output only.
    """
    cdef FGState s
    memset(&s, 0, sizeof(FGState))
    _read_turn(&s, d)
    _place_cubes(&s, d)
    _place_constables(&s, d)
    _place_urchins(&s, d)
    s.winner = -1
    _check_winner(&s, d)
    _check_setup(&s)
    _check_turn_order(&s)
    _check_action(&s)
    _check_steps(&s)
    _check_white_hands(&s)
    _check_exchange(&s)
    _read_market(&s, d)
    _check_something_to_do(&s)
    return (<char*>&s)[:sizeof(FGState)]


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_turn(FGState* s, d):
    """The round, whose turn it is and the action under way; a game ends after its last round (FG-25)."""
    cdef int L
    players = d["players"]
    s.players = players
    s.phase = _enum_index(d.get("phase"), PHASES, "PHASE_", "phase")
    s.round = d.get("round") or 0
    if s.round >= MAX_ROUNDS and s.phase != PH_OVER:
        raise ValueError(f"round: {s.round} rounds completed ends the game (FG-25)")
    s.first = _int_in(d.get("first_player", 0), 0, players - 1, "first_player")
    s.active = _int_in(d.get("active_player", 0), 0, players - 1, "active_player")
    s.turns_done = _int_in(d.get("turns_done", 0) or 0, 0, players, "turns_done")
    s.action = _enum_index(d.get("action"), ACTIONS, "ACTION_", "action")
    s.ops = d.get("steps_done") or 0
    for i, L in enumerate(d.get("used_locations") or ()):
        if (s.used >> L) & 1:
            raise ValueError(f"used_locations[{i}]: location {L} is listed twice")
        s.used |= 1 << L
    s.white_left = d.get("white_hands_left") or 0
    s.swap_paid = d.get("exchange_paid") or 0
    s.wheel = d.get("wheel") or 0
    s.setup_step = d.get("setup_step") or 0
    s.white_min = _colour_or_none(d, "white_hand_min", s.phase == PH_WHITE)
    s.swap_min = _colour_or_none(d, "exchange_min", s.phase == PH_SWAP_PAY)
    s.mlast = _colour_or_none(d, "market_last", s.phase == PH_MARKET)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _place_cubes(FGState* s, d):
    """Warehouses, stalls and seats' goods hold every cube of the player count's stock once (FG-6)."""
    cdef int p, c
    players = s.players
    totals = [0] * NC
    for key in ("warehouses", "stalls"):
        vals = _goods_in(d.get(key), key)
        for c in range(NC):
            totals[c] += vals[c]
            if key == "warehouses":
                s.warehouse[c] = vals[c]
            else:
                s.stall[c] = vals[c]
    for p, (where, seat) in enumerate(_one_per_seat(d.get("seats"), players)):
        s.shillings[p] = seat.get("shillings") or 0
        vals = _goods_in(seat.get("goods"), f"{where}.goods")
        for c in range(NC):
            s.hand[p][c] = vals[c]
            totals[c] += vals[c]
        s.home[p] = seat.get("home") or 0
        den_given = seat.get("den")
        s.den[p] = den_given if den_given is not None else -1
    for c in range(NC):
        if totals[c] != STOCK[players]:
            raise ValueError(f"warehouses: {totals[c]} {COLOURS[c]} cubes in warehouses, stalls and seats' goods; "
                             f"{players} players play with {STOCK[players]} (FG-6: every cube in one place)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _place_constables(FGState* s, d):
    """One constable a location, on a space and facing up or down."""
    cdef int L
    constables = d.get("constables")
    if constables is None or len(constables) != NL:
        raise ValueError(f"constables: expected {NL}, one per location")
    for L, con in enumerate(constables):
        s.cpos[L] = con.get("space") or 0
        s.cdir[L] = 1 if con.get("facing_up") else -1


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _place_urchins(FGState* s, d):
    """Every seat's five urchins in the den, on the board or home (FG-10), at most one to a space
    and none on a constable's (FG-13, FG-14)."""
    cdef int L, sp, p
    players = s.players
    urchins = d.get("urchins") or []
    if len(urchins) > players * URCHINS:
        raise ValueError(f"urchins: expected a list of at most {players * URCHINS} urchins")
    on_board = [0] * players
    for i, u in enumerate(urchins):
        where = f"urchins[{i}]"
        q = _int_in(u.get("seat"), 0, players - 1, f"{where}.seat")
        L = u.get("location") or 0
        sp = u.get("space") or 0
        if sp and s.board[L][sp]:
            raise ValueError(f"{where}: two urchins on space {sp} of location {L} (FG-14)")
        if s.phase > PH_SETUP_WHEEL and s.cpos[L] == sp:
            raise ValueError(f"{where}: on the constable's space of location {L} (FG-13, FG-20)")
        if sp:
            s.board[L][sp] = q + 1
        else:
            s.street[L][q] += 1
        on_board[q] += 1
    if s.phase <= PH_SETUP_WHEEL and urchins:
        raise ValueError("urchins: none is on the board before the set-up dice are rolled")
    for p in range(players):
        if s.den[p] < 0:
            # Left out: the den holds the urchins neither on the board nor home (FG-10).
            s.den[p] = max(URCHINS - on_board[p] - s.home[p], 0)
        if s.den[p] + on_board[p] + s.home[p] != URCHINS:
            raise ValueError(f"seats[{p}].den: {s.den[p]} in the den, {on_board[p]} on the board and "
                             f"{s.home[p]} home: a seat has {URCHINS} urchins (FG-10)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_winner(FGState* s, d):
    """The game ends with three urchins home or after the last round (FG-23, FG-25), and the
    rules fix its winner (FG-24): left out it is derived, given it must match."""
    players = s.players
    if s.phase == PH_OVER:
        given = d.get("winner")
        s.winner = best_seat(s) if given is None else _int_in(given, 0, players - 1, "winner")
        reached = any(s.home[q] >= HOME_TO_WIN for q in range(players))
        if not reached and s.round < MAX_ROUNDS or s.round == 0:
            raise ValueError(f"phase: the game ends only with {HOME_TO_WIN} urchins home or after "
                             f"{MAX_ROUNDS} rounds (FG-23, FG-25)")
        if s.winner != best_seat(s):
            raise ValueError(f"winner: seat {best_seat(s)} wins by FG-24, not {s.winner}")
    elif d.get("winner") is not None:
        raise ValueError("winner: only when the game is over")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_setup(FGState* s):
    """Until the first round the table is as the set-up leaves it, and the constables stand where
    the set-up dice put them (FG-6, FG-16, FG-19)."""
    cdef int L, c
    players, ph = s.players, s.phase
    if ph <= PH_SETUP_WHEEL:
        if s.round or s.turns_done or s.action or s.first or s.active:
            raise ValueError("round: set-up comes before the first round")
        if any(s.shillings[q] != START_SH or s.home[q] for q in range(players)):
            raise ValueError(f"seats: every seat has {START_SH} shillings and no urchin home at set-up (FG-19)")
        # FG-6: the cubes lie where the set-up puts them until the first turn.
        for q in range(players):
            if any(s.hand[q][c] != START_GOODS for c in range(NC)):
                raise ValueError(f"seats[{q}].goods: every seat starts with {START_GOODS} cubes of each colour "
                                 f"(FG-6)")
        if any(s.stall[c] != STALL_START for c in range(NC)):
            raise ValueError(f"stalls: {STALL_START} cubes of each colour stock the stalls at set-up (FG-6)")
        if s.wheel:
            raise ValueError("wheel: the set-up's wheel die turns it from position 0 when the constables are "
                             "placed (FG-16), so it is 0 until then")
        if ph == PH_SETUP_CONSTABLE:
            # Constables not yet placed are left at the street, facing down (the engine's blank).
            for L in range(s.setup_step, NL):
                if s.cpos[L] != 0 or s.cdir[L] != -1:
                    raise ValueError(f"constables[{L}]: not placed yet (setup_step {s.setup_step}): "
                                     f"give space 0, facing down")
        elif s.setup_step:
            raise ValueError("setup_step: only in phase setup_constable")
    elif s.setup_step:
        raise ValueError("setup_step: only in phase setup_constable")
    if ph <= PH_SETUP_WHEEL:
        for L in range(s.setup_step if ph == PH_SETUP_CONSTABLE else NL):
            if (s.cpos[L], s.cdir[L]) not in SETUP_PLACES:
                raise ValueError(f"constables[{L}]: no set-up die puts a constable on space {s.cpos[L]} "
                                 f"facing {'up' if s.cdir[L] > 0 else 'down'} (FG-19)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_turn_order(FGState* s):
    """The start-player coin passes one seat a round and the seats act in turn from it
    (FG-19, FG-21); a round in which the third urchin got home ended the game (FG-23)."""
    players, ph = s.players, s.phase
    if ph > PH_SETUP_WHEEL:
        # FG-19, FG-21: seat 0 holds the start-player coin in the first round and it passes one
        # seat a round; the round that ends the game does not pass it (FG-23, FG-25).
        holder = (s.round - (1 if ph == PH_OVER else 0)) % players
        if s.first != holder:
            raise ValueError(f"first_player: seat {s.first}, but after {s.round} rounds the start-player coin "
                             f"is with seat {holder} (FG-19, FG-21)")
    if ph == PH_CHOOSE and s.turns_done == 0:
        for q in range(players):
            if s.home[q] >= HOME_TO_WIN:
                # Urchins get home only in Phase 1; the round it happened ended the game.
                raise ValueError(f"seats[{q}].home: {s.home[q]} urchins home at the start of a round, but the "
                                 f"round in which the {HOME_TO_WIN}rd got home ended the game (FG-23)")
    if ph in (PH_CHOOSE, PH_OPS, PH_WHITE, PH_SWAP_PAY, PH_SWAP_PICK, PH_MARKET, PH_WHEEL):
        if s.turns_done >= players:
            raise ValueError(f"turns_done: {s.turns_done} seats have acted; the round's patrol is due")
        if s.active != (s.first + s.turns_done) % players:
            raise ValueError(f"active_player: seat {(s.first + s.turns_done) % players} acts after "
                             f"{s.turns_done} turns from first player {s.first} (FG-21)")
    if ph in (PH_PATROL, PH_OVER):
        if s.turns_done != players:
            raise ValueError(f"turns_done: the patrol comes after all {players} seats have acted")
        if s.active != (s.first + players - 1) % players:
            raise ValueError(f"active_player: seat {(s.first + players - 1) % players}, the last of the round, "
                             f"acted before the patrol")


cdef bint _in_turn(const FGState* s):
    """Whether a seat is taking its action's steps (a move, a steal or its exchange)."""
    return s.phase in (PH_OPS, PH_WHITE, PH_SWAP_PAY, PH_SWAP_PICK)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_action(FGState* s):
    """The phase belongs to the action under way, and none is chosen before phase choose ends."""
    ph = s.phase
    if ph == PH_CHOOSE:
        if s.action != AK_NONE:
            raise ValueError("action: none is chosen yet in phase choose")
    elif _in_turn(s):
        if s.action not in (AK_MOVE, AK_STEAL, AK_SHILL):
            raise ValueError(f"action: phase {PHASES[ph]} belongs to action move, steal_goods or steal_shillings")
        if ph != PH_OPS and s.action != AK_STEAL:
            raise ValueError(f"action: phase {PHASES[ph]} belongs to action steal_goods")
    elif ph in (PH_MARKET, PH_WHEEL):
        if s.action != AK_MARKET:
            raise ValueError(f"action: phase {PHASES[ph]} belongs to action market")
    elif s.action != AK_NONE:
        raise ValueError(f"action: no action is under way in phase {PHASES[ph]}")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_steps(FGState* s):
    """An action is at most three steps at locations of their own (FG-2), an exchange made
    instead of a steal at a location with the seat's urchin (FG-4)."""
    ph = s.phase
    if not _in_turn(s) and (s.ops or s.used):
        raise ValueError("steps_done: steps are counted only while an action is taken")
    if not _in_turn(s):
        return
    nused = bin(s.used).count("1")
    if ph == PH_SWAP_PAY or ph == PH_SWAP_PICK:
        if s.ops >= 3:
            raise ValueError("steps_done: an exchange under way is a step beyond three (FG-2)")
    elif ph == PH_WHITE:
        if s.ops < 1 or nused < 1:
            raise ValueError("steps_done: white hands follow a steal")
    elif s.ops >= 3:
        raise ValueError("steps_done: after three steps the action is over (FG-2)")
    if nused > s.ops:
        raise ValueError(f"used_locations: {nused} locations used in {s.ops} steps")
    if s.action != AK_STEAL and nused != s.ops:
        raise ValueError(f"used_locations: {nused} locations used in {s.ops} steps")
    if s.action == AK_STEAL:
        # FG-4: an exchange is made instead of a steal at a location of its own.
        swaps = exchanges_done(s) + (1 if ph in (PH_SWAP_PAY, PH_SWAP_PICK) else 0)
        if swaps > free_locations(s, s.active):
            raise ValueError(f"steps_done: {swaps} exchanges, each made instead of a steal at a location "
                             f"with an urchin of seat {s.active}, but only {free_locations(s, s.active)} "
                             f"such locations are not used by its steals (FG-4)")
    if ph == PH_OPS and s.ops == 0 and nused:
        raise ValueError("used_locations: no step taken yet")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_white_hands(FGState* s):
    """The white hands left are those of a steal at a used location, where the seat's urchin
    still stands, and a cube in stock to take (FG-4)."""
    cdef int L, sp
    if s.phase == PH_WHITE:
        if s.white_left < 1 or stock_total(s) == 0:
            raise ValueError("white_hands_left: phase white_hand needs a white hand to choose and a cube in stock")
        # At most the most such a space shows; with as many left as every such space shows,
        # none is chosen yet and the colours start from the first.
        hands = [WHITE[L][sp] for L in range(NL) if (s.used >> L) & 1
                 for sp in range(N_SPACES) if has_urchin(s, s.active, L, sp)]
        if not hands or s.white_left > max(hands):
            raise ValueError(f"white_hands_left: {s.white_left}, more than a steal at a used location of seat "
                             f"{s.active}'s urchins shows (at most {max(hands) if hands else 0}, FG-4)")
        if s.white_min and all(h <= s.white_left for h in hands):
            raise ValueError(f"white_hand_min: no white hand is chosen yet ({s.white_left} left of the steal's), "
                             f"so the first colour comes first (FG-4)")
    elif s.white_left:
        raise ValueError("white_hands_left: only in phase white_hand")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_exchange(FGState* s):
    """An exchange is three cubes paid, then as many taken from the warehouses (FG-4)."""
    cdef int c
    ph = s.phase
    if ph == PH_SWAP_PAY:
        if not 1 <= s.swap_paid <= 2:
            raise ValueError("exchange_paid: phase exchange_pay follows one or two cubes paid")
        if not any(pay_legal(s, s.active, c) for c in range(NC)):
            raise ValueError(f"seats[{s.active}].goods: too few cubes to finish the exchange (FG-4)")
    elif ph == PH_SWAP_PICK:
        if s.swap_paid != 3:
            raise ValueError("exchange_paid: all three cubes are paid in phase exchange_take")
    elif s.swap_paid:
        raise ValueError("exchange_paid: only in phase exchange_pay")
    if ph == PH_SWAP_PICK and stock_total(s) == 0:
        raise ValueError("warehouses: the exchanged cubes lie in the warehouses in phase exchange_take")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_market(FGState* s, d):
    """The seat whose turn it is sends everyone to the market, where they trade in turn from it
    (FG-17, FG-18) before the wheel turns."""
    players, ph = s.players, s.phase
    if ph in (PH_MARKET, PH_WHEEL):
        s.caller = _int_in(d.get("market_caller"), 0, players - 1, "market_caller")
        if s.caller != s.active:
            raise ValueError(f"market_caller: seat {s.active} whose turn it is sent everyone to the market")
        s.mvisited = _int_in(d.get("market_visited", 0) or 0, 0, players, "market_visited")
        if ph == PH_WHEEL and s.mvisited != players:
            raise ValueError(f"market_visited: the wheel turns after all {players} seats traded")
        if ph == PH_MARKET:
            _read_market_seat(s, d)
        else:
            s.mseat = s.caller
            for key in ("market_seat",):
                if d.get(key) is not None:
                    raise ValueError(f"{key}: only in phase market")
    else:
        for key in ("market_caller", "market_seat"):
            if d.get(key) is not None:
                raise ValueError(f"{key}: only while the market is visited")
        if d.get("market_visited") or d.get("market_buying") or d.get("market_sold") or d.get("market_bought"):
            raise ValueError("market_visited: only while the market is visited")
    if ph != PH_MARKET and (d.get("market_buying") or d.get("market_sold") or d.get("market_bought")):
        raise ValueError("market_sold: only in phase market")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_market_seat(FGState* s, d):
    """The seat trading at the market: its turn from the caller, what it has sold and bought,
    and a trade left to make (FG-17, FG-18)."""
    players = s.players
    if s.mvisited >= players:
        raise ValueError("market_visited: every seat has traded; the wheel is due")
    s.mseat = _int_in(d.get("market_seat"), 0, players - 1, "market_seat")
    if s.mseat != (s.caller + s.mvisited) % players:
        raise ValueError(f"market_seat: seat {(s.caller + s.mvisited) % players} trades after "
                         f"{s.mvisited} seats from the caller (FG-17)")
    s.mbuying = 1 if d.get("market_buying") else 0
    s.msold = d.get("market_sold") or 0
    s.mbought = d.get("market_bought") or 0
    if s.mbought and not s.mbuying:
        raise ValueError("market_buying: a seat that bought is buying")
    if s.mbuying and not s.mbought:
        raise ValueError("market_bought: a seat buying has bought a cube")
    if not (s.msold or s.mbought) and s.mlast != 0:
        raise ValueError("market_last: nothing traded yet, so give the first colour")
    if not market_options(s, s.mseat):
        raise ValueError(f"market_seat: seat {s.mseat} has no trade left to make (FG-18)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_something_to_do(FGState* s):
    """A seat taking an action's steps has a step to take; with none left the action is over (FG-2)."""
    if s.phase == PH_OPS and not any_op(s, s.active, s.action) and s.ops == 0:
        raise ValueError(f"action: seat {s.active} has no step of {ACTIONS[s.action]} to take")
    if s.phase == PH_OPS and s.ops > 0 and not any_op(s, s.active, s.action):
        raise ValueError(f"steps_done: seat {s.active} has no step left, so the action is over (FG-2)")


def summary(data):
    d = describe(data)
    return (f"{d['players']} players, round {d['round'] + 1}, {d['phase']}, active {d['active_player']}, "
            f"home {[st['home'] for st in d['seats']]}, shillings {[st['shillings'] for st in d['seats']]}")


_SHORT = {"blue": "Bl", "purple": "Pu", "green": "Gr", "yellow": "Ye", "black": "Bk", "red": "Re"}


def _goods_text(counts):
    return " ".join(f"{_SHORT[COLOURS[c]]}{n}" for c, n in enumerate(counts) if n) or "-"


#: The symbols of the table ``render`` draws, as ``fagin play``'s help explains them.
SYMBOLS = (
    ("F", "the seat holding the start-player coin"),
    ("Bl Pu Gr Ye Bk Re", "the goods' colours: blue, purple, green, yellow, black, red"),
    ("Bl 2s", "the wheel's price of a blue cube, in shillings"),
    ("Bl2", "two blue cubes (on the stalls, in a warehouse or in a seat's goods)"),
    ("-", "nothing: no cube left there"),
    ("street, L0-L5", "a location's track: the street, then levels 0 to 5 (5 the top)"),
    ("12", "on a track: the urchins of seats 1 and 2 (one digit per urchin, its seat)"),
    ("C^, Cv", "the location's constable, facing up or facing down its track"),
    (".", "an empty space of a track"),
    ("home N", "a seat's urchins home to Fagin"),
    ("den N", "a seat's urchins in Fagin's den, not yet on a track"),
    ("white hands N", "white hands left to spend on this action"),
)


def render(data, seat=None):
    """The table as text: prices and stocks, each location's track, each seat's holdings."""
    d = describe(data)
    lines = [f"Fagin's Gang - round {d['round'] + 1} - {d['phase'].replace('_', ' ')}"
             + (" - game over" if d["phase"] == "over" else "")]
    lines.append("market prices: " + "  ".join(f"{_SHORT[c]} {d['prices'][i]}s" for i, c in enumerate(COLOURS)))
    lines.append(f"market stalls: {_goods_text(d['stalls'])}")
    lines.append(f"warehouses:    {_goods_text(d['warehouses'])}")
    # Each cell shows the seat numbers of the urchins on it (the street holds any number,
    # FG-8) or the constable (C, its arrow ^ or v); "." is empty.
    cells = {}
    for u in d["urchins"]:
        cells[(u["location"], u["space"])] = cells.get((u["location"], u["space"]), "") + str(u["seat"])
    lines.append(" " * 21 + f"{'street':>8} " + " ".join(f"{'L' + str(i):>3}" for i in range(N_SPACES - 1))
                 + "  (urchins by seat)")
    for L in range(NL):
        con = d["constables"][L]
        row = []
        for sp in range(N_SPACES):
            mark = "".join(sorted(cells.get((L, sp), ""))) or "."
            if con["space"] == sp and d["phase"] not in ("setup_constable", "setup_wheel"):
                mark = "C" + ("^" if con["facing_up"] else "v")
            row.append(f"{mark:>3}" if sp else f"{mark:>8}")
        lines.append(f"{LOCATIONS[L]:15} ({_SHORT[COLOURS[L]]}) " + " ".join(row))
    for p, st in enumerate(d["seats"]):
        marks = ("F" if p == d["first_player"] else " ") + ("*" if p == d["active_player"] else " ")
        lines.append(f"{marks}seat {p}: {st['shillings']:3} shilling{'' if st['shillings'] == 1 else 's'}, home {st['home']}, den {st['den']}, "
                     f"goods {_goods_text(st['goods'])}")
    if d["action"] != "none":
        lines.append(f"action: {d['action'].replace('_', ' ')}, steps {d['steps_done']}"
                     + (f", white hands {d['white_hands_left']}" if d["white_hands_left"] else "")
                     + (f", market: seat {d['market_seat']} trades" if d["market_seat"] is not None else ""))
    if d["winner"] is not None:
        lines.append(f"winner: seat {d['winner']}")
    return "\n".join(lines)
