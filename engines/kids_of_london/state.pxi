# Kids of London's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

# ------------------------------------------------------- the Python side
# Not on the search path: labels, the dict form of a state, and the
# validating constructor for positions that come from outside.

CHARACTERS = ("merchant", "left_priest", "right_priest", "jeweller", "banker", "prince", "beggar")
CHARACTER_TILES = dict(zip(CHARACTERS, (2, 1, 1, 2, 1, 1, 1)))
# The tiles as the rulebook names them (KL-1), for labels and text views; CHARACTERS are
# the identifiers of the API. The Prince/Comedian tile is named by its Prince side: a
# label names one thing, and which side is taken is the robbers' later choice.
CHARACTER_NAMES = dict(zip(CHARACTERS, ("Merchant", "Left Priest", "Right Priest", "Jeweller", "Banker",
                                        "Prince", "Beggar")))
PHASES = ("reveal_character", "reveal_fictitious", "choose_card", "choose_prince", "choose_lone", "over")
# The rulebook's player range.  The engine does not import its room (the room's
# GameSpec states the same range; the catalogue test holds the two together).
MIN_PLAYERS = 2
MAX_PLAYERS = KL_MAX_PLAYERS
# Largest coin count a client may send: far above any real game, small enough
# that no sum of thefts can overflow the engine's 32-bit counters.
MAX_COINS = 1_000_000
ACTION_COMEDIAN = A_COMEDIAN
ACTION_PRINCE = A_PRINCE
ACTION_LONE_CARD = A_LONE_CARD
ACTION_LONE_CHARACTER = A_LONE_CHARACTER
ACTION_REVEAL_CHARACTER = A_REVEAL_CHARACTER
ACTION_REVEAL_FICTITIOUS = A_REVEAL_FICTITIOUS
ACTION_CARD = A_CARD
CARD_VALUES = NUM_CARDS      # Street Child card values 0..8


cdef void blank_state(KLState* s, int players) noexcept nogil:
    """No cards, coins or tiles; nothing chosen or revealed (the seats are set up)."""
    memset(s, 0, sizeof(KLState))
    s.players = players
    s.seats = players + 1 if players == 2 else players     # KL-16
    for i in range(KL_MAX_SEATS):
        s.committed[i] = NO_CHOICE
        s.prince_pick[i] = NO_CHOICE
        s.last_cards[i] = -1
    s.phase = PH_REVEAL_CHARACTER
    s.character = -1
    s.last_character = -1
    s.priority = -1
    s.lone = -1


def initial_state_bytes(players):
    """The position before the first character is revealed (KL-1)."""
    _int_in(players, MIN_PLAYERS, MAX_PLAYERS, "players")
    cdef KLState s
    blank_state(&s, players)
    for i in range(n_seats(&s)):
        s.hand[i] = (1 << NUM_CARDS) - 1
    for i in range(NUM_KINDS):
        s.pile[i] = KIND_COUNT[i]
    hash_position(&s)
    return (<char*>&s)[:sizeof(KLState)]


@cython.boundscheck(True)
@cython.wraparound(True)
cdef KLState _read(data) except *:
    cdef KLState s
    read_state(data, &s, sizeof(KLState), "not a Kids of London state")
    # The fields describe uses as indices: even bytes that did not come from
    # this engine must not make it read past an array.
    if not MIN_PLAYERS <= s.players <= MAX_PLAYERS:
        raise ValueError(f"players: {s.players} is not {MIN_PLAYERS} to {MAX_PLAYERS}")
    if s.seats != (s.players + 1 if s.players == 2 else s.players):
        raise ValueError(f"seats: {s.seats} seats do not fit {s.players} players")
    if not 0 <= s.phase <= PH_OVER:
        raise ValueError(f"phase: {s.phase} is no phase")
    if not -1 <= s.character < NUM_KINDS or not -1 <= s.last_character < NUM_KINDS:
        raise ValueError(f"character: {s.character} (last hour: {s.last_character}) is no character")
    return s


def _cards(mask):
    return [v for v in range(NUM_CARDS) if (mask >> v) & 1]


def _card_or_none(int v):
    return v if v >= 0 else None


def describe(data):
    """The whole state as a plain dict, in the shape of the ``KidsOfLondonState`` message.

    Keys: ``players``, ``turn`` (hours completed), ``phase``, ``character``
    (revealed this hour, or None), ``pile`` (face-down tiles, one name per
    tile), ``seats`` (per real player: ``coins``, ``hand``, ``card`` put down
    this hour, ``prince_choice``, ``chosen``), ``fictitious`` (2 players:
    ``coins``, ``deck``, ``card``; else None), ``robbers``, ``lone`` and
    ``last_hour`` (the previous hour's character and cards, for display).
    """
    cdef KLState s = _read(data)
    card_shown = s.phase in (PH_CHOOSE_CARD, PH_CHOOSE_PRINCE, PH_CHOOSE_LONE)
    seats = []
    for i in range(s.players):
        card = _card_or_none(s.committed[i]) if card_shown else None
        prince = None if s.prince_pick[i] < 0 else bool(s.prince_pick[i])
        # KL-23: HIDDEN is chosen too, with the card (or pick) left out.
        if s.phase == PH_CHOOSE_CARD:
            chosen = s.committed[i] != NO_CHOICE
        else:
            chosen = s.phase == PH_CHOOSE_PRINCE and s.prince_pick[i] != NO_CHOICE
        seats.append({"coins": s.coins[i], "hand": _cards(s.hand[i]), "card": card,
                      "prince_choice": prince, "chosen": chosen})
    fictitious = None
    if s.seats > s.players:
        fictitious = {"coins": s.coins[s.players], "deck": _cards(s.hand[s.players]),
                      "card": _card_or_none(s.committed[s.players]) if card_shown else None}
    pile = [name for i, name in enumerate(CHARACTERS) for _ in range(s.pile[i])]
    last_hour = None
    if s.last_character >= 0:
        last_hour = {"character": CHARACTERS[s.last_character],
                     "cards": [_card_or_none(s.last_cards[i]) for i in range(s.seats)]}
    return {
        "players": s.players,
        "turn": s.turn,
        "phase": PHASES[s.phase],
        "character": CHARACTERS[s.character] if s.character >= 0 else None,
        "pile": pile,
        "seats": seats,
        "fictitious": fictitious,
        "robbers": [i for i in range(s.seats) if (s.robbers >> i) & 1],
        # Only the choose_lone phase has a lone survivor; the field is stale afterwards.
        "lone": s.lone if s.phase == PH_CHOOSE_LONE else None,
        "last_hour": last_hour,
    }


def view(data, int seat):
    """The state as ``seat`` sees it: other seats' secret choices of the hour removed (KL-18).

    A seat sees who has chosen but not what (KL-23): another seat's hidden card
    shows as ``chosen: True`` with ``card`` None and the card back among its
    (public) hand; a hidden prince choice as ``chosen: True`` with
    ``prince_choice`` None.  The view is itself a valid state: rebuilt, it has
    the same seats pending as the full state, and gives the viewer the same
    recommendations.
    """
    d = describe(data)
    if not 0 <= seat < d["players"]:
        raise ValueError(f"seat: {seat} is not a seat of this {d['players']}-player game")
    for i, s in enumerate(d["seats"]):
        if i == seat:
            continue
        if d["phase"] == "choose_card" and s["card"] is not None:
            s["hand"] = sorted(s["hand"] + [s["card"]])
            s["card"] = None
        elif d["phase"] == "choose_prince":
            s["prince_choice"] = None
    return d


def _card_set(values, field):
    mask = 0
    for v in values or ():
        if (mask >> v) & 1:
            raise ValueError(f"{field}: card {v} appears twice")
        mask |= 1 << v
    return mask


def _count(n, noun, plural=None):
    """``1 coin``, ``2 coins``."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def _phase_index(phase):
    return _enum_index(phase, PHASES, "PHASE_", "phase")


def _character_index(name, field, need=None):
    return _enum_index(name, CHARACTERS, "CHARACTER_", field, need)


@cython.boundscheck(True)
@cython.wraparound(True)
def from_description(d, game=None):
    """Builds a state from a dict shaped like :func:`describe`'s, checking that it is consistent.

    Raises ``ValueError`` whose message starts with the offending field
    (``seats[2].hand: ...``).  A seat has made its secret choice of the hour
    when its ``card`` (phase choose_card) or ``prince_choice`` (choose_prince)
    is given, or when ``chosen`` is true without it: that is a choice this
    position does not show, as in another seat's view (KL-23), and the card
    stays among the seat's hand.  ``chosen`` is refused where no secret choice
    is pending.  ``last_hour`` is for display only.  The information-set
    history starts from this position (KL-19).
    """
    cdef KLState s
    blank_state(&s, d["players"])
    _read_hour(&s, d)
    _read_characters(&s, d)
    seats, chosen_flags = _read_seats(&s, d)
    _read_fictitious(&s, d)
    _read_last_hour(&s, d)
    if s.phase == PH_CHOOSE_LONE:
        _decode_lone(&s, d)
    elif s.phase == PH_CHOOSE_PRINCE:
        _decode_prince(&s, d, seats, chosen_flags)
    else:
        if d.get("robbers"):
            raise ValueError("robbers: only in phase choose_prince")
        if d.get("lone") is not None:
            raise ValueError("lone: only in phase choose_lone")
    hash_position(&s)
    return (<char*>&s)[:sizeof(KLState)]


cdef bint _revealed(const KLState* s):
    """Whether the hour's character is face up."""
    return s.phase in (PH_REVEAL_FICTITIOUS, PH_CHOOSE_CARD, PH_CHOOSE_PRINCE, PH_CHOOSE_LONE)


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_hour(KLState* s, d):
    """The hour and its phase: the game is over after the ninth hour, the fictitious player's
    reveal is the 2-player game's, and the last hour's cards are played without a choice (KL-3)."""
    s.turn = d.get("turn") or 0
    phase = d.get("phase")
    s.phase = _phase_index(phase)
    if (s.turn == NUM_TURNS) != (s.phase == PH_OVER):
        raise ValueError(f"phase: the game is over exactly when turn is 9 (turn {s.turn}, phase {phase})")
    if s.phase == PH_REVEAL_FICTITIOUS and s.players != 2:
        raise ValueError("phase: reveal_fictitious exists only in the 2-player game")
    if s.phase == PH_CHOOSE_CARD and s.turn == NUM_TURNS - 1:
        raise ValueError("phase: the last hour's cards are played without a choice (KL-3)")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_characters(KLState* s, d):
    """The character face up once revealed, and one tile face down for each hour still to come,
    no more of a kind than the game has."""
    phase = d.get("phase")
    revealed = _revealed(s)
    character = d.get("character")
    if revealed:
        s.character = _character_index(character, "character",
                                       f"phase {phase} needs the revealed character")
    elif character is not None:
        raise ValueError(f"character: no character is face up in phase {phase}")
    else:
        s.character = -1
    pile = [CHARACTERS[_character_index(name, f"pile[{j}]")] for j, name in enumerate(d.get("pile") or ())]
    for i, name in enumerate(CHARACTERS):
        n = pile.count(name)
        up = 1 if s.character == i else 0
        if n + up > KIND_COUNT[i]:
            where = f"{n} face down and 1 face up make {n + up}" if up else f"{n} face down"
            raise ValueError(f"pile: {name} tiles: {where}, more than the {KIND_COUNT[i]} the game has")
        s.pile[i] = n
    expected = NUM_TURNS - s.turn - (1 if revealed else 0)
    if len(pile) != expected:
        raise ValueError(f"pile: {_count(len(pile), 'tile')} face down, but turn {s.turn} in phase "
                         f"{phase} leaves {expected}")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef tuple _read_seats(KLState* s, d):
    """Each seat's coins, the hand the hour leaves it and its card down, shown or chosen unseen
    (KL-23); (the seats' entries, whether each has chosen)."""
    phase = d.get("phase")
    after_reveal = s.phase in (PH_CHOOSE_PRINCE, PH_CHOOSE_LONE)
    chosen_flags = []
    seats = [seat for _, seat in _one_per_seat(d.get("seats"), s.players)]
    for i, seat in enumerate(seats):
        where = f"seats[{i}]"
        s.coins[i] = seat.get("coins") or 0
        mask = _card_set(seat.get("hand"), f"{where}.hand")
        chosen = bool(seat.get("chosen"))
        if chosen and s.phase not in (PH_CHOOSE_CARD, PH_CHOOSE_PRINCE):
            raise ValueError(f"{where}.chosen: no secret choice is made in phase {phase}")
        chosen_flags.append(chosen)
        card = seat.get("card")
        hidden = card is None and chosen and s.phase == PH_CHOOSE_CARD
        if card is not None:
            if not (s.phase == PH_CHOOSE_CARD or after_reveal):
                raise ValueError(f"{where}.card: no card is down in phase {phase}")
            if (mask >> card) & 1:
                raise ValueError(f"{where}.card: card {card} is both down and in {where}.hand")
            s.committed[i] = card
        elif after_reveal:
            raise ValueError(f"{where}.card: phase {phase} comes after the reveal, so every card is face up")
        elif hidden:
            s.committed[i] = HIDDEN       # KL-23: chosen, and the card is still among the hand
        in_hand = NUM_CARDS - s.turn - (1 if card is not None else 0)
        if s.phase == PH_OVER:
            in_hand = 0
        if popcount16(mask) != in_hand:
            if hidden and popcount16(mask) == in_hand - 1:
                raise ValueError(f"{where}.card: chosen is true but card is missing; give the card, "
                                 f"or leave a card you cannot see among {where}.hand (KL-23)")
            raise ValueError(f"{where}.hand: holds {_count(popcount16(mask), 'card')}, but turn "
                             f"{s.turn} in phase {phase} leaves {in_hand}")
        s.hand[i] = mask
        prince = seat.get("prince_choice")
        if prince is not None:
            if s.phase != PH_CHOOSE_PRINCE:
                raise ValueError(f"{where}.prince_choice: only in phase choose_prince")
    if s.phase == PH_CHOOSE_CARD and all([s.committed[i] != NO_CHOICE for i in range(s.players)]):
        raise ValueError("seats: every player has put a card down, so the cards would already be revealed")
    return seats, chosen_flags


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_fictitious(KLState* s, d):
    """The 2-player game's fictitious player: its coins, the deck the hour leaves it and its card
    face up once revealed; no other game has one."""
    phase = d.get("phase")
    fict = d.get("fictitious")
    if s.players == 2:
        if fict is None:
            raise ValueError("fictitious: the 2-player game needs the fictitious player's coins, deck and card")
        s.coins[2] = fict.get("coins") or 0
        mask = _card_set(fict.get("deck"), "fictitious.deck")
        card = fict.get("card")
        shown = s.phase in (PH_CHOOSE_CARD, PH_CHOOSE_PRINCE, PH_CHOOSE_LONE)
        if shown:
            _int_in(card, 0, NUM_CARDS - 1, "fictitious.card")
            if (mask >> card) & 1:
                raise ValueError(f"fictitious.card: card {card} is both face up and in fictitious.deck")
            s.committed[2] = card
        elif card is not None:
            raise ValueError(f"fictitious.card: no fictitious card is face up in phase {phase}")
        left = NUM_CARDS - s.turn - (1 if shown else 0)
        if popcount16(mask) != left:
            raise ValueError(f"fictitious.deck: holds {_count(popcount16(mask), 'card')}, "
                             f"but should hold {left}")
        s.hand[2] = mask
    elif fict is not None:
        raise ValueError("fictitious: only the 2-player game has a fictitious player")


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _read_last_hour(KLState* s, d):
    """The last hour's character and cards, for display only (KL-19: not in the information-set
    history)."""
    last = d.get("last_hour")
    if last is not None:
        s.last_character = _character_index(last.get("character"), "last_hour.character")
        cards = last.get("cards")
        if cards is None or len(cards) != s.seats:
            raise ValueError(f"last_hour.cards: expected one card per seat ({s.seats})")
        for i, v in enumerate(cards):
            s.last_cards[i] = v


def _in_play(list cards):
    leaders = cards.count(LEADER)
    return [i for i, c in enumerate(cards) if not (c == LEADER and leaders >= 2)]


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _decode_lone(KLState* s, d):
    cards = [s.committed[i] for i in range(s.seats)]
    in_play = _in_play(cards)
    if len(in_play) != 1 or in_play[0] >= s.players:
        raise ValueError(f"phase: the cards down ({cards}) leave no real player alone in play, "
                         f"so there is no lone survivor's choice")
    lone = d.get("lone")
    if lone != in_play[0]:
        raise ValueError(f"lone: the cards down make seat {in_play[0]} the lone survivor, not {lone!r}")
    s.lone = lone


@cython.boundscheck(True)
@cython.wraparound(True)
cdef _decode_prince(KLState* s, d, seats, chosen_flags):
    if s.character != PRINCE:
        raise ValueError("character: phase choose_prince needs the prince")
    if s.turn == NUM_TURNS - 1:
        raise ValueError("phase: the last hour's prince is always a prince, there is no choice (KL-14)")
    cards = [s.committed[i] for i in range(s.seats)]
    in_play = _in_play(cards)
    if not in_play:
        raise ValueError("phase: every card down was an arrested leader; nobody robs the prince")
    top = max([cards[i] for i in in_play])
    expected = in_play if len(in_play) == 1 else [i for i in in_play if cards[i] == top]
    robbers = d.get("robbers")
    if not isinstance(robbers, (list, tuple)) or sorted(robbers) != expected:
        raise ValueError(f"robbers: the cards down make seats {expected} the robbers, not {robbers!r}")
    if not any([r < s.players for r in robbers]):
        raise ValueError("robbers: no real player is robbing the prince")
    mask = 0
    for r in robbers:
        mask |= 1 << r
    s.robbers = mask
    if s.seats > s.players and (mask >> s.players) & 1:
        s.prince_pick[s.players] = 1
    for i in range(s.players):
        prince = seats[i].get("prince_choice")
        if (prince is not None or chosen_flags[i]) and not (mask >> i) & 1:
            field = "prince_choice" if prince is not None else "chosen"
            raise ValueError(f"seats[{i}].{field}: seat {i} is not robbing the prince")
        if prince is not None:
            s.prince_pick[i] = 1 if prince else 0
        elif chosen_flags[i]:
            s.prince_pick[i] = HIDDEN     # KL-23: chosen, not shown
    if all([s.prince_pick[i] != NO_CHOICE for i in range(s.players) if (mask >> i) & 1]):
        raise ValueError("seats: every robber has chosen, so the choices would already be revealed")


def summary(data):
    d = describe(data)
    coins = [seat["coins"] for seat in d["seats"]]
    return (f"{d['players']} players, turn {d['turn']}, {d['phase']}"
            + (f", {CHARACTER_NAMES[d['character']]}" if d['character'] else "")
            + f", coins {coins}"
            + (f" + fictitious {d['fictitious']['coins']}" if d["fictitious"] else ""))


def _seat_name(i, players):
    return f"seat {i}" if i < players else "fictitious"


#: The symbols of the table ``render`` draws, as ``fagin play``'s help explains them.
SYMBOLS = (
    ("hour N/9", "the hour being played, of the game's nine"),
    ("character", "the character tile being robbed this hour"),
    ("hand 0 2 8", "the Street Child cards a seat still holds, by value (0 to 8)"),
    ("hand empty", "a seat with no card left"),
    ("card N down", "your card for this hour, chosen face down"),
    ("has chosen", "a seat that has chosen its card (or prince or comedian), still hidden"),
    ("played N", "a seat's card for this hour, revealed"),
    ("cards played", "last hour's revealed cards, seat by seat (- for none)"),
    ("face-up card N", "the fictitious player's card for this hour, turned up before the others"),
    ("fictitious", "the fictitious player of a two-player game: its coins and cards"),
    ("robbing the prince", "the seats choosing between the prince and the comedian"),
    ("lone survivor", "the seat whose card alone was left in play"),
)


def render(data, seat=None):
    """A few lines of text showing the table (as ``seat`` sees it, if given)."""
    d = describe(data) if seat is None else view(data, seat)
    lines = [f"Kids of London - hour {min(d['turn'] + 1, 9)}/9 - {d['phase'].replace('_', ' ')}"]
    if d["character"]:
        lines.append(f"character: {CHARACTER_NAMES[d['character']]}")
    if d["last_hour"]:
        played = [f"{_seat_name(i, d['players'])}: {'-' if c is None else c}"
                  for i, c in enumerate(d["last_hour"]["cards"])]
        lines.append(f"last hour: {CHARACTER_NAMES[d['last_hour']['character']]}")
        lines.append("  cards played: " + ", ".join(played))
    for i, seat in enumerate(d["seats"]):
        if seat["card"] is not None:
            note = f", card {seat['card']} down" if d["phase"] == "choose_card" else f", played {seat['card']}"
        else:
            note = ", has chosen" if seat["chosen"] else ""
        if seat["prince_choice"] is not None:
            note += ", takes the " + ("prince" if seat["prince_choice"] else "comedian")
        elif d["phase"] == "choose_prince" and seat["chosen"]:
            note += ", has chosen"
        hand = " ".join(map(str, seat["hand"])) or "empty"
        lines.append(f"seat {i}: {_count(seat['coins'], 'coin'):>9}, hand {hand}{note}")
    if d["robbers"]:
        robbers = d["robbers"]
        lines.append("robbing the prince: " + (f"seat {robbers[0]}" if len(robbers) == 1
                                               else "seats " + ", ".join(map(str, robbers))))
    if d["lone"] is not None:
        lines.append(f"seat {d['lone']} is the lone survivor")
    if d["fictitious"]:
        f = d["fictitious"]
        face_up = "no face-up card" if f["card"] is None else f"face-up card {f['card']}"
        lines.append(f"fictitious: {_count(f['coins'], 'coin'):>9}, {face_up}, "
                     f"{_count(len(f['deck']), 'card')} face down")
    return "\n".join(lines)
