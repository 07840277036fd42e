# Kuhn poker's states on the Python side, off the search path: the position before play
# (initial_state_bytes), the state as a dict shaped like its proto message (describe), what a
# seat sees (view), the validating constructor for positions from outside (from_description)
# and text (summary, render).  Included by engine.pyx after the GameDef table, compiled with
# the rules so that it reads the state struct directly (a client's position is decoded here
# on every call).  Not a rule: the rules are the nogil functions above it.

CARD_NAMES = ("J", "Q", "K")


def initial_state_bytes(int players=2):
    if players != 2:
        raise ValueError(f"players: Kuhn poker is a 2-player game, not {players}")
    cdef KuhnState s
    memset(&s, 0, sizeof(KuhnState))
    s.card[0] = -1
    s.card[1] = -1
    return (<char*>&s)[:sizeof(KuhnState)]


# ------------------------------------------------- the API's dict form
# Shaped like the KuhnPokerState message. Positions are rebuilt by replaying
# the deal and the actions through the engine, so every rule checks them.

def describe(data):
    cdef KuhnState copy
    read_state(data, &copy, sizeof(KuhnState), "not a Kuhn poker state")
    cdef const KuhnState* s = &copy
    return {"cards": [c for c in (s.card[0], s.card[1]) if c >= 0],
            "actions": [s.history[i] for i in range(s.num_actions)]}


def view(data, int seat):
    """The state as ``seat`` sees it: the other card is -1."""
    if seat not in (0, 1):
        raise ValueError(f"seat: {seat} is not a seat of Kuhn poker")
    d = describe(data)
    d["cards"] = [c if i == seat else -1 for i, c in enumerate(d["cards"])]
    return d


def from_description(d, game):
    """Replays ``cards`` and ``actions``; a hidden card (-1) becomes one the viewer does not hold."""
    st = game.new_initial_state(2)
    cards = list(d.get("cards") or [])
    for i, c in enumerate(cards):
        if c == -1:
            c = next(x for x in range(3) if x not in cards)
            cards[i] = c
        if c not in st.legal_actions():
            raise ValueError(f"cards[{i}]: {c!r} cannot be dealt here")
        st.apply(c)
    for i, a in enumerate(d.get("actions") or []):
        if st.is_chance_node() or st.is_terminal() or a not in st.legal_actions():
            raise ValueError(f"actions[{i}]: {a!r} is not legal here")
        st.apply(a)
    return st.to_bytes()


def summary(data):
    d = describe(data)
    return f"cards {d['cards']}, actions {''.join('pb'[a] for a in d['actions']) or '-'}"


def render(data, seat=None):
    d = describe(data) if seat is None else view(data, seat)
    cards = " ".join(CARD_NAMES[c] if c >= 0 else "?" for c in d["cards"]) or "-"
    return f"Kuhn poker: cards {cards}; actions {' '.join(('pass', 'bet')[a] for a in d['actions']) or '-'}"
