"""London's states as descriptions (the ``LondonState`` message as a dict), and back.

Plain Python, off the search path.  The engine's struct (``LNState``, documented
in ``engine.pyx``) is read with ``engine._raw`` and built with ``engine._pack``;
:func:`from_description` checks every field before packing, since the nogil
rules trust the state they are given.

Cards are named by their id in ``cards.json`` (``"st_pauls"``), boroughs by
their id in ``board.json`` (``"city"``), enum values as the engine spells them
(``"play"``) or by their proto names (``"PHASE_PLAY"``).  Lists of cards that
are multisets (a hand, the deck, the discard pile) are given in the canonical
order of ``cards.json``; on input their order is free.

What a seat knows (LN-82 to LN-88) is what :func:`view` leaves in: its own
hand; of another hand the cards every seat is sure of (``hand_known``, LN-84)
— for the University owner also those it put back and that hand drew
(``owner_sure``, LN-85) — and the letters of the rest (``hand_hidden``,
LN-86); the deck as counts by letter; the cards put back by University only
for their owner, and the cards being looked at only for the active seat
(letters for the others).  Every card the seat has not seen is listed once
under ``unseen``.  :func:`from_description` deals the unseen cards over the
hidden places, each place receiving a card of its letter, with a fixed seed
(so one description always gives the same state); the rest form the deck.
"""
from __future__ import annotations

import random

from fagin.engines.validation import enum_index, int_in, list_of, one_per_seat

LETTERS = ("a", "b", "c")
FULL_DECK = 110

# Phases in which the engine's pending / effect_card fields mean something.
PLACING_PHASES = ("where", "pay")
EFFECT_PHASES = ("coffee", "target", "prison", "workhouse", "whitehall", "underground")
ACTIVATING_PHASES = ("run_cost",) + EFFECT_PHASES


_ENGINE = None


def _engine():
    # Imported at the first call: the engine module imports this one at its end.  Kept,
    # since a decoder asks for it once a card (an import statement costs ~1 us).
    global _ENGINE
    if _ENGINE is None:
        from fagin.engines.london import engine
        _ENGINE = engine
    return _ENGINE


def _board():
    from fagin.engines.london import components
    return components.board()


_DECK_LETTER = None


def _deck_letter():
    """The deck letter of each card version, as an index of LETTERS (a view's decode asks
    for it hundreds of times)."""
    global _DECK_LETTER
    if _DECK_LETTER is None:
        _DECK_LETTER = [LETTERS.index(c.deck.lower()) for c in _engine().CARDS]
    return _DECK_LETTER


# ------------------------------------------------------------------ describing

def _cards(counts):
    """Card ids of a count vector, in canonical (cards.json) order."""
    out = []
    for name, n in zip(_engine().VERSIONS, counts):
        if n:
            out += [name] * n
    return out


def _letter_counts(versions):
    counts = [0, 0, 0]
    letter_of = _deck_letter()
    for v in versions:
        counts[letter_of[v]] += 1
    return dict(zip(LETTERS, counts))


def _expand(counts):
    out = []
    for v, n in enumerate(counts):
        if n:
            out += [v] * n
    return out


def _stacks_of(s, p):
    """Seat p's Building Display as stacks (bottom to top), and pc index -> (stack, position)."""
    E = _engine()
    F = E.FLAGS
    stacks = [[] for _ in range(s["stacks"][p])]
    where = {}
    for i in range(s["pc_n"][p]):
        f = s["pc_flags"][p][i]
        stack = s["pc_stack"][p][i]
        where[i] = (stack, len(stacks[stack]))
        stacks[stack].append({
            "card": E.VERSIONS[s["pc_version"][p][i]],
            "face_down": bool(f & F["down"]),
            "placed_this_turn": bool(f & F["placed_this_turn"]),
            "activated": bool(f & F["activated"]),
            "kept": bool(f & F["kept"]),
            "shops_money": s["pc_money"][p][i],
        })
    return [{"cards": cards} for cards in stacks], where


def describe(data) -> dict:
    """The whole state as a dict shaped like the ``LondonState`` message."""
    E = _engine()
    s = E._raw(data)
    players = s["players"]
    phase = E.PHASES[s["phase"]]
    active = s["active"]
    seats = []
    index_to_stack = {}
    for p in range(players):
        stacks, where = _stacks_of(s, p)
        if p == active:
            index_to_stack = where
        extra = [s["owner_sure"][p][v] - s["known"][p][v] for v in range(len(E.VERSIONS))]
        owned = [E.BOROUGH_IDS[b] for b in range(len(E.BOROUGHS)) if s["owner"][b] == p]
        seats.append({
            "money": s["money"][p],
            "loans": s["loans"][p],
            "vp_counters": s["vp"][p],
            "poverty": s["poverty"][p],
            "hand": _cards(s["hand"][p]),
            "hand_known": _cards(s["known"][p]),
            "owner_sure": _cards(extra),
            "hand_hidden": {"a": 0, "b": 0, "c": 0},
            "hand_size": s["hand_n"][p],
            "stacks": stacks,
            "boroughs": owned,
            "building_counters_left": _board().building_counters_per_player - len(owned),
        })

    def stack_of(i):
        return index_to_stack[i][0] if i >= 0 and i in index_to_stack else None

    top = [s["top"][i] for i in range(s["top_n"])]
    look = [s["look"][i] for i in range(s["look_n"])]
    over = phase == "over"
    return {
        "players": players,
        "phase": phase,
        "active_player": active,
        "turns": s["turns"],
        "seats": seats,
        "display_top": [E.VERSIONS[s["display"][0][i]] for i in range(s["display_n"][0])],
        "display_bottom": [E.VERSIONS[s["display"][1][i]] for i in range(s["display_n"][1])],
        "discard": _cards(s["discard"]),
        "deck": _cards(s["deck"]),
        "deck_letters": _letter_counts(_expand(s["deck"])),
        "deck_top": [E.VERSIONS[v] for v in top],
        "deck_top_letters": [E.CARDS[v].deck.lower() for v in top],
        "looked": [E.VERSIONS[v] for v in look],
        "looked_letters": [E.CARDS[v].deck.lower() for v in look],
        "unseen": [],
        "underground": [E.BOROUGH_IDS[b] for b in range(len(E.BOROUGHS)) if s["underground"][b]],
        "underground_left": s["underground_left"],
        "uni_owner": s["uni_owner"] if s["uni_owner"] >= 0 else None,
        "deal_left": s["deal_left"],
        "draw_for": E.DRAW_FOR[s["draw_for"]],
        "draw_to": E.DRAW_TO[s["draw_to"]],
        "draws_left": s["draws_left"],
        "draws_taken": s["draws_taken"],
        "draws_min": s["draws_min"],
        "look_target": s["look_target"],
        "action": E.ACTIONS[s["action"]],
        "placed": s["placed"],
        "activations": s["activations"],
        "wren_waivers": s["wren_waivers"],
        "placing": E.VERSIONS[s["pending"]] if phase in PLACING_PHASES else None,
        "placing_on_stack": stack_of(s["pending_stack"]) if phase == "pay" else None,
        "activating_stack": stack_of(s["pending"]) if phase in ACTIVATING_PHASES else None,
        "effect_stack": stack_of(s["effect_card"]) if phase in EFFECT_PHASES else None,
        "choices_left": s["choices_left"],
        "swapped": bool(s["swapped"]),
        "swap_row": s["swap_row"] if s["swap_row"] >= 0 else None,
        "last_round": bool(s["last_round"]),
        "turns_left": s["turns_left"] if s["turns_left"] >= 0 else None,
        "final_vp": [s["final_vp"][p] for p in range(players)] if over else [],
        "final_poverty": [s["final_poverty"][p] for p in range(players)] if over else [],
        "winners": [p for p in range(players) if (s["winners"] >> p) & 1] if over else [],
    }


def view(data, seat) -> dict:
    """The state as ``seat`` knows it (LN-82 to LN-88); see the module docstring."""
    E = _engine()
    s = E._raw(data)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < s["players"]:
        raise ValueError(f"seat: {seat!r} is not a seat of this {s['players']}-player game")
    d = describe(data)
    owner = s["uni_owner"]
    nv = len(E.VERSIONS)
    unseen = _expand(s["deck"])
    for p, st in enumerate(d["seats"]):
        if p == seat:
            continue
        sure = s["owner_sure"][p] if seat == owner else s["known"][p]
        hidden = [s["hand"][p][v] - sure[v] for v in range(nv)]
        unseen += _expand(hidden)
        st["hand"] = _cards(sure)
        st["hand_hidden"] = _letter_counts(_expand(hidden))
        if seat != owner:
            st["owner_sure"] = []
    d["deck"] = []
    if seat != owner:
        unseen += [s["top"][i] for i in range(s["top_n"])]
        d["deck_top"] = []
    if seat != s["active"]:
        unseen += [s["look"][i] for i in range(s["look_n"])]
        d["looked"] = []
    d["unseen"] = [E.VERSIONS[v] for v in sorted(unseen)]
    return d


# ------------------------------------------------------------------ reading a description

def _is_card(value):
    """Whether ``value`` is a card id (a string: a list or dict from a hostile client is not
    hashable, and must be refused with a message, not a TypeError)."""
    return isinstance(value, str) and value in _engine().VERSION_INDEX


def _card_list(value, field):
    index = _engine().VERSION_INDEX
    out = []
    for i, c in enumerate(value or ()):
        if not (isinstance(c, str) and c in index):     # see _is_card
            raise ValueError(f"{field}[{i}]: unknown card {c!r} (a card id of cards.json, e.g. 'st_pauls')")
        out.append(index[c])
    return out


def _letter(value, field):
    return enum_index(value, LETTERS, "LETTER_", field)


def _letters(value, field):
    """A LondonLetters dict (counts by deck letter); None counts as all zero."""
    if value is None:
        return [0, 0, 0]
    unknown = set(value) - set(LETTERS)
    if unknown:
        raise ValueError(f"{field}: unknown field {sorted(unknown, key=str)[0]!r} (a, b or c)")
    return [value.get(x) or 0 for x in LETTERS]


def _optional_int(value, lo, hi, field):
    return None if value is None else int_in(value, lo, hi, field)


def _borough_list(value, field):
    E = _engine()
    out = []
    for i, b in enumerate(value or ()):
        if not isinstance(b, str) or b not in E.BOROUGH_INDEX:
            raise ValueError(f"{field}[{i}]: unknown borough {b!r} (a borough id of board.json, e.g. 'city')")
        if E.BOROUGH_INDEX[b] in out:
            raise ValueError(f"{field}[{i}]: borough {b!r} is listed twice")
        out.append(E.BOROUGH_INDEX[b])
    return out


def _sub(big, small):
    """big - small as count vectors, or None if small is not contained in big."""
    out = [a - b for a, b in zip(big, small)]
    return None if min(out, default=0) < 0 else out


def _counts(versions, nv):
    out = [0] * nv
    for v in versions:
        out[v] += 1
    return out


def _power(v, code):
    return _engine().CARDS[v].power(code) is not None


def _connected(members, start_ok):
    """Whether a set of borough indexes could have been filled one by one, each next to one
    filled before, the first one satisfying ``start_ok`` (LN-67, LN-72)."""
    E = _engine()
    if not members:
        return True
    neighbours = {i: {E.BOROUGH_INDEX[n] for n in b.neighbours} for i, b in enumerate(E.BOROUGHS)}
    for first in members:
        if not start_ok(first):
            continue
        reached, frontier = {first}, [first]
        while frontier:
            b = frontier.pop()
            for n in neighbours[b]:
                if n in members and n not in reached:
                    reached.add(n)
                    frontier.append(n)
        if reached == set(members):
            return True
    return False


class _NothingToDo(ValueError):
    """The position leaves the active seat without a legal action."""


#: Dealings of a view's unseen cards tried before a position is refused as dead.
DEALINGS = 64


def from_description(d, game=None) -> bytes:
    """Builds a state from a description (:func:`describe`'s or :func:`view`'s shape),
    checking everything; ValueError naming the first field at fault.  Its static shape
    (types, and the bounds annotated in london.proto) is checked before it gets here
    (:mod:`fagin.engines.shape`); this checks what ties fields together.

    A position whose active seat could do nothing is refused: the rules never make one.
    When that seat's hidden cards come from ``unseen`` (a view of another seat), the
    unseen cards are dealt again with the next fixed seed until the active seat can act
    (it holds, say, a card to expend in phase pay) — the viewer cannot tell the
    dealings apart.
    """
    for seed in range(DEALINGS):
        try:
            return _build(d, seed)
        except _NothingToDo as e:
            if not e.args[1]:
                raise ValueError(e.args[0]) from None
            last = e.args[0]
    raise ValueError(last + f" (however its hidden cards are dealt from unseen: tried {DEALINGS} ways)")


class _Decoding:
    """What the steps of one decoding share: the description, the engine's raw state being filled
    and what the earlier steps found."""

    def __init__(self, d, seed):
        E = _engine()
        self.d = d
        self.seed = seed                # of the dealing of the unseen cards
        self.players = d["players"]
        self.s = E._raw(E.initial_state_bytes(self.players))
        self.phase = self.active = self.uni_owner = None
        self.listed = [0] * len(E.VERSIONS)     # cards placed by the description (unseen ones come later)
        self.hidden_need = []                   # (seat, letter counts) to deal from unseen
        self.owner_of = [-1] * len(E.BOROUGHS)
        self.stack_tops = {}                    # active seat's stack id -> pc index of its top card
        self.rows = self.discard = self.deck_listed = self.deck = None
        self.top = self.top_letters = self.look = self.look_letters = None
        self.deck_cards = 0
        self.swap_row = None

    def count(self, vs):
        for v in vs:
            self.listed[v] += 1

    def active_hidden(self):
        """Whether the active seat's hidden cards were dealt from unseen (another dealing may do)."""
        return any(p == self.active for p, _ in self.hidden_need)


def _need(condition, field, why):
    if not condition:
        raise ValueError(f"{field}: {why}")


def _build(d, seed) -> bytes:
    """The state of a description with its unseen cards dealt with ``seed``, checked rule by rule."""
    b = _Decoding(d, seed)
    _read_turn(b)
    for p, (w, seat) in enumerate(one_per_seat(d.get("seats"), b.players)):
        _place_hand(b, p, w, seat)
        _place_building_display(b, p, w, seat)
        _place_boroughs(b, p, w, seat)
    _check_boroughs_connected(b)
    _place_board_cards(b)
    _place_card_being_placed(b)
    _deal_unseen(b)
    _place_underground(b)
    _read_draw_counters(b)
    _read_play_and_run_counters(b)
    _read_last_round(b)
    _check_stack_references(b)
    _check_choices_left(b)
    _check_action_of_phase(b)
    _check_opening_deal(b)
    _check_draw_and_look(b)
    _check_cards_being_taken(b)
    _check_swap_and_give(b)
    _check_where_payable(b)
    _check_hospital_and_cut(b)
    _check_end(b)
    return _pack_with_something_to_do(b)


def _read_turn(b):
    """The phase, the active seat, the turns played (the game ends by its round cap) and the
    University owner."""
    E = _engine()
    d, s, players = b.d, b.s, b.players
    phase_i = enum_index(d.get("phase"), E.PHASES, "PHASE_", "phase")
    b.phase = phase = E.PHASES[phase_i]
    s["phase"] = phase_i
    b.active = s["active"] = int_in(d.get("active_player"), 0, players - 1, "active_player")
    cap = E.ROUNDS_CAP * players
    s["turns"] = int_in(d.get("turns") or 0, 0, cap if phase == "over" else cap - 1, "turns")
    b.uni_owner = uni_owner = _optional_int(d.get("uni_owner"), 0, players - 1, "uni_owner")
    s["uni_owner"] = -1 if uni_owner is None else uni_owner


def _place_hand(b, p, w, seat):
    """A seat's counters and hand: the cards every seat is sure of are part of it (LN-84), those
    the University owner put back only another seat's (LN-85), and its size within the opening
    deal's 6 (LN-5) or, but for the active seat's, the hand limit (LN-17)."""
    E = _engine()
    s, phase, uni_owner = b.s, b.phase, b.uni_owner
    nv = len(E.VERSIONS)
    s["money"][p] = seat.get("money") or 0
    s["loans"][p] = seat.get("loans") or 0
    s["vp"][p] = seat.get("vp_counters") or 0
    s["poverty"][p] = seat.get("poverty") or 0
    hand = _counts(_card_list(seat.get("hand"), f"{w}.hand"), nv)
    known = _counts(_card_list(seat.get("hand_known"), f"{w}.hand_known"), nv)
    extra = _counts(_card_list(seat.get("owner_sure"), f"{w}.owner_sure"), nv)
    rest = _sub(hand, known)
    if rest is None:
        raise ValueError(f"{w}.hand_known: lists a card the hand does not show (hand_known is part of hand)")
    if _sub(rest, extra) is None:
        raise ValueError(f"{w}.owner_sure: lists a card the hand does not show beyond hand_known")
    if any(extra) and (uni_owner is None or uni_owner == p):
        raise ValueError(f"{w}.owner_sure: only the hand of a seat other than the University owner "
                         f"(uni_owner) can hold cards that owner put back (LN-85)")
    hidden = _letters(seat.get("hand_hidden"), f"{w}.hand_hidden")
    size = sum(hand) + sum(hidden)
    if (seat.get("hand_size") or 0) != size:
        raise ValueError(f"{w}.hand_size: {seat.get('hand_size')} but hand lists {sum(hand)} cards and "
                         f"hand_hidden {sum(hidden)}")
    limit = 6 if phase == "deal" else (FULL_DECK if p == b.active else E.HAND_LIMIT_CARDS)
    if size > limit:
        raise ValueError(f"{w}.hand_size: {size} cards; " + (
            "the opening deal gives 6 (LN-5)" if phase == "deal" else
            f"a hand is cut to {E.HAND_LIMIT_CARDS} at the end of its owner's turn (LN-17)"))
    s["hand"][p] = hand + [0] * (len(s["hand"][p]) - nv)
    s["known"][p] = known + [0] * (len(s["known"][p]) - nv)
    s["owner_sure"][p] = [k + x for k, x in zip(known, extra)] + [0] * (len(s["owner_sure"][p]) - nv)
    b.count(_expand(hand))
    if sum(hidden):
        b.hidden_need.append((p, hidden))


def _place_building_display(b, p, w, seat):
    """A seat's Building Display: stacks of cards with a stone base (LN-27), at most the engine's
    room for placed cards."""
    E = _engine()
    s = b.s
    stacks = seat.get("stacks") or ()
    n = 0
    for j, stack in enumerate(stacks):
        ws = f"{w}.stacks[{j}]"
        cards = stack.get("cards")
        if not cards:
            raise ValueError(f"{ws}.cards: a stack has at least one card")
        for c_i, card in enumerate(cards):
            wc = f"{ws}.cards[{c_i}]"
            if n >= E.MAX_PLACED_CARDS:
                raise ValueError(f"{wc}: more than {E.MAX_PLACED_CARDS} cards in one Building Display")
            c = card.get("card")
            if not _is_card(c):
                raise ValueError(f"{wc}.card: unknown card {c!r} (a card id of cards.json)")
            v = E.VERSION_INDEX[c]
            if not E.CARDS[v].base:
                raise ValueError(f"{wc}.card: {c} has no stone base, so it is never placed (LN-27)")
            covered = c_i < len(cards) - 1
            flags, money = _placed_card_marks(b, p, wc, card, v, covered)
            s["pc_version"][p][n] = v
            s["pc_stack"][p][n] = j
            s["pc_flags"][p][n] = flags
            s["pc_money"][p][n] = money
            b.listed[v] += 1
            if p == b.active and not covered:
                b.stack_tops[j] = n
            n += 1
    s["pc_n"][p] = n
    s["stacks"][p] = len(stacks)


def _placed_card_marks(b, p, wc, card, v, covered):
    """A placed card's marks as the rules leave them: placed this turn, activated or kept only the
    active seat's (LN-29, LN-36, LN-43), money only on an uncovered Shops (LN-48); (flags, money)."""
    E = _engine()
    c = card.get("card")
    down = bool(card.get("face_down"))
    now = bool(card.get("placed_this_turn"))
    activated = bool(card.get("activated"))
    kept = bool(card.get("kept"))
    money = card.get("shops_money") or 0
    if (now or activated or kept) and p != b.active:
        raise ValueError(f"{wc}: only the active player's cards are marked placed this turn, "
                         f"activated or kept (LN-29, LN-36, LN-43)")
    # (The engine lets a Coffee House placed this turn by another Coffee House be
    # activated in the same run and so covered: reported to the engine's author.)
    if now and covered and not _power(v, "place_from_display_on_this"):
        raise ValueError(f"{wc}.placed_this_turn: a card placed this turn is not covered "
                         f"the same turn (LN-29)")
    if kept and (not activated or down):
        raise ValueError(f"{wc}.kept: only an activated card still face up is kept by a "
                         f"Hospital (LN-43)")
    if activated and not E.CARDS[v].activation:
        raise ValueError(f"{wc}.activated: {c} has no activation")
    # (A Shops can be face down with money: a Coffee House placement after its
    # activation stores money on it before the flip step turns it over.)
    if money and (covered or not _power(v, "store_money_on_card")):
        raise ValueError(f"{wc}.shops_money: money lies only on an uncovered Shops (LN-48)")
    flags = ((E.FLAGS["down"] if down else 0) | (E.FLAGS["covered"] if covered else 0)
             | (E.FLAGS["placed_this_turn"] if now else 0)
             | (E.FLAGS["activated"] if activated else 0) | (E.FLAGS["kept"] if kept else 0))
    return flags, money


def _place_boroughs(b, p, w, seat):
    """A seat's boroughs: one building counter each, one counter per borough (LN-4, LN-72)."""
    E = _engine()
    owner_of = b.owner_of
    counters = _board().building_counters_per_player
    owned = _borough_list(seat.get("boroughs"), f"{w}.boroughs")
    if len(owned) > counters:
        raise ValueError(f"{w}.boroughs: {len(owned)} boroughs, a player has "
                         f"{counters} building counters (LN-4)")
    for i, x in enumerate(owned):
        if owner_of[x] >= 0:
            raise ValueError(f"{w}.boroughs[{i}]: {E.BOROUGH_IDS[x]} is also seat {owner_of[x]}'s "
                             f"(one building counter per borough, LN-72)")
        owner_of[x] = p
    left = seat.get("building_counters_left")
    if left is not None and left != counters - len(owned):
        raise ValueError(f"{w}.building_counters_left: {left!r}, but {len(owned)} of "
                         f"{counters} are on the board")


def _check_boroughs_connected(b):
    """The occupied boroughs were bought one by one, each next to an occupied one, the first a
    starting borough (LN-72)."""
    E = _engine()
    s, owner_of = b.s, b.owner_of
    s["owner"] = owner_of
    s["hand_n"] = [sum(s["hand"][p]) for p in range(len(s["hand"]))]  # hidden ones added by _deal_unseen
    occupied = {x for x in range(len(E.BOROUGHS)) if owner_of[x] >= 0}
    if not _connected(occupied, lambda x: E.BOROUGHS[x].start):
        raise ValueError("seats: the occupied boroughs could not have been bought one by one, each next "
                         "to an occupied one, the first a starting borough (LN-72)")


def _place_board_cards(b):
    """The Card Display's rows of at most one card more than the players, the discard pile, the
    deck, and the cards University of London shows: at most 3, put back only by its owner (LN-50)."""
    E = _engine()
    d, s = b.d, b.s
    nv = len(E.VERSIONS)
    b.rows = []
    for r, name in enumerate(("display_top", "display_bottom")):
        row = sorted(_card_list(list_of(d.get(name), name, b.players + 1), name))
        s["display_n"][r] = len(row)
        s["display"][r] = row + [0] * (E.ROW_SPACES - len(row))
        b.rows.append(row)
        b.count(row)
    b.discard = discard = _counts(_card_list(d.get("discard"), "discard"), nv)
    s["discard"] = discard + [0] * (len(s["discard"]) - nv)
    b.count(_expand(discard))
    b.deck_listed = _card_list(d.get("deck"), "deck")
    b.count(b.deck_listed)
    b.top, b.top_letters = _slots(b, "deck_top", "deck_top_letters")
    b.look, b.look_letters = _slots(b, "looked", "looked_letters")
    if b.top_letters and b.uni_owner is None:
        raise ValueError("deck_top: cards lie on top of the deck only once put back by University of London "
                         "(uni_owner)")
    if len(b.top_letters) + len(b.look_letters) > 3:
        raise ValueError("looked: University of London shows 3 cards: the cards put back and those being "
                         "looked at are at most 3 (LN-50)")


def _slots(b, cards_field, letters_field):
    """Cards whose places are known, shown or by their deck letters alone; (cards, letters)."""
    d = b.d
    cards = _card_list(d.get(cards_field), cards_field)
    letters = [_letter(x, f"{letters_field}[{i}]") for i, x in enumerate(d.get(letters_field) or ())]
    own = [_deck_letter()[v] for v in cards]
    if cards and letters and own != letters:
        raise ValueError(f"{letters_field}: the letters do not match {cards_field}'s cards")
    if not letters:
        letters = own
    b.count(cards)
    return cards, letters


def _place_card_being_placed(b):
    """The card being placed has left the hand, and has a stone base (LN-27, LN-28)."""
    E = _engine()
    placing = b.d.get("placing")
    if b.phase in PLACING_PHASES:
        if not _is_card(placing):
            raise ValueError(f"placing: phase {b.phase} needs the card being placed (a card id), got {placing!r}")
        v = E.VERSION_INDEX[placing]
        if not E.CARDS[v].base:
            raise ValueError(f"placing: {placing} has no stone base (LN-27)")
        b.s["pending"] = v
        b.listed[v] += 1
    elif placing not in (None, ""):
        raise ValueError(f"placing: only in phases {', '.join(PLACING_PHASES)}")


def _deal_unseen(b):
    """Every card in exactly one place: the unseen cards are dealt over the hidden places, each
    receiving a card of its letter (LN-86); the rest form the deck."""
    E = _engine()
    d, s = b.d, b.s
    nv = len(E.VERSIONS)
    unseen = _card_list(d.get("unseen"), "unseen")
    total = [a + c for a, c in zip(b.listed, _counts(unseen, nv))]
    for v in range(nv):
        if total[v] != E.CARDS[v].count:
            raise ValueError(f"cards: the state holds {total[v]} of {E.VERSIONS[v]}, the game has "
                             f"{E.CARDS[v].count} (every card must be in exactly one place)")
    pools = {x: [] for x in range(3)}
    letter_of = _deck_letter()
    for v in sorted(unseen):
        pools[letter_of[v]].append(v)
    rng = random.Random(b.seed)
    for x in range(3):
        rng.shuffle(pools[x])

    def deal(letter, field):
        if not pools[letter]:
            raise ValueError(f"{field}: no unseen {LETTERS[letter].upper()} card is left for this hidden "
                             f"place (LN-86)")
        return pools[letter].pop()

    for p, hidden in b.hidden_need:
        for x in range(3):
            for _ in range(hidden[x]):
                v = deal(x, f"seats[{p}].hand_hidden.{LETTERS[x]}")
                s["hand"][p][v] += 1
                s["hand_n"][p] += 1
    top, look = b.top, b.look
    if not top and b.top_letters:
        top = [deal(x, "deck_top_letters") for x in b.top_letters]
    if not look and b.look_letters:
        look = [deal(x, "looked_letters") for x in b.look_letters]
    b.deck = deck = _counts(b.deck_listed + pools[0] + pools[1] + pools[2], nv)
    want = d.get("deck_letters")
    if want is not None and _letters(want, "deck_letters") != [
            sum(n for v, n in enumerate(deck) if letter_of[v] == x) for x in range(3)]:
        raise ValueError(f"deck_letters: {want} does not match the deck's cards (deck and the unseen cards "
                         f"left over from the hidden places)")
    s["deck"] = deck + [0] * (len(s["deck"]) - nv)
    s["top_n"] = len(top)
    s["top"] = top + [0] * (3 - len(top))
    s["look_n"] = len(look)
    s["look"] = look + [0] * (3 - len(look))
    b.top, b.look = top, look
    b.deck_cards = sum(deck) + len(top)


def _place_underground(b):
    """The Underground counters: in boroughs with a building counter, placed one by one from in or
    next to the City, each next to one placed (LN-67)."""
    E = _engine()
    d, s = b.d, b.s
    counters = _board().underground.counters
    underground = _borough_list(d.get("underground"), "underground")
    for i, x in enumerate(underground):
        if b.owner_of[x] < 0:
            raise ValueError(f"underground[{i}]: {E.BOROUGH_IDS[x]} has no building counter (LN-67)")
    if len(underground) > counters:
        raise ValueError(f"underground: {len(underground)} counters, the game has {counters}")
    first = E.BOROUGH_INDEX[_board().underground.first_in_or_next_to]
    near_first = {first} | {E.BOROUGH_INDEX[n] for n in E.BOROUGHS[first].neighbours}
    if not _connected(set(underground), lambda x: x in near_first):
        raise ValueError("underground: the counters could not have been placed one by one, the first in or "
                         "next to the City, each later one next to one placed (LN-67)")
    s["underground"] = [1 if x in underground else 0 for x in range(len(E.BOROUGHS))]
    left = d.get("underground_left")
    if left is not None and left != counters - len(underground):
        raise ValueError(f"underground_left: {left!r}, but {len(underground)} of {counters} "
                         f"counters are on the board")
    s["underground_left"] = counters - len(underground)


def _read_draw_counters(b):
    """The opening deal's cards left, and a draw's terms: its cards taken and still due make what it
    began with, at most 20."""
    E = _engine()
    d, s = b.d, b.s
    s["deal_left"] = int_in(d.get("deal_left") or 0, 0, 6 * b.players, "deal_left")
    s["draw_for"] = enum_index(d.get("draw_for") or "turn", E.DRAW_FOR, "DRAW_FOR_", "draw_for")
    s["draw_to"] = enum_index(d.get("draw_to") or "hand", E.DRAW_TO, "DRAW_TO_", "draw_to")
    s["draws_left"] = d.get("draws_left") or 0
    s["draws_taken"] = d.get("draws_taken") or 0
    # What the rules make these during a draw, and zeros outside one, are checked later.
    s["draws_min"] = d.get("draws_min") or 0
    if s["draws_taken"] + s["draws_left"] > 20:
        # Each card taken moves one from draws_left to draws_taken: their sum is what the
        # draw began with, and a larger sum would grow draws_taken past its range in play.
        raise ValueError(f"draws_taken: {s['draws_taken']} taken and {s['draws_left']} still due (draws_left) "
                         f"make a draw of more than 20 cards")
    s["look_target"] = d.get("look_target") or 0
    s["action"] = enum_index(d.get("action") or "none", E.ACTIONS, "ACTION_", "action")


def _read_play_and_run_counters(b):
    """The cards placed this Play Cards and the activations of this Run City, within what the
    active seat's display holds (LN-36)."""
    E = _engine()
    d, s, active = b.d, b.s, b.active
    s["placed"] = d.get("placed") or 0
    if s["placed"] > s["pc_n"][active]:
        # Each placement adds a card to the display, which never loses one: a larger count
        # would be accepted here and grow past the range above as play goes on.
        raise ValueError(f"placed: {s['placed']} cards placed this Play Cards, but seat {active}'s "
                         f"display holds {s['pc_n'][active]} cards")
    s["activations"] = d.get("activations") or 0
    marked = sum(1 for i in range(s["pc_n"][active]) if s["pc_flags"][active][i] & E.FLAGS["activated"])
    if s["activations"] < marked:
        # Phase run offers "done" only after an activation: fewer counted than marked would
        # leave a seat whose every card is spent with nothing to do (LN-36).
        raise ValueError(f"activations: {s['activations']}, but seat {active} has {marked} cards marked "
                         f"activated this Run City")
    unmarked = s["pc_n"][active] - marked
    if s["activations"] + unmarked > 1000:
        # Each activation marks one more card of the display: a count that the unmarked cards
        # could carry past the range above would leave a successor whose view is refused.
        raise ValueError(f"activations: {s['activations']}, with {unmarked} cards of seat {active} still to "
                         f"activate, could pass 1000")
    s["wren_waivers"] = d.get("wren_waivers") or 0
    s["choices_left"] = d.get("choices_left") or 0


def _read_last_round(b):
    """The swap of this turn, and the last round: it begins when the deck is empty, and only then
    are its turns counted (LN-74)."""
    d, s = b.d, b.s
    s["swapped"] = int(bool(d.get("swapped")))
    b.swap_row = swap_row = d.get("swap_row")
    s["swap_row"] = -1 if swap_row is None else swap_row
    s["last_round"] = int(bool(d.get("last_round")))
    turns_left = _optional_int(d.get("turns_left"), 0, b.players - 1, "turns_left")
    s["turns_left"] = -1 if turns_left is None else turns_left
    if turns_left is not None and not s["last_round"]:
        raise ValueError("turns_left: counted only in the last round (last_round, LN-74)")
    if not s["last_round"] and b.deck_cards + len(b.look) == 0:
        raise ValueError("last_round: the deck is empty, so the last round has begun (LN-74)")


def _stack_ref(b, field, required):
    """A reference to one of the active seat's stacks, by stack id, as the pc index of its top
    card (-1: none)."""
    value = b.d.get(field)
    if value is None:
        _need(not required, field, f"phase {b.phase} needs it")
        return -1
    j = int_in(value, 0, max(len(b.stack_tops) - 1, 0), field)
    _need(j in b.stack_tops, field, f"seat {b.active} has no stack {j}")
    return b.stack_tops[j]


#: The power a card's effect phase runs, by phase.
EFFECT_POWERS = {"coffee": ("place_from_display_on_this",), "target": ("opponent_takes_poverty", "give_poverty"),
                 "prison": ("expend_cards_for_poverty",), "workhouse": ("expend_paupers",),
                 "whitehall": ("reactivate_another",), "underground": ("place_underground",)}


def _check_stack_references(b):
    """The stacks the turn refers to: the stack built over, not one placed this turn (LN-29); the
    card activated, and the card whose effect runs with that power on top."""
    E = _engine()
    d, s, phase, active = b.d, b.s, b.phase, b.active
    F = E.FLAGS
    flags = lambda i: s["pc_flags"][active][i]          # noqa: E731
    if phase == "pay":
        s["pending_stack"] = _stack_ref(b, "placing_on_stack", False)
        if s["pending_stack"] >= 0:
            _need(not flags(s["pending_stack"]) & F["placed_this_turn"], "placing_on_stack",
                  "a card placed this turn is not built over the same turn (LN-29)")
    else:
        _need(d.get("placing_on_stack") is None, "placing_on_stack", "only in phase pay")
    if phase in ACTIVATING_PHASES:
        i = s["pending"] = _stack_ref(b, "activating_stack", True)
        _need(flags(i) & F["activated"], "activating_stack", "its top card is not marked activated")
    else:
        _need(d.get("activating_stack") is None, "activating_stack",
              f"only in phases {', '.join(ACTIVATING_PHASES)}")
    if phase in EFFECT_PHASES:
        i = s["effect_card"] = _stack_ref(b, "effect_stack", True)
        _need(flags(i) & F["activated"], "effect_stack", "its top card is not marked activated")
        v = s["pc_version"][active][i]
        _need(any(_power(v, c) for c in EFFECT_POWERS[phase]), "effect_stack",
              f"phase {phase} needs a card with that power on top, not {E.VERSIONS[v]}")
        if phase == "whitehall":
            _need(s["pending"] == i, "effect_stack", "Whitehall's effect runs on the Whitehall activated")
    else:
        _need(d.get("effect_stack") is None, "effect_stack", f"only in phases {', '.join(EFFECT_PHASES)}")


def _check_choices_left(b):
    """The choices a Prison (LN-64) or an Underground station (LN-66) leaves, none elsewhere."""
    E = _engine()
    s, phase = b.s, b.phase
    effect = lambda: E.CARDS[s["pc_version"][b.active][s["effect_card"]]]     # noqa: E731
    if phase == "prison":
        most = effect().power("expend_cards_for_poverty")["max_cards"]
        _need(1 <= s["choices_left"] <= most, "choices_left", f"a prison takes 1 to {most} cards (LN-64)")
    elif phase == "underground":
        most = effect().power("place_underground")["markers"]
        _need(1 <= s["choices_left"] <= most, "choices_left", f"1 to {most} counters (LN-66)")
        _need(s["underground_left"] > 0, "underground", "no counter left to place (LN-66)")
    else:
        _need(s["choices_left"] == 0, "choices_left", "only in phases prison and underground")


def _check_action_of_phase(b):
    """Each phase belongs to the turn's action: playing cards, running the city, buying land or
    taking three cards, as its draw is for."""
    E = _engine()
    s, phase = b.s, b.phase
    want_action = {"look": "none", "take_looked": "none", "put_back": "none", "swap": "none", "give": "none",
                   "action": "none", "play": "play_cards", "where": "play_cards", "pay": "play_cards",
                   "run": "run_city", "hospital": "run_city", "buy": "buy_land"}
    for ph in ACTIVATING_PHASES:
        want_action[ph] = "run_city"
    for_action = {"turn": "none", "borough": "buy_land", "take_three": "take_three", "hand_power": "play_cards"}
    if phase in ("source",) or (phase == "draw" and s["draw_to"] == 0):
        want_action[phase] = for_action[E.DRAW_FOR[s["draw_for"]]]
    if phase in want_action:
        _need(E.ACTIONS[s["action"]] == want_action[phase], "action",
              f"phase {phase} needs action {want_action[phase]}")


def _check_opening_deal(b):
    """The opening deal gives six A cards to a seat in seat order, unseen, before anything is
    built or shown (LN-5)."""
    E = _engine()
    s, players = b.s, b.players
    nv = len(E.VERSIONS)
    if b.phase != "deal":
        _need(s["deal_left"] == 0, "deal_left", "only in phase deal")
        return
    dealt = 6 * players - s["deal_left"]
    _need(s["deal_left"] > 0, "deal_left", "phase deal needs a card still to deal")
    _need(b.active == 0 and s["turns"] == 0, "active_player", "the opening deal comes before the first turn")
    for p in range(players):
        _need(s["hand_n"][p] == min(6, max(0, dealt - 6 * p)), f"seats[{p}].hand_size",
              f"{dealt} cards dealt six to a seat in seat order (LN-5)")
        _need(all(E.CARDS[v].deck == "A" for v in _expand(s["hand"][p][:nv])), f"seats[{p}].hand",
              "the opening deal gives A cards (LN-5)")
        _need(not any(s["known"][p]), f"seats[{p}].hand_known", "nobody has seen a dealt card")
        _need(s["pc_n"][p] == 0 and not any(x == p for x in b.owner_of), f"seats[{p}]",
              "nothing is built before the first turn")
    _need(not b.rows[0] and not b.rows[1] and not any(b.discard) and not b.top and not b.look, "display_top",
          "the Card Display and the discard pile are empty before the first turn")


def _check_draw_and_look(b):
    """A draw takes the next card from the unseen deck; University of London, face up and
    uncovered, looks at no more cards than the deck holds (LN-50)."""
    s, phase, deck_cards, look = b.s, b.phase, b.deck_cards, b.look
    if phase == "draw":
        _need(deck_cards - len(b.top) > 0 and not b.top, "deck", "phase draw needs the next card to come from "
              "the unseen deck (none put back on top)")
        if s["draw_to"] == 1:
            _need(len(look) < s["look_target"], "look_target", "a look still wanting a card")
            # A look wanting more than the deck holds would reach a draw from an empty deck,
            # a chance event with no outcome.
            _need(s["look_target"] - len(look) <= deck_cards, "look_target",
                  f"{s['look_target']} cards to look at, but {len(look)} are looked at and the deck "
                  f"holds {deck_cards}")
        else:
            _need(s["draws_left"] > 0 and not look, "draws_left", "phase draw needs a card still due")
    if phase in ("look", "take_looked", "put_back", "draw") and (phase != "draw" or s["draw_to"] == 1):
        _need(_power_up(s, b.active, "look_at_deck_when_drawing"), f"seats[{b.active}].stacks",
              "University of London (face up, uncovered) is needed to look at the deck (LN-50)")
    if phase == "look":
        _need(deck_cards > 0 and not look, "deck", "phase look needs cards in the deck and no look going on")


def _check_cards_being_taken(b):
    """While cards are taken the rules fix the draw's terms (LN-13, LN-15); outside a draw its
    counts are zero, and cards are looked at only during University's look."""
    E = _engine()
    d, s, phase = b.d, b.s, b.phase
    draw_for = E.DRAW_FOR[s["draw_for"]]
    if phase in ("source", "take_looked"):
        _need(s["draws_left"] > 0, "draws_left", f"phase {phase} needs a card still due")
    if phase in ("source", "take_looked") or (phase == "draw" and s["draw_to"] == 0):
        _check_draw_terms(s, d, b.active, draw_for)
    else:
        # A draw's counts go back to zero when it ends (LN-15): outside a draw the engine
        # holds zeros, and any other figure would be a draw it never holds there.
        for name in ("draws_left", "draws_taken", "draws_min"):
            _need(s[name] == 0, name, f"only while cards are being taken, not in phase {phase}")
        _need(draw_for == "turn", "draw_for", f"only while cards are being taken, not in phase {phase}")
        if phase != "draw":
            _need(s["draw_to"] == 0, "draw_to", f"only while cards are being taken, not in phase {phase}")
    if phase == "take_looked":
        _need(draw_for == "turn", "draw_for", "University's look is for the turn's card")
    if phase == "put_back":
        _need(len(b.look) > 0, "looked", "phase put_back needs looked-at cards")
    if phase not in ("take_looked", "put_back", "draw"):
        _need(not b.look, "looked", "cards are looked at only during University's look")


def _check_swap_and_give(b):
    """The Stock Exchange swaps once a turn (LN-51), and the card given back goes to a row with a
    free space."""
    s, phase = b.s, b.phase
    if phase == "swap":
        _need(_power_up(s, b.active, "swap_hand_with_display") and not s["swapped"], "swapped",
              "phase swap needs a face-up Stock Exchange and no swap yet this turn (LN-51)")
    if phase == "give":
        _need(b.swap_row is not None, "swap_row", "phase give needs the row the swapped card came from")
        _need(len(b.rows[b.swap_row]) < b.players + 1, "swap_row", "the row has no free space for the card given")


def _check_where_payable(b):
    """The card being placed was chosen because it could be paid for (LN-28, LN-47): with no card
    left to expend, every answer would lead to a phase pay with nothing to do."""
    E = _engine()
    s, active = b.s, b.active
    if b.phase != "where":
        return
    v = s["pending"]
    colour = E.CARDS[v].colour
    hand_left = _expand(s["hand"][active][:len(E.VERSIONS)])
    payable = (_power(v, "placed_without_expending") or s["wren_waivers"] > 0
               or any(E.CARDS[h].colour == colour for h in hand_left)
               or (_power_up(s, active, "expend_any_colour_for_money") and hand_left))
    if not payable:
        raise _NothingToDo(f"placing: {E.VERSIONS[v]} could not be paid for: seat {active} holds no "
                           f"{colour} card to expend and no School (LN-28, LN-47)", b.active_hidden())


def _check_hospital_and_cut(b):
    """A Hospital flips in place of an activated card that would flip (LN-43); a hand is cut when
    it holds more than the limit (LN-17)."""
    E = _engine()
    s, phase, active = b.s, b.phase, b.active
    F = E.FLAGS
    pc = lambda i: s["pc_version"][active][i]           # noqa: E731
    flags = lambda i: s["pc_flags"][active][i]          # noqa: E731
    if phase == "hospital":
        hospitals = [i for i in range(s["pc_n"][active]) if _power(pc(i), "flip_in_place_of_another")
                     and not flags(i) & (F["down"] | F["covered"])]
        candidates = [i for i in range(s["pc_n"][active]) if flags(i) & F["activated"]
                      and not flags(i) & (F["kept"] | F["down"]) and E.CARDS[pc(i)].activation.flip]
        _need(hospitals and candidates, f"seats[{active}].stacks",
              "phase hospital needs a face-up Hospital and an activated card that would flip (LN-43)")
    if phase == "cut":
        _need(s["hand_n"][active] > E.HAND_LIMIT_CARDS, f"seats[{active}].hand_size",
              f"phase cut needs more than {E.HAND_LIMIT_CARDS} cards (LN-17)")


def _check_end(b):
    """The final VP, poverty and winners, one per player, only once the game is over (LN-81)."""
    d, s, players = b.d, b.s, b.players
    over = b.phase == "over"
    finals = {}
    for name in ("final_vp", "final_poverty"):
        values = list_of(d.get(name), name, players)
        if over:
            _need(len(values) == players, name, "one per player when the game is over")
            finals[name] = values
        else:
            _need(not values, name, "only when the game is over")
    winners = list_of(d.get("winners"), "winners", players)
    if over:
        _need(winners, "winners", "the game is over: at least one winner (LN-81)")
        mask = 0
        for i, w_ in enumerate(winners):
            int_in(w_, 0, players - 1, f"winners[{i}]")
            _need(not (mask >> w_) & 1, f"winners[{i}]", "listed twice")
            mask |= 1 << w_
        s["winners"] = mask
        s["final_vp"] = finals["final_vp"] + [0] * (len(s["final_vp"]) - players)
        s["final_poverty"] = finals["final_poverty"] + [0] * (len(s["final_poverty"]) - players)
    else:
        _need(not winners, "winners", "only when the game is over")


def _pack_with_something_to_do(b):
    """The state's bytes, once someone (or chance) can act: the rules never leave the active seat
    without a legal action."""
    E = _engine()
    data = E._pack(b.s)         # (which also computes the rules' caches that the legal check reads)
    if b.phase in ("deal", "draw"):
        _need(sum(b.deck) > 0, "deck", f"phase {b.phase} needs a card in the deck")
    elif b.phase != "over":
        if not E.has_legal_action(data):
            raise _NothingToDo(f"phase: the position leaves seat {b.active} nothing to do in phase {b.phase}",
                               b.active_hidden())
    return data


def _turn_draw_range(s, p):
    """(least, most) cards seat p takes for its turn: one (LN-13), or the choice of its face-up
    uncovered Parliament (LN-49); of several, the first with the largest most, as the engine's
    permanent-power cache keeps it."""
    E = _engine()
    F = E.FLAGS
    best = None
    for i in range(s["pc_n"][p]):
        power = E.CARDS[s["pc_version"][p][i]].power("draw_count_choice")
        if power and not s["pc_flags"][p][i] & (F["down"] | F["covered"]) and (best is None
                                                                               or power["max"] > best["max"]):
            best = power
    return (best["min"], best["max"]) if best else (1, 1)


def _check_draw_terms(s, d, active, draw_for):
    """A draw under way: the cards it began with (taken + still due) and the number to take
    before stopping is allowed are fixed by the rules, not chosen by the client. An omitted
    draws_min is derived; a given one must be the rules' figure (LN-13, LN-33, LN-49, LN-71)."""
    E = _engine()
    if draw_for == "turn":
        least, most = _turn_draw_range(s, active)
        totals, why = {most}, ("LN-49: Parliament's choice" if (least, most) != (1, 1) else "LN-13: one card")
    elif draw_for == "take_three":
        least, totals, why = 3, {3}, "Take Three Cards takes three"
    elif draw_for == "borough":
        least, totals, why = None, {b.cards for b in E.BOROUGHS}, "LN-71: the cards of the borough bought"
    else:
        least, totals, why = None, {c.power("discard_to_draw")["cards"] for c in E.CARDS
                                    if c.power("discard_to_draw")}, "LN-33: the cards the hand power takes"
    began = s["draws_taken"] + s["draws_left"]
    if began not in totals:
        raise ValueError(f"draws_taken: {s['draws_taken']} taken and {s['draws_left']} still due (draws_left) "
                         f"make a draw of {began} cards for {draw_for}; {why} makes it "
                         f"{' or '.join(map(str, sorted(totals)))}")
    if least is None:
        least = began                       # every card of these draws must be taken
    given = d.get("draws_min")
    if given is not None and given != least:
        raise ValueError(f"draws_min: {given!r}, but a {draw_for} draw for seat {active} may stop only "
                         f"after {least} cards ({why})")
    s["draws_min"] = least


def _power_up(s, p, code):
    """Whether seat p has a face-up uncovered card with this permanent power (LN-30, LN-42)."""
    E = _engine()
    F = E.FLAGS
    return any(_power(s["pc_version"][p][i], code) and not s["pc_flags"][p][i] & (F["down"] | F["covered"])
               for i in range(s["pc_n"][p]))


# ------------------------------------------------------------------ text

def _name(card_id):
    E = _engine()
    return E.CARDS[E.VERSION_INDEX[card_id]].name


def _names(ids):
    return ", ".join(_name(c) for c in ids) or "-"


def _card_text(card_id):
    """A card with what a player weighs before playing it: "Hospital (blue £6, 2 VP)"."""
    E = _engine()
    card = E.CARDS[E.VERSION_INDEX[card_id]]
    return f"{card.name} ({card.colour} £{card.cost}" + (f", {card.vp} VP)" if card.vp else ")")


def _cards_text(ids):
    return ", ".join(_card_text(c) for c in ids) or "-"


def _wrapped(head, items, sep, indent, width=80):
    """``head`` then the items joined by ``sep``, in lines of at most ``width`` columns where
    an item fits: a line breaks between items, never inside one ("£3 (5 cards, 2 VP)")."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (sep if i < len(items) - 1 else "")
        if len(line) + len(piece.rstrip()) > width and line.strip() and line != head:
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line.rstrip())
    return lines


#: The table's symbols, for a player's `help` (fagin play) beside the text of ``render``.
SYMBOLS = (
    ("(blue £6, 2 VP)", "a card's colour, the money it costs to play and the VP it scores at the end"),
    ("[N]", "the seat that owns a borough"),
    ("(U)", "an Underground station in the borough"),
    ("£8 (4 cards, 6 VP)", "a borough's price, the cards its buyer draws and the VP it scores"),
    ("stack N: A < B", "a stack in play, B placed on A (only the top card's powers count)"),
    ("(face down)", "a card turned face down: its activation used"),
    ("(£N)", "money on a card (shops)"),
    ("N unseen (2A 1B)", "cards you cannot see, by deck letter"),
)


def _letters_text(counts):
    return " ".join(f"{counts[x]}{x.upper()}" for x in LETTERS if counts and counts.get(x)) or "0"


def summary(data) -> str:
    d = describe(data)
    money = [st["money"] for st in d["seats"]]
    vp = [st["vp_counters"] for st in d["seats"]]
    poverty = [st["poverty"] for st in d["seats"]]
    return (f"{d['players']} players, turn {d['turns'] + 1}, {d['phase']}, active {d['active_player']}, "
            f"£ {money}, VP {vp}, poverty {poverty}, deck {len(d['deck']) + len(d['deck_top'])}")


def render(data, seat=None) -> str:
    """The table as text: boroughs, the Card Display, each seat's money, VP, poverty,
    Building Display and hand (as ``seat`` sees it, if given)."""
    E = _engine()
    d = describe(data) if seat is None else view(data, seat)
    lines = [f"London - turn {d['turns'] + 1} (round {d['turns'] // d['players'] + 1}) - "
             f"{d['phase'].replace('_', ' ')}" + (" - last round" if d["last_round"] else "")
             + (" - game over" if d["phase"] == "over" else f" - seat {d['active_player']} to play")]
    deck_n = sum(d["deck_letters"].values()) + len(d["deck_top_letters"])
    lines += _wrapped("", [f"deck: {deck_n} ({_letters_text(d['deck_letters'])}"
                           + (f", {len(d['deck_top_letters'])} put back on top" if d["deck_top_letters"] else "")
                           + ")", f"discard pile: {len(d['discard'])}",
                           f"Underground counters left: {d['underground_left']}"], "; ", "  ")
    for row in ("top", "bottom"):
        shown = [_card_text(c) for c in d["display_" + row]] or ["-"]
        lines += _wrapped(f"Card Display {row + ':':<7} ", shown, ", ", " " * 21)
    owners = {b: p for p, st in enumerate(d["seats"]) for b in st["boroughs"]}
    if owners:
        marks = [f"{E.BOROUGHS[E.BOROUGH_INDEX[b]].name} [{owners[b]}]" + ("(U)" if b in d["underground"] else "")
                 for b in E.BOROUGH_IDS if b in owners]
        lines += _wrapped("boroughs [seat] (U = Underground): ", marks, ", ", "    ")
    for bank in ("north", "south"):
        for_sale = [x for x in E.BOROUGHS if x.id not in owners and x.bank == bank]
        if for_sale and d["phase"] != "over":
            lines += _wrapped(f"for sale, {bank} bank: ", [
                f"{x.name} £{x.cost} ({x.cards} card{'s' if x.cards != 1 else ''}, {x.vp} VP)"
                for x in sorted(for_sale, key=lambda x: (x.cost, x.name))], "; ", "    ")
    for p, st in enumerate(d["seats"]):
        mark = "*" if p == d["active_player"] and d["phase"] != "over" else " "
        lines.append(f"{mark}seat {p}: £{st['money']}, loans {st['loans']}, VP {st['vp_counters']}, "
                     f"poverty {st['poverty']}, boroughs {len(st['boroughs'])}, hand {st['hand_size']}")
        for j, stack in enumerate(st["stacks"]):
            cards = []
            for c in stack["cards"]:
                text = _name(c["card"]) + (" (face down)" if c["face_down"] else "")
                if c["shops_money"]:
                    text += f" (£{c['shops_money']})"
                cards.append(text)
            lines += _wrapped(f"    stack {j}: ", cards, " < ", "      ")
        if st["hand"] or any((st["hand_hidden"] or {}).values()):
            hidden = sum((st["hand_hidden"] or {}).values())
            unseen = f"{hidden} unseen ({_letters_text(st['hand_hidden'])})" if hidden else ""
            shown = [_card_text(c) for c in st["hand"]]
            lines += _wrapped("    hand: ", shown + ([unseen] if unseen else []),
                              ", ", " " * 10)
    if d["looked"]:
        lines.append(f"looked at: {_cards_text(d['looked'])}")
    elif d["looked_letters"]:
        lines.append(f"looked at: {len(d['looked_letters'])} cards")
    if d["placing"]:
        lines.append(f"placing: {_card_text(d['placing'])}")
    if d["phase"] == "over":
        lines.append("final result (VP after the poverty penalty; most VP wins):")
        for p, vp in enumerate(d["final_vp"]):
            lines.append(f"  seat {p}  {vp:>5} VP  poverty {d['final_poverty'][p]:>2}"
                         + ("  winner" if p in d["winners"] else ""))
    return "\n".join(lines)
