"""Oliver Twist: what each seat knows, re-dealing, and positions refused (OT-30, OT-31, OT-35)."""
from __future__ import annotations

import random

import pytest

from fagin.engines import GAMES
from fagin.engines.oliver_twist import engine as E
from tests.engines.ot_helpers import BOTTOM, GAME, RIGHT_OF_TOP, TOP, act, position, resolve


def _midgame(players, seed, night=False):
    """A position reached by heuristic play, by day or well into the night."""
    rng = random.Random(seed)
    bot = GAMES["oliver_twist"].make_heuristic()
    st = GAME.new_initial_state(players)
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(63)))
            continue
        d = st.describe()
        if d["phase"] == "turn" and d["night"] == night and sum(s["police_file_size"] for s in d["seats"]) >= 3 \
                and any(s["character_count"] for s in d["seats"]):
            return st
        st.apply(bot.choose(st, st.current_player(), rng.getrandbits(32)))
    raise AssertionError("no such position")


def test_view_hides_exactly_the_secrets_OT_30():
    """Another seat's file, cards and Burglary cards, the bag and the pools are hidden; sizes,
    stashes, Tools and money are not (OT-30)."""
    st = _midgame(3, 1, night=True)
    d = st.describe()
    v = st.view(0)
    for p in (1, 2):
        assert v["seats"][p]["police_file"] == [] and v["seats"][p]["characters"] == []
        assert v["seats"][p]["burglary_cards"] == []
        for key in ("stash", "tools", "money", "police_file_size", "police_file_starting", "character_count",
                    "burglary_count"):
            assert v["seats"][p][key] == d["seats"][p][key]
    assert v["seats"][0] == d["seats"][0]
    assert v["bag"] == [] and v["face_down_pool"] == [] and v["bag_size"] == d["bag_size"]
    for a, b in zip(v["board"], d["board"]):
        assert a["face_down"] == b["face_down"] and a["known_by"] == b["known_by"]
        if not b["face_down"] or 0 in b["known_by"]:
            assert a == b


def test_determinize_redeals_only_the_unseen_OT_31():
    """Re-dealing for seat 0 changes other seats' files and cards, never its own, and keeps its
    key; two worlds that differ only there give seat 0 one key (OT-30, OT-31)."""
    st = _midgame(4, 2, night=True)
    key = st.infoset_key(0)
    mine = st.describe()["seats"][0]
    changed = False
    for seed in range(12):
        w = st.determinize(0, seed)
        assert w.infoset_key(0) == key and w.view(0) == st.view(0)
        assert w.describe()["seats"][0] == mine
        for p in (1, 2, 3):
            a, b = w.describe()["seats"][p], st.describe()["seats"][p]
            assert len(a["police_file"]) == len(b["police_file"])
            changed |= a["police_file"] != b["police_file"] or a["characters"] != b["characters"]
    assert changed
    # Two different secret files of seat 1, same size: seat 0 cannot tell them apart.
    a = position(board={BOTTOM[0]: "apple_1"}, files={1: ["ring", "watch"]})
    b = position(board={BOTTOM[0]: "apple_1"}, files={1: ["brooch", "character"]})
    assert a.infoset_key(0) == b.infoset_key(0) and a.view(0) == b.view(0)
    assert a.infoset_key(1) != b.infoset_key(1)


def test_peeked_token_known_to_its_looker_only_OT_31():
    """A token a seat looked at stays put for it; for others it is re-dealt (OT-27, OT-31)."""
    fd = ("fd", "", [])
    st = position(night=True, board={RIGHT_OF_TOP[0]: ("fd", "watch", [0]), RIGHT_OF_TOP[1]: fd, TOP[3]: fd})
    assert all(st.determinize(0, s).describe()["board"][RIGHT_OF_TOP[0]]["token"] == "watch" for s in range(8))
    others = {st.determinize(1, s).describe()["board"][RIGHT_OF_TOP[0]]["token"] for s in range(30)}
    assert len(others) > 1


def test_heuristic_reads_only_its_view_OT_36():
    """The bot's choice is the same in every world its seat cannot tell apart (OT-30, OT-36)."""
    bot = GAMES["oliver_twist"].make_heuristic()
    for seed in (3, 4, 5):
        st = _midgame(3, seed, night=True)
        me = st.current_player()
        want = bot.choose(st, me, 7)
        for s in range(6):
            assert bot.choose(st.determinize(me, s), me, 7) == want


def test_view_round_trips_and_deals_the_missing_OT_31():
    """A view, given back, is a position whose view is the same (OT-31)."""
    st = _midgame(3, 6, night=True)
    for seat in range(3):
        v = st.view(seat)
        again = GAME.from_description(v)
        assert again.view(seat) == v and again.infoset_key(seat) == st.infoset_key(seat)


@pytest.mark.parametrize("change, field", [
    (lambda d: d["seats"][0].update(stash=["apple_1"] * 8 + ["brooch"] * 2), "seats[0].stash"),
    (lambda d: d["seats"][1]["stash"].append("tool_rope"), "seats[1].stash[2]"),
    (lambda d: d["board"][0].update(token="ring"), "board[0]"),
    (lambda d: d["board"][5].update(face_down=True), "board[5].face_down"),
    (lambda d: d["board"][5].update(token="diamond"), "board[5].token"),
    (lambda d: d.update(pawn=5), "pawn"),
    (lambda d: d["seats"][2].update(money=-1), "seats[2].money"),
    (lambda d: d["seats"][0].update(characters=["nancy", "nancy"]), "seats[0].characters[1]"),
    (lambda d: d.update(bag=d["bag"] + ["watch"], bag_size=d["bag_size"] + 1), "tokens"),
    (lambda d: d.update(burglary_tokens_aside=3), "burglary_tokens_aside"),
    (lambda d: d.update(line=[TOP[0]]), "line"),
    (lambda d: d.update(phase="make_room"), "pending_token"),
    (lambda d: d.update(phase="PHASE_NOPE"), "phase"),
    (lambda d: d["seats"][0].update(burglary_cards=[11]), "seats[0].burglary_cards[0]"),
])
def test_bad_positions_are_refused_with_the_field_OT_35(change, field):
    """Impossible positions are refused, the message starting with the field's path (OT-35)."""
    st = resolve(GAME.new_initial_state(3), random.Random(0))
    d = st.describe()
    assert d["board"][5]["token"]
    change(d)
    with pytest.raises(ValueError) as err:
        GAME.from_description(d)
    assert str(err.value).startswith(field), str(err.value)


def test_two_player_closed_streets_refused_OT_3_OT_35():
    d = resolve(GAME.new_initial_state(2), random.Random(0)).describe()
    yellow = next(s["id"] for s in E.BOARD["day"]["spaces"] if s["yellow"])
    d["board"][yellow]["token"] = d["bag"].pop()
    with pytest.raises(ValueError, match=rf"^board\[{yellow}\]"):
        GAME.from_description(d)
