"""Oliver Twist: what each seat knows, re-dealing, and positions refused (OT-30, OT-31, OT-35)."""
from __future__ import annotations

import random

import pytest

from fagin.engines import GAMES
from fagin.engines.game import decisions
from fagin.engines.oliver_twist import engine as E
from tests.games.oliver_twist.helpers import BOTTOM, DONE, GAME, RIGHT_OF_TOP, TOP, act, position, resolve


def _midgame(players, seed, night=False):
    """A position reached by heuristic play, by day or well into the night."""
    rng = random.Random(seed)
    bot = GAMES["oliver_twist"].make_heuristic()
    st = GAME.new_initial_state(players)
    for seat in decisions(st, rng):
        d = st.describe()
        if d["phase"] == "turn" and d["night"] == night and sum(s["police_file_size"] for s in d["seats"]) >= 3 \
                and any(s["character_count"] for s in d["seats"]):
            return st
        st.apply(bot.choose(st, seat, rng.getrandbits(32)))
    raise AssertionError("no such position")


def test_view_hides_exactly_the_secrets_OT_30():
    """Another seat's stash, file, cards and Burglary cards, the bag and the pools are hidden;
    sizes, Tools and money are not (OT-30)."""
    st = _midgame(3, 1, night=True)
    d = st.describe()
    v = st.view(0)
    for p in (1, 2):
        assert v["seats"][p]["police_file"] == [] and v["seats"][p]["characters"] == []
        assert v["seats"][p]["burglary_cards"] == [] and v["seats"][p]["stash"] == []
        for key in ("stash_size", "stash_starting", "tools", "money", "police_file_size", "police_file_starting",
                    "character_count", "burglary_count"):
            assert v["seats"][p][key] == d["seats"][p][key]
    assert any(d["seats"][p]["stash"] for p in (1, 2))
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
    # A pick's fields outside its phase are refused, not dropped (as pick_dest always was).
    (lambda d: d.update(pick_left=1), "pick_left: only in phase pick_from_file"),
    (lambda d: d.update(pick_last="ring"), "pick_last: only in phase pick_from_file"),
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


# ------------------------------------------------------------------ hidden stashes (OT-30)

def _stash_twins():
    """Seat 1's stash differs (same size, same number of starting tokens); all else alike."""
    board = {TOP[0]: "apple_1", TOP[1]: "ring", BOTTOM[0]: "watch", BOTTOM[1]: "apple_2"}
    a = position(board=board, stashes={0: ["apple_1", "start_brooch"], 1: ["start_apple_1", "necklace", "watch"]})
    b = position(board=board, stashes={0: ["apple_1", "start_brooch"], 1: ["start_wallet", "brooch", "brooch"]})
    return a, b


def test_other_stashes_are_hidden_twins_OT_30():
    """Another seat's stash is hidden: positions that differ only in seat 1's stash give seats 0
    and 2 the same view, key, bot answer and search answer; seat 1 tells them apart (OT-30)."""
    from fagin.search import ismcts
    a, b = _stash_twins()
    for seat in (0, 2):
        assert a.view(seat) == b.view(seat) and a.infoset_key(seat) == b.infoset_key(seat)
        assert a.view(seat)["seats"][1]["stash"] == []
        assert (a.view(seat)["seats"][1]["stash_size"], a.view(seat)["seats"][1]["stash_starting"]) == (3, 1)
    assert a.view(1) != b.view(1) and a.infoset_key(1) != b.infoset_key(1)
    bot = GAMES["oliver_twist"].make_heuristic()
    assert all(bot.choose(a, 0, s) == bot.choose(b, 0, s) for s in range(4))
    ra = ismcts.run_search(a, 0, iterations=300, seed=3)
    rb = ismcts.run_search(b, 0, iterations=300, seed=3)
    assert ra.stats == rb.stats


def test_determinize_redeals_other_stashes_OT_31():
    """Re-dealing for seat 0 gives the others' stashes other Objects, keeping each stash's size
    and its number of starting tokens; seat 0's own stash stays (OT-31)."""
    a, _ = _stash_twins()
    seen = set()
    for s in range(20):
        w = a.determinize(0, s).describe()
        assert w["seats"][0]["stash"] == a.describe()["seats"][0]["stash"]
        st = w["seats"][1]
        assert (st["stash_size"], st["stash_starting"]) == (3, 1)
        assert all(E.is_object(E.KIND_NAMES.index(t)) for t in st["stash"])
        seen.add(tuple(st["stash"]))
    assert len(seen) > 5


def test_starting_tokens_unknown_to_the_others_OT_5_OT_30():
    """The two starting tokens each seat draws face down are unknown to the others: right
    after the deal, seat 0's worlds deal seat 1 different pairs (OT-5, OT-30)."""
    st = resolve(GAME.new_initial_state(2), random.Random(4))
    d = st.describe()
    assert d["phase"] == "turn" and d["seats"][1]["stash_starting"] == 2
    assert st.view(0)["seats"][1]["stash"] == []
    pairs = {tuple(st.determinize(0, s).describe()["seats"][1]["stash"]) for s in range(20)}
    assert len(pairs) > 3


def test_a_set_a_redealt_stash_cannot_complete_OT_31():
    """Re-dealt for another seat, the stash of a seat building a set (or playing Mr Grimwig) may
    not hold the set: the one action is then "done", which ends its turn (OT-31)."""
    board = {TOP[0]: "apple_1", BOTTOM[0]: "brooch"}
    fagin_state = position(board=board, active=1, phase="fagin", fagin_type="ring", fagin_min=3,
                           set=["ring"], stashes={1: ["ring", "ring"]})
    grimwig = position(board=board, active=1, restrict="fagin",
                       stashes={1: ["ring", "ring", "apple_1"]})
    for st in (fagin_state, grimwig):
        worlds = [st.determinize(0, s) for s in range(30)]
        short = [w for w in worlds if DONE not in st.legal_actions() and w.legal_actions() == [DONE]]
        assert short, "no world without the set"
        for w in worlds:
            assert w.legal_actions()
        w = short[0]
        w.apply(DONE)
        d = w.describe()
        assert d["active_player"] == 2 and d["set"] == [] and d["seats"][1]["stash_size"] == 3
        again = GAME.from_description(st.view(0))
        assert again.view(0) == st.view(0) and again.legal_actions()


# ------------------------------------------------------------------ derived fields (OT-35)

def _over():
    """The game over: seat 0 has £63 and +10, +8, +7, −3 (OT-29's example)."""
    st = position(night=True, board={}, hands={1: ["bet"]}, active=1, money={0: 63, 1: 60, 2: 10},
                  kept={0: [10, 8, 7, -3], 1: [9, 6, 5]})
    return act(st, C_GIVE_UP)


C_GIVE_UP = E.ACTION_GIVE_UP
_TURN = dict(board={TOP[0]: "apple_1", BOTTOM[0]: "ring", BOTTOM[1]: "brooch"})


@pytest.mark.parametrize("make, change, field", [
    # A line is 4 long, 6 only in Charley Bates's Prowl, which gives no second Prowl (OT-8, OT-10).
    (lambda: position(**_TURN), lambda d: d.update(line_max=5), "line_max"),
    (lambda: position(**_TURN), lambda d: d.update(line_max=6), "line_max"),
    (lambda: position(restrict="prowl", extra_prowls=1, **_TURN), lambda d: d.update(line_max=6), "line_max"),
    # Oliver's second Prowl comes only with a Prowl (OT-8).
    (lambda: position(**_TURN), lambda d: d.update(extra_prowls=1), "extra_prowls"),
    # Mr Grimwig's set is chosen at the turn, not in a line.
    (lambda: position(phase="line", line=[TOP[0]], restrict="prowl", **_TURN), lambda d: d.update(restrict="fagin"),
     "restrict"),
    # Bet moves one Object; with two picks left nothing has been picked yet (OT-8).
    (lambda: position(phase="pick_from_file", pick_left=1, pick_dest="stash", files={0: ["ring"]}, **_TURN),
     lambda d: d.update(pick_left=2), "pick_left"),
    (lambda: position(phase="pick_from_file", pick_left=2, pick_dest="bag", files={0: ["ring", "watch"]}, **_TURN),
     lambda d: d.update(pick_last="ring"), "pick_last"),
    # The poorest seat opens the night (OT-26).
    (lambda: position(night=True, phase="choose_start", money={0: 3, 1: 2, 2: 9}, active=1),
     lambda d: d.update(active_player=0), "active_player"),
    # No burglary by day (OT-7, OT-17).
    (lambda: position(**_TURN), lambda d: d["seats"][1].update(burglary_cards=[10], burglary_count=1)
     or d.update(burglary_draw=d["burglary_draw"][1:], burglary_draw_size=15), "seats[1].burglary_count"),
    # The final score and the winners follow from the money and the Burglary cards (OT-29).
    (lambda: position(**_TURN), lambda d: d["seats"][0].update(final_score=40), "seats[0].final_score"),
    (_over, lambda d: d["seats"][0].update(final_score=40), "seats[0].final_score"),
    (lambda: position(**_TURN), lambda d: d.update(winners=[0]), "winners"),
    (_over, lambda d: d["board"][TOP[0]].update(token=d["bag"].pop()) or d.update(bag_size=d["bag_size"] - 1),
     "board"),
    (_over, lambda d: d["seats"][2].update(stash=["ring"], stash_size=1) or d["bag"].remove("ring")
     or d.update(bag_size=d["bag_size"] - 1), "seats[2].stash"),
    # A burglary draws 1 card, 1 per type of Tool and 1 more with Toby Crackit (OT-8, OT-17).
    (lambda: position(night=True, phase="burglary_draw", burglary_to_draw=3, tools={0: ["rope"]}, **_TURN),
     lambda d: d.update(burglary_to_draw=4), "burglary_to_draw"),
    (_over, lambda d: d.update(winners=[1]), "winners"),
])
def test_fields_the_rules_determine_are_checked_OT_35(make, change, field):
    """A field whose value the rules determine from others is checked against what the engine
    itself would hold, never read on trust (OT-35)."""
    d = make().describe()
    GAME.from_description(d)
    change(d)
    with pytest.raises(ValueError) as err:
        GAME.from_description(d)
    assert str(err.value).startswith(field), str(err.value)


def test_output_fields_may_be_left_out_OT_29_OT_35():
    """Through the API, a client may leave out the final scores, the winners and every size
    (each read as derived, or as the number listed): the same position (OT-29, OT-35)."""
    from fagin.server import codec
    for st in (_over(), _midgame(3, 1, night=True)):
        d = st.describe()
        bare = dict(d, winners=[], seats=[{k: v for k, v in s.items()
                                           if k not in ("final_score", "stash_size", "stash_starting",
                                                        "police_file_size", "police_file_starting",
                                                        "character_count", "burglary_count")}
                                          for s in d["seats"]])
        for key in ("bag_size", "face_down_pool_size", "starting_aside_size", "character_draw_size",
                    "burglary_draw_size", "burglary_drawn_size"):
            del bare[key]
        _, decoded = codec.decode_state(codec.encode_description(GAME, bare))
        assert decoded.describe() == d
    assert _over().describe()["winners"] == [0]


def test_no_burglary_by_day_OT_7_OT_17():
    """A burglary's phases belong to the night: by day the same position is refused (OT-7, OT-17)."""
    position(night=True, phase="discard_tool", tools={0: ["rope", "bag"]}, **_TURN)
    with pytest.raises(ValueError, match="^night: burglaries happen only at night"):
        position(phase="discard_tool", tools={0: ["rope", "bag"]}, **_TURN)


def test_a_stash_may_hold_what_another_seat_peeked_OT_31():
    """Seat 0 has not seen the face-down token seat 1 looked at: in seat 0's worlds that token is
    one of the unseen ones, and may as well be in seat 1's hidden stash (OT-27, OT-31)."""
    st = position(night=True, board={TOP[0]: ("fd", "watch", [1]), BOTTOM[0]: ("fd", "", [])},
                  stashes={0: ["watch"] * 4, 1: ["ring"]})
    stashes = [st.determinize(0, s).describe()["seats"][1]["stash"] for s in range(2000)]
    assert ["watch"] in stashes
