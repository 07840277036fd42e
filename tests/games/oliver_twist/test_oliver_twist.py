"""Oliver Twist rule cases and the rulebook's worked examples (seeds/oliver_twist.md)."""
from __future__ import annotations

import random

import pytest

from fagin.engines import GAMES
from fagin.engines.game import decisions
from fagin.engines.oliver_twist import engine as E
from tests.games.oliver_twist.helpers import (BOTTOM, DONE, GAME, GIVE_UP, JUNCTION_TOP, LEFT, LEFT_OF_TOP, RELOCATE,
                                      RIGHT_OF_TOP, TAKE, TOP, act, fagin, hide, keep, kind, money, play,
                                      position, resolve, seat, space, tool)


# Tokens that leave the next seats two choices at least, so that no later decision is played
# for them as a one-option choice (OT-37) while a test looks at the position.
FILLER = {LEFT[0]: "brooch", LEFT[1]: "necklace", BOTTOM[0]: "apple_1", BOTTOM[1]: "apple_2"}


def _set_up(players, seed=0):
    st = GAME.new_initial_state(players)
    return resolve(st, random.Random(seed))


# ------------------------------------------------------------------ set-up

def test_set_up_OT_1_OT_4_OT_5_OT_6_OT_7():
    """Seat 0 starts (OT-1) with £10 each (OT-4), two starting tokens each (OT-5), every open
    space filled (OT-6), the Burglary tokens aside (OT-7)."""
    for players, left in ((2, 12), (3, 0), (4, 0)):
        d = _set_up(players).describe()
        assert d["phase"] == "turn" and d["active_player"] == 0 and not d["night"]
        assert [s["money"] for s in d["seats"]] == [10] * players
        for s in d["seats"]:
            assert len(s["stash"]) == 2 and all(t.startswith("start_") for t in s["stash"])
        assert d["starting_aside_size"] == 9 - 2 * players
        assert d["bag_size"] == left
        assert d["burglary_tokens_aside"] == 10
        filled = [sp for sp, c in enumerate(d["board"]) if c["token"]]
        assert len(filled) == 75 - left


def test_map_OT_3():
    """75 day and 74 night token spaces; 12 yellow spaces, empty with 2 players (OT-3)."""
    for name, n in (("day", 75), ("night", 74)):
        b = E.BOARD[name]
        assert len(b["spaces"]) - 1 == n
        assert sum(s["yellow"] for s in b["spaces"]) == 12
        for s in b["spaces"]:
            assert len(E.neighbours(0 if name == "day" else 1, s["id"])) <= 4
    d = _set_up(2).describe()
    for s in E.BOARD["day"]["spaces"]:
        if s["yellow"]:
            assert d["board"][s["id"]]["token"] == ""
    assert d["board"][0]["token"] == ""


def test_reconstructed_components_OT_2_OT_5_OT_32_OT_33():
    """The data's counts and values (OT-2, OT-5, OT-32, OT-33)."""
    coins = {E.KIND_NAMES[k]: E.coins_of(k) for k in range(8)}
    assert coins == {"apple_1": 1, "apple_2": 2, "handkerchief_1": 1, "handkerchief_2": 2, "brooch": 2,
                     "necklace": 3, "ring": 4, "watch": 5}
    assert [E.round_count(k) for k in range(4)] == [8, 4, 7, 4]
    assert sum(E.start_count(k) for k in range(23)) == 9
    values = sorted(v for i, v in enumerate(E.BURGLARY_VALUES) for _ in range(E.burglary_count(i)))
    assert values == [-5, -3, -2, -1, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 10]
    assert E.TOOL_NAMES == ("bag", "rope", "crowbar", "lantern", "lockpick")
    assert [E.round_count(E.KIND_FIRST_TOOL + t) for t in range(5)] == [2] * 5
    # OT-5: the nine starting tokens show 13 coins, 13/9 = 1.44 a token (the Wallet shows none).
    start_coins = sum(E.coins_of(k) * E.start_count(k) for k in range(23))
    assert start_coins == 13 and round(start_coins / 9, 2) == 1.44


def test_labels_and_text_name_things_as_the_rulebook_does_OT_8_OT_18():
    """Labels and text views use the rulebook's names and plurals, never raw identifiers."""
    from fagin.engines.oliver_twist import state as S
    label = GAME.action_label
    assert label(fagin("brooch")) == "go to Fagin's with brooches"
    assert label(fagin("watch")) == "go to Fagin's with fob watches"
    assert label(hide("toby_crackit")) == "hide with Toby Crackit"
    assert label(play("artful_dodger")) == "play Artful Dodger"
    assert label(kind("start_apple_2")) == "token: starting apple (2 coins)"
    assert label(tool("lockpick")) == "discard the lockpick Tool"
    for a in range(E.ACTION_DRAW_TOKEN):
        assert "_" not in label(a), label(a)
    for a in range(E.ACTION_DRAW_TOKEN, E.NUM_DISTINCT_ACTIONS):
        assert "_" not in label(a, True), label(a, True)
    st = position(board=FILLER, stashes={0: ["ring"] * 3 + ["wallet"]}, hands={0: ["toby_crackit", "mr_grimwig"]})
    act(st, fagin("ring"))                   # two rings are forced (OT-37); then a ring or the Wallet
    assert st.describe()["phase"] == "fagin"
    text = S.render(st.to_bytes(), 0)
    assert "Toby Crackit, Mr Grimwig" in text and "set for Fagin: ring, ring" in text
    assert "toby_crackit" not in text and "'ring'" not in text


# ------------------------------------------------------------------ the Prowl

def test_fob_watch_example_OT_10_OT_11_OT_12():
    """The rulebook's Prowl: Fred moves onto the fob watch as his 7th token; the Tool and the
    Character he passed go to his Police file (OT-10, OT-11, OT-12)."""
    st = position(board={TOP[0]: "tool_rope", TOP[1]: "character", TOP[2]: "watch", BOTTOM[0]: "apple_1"},
                  stashes={0: ["apple_1", "apple_1", "brooch", "brooch", "necklace", "ring"]})
    # The line ends at the watch (an empty space follows): taking it is the only option (OT-37).
    act(st, space(TOP[0]), space(TOP[1]), space(TOP[2]))
    d = st.describe()
    me = d["seats"][0]
    assert len(me["stash"]) == 7 and "watch" in me["stash"]
    assert me["police_file"] == ["character", "tool_rope"]
    assert d["pawn"] == TOP[2]
    assert all(d["board"][sp]["token"] == "" for sp in TOP[:3])
    assert d["active_player"] == 1                                   # OT-9


def test_line_is_at_most_four_and_turns_at_junctions_OT_10():
    """A line holds up to 4 tokens; at a junction it may go either way (OT-10)."""
    board = {sp: "brooch" for sp in TOP + [JUNCTION_TOP] + LEFT_OF_TOP[:2] + RIGHT_OF_TOP[:2]}
    st = position(board=board)
    act(st, space(TOP[0]), space(TOP[1]), space(TOP[2]))
    assert space(TOP[4]) not in st.legal_actions()      # the line goes on from its last token only
    assert set(st.legal_actions()) == {TAKE, space(TOP[3])}
    act(st, space(TOP[3]))                      # a fifth step is not offered: the take is played (OT-37)
    assert st.describe()["pawn"] == TOP[3] and st.describe()["seats"][0]["police_file_size"] == 3
    board = {sp: "apple_1" for sp in TOP[3:] + [JUNCTION_TOP] + LEFT_OF_TOP[:2] + RIGHT_OF_TOP[:2]}
    st = position(board=board, pawn=TOP[2])
    act(st, space(TOP[3]), space(TOP[4]), space(JUNCTION_TOP))
    assert set(st.legal_actions()) == {TAKE, space(LEFT_OF_TOP[0]), space(RIGHT_OF_TOP[0])}


def test_tools_and_characters_OT_13_OT_16():
    """A Tool goes in front of the Lair; a Character token to the bag with a secret card (OT-13, OT-16)."""
    st = position(board={TOP[0]: "tool_bag", BOTTOM[0]: "character", BOTTOM[1]: "apple_1"})
    act(st, space(TOP[0]))
    assert st.describe()["seats"][0]["tools"] == ["bag"]
    st = position(board={BOTTOM[0]: "character", BOTTOM[1]: "apple_1", BOTTOM[2]: "apple_2", LEFT[0]: "ring"})
    bag = st.describe()["bag_size"]
    act(st, space(BOTTOM[0]), TAKE)
    d = st.describe()
    assert d["seats"][0]["character_count"] == 1 and d["bag_size"] == bag + 1
    assert st.view(1)["seats"][0]["characters"] == []


def test_full_stash_makes_room_OT_12_OT_14():
    """With 9 stashed, the taker moves a token of its choice to its file first (OT-12, OT-14)."""
    full = ["apple_1"] * 5 + ["brooch"] * 4
    st = position(board={TOP[0]: "watch", BOTTOM[0]: "apple_1"}, stashes={0: full})
    act(st, space(TOP[0]))
    assert st.describe()["phase"] == "make_room"
    assert st.legal_actions() == [kind("apple_1"), kind("brooch")]
    act(st, kind("apple_1"))
    me = st.describe()["seats"][0]
    assert sorted(me["stash"]) == sorted(["apple_1"] * 4 + ["brooch"] * 4 + ["watch"])
    assert me["police_file"] == ["apple_1"]


def test_relocation_costs_two_OT_15():
    """Next to no token, the pawn moves for £2 to an empty space next to a token; with less
    than £2 the seat pays all it has and Prowls all the same (OT-15, OT-4)."""
    st = position(board={RIGHT_OF_TOP[2]: "ring", LEFT_OF_TOP[3]: "apple_1"}, money={0: 5})
    assert RELOCATE in st.legal_actions()
    act(st, RELOCATE)
    assert st.describe()["phase"] == "place_pawn" and money(st)[0] == 3
    assert st.legal_actions() == sorted([space(LEFT_OF_TOP[2]), space(LEFT_OF_TOP[4]), space(RIGHT_OF_TOP[1]),
                                         space(RIGHT_OF_TOP[3])])
    act(st, space(RIGHT_OF_TOP[1]))          # then the ring is the only token in reach (OT-37)
    assert "ring" in st.describe()["seats"][0]["stash"]
    st = position(board={RIGHT_OF_TOP[2]: "ring"}, money={0: 1}, hands={0: ["oliver"]})
    assert RELOCATE in st.legal_actions() and GIVE_UP not in st.legal_actions()
    act(st, RELOCATE)
    assert st.describe()["phase"] == "place_pawn" and money(st)[0] == 0
    # Broke, the seat still Prowls: a poor seat does not end the round while tokens remain.
    st = position(board={RIGHT_OF_TOP[2]: "ring"}, money={0: 0})
    assert st.legal_actions() == [RELOCATE]
    # With no token left on the board, it pays the police (all it has) and the round ends (OT-20).
    st = position(board={}, money={0: 1}, hands={0: ["oliver"]})
    assert GIVE_UP in st.legal_actions() and RELOCATE not in st.legal_actions()


# ------------------------------------------------------------------ Fagin

def test_set_payouts_OT_18_OT_19():
    """The rulebook's payouts: three handkerchiefs £5; three brooches £6 (the rulebook's £3 read
    as a misprint); four handkerchiefs and a Wallet £6 + £7 bonus + the second Reward (5) = £18."""
    def deliver(stash, t, adds, rewards_taken=0):
        st = position(board=FILLER, stashes={0: stash}, rewards_taken=rewards_taken)
        before = money(st)[0]
        act(st, fagin(t))
        for a in adds:
            # an addition that is the only option was played already (OT-37)
            if st.describe()["phase"] == "fagin" and kind(a) in st.legal_actions():
                act(st, kind(a))
        if st.describe()["phase"] == "fagin":
            act(st, DONE)
        return money(st)[0] - before
    assert deliver(["handkerchief_2", "handkerchief_2", "handkerchief_1"], "handkerchief",
                   ["handkerchief_1", "handkerchief_2", "handkerchief_2"]) == 5 + 6
    assert deliver(["brooch"] * 3, "brooch", ["brooch"] * 3) == 6 + 6
    assert deliver(["handkerchief_2", "handkerchief_2", "handkerchief_1", "handkerchief_1", "wallet"],
                   "handkerchief", ["handkerchief_1", "handkerchief_1", "handkerchief_2", "handkerchief_2",
                                    "wallet"], rewards_taken=1) == 18
    # No Reward token left: the bonus still pays (OT-19).
    assert deliver(["ring"] * 4 + ["wallet"], "ring", ["ring"] * 4 + ["wallet"], rewards_taken=5) == 16 + 7


def test_set_rules_OT_18():
    """3+ tokens, Wallets as jokers but not alone, built in ascending kind order (OT-18)."""
    st = position(board=FILLER, stashes={0: ["wallet", "wallet", "wallet", "start_wallet"]})
    assert not any(E.ACTION_FAGIN <= a < E.ACTION_FAGIN + 6 for a in st.legal_actions())
    st = position(board=FILLER, stashes={0: ["apple_2", "wallet", "wallet", "apple_1"]})
    act(st, fagin("apple"))
    assert st.legal_actions() == [kind("apple_1"), kind("apple_2")]
    # apple_1 is now out of order: the two Wallets are the only way on, then "done" (OT-37)
    act(st, kind("apple_2"))
    assert st.describe()["seats"][0]["stash"] == ["apple_1"] and money(st)[0] == 10 + 2 + 6
    st = position(board=FILLER, stashes={0: ["apple_2", "wallet", "wallet", "wallet", "apple_1"]})
    act(st, fagin("apple"), kind("apple_2"))
    assert st.legal_actions() == [DONE, kind("wallet")]
    act(st, DONE)
    assert st.describe()["seats"][0]["stash"] == ["apple_1", "wallet"]


# ------------------------------------------------------------------ Characters

def _effect(card, **kw):
    kw.setdefault("board", dict(FILLER))
    st = position(hands={0: [card]}, **kw)
    assert play(card) in st.legal_actions()
    return st


def test_character_effects_money_OT_8():
    """Nancy, Bill Sikes, Mr Brownlow, Mr Sowerberry (OT-8)."""
    st = _effect("nancy", stashes={0: ["wallet", "start_wallet", "apple_1"]})
    act(st, play("nancy"))
    assert money(st)[0] == 10 + 2 * 8 and st.describe()["seats"][0]["stash"] == ["apple_1"]
    st = _effect("bill_sikes", money={1: 1, 2: 5})
    act(st, play("bill_sikes"))
    assert money(st) == [13, 0, 3]
    st = _effect("mr_brownlow", rewards_taken=1)
    act(st, play("mr_brownlow"))
    assert money(st)[0] == 15 and st.describe()["rewards_taken"] == 2
    st = _effect("mr_sowerberry", stashes={0: ["apple_1", "start_apple_2", "brooch", "ring", "wallet"]})
    act(st, play("mr_sowerberry"))
    assert money(st)[0] == 13
    d = st.describe()
    assert d["character_discard"] == ["mr_sowerberry"] and d["active_player"] == 1


def test_character_effects_police_file_OT_8():
    """Mr Bumble, Mr Fang, Bet (OT-8)."""
    st = _effect("mr_bumble", files={0: ["apple_1", "ring", "character"]})
    act(st, play("mr_bumble"), kind("ring"))
    assert st.legal_actions() == [DONE, kind("character")]      # ascending kinds only
    act(st, kind("character"))
    assert st.describe()["seats"][0]["police_file"] == ["apple_1"]
    st = _effect("mr_fang", files={0: ["ring", "watch"]})
    act(st, play("mr_fang"), seat(2), kind("ring"), DONE)
    d = st.describe()
    assert d["seats"][0]["police_file"] == ["watch"] and d["seats"][2]["police_file"] == ["ring"]
    st = _effect("bet", files={0: ["tool_rope", "ring"]}, stashes={0: ["apple_1"]})
    act(st, play("bet"))                     # the ring is its only Object: picked at once (OT-37)
    assert st.describe()["seats"][0]["stash"] == ["apple_1", "ring"]


def test_character_effects_prowls_OT_8():
    """Artful Dodger, Charley Bates, Oliver, Noah Claypole (OT-8)."""
    st = _effect("artful_dodger", board={RIGHT_OF_TOP[3]: "watch", BOTTOM[0]: "tool_bag", LEFT[0]: "tool_rope"})
    act(st, play("artful_dodger"))           # Objects only: the watch is the one choice (OT-37)
    d = st.describe()
    assert "watch" in d["seats"][0]["stash"] and d["pawn"] == 0 and d["seats"][0]["police_file"] == []
    st = _effect("charley_bates", board={**{sp: "brooch" for sp in TOP + [JUNCTION_TOP]}, BOTTOM[1]: "ring"})
    # TOP[0] is the only token next to the pawn: the first step is played (OT-37).
    act(st, play("charley_bates"), *[space(sp) for sp in TOP[1:] + [JUNCTION_TOP]])   # the 6th: taken
    assert st.describe()["seats"][0]["police_file_size"] == 5
    st = _effect("oliver", board={TOP[0]: "ring", BOTTOM[0]: "watch", BOTTOM[1]: "apple_1", BOTTOM[2]: "brooch"})
    act(st, play("oliver"), space(TOP[0]))
    # The second Prowl: next to no token, moving the pawn is the only option (OT-37).
    assert st.describe()["active_player"] == 0 and st.describe()["phase"] == "place_pawn"
    act(st, space(0), TAKE)                  # the watch is the only token next to the square
    assert st.describe()["active_player"] == 1
    assert {"ring", "watch"} <= set(st.describe()["seats"][0]["stash"])
    st = _effect("noah_claypole", board={RIGHT_OF_TOP[3]: "watch", BOTTOM[0]: "apple_1"})
    act(st, play("noah_claypole"), space(RIGHT_OF_TOP[2]))     # the watch: the one token in reach
    assert money(st)[0] == 10 and "watch" in st.describe()["seats"][0]["stash"]


def test_character_effects_sets_and_burglary_OT_8():
    """Mr Grimwig (a set of two), Toby Crackit (a burglary drawing one card more, night only) (OT-8)."""
    st = _effect("mr_grimwig", stashes={0: ["ring", "ring"]})
    act(st, play("mr_grimwig"))              # one set possible, built without a choice (OT-37)
    assert money(st)[0] == 10 + 8 + 6
    st = position(hands={0: ["toby_crackit"]}, board={BOTTOM[0]: "apple_1"})
    assert play("toby_crackit") not in st.legal_actions()        # by day it only hides
    st = position(night=True, hands={0: ["toby_crackit"]}, board={BOTTOM[0]: "apple_1"})
    act(st, play("toby_crackit"))
    # No tool: a token's burglary would draw one card and keep it; Toby's draws one more.
    d = st.describe()
    assert d["phase"] == "burglary_keep" and len(d["burglary_drawn"]) == 2
    st.apply(st.legal_actions()[0])
    assert st.describe()["seats"][0]["burglary_count"] == 1


# ------------------------------------------------------------------ the round's end

def test_hide_and_forced_end_OT_20_OT_24():
    """Hiding passes the turn; a seat that cannot act and holds no card pays £4 and the round
    ends (OT-20); cards kept carry into the night (OT-24)."""
    st = position(board={}, hands={0: ["oliver", "bet"]})
    assert set(st.legal_actions()) == {GIVE_UP, hide("oliver"), hide("bet")}
    act(st, hide("oliver"))
    d = st.describe()
    assert d["night"] and money(st) == [10, 6, 10]
    assert d["seats"][0]["characters"] == ["bet"] and d["character_discard"] == ["oliver"]


def test_police_fine_example_OT_22_OT_23():
    """Fred has the fullest file (10 tokens, 5 types): £5 (OT-22); Tools stay (OT-23)."""
    fred = ["apple_1", "apple_1", "character", "character", "handkerchief_1", "handkerchief_1", "wallet",
            "brooch", "brooch", "brooch"]
    st = position(board={}, hands={0: ["bet"]}, files={1: fred, 2: ["ring", "ring", "tool_bag"]},
                  tools={2: ["rope"]})
    act(st, GIVE_UP)
    assert money(st) == [6, 5, 10]
    assert st.describe()["seats"][2]["tools"] == ["rope"]
    # Equal fullest files all pay (OT-22).
    st = position(board={}, hands={0: ["bet"]}, files={1: ["ring"] * 3, 2: ["apple_1", "watch", "burglary"]},
                  night=True)
    act(st, GIVE_UP)
    assert money(st)[1:] == [9, 7]


def test_leftover_sets_OT_21():
    """Three handkerchiefs and a Wallet: £2, the best token (OT-21); each set its best token."""
    def counts(*names):
        c = [0] * 23
        for n in names:
            c[E.KIND_NAMES.index(n)] += 1
        return c
    assert E.leftover_value(counts("handkerchief_1", "handkerchief_1", "handkerchief_2", "wallet")) == 2
    assert E.leftover_value(counts(*(["apple_1"] * 3 + ["apple_2"] * 3))) == 4
    assert E.leftover_value(counts("ring", "ring", "wallet", "apple_1", "apple_1")) == 4
    assert E.leftover_value(counts("watch", "wallet", "wallet", "ring", "ring")) == 5
    assert E.leftover_value(counts("watch", "wallet", "wallet", "ring", "ring", "wallet")) == 9
    st = position(board={}, hands={0: ["bet"]},
                  stashes={1: ["handkerchief_1", "handkerchief_1", "handkerchief_2", "wallet", "apple_1"]})
    act(st, GIVE_UP)
    assert money(st)[1] == 10 + 2 - 1          # the apple left over goes to the file: the fullest, 1 type


# ------------------------------------------------------------------ the night

def _night_example():
    fd = ("fd", "", [])
    board = {sp: fd for sp in TOP + [JUNCTION_TOP] + LEFT_OF_TOP + RIGHT_OF_TOP[:4] + BOTTOM[:3]}
    return position(night=True, board=board)


def _face_up(st):
    return sum(1 for c in st.describe()["board"] if c["token"] and not c["face_down"])


def test_night_flips_example_OT_25():
    """The rulebook's night example: the bottom street flips 3, the top one 10 or 12 (OT-25)."""
    st = _night_example()
    assert st.legal_actions() == [space(TOP[0]), space(BOTTOM[0])]
    act(st, space(BOTTOM[0]))
    assert _face_up(st) == 3 and st.describe()["phase"] == "line"
    st = _night_example()
    act(st, space(TOP[0]))
    assert st.describe()["phase"] == "flip_direction" and _face_up(st) == 6
    assert st.legal_actions() == [space(LEFT_OF_TOP[0]), space(RIGHT_OF_TOP[0])]
    right = st.clone()
    act(st, space(LEFT_OF_TOP[0]))
    assert _face_up(st) == 12
    act(right, space(RIGHT_OF_TOP[0]))
    assert _face_up(right) == 10


def test_night_lines_take_face_up_only_OT_25_OT_28():
    """A night line runs over face-up tokens only; a skipped Burglary token goes to the file (OT-25, OT-28)."""
    st = position(night=True, board={TOP[0]: "burglary", TOP[1]: "apple_1", TOP[2]: ("fd", "", []),
                                     BOTTOM[0]: ("fd", "", [])})
    assert st.legal_actions() == [space(TOP[0])]
    act(st, space(TOP[0]), space(TOP[1]))    # a face-down token ends the line: the take follows
    assert st.describe()["seats"][0]["police_file"] == ["burglary"]


def test_burglary_two_tools_example_OT_17():
    """A bag and a rope: 3 cards drawn, one kept, two back, then a Tool discarded (OT-17)."""
    st = position(night=True, tools={0: ["bag", "rope"]}, board={TOP[0]: "burglary", **FILLER})
    act(st, space(TOP[0]))
    d = st.describe()
    assert d["phase"] == "burglary_keep" and d["burglary_drawn_size"] == 3
    assert st.view(1)["burglary_drawn"] == [] and st.view(0)["burglary_drawn"] == d["burglary_drawn"]
    best = max(d["burglary_drawn"])
    act(st, keep(best))
    assert st.legal_actions() == [tool("bag"), tool("rope")]
    act(st, tool("rope"))
    d = st.describe()
    assert d["seats"][0]["burglary_cards"] == [best] and d["burglary_draw_size"] == 15
    assert d["seats"][0]["tools"] == ["bag"]
    # Without Tools: one card, kept at once.
    st = position(night=True, board={TOP[0]: "burglary", **FILLER})
    act(st, space(TOP[0]))
    assert st.describe()["seats"][0]["burglary_count"] == 1 and st.describe()["active_player"] == 1


def test_nightfall_OT_26():
    """The poorest seat flips 12 from the square and picks who starts (OT-26)."""
    st = position(board={}, hands={0: ["bet"]}, money={1: 3, 2: 7})
    act(st, GIVE_UP)
    d = st.describe()
    assert d["phase"] == "flip_direction" and d["active_player"] == 1 and d["pawn"] == 0
    assert d["rewards_taken"] == 0 and d["burglary_tokens_aside"] == 0
    assert all(len(s["stash"]) == 2 for s in d["seats"])
    act(st, st.legal_actions()[0])
    while st.describe()["phase"] == "flip_direction":
        act(st, st.legal_actions()[0])
    assert _face_up(st) == 12 and st.describe()["phase"] == "choose_start"
    act(st, seat(2))
    assert st.describe()["active_player"] == 2 and st.describe()["phase"] in ("turn", "line")


def test_night_relocation_peeks_OT_27_OT_30():
    """Moving the pawn at night: £2, then a secret look at 2 face-down tokens (OT-27); who looked
    where is public, what they saw is not (OT-30)."""
    fd = ("fd", "", [])
    st = position(night=True, board={RIGHT_OF_TOP[0]: fd, RIGHT_OF_TOP[1]: fd, RIGHT_OF_TOP[2]: fd})
    act(st, RELOCATE)
    assert st.describe()["phase"] == "peek" and money(st)[0] == 8
    act(st, space(RIGHT_OF_TOP[0]), space(RIGHT_OF_TOP[2]))
    d = st.describe()
    assert d["phase"] == "place_pawn"
    assert d["board"][RIGHT_OF_TOP[0]]["known_by"] == [0] and d["board"][RIGHT_OF_TOP[0]]["token"]
    assert st.view(0)["board"][RIGHT_OF_TOP[0]]["token"] == d["board"][RIGHT_OF_TOP[0]]["token"]
    assert st.view(1)["board"][RIGHT_OF_TOP[0]] == {"token": "", "face_down": True, "known_by": [0]}
    act(st, space(JUNCTION_TOP))
    # Next to face-down tokens only: a line is flipped (OT-25), the looked-at token among them.
    assert st.describe()["phase"] == "line"
    assert _face_up(st) == 3


def test_final_score_example_OT_29():
    """£63 and Burglary cards +10, +8, +7, −3: £85 (OT-29); equal richest all win."""
    st = position(night=True, board={}, hands={1: ["bet"]}, active=1, money={0: 63, 1: 60, 2: 10},
                  kept={0: [10, 8, 7, -3], 1: [9, 6, 5]})
    act(st, GIVE_UP)
    d = st.describe()
    assert d["phase"] == "over" and [s["final_score"] for s in d["seats"]] == [85, 76, 10]
    assert st.returns() == [1.0, 0.0, 0.0]
    st = position(night=True, board={}, hands={1: ["bet"]}, active=1, money={0: 63, 1: 69, 2: 10},
                  kept={0: [10, 8, 7, -3], 1: [9, 6, 5]})
    act(st, GIVE_UP)
    assert st.returns() == [1.0, 1.0, 0.0]


def test_game_length_bound_OT_34():
    """Random games stay far within the declared bound (OT-34)."""
    assert GAME.max_game_length == E.MAX_GAME_LENGTH_PY
    rng = random.Random(1)
    for players in (2, 4):
        st = GAME.new_initial_state(players)
        n = 0
        while not st.is_terminal():
            st.apply(st.sample_chance(rng.getrandbits(63)) if st.is_chance_node()
                     else rng.choice(st.legal_actions()))
            n += 1
        assert n < GAME.max_game_length / 5


def test_heuristic_plays_legal_games_OT_36():
    """The rule-based player finishes games at 2 and 4 players with legal actions (OT-36)."""
    bot = GAMES["oliver_twist"].make_heuristic()
    rng = random.Random(3)
    for players in (2, 4):
        st = GAME.new_initial_state(players)
        for seat in decisions(st, rng):
            a = bot.choose(st, seat, rng.getrandbits(32))
            assert a in st.legal_actions()
            st.apply(a)
        assert max(s["final_score"] for s in st.describe()["seats"]) > 20


def test_one_option_decisions_are_played_at_once_OT_37():
    """In play no seat is ever asked a decision with one option (OT-37)."""
    rng = random.Random(4)
    for players in (2, 3):
        st = GAME.new_initial_state(players)
        for _ in decisions(st, rng):
            legal = st.legal_actions()
            assert len(legal) > 1, st.describe()["phase"]
            st.apply(rng.choice(legal))
