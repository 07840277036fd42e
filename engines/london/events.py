"""London's events (``LondonEvent``), as each seat sees them, written beside the room's
actions (``actions.py``), whose labels they reuse.

A move is told with its label (naming the card it moves, LN-93) and what it changed for
every seat: money, loans taken, poverty, VP counters, cards to take. What another seat
may not know is told by its deck letter only (LN-85, LN-86): a card drawn into a hand,
looked at or put back with University of London. The game's end is scored by the engine
(``final_scoring``, LN-75 to LN-80) and told seat by seat, category by category.
"""
from collections import Counter

from fagin.engines.game import bookkeeping, event, named, told_by, view_changes, result_event, seat_changes, seat_name, verb
from fagin.engines.london import state as _state

#: The four actions of a turn (LN-18).
_ACTIONS = ("play_cards", "run_city", "buy_land", "take_three")
#: Decisions whose card another seat may not know (University of London, LN-50, LN-85).
_PRIVATE = {"take_looked": "takes a looked-at card", "put_back": "puts a card back on the deck"}


def _engine():
    from fagin.engines.london import engine
    return engine


def _changes(before, after, seat):
    def bits(p, b, a):
        out = []
        if a["money"] != b["money"]:
            out.append(f"money £{b['money']} → £{a['money']}")
        if a["loans"] > b["loans"]:
            n = a["loans"] - b["loans"]
            out.append(f"{verb(p, seat, 'take', 'takes')} {n} loan{'s' if n > 1 else ''}")
        for key, name in (("poverty", "poverty"), ("vp_counters", "VP counters")):
            if a[key] != b[key]:
                out.append(f"{name} {b[key]} → {a[key]}")
        return out
    return seat_changes(before["seats"], after["seats"], seat, bits)


def _draw(move, seat, before, after):
    """A card off the deck: into a hand (the opening deal, LN-5, or a draw, LN-89) or
    into University of London's look (LN-50)."""
    for p, (b, a) in enumerate(zip(before["seats"], after["seats"])):
        if a["hand_size"] > b["hand_size"]:
            return _drawn(p, seat, ("draw", "draws"), "", "a card",
                          Counter(a["hand"]) - Counter(b["hand"]),
                          Counter(a["hand_hidden"]) - Counter(b["hand_hidden"]))
    return _drawn(before["active_player"], seat, ("look", "looks"), "at ", "a card off the deck",
                  Counter(after["looked"]) - Counter(before["looked"]),
                  Counter(after["looked_letters"]) - Counter(before["looked_letters"]))


def _drawn(p, seat, verbs, at, unseen, seen, letters):
    """Seat p drew (or looked at) the card in ``seen`` if the observer sees it, else one of
    the deck letter in ``letters`` (LN-86)."""
    head = f"{seat_name(p, seat)} {verb(p, seat, *verbs)} {at}"
    if seen:
        card = next(iter(seen))
        return event(head + _state._name(card), "draw", to=p, card=card)
    letter = next(iter(letters)) if letters else None
    return event(head + unseen + (f" ({letter.upper()})" if letter else ""), "draw", to=p, letter=letter)


def _move(move, seat, before, after):
    a, typed = move.actor, move.typed
    kind = typed["kind"]
    me = seat_name(a, seat)
    if kind in _PRIVATE and a != seat:
        return event(f"{me} {_PRIVATE[kind]}", "move", seat=a)
    if kind == "buy":
        borough = next(b for b in _state._board().boroughs if b.id == typed["borough"])
        label = f"{me} {verb(a, seat, 'buy', 'buys')} {borough.name} for £{borough.cost}"
    elif kind in _ACTIONS:
        label = f"{me} {verb(a, seat, 'choose', 'chooses')} {move.label}"
    else:
        label = f"{me}: {move.label}"
    take = after["draws_left"] - before["draws_left"] if after["draw_for"] != "turn" else 0
    if take > 0:
        label += f" and {verb(a, seat, 'take', 'takes')} {take} card{'s' if take > 1 else ''}"
    changes = _changes(before, after, seat)
    if changes:
        label += " (" + "; ".join(changes) + ")"
    s_b, s_a = before["seats"][a], after["seats"][a]
    return event(label, "move", seat=a, action=typed, money=s_a["money"] - s_b["money"],
                 loans=s_a["loans"] - s_b["loans"], poverty=s_a["poverty"] - s_b["poverty"],
                 cards_to_take=max(take, 0))


#: The places whose cards a transition's ``changes`` name, as the views hold them (the seat's
#: places first), with how a label says them.
_SEAT_CARDS = {"hand": "hand", "stacks": "Building Display"}
_TABLE_CARDS = {"display_top": "the Card Display's top row", "display_bottom": "the Card Display's bottom row",
                "discard": "the discard pile", "deck_top": "the cards put back on the deck",
                "looked": "the cards looked at"}
_TABLE_LETTERS = {"deck_top_letters": "deck_top", "looked_letters": "looked"}
_FIGURES = ("money", "loans", "poverty", "vp_counters")
#: A Building Display card's states, with how a label says one taken on (and one lost).
_CARD_STATES = {"activated": ("activated", "no longer activated"), "face_down": ("turned face down", "turned face up"),
                "kept": ("kept face up", "no longer kept"), "shops_money": ("given money", "emptied of money")}


def _stack_cards(stacks):
    return [c["card"] for st in stacks for c in st["cards"]]


def _diff(b, a):
    b, a = Counter(b), Counter(a)
    return sorted((a - b).elements()), sorted((b - a).elements())


def _letters(counts):
    return [x for x in sorted(counts) for _ in range(counts[x])]


def _changes_of(before, after):
    """Every place's change across a transition as the observer's views show it
    (``LondonChange`` dicts): cards by id where it sees them, by deck letter where not."""
    out = []

    def add(place, seat, b, a):
        added, removed = _diff(b, a)
        if added or removed:
            out.append({"place": place, "seat": seat, "added": added, "removed": removed})

    for p, (sb, sa) in enumerate(zip(before["seats"], after["seats"])):
        for key in _FIGURES:
            if sa[key] != sb[key]:
                out.append({"place": key, "seat": p, "by": sa[key] - sb[key]})
        add("hand", p, sb["hand"], sa["hand"])
        add("hand_hidden", p, _letters(sb["hand_hidden"]), _letters(sa["hand_hidden"]))
        add("stacks", p, _stack_cards(sb["stacks"]), _stack_cards(sa["stacks"]))
        add("boroughs", p, sb["boroughs"], sa["boroughs"])
        for key, card, was, now in _card_states(sb["stacks"], sa["stacks"]):
            entry = {"place": key, "seat": p, "added": [], "removed": []}
            entry["added" if now > was else "removed"].append(card)
            if key == "shops_money":
                entry["by"] = now - was
            out.append(entry)
    for key in ("display_top", "display_bottom", "discard", "underground", "deck_top", "looked"):
        add(key, None, before[key], after[key])
    for key, place in _TABLE_LETTERS.items():
        add(place + "_letters", None, before[key], after[key])
    return out


def _card_states(before, after):
    """The Building Display cards whose state changed: (state, card, before, after), each
    stack compared with the stack at its place (new stacks go after the others)."""
    for i in range(min(len(before), len(after))):
        for c in view_changes(before[i], after[i]):
            key = c.path[-1] if c.path else None
            if key in _CARD_STATES:
                yield key, after[i]["cards"][c.path[1]]["card"], c.before, c.after


def _card_text(place, ids):
    """Cards as people tell them apart (a School or Hospital with its letter), cards seen by
    their letter only, or boroughs; joined with "and"."""
    if place.endswith("_letters") or place == "hand_hidden":
        names = [f"a card ({x.upper()})" for x in ids]
    elif place in ("boroughs", "underground"):
        names = [next(b.name for b in _state._board().boroughs if b.id == x) for x in ids]
    else:
        names = [_card_name(x) for x in ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _card_name(card):
    from fagin.engines.london.actions import version_names
    return version_names()[_state._engine().VERSION_INDEX[card]]


def _changes_text(changes, seat):
    """The card changes in words: "your hand loses Mercers; the Card Display's top row gains Mercers"."""
    parts = []
    for c in changes:
        place = c["place"]
        if place in _CARD_STATES:
            owner = "your" if c["seat"] == seat else f"seat {c['seat']}'s"
            gained, lost = _CARD_STATES[place]
            parts += [f"{owner} {_card_name(x)} {gained}" for x in c["added"]]
            parts += [f"{owner} {_card_name(x)} {lost}" for x in c["removed"]]
            continue
        if place in _FIGURES:
            continue
        where = (_SEAT_CARDS.get(place) or {"hand_hidden": "hand", "boroughs": "boroughs"}[place]
                 if c["seat"] is not None else
                 _TABLE_CARDS.get(place) or {"underground": "the Underground",
                                             "deck_top_letters": "the cards put back on the deck",
                                             "looked_letters": "the cards looked at"}[place])
        owner = ("your " if c["seat"] == seat else f"seat {c['seat']}'s ") if c["seat"] is not None else ""
        bits = [f"gains {_card_text(place, c['added'])}"] if c["added"] else []
        bits += [f"loses {_card_text(place, c['removed'])}"] if c["removed"] else []
        parts.append(f"{owner}{where} {' and '.join(bits)}")
    return parts


def _scoring(state, seat):
    E = _engine()
    scores = E.final_scoring(state.to_bytes())
    spread = max(sc["poverty"] for sc in scores) - min(sc["poverty"] for sc in scores)
    table = [E.poverty_penalty_of(n) for n in range(spread + 1)]
    lowest = min(sc["poverty"] for sc in scores)
    out = []
    for p, sc in enumerate(scores):
        label = (f"final scoring, {seat_name(p, seat)}: {sc['vp_counters']} VP counters, "
                 f"boroughs {sc['borough_vp']}, Underground {sc['underground_vp']}, cards {sc['card_vp']}, "
                 f"money £{sc['money_left']} → {sc['money_vp']}, loans {sc['repaid']} repaid and "
                 f"{sc['unpaid']} unpaid → −{7 * sc['unpaid']}, poverty {sc['poverty']} "
                 f"({sc['poverty'] - lowest} above the lowest) → −{sc['poverty_penalty']}; "
                 f"total {sc['vp']} VP")
        out.append(event(label, "scoring", summary=True, scores=[{"seat": p, **sc}],
                         poverty_table=table))
    return out


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    changes = _changes_of(before, after)
    if move.chance:
        first = _draw(move, seat, before, after)
        if before["phase"] == "deal":
            first["summed_up"] = True
        # The drawn card is the label's; anything else the draw brought is told after it.
        rest = [c for c in changes if c["place"] not in ("hand", "hand_hidden", "looked", "looked_letters")]
    else:
        first = _move(move, seat, before, after)
        rest = _said_by_label(move, changes, seat)
    extra = _changes_text(rest, seat)
    if extra:
        first = {**first, "label": first["label"] + "; " + "; ".join(extra)}
    first["typed"]["changes"] = changes
    out = [first]
    if before["phase"] == "deal" and after["phase"] != "deal":
        out.append(_deal_summary(after, seat))
    if move.after.is_terminal():
        out.extend(_scoring(move.after, seat))
        out.append(result_event(move.after, seat))
    return out


def _deal_summary(after, seat):
    """The opening deal (LN-5) in one line: each seat's hand as the observer sees it ("the
    deal: you: Mercers, Wren, ...; seat 1: 6 cards (4 A, 2 B)")."""
    parts, dealt = [], []
    for p, st in enumerate(after["seats"]):
        letters = _letters(st["hand_hidden"])
        dealt.append({"place": "hand", "seat": p, "added": sorted(st["hand"]), "removed": []})
        if letters:
            dealt.append({"place": "hand_hidden", "seat": p, "added": letters, "removed": []})
        if not letters:
            parts.append(f"{seat_name(p, seat)}: " + ", ".join(_card_name(c) for c in st["hand"]))
        else:
            counts = Counter(letters)
            parts.append(f"{seat_name(p, seat)}: {st['hand_size']} cards ("
                         + ", ".join(f"{n} {x.upper()}" for x, n in sorted(counts.items())) + ")"
                         + (" with " + ", ".join(_card_name(c) for c in st["hand"]) if st["hand"] else ""))
    return event("the deal: " + "; ".join(parts), "deal", summary=True, dealt=dealt)


def _said_by_label(move, changes, seat):
    """The changes a move's label does not already say: all but the card its action names
    leaving or joining the mover's hand, or leaving the row it is taken from, and the figures
    (said with the seats' changes)."""
    typed = move.typed
    card = typed.get("card") if move.actor == seat or typed["kind"] not in _PRIVATE else None
    taken = typed["kind"].startswith(("take_", "coffee_", "swap_"))

    letter = _state.LETTERS[_state._deck_letter()[_state._engine().VERSION_INDEX[card]]] if card else None
    borough = typed.get("borough")

    def said(c):
        if c["place"] in _FIGURES:
            return True
        if borough is not None and c["place"] in ("boroughs", "underground"):
            return c["added"] == [borough] and not c["removed"]
        if card is None or not (c["added"] or c["removed"]):
            return False
        if c["place"] == "hand_hidden":
            # The card named left the mover's hand where the observer knew it by its letter.
            return c["seat"] == move.actor and [letter] in (c["added"], c["removed"]) \
                and not (c["added"] and c["removed"])
        only = [card] in (c["added"], c["removed"]) and not (c["added"] and c["removed"])
        return only and (c["place"] == "hand" and c["seat"] == move.actor
                         or taken and c["place"] in ("display_top", "display_bottom"))
    return [c for c in changes if not said(c)]


def _building_display_told(change, move, seat, events):
    """A change in a seat's Building Display: the cards added and removed are named by a change
    of ``stacks``; a card turned, activated, kept or given money by a change of that state
    naming it (a stack's position is its own, new stacks going after the others)."""
    p = change.seat()
    before, after = move.view_before(seat)["seats"][p]["stacks"], move.view_after(seat)["seats"][p]["stacks"]
    entries = [c for e in events for c in e["typed"].get("changes", ()) if c.get("seat") == p]

    def named_in(place, cards):
        have = Counter(x for c in entries if c["place"] == place for x in c["added"] + c["removed"])
        return not (Counter(cards) - have)

    added, removed = _diff(_stack_cards(before), _stack_cards(after))
    if not named_in("stacks", added + removed):
        return False
    for key, card, was, now in _card_states(before, after):
        side = "added" if now > was else "removed"
        if not any(e["place"] == key and card in e[side] for e in entries):
            return False
    return True


def _in_changes(place, seat_place=True):
    """A rule: the view's change is told by a ``LondonChange`` of ``place`` (the change's seat's,
    for a seat's place) carrying every card or letter added and removed, or the figure's change."""
    def rule(change, move, seat, events):
        owner = change.seat() if seat_place else None
        entries = [c for e in events for c in e["typed"].get("changes", ())
                   if c["place"] == place and c.get("seat") == owner]
        if change.added or change.removed:
            items = Counter()
            for c in entries:
                items.update(c.get("added", []) + c.get("removed", []))
            want = Counter(card for x in change.added + change.removed for card in _card_ids(x))
            return not (want - items)
        if isinstance(change.after, int) and isinstance(change.before, int) and place in _FIGURES:
            return any(c.get("by") == change.after - change.before for c in entries)
        if place == "hand_hidden":
            letter = change.path[-1]
            moved = sum(c.get("added", []).count(letter) - c.get("removed", []).count(letter) for c in entries)
            return moved == change.after - change.before
        return bool(entries)
    return rule


def _card_ids(x):
    """The cards of a list item of the views (frozen by ``view_changes``) as ``changes`` name
    them: a new stack's cards, a stack's card, or a card id or letter itself."""
    if isinstance(x, tuple):
        d = dict(x)
        return [dict(c)["card"] for c in d["cards"]] if "cards" in d else [d["card"]]
    return [x]


_TURN = "the turn's progress, set and cleared by the moves told (the action chosen, what it still allows)"
#: How each change in a seat's view is told (fagin.engines.game.untold_changes).
VIEW_CHANGES = {
    "seats.*.hand": _in_changes("hand"),
    "seats.*.hand_hidden": _in_changes("hand_hidden"),
    "seats.*.stacks": _building_display_told,
    "seats.*.stacks.*.cards.*.placed_this_turn": bookkeeping(
        "a card placed this turn (told as it is placed) is no longer so when the turn ends"),
    "seats.*.boroughs": _in_changes("boroughs"),
    **{f"seats.*.{key}": _in_changes(key) for key in _FIGURES},
    "seats.*.hand_size": bookkeeping("the hand's size, from the cards and letters told added and removed"),
    "seats.*.hand_known": bookkeeping(
        "which of a hand's cards the others know: those told face up as they came into it"),
    "seats.*.owner_sure": bookkeeping(
        "University of London's owner's knowledge of the cards it put back, told as they were"),
    "seats.*.building_counters_left": bookkeeping("one less for each borough told bought"),
    "display_top": _in_changes("display_top", False),
    "display_bottom": _in_changes("display_bottom", False),
    "discard": _in_changes("discard", False),
    "underground": _in_changes("underground", False),
    "deck_top": _in_changes("deck_top", False),
    "deck_top_letters": _in_changes("deck_top_letters", False),
    "looked": _in_changes("looked", False),
    "looked_letters": _in_changes("looked_letters", False),
    "deck_letters": bookkeeping("the deck's cards by letter, less each card told drawn with its letter"),
    "unseen": bookkeeping("every card the seat has not seen: less each card told face up"),
    "final_vp": named("vp", kinds=("scoring",)),
    "final_poverty": named("poverty", kinds=("scoring",)),
    "winners": told_by("result"),
    **{key: bookkeeping(_TURN) for key in (
        "phase", "action", "active_player", "activating_stack", "activations", "choices_left",
        "deal_left", "draw_for", "draw_to", "draws_left", "draws_min", "draws_taken", "effect_stack",
        "look_target", "placed", "placing", "placing_on_stack", "swap_row", "swapped", "turns",
        "turns_left", "wren_waivers", "underground_left", "last_round", "uni_owner")},
}
