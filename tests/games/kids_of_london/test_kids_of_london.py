"""Kids of London: the rulebook's worked examples and one test per ruling (seeds/kids_of_london.md)."""
import pytest

from fagin.engines import CHANCE, TERMINAL, IllegalActionError, new_game
from fagin.engines.kids_of_london import engine as kol
from fagin.engines.kids_of_london import actions as kol_actions

from .helpers import GAME, coins, play, position, with_

COMEDIAN, PRINCE = kol.ACTION_COMEDIAN, kol.ACTION_PRINCE
LONE_CARD, LONE_CHARACTER = kol.ACTION_LONE_CARD, kol.ACTION_LONE_CHARACTER


# --------------------------------------------------------- worked examples

def test_rulebook_example_jeweller():
    """KL-4, KL-5: Bastien 4, Romeo 6, Louis 7, Marjolaine 8 against a jeweller (6)."""
    st = play(position(4, "jeweller"), 4, 6, 7, 8)
    assert coins(st) == [4, 0, 0, 6]


def test_rulebook_example_banker_two_leaders():
    """KL-7: Romeo 8 and Louis 8 are arrested; Bastien's 5 robs the banker, Marjolaine's 1 is lowest."""
    st = play(position(4, "banker"), 8, 8, 5, 1)
    assert coins(st) == [0, 0, 7, 1]


def test_rulebook_example_shared_prince():
    """KL-13: Marjolaine (comedian) and Romeo (prince) tie for the prince: Romeo takes 8/2 = 4."""
    st = play(position(4, "prince"), 7, 7, 3, 2)
    assert st.describe()["phase"] == "choose_prince"
    assert st.legal_actions() == [COMEDIAN, PRINCE]
    st.apply(COMEDIAN)   # seat 0, Marjolaine
    st.apply(PRINCE)     # seat 1, Romeo
    assert coins(st) == [0, 4, 0, 2]


# ------------------------------------------------------------ set-up, order

def test_KL_1_setup():
    """KL-1: setup."""
    for players in (2, 3, 4, 5):
        st = GAME.new_initial_state(players)
        d = st.describe()
        assert [seat["hand"] for seat in d["seats"]] == [list(range(9))] * players
        assert [seat["coins"] for seat in d["seats"]] == [0] * players
        assert {name: d["pile"].count(name) for name in kol.CHARACTERS} == kol.CHARACTER_TILES
        assert len(d["pile"]) == 9
        assert (d["fictitious"] is not None) == (players == 2)
    d = GAME.new_initial_state(2).describe()
    assert d["fictitious"]["deck"] == list(range(9)) and d["fictitious"]["coins"] == 0
    with pytest.raises(ValueError, match="players"):
        GAME.new_initial_state(6)
    with pytest.raises(ValueError, match="players"):
        GAME.new_initial_state(1)


def test_KL_2_hour_order_and_chance():
    """KL-2: hour order and chance."""
    st = GAME.new_initial_state(2)
    assert st.current_player() == CHANCE
    outcomes = dict(st.chance_outcomes())
    assert outcomes[kol_actions.character_action("merchant")] == pytest.approx(2 / 9)
    assert outcomes[kol_actions.character_action("banker")] == pytest.approx(1 / 9)
    assert sum(outcomes.values()) == pytest.approx(1)
    st.apply(kol_actions.character_action("banker"))
    # In the 2-player game the fictitious card is shown before anyone chooses.
    assert st.current_player() == CHANCE
    assert dict(st.chance_outcomes()) == pytest.approx({kol_actions.fictitious_action(v): 1 / 9 for v in range(9)})
    st.apply(kol_actions.fictitious_action(3))
    assert st.describe()["fictitious"]["card"] == 3
    assert st.current_player() == 0
    st.apply(kol_actions.card_action(5))
    assert st.current_player() == 1
    st.apply(kol_actions.card_action(2))
    d = st.describe()
    assert d["turn"] == 1 and d["phase"] == "reveal_character"
    assert d["last_hour"] == {"character": "banker", "cards": [5, 2, 3]}
    assert coins(st) == [7, 2, 0]
    assert kol_actions.character_action("banker") not in st.legal_actions()
    assert kol_actions.fictitious_action(3) not in st.clone().apply(kol_actions.character_action("merchant")).legal_actions()


def test_KL_2_illegal_actions_are_refused():
    """KL-2: illegal actions are refused."""
    st = play(position(3, "merchant"), 5)
    with pytest.raises(IllegalActionError):
        st.apply(PRINCE)
    with pytest.raises(IllegalActionError):
        st.apply(kol_actions.character_action("banker"))
    st2 = position(3, "merchant", turn=1, hands=[list(range(1, 9))] * 3)
    with pytest.raises(IllegalActionError):
        st2.apply(kol_actions.card_action(0))     # already played


def test_KL_3_last_hour_is_played_without_a_choice():
    """KL-3: last hour is played without a choice."""
    st = position(3, "banker", turn=7, hands=[[2, 6], [1, 7], [3, 4]])
    play(st, 6, 1, 4)
    assert coins(st) == [7, 1, 0]
    assert st.current_player() == CHANCE and st.describe()["turn"] == 8
    (kind,) = [a for a in st.legal_actions()]
    st.apply(kind)
    # Seats' last cards 2, 7, 3 were played automatically.
    assert st.is_terminal()
    assert st.describe()["last_hour"]["cards"] == [2, 7, 3]


# ------------------------------------------------------------- the theft

def test_KL_4_shared_theft_rounds_down():
    """KL-4: shared theft rounds down."""
    assert coins(play(position(3, "banker"), 6, 6, 1)) == [3, 3, 1]
    assert coins(play(position(4, "jeweller"), 5, 5, 5, 0)) == [2, 2, 2, 0]
    assert coins(play(position(4, "merchant"), 2, 7, 7, 1)) == [0, 2, 2, 1]


def test_KL_5_lowest_cards_each_take_their_value():
    """KL-5: lowest cards each take their value."""
    assert coins(play(position(5, "merchant"), 2, 2, 5, 6, 7)) == [2, 2, 0, 0, 4]
    assert coins(play(position(3, "merchant"), 0, 4, 6)) == [0, 0, 4]


def test_KL_6_all_cards_equal_share_the_character_and_none_is_lowest():
    """KL-6: all cards equal share the character and none is lowest."""
    assert coins(play(position(3, "banker"), 5, 5, 5)) == [2, 2, 2]
    assert coins(play(position(2, "merchant", fict_card=3), 3, 3)) == [1, 1, 1]


def test_KL_7_single_leader_robs_arrested_leaders_are_neither_high_nor_low():
    """KL-7: single leader robs arrested leaders are neither high nor low."""
    assert coins(play(position(3, "merchant"), 8, 5, 1)) == [4, 0, 1]
    # Two 8s arrested: 5 is highest, 1 lowest, 3 in the middle; the 8s get nothing.
    assert coins(play(position(5, "jeweller"), 8, 3, 8, 5, 1)) == [0, 0, 0, 6, 1]


def test_KL_8_every_card_a_leader_nobody_gains():
    """KL-8: every card a leader nobody gains."""
    st = play(position(3, "banker", coins=[3, 4, 5]), 8, 8, 8)
    assert coins(st) == [3, 4, 5]
    assert st.describe()["turn"] == 1 and st.current_player() == CHANCE
    st = play(position(2, "banker", fict_card=8), 8, 8)
    assert coins(st) == [0, 0, 0]


def test_KL_9_lone_survivor_chooses():
    """KL-9: lone survivor chooses."""
    st = play(position(3, "banker"), 8, 8, 3)
    assert st.current_player() == 2 and st.legal_actions() == [LONE_CARD, LONE_CHARACTER]
    assert coins(st.child(LONE_CARD)) == [0, 0, 3]
    assert coins(st.child(LONE_CHARACTER)) == [0, 0, 7]
    # Robbing a priest hands the coins on; robbing the beggar costs.
    st = play(position(3, "left_priest", coins=[0, 0, 5]), 8, 8, 3)
    assert coins(st.child(LONE_CHARACTER)) == [5, 0, 5]
    st = play(position(3, "beggar", coins=[0, 0, 5]), 8, 8, 3)
    assert coins(st.child(LONE_CHARACTER)) == [0, 0, 2]
    assert coins(st.child(LONE_CARD)) == [0, 0, 8]
    # Robbing the prince leads to the prince-or-comedian choice.
    st = play(position(3, "prince"), 2, 8, 8).apply(LONE_CHARACTER)
    assert st.current_player() == 0 and st.legal_actions() == [COMEDIAN, PRINCE]
    assert coins(st.child(PRINCE)) == [8, 0, 0]
    assert coins(st.child(COMEDIAN)) == [0, 0, 0]
    # The choice is offered even when both pay the same.
    st = play(position(3, "jeweller"), 8, 6, 8)
    assert st.legal_actions() == [LONE_CARD, LONE_CHARACTER]


# ---------------------------------------------------------- the characters

def test_KL_10_priests_and_shared_priest():
    """KL-10: priests and shared priest."""
    assert coins(play(position(4, "left_priest"), 1, 7, 3, 2)) == [1, 0, 5, 0]
    assert coins(play(position(4, "right_priest"), 7, 1, 3, 2)) == [0, 1, 0, 5]
    # Shared: each robber passes its own share (5 // 2) to its own neighbour.
    assert coins(play(position(4, "left_priest"), 7, 7, 0, 2)) == [0, 2, 2, 0]
    assert coins(play(position(4, "right_priest"), 7, 7, 0, 2)) == [2, 0, 0, 2]
    # Three robbers: 5 // 3 = 1 each.
    assert coins(play(position(4, "left_priest"), 7, 7, 7, 2)) == [0, 1, 1, 2 + 1]


def test_KL_11_beggar_takes_three_or_all():
    """KL-11: beggar takes three or all."""
    assert coins(play(position(3, "beggar", coins=[5, 0, 0]), 8, 4, 2)) == [2, 0, 2]
    assert coins(play(position(3, "beggar", coins=[2, 0, 0]), 8, 4, 2)) == [0, 0, 2]


def test_KL_12_shared_beggar_shares_the_loss():
    """KL-12: shared beggar shares the loss."""
    assert coins(play(position(3, "beggar", coins=[5, 5, 0]), 7, 7, 2)) == [4, 4, 2]
    assert coins(play(position(3, "beggar", coins=[0, 5, 0]), 7, 7, 2)) == [0, 4, 2]
    assert coins(play(position(5, "beggar", coins=[5] * 5), 7, 7, 7, 7, 2)) == [5, 5, 5, 5, 7]


def test_KL_13_prince_choices_are_secret_and_simultaneous():
    """KL-13: prince choices are secret and simultaneous."""
    st = play(position(4, "prince"), 6, 6, 6, 1)
    assert [st.current_player()] == [0]
    st.apply(PRINCE)
    # Seat 0's choice is hidden from seat 1: determinizing for seat 1 forgets it,
    # and seat 1's key does not depend on it.
    other = play(position(4, "prince"), 6, 6, 6, 1).apply(COMEDIAN)
    assert st.infoset_key(1) == other.infoset_key(1)
    assert st.infoset_key(0) != other.infoset_key(0)
    forgot = st.determinize(1, seed=0)
    assert [seat["prince_choice"] for seat in forgot.describe()["seats"]] == [None] * 4
    st.apply(PRINCE).apply(COMEDIAN)
    # Three tied robbers: each prince-taker gets 8 // 3 = 2.
    assert coins(st) == [2, 2, 0, 1]


def test_KL_14_last_hour_prince_pays_without_choice():
    """KL-14: last hour prince pays without choice."""
    pile = {name: 0 for name in kol.CHARACTERS}
    pile["prince"] = 1
    st = position(3, "merchant", turn=7, hands=[[1, 6], [2, 6], [3, 7]], pile=pile)
    play(st, 1, 2, 7)                     # hour 8: seat 2 robs the merchant, seat 0 lowest
    assert coins(st) == [1, 0, 4]
    st.apply(kol_actions.character_action("prince"))
    # Hour 9: seats 0 and 1 play their 6s automatically and share 8 as princes.
    assert st.is_terminal()
    assert coins(st) == [5, 4, 4 + 3]


# ------------------------------------------------- seats, fictitious player

def test_KL_15_neighbours_wrap_around_the_table():
    """KL-15: neighbours wrap around the table."""
    assert coins(play(position(3, "left_priest"), 1, 2, 7)) == [5 + 1, 0, 0]
    assert coins(play(position(3, "right_priest"), 7, 2, 1)) == [0, 0, 5 + 1]


def test_KL_16_fictitious_seat_between_seat_1_and_seat_0():
    """KL-16: fictitious seat between seat 1 and seat 0."""
    # Seat 1's left neighbour is the fictitious player.
    assert coins(play(position(2, "left_priest", fict_card=0), 3, 7)) == [0, 0, 5]
    # The fictitious player robs a left priest: seat 0 receives.
    assert coins(play(position(2, "left_priest", fict_card=7), 3, 1)) == [5, 1, 0]
    # ... a right priest: seat 1 receives.
    assert coins(play(position(2, "right_priest", fict_card=7), 3, 1)) == [0, 1 + 5, 0]
    # Seat 0's right neighbour is the fictitious player.
    assert coins(play(position(2, "right_priest", fict_card=2), 7, 4)) == [0, 0, 5 + 2]


def test_KL_17_fictitious_player_choices():
    """KL-17: fictitious player choices."""
    # Robbing the prince alone: always the prince.
    st = play(position(2, "prince", fict_card=8), 3, 2)
    assert coins(st) == [0, 2, 8]
    # Tied with a real player: it takes the prince; the real robber chooses.
    st = play(position(2, "prince", fict_card=6), 6, 2)
    assert st.current_player() == 0 and st.legal_actions() == [COMEDIAN, PRINCE]
    assert coins(st.child(COMEDIAN)) == [0, 2, 4]
    assert coins(st.child(PRINCE)) == [4, 2, 4]
    # Lone survivor: it robs the character.
    st = play(position(2, "banker", fict_card=3), 8, 8)
    assert coins(st) == [0, 0, 7]
    assert st.current_player() == CHANCE


# ---------------------------------------------------- what each seat knows

def test_KL_18_only_pending_choices_are_hidden():
    """KL-18: only pending choices are hidden."""
    a = play(position(4, "banker"), 5)
    b = play(position(4, "banker"), 2)
    # Seat 1 cannot tell what seat 0 chose; seat 0 can.
    assert a.infoset_key(1) == b.infoset_key(1)
    assert a.infoset_key(0) != b.infoset_key(0)
    # Whether seat 0 has chosen at all is no information either.
    fresh = position(4, "banker")
    assert fresh.infoset_key(1) == a.infoset_key(1)
    # Determinizing for seat 1 forgets seat 0's choice and keeps seat 1's view.
    d = a.determinize(1, seed=5)
    assert [seat["card"] for seat in d.describe()["seats"]] == [None] * 4
    assert d.describe()["seats"][0]["hand"] == list(range(9))
    # The view a seat gets hides the others' cards but says they have chosen.
    seen = a.view(1)
    assert seen["seats"][0]["card"] is None and seen["seats"][0]["chosen"]
    assert a.view(0)["seats"][0]["card"] == 5
    assert d.infoset_key(1) == a.infoset_key(1)
    # ... but not for seat 0 itself.
    assert a.determinize(0, seed=5) == a
    # Once revealed, cards are public: different cards, different keys for everyone.
    ra, rb = play(a.clone(), 1, 1, 1), play(b.clone(), 1, 1, 1)
    assert all(ra.infoset_key(s) != rb.infoset_key(s) for s in range(4))


def test_KL_19_keys_start_from_the_public_position():
    """KL-19: keys start from the public position."""
    a, b = position(3, "jeweller", coins=[1, 2, 3]), position(3, "jeweller", coins=[1, 2, 3])
    assert a.infoset_key(0) == b.infoset_key(0)
    c = position(3, "jeweller", coins=[1, 2, 4])
    assert a.infoset_key(0) != c.infoset_key(0)
    # A seat's own pending choice is part of its key.
    assert play(a.clone(), 3).infoset_key(0) != a.infoset_key(0)


# ------------------------------------------------------------------ the end

def _final(players, final_coins, fict=None):
    """Returns at the end of a game whose last hour moves no coins."""
    d = {"players": players, "turn": 9, "phase": "over", "character": None, "pile": [],
         "seats": [{"coins": c, "hand": []} for c in final_coins]}
    if players == 2:
        d["fictitious"] = {"coins": fict, "deck": [], "card": None}
    st = GAME.from_description(d)
    assert st.is_terminal()
    return st.returns()


def test_KL_20_second_richest_wins():
    """KL-20: second richest wins."""
    assert _final(4, [10, 20, 15, 5]) == [0, 0, 1, 0]
    # The richest are stripped, ties included; seconds all win.
    assert _final(4, [20, 20, 15, 15]) == [0, 0, 1, 1]
    assert _final(3, [9, 9, 9]) == [0, 0, 0]
    # The fictitious player can win: both real players lose.
    assert _final(2, [30, 10], fict=20) == [0, 0]
    assert _final(2, [30, 20], fict=20) == [0, 1]
    assert _final(2, [10, 20], fict=30) == [0, 1]
    # A richest fictitious player is stripped like anyone.
    assert _final(2, [5, 5], fict=9) == [1, 1]


def test_KL_21_supply_never_runs_out():
    """KL-21: supply never runs out."""
    st = play(position(5, "banker", coins=[100, 100, 100, 100, 100]), 8, 7, 6, 5, 4)
    assert coins(st) == [107, 100, 100, 100, 104]


def test_KL_22_any_pending_seat_may_choose_first():
    """KL-22: any pending seat may choose first."""
    st = position(4, "jeweller")
    assert st.current_player() == 0
    before = [st.infoset_key(s) for s in range(4)]
    assert st.make_current(2)
    assert st.current_player() == 2
    assert [st.infoset_key(s) for s in range(4)] == before
    st.apply(kol_actions.card_action(7))
    assert st.current_player() == 0
    assert not st.make_current(2)    # already chose
    play(st, 1, 4, 3)
    assert coins(st) == [1, 0, 6, 0]
    assert not st.make_current(0)    # chance is next: nobody has a decision


# ------------------------------------------------------------ the decoder

@pytest.mark.parametrize("path, value, field", [
    (("players",), 7, "players"),
    (("players",), True, "players"),
    (("turn",), 12, "turn"),
    (("phase",), "dancing", "phase"),
    (("character",), "duke", "character"),
    (("seats", 1, "coins"), -1, r"seats\[1\].coins"),
    (("seats", 1, "coins"), 10**9, r"seats\[1\].coins"),
    (("seats",), [{"coins": 0, "hand": list(range(9))}] * 2, "seats"),
    (("seats", 0, "hand"), [0, 1, 2, 3, 4, 5, 6, 7, 7], r"seats\[0\].hand"),
    (("seats", 0, "hand"), list(range(8)), r"seats\[0\].hand"),
    (("seats", 0, "hand"), [0, 1, 2, 3, 4, 5, 6, 7, 9], r"seats\[0\].hand"),
    (("seats", 0, "card"), 3, r"seats\[0\].card"),
    (("seats", 2, "prince_choice"), True, r"seats\[2\].prince_choice"),
    (("pile",), ["merchant"] * 8, "pile"),
    (("pile",), ["unicorn"] * 8, "pile"),
    (("pile",), ["merchant"], "pile"),
    (("fictitious",), {"coins": 0, "deck": [], "card": None}, "fictitious"),
    (("robbers",), [0], "robbers"),
    (("lone",), 1, "lone"),
    (("last_hour",), {"character": "banker", "cards": [1, 2]}, "last_hour.cards"),
    (("last_hour",), {"character": "dragon", "cards": [1, 2, 3]}, "last_hour.character"),
])
def test_decoder_names_the_offending_field(path, value, field):
    d = with_(position(3, "banker").describe(), path, value)
    with pytest.raises(ValueError, match=f"^{field}"):
        GAME.from_description(d)


def test_describe_round_trips_through_the_decoder():
    for st in (play(position(4, "prince"), 6, 6, 1, 2), play(position(4, "merchant"), 3),
               play(position(2, "banker", fict_card=2), 8), GAME.new_initial_state(5),
               play(position(3, "banker"), 8, 8, 3)):
        again = GAME.from_description(st.describe())
        assert again.describe() == st.describe()
        assert again.legal_actions() == st.legal_actions()
        assert again.current_player() == st.current_player()


def test_decoder_refuses_positions_the_game_cannot_pause_in():
    d = position(3, "banker").describe()
    for i, card in enumerate([1, 2, 3]):
        d["seats"][i]["card"] = card
        d["seats"][i]["hand"].remove(card)
    with pytest.raises(ValueError, match="^seats: every player has put a card down"):
        GAME.from_description(d)
    prince = play(position(4, "prince"), 6, 6, 1, 2).describe()
    assert GAME.from_description(prince)
    with pytest.raises(ValueError, match=r"^robbers: the cards down make seats \[0, 1\]"):
        GAME.from_description({**prince, "robbers": [0, 2]})
    with pytest.raises(ValueError, match="^seats: every robber has chosen"):
        GAME.from_description(with_(with_(prince, ("seats", 0, "prince_choice"), True),
                                   ("seats", 1, "prince_choice"), False))
    with pytest.raises(ValueError, match=r"^seats\[2\].prince_choice"):
        GAME.from_description(with_(prince, ("seats", 2, "prince_choice"), True))
    with pytest.raises(ValueError, match=r"^seats\[3\].card"):
        GAME.from_description(with_(prince, ("seats", 3, "card"), None))
    lone = play(position(3, "banker"), 8, 8, 3).describe()
    again = GAME.from_description(lone)
    assert again.current_player() == 2 and again.legal_actions() == [LONE_CARD, LONE_CHARACTER]
    with pytest.raises(ValueError, match="^lone"):
        GAME.from_description({**lone, "lone": 0})
    with pytest.raises(ValueError, match="^phase: the last hour"):
        GAME.from_description(with_(position(3, "banker", turn=7, hands=[[1, 2]] * 3).describe(),
                                   ("turn",), 8))


def test_new_game_and_labels():
    st = new_game("kids_of_london", 3, seed=11)
    assert st.current_player() == 0 and len(st.legal_actions()) == 9
    assert st.action_label(kol_actions.card_action(8)) == "play 8"
    assert st.action_label(PRINCE).startswith("prince")
    assert "reveal" in st.action_label(kol_actions.character_action("beggar"))
    with pytest.raises(ValueError):
        st.action_label(99)
    assert "Kids of London" in str(st)
    assert "3 players" in repr(st)
    play_out = st.clone()
    while not play_out.is_terminal():
        if play_out.is_chance_node():
            play_out.resolve_chance(3)
        else:
            play_out.apply(play_out.legal_actions()[0])
    assert play_out.current_player() == TERMINAL


def test_a_lone_survivor_is_described_only_while_it_chooses():
    """KL-9: once the lone survivor has chosen (robbing may lead on to the prince's choice)
    the description names no lone survivor, so it round-trips (a stale seat number used to
    remain; found with 12 contract playouts)."""
    import random
    after_choice = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = new_game("kids_of_london", 2)
        chose = False
        while not state.is_terminal():
            d = state.describe()
            if d["phase"] == "choose_lone":
                chose = True
            elif chose:
                after_choice += 1
                assert d["lone"] is None
                assert GAME.from_description(d).describe() == d
            if state.is_chance_node():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            else:
                state = state.with_seat_to_act(rng.choice(state.pending_seats()))
                state.apply(rng.choice(state.legal_actions()))
    assert after_choice > 0, "no lone survivor's choice in 60 random games"
