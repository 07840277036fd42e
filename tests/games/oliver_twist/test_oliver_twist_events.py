"""Oliver Twist's events (engines/oliver_twist/events.py): nightfall and the end of the
night laid open (OT-38), and what stays a seat's own (OT-30)."""
import random
import re

import pytest

from fagin.engines import load_game
from fagin.server import codec

from ..playing import random_path

GAME = load_game("oliver_twist")


def _round_ends(players=3, seed=4):
    """Every transition of a seeded random game that ended a round: (before, action, after)."""
    return [(b, a, c) for b, a, c in random_path(GAME, players, seed)
            if c.describe()["last_round_end"] != b.describe()["last_round_end"]]


def test_nightfall_and_the_nights_end_are_told_to_every_seat_as_the_engine_settled_them():
    """OT-21, OT-22, OT-38: at each round's end every seat is told, for every seat, the
    leftover sets sold, the Police file with its tokens and the fine, as the engine
    recorded them, with the money each seat is left with."""
    ends = _round_ends()
    assert [after.describe()["last_round_end"]["round"] for _, _, after in ends] == ["day", "night"]
    for before, action, after in ends:
        record = after.describe()["last_round_end"]
        # What each seat is left with once the round is settled.
        told_money = [after.describe()["seats"][p]["money"] for p in range(3)]
        for seat in range(3):
            told = [e for e in before.events(action, after, seat) if e["typed"]["kind"] == "round_end"]
            assert [e["typed"]["round_end"]["seats"][0] for e in told] == record["seats"]
            title = "nightfall" if record["round"] == "day" else "the night is over"
            assert all(e["summary"] and e["label"].startswith(title) for e in told)
            assert all(f"fine £{part['fine']}" in e["label"] and f"money now £{told_money[p]}" in e["label"]
                       for p, (e, part) in enumerate(zip(told, record["seats"])))


def test_the_last_round_end_is_public_and_round_trips():
    """OT-38: the record is in every seat's view and key (laid open to all), goes through the
    description and the API's message, and is refused where no such round has ended."""
    _, _, after = _round_ends()[0]
    d = after.describe()
    assert d["last_round_end"]["round"] == "day" and d["night"]
    for seat in range(3):
        assert after.view(seat)["last_round_end"] == d["last_round_end"]
        rebuilt = GAME.from_description(after.view(seat))
        assert rebuilt.view(seat)["last_round_end"] == d["last_round_end"]
    _, decoded = codec.decode_state(codec.encode_description(GAME, d))
    assert decoded.describe() == d
    # Two positions apart only in the record: every seat tells them apart.
    blank = GAME.from_description({**d, "last_round_end": None})
    assert all(blank.infoset_key(s) != GAME.from_description(d).infoset_key(s) for s in range(3))
    with pytest.raises(ValueError, match=r"^last_round_end\.round: the night's end"):
        GAME.from_description({**d, "last_round_end": {**d["last_round_end"], "round": "night"}})
    for field, bad in (("fine", 11), ("seat", 2), ("set_types", ["apple", "apple"]), ("file", ["crown"])):
        seats = [dict(s) for s in d["last_round_end"]["seats"]]
        seats[1][field] = bad
        with pytest.raises(ValueError, match=rf"^last_round_end\.seats\[1\]\.{field}"):
            GAME.from_description({**d, "last_round_end": {"round": "day", "seats": seats}})


def test_what_stays_a_seats_own_is_not_told_to_the_others():
    """OT-30: a starting token dealt, a Character card or Burglary card drawn, a token looked
    at are named to the seat that sees it only; the others are told that it happened."""
    rng = random.Random(9)
    st = GAME.new_initial_state(3)
    kinds = set()
    while not st.is_terminal() and len(kinds) < 3:
        a = st.sample_chance(rng.getrandbits(63)) if st.is_chance_node() else rng.choice(st.legal_actions())
        after = st.child(a)
        if st.is_chance_node() and st.describe()["phase"] in ("deal", "character_draw", "burglary_draw"):
            kind = st.describe()["phase"]
            told = {seat: st.events(a, after, seat)[0] for seat in range(3)}
            # What each seat's event names of the draw itself; ``changes`` carries what its
            # view shows changed, public for the others (checked not to hold the secret).
            named = [s for s, e in told.items() if any(v for k, v in e["typed"].items() if k not in ("kind", "changes"))]
            assert len(named) <= 1, told
            secret = {v for v in st.typed_action(a).values() if isinstance(v, str) and v != st.typed_action(a)["kind"]}
            for s, e in told.items():
                if s not in named:
                    assert st.action_label(a).split(": ")[-1] not in e["label"], e
                    carried = {x for c in e["typed"].get("changes", ()) for x in c.get("added", []) + c.get("removed", [])}
                    assert not secret & carried, e
            kinds.add(kind)
        st = after
    assert {"deal", "character_draw"} <= kinds


def test_the_board_filled_is_summed_up_in_one_line():
    """The opening fill draws a token per space: each is told (and marked as summed up), and the
    last is followed by one summary of the board, token kinds counted, in the components'
    names."""
    rng = random.Random(4)
    st = GAME.new_initial_state(2)
    filling = 0
    while st.describe()["phase"] == "fill":
        a = st.sample_chance(rng.getrandbits(63))
        after = st.child(a)
        told = st.events(a, after, 0)
        assert told[0].get("summed_up") and re.fullmatch(r".+ comes up on space \d+", told[0]["label"])
        filling += 1
        st = after
    summary = told[-1]
    board = st.describe()["board"]
    tokens = [sp["token"] for sp in board if sp["token"]]
    assert summary["summary"] and summary["typed"]["kind"] == "board"
    assert summary["typed"]["board"] == [sp["token"] for sp in board]
    assert summary["label"].startswith(f"the board: {len(tokens)} tokens: ")
    assert filling == len(tokens)
    assert "_" not in summary["label"] and "×" in summary["label"]


def test_labels_count_what_repeats_rather_than_list_it():
    """A move's label stays a line a person reads: identical tokens leaving or reaching a place
    are counted ("−4 × ring"), and a board refilled after the line is taken says how many
    tokens came up, by kind, rather than a clause per space (the typed changes keep every
    space)."""
    repeated = re.compile(r"([+−][^,;]+), \1(?=[,;]|$)")
    refills = 0
    for seed in range(3):
        for before, action, after in random_path(GAME, 3, seed):
            for seat in range(3):
                for e in before.events(action, after, seat):
                    if e.get("summed_up") or e["summary"]:
                        continue
                    label = e["label"]
                    assert label.count("comes up on space") <= 3, label
                    assert not repeated.search(label), label
                    refills += "tokens come up on the board: " in label
    assert refills, "no refill of the board was told in these games"
