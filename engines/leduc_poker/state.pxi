# Leduc poker's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

CARD_NAMES = ("J1", "J2", "Q1", "Q2", "K1", "K2")


def initial_state_bytes(int players=2):
    if players != 2:
        raise ValueError(f"players: Leduc poker is a 2-player game, not {players}")
    cdef LeducState s
    memset(&s, 0, sizeof(LeducState))
    s.priv[0] = -1
    s.priv[1] = -1
    s.public_card = -1
    s.folded = -1
    s.contrib[0] = 1
    s.contrib[1] = 1
    s.stakes = 1
    return (<char*>&s)[:sizeof(LeducState)]


# ------------------------------------------------- the API's dict form

def describe(data):
    cdef LeducState copy
    read_state(data, &copy, sizeof(LeducState), "not a Leduc poker state")
    cdef const LeducState* s = &copy
    return {"private_cards": [c for c in (s.priv[0], s.priv[1]) if c >= 0],
            "public_card": s.public_card if s.public_card >= 0 else None,
            "round1": [s.history[0][i] for i in range(s.num_actions[0])],
            "round2": [s.history[1][i] for i in range(s.num_actions[1])],
            "contributions": [s.contrib[0], s.contrib[1]]}


def view(data, int seat):
    """The state as ``seat`` sees it: the other private card is -1."""
    if seat not in (0, 1):
        raise ValueError(f"seat: {seat} is not a seat of Leduc poker")
    d = describe(data)
    d["private_cards"] = [c if i == seat else -1 for i, c in enumerate(d["private_cards"])]
    return d


def from_description(d, game):
    """Replays the deal and both rounds; a hidden card (-1) becomes one nobody else shows."""
    st = game.new_initial_state(2)
    cards = list(d.get("private_cards") or [])
    public = d.get("public_card")
    shown = [c for c in cards + [public] if c is not None and c >= 0]
    for i, c in enumerate(cards):
        if c == -1:
            c = next(x for x in range(NUM_CARDS) if x not in shown)
            shown.append(c)
            cards[i] = c
        if c not in st.legal_actions() or not st.is_chance_node():
            raise ValueError(f"private_cards[{i}]: {c!r} cannot be dealt here")
        st.apply(c)
    for r, key in enumerate(("round1", "round2")):
        if r == 1 and public is not None:
            if not st.is_chance_node() or public not in st.legal_actions():
                raise ValueError(f"public_card: {public!r} cannot be dealt here")
            st.apply(public)
        for i, a in enumerate(d.get(key) or []):
            if st.is_chance_node() or st.is_terminal() or a not in st.legal_actions():
                raise ValueError(f"{key}[{i}]: {a!r} is not legal here")
            st.apply(a)
    return st.to_bytes()


def summary(data):
    d = describe(data)
    return (f"private {d['private_cards']}, public {d['public_card']}, "
            f"rounds {d['round1']} {d['round2']}, contributions {d['contributions']}")


def render(data, seat=None):
    d = describe(data) if seat is None else view(data, seat)
    names = lambda acts: " ".join(("fold", "call", "raise")[a] for a in acts) or "-"
    cards = " ".join(CARD_NAMES[c] if c >= 0 else "?" for c in d["private_cards"]) or "-"
    public = CARD_NAMES[d["public_card"]] if d["public_card"] is not None else "-"
    return (f"Leduc poker: private {cards}, public {public}; round 1: {names(d['round1'])}; "
            f"round 2: {names(d['round2'])}; contributions {d['contributions']}")
