"""Oliver Twist's events (``OliverTwistEvent``), as each seat sees them (OT-30).

A move is told with its label and every seat's money change, except what another seat may
not know: which token a seat moves from a full stash to its file (OT-14) or picks from its
file, and which Burglary card it keeps (OT-29); those are told without the token or card.
A token drawn into a stash, a Character card, a Burglary card or a face-down token looked
at is named to the seat that sees it only (OT-30). A round's end is told from the engine's
record laid open to all (``last_round_end``, OT-38): the leftover sets, the Police files
with their tokens, the fines; the game's end with each seat's final score (OT-29).
"""
from collections import Counter

from fagin.engines.game import bookkeeping, change_entries, event, in_change_entries, result_event, seat_name, told_by, verb
# The engine first: it imports the state module at its end, and the state module reads the
# engine's constants as it loads, so the state module cannot be the first of the two loaded.
from fagin.engines.oliver_twist import engine as _engine  # noqa: F401
from fagin.engines.oliver_twist import state as _st

_CHANCE_NOUN = {"draw_token": "token", "draw_character": "Character card", "draw_burglary": "Burglary card"}


def _token(name):
    return _st.token_name(_st.KINDS.index(name))


def _money(before, after, seat):
    return [f"{seat_name(p, seat)} £{b['money']} → £{a['money']}"
            for p, (b, a) in enumerate(zip(before["seats"], after["seats"])) if a["money"] != b["money"]]


def _private_move(before, after, typed):
    """The words for another seat's move whose detail it may not know; None if public."""
    kind, phase = typed["kind"], before["phase"]
    # A set for Fagin is open to all while it is laid (OT-30); one that a forced completion
    # delivers at once (OT-37) is seen by its money only.
    if kind == "fagin" and after["fagin_type"] != typed["object_type"]:
        return "goes to Fagin's with a set"
    if kind == "token" and phase == "fagin" and \
            Counter(after["set"]) - Counter(before["set"]) != Counter([typed["token"]]):
        return "completes a set for Fagin"
    if kind == "keep":
        return "keeps one of the Burglary cards drawn"
    if kind == "token" and phase == "make_room":
        return "moves a token from its full stash to its Police file"
    if kind == "token" and phase == "pick_from_file":
        return "picks a token from its Police file"
    return None


#: What a space chosen means in each phase: (the words for "you", for another seat).
_SPACE = {"turn": ("prowl, starting the line at space {}", "prowls, starting the line at space {}"),
          "line": ("add space {} to the line", "adds space {} to the line"),
          "flip_direction": ("flip towards space {}", "flips towards space {}"),
          "peek": ("look at the face-down token on space {}", "looks at the face-down token on space {}"),
          "place_pawn": ("put the Gang pawn on space {}", "puts the Gang pawn on space {}"),
          "dodger": ("take the token on space {} with the Artful Dodger",
                     "takes the token on space {} with the Artful Dodger")}


def _said(move, seat, before):
    """A public decision in words after the seat's name, with the token on the space it names
    where the seat sees it; other decisions by their label."""
    typed, a = move.typed, move.actor
    board = before["board"]
    where = None
    if typed["kind"] == "space" and before["phase"] in _SPACE:
        where = typed["space"]
        text = verb(a, seat, *_SPACE[before["phase"]]).format(where)
    elif typed["kind"] == "take":
        where = before["line"][-1] if before["line"] else None
        text = verb(a, seat, "take", "takes") + " the token at the end of the line"
    else:
        return f": {move.label}"
    if where is not None and where < len(board) and board[where]["token"]:
        text += f": {_token(board[where]['token'])}"
    return " " + text


def _chance(move, seat, before, after):
    typed = move.typed
    kind = typed["kind"]
    phase = before["phase"]
    if kind == "draw_token" and phase in ("fill", "flip"):
        space = next((i for i, (b, a) in enumerate(zip(before["board"], after["board"])) if a != b), None)
        where = f" on space {space}" if space is not None else ""
        return event(f"{_token(typed['token'])} comes up{where}", "chance", token=typed["token"],
                     summed_up=phase == "fill")
    # Drawn for one seat: the stash's owner (the opening deal) or the active seat.
    to = before["active_player"]
    for p, (b, a) in enumerate(zip(before["seats"], after["seats"])):
        if a["stash_size"] > b["stash_size"]:
            to = p
    sees = seat == to
    who = seat_name(to, seat)
    if kind == "draw_token":
        if phase == "peek_draw":
            what = f"{verb(to, seat, 'look', 'looks')} at " + (
                _token(typed["token"]) if sees else "a face-down token")
        else:
            what = f"{verb(to, seat, 'draw', 'draws')} " + (
                _token(typed["token"]) if sees else "a starting token")
        return event(f"{who} {what}", "chance", token=typed["token"] if sees else None)
    noun = _CHANCE_NOUN[kind]
    if kind == "draw_character":
        detail = _st.CHARACTER_NAMES[_st.CHARS.index(typed["character"])]
        fields = {"character": typed["character"]} if sees else {}
    else:
        detail = f"{typed['burglary_value']:+d}"
        fields = {"burglary_value": typed["burglary_value"]} if sees else {}
    label = f"you draw {noun} {detail}" if sees else f"{who} draws a {noun}"
    return event(label, "chance", **fields)


def _round_end(after, seat):
    end = after["last_round_end"]
    out = []
    title = "nightfall" if end["round"] == "day" else "the night is over"
    for st in end["seats"]:
        p = st["seat"]
        sets = (f"leftover sets ({', '.join(st['set_types'])}) sold for £{st['sets']}" if st["set_types"]
                else "no leftover set")
        files = Counter(st["file"])
        file_text = (", ".join(f"{n} × {_token(k)}" if n > 1 else _token(k) for k, n in sorted(files.items()))
                     or "empty")
        out.append(event(f"{title}, {seat_name(p, seat)}: {sets}; Police file: {file_text}; "
                         f"fine £{st['fine']}; money now £{after['seats'][p]['money']}",
                         "round_end", summary=True, round_end={"round": end["round"], "seats": [st]}))
    return out


def _final(after, seat):
    scores = []
    parts = []
    for p, st in enumerate(after["seats"]):
        cards = st["burglary_cards"]
        scores.append({"seat": p, "money": st["money"], "burglary_cards": cards, "total": st["final_score"]})
        parts.append(f"{seat_name(p, seat)} £{st['money']}"
                     + (" + Burglary cards " + " ".join(f"{c:+d}" for c in cards) if cards else "")
                     + f" = {st['final_score']}")
    return event("final scores: " + "; ".join(parts), "final_score", summary=True, scores=scores)


def _board_summary(after, seat):
    """The board as the fill left it, one line: "the board: 75 tokens: 9 × brooch, ..." (with
    the face-down ones counted)."""
    tokens = Counter(sp["token"] for sp in after["board"] if sp["token"])
    face_down = sum(1 for sp in after["board"] if sp["face_down"] and not sp["token"])
    parts = [f"{n} × {_token(k)}" if n > 1 else _token(k)
             for k, n in sorted(tokens.items(), key=lambda kn: (-kn[1], _token(kn[0])))]
    if face_down:
        parts.append(f"{face_down} face down")
    total = sum(tokens.values()) + face_down
    return event(f"the board: {total} tokens: " + ", ".join(parts), "board", summary=True,
                 board=[sp["token"] for sp in after["board"]])


_SEAT_PLACES = {"stash": "stash", "police_file": "Police file", "tools": "Tools",
                "characters": "Character cards", "burglary_cards": "Burglary cards"}


def _item(place, x):
    if place == "tools":
        return f"{x} Tool"
    if place in ("characters", "character_discard"):
        return _st.CHARACTER_NAMES[_st.CHARS.index(x)]
    if place in ("burglary_cards", "burglary_drawn"):
        return "a Burglary card" if x == "-1" else f"Burglary card {int(x):+d}"
    return _token(x)


#: Tokens coming up on the board beyond this many are told as one count by kind (the board is
#: drawn, and the typed changes give every space), not as a clause per space.
_SPACES_NAMED = 3


def _counted(sign, place, items):
    """``["−4 × ring", "−Wallet"]``: identical tokens or cards once each, with their count, in
    the order they first appear, so that a Police file emptied at nightfall reads as a line,
    not as a wall of clauses."""
    counts = Counter(items)
    return [f"{sign}{n} × {_item(place, x)}" if n > 1 else f"{sign}{_item(place, x)}" for x, n in counts.items()]


def _changes_text(changes, seat, said):
    """What the label has not said of a move's changes, in words: where tokens went ("your
    stash: +brooch; your Police file: +lockpick Tool"), the tokens taken off the board beside
    the one named, the cards played or discarded. ``said``: the spaces the label names."""
    parts, off, up = [], [], []
    for c in changes:
        place = c["place"]
        if place not in _SEAT_PLACES and place not in ("set", "character_discard", "burglary_drawn", "token"):
            continue
        bits = _counted("+", place, c.get("added", ())) + _counted("−", place, c.get("removed", ()))
        if place in _SEAT_PLACES and bits:
            owner = "your" if c.get("seat") == seat else f"seat {c['seat']}'s"
            parts.append(f"{owner} {_SEAT_PLACES[place]}: {', '.join(bits)}")
        elif place == "token" and c.get("space") not in said:
            off += [f"{_token(x)} (space {c['space']})" for x in c["removed"]]
            up += [(x, c["space"]) for x in c["added"]]
        elif place in ("set", "character_discard", "burglary_drawn") and bits:
            name = {"set": "the set for Fagin", "character_discard": "the Character discard pile",
                    "burglary_drawn": "the Burglary cards drawn"}[place]
            parts.append(f"{name}: {', '.join(bits)}")
    if off:
        parts.insert(0, "off the board: " + ", ".join(off))
    if len(up) > _SPACES_NAMED:
        counts = Counter(x for x, _ in up)
        parts.append(f"{len(up)} tokens come up on the board: "
                     + ", ".join(f"{n} × {_token(x)}" if n > 1 else _token(x) for x, n in counts.items()))
    else:
        parts += [f"{_token(x)} comes up on space {space}" for x, space in up]
    return parts


def events(move, seat):
    before, after = move.view_before(seat), move.view_after(seat)
    changes = change_entries(before, after, skip=_TOLD_ELSEWHERE, named_values=_POSITIONS)
    if move.chance:
        out = [_chance(move, seat, before, after)]
    else:
        a, typed = move.actor, move.typed
        private = _private_move(before, after, typed) if a != seat else None
        if private:
            label = f"seat {a} {private}"
        else:
            label = seat_name(a, seat) + _said(move, seat, before)
        money = _money(before, after, seat)
        if money:
            label += " (" + ", ".join(money) + ")"
        said = set()
        if not private and typed["kind"] == "space":
            said.add(typed["space"])
        elif not private and typed["kind"] == "take" and before["line"]:
            said.add(before["line"][-1])
        extra = _changes_text(changes, seat, said)
        if extra:
            label += "; " + "; ".join(extra)
        out = [event(label, "move", seat=a, action=None if private else typed)]
    if changes:
        out[0]["typed"]["changes"] = changes
    if before["phase"] == "fill" and after["phase"] != "fill":
        out.append(_board_summary(after, seat))
    if after["last_round_end"] is not None and after["last_round_end"] != before["last_round_end"]:
        out.extend(_round_end(after, seat))
    if move.after.is_terminal():
        out.append(_final(after, seat))
        out.append(result_event(move.after, seat))
    return out


_PROGRESS = "the turn's progress, following the moves and draws told"
_COUNT = "a count of a pile whose tokens or cards are told as they come and go"
#: Paths told by the summaries (a round's end, the final scores, the result), or bookkeeping.
_BOOKKEEPING = {
    **{key: bookkeeping(_PROGRESS) for key in (
        "phase", "active_player", "fill_next", "flip_from", "flip_target", "flips_left", "deal_left",
        "peeks_left", "pick_dest", "pick_last", "pick_left", "restrict", "rewards_taken", "extra_prowls",
        "line_max", "night", "opening", "fagin_min", "fagin_type", "pending_token", "burglary_to_draw")},
    **{key: bookkeeping(_COUNT) for key in (
        "bag_size", "burglary_draw_size", "burglary_drawn_size", "burglary_tokens_aside", "character_draw_size",
        "face_down_pool_size", "starting_aside_size", "seats.*.stash_size", "seats.*.police_file_size",
        "seats.*.burglary_count", "seats.*.character_count", "seats.*.stash_starting",
        "seats.*.police_file_starting")},
    "last_round_end": told_by("round_end"),
    "seats.*.final_score": told_by("final_score"),
    "winners": told_by("result"),
}
_TOLD_ELSEWHERE = tuple(_BOOKKEEPING)
#: Positions, told by the space they move to (not by how far).
_POSITIONS = ("pawn",)
#: How each change in a seat's view is told (fagin.engines.game.untold_changes): the
#: bookkeeping and summaries above, every other path by the ``changes`` of the events.
VIEW_CHANGES = {"": in_change_entries(_POSITIONS), **_BOOKKEEPING}
