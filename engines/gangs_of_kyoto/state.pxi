# Gangs of Kyoto's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

# The Special Action cards as the rulebook names them (GK-2), for labels and text.
SPECIAL_NAMES = {"discard": "Discard", "stay_late": "Stay Late", "refuse": "Refuse"}


def card_name(int k):
    """A short name: ``3+2b`` (value 3, 2 bells), ``2d`` (draw), ``Bell card +1``, ``Discard``,
    ``Stay Late``, ``Refuse``: the special cards as the rulebook names them (GK-2)."""
    c = CARDS[k]
    if c["kind"] == "exploration":
        return f"{c['value']}" + (f"+{c['bells']}b" if c["bells"] else "") + ("d" if c["draw"] else "")
    if c["kind"] == "bell":
        return f"Bell card +{c['bells']}"
    return SPECIAL_NAMES[c["kind"]]


def card_dict(int k):
    """The typed form of a kind of card (the ``GangsOfKyotoCard`` message)."""
    c = CARDS[k]
    return {"kind": c["kind"], "value": c["value"], "bells": c["bells"], "draw": c["draw"]}


cdef dict _CARD_INDEX = CARD_INDEX


cdef int _known_card(d):
    """The kind index of a card dict spelt as the codec spells it, found by one lookup (a state
    lists up to a hundred cards); -1 for anything else, which kind_of_card reads or refuses."""
    if type(d) is not dict:
        return -1
    cdef dict card = <dict>d          # typed: C-level lookups, a state holds up to 116 cards
    try:
        found = _CARD_INDEX.get((card.get("kind"), card.get("value") or 0, card.get("bells") or 0,
                                 bool(card.get("draw"))))
    except TypeError:       # an unhashable value: refused by kind_of_card
        return -1
    return -1 if found is None else <int>found


def kind_of_card(d, field):
    """The kind index of a card dict; ValueError naming `field` if no card of the deck matches."""
    cdef int known = _known_card(d)
    if known >= 0:
        return known
    if not isinstance(d, dict):
        raise ValueError(f"{field}: expected a card")
    kind = KINDS[_enum_index(d.get("kind"), KINDS, "KIND_", f"{field}.kind")]
    want = (kind, d.get("value") or 0, d.get("bells") or 0, bool(d.get("draw")))
    for k, c in enumerate(CARDS):
        if (c["kind"], c["value"], c["bells"], c["draw"]) == want:
            return k
    raise ValueError(f"{field}: no such card in the deck: {d!r}")



def initial_state_bytes(int players, play_through=False, open_piles=False):
    """The game before the first deal; seat 0 holds the First Player card (GK-3)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players: Gangs of Kyoto takes 2 to 5 players, not {players}")
    cdef GKState s
    memset(&s, 0, sizeof(GKState))
    s.players = players
    s.play_through = 1 if play_through else 0
    s.open_piles = 1 if open_piles else 0
    for t in range(NUM_KINDS):
        s.pool[t] = COUNT_OF[t]
    s.revealed = -1
    s.arriving = -1
    s.receiver = -1
    s.winner = -1
    s.first = 0
    s.active = 0
    _hash_position(&s)
    start_turn(&s)
    advance(&s)
    return (<char*>&s)[:sizeof(GKState)]


cdef void _hash_position(GKState* s) noexcept nogil:
    """The public hash starts from the whole public position (GK-18)."""
    cdef int p, t, i
    cdef uint64_t h = mix64(<uint64_t>EV_POSITION, <uint64_t>(s.players * 64 + s.first * 8 + s.active))
    h = mix64(h, <uint64_t>(s.play_through * 2 + s.open_piles + s.gen * 4 + s.deck_ran_out * 1024))
    for t in range(NUM_KINDS):
        h = mix64(h, <uint64_t>s.discard[t])
    for p in range(s.players):
        h = mix64(h, <uint64_t>(s.hidden_len[p] + 256 * s.row_len[p]))
        for i in range(s.row_len[p]):
            h = mix64(h, <uint64_t>s.row[p][i])
        for t in range(NUM_KINDS):
            h = mix64(h, <uint64_t>s.vp[p][t])
        if s.open_piles:
            for i in range(s.hidden_len[p]):
                h = mix64(h, <uint64_t>s.hidden[p][i])
    h = mix64(h, <uint64_t>(s.hand_len * 256 + s.top_len * 16 + s.to_draw + 4096 * s.received))
    h = mix64(h, <uint64_t>((s.revealed + 1) * 4096 + (s.arriving + 1) * 64 + s.receiver + 1 + s.phase * 65536))
    s.public_hash = h
    for p in range(s.players):
        s.private_hash[p] = hidden_hash(s, p)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef GKState _read(data) except *:
    cdef GKState s
    read_state(data, &s, sizeof(GKState), "not a Gangs of Kyoto state")
    return s


def _cards(counts_or_list):
    return [card_dict(k) for k in counts_or_list]


def describe(data):
    """The whole state as a plain dict, in the shape of the ``GangsOfKyotoState`` message."""
    cdef GKState s = _read(data)
    seats = []
    for p in range(s.players):
        vp = [k for k in range(NUM_KINDS) for _ in range(s.vp[p][k])]
        hidden = [s.hidden[p][i] for i in range(s.hidden_len[p])]
        seats.append({
            "row": _cards([s.row[p][i] for i in range(s.row_len[p])]),
            "victory_pile": _cards(vp),
            "hidden_bells": _cards(hidden),
            "hidden_bell_count": len(hidden),
            "bells": bells_of(&s, p),
            "row_sum": s.row_sum[p],
            "limit": limit_of(&s, p),
        })
    pool = [k for k in range(NUM_KINDS) for _ in range(s.pool[k])]
    discard = [k for k in range(NUM_KINDS) for _ in range(s.discard[k])]
    return {
        "players": s.players,
        "options": {"play_through": bool(s.play_through), "open_piles": bool(s.open_piles)},
        "phase": PHASES[s.phase],
        "first_player": s.first,
        "active_player": s.active,
        "rounds": s.rounds,
        "seats": seats,
        "deck": _cards(pool),
        "deck_top": _cards([s.top[i] for i in range(s.top_len - 1, -1, -1)]),
        "deal": _cards([s.hand[i] for i in range(s.hand_len)]),
        "deal_to_draw": s.to_draw,
        "discard": _cards(discard),
        "revealed": card_dict(s.revealed) if s.revealed >= 0 else None,
        "received": [p for p in range(s.players) if (s.received >> p) & 1],
        "receiver": s.receiver if s.phase in (PH_REFUSE, PH_DRAW_EFFECT) else None,
        "arriving": card_dict(s.arriving) if s.arriving >= 0 else None,
        "arriving_drawn": bool(s.arriving_drawn) if s.arriving >= 0 else None,
        "deck_ran_out": bool(s.deck_ran_out),
        "winner": s.winner if s.winner >= 0 else None,
        "unseen": [],
        "deal_size": s.hand_len,
        "deck_top_size": s.top_len,
    }


def generations(data):
    """For tests: whether each face-down card is from an older deck than the current one."""
    cdef GKState s = _read(data)
    return {"deal": [s.hand_gen[i] != s.gen for i in range(s.hand_len)],
            "deck_top": [s.top_gen[i] != s.gen for i in range(s.top_len)],
            "hidden": [[s.hidden_gen[p][i] != s.gen for i in range(s.hidden_len[p])]
                       for p in range(s.players)]}


_KIND_ORDER = {k: i for i, k in enumerate(KINDS)}


def _canonical(cards):
    return sorted(cards, key=lambda c: (_KIND_ORDER[c["kind"]], c["value"], c["bells"], c["draw"]))


def belief_layout(data, int seat):
    """What gk_hidden_counts counts for ``seat`` (GK-22): the places, as (name, owner
    seat or None), and the items (card names by kind, None past the deck's kinds)."""
    places = [(f"seat {p}'s face-down pile", p) for p in range(GK_MAX_PLAYERS)]
    places += [("the deck", None), ("the face-down deal", None), ("put back on the deck", None)]
    return places, [card_name(k) if k < NUM_KINDS else None for k in range(MAX_KINDS)]


def view(data, int seat):
    """The state as ``seat`` sees it (GK-17).

    Every card ``seat`` has not seen — the deck, the face-down deal, the
    cards put back on top and the other seats' face-down Bell cards that a
    client's position did not show it — is listed once, in a canonical order, under
    ``unseen``; ``deal_size``, ``deck_top_size`` and each seat's
    ``hidden_bell_count`` say how many of them lie where.  Other seats'
    ``bells`` then count only their visible victory cards.  The view is a
    valid state and gives ``seat`` the same recommendations.
    """
    cdef GKState s = _read(data)
    if not 0 <= seat < s.players:
        raise ValueError(f"seat: {seat} is not a seat of this {s.players}-player game")
    d = describe(data)
    unseen = d["deck"] + d["deal"] + d["deck_top"]
    for p, st in enumerate(d["seats"]):
        if p != seat and not s.open_piles:
            unseen += st["hidden_bells"]
            st["bells"] -= sum(c["bells"] for c in st["hidden_bells"])
            st["hidden_bells"] = []
    d["unseen"] = _canonical(unseen)
    d["deck"] = []
    d["deal"] = []
    d["deck_top"] = []
    return d


def _card_list(value, field, dict known=None):
    """The kind indexes of a list of card dicts (None: none).  ``known``: {id(card dict): kind}
    of cards already read in this description (the server's codec gives equal cards as one dict)."""
    cdef list kinds = []
    if value is None:
        return kinds
    cdef int k = -1
    cdef Py_ssize_t i
    last = None
    for i in range(len(value)):
        c = value[i]
        if c is last and k >= 0:
            kinds.append(k)            # the same dict as the card before (a deck lists cards by kind)
            continue
        last = c
        if known is not None:
            found = known.get(id(c))
            if found is not None:
                k = found
                kinds.append(k)
                continue
        k = _known_card(c)
        if k < 0:
            k = kind_of_card(c, f"{field}[{i}]")
        if known is not None:
            known[id(c)] = k
        kinds.append(k)
    return kinds


cdef _hidden_from_unseen(GKState* s, list wanted, list unseen):
    """Gives each (seat, n) of `wanted` n Bell cards of `unseen` (kind indexes, which lose
    them) for the face-down part of its pile, keeping every pile within
    bells_allowed (GK-14, GK-18).  Which ones does not matter to a search (GK-18); they
    are dealt with a fixed seed, so one description always gives the same state."""
    cdef int16_t counts[MAX_KINDS]
    cdef int need[GK_MAX_PLAYERS * GEN_CAP]
    cdef int cap[GK_MAX_PLAYERS]
    cdef uint8_t dealt[GK_MAX_PLAYERS * HIDDEN_CAP]
    cdef int allowed = bells_allowed(s), p, i
    cdef Rng rng
    memset(counts, 0, sizeof(counts))
    memset(need, 0, sizeof(need))
    for k in unseen:
        counts[k] += 1
    for p in range(s.players):
        cap[p] = CARDS_NO_CAP
    for p, n in wanted:
        need[p * GEN_CAP] = n
        if allowed != CARDS_NO_CAP:
            cap[p] = allowed - bells_of(s, p)
    rng_seed(&rng, 0)
    if deal_hidden(s, counts, 1, need, cap, dealt, &rng) != 1:
        bells = sorted(BELLS_OF[k] for k in unseen if IS_BELL[k])
        p = wanted[0][0]
        raise ValueError(
            f"seats[{p}].hidden_bell_count: the unseen cards hold {len(bells)} Bell cards "
            f"({sum(bells)} bells), which cannot fill {sum(n for _, n in wanted)} face-down places "
            + ("without a pile reaching 13 bells (GK-14)" if allowed != CARDS_NO_CAP else "(GK-17)"))
    for p, n in wanted:
        for i in range(n):
            k = dealt[p * HIDDEN_CAP + i]
            unseen.remove(k)
            s.hidden[p][s.hidden_len[p]] = k
            s.hidden_len[p] += 1


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d, game=None):
    """Builds a state from a dict shaped like :func:`describe`'s (or :func:`view`'s), checking it.

    Every card of the deck must be in exactly one place (GK-2).  A view's
    ``unseen`` cards (order ignored) are dealt at random over the face-down
    places — which gives the viewer the same recommendations (GK-18).  All
    unseen cards are taken to be from the current deck.  ``bells``,
    ``row_sum`` and ``limit`` are output only; a ``hidden_bell_count`` above
    the listed ``hidden_bells`` takes the missing ones from ``unseen``.  An
    empty deck (no ``deck``, ``deck_top`` or unseen cards left for it) has run
    out, whatever ``deck_ran_out`` says (GK-16).  Enum values may be given as
    the engine spells them (``"give"``) or by their proto names (``"PHASE_GIVE"``).
    """
    cdef GKState s
    memset(&s, 0, sizeof(GKState))
    # Counted in C, with the card kinds as C ints: a state lists 116 cards.
    cdef int counts[MAX_KINDS]
    memset(counts, 0, sizeof(counts))
    # The description's card dicts read so far (each is alive for the whole call, so its id
    # stays its own): the codec gives equal cards as one dict, read once.
    known = {}
    _read_round(&s, d)
    hidden_wanted = _place_seats(&s, d, counts, known)
    deal, top, unseen = _place_loose_cards(&s, d, counts, known, hidden_wanted)
    dealt = _read_deal(&s, d, counts)
    _check_phase(&s, d, dealt)
    _check_first_player(&s)
    deal_size, top_size = _face_down_sizes(&s, d, deal, top, dealt)
    _check_card_counts(&s, counts)
    _lay_face_down(&s, deal, top, unseen, deal_size, top_size)
    if s.phase == PH_DRAW_EFFECT and pool_total(&s) == 0:
        raise ValueError("deck: phase draw_effect needs a card in the deck")
    if s.phase == PH_DRAW_DEAL and pool_total(&s) == 0:
        raise ValueError("deck: phase draw_deal needs a card in the deck")
    note_taken(&s)          # an empty deck has run out (GK-16)
    if s.phase == PH_OVER:
        _check_over(&s, d, bool(hidden_wanted))
    _hash_position(&s)
    return (<char*>&s)[:sizeof(GKState)]


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_round(GKState* s, d):
    """The players, the variants, the phase, the round and whose turn it is."""
    players = d["players"]
    s.players = players
    options = d.get("options") or {}
    s.play_through = bool(options.get("play_through"))
    s.open_piles = bool(options.get("open_piles"))
    s.phase = _enum_index(d.get("phase"), PHASES, "PHASE_", "phase")
    s.first = _int_in(d.get("first_player", 0), 0, players - 1, "first_player")
    s.active = _int_in(d.get("active_player", 0), 0, players - 1, "active_player")
    s.rounds = d.get("rounds") or 0
    s.deck_ran_out = bool(d.get("deck_ran_out"))


@cython.boundscheck(True)
@cython.wraparound(True)
cdef list _place_seats(GKState* s, d, int* counts, dict known):
    """Each seat's row below its limit with no Bell or Discard card staying there, its victory
    pile of cards with bells and its face-down Bell cards; the (seat, n) of the face-down cards
    to take from ``unseen``."""
    cdef int k
    hidden_wanted = []
    for p, (where, seat) in enumerate(_one_per_seat(d.get("seats"), s.players)):
        row = _card_list(seat.get("row"), f"{where}.row", known)
        if len(row) > ROW_CAP:
            raise ValueError(f"{where}.row: {len(row)} cards, more than the {ROW_CAP} a row can hold")
        total = 0
        for i, k in enumerate(row):
            if KINDS[KIND_OF[k]] in ("bell", "discard"):
                raise ValueError(f"{where}.row[{i}]: a {KINDS[KIND_OF[k]]} card never stays in a row")
            s.row[p][i] = k
            total += VALUE_OF[k]
            counts[k] += 1
        s.row_len[p] = len(row)
        s.row_sum[p] = total
        if total >= limit_of(s, p):
            raise ValueError(f"{where}.row: its sum {total} has reached the limit {limit_of(s, p)}, "
                             f"so the round would have ended")
        for i, k in enumerate(_card_list(seat.get("victory_pile"), f"{where}.victory_pile", known)):
            if BELLS_OF[k] == 0:
                raise ValueError(f"{where}.victory_pile[{i}]: only cards with bells are kept")
            s.vp[p][k] += 1
            counts[k] += 1
        _place_hidden_bells(s, p, where, seat, counts, known, hidden_wanted)
    return hidden_wanted


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _place_hidden_bells(GKState* s, int p, where, seat, int* counts, dict known, list hidden_wanted):
    """A seat's face-down pile holds Bell cards only, face up in the variant open_piles; a count
    above the cards listed is taken from ``unseen`` (GK-17, GK-18)."""
    cdef int k
    hidden = _card_list(seat.get("hidden_bells"), f"{where}.hidden_bells", known)
    if len(hidden) > HIDDEN_CAP:
        raise ValueError(f"{where}.hidden_bells: {len(hidden)} cards, more than the {HIDDEN_CAP} "
                         f"a face-down pile can hold")
    for i, k in enumerate(hidden):
        if KIND_OF[k] != K_BELL:
            raise ValueError(f"{where}.hidden_bells[{i}]: only Bell cards are kept hidden")
        if s.open_piles:
            s.vp[p][k] += 1
        else:
            s.hidden[p][s.hidden_len[p]] = k
            s.hidden_len[p] += 1
        counts[k] += 1
    want = seat.get("hidden_bell_count")
    if want is not None and want != len(hidden):
        want = _int_in(want, len(hidden), HIDDEN_CAP, f"{where}.hidden_bell_count")
        if s.open_piles:
            raise ValueError(f"{where}.hidden_bell_count: {want} face-down cards, but with open_piles "
                             f"every pile is face up (list its cards in hidden_bells)")
        hidden_wanted.append((p, want - len(hidden)))


@cython.boundscheck(True)
@cython.wraparound(True)
cdef tuple _place_loose_cards(GKState* s, d, int* counts, dict known, list hidden_wanted):
    """The discard pile, the deck, the deal, the cards put back on top and a view's unseen
    cards, from which the face-down piles' missing cards are dealt (GK-18); (deal, top, unseen)."""
    cdef int k
    players = s.players
    for k in _card_list(d.get("discard"), "discard", known):
        s.discard[k] += 1
        counts[k] += 1
    for k in _card_list(d.get("deck"), "deck", known):
        s.pool[k] += 1
        counts[k] += 1
    deal = _card_list(d.get("deal"), "deal", known)
    top = _card_list(d.get("deck_top"), "deck_top", known)
    unseen = sorted(_card_list(d.get("unseen"), "unseen", known))
    for k in deal + top + unseen:
        counts[k] += 1
    if hidden_wanted:
        _hidden_from_unseen(s, hidden_wanted, unseen)
    if len(deal) > players:
        raise ValueError(f"deal: {len(deal)} face-down cards, more than one per player ({players})")
    if len(top) > TOP_CAP:
        raise ValueError(f"deck_top: {len(top)} cards, more than the {TOP_CAP} a round can put back")
    return deal, top, unseen


@cython.boundscheck(True)
@cython.wraparound(True)
cdef int _read_deal(GKState* s, d, int* counts) except -1:
    """The deal in progress: the cards still to draw, the seats that received one, the revealed
    and the arriving card; the number of seats that received one."""
    players = s.players
    s.to_draw = _int_in(d.get("deal_to_draw", 0) or 0, 0, players, "deal_to_draw")
    received = d.get("received") or []
    for i, r in enumerate(received):
        _int_in(r, 0, players - 1, f"received[{i}]")
        if (s.received >> r) & 1:
            raise ValueError(f"received[{i}]: seat {r} is listed twice")
        s.received |= 1 << r
    s.revealed = -1
    s.arriving = -1
    s.receiver = -1
    s.winner = -1
    if d.get("revealed") is not None:
        s.revealed = kind_of_card(d["revealed"], "revealed")
        counts[s.revealed] += 1
    if d.get("arriving") is not None:
        s.arriving = kind_of_card(d["arriving"], "arriving")
        counts[s.arriving] += 1
        s.arriving_drawn = bool(d.get("arriving_drawn"))
    return len(received)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _check_phase(GKState* s, d, int dealt):
    """What each phase needs: a revealed card to give with a choice left (GK-5), an arriving card
    to refuse, a receiver listed in received (GK-5, GK-10), cards of the deal still to draw."""
    players = s.players
    if s.phase == PH_GIVE:
        if s.revealed < 0:
            raise ValueError("revealed: phase give needs the revealed card")
        if players - dealt < 2:
            raise ValueError(f"received: {dealt} of {players} seats have a card, so the last card of the deal "
                             f"would go without a choice (GK-5)")
    elif s.revealed >= 0:
        raise ValueError(f"revealed: only in phase give")
    if s.phase == PH_REFUSE:
        if s.arriving < 0:
            raise ValueError("arriving: phase refuse needs the arriving card")
    elif s.arriving >= 0:
        raise ValueError("arriving: only in phase refuse")
    if s.phase in (PH_REFUSE, PH_DRAW_EFFECT):
        _read_receiver(s, d)
    elif d.get("receiver") is not None:
        raise ValueError("receiver: only in phases refuse and draw_effect")
    if s.phase != PH_OVER and d.get("winner") is not None:
        raise ValueError("winner: only when the game is over")
    if s.phase == PH_DRAW_DEAL and s.to_draw == 0:
        raise ValueError("deal_to_draw: phase draw_deal needs a card still to draw")
    if s.phase != PH_DRAW_DEAL and s.to_draw:
        raise ValueError(f"deal_to_draw: {s.to_draw}, but cards of the deal are drawn only in phase draw_deal "
                         f"(elsewhere 0)")
    if s.phase == PH_DRAW_DEAL and s.received:
        raise ValueError("received: the deal is drawn before anyone receives a card")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_receiver(GKState* s, d):
    """The seat a card is reaching: listed in received (GK-5), holding a Refuse card to refuse
    with, or with the draw symbol's card rightmost in its row in phase draw_effect (GK-10)."""
    s.receiver = _int_in(d.get("receiver"), 0, s.players - 1, "receiver")
    if s.phase == PH_REFUSE and count_kind(s, s.receiver, K_REFUSE) == 0:
        raise ValueError(f"receiver: seat {s.receiver} has no Refuse card to refuse with")
    if not (s.received >> s.receiver) & 1:
        # A card reaches a seat only after the seat is marked as received (GK-5), and a
        # draw symbol's card goes to a row that received this turn (GK-10).
        raise ValueError(f"receiver: seat {s.receiver} is receiving a card, so it is listed in received "
                         f"(GK-5, GK-10)")
    if s.phase == PH_DRAW_EFFECT and (s.row_len[s.receiver] == 0
                                      or not DRAWS[s.row[s.receiver][s.row_len[s.receiver] - 1]]):
        raise ValueError(f"receiver: in phase draw_effect the rightmost card of seat {s.receiver}'s row is "
                         f"the draw symbol's card that draws (GK-10)")


cdef _check_first_player(GKState* s):
    """Seat 0 holds the First Player card in the first round and it passes one seat a round; a
    game won mid-round has not passed it for the round it ended (GK-1, GK-13, GK-14)."""
    holders = {s.rounds % s.players}
    if s.phase == PH_OVER and s.rounds > 0:
        holders.add((s.rounds - 1) % s.players)
    if s.first not in holders:
        raise ValueError(f"first_player: seat {s.first}, but after {s.rounds} rounds the First Player card is "
                         f"with seat {' or '.join(map(str, sorted(holders)))} (GK-1, GK-13)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef tuple _face_down_sizes(GKState* s, d, list deal, list top, int dealt):
    """The sizes of the deal's face-down cards and of the cards on top of the deck: a deal is one
    card per player (GK-3), short only once the deck has run out (GK-19), and a draw from the
    shuffled deck has nothing on top (GK-11); (deal_size, top_size)."""
    # A view gives the face-down places' sizes (deal_size, deck_top_size) and their
    # cards among `unseen`; a full description lists them in deal and deck_top.  A view
    # may leave the deal's size out to have it derived.
    players = s.players
    is_view = bool(d.get("unseen"))
    in_play = s.phase != PH_OVER
    rest_of_deal = players - dealt - (1 if s.revealed >= 0 else 0) - s.to_draw
    given = d.get("deal_size")
    if given is None and is_view and in_play:
        if s.deck_ran_out and s.phase != PH_DRAW_DEAL:
            raise ValueError("deal_size: missing; the deck has run out, so the deal may be short (GK-19): "
                             "give the number of face-down deal cards")
        given = max(rest_of_deal, 0)
    deal_size = _int_in(len(deal) if given is None else given, 0, players, "deal_size")
    given = d.get("deck_top_size")
    top_size = len(top) if given is None else given
    in_deal = dealt + deal_size + (1 if s.revealed >= 0 else 0) + s.to_draw
    if in_deal > players:
        raise ValueError(f"deal: received {dealt}, face down {deal_size}, revealed "
                         f"{1 if s.revealed >= 0 else 0}, to draw {s.to_draw}: {in_deal} cards, more than "
                         f"the {players} of a deal (one per player)")
    if in_play and in_deal < players and (s.phase == PH_DRAW_DEAL or not s.deck_ran_out):
        field = "deal_to_draw" if s.phase == PH_DRAW_DEAL else ("deal_size" if is_view else "deal")
        raise ValueError(f"{field}: received {dealt}, face down {deal_size}, revealed "
                         f"{1 if s.revealed >= 0 else 0}, to draw {s.to_draw}: {in_deal} cards, but a deal "
                         f"is one card per player ({players}, GK-3); it is short only when no card is left "
                         f"to deal, once the deck has run out (GK-19)")
    if s.phase in (PH_DRAW_DEAL, PH_DRAW_EFFECT) and top_size:
        # take_top: the cards put back on top are drawn before any card of the shuffled deck.
        raise ValueError(f"{'deck_top' if top else 'deck_top_size'}: {top_size} cards on top of the deck, but "
                         f"they are drawn before the shuffled deck, so phase {PHASES[s.phase]} (a draw from "
                         f"the shuffled deck) has none there (GK-11)")
    return deal_size, top_size


cdef _check_card_counts(GKState* s, int* counts):
    """Every card of the deck is in exactly one place (GK-2), and no pile has the bells that
    would have won the game (GK-14)."""
    cdef int k, p
    for k in range(NUM_KINDS):
        if counts[k] != COUNT_OF[k]:
            raise ValueError(f"cards: the state holds {counts[k]} of card {card_name(k)!r}, the deck has "
                             f"{COUNT_OF[k]} (every card must be in exactly one place)")
    for p in range(s.players):
        if bells_of(s, p) > bells_allowed(s):
            raise ValueError(f"seats[{p}]: {bells_of(s, p)} bells would have won the game (GK-14)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _lay_face_down(GKState* s, list deal, list top, list unseen, deal_size, top_size):
    """The deal's face-down cards and those on top of the deck, listed or dealt from a view's
    unseen cards (the rest form the deck); the round's end puts the deal on top too (GK-11, GK-20)."""
    cdef int k
    if unseen:
        if deal or top:
            raise ValueError("unseen: give the face-down cards either listed (deal, deck_top) or as unseen")
        if deal_size + top_size > len(unseen):
            raise ValueError(f"unseen: {len(unseen)} cards, fewer than the {deal_size} face-down cards of "
                             f"the deal (deal_size) and {top_size} on top of the deck (deck_top_size) need")
        deal = unseen[:deal_size]
        top = unseen[deal_size:deal_size + top_size]
        for k in unseen[deal_size + top_size:]:
            s.pool[k] += 1
    elif deal_size != len(deal) or top_size != len(top):
        raise ValueError(f"deal_size: {deal_size} face-down deal cards and {top_size} on top of the deck, "
                         f"but deal lists {len(deal)} and deck_top {len(top)}")
    if len(top) + len(deal) > TOP_CAP:
        # A larger sum would overflow the top in a successor, which this decoder would refuse.
        raise ValueError(f"deck_top: {len(top)} cards on top of the deck and {len(deal)} face down in the "
                         f"deal, which the round's end puts on top too (GK-11): at most {TOP_CAP} together "
                         f"(GK-20)")
    for i, k in enumerate(deal):
        s.hand[i] = k
    s.hand_len = len(deal)
    for i, k in enumerate(reversed(top)):
        s.top[i] = k
    s.top_len = len(top)


cdef _check_over(GKState* s, dict d, bint dealt_unseen):
    """Phase over: reachable (GK-14, GK-16, GK-19), and the winner the rules' (GK-14)."""
    cdef int p
    cdef bint reached = False, rows = False
    for p in range(s.players):
        reached = reached or bells_of(s, p) >= WIN_BELLS
        rows = rows or s.row_len[p] > 0
    # Face-down piles dealt from a view's unseen cards do not hold the true bells: whether a
    # seat reached 13 is then unknown here, and the announced winner is taken as given.
    reached = reached or dealt_unseen
    nothing_left = pool_total(s) + discard_total(s) + s.top_len == 0
    if s.play_through:
        ends = s.deck_ran_out or nothing_left
        why = "in the variant play_through, the first bust after the deck has run out (GK-16)"
    else:
        ends = reached or nothing_left
        why = "13 bells (GK-14)"
    if not ends:
        raise ValueError(f"phase: the game is not over: it ends with {why}, or when no card is left to draw "
                         f"(GK-19)")
    if rows and (s.play_through or not reached):
        raise ValueError("seats: the rows are banked when a round ends (GK-12); only a Bell card's 13th bell "
                         "ends the game mid-round, with rows on the table (GK-14)")
    best = best_of(s, (1u << s.players) - 1)
    given = d.get("winner")
    if dealt_unseen:
        # Some face-down piles were dealt from the unseen cards (a view): their bells are not
        # the true ones, so the announced winner is taken as given.
        s.winner = _int_in(given, 0, s.players - 1, "winner")
        return
    if given is not None and given != best:
        _int_in(given, 0, s.players - 1, "winner")
        raise ValueError(f"winner: seat {given}, but seat {best} wins by the bells and the First Player card "
                         f"(GK-14)")
    s.winner = best


def round_ended(data):
    """Whether the apply_action that made ``data`` ended a round, and who busted: None (no
    round ended), or ``{"buster": seat or None}`` (GK-11, GK-12): the engine's own record
    of the move, for its events."""
    cdef GKState s = _read(data)
    if not s.ended_round:
        return None
    return {"buster": s.ended_buster if s.ended_buster >= 0 else None}


def summary(data):
    d = describe(data)
    return (f"{d['players']} players, round {d['rounds'] + 1}, {d['phase']}, active {d['active_player']}, "
            f"bells {[st['bells'] for st in d['seats']]}")


#: The symbols of the table ``render`` draws, as ``fagin play``'s help explains them.
SYMBOLS = (
    ("F", "the seat holding the First Player card"),
    ("N bells", "the bells in a seat's victory pile"),
    ("(+N hidden)", "that seat's face-down Bell cards you have not seen, not in its bells"),
    ("row ... = 6/13", "a seat's row of cards, left to right, its time total and its limit (the round ends when a row reaches its limit)"),
    ("row empty", "a seat with no card in its row"),
    ("5", "an exploration card with time value 5"),
    ("5bb", "an exploration card of value 5 with one bell per b"),
    ("5d", "an exploration card with the draw symbol: the deck's next card joins the same row"),
    ("B, BB", "a Bell card, +1 or +2 bells"),
    ("X", "a Discard card"),
    ("S18", "a Stay Late card: the row's limit is 18"),
    ("R", "a Refuse card: its row may refuse a later card"),
    ("revealed", "the card turned up to be given, and the seats that have received one"),
    ("arriving", "a card on its way to a seat's row"),
)


def render(data, seat=None):
    """A few lines of text showing the table (as ``seat`` sees it, if given)."""
    d = describe(data) if seat is None else view(data, seat)
    lines = [f"Gangs of Kyoto - round {d['rounds'] + 1} - {d['phase'].replace('_', ' ')}"
             + (" - game over" if d["phase"] == "over" else "")]
    for p, st in enumerate(d["seats"]):
        row = " ".join(_short(c) for c in st["row"]) or "empty"
        bells = st["bells"]
        hidden = (f" (+{st['hidden_bell_count']} hidden)"
                  if st["hidden_bell_count"] and seat is not None and p != seat and not d["options"]["open_piles"]
                  else "")
        marks = ("F" if p == d["first_player"] else " ") + ("*" if p == d["active_player"] else " ")
        lines.append(f"{marks}seat {p}: {bells} bell{'' if bells == 1 else 's'}{hidden}, row {row} = {st['row_sum']}/{st['limit']}")
    if d["revealed"]:
        received = ", ".join(f"seat {p}" for p in d["received"]) or "no seat yet"
        lines.append(f"revealed: {_short(d['revealed'])} (to give; received: {received})")
    if d["arriving"]:
        lines.append(f"arriving at seat {d['receiver']}: {_short(d['arriving'])}")
    n_unseen = len(d.get("unseen") or []) or len(d["deck"]) + len(d["deal"]) + len(d["deck_top"])
    lines.append(f"deck and face-down cards: {n_unseen}; discard pile: {len(d['discard'])}")
    if d["winner"] is not None:
        lines.append(f"winner: seat {d['winner']}")
    return "\n".join(lines)


def _short(c):
    if c["kind"] == "exploration":
        return f"{c['value']}" + ("b" * c["bells"]) + ("d" if c["draw"] else "")
    if c["kind"] == "bell":
        return "B" * c["bells"]
    return {"discard": "X", "stay_late": "S18", "refuse": "R"}[c["kind"]]
