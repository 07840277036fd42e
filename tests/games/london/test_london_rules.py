"""London's rules of play on the engine (seeds/london.md): set-up, the turn, the Card Display,
loans, Play Cards, Run City, Buy Land, Take Three Cards, the last round and how decisions are
decomposed (LN-1 to LN-44, LN-71 to LN-74, LN-90 to LN-97).  The card powers are in
test_london_powers.py, the worked examples in test_london_examples.py."""
import collections

import pytest

from fagin.engines.london import engine as E

from .helpers import (GAME, act, action_id, building_display, discard_pile, display_rows, draw, hand_of,
                             label, labels, phase, position, raw, seat, tops, total_cards, turn_start, version)


# ------------------------------------------------------------------ set-up

@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_new_game_deals_six_a_cards_each(players):
    """LN-1, LN-4, LN-5: £5, 5 poverty, no loans or VP, 6 A cards each by chance; seat 0 first."""
    st = GAME._trusted(E.initial_state_bytes(players))
    r = raw(st)
    assert st.is_chance_node() and st.num_players == players
    outcomes = st.chance_outcomes()
    assert {E.CARDS[a - E.ACTION_CHANCE].deck for a, _ in outcomes} == {"A"}
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert r["money"][:players] == [5] * players and r["poverty"][:players] == [5] * players
    assert r["loans"][:players] == [0] * players and r["vp"][:players] == [0] * players
    assert r["underground_left"] == 10 and set(r["owner"]) == {-1}
    for i in range(6 * players):
        st.apply(st.sample_chance(i))
    r = raw(st)
    for p in range(players):
        hand = hand_of(st, p)
        assert sum(hand.values()) == 6
        assert {E.CARDS[version(c)].deck for c in hand} == {"A"}
    assert r["active"] == 0
    # The Card Display is empty, so seat 0's turn card can only come from the deck: a chance event.
    assert phase(st) == "draw" and display_rows(st) == ([], []) and not discard_pile(st)
    assert total_cards(st) == 110


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players):
    """LN-1."""
    with pytest.raises(ValueError, match="players"):
        E.initial_state_bytes(players)


def test_eleven_building_counters():
    """LN-4, LN-18: a player with no building counter left is not offered Buy Land."""
    eleven = ["city", "westminster", "southwark_bermondsey", "hackney", "st_pancras", "hampstead",
              "st_marylebone", "paddington", "kensington", "hammersmith", "lambeth"]
    st = position(boroughs={b: 0 for b in eleven})
    assert "buy_land" not in labels(st)
    st = position(boroughs={b: 0 for b in eleven[:10]})
    assert "buy_land" in labels(st)


# ------------------------------------------------------------------ the turn

def test_the_turns_card_is_compulsory():
    """LN-12, LN-13, LN-91: deck or a Card Display kind, never "stop"; the action follows, and there
    is no way to pass."""
    st = turn_start(display_top=["grocers", "mercers"], hands={0: ["paupers_a"]})
    assert labels(st) == {"deck", "take_top salters", "take_top mercers"}
    act(st, "take_top", "mercers")
    assert phase(st) == "action"
    assert labels(st) <= {"play_cards", "run_city", "buy_land", "take_three"}


def test_a_deck_draw_is_a_chance_event_seen_by_its_taker():
    """LN-14, LN-89, LN-88: uniform over the deck's A cards; the taker's key tells the card apart,
    the other seat's only sees that an A card was taken."""
    st = turn_start(display_top=["grocers"])
    act(st, "deck")
    assert st.is_chance_node()
    outcomes = dict(st.chance_outcomes())
    deck = raw(st)["deck"]
    a_cards = sum(deck[v] for v in range(len(E.VERSIONS)) if E.CARDS[v].deck == "A")
    assert outcomes[action_id("chance", "mercers")] == pytest.approx(1 / a_cards)
    assert outcomes[action_id("chance", "coffee_house")] == pytest.approx(2 / a_cards)
    one, two = st.clone(), st.clone()
    draw(one, "mercers")
    draw(two, "almshouses")
    assert one.infoset_key(0) != two.infoset_key(0)
    assert one.infoset_key(1) == two.infoset_key(1)


def test_cards_are_taken_one_by_one():
    """LN-14, LN-73: each card of Take Three is its own source decision, after the previous card
    has been seen; the hand may pass nine meanwhile."""
    st = position(hands={0: ["paupers_c"] * 5 + ["paupers_b"] * 4}, display_top=["grocers", "mercers"])
    act(st, "take_three")
    act(st, "deck")
    draw(st, "almshouses")
    assert phase(st) == "source" and seat(st, 0)["hand_n"] == 10
    assert labels(st) == {"deck", "take_top salters", "take_top mercers"}
    act(st, "take_top", "salters")
    act(st, "take_top", "mercers")
    assert phase(st) == "cut" and seat(st, 0)["hand_n"] == 12


def test_running_out_of_cards():
    """LN-15: with the deck empty only the Card Display is offered; with both empty the turn goes
    on without a card."""
    st = turn_start(display_top=["grocers", "mercers"], deck=[])
    assert labels(st) == {"take_top salters", "take_top mercers"}
    act(st, "take_top", "mercers")
    act(st, "take_three")                                # Grocers is taken, then nothing is left
    assert seat(st, 0)["hand_n"] == 2 and raw(st)["active"] == 1
    assert phase(st) == "action"                          # seat 1's turn card: none to take


def test_a_card_just_expended_can_be_taken_back():
    """LN-16: Water Works expended for St Paul's, then taken back with Huguenots."""
    st = position(hands={0: ["huguenots", "st_pauls", "water_works"]}, money={0: 10})
    act(st, "play_cards")
    act(st, "place", "st_pauls")
    assert display_rows(st)[0] == ["water_works"]
    act(st, "use", "huguenots")
    assert labels(st) == {"deck", "take_top water_works"}
    act(st, "take_top", "water_works")
    assert hand_of(st, 0)["water_works"] == 1


def test_the_hand_limit():
    """LN-17, LN-92: after the action, "cut <kind>" until nine cards remain; the cards go to the
    Card Display; then the next player's turn."""
    st = position(hands={0: ["paupers_c"] * 5 + ["paupers_b"] * 3}, display_top=["grocers", "mercers", "sewers"])
    act(st, "take_three")
    for card in ("grocers", "mercers", "sewers"):
        act(st, "take_top", "salters" if card == "grocers" else card)
    assert phase(st) == "cut"
    assert labels(st) == {"cut paupers_c", "cut paupers_b", "cut salters", "cut mercers", "cut sewers"}
    act(st, "cut", "paupers_c")
    assert phase(st) == "cut"
    act(st, "cut", "sewers")
    assert seat(st, 0)["hand_n"] == 9 and raw(st)["active"] == 1
    assert display_rows(st)[0] == ["paupers_c", "sewers"]


def test_run_city_poverty_counts_the_hand_before_the_cut():
    """LN-17, LN-44: ten cards in hand count for the run's poverty, then the hand is cut."""
    st = position(stacks={0: [["grocers"]]}, hands={0: ["paupers_c"] * 5 + ["paupers_b"] * 4 + ["paupers_a"]},
                  poverty={0: 5})
    act(st, "run_city")
    assert seat(st, 0)["poverty"] == 5 + 1 + 10 and phase(st) == "cut"


def test_which_actions_are_offered():
    """LN-18: Play Cards only with a payable placement (Wren counts), Run City only with an
    activation possible (money never prevents one), Buy Land only with a borough to buy, Take
    Three always."""
    assert labels(position()) == {"buy_land", "take_three"}
    assert "play_cards" not in labels(position(hands={0: ["st_pauls", "grocers"]}))
    assert "play_cards" in labels(position(hands={0: ["st_pauls", "water_works"]}))
    assert "play_cards" in labels(position(hands={0: ["st_pauls", "wren"]}))
    assert "run_city" in labels(position(stacks={0: [["woolwich_arsenal"]]}, money={0: 0}))
    assert "run_city" not in labels(position(stacks={0: [["east_india_company"]]}))
    assert "run_city" not in labels(position(stacks={0: [["great_exhibition"]]}, hands={0: ["grocers"]}))
    everything = {b: 1 for b in E.BOROUGH_IDS}
    assert labels(position(boroughs=everything, deck=[])) == {"take_three"}


def test_wren_makes_play_cards_possible():
    """LN-35, LN-18: Wren to the discard pile; the next two placements need no expended card, the
    third does; the £ costs are still paid; a Coffee House does not use a waiver."""
    st = position(hands={0: ["wren", "st_pauls", "great_fire_monument", "coffee_house", "grocers", "mercers"]},
                  money={0: 20})
    act(st, "play_cards")
    assert "place great_fire_monument" not in labels(st)   # (Wren itself is blue: it could pay for St Paul's)
    act(st, "use", "wren")
    assert discard_pile(st) == {"wren": 1}
    # Every stack is placed this turn, so each card starts a new one (forced).
    act(st, "place", "coffee_house")
    act(st, "place", "st_pauls")
    assert display_rows(st) == ([], []) and seat(st, 0)["money"] == 10
    act(st, "place", "great_fire_monument")
    assert display_rows(st) == ([], []) and seat(st, 0)["money"] == 5
    act(st, "place", "salters")                          # Mercers, the only other brown, pays
    assert display_rows(st)[0] == ["mercers"]           # the waivers are used up


# ------------------------------------------------------------------ the Card Display

@pytest.mark.parametrize("players", [2, 3, 4])
def test_card_display_rows_have_players_plus_one_spaces(players):
    """LN-19, LN-20: a cut card fills the top row up to players + 1 cards, then the bottom row."""
    row = ["almshouses", "covent_garden", "mercers", "theatre_royal", "vauxhall_gardens"]
    hand = ["paupers_c"] * 5 + ["paupers_b"] * 4 + ["sewers"]
    for filled, row_taken in ((players, 0), (players + 1, 1)):
        st = position(players=players, phase="cut", hands={0: hand}, display_top=row[:filled])
        act(st, "cut", "sewers")
        assert "sewers" in display_rows(st)[row_taken]


def test_discarded_display_cards_never_come_back():
    """LN-20: the top row's cards go to the discard pile and are never offered again."""
    st = position(phase="cut", hands={0: ["paupers_c"] * 5 + ["paupers_b"] * 4 + ["sewers"]},
                  display_top=["grocers", "mercers", "almshouses"], display_bottom=["st_pauls", "wren", "huguenots"])
    act(st, "cut", "sewers")
    assert discard_pile(st)["mercers"] == 1
    assert labels(st) == {"deck", "take_top st_pauls", "take_top wren", "take_top huguenots", "take_bottom sewers"}


# ------------------------------------------------------------------ money and loans

def test_loans_are_the_fewest_and_only_when_needed():
    """LN-22, LN-25, LN-95: an exact payment takes no loan; a short one the fewest, with no decision."""
    st = position(hands={0: ["st_pauls", "water_works"]}, money={0: 10})
    act(st, "play_cards")
    act(st, "place", "st_pauls")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (0, 0)
    st = position(hands={0: ["st_pauls", "water_works"]}, money={0: 0})
    act(st, "play_cards")
    act(st, "place", "st_pauls")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (0, 1)
    assert not any(l.startswith("#") for l in labels(st))   # no loan action exists


def test_every_payment_of_a_turn_takes_its_own_loans():
    """LN-22, LN-23: a borough's price, then a card's: each payment covered when it is made."""
    st = position(money={0: 3})
    act(st, "buy_land")
    act(st, "buy", "southwark_bermondsey")              # £5 with £3: one loan -> £8
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (8, 1)


# ------------------------------------------------------------------ Play Cards

def test_play_cards_needs_a_placement_before_done():
    """LN-26, LN-32, LN-92: no "done" before the first placement; "done" after it."""
    st = position(hands={0: ["st_pauls", "water_works", "theatre_royal", "sewers"]}, money={0: 20})
    act(st, "play_cards")
    assert "done" not in labels(st)
    act(st, "place", "st_pauls")
    act(st, "expend", "theatre_royal")
    assert "done" in labels(st)


def test_colour_matching():
    """LN-28: only cards of the placed card's colour can be expended; the £ cost is paid."""
    st = position(hands={0: ["st_pauls", "water_works", "theatre_royal", "grocers", "paupers_a"]}, money={0: 20})
    act(st, "play_cards")
    assert labels(st) == {"place st_pauls", "place water_works", "place theatre_royal"}
    act(st, "place", "st_pauls")
    assert labels(st) == {"expend water_works", "expend theatre_royal"}
    act(st, "expend", "water_works")
    assert seat(st, 0)["money"] == 10 and display_rows(st)[0] == ["water_works"]


def test_where_a_placed_card_goes():
    """LN-29: on any old stack's top (face up or down) but never on a card placed this turn; an
    old stack takes one card per turn; duplicates are allowed."""
    st = position(stacks={0: [["grocers"], ["sewers:down"], ["coffee_house"]]},
                  hands={0: ["coffee_house", "salters", "vintners", "mercers", "fishmongers"]}, money={0: 10})
    act(st, "play_cards")
    act(st, "place", "coffee_house")                     # a duplicate of an old card
    assert labels(st) == {"new_stack", "on_stack_up salters", "on_stack_down sewers", "on_stack_up coffee_house"}
    act(st, "on_stack_down", "sewers")
    act(st, "place", "salters")
    assert labels(st) == {"new_stack", "on_stack_up salters", "on_stack_up coffee_house"}
    act(st, "new_stack")
    act(st, "expend", "mercers")
    act(st, "place", "mercers")                          # Fishmongers (Mercers' kind); Vintners pays
    assert labels(st) == {"new_stack", "on_stack_up salters", "on_stack_up coffee_house"}
    act(st, "on_stack_up", "salters")                    # the old Grocers, not this turn's Salters
    d = building_display(st, 0)
    assert [c["card"] for c in d[0]] == ["grocers", "fishmongers"]
    assert [c["card"] for c in d[1]] == ["sewers", "coffee_house"]
    assert len(d) == 4                                   # stacks are never removed


def test_a_covered_card_is_silent():
    """LN-30, LN-42: a covered card cannot be activated; a face-down one neither."""
    assert "run_city" not in labels(position(stacks={0: [["grocers", "st_pauls"]]}))
    assert "run_city" not in labels(position(stacks={0: [["grocers:down"]]}))


def test_done_without_a_placement_after_huguenots():
    """LN-32, LN-33, LN-34: Grocers is payable only with Huguenots (brown); after using Huguenots
    the two cards drawn cannot pay, and "done" is allowed with nothing placed."""
    st = position(hands={0: ["huguenots", "grocers"]})
    act(st, "play_cards")
    assert labels(st) == {"place salters", "use huguenots"}
    spent = st.clone()
    act(spent, "place", "salters")                       # expends Huguenots: to the Card Display
    assert display_rows(spent)[0] == ["huguenots"] and not discard_pile(spent)
    act(st, "use", "huguenots")
    draw(st, "paupers_a")
    draw(st, "paupers_a")
    # Nothing can be placed any more: "done" with no placement was the only choice, and was taken.
    assert raw(st)["active"] == 1 and tops(st, 0) == []


# ------------------------------------------------------------------ Run City

def test_run_city_each_card_once_and_done_after_one():
    """LN-36, LN-92: "done" only after an activation; a card is activated once per run."""
    st = position(stacks={0: [["grand_hotel"], ["kew_gardens"], ["hospital_a"]]})
    act(st, "run_city")
    assert labels(st) == {"activate grand_hotel", "activate kew_gardens"}   # no Hospital (LN-43)
    act(st, "activate", "grand_hotel")
    assert labels(st) == {"done", "activate kew_gardens"}


def test_activation_costs_need_the_right_cards():
    """LN-37: a blue cost needs a blue card in hand; an any-card cost any card."""
    st = position(stacks={0: [["great_exhibition"], ["east_india_company"], ["grand_hotel"]]},
                  hands={0: ["grocers"]})
    act(st, "run_city")
    assert labels(st) == {"activate east_india_company", "activate grand_hotel"}


def test_poverty_discards_never_go_below_zero():
    """LN-38, LN-39: Sewers at 1 poverty leaves 0, the rest is lost; Leather Industry adds one."""
    st = position(stacks={0: [["sewers"], ["leather_industry"]]}, poverty={0: 1}, boroughs={"city": 0, "hackney": 0})
    act(st, "run_city")
    act(st, "activate", "sewers")
    assert seat(st, 0)["poverty"] == 0
    act(st, "activate", "leather_industry")
    assert seat(st, 0)["poverty"] == 1


def test_flips_wait_for_done():
    """LN-41, LN-96: activated cards with the flip symbol stay face up until "done"; then they are
    flipped without a decision."""
    st = position(stacks={0: [["grocers"], ["grand_hotel"]]})
    act(st, "run_city")
    act(st, "activate", "salters")
    assert tops(st, 0) == ["grocers", "grand_hotel"]
    act(st, "activate", "grand_hotel")                    # then "done", the only choice
    assert tops(st, 0) == ["grocers:down", "grand_hotel"] and raw(st)["active"] == 1


def test_run_city_poverty_can_fall():
    """LN-44: stacks + hand - boroughs; a negative total removes poverty, never below zero."""
    st = position(stacks={0: [["grocers"]]}, poverty={0: 2},
                  boroughs={"city": 0, "hackney": 0, "westminster": 0, "lambeth": 0})
    act(st, "run_city")
    assert seat(st, 0)["poverty"] == 0
    st = position(stacks={0: [["grocers"], ["st_pauls"]]}, hands={0: ["paupers_a"]}, poverty={0: 4},
                  boroughs={"city": 0})
    act(st, "run_city")
    assert seat(st, 0)["poverty"] == 4 + 2 + 1 - 1


# ------------------------------------------------------------------ Buy Land and Take Three

def test_buy_land_takes_the_borough_cards_one_by_one():
    """LN-71, LN-14: pay, then one source decision per card shown on the borough."""
    st = position(money={0: 8}, display_top=["grocers"])
    act(st, "buy_land")
    act(st, "buy", "westminster")                        # 2 cards
    assert seat(st, 0)["money"] == 0 and seat(st, 0)["boroughs"] == {"westminster"}
    act(st, "take_top", "salters")
    draw(st, "mercers")                                  # the deck is the only source left
    assert seat(st, 0)["hand_n"] == 2 and raw(st)["active"] == 1


def test_buy_land_follows_the_board():
    """LN-72, LN-3, LN-9: adjacency is the board's; Hampstead and Paddington do not meet; the river
    is crossed only at a bridge."""
    st = position(boroughs={"hampstead": 1})
    act(st, "buy_land")
    assert labels(st) == {"buy st_marylebone", "buy st_pancras"}
    st = position(boroughs={"lambeth": 1})
    act(st, "buy_land")
    assert labels(st) == {"buy westminster", "buy battersea", "buy camberwell", "buy southwark_bermondsey",
                          "buy wandsworth"}


def test_take_three_with_nothing_to_take():
    """LN-73, LN-15: allowed with deck and Card Display empty; the turn ends."""
    st = position(deck=[])
    assert labels(st) == {"buy_land", "take_three"}
    act(st, "take_three")
    assert raw(st)["active"] == 1


# ------------------------------------------------------------------ the last round

def test_the_last_card_taken_mid_action():
    """LN-74: the deck's last card taken by Huguenots; the player finishes the turn, the other
    plays one more turn, then the game ends."""
    st = position(hands={0: ["huguenots", "grocers", "mercers"]}, deck=["sewers"], display_top=["almshouses"])
    act(st, "play_cards")
    act(st, "use", "huguenots")
    act(st, "deck")
    draw(st, "sewers")
    assert raw(st)["last_round"] == 1
    # The second card can only come from the Card Display: taken at once.
    assert phase(st) == "play" and hand_of(st, 0)["almshouses"] == 1
    act(st, "place", "salters")
    act(st, "expend", "mercers")                         # then nothing else can be placed: "done"
    assert raw(st)["active"] == 1 and not st.is_terminal()
    # Seat 1's one more turn: its turn card is Mercers, the Card Display's only card.
    assert phase(st) == "action" and hand_of(st, 1) == {"mercers": 1}
    act(st, "take_three")                                # nothing left to take
    assert st.is_terminal()


def test_the_round_cap():
    """LN-97: the game ends after 100 rounds at the latest."""
    st = position(turns=199, deck=["sewers", "sewers", "sewers", "sewers"], active=1)
    act(st, "take_three")
    for _ in range(3):
        draw(st, "sewers")
    assert st.is_terminal() and raw(st)["turns"] == 200
    st = position(turns=198, deck=["sewers", "sewers", "sewers", "sewers"], active=0)
    act(st, "take_three")
    for _ in range(3):
        draw(st, "sewers")
    assert not st.is_terminal()


# ------------------------------------------------------------------ the decomposition

def test_single_choices_are_taken_at_once():
    """LN-90: one card to place, one place for it and one card to pay: Play Cards runs by itself
    up to "done"."""
    st = position(hands={0: ["coffee_house", "paupers_a"]})
    act(st, "play_cards")
    assert tops(st, 0) == ["coffee_house"] and raw(st)["active"] == 1


def test_kinds_identical_cards_are_one_action():
    """LN-93: 69 kinds; two Sewers give one "place"; Salters and Grocers are one kind, and the copy
    with the lowest version moves."""
    assert len(E.KINDS) == 69
    assert E.KIND_OF[version("salters")] == E.KIND_OF[version("grocers")]
    assert E.KIND_OF[version("mercers")] == E.KIND_OF[version("fishmongers")]
    assert E.KIND_OF[version("albert_dock")] == E.KIND_OF[version("royal_victoria_dock")]
    assert E.KIND_OF[version("shops_b")] != E.KIND_OF[version("shops_c")]     # letters differ
    st = position(hands={0: ["sewers", "sewers", "grocers", "salters", "coffee_house"]})
    act(st, "play_cards")
    assert labels(st) == {"place sewers", "place salters", "place coffee_house"}
    act(st, "place", "salters")
    act(st, "expend", "salters")
    assert tops(st, 0) == ["salters"] and display_rows(st)[0] == ["grocers"]


def test_identical_stacks_and_activations_are_one_action():
    """LN-94: two face-up Grocers stacks are one "on stack"; two Grand Hotels one "activate"; two
    activated Grocers one Hospital choice."""
    st = position(stacks={0: [["grocers"], ["salters"], ["vintners:down"]]}, hands={0: ["mercers", "fishmongers", "coffee_house"]})
    act(st, "play_cards")
    act(st, "place", "mercers")
    assert labels(st) == {"new_stack", "on_stack_up salters", "on_stack_down salters"}
    st = position(stacks={0: [["omnibus"], ["omnibus"], ["hospital_a"], ["grocers"], ["salters"]]})
    act(st, "run_city")
    assert labels(st) == {"activate omnibus", "activate salters"}
    act(st, "activate", "salters")
    act(st, "activate", "salters")
    act(st, "activate", "omnibus")
    act(st, "activate", "omnibus")                       # then "done", the only choice
    assert labels(st) == {"stop", "keep salters"}


def test_shops_stacks_one_choice_the_poorer_covered():
    """LN-94, LN-30: face-up Shops stacks of one kind are one "on stack" choice; the one holding the
    least money is covered (covering returns it to the bank)."""
    st = position(stacks={0: [["shops_b:$2"], ["shops_b"]]}, hands={0: ["grocers", "mercers", "coffee_house"]})
    act(st, "play_cards")
    act(st, "place", "salters")
    assert labels(st) == {"new_stack", "on_stack_up shops_b"}
    act(st, "on_stack_up", "shops_b")
    act(st, "expend", "mercers")
    d = building_display(st, 0)
    assert d[0] == [{"card": "shops_b", "down": False, "covered": False, "now": False, "money": 3}]
    assert [c["card"] for c in d[1]] == ["shops_b", "grocers"] and d[1][0]["covered"]


def test_display_rows_are_not_merged():
    """LN-94, LN-20: the same kind in the top and the bottom row gives two take actions."""
    st = turn_start(display_top=["grocers"], display_bottom=["salters"])
    assert labels(st) == {"deck", "take_top salters", "take_bottom salters"}


# ------------------------------------------------------------------ the data the engine loads

def test_the_engine_plays_the_boards_adjacency():
    """LN-3, LN-8, LN-72: the boroughs offered next to a single occupied one are its neighbours:
    37 symmetric pairs, of which exactly the four bridges join the two banks."""
    pairs = set()
    for b in E.BOROUGH_IDS:
        st = position(boroughs={b: 1})
        act(st, "buy_land")
        for name in labels(st):
            pairs.add(frozenset((b, name.removeprefix("buy "))))
    assert len(pairs) == 37
    north = {b.id for b in E.BOROUGHS if b.bank == "north"}
    crossing = {tuple(sorted(p)) for p in pairs if len(p & north) == 1}
    assert crossing == {("city", "southwark_bermondsey"), ("lambeth", "westminster"),
                        ("battersea", "fulham_chelsea"), ("fulham_chelsea", "wandsworth")}


@pytest.mark.parametrize("slot", ["play", "permanent", "hand"])
def test_the_engine_refuses_a_power_it_does_not_implement(monkeypatch, slot):
    """LN-7, LN-2: loading card data with an unknown power code fails; the real data loads again."""
    import dataclasses

    from fagin.engines.london import components

    cards = list(components.cards())
    cards[0] = dataclasses.replace(cards[0], **{slot: (components.Power("teleport"),)})
    monkeypatch.setattr(components, "cards", lambda: tuple(cards))
    try:
        with pytest.raises(ValueError, match="teleport is not implemented"):
            E._load()
    finally:
        monkeypatch.undo()
        E._load()
    assert len(E.VERSIONS) == 76 and sum(c.count for c in E.CARDS) == 110
    assert labels(position(hands={0: ["coffee_house"]})) >= {"play_cards"}


def test_shops_activations_one_choice_the_richer_first():
    """LN-94, LN-48: face-up Shops of one kind are one "activate" action; the one holding the most
    money is activated first, the other remains activatable."""
    st = position(stacks={0: [["shops_b:$1"], ["shops_b:$3"], ["grand_hotel"]]}, money={0: 0})
    act(st, "run_city")
    assert labels(st) == {"activate shops_b", "activate grand_hotel"}
    act(st, "activate", "shops_b")
    assert seat(st, 0)["money"] == 3
    act(st, "activate", "shops_b")
    assert seat(st, 0)["money"] == 4
