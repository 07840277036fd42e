"""Oliver Twist, the Python side: descriptions, views, the validating constructor, text.

A description mirrors ``OliverTwistState`` (proto/fagin/v1/oliver_twist.proto).
Token lists are sets: given in any order, returned sorted by kind.  A view
(OT-30) empties the lists a seat cannot see and keeps their sizes;
``from_description`` deals the tokens and cards missing from such lists into
those places (in a fixed order: every such deal gives the viewer the same
position, OT-31).
"""
from __future__ import annotations

import textwrap

from fagin.engines.validation import enum_index, int_in, one_per_seat

from fagin.engines.oliver_twist import engine as E

KIND_COUNT = E.KIND_COUNT
CHARACTER_COUNT = E.CHARACTER_COUNT
BURGLARY_VALUE_COUNT = E.BURGLARY_VALUE_COUNT
EMPTY = E.EMPTY_SPACE
FD_BASE = E.FACE_DOWN_BASE
FD_UNDET = E.FACE_DOWN_UNDECIDED
KINDS = E.KIND_NAMES
PHASES = E.PHASES
RESTRICTS = E.RESTRICTS
CHARS = E.CHARACTERS
VALUES = E.BURGLARY_VALUES
TOOLS = E.TOOL_NAMES
TYPES = E.OBJECT_TYPES
CHANCE_PHASES = {"fill", "deal", "flip", "peek_draw", "character_draw", "burglary_draw"}


def _names(counts):
    return [KINDS[k] for k in range(KIND_COUNT) for _ in range(counts[k])]


def _bits(mask):
    return [CHARS[c] for c in range(CHARACTER_COUNT) if (mask >> c) & 1]


def _values(counts):
    return [VALUES[v] for v in range(BURGLARY_VALUE_COUNT) for _ in range(counts[v])]


def _pick_dest_out(v):
    return {-1: "bag", -2: "stash"}.get(v, f"seat_{v}")


def describe(data):
    """The whole state (hidden parts included) as a dict shaped like ``OliverTwistState``."""
    r = E._raw(data)
    P = r["players"]
    board_side = 1 if r["night"] else 0
    board = []
    for sp in range(E.side_spaces(board_side)):
        v = r["board"][sp]
        if v == EMPTY:
            board.append({"token": "", "face_down": False, "known_by": []})
        elif v < KIND_COUNT:
            board.append({"token": KINDS[v], "face_down": False, "known_by": []})
        elif v == FD_UNDET:
            board.append({"token": "", "face_down": True, "known_by": []})
        else:
            board.append({"token": KINDS[v - FD_BASE], "face_down": True,
                          "known_by": [p for p in range(P) if (r["known"][sp] >> p) & 1]})
    seats = []
    for p in range(P):
        pf = r["pfile"][p]
        sh = r["stash"][p]
        seats.append({
            "money": r["money"][p],
            "stash": _names(sh),
            "stash_size": sum(sh),
            "stash_starting": sum(sh[k] for k in range(KIND_COUNT) if E.is_start(k)),
            "tools": [KINDS[k][5:] for k in range(KIND_COUNT) for _ in range(r["front"][p][k])],
            "police_file": _names(pf),
            "police_file_size": sum(pf),
            "police_file_starting": sum(pf[k] for k in range(KIND_COUNT) if E.is_start(k)),
            "characters": _bits(r["hand"][p]),
            "character_count": bin(r["hand"][p]).count("1"),
            "burglary_cards": _values(r["kept"][p]),
            "burglary_count": sum(r["kept"][p][:BURGLARY_VALUE_COUNT]),
            "final_score": r["final"][p],
        })
    phase = PHASES[r["phase"]]
    return {
        "players": P,
        "phase": phase,
        "night": bool(r["night"]),
        "active_player": r["active"],
        "pawn": r["pawn"],
        "fill_next": r["fill_next"] if phase == "fill" else 0,
        "deal_left": r["deal_left"] if phase == "deal" else 0,
        "board": board,
        "bag": _names(r["bag"]),
        "bag_size": sum(r["bag"]),
        "face_down_pool": _names(r["fdpool"]),
        "face_down_pool_size": sum(r["fdpool"]),
        "starting_aside": _names(r["aside"]),
        "starting_aside_size": sum(r["aside"]),
        "burglary_tokens_aside": r["burg_aside"],
        "rewards_taken": r["rewards_taken"],
        "character_draw": _bits(r["char_draw"]),
        "character_draw_size": bin(r["char_draw"]).count("1"),
        "character_discard": _bits(r["char_disc"]),
        "burglary_draw": _values(r["burg_draw"]),
        "burglary_draw_size": sum(r["burg_draw"]),
        "burglary_drawn": _values(r["burg_drawn"]),
        "burglary_drawn_size": sum(r["burg_drawn"]),
        "burglary_to_draw": r["burg_to_draw"],
        "seats": seats,
        "line": [r["path"][i] for i in range(r["path_len"])],
        "line_max": r["path_max"],
        "flips_left": r["flips_left"] if phase in ("flip_direction", "flip") else 0,
        "flip_from": r["flip_from"] if phase in ("flip_direction", "flip") else -1,
        "flip_target": r["flip_target"],
        "opening": bool(r["opening"]),
        "peeks_left": r["peeks_left"],
        "restrict": RESTRICTS[r["restrict"]],
        "extra_prowls": r["extra"],
        "pending_token": KINDS[r["pending"]] if r["pending"] >= 0 else "",
        "fagin_type": TYPES[r["fagin_type"]] if r["fagin_type"] >= 0 else "",
        "fagin_min": r["fagin_min"] if r["fagin_type"] >= 0 else 0,
        "set": _names(r["setc"]),
        "pick_left": r["pick_left"] if phase == "pick_from_file" else 0,
        "pick_dest": _pick_dest_out(r["pick_dest"]) if phase == "pick_from_file" else "",
        "pick_last": KINDS[r["pick_last"]] if phase == "pick_from_file" else "",
        "winners": [p for p in range(P) if (r["winners"] >> p) & 1],
        "last_round_end": _last_round_end(r),
    }


_ROUNDS = ("day", "night")


def _last_round_end(r):
    """OT-38: the last round's end as laid open to all (None before the first one)."""
    if not r["ended_round"]:
        return None
    return {"round": _ROUNDS[r["ended_round"] - 1],
            "seats": [{"seat": p, "sets": r["ended_sets"][p],
                       "set_types": [TYPES[t] for t in range(len(TYPES)) if (r["ended_types"][p] >> t) & 1],
                       "file": _names(r["ended_file"][p]), "fine": r["ended_fine"][p]}
                      for p in range(r["players"])]}


def _read_last_round_end(r, d, pname, night, P):
    """OT-38: the last round's end (display only, optional on input), checked against the
    round the position is in: the day's end by night, the night's at the end."""
    e = d.get("last_round_end")
    if e is None:
        return
    rnd = e.get("round")
    if rnd not in _ROUNDS:
        raise ValueError(f"last_round_end.round: {rnd!r}; expected day or night")
    if not night or (rnd == "night") != (pname == "over"):
        raise ValueError(f"last_round_end.round: the {rnd}'s end cannot precede a position "
                         + ("of the day" if not night else "at night" if pname != "over" else "at the end"))
    seats = e.get("seats") or []
    if len(seats) != P:
        raise ValueError(f"last_round_end.seats: expected {P} entries, got {len(seats)}")
    r["ended_round"] = _ROUNDS.index(rnd) + 1
    for p, st in enumerate(seats):
        f = f"last_round_end.seats[{p}]"
        int_in(st.get("seat") or 0, p, p, f + ".seat")
        r["ended_sets"][p] = st.get("sets") or 0
        mask = 0
        for i, name in enumerate(st.get("set_types") or ()):
            if name not in TYPES or (mask >> TYPES.index(name)) & 1:
                raise ValueError(f"{f}.set_types[{i}]: {name!r}; expected distinct types of "
                                 + ", ".join(TYPES))
            mask |= 1 << TYPES.index(name)
        r["ended_types"][p] = mask
        for k in _kinds(st.get("file"), f + ".file"):
            r["ended_file"][p][k] += 1
            if r["ended_file"][p][k] > 30:
                raise ValueError(f"{f}.file: more than 30 tokens of {KINDS[k]}")
        r["ended_fine"][p] = st.get("fine") or 0


def view(data, seat):
    """The state as ``seat`` sees it (OT-30): others' stashes, files, cards and drawn
    Burglary cards, the bag, the face-down pool, the starting tokens aside and the
    face-down tokens it has not looked at are emptied, their sizes kept.  Once the game
    is over every seat's Burglary cards are shown (OT-29)."""
    r = E._raw(data)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < r["players"]:
        raise ValueError(f"seat: {seat!r} is not a seat of this {r['players']}-player game")
    d = describe(data)
    for sp, space in enumerate(d["board"]):
        if space["face_down"] and seat not in space["known_by"]:
            space["token"] = ""
    d["bag"] = []
    d["face_down_pool"] = []
    d["starting_aside"] = []
    d["character_draw"] = []
    d["burglary_draw"] = []
    if d["active_player"] != seat:
        d["burglary_drawn"] = []
    for p, st in enumerate(d["seats"]):
        if p != seat:
            st["stash"] = []
            st["police_file"] = []
            st["characters"] = []
            if d["phase"] != "over":
                st["burglary_cards"] = []
    return d


# ------------------------------------------------------------------ the validating constructor

_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}


def _kind(v, field):
    k = _KIND_INDEX.get(v) if isinstance(v, str) else None     # a list or dict is not hashable
    if k is None:
        raise ValueError(f"{field}: unknown token {v!r}; expected one of {', '.join(KINDS)}")
    return k


def _kinds(v, field):
    out = []
    for x in v or ():
        k = _KIND_INDEX.get(x) if isinstance(x, str) else None
        if k is None:       # the path is written only for the error (a state lists ~80 tokens)
            _kind(x, f"{field}[{len(out)}]")
        out.append(k)
    return out


def _chars(v, field):
    out = []
    for i, x in enumerate(v or ()):
        if x not in CHARS:
            raise ValueError(f"{field}[{i}]: unknown Character {x!r}; expected one of {', '.join(CHARS)}")
        c = CHARS.index(x)
        if c in out:
            raise ValueError(f"{field}[{i}]: {x} listed twice (each Character card exists once)")
        out.append(c)
    return out


def _values_in(v, field):
    out = []
    for i, x in enumerate(v or ()):
        if isinstance(x, bool) or x not in VALUES:
            raise ValueError(f"{field}[{i}]: {x!r} is no Burglary card's value; the cards show "
                             f"{', '.join(map(str, sorted(VALUES)))}")
        out.append(VALUES.index(x))
    return out


def _size(d, key, listed, field):
    v = d.get(key)
    if v is None:
        return listed
    if v < listed:
        raise ValueError(f"{field}: {v}, fewer than the {listed} listed")
    return v


def _zero(v):
    return [_zero(x) for x in v] if isinstance(v, list) else 0


_ZERO_RAW = None


def _copied(v):
    """A copy of a list of ints, or of lists of them (a raw state's arrays)."""
    return [_copied(x) for x in v] if v and isinstance(v[0], list) else v[:]


def _zero_raw():
    """An empty raw state, made afresh from a template (zeroed once: it has ~700 fields)."""
    global _ZERO_RAW
    if _ZERO_RAW is None:
        r = {k: _zero(v) for k, v in E._raw(E.initial_state_bytes(2)).items()}
        r.update(pending=-1, fagin_type=-1, flip_from=-1, flip_target=-1, path_max=E.PATH_LENGTH)
        r["board"] = [EMPTY] * E.MAX_SPACES
        _ZERO_RAW = r
    return {k: _copied(v) if isinstance(v, list) else v for k, v in _ZERO_RAW.items()}


def _hidden_part(st, key, listed, f):
    """A stash's or a file's hidden part (OT-30): (round, starting) tokens not listed, from
    ``<key>_size`` and ``<key>_starting`` (each the listed count when omitted)."""
    size = _size(st, key + "_size", len(listed), f"{f}.{key}_size")
    listed_start = sum(1 for k in listed if E.is_start(k))
    nstart = st.get(key + "_starting")
    nstart = listed_start if nstart is None else nstart
    if nstart < listed_start:
        raise ValueError(f"{f}.{key}_starting: {nstart}, fewer than the {listed_start} listed")
    if size - len(listed) < nstart - listed_start:
        raise ValueError(f"{f}.{key}_starting: {nstart} starting tokens do not fit {size} tokens")
    return size - len(listed) - (nstart - listed_start), nstart - listed_start


class _Places:
    """What a description lists (tokens counted by kind, round and starting apart) and the hidden
    places it leaves to fill from what it does not list, each with the count it still needs."""

    def __init__(self):
        self.round_n = [0] * KIND_COUNT
        self.start_n = [0] * KIND_COUNT
        self.unknown_fixed = []     # face-down spaces a seat looked at, their token not shown
        self.undecided = 0          # face-down spaces nobody looked at: drawn when flipped
        self.stash_need = []        # (seat, round tokens, starting tokens) of a stash's hidden part
        self.file_need = []         # the same for a Police file
        self.hands = []             # each seat's Character cards listed
        self.hand_need = []         # each seat's Character cards not listed
        self.kept_need = []         # each seat's Burglary cards not listed
        self.finals = []            # each seat's final score as given (None: left out)
        self.bag_need = self.fd_need = self.aside_need = 0

    def count(self, k):
        if E.is_start(k):
            self.start_n[k] += 1
        else:
            self.round_n[k] += 1


def _board_side(r):
    """The side of the board in play (day 0, night 1) and its number of spaces."""
    side = 1 if r["night"] else 0
    return side, E.side_spaces(side)


def from_description(d, game=None):
    """Builds a state from a description or a view, checking it (OT-35).

    Raises ValueError starting with the path of the first field that is wrong;
    nothing is fixed silently."""
    r = _zero_raw()
    pname = _read_round(r, d)
    places = _Places()
    _place_board(r, d, places)
    _place_pawn(r, d)
    _place_seats(r, d, places)
    _place_piles(r, d, places)
    _read_line(r, d, pname)
    _read_effects(r, d, places)
    _read_fagin_set(r, d, places)
    _read_pick(r, d, pname)
    _read_chance_counters(r, d)
    _deal_characters(r, d, places)
    _deal_burglary_cards(r, d, places)
    _deal_tokens(r, places)
    _score_finals(r, places, pname)
    _check_phase(r, d, pname, places.undecided)
    _read_last_round_end(r, d, pname, bool(r["night"]), r["players"])
    return E._pack(r)


def _read_round(r, d):
    """The players, the phase, day or night, whose turn it is, and the Burglary tokens: all set
    aside by day (OT-7), in the bag at night (OT-26); the phase's name."""
    P = d["players"]
    r["players"] = P
    phase = enum_index(d.get("phase"), PHASES, "PHASE_", "phase")
    r["phase"] = phase
    night = bool(d.get("night"))
    r["night"] = int(night)
    r["active"] = int_in(d.get("active_player", 0), 0, P - 1, "active_player")
    r["rewards_taken"] = d.get("rewards_taken") or 0
    r["burg_aside"] = d.get("burglary_tokens_aside") or 0
    if night and r["burg_aside"]:
        raise ValueError("burglary_tokens_aside: the Burglary tokens join the bag at nightfall (OT-26)")
    if not night and r["burg_aside"] != 10:
        raise ValueError("burglary_tokens_aside: by day all 10 Burglary tokens are set aside (OT-7)")
    return PHASES[phase]


def _place_board(r, d, places):
    """The board's tokens: none on a closed space (OT-3) and no starting token (OT-5), face down
    only at night (OT-25), looked at only face down (OT-27)."""
    P = r["players"]
    night = bool(r["night"])
    board_side, n_spaces = _board_side(r)
    board = d.get("board") or []
    if len(board) != n_spaces:
        raise ValueError(f"board: {len(board)} spaces, the {'night' if night else 'day'} side has {n_spaces}")
    cells = [EMPTY] * E.MAX_SPACES
    known = [0] * E.MAX_SPACES
    for sp, cell in enumerate(board):
        tok = cell.get("token") or ""
        fd = bool(cell.get("face_down"))
        kb = cell.get("known_by") or ()
        if not (tok or fd or kb):
            continue        # an empty space (most of them): nothing to check or record
        f = f"board[{sp}]"
        mask = 0
        for i, p in enumerate(kb):
            int_in(p, 0, P - 1, f"{f}.known_by[{i}]")
            if (mask >> p) & 1:
                raise ValueError(f"{f}.known_by[{i}]: seat {p} listed twice")
            mask |= 1 << p
        if (tok or fd) and (sp == 0 or (P == 2 and E.yellow(board_side, sp))):
            raise ValueError(f"{f}: {'the paved square' if sp == 0 else 'a yellow street, closed with 2 players'} "
                             f"holds no token (OT-3)")
        if fd and not night:
            raise ValueError(f"{f}.face_down: tokens lie face down only at night (OT-25)")
        if mask and not fd:
            raise ValueError(f"{f}.known_by: only a face-down token is looked at (OT-27)")
        if tok:
            k = _kind(tok, f + ".token")
            if E.is_start(k):
                raise ValueError(f"{f}.token: starting tokens never lie on the board (OT-5)")
            places.count(k)
            if fd:
                if not mask:
                    raise ValueError(f"{f}.known_by: a face-down token shown must be known by a seat who looked")
                cells[sp] = FD_BASE + k
                known[sp] = mask
            else:
                cells[sp] = k
        elif fd:
            if mask:
                places.unknown_fixed.append(sp)
                known[sp] = mask
                cells[sp] = FD_BASE          # decided by _deal_tokens
            else:
                cells[sp] = FD_UNDET
                places.undecided += 1
    r["board"] = cells
    r["known"] = known


def _place_pawn(r, d):
    """The Gang pawn stands on an empty space, not on a street closed with 2 players (OT-3)."""
    board_side, n_spaces = _board_side(r)
    pawn = int_in(d.get("pawn", 0), 0, n_spaces - 1, "pawn")
    if r["board"][pawn] != EMPTY:
        raise ValueError(f"pawn: space {pawn} holds a token; the Gang pawn stands on an empty space")
    if pawn != 0 and r["players"] == 2 and E.yellow(board_side, pawn):
        raise ValueError(f"pawn: space {pawn} is on a yellow street, closed with 2 players (OT-3)")
    r["pawn"] = pawn


def _place_seats(r, d, places):
    """Each seat's money, stash of at most 9 Objects (OT-12, OT-13), Tools, Police file, Character
    and Burglary cards, each with its hidden part (OT-30)."""
    for p, (f, st) in enumerate(one_per_seat(d.get("seats"), r["players"])):
        r["money"][p] = st.get("money") or 0
        stash = _kinds(st.get("stash"), f + ".stash")
        if len(stash) > E.STASH_CAPACITY:
            raise ValueError(f"{f}.stash: {len(stash)} tokens, a stash holds 9 (OT-12)")
        for i, k in enumerate(stash):
            if not E.is_object(k):
                raise ValueError(f"{f}.stash[{i}]: only Objects go to the stash (OT-13)")
            r["stash"][p][k] += 1
            places.count(k)
        places.stash_need.append((p,) + _hidden_part(st, "stash", stash, f))
        for i, t in enumerate(st.get("tools") or ()):
            if t not in TOOLS:
                raise ValueError(f"{f}.tools[{i}]: unknown Tool {t!r}; expected one of {', '.join(TOOLS)}")
            k = E.KIND_FIRST_TOOL + TOOLS.index(t)
            r["front"][p][k] += 1
            places.count(k)
        pf = _kinds(st.get("police_file"), f + ".police_file")
        for k in pf:
            r["pfile"][p][k] += 1
            places.count(k)
        places.file_need.append((p,) + _hidden_part(st, "police_file", pf, f))
        hand = _chars(st.get("characters"), f + ".characters")
        places.hands.append(hand)
        for c in hand:
            r["hand"][p] |= 1 << c
        places.hand_need.append(_size(st, "character_count", len(hand), f + ".character_count") - len(hand))
        kept = _values_in(st.get("burglary_cards"), f + ".burglary_cards")
        for v in kept:
            r["kept"][p][v] += 1
        places.kept_need.append(_size(st, "burglary_count", len(kept), f + ".burglary_count") - len(kept))
        places.finals.append(st.get("final_score"))


def _place_piles(r, d, places):
    """The bag and the face-down pool hold no starting token (OT-5), the pool only at night and
    enough for the undecided face-down spaces (OT-25); the starting tokens set aside."""
    bag = _kinds(d.get("bag"), "bag")
    for k in bag:
        if E.is_start(k):
            raise ValueError("bag: starting tokens are set aside, never in the bag (OT-5)")
        r["bag"][k] += 1
        places.count(k)
    places.bag_need = _size(d, "bag_size", len(bag), "bag_size") - len(bag)
    fdp = _kinds(d.get("face_down_pool"), "face_down_pool")
    for k in fdp:
        if E.is_start(k):
            raise ValueError("face_down_pool: starting tokens never lie on the board (OT-5)")
        r["fdpool"][k] += 1
        places.count(k)
    fd_need = places.fd_need = _size(d, "face_down_pool_size", len(fdp), "face_down_pool_size") - len(fdp)
    if not r["night"] and fd_need + len(fdp):
        raise ValueError("face_down_pool_size: the face-down pool exists only at night (OT-25)")
    if fd_need + len(fdp) < places.undecided:
        raise ValueError(f"face_down_pool_size: {fd_need + len(fdp)}, fewer than the {places.undecided} undecided "
                         f"face-down tokens on the board")
    aside = _kinds(d.get("starting_aside"), "starting_aside")
    for k in aside:
        if not E.is_start(k):
            raise ValueError(f"starting_aside: {KINDS[k]} is not a starting token")
        r["aside"][k] += 1
        places.count(k)
    places.aside_need = _size(d, "starting_aside_size", len(aside), "starting_aside_size") - len(aside)


def _read_line(r, d, pname):
    """The line being chosen: face-up tokens, each next to the one before, from the Gang pawn, of
    at most 4 tokens or 6 with Charley Bates (OT-8, OT-10)."""
    board_side, n_spaces = _board_side(r)
    cells = r["board"]
    line = d.get("line") or []
    r["path_max"] = int_in(d.get("line_max", 4) or 4, 4, 6, "line_max")
    if r["path_max"] == 5:
        raise ValueError("line_max: a line is at most 4 tokens, or 6 with Charley Bates (OT-8, OT-10)")
    if len(line) > r["path_max"]:
        raise ValueError(f"line: {len(line)} spaces, longer than line_max {r['path_max']}")
    for i, sp in enumerate(line):
        int_in(sp, 0, n_spaces - 1, f"line[{i}]")
        if not (0 <= cells[sp] < KIND_COUNT):
            raise ValueError(f"line[{i}]: space {sp} holds no face-up token (OT-10)")
        prev = line[i - 1] if i else r["pawn"]
        if sp not in E.neighbours(board_side, prev) or sp in line[:i]:
            raise ValueError(f"line[{i}]: space {sp} does not continue the line from space {prev} (OT-10)")
        r["path"][i] = sp
    r["path_len"] = len(line)
    if line and pname != "line":
        raise ValueError("line: a line is chosen only in phase line")


def _read_effects(r, d, places):
    """The turn's effects under way: a Character's restriction and extra Prowl, peeks and flips
    left, and the Object waiting for room in a stash (OT-14)."""
    _, n_spaces = _board_side(r)
    r["restrict"] = enum_index(d.get("restrict") or "none", RESTRICTS, "RESTRICT_", "restrict")
    r["extra"] = d.get("extra_prowls") or 0
    r["peeks_left"] = d.get("peeks_left") or 0
    r["opening"] = int(bool(d.get("opening")))
    r["flips_left"] = d.get("flips_left") or 0
    r["flip_from"] = int_in(d.get("flip_from", -1), -1, n_spaces - 1, "flip_from")
    r["flip_target"] = int_in(d.get("flip_target", -1), -1, n_spaces - 1, "flip_target")
    pend = d.get("pending_token") or ""
    r["pending"] = -1
    if pend:
        k = _kind(pend, "pending_token")
        if not E.is_object(k):
            raise ValueError("pending_token: only an Object waits for room in a stash (OT-14)")
        r["pending"] = k
        places.count(k)


def _read_fagin_set(r, d, places):
    """The set handed to Fagin: its type and least size, and Objects of that type, Wallets
    besides at least one other Object (OT-18)."""
    ft = d.get("fagin_type") or ""
    r["fagin_type"] = -1
    r["fagin_min"] = 0
    setc = _kinds(d.get("set"), "set")
    if ft:
        if ft not in TYPES:
            raise ValueError(f"fagin_type: unknown Object type {ft!r}; expected one of {', '.join(TYPES)}")
        r["fagin_type"] = TYPES.index(ft)
        r["fagin_min"] = int_in(d.get("fagin_min"), 2, 3, "fagin_min")
    for i, k in enumerate(setc):
        if not E.is_object(k) or (k not in (E.KIND_WALLET, E.KIND_STARTING_WALLET) and E.type_of(k) != r["fagin_type"]):
            raise ValueError(f"set[{i}]: {KINDS[k]} does not belong to a set of {ft or 'no type'} (OT-18)")
        r["setc"][k] += 1
        places.count(k)
    r["set_last"] = max(setc) if setc else 0
    if setc and not any(k < E.KIND_WALLET for k in setc):
        raise ValueError("set: a set holds at least one Object besides Wallets (OT-18)")


def _read_pick(r, d, pname):
    """Picking from a Police file: where the Objects go (the bag, the stash or another seat), the
    picks left and the last one picked, only in phase pick_from_file."""
    r["pick_left"] = d.get("pick_left") or 0
    pd = d.get("pick_dest") or ""
    r["pick_dest"] = 0
    r["pick_last"] = 0
    if pname == "pick_from_file":
        if pd == "bag":
            r["pick_dest"] = -1
        elif pd == "stash":
            r["pick_dest"] = -2
        elif isinstance(pd, str) and pd.startswith("seat_") and pd[5:].isdigit() and int(pd[5:]) < r["players"] \
                and int(pd[5:]) != r["active"]:
            r["pick_dest"] = int(pd[5:])
        else:
            raise ValueError(f"pick_dest: {pd!r}; expected bag, stash or seat_N (another seat)")
        r["pick_last"] = _kind(d.get("pick_last") or "apple_1", "pick_last")
        if r["pick_left"] == 0:
            raise ValueError("pick_left: phase pick_from_file needs a pick left")
    elif pd:
        raise ValueError("pick_dest: only in phase pick_from_file")
    elif r["pick_left"]:
        raise ValueError("pick_left: only in phase pick_from_file")
    elif d.get("pick_last"):
        raise ValueError("pick_last: only in phase pick_from_file")


def _read_chance_counters(r, d):
    """What the chance phases count down: the next space to fill, the starting tokens left to deal
    (two a seat, OT-5) and the Burglary cards to draw."""
    r["fill_next"] = d.get("fill_next") or 0
    r["deal_left"] = int_in(d.get("deal_left", 0) or 0, 0, 2 * r["players"], "deal_left")
    r["burg_to_draw"] = d.get("burglary_to_draw") or 0


def _deal_characters(r, d, places):
    """The 13 Character cards, each in one place: the hands, the draw pile and the discard pile;
    those not listed are dealt to the hands' hidden part first, then to the draw pile."""
    listed = set()
    for hand in places.hands:
        listed |= set(hand)
    cd = _chars(d.get("character_draw"), "character_draw")
    disc = _chars(d.get("character_discard"), "character_discard")
    for c in cd:
        if c in listed:
            raise ValueError(f"character_draw: {CHARS[c]} is also in a hand")
        listed.add(c)
        r["char_draw"] |= 1 << c
    for c in disc:
        if c in listed:
            raise ValueError(f"character_discard: {CHARS[c]} is also in a hand or the draw pile")
        listed.add(c)
        r["char_disc"] |= 1 << c
    draw_need = _size(d, "character_draw_size", len(cd), "character_draw_size") - len(cd)
    hand_need = places.hand_need
    missing = [c for c in range(CHARACTER_COUNT) if c not in listed]
    if len(missing) != draw_need + sum(hand_need):
        raise ValueError(f"character_draw_size: the 13 Character cards do not add up: {len(missing)} unlisted, "
                         f"{draw_need + sum(hand_need)} places for them (hands and draw pile)")
    for p in range(r["players"]):
        for _ in range(hand_need[p]):
            r["hand"][p] |= 1 << missing.pop(0)
    for c in missing:
        r["char_draw"] |= 1 << c


def _deal_burglary_cards(r, d, places):
    """The 16 Burglary cards, each in one place: kept by the seats, to draw or drawn; those not
    listed are dealt to the seats' hidden cards first, then the drawn ones, then the draw pile."""
    P = r["players"]
    bd = _values_in(d.get("burglary_draw"), "burglary_draw")
    bdn = _values_in(d.get("burglary_drawn"), "burglary_drawn")
    bcount = [0] * BURGLARY_VALUE_COUNT
    for v in bd:
        r["burg_draw"][v] += 1
    for v in bdn:
        r["burg_drawn"][v] += 1
    for v in range(BURGLARY_VALUE_COUNT):
        bcount[v] = r["burg_draw"][v] + r["burg_drawn"][v] + sum(r["kept"][p][v] for p in range(P))
        if bcount[v] > E.burglary_count(v):
            raise ValueError(f"burglary_draw: {bcount[v]} Burglary cards of {VALUES[v]}, there are "
                             f"{E.burglary_count(v)}")
    bdraw_need = _size(d, "burglary_draw_size", len(bd), "burglary_draw_size") - len(bd)
    bdrawn_need = _size(d, "burglary_drawn_size", len(bdn), "burglary_drawn_size") - len(bdn)
    kept_need = places.kept_need
    bmissing = [v for v in range(BURGLARY_VALUE_COUNT) for _ in range(E.burglary_count(v) - bcount[v])]
    if len(bmissing) != bdraw_need + bdrawn_need + sum(kept_need):
        raise ValueError(f"burglary_draw_size: the 16 Burglary cards do not add up: {len(bmissing)} unlisted, "
                         f"{bdraw_need + bdrawn_need + sum(kept_need)} places for them")
    for p in range(P):
        for _ in range(kept_need[p]):
            r["kept"][p][bmissing.pop(0)] += 1
    for _ in range(bdrawn_need):
        r["burg_drawn"][bmissing.pop(0)] += 1
    for v in bmissing:
        r["burg_draw"][v] += 1


def _deal_tokens(r, places):
    """Every token in exactly one place: what is not listed fills the hidden places (stashes with
    Objects only, OT-13; face-down spaces and pool, Police files, the bag, the starting tokens aside)."""
    night = bool(r["night"])
    rmissing = []
    smissing = []
    for k in range(KIND_COUNT):
        want_r = E.round_count(k) - (10 if k == E.KIND_BURGLARY and not night else 0)
        if k == E.KIND_BURGLARY and not night:
            want_r = 0
        if places.round_n[k] > want_r:
            raise ValueError(f"tokens: {places.round_n[k]} {KINDS[k]} tokens listed, the game has {want_r}"
                             + (" outside the Burglary tokens set aside" if k == E.KIND_BURGLARY else ""))
        if places.start_n[k] > E.start_count(k):
            raise ValueError(f"tokens: {places.start_n[k]} {KINDS[k]} starting tokens listed, the game has "
                             f"{E.start_count(k)}")
        rmissing += [k] * (want_r - places.round_n[k])
        smissing += [k] * (E.start_count(k) - places.start_n[k])
    file_need, stash_need = places.file_need, places.stash_need
    rneed = (len(places.unknown_fixed) + places.fd_need + places.bag_need
             + sum(n for _, n, _ in file_need + stash_need))
    sneed = places.aside_need + sum(n for _, _, n in file_need + stash_need)
    if len(rmissing) != rneed:
        raise ValueError(f"tokens: {len(rmissing)} round tokens are not listed, but the hidden places "
                         f"(Police files, bag, face-down pool, face-down tokens) hold {rneed} (every token "
                         f"must be in exactly one place)")
    if len(smissing) != sneed:
        raise ValueError(f"tokens: {len(smissing)} starting tokens are not listed, but the hidden places "
                         f"(Police files, starting_aside) hold {sneed}")
    # A hidden stash holds Objects only (OT-13): it is dealt first, the first Objects unlisted.
    for p, nr, ns in stash_need:
        for _ in range(nr):
            i = next((i for i, k in enumerate(rmissing) if E.is_object(k)), None)
            if i is None:
                raise ValueError(f"seats[{p}].stash_size: too few Objects are unlisted to fill the stash")
            r["stash"][p][rmissing.pop(i)] += 1
        for _ in range(ns):
            r["stash"][p][smissing.pop(0)] += 1
    for sp in places.unknown_fixed:
        r["board"][sp] = FD_BASE + rmissing.pop(0)
    for _ in range(places.fd_need):
        r["fdpool"][rmissing.pop(0)] += 1
    for p, nr, ns in file_need:
        for _ in range(nr):
            r["pfile"][p][rmissing.pop(0)] += 1
        for _ in range(ns):
            r["pfile"][p][smissing.pop(0)] += 1
    for k in rmissing:
        r["bag"][k] += 1
    for k in smissing:
        r["aside"][k] += 1


def _score_finals(r, places, pname):
    """The final score is the money plus the Burglary cards, once the game is over (OT-29):
    derived, and checked if given (a client may leave it out)."""
    finals = places.finals
    for p in range(r["players"]):
        want = r["money"][p] + sum(r["kept"][p][v] * VALUES[v] for v in range(BURGLARY_VALUE_COUNT)) if pname == "over" else 0
        if finals[p] is not None and finals[p] != want:
            raise ValueError(f"seats[{p}].final_score: {finals[p]}, but " + (
                f"the money and Burglary cards make {want} (OT-29)" if pname == "over"
                else "a seat has a final score only once the game is over (OT-29)"))
        r["final"][p] = want


def _check_phase(r, d, pname, undecided):
    """What each phase needs (OT-35); a state that passes has legal moves and sane successors."""
    _check_fill(r, pname)
    _check_deal(r, pname)
    _check_flips(r, pname)
    _check_peeks(r, pname)
    _check_waiting_token_and_set(r, pname)
    _check_character_effects(r, pname)
    _check_night_opener(r, pname)
    _check_burglary(r, pname)
    _check_something_to_act_on(r, pname, undecided)
    _check_game_over(r, d, pname)
    if pname not in CHANCE_PHASES and pname != "over":
        if not E.legal_from_bytes(E._pack(r)):
            raise ValueError(f"phase: {pname} has no legal action in this position")


def _check_fill(r, pname):
    """The board is filled face up from the bag for the day, space by space, before anything is
    taken (OT-6)."""
    P = r["players"]
    _, n_spaces = _board_side(r)
    cells = r["board"]
    if pname != "fill" and r["fill_next"]:
        raise ValueError("fill_next: only in phase fill")
    if pname != "fill":
        return
    if r["night"]:
        raise ValueError("phase: the board is filled face up only for the day (OT-6)")
    fn = r["fill_next"]
    if not 1 <= fn < n_spaces or (fn != 0 and (P == 2 and E.yellow(0, fn))):
        raise ValueError(f"fill_next: {fn} is not an open space to fill")
    for sp in range(1, n_spaces):
        open_ = not (P == 2 and E.yellow(0, sp))
        if open_ and (sp < fn) != (cells[sp] != EMPTY):
            raise ValueError(f"board[{sp}]: while filling, the spaces before fill_next are full and "
                             f"the others empty (OT-6)")
    if sum(r["bag"]) == 0:
        raise ValueError("bag: nothing left to fill the board with")
    if any(sum(r["stash"][p]) or sum(r["pfile"][p]) for p in range(P)) or r["pawn"] != 0:
        raise ValueError("seats: nothing is taken before the board is filled")


def _check_deal(r, pname):
    """The starting tokens are dealt two to a seat in seat order from those set aside (OT-5)."""
    P = r["players"]
    if pname == "deal":
        if not 1 <= r["deal_left"] <= 2 * P:
            raise ValueError("deal_left: phase deal needs a starting token left to deal")
        seat = (2 * P - r["deal_left"]) // 2
        for p in range(P):
            have = sum(r["stash"][p])
            want = 2 if p < seat else (2 * P - r["deal_left"]) - 2 * seat if p == seat else 0
            if have != want:
                raise ValueError(f"seats[{p}].stash: {have} tokens while the starting tokens are dealt "
                                 f"({want} expected, OT-5)")
        if sum(r["aside"]) < r["deal_left"]:
            raise ValueError("starting_aside_size: fewer starting tokens aside than are left to deal")
    elif r["deal_left"]:
        raise ValueError("deal_left: only in phase deal")


def _check_flips(r, pname):
    """Flips at night, a line of them from next to the Gang pawn, the night's opening ones from the
    paved square (OT-25, OT-26), each drawing an undecided face-down token from the pool."""
    board_side, _ = _board_side(r)
    cells = r["board"]
    if pname in ("flip", "peek_draw"):
        t = r["flip_target"]
        if t < 0 or cells[t] != FD_UNDET:
            raise ValueError("flip_target: the chance phase needs an undecided face-down space")
        if sum(r["fdpool"]) == 0:
            raise ValueError("face_down_pool_size: nothing to draw the face-down token from")
    elif r["flip_target"] != -1:
        raise ValueError("flip_target: only in phases flip and peek_draw")
    if pname in ("flip_direction", "flip"):
        if not r["night"] or r["flips_left"] < 1:
            raise ValueError("flips_left: flipping needs the night and a flip left (OT-25)")
        origin = r["flip_from"] if r["flip_from"] >= 0 else r["pawn"]
        if r["flip_from"] >= 0 and not (0 <= cells[r["flip_from"]] < KIND_COUNT):
            raise ValueError("flip_from: the last flipped space holds a face-up token")
        if r["flip_from"] >= 0 and not any(0 <= cells[q] < KIND_COUNT for q in E.neighbours(board_side, r["pawn"])):
            raise ValueError("flip_from: a line of flips starts next to the Gang pawn, so a flipped token "
                             "lies next to it (OT-25)")
        if pname == "flip_direction":
            nfd = sum(1 for q in E.neighbours(board_side, origin) if cells[q] >= FD_BASE)
            if nfd < 2:
                raise ValueError("flip_from: a direction is chosen only where two face-down tokens follow")
        elif r["flip_target"] not in E.neighbours(board_side, origin):
            raise ValueError("flip_target: the flipped space continues the line from flip_from")
    else:
        if r["flips_left"] or r["flip_from"] != -1:
            raise ValueError("flips_left: only while flipping")
    if r["opening"] and pname not in ("flip_direction", "flip"):
        raise ValueError("opening: only during the night's opening flips")
    if r["opening"] and r["pawn"] != 0:
        raise ValueError("pawn: the opening flips start from the paved square (OT-26)")


def _check_peeks(r, pname):
    """Peeks at night, each at a face-down token the seat has not seen (OT-27)."""
    _, n_spaces = _board_side(r)
    if pname in ("peek", "peek_draw"):
        if not r["night"] or r["peeks_left"] < 1:
            raise ValueError("peeks_left: peeking needs the night and a peek left (OT-27)")
        if pname == "peek" and not any(r["board"][sp] >= FD_BASE and not (r["known"][sp] >> r["active"]) & 1
                                       for sp in range(n_spaces)):
            raise ValueError("peeks_left: no face-down token left to look at")
    elif r["peeks_left"]:
        raise ValueError("peeks_left: only while peeking")


def _check_waiting_token_and_set(r, pname):
    """An Object waits for room only in a full stash (OT-14), and a set for Fagin only in phase
    fagin, with its type."""
    if r["pending"] >= 0 and pname != "make_room":
        raise ValueError("pending_token: only in phase make_room")
    if pname == "make_room":
        if r["pending"] < 0 or sum(r["stash"][r["active"]]) != 9:
            raise ValueError("pending_token: phase make_room needs a token and a full stash (OT-14)")
    if pname == "fagin":
        if r["fagin_type"] < 0:
            raise ValueError("fagin_type: phase fagin needs the set's type")
    elif r["fagin_type"] >= 0 or sum(r["setc"]):
        raise ValueError("fagin_type: only in phase fagin")


def _check_character_effects(r, pname):
    """The Characters' effects under way as the rules leave them (OT-8, OT-35): Mr Grimwig's set,
    Charley Bates's long line, Oliver's second Prowl, Bet's single pick."""
    if r["restrict"] == 2 and pname != "turn":
        raise ValueError("restrict: Mr Grimwig's set is chosen in phase turn (OT-8)")
    if r["path_max"] == 6 and (r["restrict"] != 1 or r["extra"]):
        raise ValueError("line_max: 6 only during Charley Bates's Prowl (restrict prowl, no extra Prowl, OT-8)")
    if r["extra"] and r["restrict"] != 1:
        raise ValueError("extra_prowls: Oliver's second Prowl follows a Prowl (restrict prowl, OT-8)")
    if pname == "pick_from_file":
        if r["pick_dest"] == -2 and r["pick_left"] != 1:
            raise ValueError("pick_left: Bet moves one Object (OT-8)")
        if r["pick_left"] == 2 and r["pick_last"] != 0:
            raise ValueError("pick_last: nothing is picked yet while two picks are left")


def _check_night_opener(r, pname):
    """The poorest seat opens the night (OT-26)."""
    if r["opening"] or pname == "choose_start":
        poorest = min(range(r["players"]), key=lambda p: (r["money"][p], p))
        if r["active"] != poorest:
            raise ValueError(f"active_player: {r['active']}, but the poorest seat ({poorest}) opens the night "
                             f"(OT-26)")


def _check_burglary(r, pname):
    """Burglaries happen at night (OT-7), drawing 1 card and 1 per type of Tool, and 1 more with
    Toby Crackit (OT-8, OT-17); the drawn cards wait while one is kept."""
    P = r["players"]
    active = r["active"]
    if not r["night"]:
        if pname in ("burglary_draw", "burglary_keep", "discard_tool"):
            raise ValueError("night: burglaries happen only at night (OT-7, OT-17)")
        for p in range(P):
            if sum(r["kept"][p][:BURGLARY_VALUE_COUNT]):
                raise ValueError(f"seats[{p}].burglary_count: no Burglary card is kept by day (OT-7)")
    if pname == "burglary_draw":
        if r["burg_to_draw"] < 1 or sum(r["burg_draw"]) < r["burg_to_draw"]:
            raise ValueError("burglary_to_draw: phase burglary_draw needs cards to draw")
    elif r["burg_to_draw"]:
        raise ValueError("burglary_to_draw: only in phase burglary_draw")
    if pname in ("burglary_draw", "burglary_keep"):
        most = 2 + sum(1 for t in range(5) if r["front"][active][E.KIND_FIRST_TOOL + t])
        if sum(r["burg_drawn"]) + r["burg_to_draw"] > most:
            raise ValueError(f"burglary_to_draw: {sum(r['burg_drawn'])} drawn and {r['burg_to_draw']} to draw, "
                             f"more than the {most} a burglary with these Tools draws (OT-8, OT-17)")
    if pname == "burglary_keep":
        if sum(r["burg_drawn"]) < 2:
            raise ValueError("burglary_drawn_size: phase burglary_keep needs two or more drawn cards")
    elif pname != "burglary_draw" and sum(r["burg_drawn"]):
        raise ValueError("burglary_drawn_size: drawn Burglary cards wait only in a burglary")


def _check_something_to_act_on(r, pname, undecided):
    """Each phase has what it acts on: two types of Tool to discard from (OT-17), a Character card
    to draw, a face-up token next to the Gang pawn, a Police file to pick from, the night for
    flips and peeks, and a face-down token in the pool for each undecided space."""
    board_side, _ = _board_side(r)
    active = r["active"]
    if pname == "discard_tool" and sum(1 for t in range(5) if r["front"][active][E.KIND_FIRST_TOOL + t]) < 2:
        raise ValueError("seats: phase discard_tool needs two types of Tool to choose from (OT-17)")
    if pname == "character_draw" and r["char_draw"] == 0:
        raise ValueError("character_draw_size: no Character card left to draw")
    if pname == "line" and r["path_len"] == 0:
        if not any(0 <= r["board"][q] < KIND_COUNT for q in E.neighbours(board_side, r["pawn"])):
            raise ValueError("pawn: phase line needs a face-up token next to the Gang pawn")
    if pname == "pick_from_file" and sum(r["pfile"][active]) == 0:
        raise ValueError(f"seats[{active}].police_file_size: nothing to pick from the file")
    if pname in ("flip_direction", "flip", "peek", "peek_draw") and not r["night"]:
        raise ValueError("night: this phase belongs to the night")
    if r["night"] and sum(r["fdpool"]) < undecided:
        raise ValueError("face_down_pool_size: fewer tokens than undecided face-down spaces")


def _check_game_over(r, d, pname):
    """The game ends after the night with the board, stashes and files emptied (OT-21 to OT-23),
    the richest seats winning (OT-29): the winners are derived, and checked if given."""
    P = r["players"]
    _, n_spaces = _board_side(r)
    want = [int_in(x, 0, P - 1, f"winners[{i}]") for i, x in enumerate(d.get("winners") or ())]
    if pname == "over":
        if not r["night"]:
            raise ValueError("phase: the game ends after the night")
        if any(r["board"][sp] != EMPTY for sp in range(n_spaces)):
            raise ValueError("board: the board is cleared when the game ends (OT-23)")
        for p in range(P):
            if sum(r["stash"][p]) or sum(r["pfile"][p]):
                raise ValueError(f"seats[{p}].stash: stashes and files are emptied when the game ends (OT-22, OT-23)")
    elif want:
        raise ValueError("winners: only when the game is over")
    if pname == "over":
        best = max(r["final"][p] for p in range(P))
        r["winners"] = sum(1 << p for p in range(P) if r["final"][p] == best)
        if want and sorted(want) != [p for p in range(P) if (r["winners"] >> p) & 1]:
            raise ValueError("winners: the richest seats win (OT-29)")


# ------------------------------------------------------------------ text

_SHORT = {"apple_1": "a1", "apple_2": "a2", "handkerchief_1": "h1", "handkerchief_2": "h2", "brooch": "Br",
          "necklace": "Ne", "ring": "Ri", "watch": "Wa", "wallet": "$$", "character": "Ch", "burglary": "Bu",
          "tool_bag": "tB", "tool_rope": "tR", "tool_crowbar": "tC", "tool_lantern": "tL", "tool_lockpick": "tP"}


def _short(name):
    if name == "start_wallet":
        return "S$"
    if name.startswith("start_"):
        return _short(name[6:]).upper()
    return _SHORT.get(name, name[:2])


def _face_down_short(name):
    """A face-down token the seat knows: "?" and one letter of its code ("b" for the
    Burglary token, whose code shares its first letter with the brooch's)."""
    return "?" + ("b" if name == "burglary" else _short(name)[0])


#: The symbols of the table ``render`` draws, as ``fagin play``'s help explains them.
SYMBOLS = (
    ("@@", "the Gang pawn"),
    ("[]", "the paved square (space 0)"),
    (".", "an empty space"),
    ("??", "a face-down token you have not seen"),
    ("?a ?B ...", "a face-down token you know: ? and the first letter of its code (?b the Burglary token)"),
    ("xx", "a yellow street, closed with 2 players"),
    ("a1, a2", "an apple worth 1 or 2 coins"),
    ("h1, h2", "a handkerchief worth 1 or 2 coins"),
    ("Br Ne Ri Wa", "a brooch, a necklace, a ring, a fob watch"),
    ("$$", "a Wallet"),
    ("A1 H2 BR NE S$", "a starting token (capitals): apple, handkerchief, brooch, necklace, Wallet"),
    ("Ch", "a Character token"),
    ("tB tR tC tL tP", "a Tool token: bag, rope, crowbar, lantern, lockpick"),
    ("Bu", "a Burglary token"),
    ("space numbers", "each space's number, as the options and \"spaces to choose\" name it"),
    ("stash", "the objects a seat has stolen (N hidden: another seat's, which you cannot see)"),
    ("police file", "the tokens in a seat's Police file (N hidden: which you cannot see)"),
    ("characters", "a seat's Character cards (N hidden: another seat's, which you cannot see)"),
    ("burglary cards", "the values of a seat's kept Burglary cards (N hidden: which you cannot see)"),
)


def _counted(names, none="nothing"):
    """Token names as a player would list them: "2 × brooch, ring"."""
    counts = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return ", ".join(f"{n} × {name}" if n > 1 else name for name, n in counts.items()) or none


def _token_names(kinds):
    return [token_name(KINDS.index(t)) for t in kinds]


def _hidden_or(shown, size, none="nothing"):
    if shown:
        return shown
    return f"{size} hidden" if size else none


def _wrap_parts(first, parts, indent="    ", width=80):
    """``first`` and then ``parts`` separated by two spaces, in lines of at most ``width``
    columns; a part that does not fit goes to the next line, indented."""
    lines, line = [], first
    for part in parts:
        if len(line) + 2 + len(part) <= width:
            line += "  " + part
        else:
            lines.append(line)
            line = indent + part
            while len(line) > width:
                cut = line.rfind(" ", len(indent) + 1, width + 1)
                if cut <= len(indent):
                    break
                lines.append(line[:cut])
                line = indent + "  " + line[cut + 1:]
    lines.append(line)
    return lines


def render(data, seat=None):
    """The map and the table as text (as ``seat`` sees it, if given)."""
    d = describe(data) if seat is None else view(data, seat)
    spaces = E.BOARD["night" if d["night"] else "day"]["spaces"]
    grid = [["   "] * 15 for _ in range(15)]
    ids = [["   "] * 15 for _ in range(15)]
    for sp, cell in enumerate(d["board"]):
        ids[spaces[sp]["y"]][spaces[sp]["x"]] = f"{sp:>2} "
        x, y = spaces[sp]["x"], spaces[sp]["y"]
        if sp == d["pawn"]:
            txt = "@@"
        elif sp == 0:
            txt = "[]"
        elif d["players"] == 2 and spaces[sp]["yellow"]:
            txt = "xx"
        elif cell["face_down"]:
            txt = _face_down_short(cell["token"]) if cell["token"] else "??"
        elif cell["token"]:
            txt = _short(cell["token"])
        else:
            txt = " ."
        grid[y][x] = txt + " "
    lines = [f"Oliver Twist - {'night' if d['night'] else 'day'} - {d['phase'].replace('_', ' ')}"
             + (f" - seat {d['active_player']} to act" if d["phase"] != "over" else " - game over")]
    lines.append("  the streets")
    lines += ["  " + "".join(row).rstrip() for row in grid]
    lines.append("  space numbers")
    lines += ["  " + "".join(idr).rstrip() for idr in ids]
    lines.append("  @@ Gang pawn, [] paved square, ?? face down, xx closed street, a1/a2 apples,")
    lines.append("  h1/h2 handkerchiefs, $$ wallet, Ch character, t* tools, Bu burglary")
    lines.append(f"  Fagin's rewards taken: {d['rewards_taken']}/5; bag {d['bag_size']}")
    for p, st in enumerate(d["seats"]):
        characters = ", ".join(CHARACTER_NAMES[CHARS.index(c)] for c in st["characters"])
        burglary = ", ".join(map(str, st["burglary_cards"]))
        parts = [f"stash: {_hidden_or(_counted(_token_names(st['stash']), ''), st['stash_size'])}",
                 f"tools: {_counted(st['tools'], 'none')}",
                 f"police file: {_hidden_or(_counted(_token_names(st['police_file']), ''), st['police_file_size'])}",
                 f"characters: {_hidden_or(characters, st['character_count'], 'none')}",
                 f"burglary cards: {_hidden_or(burglary, st['burglary_count'], 'none')}"]
        if d["phase"] == "over":
            parts.append(f"final £{st['final_score']}")
        lines += _wrap_parts(f"{'*' if p == d['active_player'] else ' '}seat {p}: £{st['money']}", parts)
    if d["line"]:
        lines.append("line so far: spaces " + ", ".join(map(str, d["line"])))
    if seat is not None or True:
        spaces_now = [a for a in E.legal_from_bytes(data) if a < E.ACTION_TAKE] \
            if d["phase"] not in CHANCE_PHASES and d["phase"] != "over" else []
        if spaces_now:
            def show(sp):
                t = d["board"][sp]["token"]
                return f"{sp}={_short(t) if t else ('??' if d['board'][sp]['face_down'] else 'empty')}"
            lines += textwrap.wrap("spaces to choose: " + ", ".join(show(sp) for sp in spaces_now), 80,
                                   subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    if d["set"]:
        lines.append("set for Fagin: " + ", ".join(token_name(KINDS.index(t)) for t in d["set"]))
    if d["burglary_drawn"]:
        lines.append("burglary cards drawn: " + ", ".join(map(str, d["burglary_drawn"])))
    if d["winners"]:
        lines.append(("winner: " if len(d["winners"]) == 1 else "winners: ")
                     + ", ".join(f"seat {p}" for p in d["winners"]) + " (the most money at the end wins)")
    return "\n".join(lines)


def summary(data):
    d = describe(data)
    return (f"{d['players']} players, {'night' if d['night'] else 'day'}, {d['phase']}, active "
            f"{d['active_player']}, money {[s['money'] for s in d['seats']]}")


# Names as the rulebook writes them (labels and text views never show raw identifiers).
CHARACTER_NAMES = ("Artful Dodger", "Nancy", "Bill Sikes", "Mr Bumble", "Noah Claypole", "Charley Bates",
                   "Oliver", "Mr Brownlow", "Toby Crackit", "Mr Fang", "Mr Sowerberry", "Bet", "Mr Grimwig")
TYPE_PLURALS = ("apples", "handkerchiefs", "brooches", "necklaces", "rings", "fob watches")
_OBJECT_NAMES = {"apple": "apple", "handkerchief": "handkerchief", "brooch": "brooch", "necklace": "necklace",
                 "ring": "ring", "watch": "fob watch"}


def token_name(k):
    """A token kind as a player would say it: "apple (2 coins)", "starting Wallet", "rope Tool"."""
    name = KINDS[k]
    start = name.startswith("start_")
    base = name[len("start_"):] if start else name
    if base.startswith("tool_"):
        return f"{base[5:]} Tool"
    if base == "wallet":
        text = "Wallet"
    elif base == "character":
        return "Character token"
    elif base == "burglary":
        return "Burglary token"
    else:
        obj = base.rsplit("_", 1)[0] if base[-2:] in ("_1", "_2") else base
        text = _OBJECT_NAMES[obj]
        if obj in ("apple", "handkerchief"):
            coins = E.coins_of(k)
            text += f" ({coins} coin{'s' if coins > 1 else ''})"
    return ("starting " + text) if start else text
