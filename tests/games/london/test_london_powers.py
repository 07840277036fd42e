"""London's card powers, LN-45 to LN-70 (seeds/london.md), one test or more per power.

Positions are built at the raw level (london_helpers); a Run City with a
single possible activation runs by itself, since forced decisions are taken
at once (LN-90).
"""
import pytest

from fagin.engines.london import engine as E

from .helpers import (act, building_display, discard_pile, display_rows, draw, hand_of, labels, phase,
                             position, raw, seat, tops, turn_start, version)


# ------------------------------------------------------------------ LN-45: fixed activations

FIXED = [
    # card, cost ("free", "any", "blue" or £), £ gained, VP gained, poverty change, flips
    ("salters", "free", 4, 0, 0, True), ("vintners", "free", 4, 0, 0, True),
    ("haberdashers", "free", 4, 0, 0, True), ("grocers", "free", 4, 0, 0, True),
    ("mercers", "free", 5, 0, 0, True), ("fishmongers", "free", 5, 0, 0, True),
    ("covent_garden", "free", 5, 2, 0, True), ("theatre_royal", "free", 2, 2, 0, True),
    ("vauxhall_gardens", "free", 2, 2, -1, True), ("water_works", "free", 0, 0, -2, True),
    ("almshouses", "free", 0, 0, -2, True), ("workers_houses", "free", 0, 0, -2, True),
    ("highgate_cemetery", "free", 0, 0, -2, True), ("furniture_makers", "free", 6, 0, 0, True),
    ("watch_makers", "free", 6, 0, 0, True), ("silk_weaving", "free", 6, 0, 0, True),
    ("oxford_street", "free", 8, 2, -1, True), ("leather_industry", "free", 7, 0, 1, True),
    ("regent_street", "free", 3, 2, -1, True), ("albert_hall", "free", 0, 2, 0, True),
    ("sewers", "free", 0, 0, -3, True), ("billingsgate_market", "free", 8, 0, 0, True),
    ("smithfield_market", "free", 8, 0, -1, True), ("thames_embankment", "free", 0, 0, -1, True),
    ("kew_gardens", "free", 0, 0, -1, False), ("british_museum", "free", 0, 1, -1, False),
    ("lords", "free", 0, 1, -1, False), ("natural_history_museum", "free", 0, 2, -1, False),
    ("grand_hotel", "free", 4, 0, 0, False), ("stock_exchange", "free", 2, 0, 0, False),
    ("school_c", "free", 0, 0, -1, False),
    ("east_india_company", "any", 12, 0, 0, True), ("albert_dock", "any", 10, 1, 0, True),
    ("royal_victoria_dock", "any", 10, 1, 0, True), ("west_india_docks", "any", 7, 0, 0, True),
    ("brewing", "any", 9, 0, 0, True), ("ship_building", "any", 6, 2, 0, True),
    ("woolwich_arsenal", 7, 0, 5, 0, True), ("street_lights", 4, 0, 1, -2, False),
    ("great_exhibition", "blue", 0, 5, 0, True),
]


@pytest.mark.parametrize("card,cost,money,vp,poverty,flips", FIXED, ids=[f[0] for f in FIXED])
def test_fixed_activation(card, cost, money, vp, poverty, flips):
    """LN-45 (with LN-37 to LN-39, LN-41, LN-44): each fixed activation's cost, gains and flip."""
    st = position(stacks={0: [[card]]}, hands={0: ["paupers_a", "water_works"]}, money={0: 10},
                  poverty={0: 5})
    act(st, "run_city")                                  # the only card: activated at once
    if cost == "any":
        assert labels(st) == {"expend paupers_a", "expend water_works"}     # any colour, Paupers too
        act(st, "expend", "paupers_a")
    # (a blue cost has one blue card to expend, Water Works, taken at once)
    s = seat(st, 0)
    hand_left = 1 if cost in ("any", "blue") else 2
    paid = cost if isinstance(cost, int) else 0
    assert s["money"] == 10 - paid + money
    assert s["vp"] == vp
    assert s["poverty"] == max(0, 5 + poverty) + 1 + hand_left       # + 1 stack + the hand (LN-44)
    assert tops(st, 0) == [card + (":down" if flips else "")]
    if cost == "blue":
        assert hand_of(st, 0) == {"paupers_a": 1}


@pytest.mark.parametrize("card", ["st_pauls", "great_fire_monument", "buckingham_palace", "nelsons_column",
                                  "school_a_blue", "school_a_brown", "university_of_london",
                                  "bank_of_england", "public_houses", "parliament"])
def test_cards_without_an_activation_cannot_run(card):
    """LN-45, LN-10 (only the C School activates), LN-36: nothing to activate, no Run City."""
    st = position(stacks={0: [[card]]}, hands={0: ["paupers_a", "water_works"]})
    assert "run_city" not in labels(st)


def test_street_lights_money_cost_takes_a_loan():
    """LN-45, LN-37, LN-22: a money cost is paid with loans when short."""
    st = position(stacks={0: [["street_lights"]]}, money={0: 1}, poverty={0: 5})
    act(st, "run_city")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (7, 1)


# ------------------------------------------------------------------ LN-46 Coffee House

def test_coffee_house_places_a_display_card_on_itself():
    """LN-46, LN-40, LN-48: a stone-base card from the Card Display, its cost paid, Shops collect,
    the Coffee House covered; the card taken may be activated later in the run."""
    st = position(stacks={0: [["coffee_house"], ["shops_b"], ["grand_hotel"]]},
                  display_top=["st_pauls", "paupers_a"], display_bottom=["grocers"], money={0: 12})
    act(st, "run_city")
    assert labels(st) == {"activate coffee_house", "activate shops_b", "activate grand_hotel"}
    act(st, "activate", "coffee_house")
    assert labels(st) == {"coffee_top st_pauls", "coffee_bottom salters"}     # no Paupers (no stone base)
    act(st, "coffee_bottom", "salters")
    s = seat(st, 0)
    assert [c["card"] for c in s["stacks"][0]] == ["coffee_house", "grocers"]
    assert s["stacks"][0][0]["covered"] and s["stacks"][1][0]["money"] == 1
    assert s["money"] == 12 and display_rows(st) == (["paupers_a", "st_pauls"], [])
    assert labels(st) == {"done", "activate salters", "activate shops_b", "activate grand_hotel"}
    act(st, "activate", "salters")
    assert seat(st, 0)["money"] == 16


def test_coffee_house_pays_the_card_cost_and_needs_a_stone_base_card():
    """LN-46: St Paul's costs £10 on the Coffee House; with only Paupers on the Card Display the
    Coffee House cannot be activated (LN-36)."""
    st = position(stacks={0: [["coffee_house"]]}, display_top=["st_pauls"], money={0: 12})
    act(st, "run_city")                                  # activation and the only card: forced
    assert seat(st, 0)["money"] == 2 and tops(st, 0) == ["st_pauls"]
    assert seat(st, 0)["poverty"] == 5 + 1
    none = position(stacks={0: [["coffee_house"]]}, display_top=["paupers_a", "wren", "huguenots"])
    assert "run_city" not in labels(none)


def test_coffee_house_is_placed_without_expending():
    """LN-46, LN-28: placing a Coffee House needs no other brown card."""
    st = position(hands={0: ["coffee_house"]}, money={0: 0})
    act(st, "play_cards")                                # place, new stack, nothing to pay: all forced
    assert tops(st, 0) == ["coffee_house"] and seat(st, 0)["money"] == 0 and display_rows(st) == ([], [])


# ------------------------------------------------------------------ LN-47 School

def test_school_expends_any_colour_for_one_pound():
    """LN-47, LN-28: with a face-up School, another colour may be expended for £1 (offered only for
    colours other than the placed card's)."""
    st = position(stacks={0: [["school_a_brown"]]}, hands={0: ["st_pauls", "water_works", "grocers", "paupers_a"]},
                  money={0: 11})
    act(st, "play_cards")
    act(st, "place", "st_pauls")
    act(st, "new_stack")
    assert labels(st) == {"expend water_works", "school_expend salters", "school_expend paupers_a"}
    act(st, "school_expend", "paupers_a")
    assert seat(st, 0)["money"] == 0 and display_rows(st)[0] == ["paupers_a"]


def test_school_placed_first_pays_for_later_placements():
    """LN-47, LN-31: a School placed in this action already lets the next card expend any colour;
    several Schools still cost £1."""
    st = position(stacks={0: [["school_c"]]}, hands={0: ["school_a_blue", "water_works", "st_pauls", "grocers"]},
                  money={0: 20})
    act(st, "play_cards")
    act(st, "place", "school_a_blue")
    act(st, "new_stack")
    act(st, "expend", "water_works")                     # (the School of C could pay too: not needed)
    assert seat(st, 0)["money"] == 18
    act(st, "place", "st_pauls")
    act(st, "new_stack")                                  # no blue left: the Schools let Grocers pay
    assert seat(st, 0)["money"] == 18 - 1 - 10


@pytest.mark.parametrize("school", ["school_a_blue:down", "covered"])
def test_school_face_down_or_covered_gives_nothing(school):
    """LN-47, LN-30, LN-42: a School works only face up and uncovered."""
    stack = ["school_a_blue", "grocers"] if school == "covered" else [school]
    st = position(stacks={0: [stack]}, hands={0: ["st_pauls", "salters"]})
    assert "play_cards" not in labels(st)


# ------------------------------------------------------------------ LN-48 Shops

def test_shops_collect_for_later_placements_only():
    """LN-48, LN-31: £1 on a Shops for each card placed after it, not for its own placement."""
    st = position(stacks={0: [["salters"]]}, hands={0: ["shops_b", "grocers", "coffee_house", "mercers"]},
                  money={0: 5})
    act(st, "play_cards")
    act(st, "place", "shops_b")
    act(st, "new_stack")
    act(st, "expend", "salters")                          # Grocers (Salters' kind)
    assert building_display(st, 0)[1][0]["money"] == 0
    act(st, "place", "coffee_house")
    act(st, "new_stack")
    assert building_display(st, 0)[1][0]["money"] == 1
    assert seat(st, 0)["money"] == 5                      # the money is on the card, not the player's


def test_shops_covered_loses_its_money_and_does_not_collect():
    """LN-48, LN-30: the card that covers a Shops brings nothing; the money on it goes to the bank."""
    st = position(stacks={0: [["shops_c:$2"], ["shops_b:$1"]]}, hands={0: ["grocers", "mercers"]})
    act(st, "play_cards")
    act(st, "place", "salters")
    assert labels(st) == {"new_stack", "on_stack_up shops_b", "on_stack_up shops_c"}   # B and C: two kinds
    act(st, "on_stack_up", "shops_b")
    d = building_display(st, 0)
    assert d[0][0]["money"] == 3                          # the other Shops collected
    assert d[1][0]["covered"] and d[1][0]["money"] == 0 and d[1][1]["money"] == 0


def test_shops_activation_collects_its_money():
    """LN-48: +2 VP, -1 poverty and the money on the card; flipped."""
    st = position(stacks={0: [["shops_b:$3"]]}, money={0: 0}, poverty={0: 5})
    act(st, "run_city")
    s = seat(st, 0)
    assert (s["money"], s["vp"], s["poverty"]) == (3, 2, 4 + 1)
    assert building_display(st, 0)[0][0] == {"card": "shops_b", "down": True, "covered": False, "now": False,
                                             "money": 0}


# ------------------------------------------------------------------ LN-49 Parliament

def test_parliament_takes_zero_one_or_two_cards():
    """LN-49, LN-91: "stop" before the first card or after it; at most two."""
    st = turn_start(stacks={0: [["parliament"]]}, display_top=["grocers"])
    assert labels(st) == {"deck", "stop", "take_top salters"}
    zero = st.clone()
    act(zero, "stop")
    assert phase(zero) == "action" and seat(zero, 0)["hand_n"] == 0
    act(st, "deck")
    draw(st, "mercers")
    assert labels(st) == {"deck", "stop", "take_top salters"}
    act(st, "take_top", "salters")
    assert phase(st) == "action" and hand_of(st, 0) == {"mercers": 1, "grocers": 1}


def test_parliament_changes_only_the_turns_card():
    """LN-49: face down it gives nothing; it changes no other draw (Take Three)."""
    down = turn_start(stacks={0: [["parliament:down"]]}, display_top=["grocers"])
    assert labels(down) == {"deck", "take_top salters"}
    st = turn_start(stacks={0: [["parliament"]]}, display_top=["grocers"])
    act(st, "stop")
    act(st, "take_three")
    assert labels(st) == {"deck", "take_top salters"}


# ------------------------------------------------------------------ LN-50 University of London

def test_university_look_take_and_put_back_in_order():
    """LN-50, LN-91, LN-89: look at three, take one, put the others back in a chosen order; the next
    deck draws take them without chance."""
    st = turn_start(stacks={0: [["university_of_london"]]}, display_top=["grocers"])
    assert labels(st) == {"look", "no_look"}
    act(st, "look")
    for card in ("mercers", "almshouses", "covent_garden"):
        draw(st, card)
    assert labels(st) == {"take_looked mercers", "take_looked almshouses", "take_looked covent_garden",
                          "take_top salters"}          # the turn's card is still compulsory
    act(st, "take_looked", "almshouses")
    assert labels(st) == {"put_back mercers", "put_back covent_garden"}
    act(st, "put_back", "covent_garden")                 # the last one goes back by itself
    r = raw(st)
    assert [E.VERSIONS[v] for v in r["top"][:r["top_n"]]] == ["covent_garden", "mercers"]
    assert r["uni_owner"] == 0 and phase(st) == "action"
    assert hand_of(st, 0) == {"almshouses": 1}
    act(st, "take_three")
    act(st, "deck")
    assert not st.is_chance_node() and hand_of(st, 0)["covent_garden"] == 1
    act(st, "deck")
    assert hand_of(st, 0)["mercers"] == 1
    act(st, "deck")
    assert st.is_chance_node()                           # the put-back cards are used up


def test_university_not_looking_and_a_short_deck():
    """LN-50: looking is optional; with fewer than three cards left it shows them all."""
    st = turn_start(stacks={0: [["university_of_london"]]}, display_top=["grocers"])
    act(st, "no_look")
    assert labels(st) == {"deck", "take_top salters"}
    short = turn_start(stacks={0: [["university_of_london"]]}, display_top=["grocers"], deck=["sewers", "workhouse"])
    act(short, "look")
    draw(short, "sewers")
    draw(short, "workhouse")
    assert labels(short) == {"take_looked sewers", "take_looked workhouse", "take_top salters"}


def test_university_with_parliament():
    """LN-50, LN-49: up to two cards among the looked-at and the Card Display, "stop" allowed."""
    st = turn_start(stacks={0: [["university_of_london"], ["parliament"]]}, display_top=["grocers"])
    act(st, "look")
    for card in ("mercers", "almshouses", "covent_garden"):
        draw(st, card)
    assert "stop" in labels(st)
    act(st, "take_looked", "mercers")
    act(st, "take_top", "salters")
    assert hand_of(st, 0) == {"mercers": 1, "grocers": 1}
    assert labels(st) == {"put_back almshouses", "put_back covent_garden"}


# ------------------------------------------------------------------ LN-51 Stock Exchange

def test_stock_exchange_swaps_once_after_the_turns_card():
    """LN-51, LN-92, LN-84: "swap for" a Display card or "no swap"; the hand card takes the freed
    space (its row, not the first free space); the card taken is known to all."""
    st = turn_start(stacks={0: [["stock_exchange"]]}, hands={0: ["paupers_a"]}, display_top=["grocers"],
                    display_bottom=["mercers"])
    act(st, "deck")
    draw(st, "almshouses")
    assert labels(st) == {"no_swap", "swap_top salters", "swap_bottom mercers"}
    act(st, "swap_bottom", "mercers")
    assert labels(st) == {"give paupers_a", "give almshouses", "give mercers"}
    act(st, "give", "paupers_a")
    assert display_rows(st) == (["grocers"], ["paupers_a"])
    assert raw(st)["known"][0][version("mercers")] == 1
    assert phase(st) == "action"


def test_stock_exchange_face_down_gives_no_swap():
    """LN-51: only face up and uncovered."""
    st = turn_start(stacks={0: [["stock_exchange:down"]]}, hands={0: ["paupers_a"]}, display_top=["grocers"])
    act(st, "deck")
    draw(st, "almshouses")
    assert phase(st) == "action"


# ------------------------------------------------------------------ LN-52 Public Houses

@pytest.mark.parametrize("pub,expected", [("public_houses", 5 + 2),
                                          ("public_houses:down", 5 + 2 + 3)])
def test_public_houses_hand_not_counted_in_run_city_poverty(pub, expected):
    """LN-52, LN-44: with Public Houses face up, the 3 hand cards do not count."""
    st = position(stacks={0: [[pub], ["grocers"]]}, hands={0: ["paupers_a", "paupers_b", "paupers_c"]},
                  poverty={0: 5})
    act(st, "run_city")
    assert seat(st, 0)["poverty"] == expected


# ------------------------------------------------------------------ LN-53 / LN-24 Bank of England

@pytest.mark.parametrize("stack,left", [(["bank_of_england"], 4),
                                        (["bank_of_england:down"], 2),
                                        (["bank_of_england", "grocers"], 2)])
def test_bank_of_england_loans_give_twelve(stack, left):
    """LN-53, LN-24: a loan gives £12 only while the Bank of England is face up and uncovered."""
    st = position(stacks={0: [stack]}, hands={0: ["st_pauls", "water_works"]}, money={0: 2})
    act(st, "play_cards")
    act(st, "place", "st_pauls")
    act(st, "new_stack")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (left, 1)


# ------------------------------------------------------------------ LN-54 to LN-56: per borough

BOROUGHS_3 = {"city": 0, "hackney": 0, "deptford": 0, "westminster": 1}


@pytest.mark.parametrize("card,gain,flips", [("omnibus", 3, False), ("steamboats", 4, True),
                                             ("train_station", 4, True)])
def test_money_per_borough(card, gain, flips):
    """LN-54 (+£1 each), LN-55 (+£2 per Thames borough: City, Deptford), LN-56 (+£2 per borough
    north of the Thames: City, Hackney; expend any card, -1 poverty)."""
    st = position(stacks={0: [[card]]}, boroughs=BOROUGHS_3, hands={0: ["paupers_a"]}, money={0: 0},
                  poverty={0: 5})
    act(st, "run_city")
    s = seat(st, 0)
    assert s["money"] == gain
    poverty = 5 - (1 if card == "train_station" else 0)
    hand = 0 if card == "train_station" else 1
    assert s["poverty"] == max(0, poverty + 1 + hand - 3)
    assert tops(st, 0) == [card + (":down" if flips else "")]


# ------------------------------------------------------------------ LN-57, LN-58: per card

@pytest.mark.parametrize("card", ["bridge", "tower_bridge"])
def test_bridge_counts_every_brown_card(card):
    """LN-57, LN-10: +£1 per brown card of the display, covered and flipped ones included; stays."""
    st = position(stacks={0: [[card], ["grocers:down"], ["salters", "coffee_house"], ["st_pauls"],
                              ["water_works", "mercers:down"]]}, money={0: 0}, poverty={0: 9})
    act(st, "run_city")
    assert seat(st, 0)["money"] == 4                      # Grocers, Salters, Coffee House, Mercers
    assert tops(st, 0)[0] == card


def test_town_houses_count_every_non_brown_card():
    """LN-58: +1 VP per blue or pink card, itself, covered and flipped cards included."""
    st = position(stacks={0: [["town_houses"], ["st_pauls", "water_works:down"], ["grocers"],
                              ["great_fire_monument"], ["woolwich_arsenal", "salters"]]}, money={0: 0})
    act(st, "run_city")
    act(st, "activate", "town_houses")
    act(st, "done")
    assert seat(st, 0)["vp"] == 5                         # Town Houses, St Paul's, Water Works, GFM, Woolwich
    assert tops(st, 0)[0] == "town_houses:down"


# ------------------------------------------------------------------ LN-59, LN-60: other players pay

def test_lloyds_every_other_player_pays_two():
    """LN-59, LN-23, LN-95: each other player pays £2, with a loan if short (no decision)."""
    st = position(players=3, stacks={0: [["lloyds_of_london"]]}, money={0: 0, 1: 1, 2: 5})
    act(st, "run_city")
    assert [seat(st, p)["money"] for p in range(3)] == [4, 9, 3]
    assert [seat(st, p)["loans"] for p in range(3)] == [0, 1, 0]
    assert tops(st, 0) == ["lloyds_of_london:down"]


def test_fire_brigade_others_pay_the_bank_per_borough():
    """LN-60, LN-23: +2 VP; every other player pays £1 per borough it occupies to the bank."""
    st = position(players=3, stacks={0: [["fire_brigade"]]}, money={0: 0, 1: 0, 2: 5},
                  boroughs={"city": 0, "hackney": 1, "westminster": 1, "lambeth": 1, "deptford": 2})
    act(st, "run_city")
    assert [seat(st, p)["money"] for p in range(3)] == [0, 7, 4]
    assert [seat(st, p)["loans"] for p in range(3)] == [0, 1, 0]
    assert seat(st, 0)["vp"] == 2


# ------------------------------------------------------------------ LN-61, LN-62: poverty to others

def test_fleet_street_gives_two_poverty_to_a_chosen_opponent():
    """LN-61, LN-39, LN-92: +£5, then "player <seat>" among the others only."""
    st = position(players=3, stacks={0: [["fleet_street"], ["grand_hotel"]]}, money={0: 0},
                  poverty={0: 5, 1: 1, 2: 1})
    act(st, "run_city")
    act(st, "activate", "fleet_street")
    assert seat(st, 0)["money"] == 5
    assert labels(st) == {"player 1", "player 2"}
    act(st, "player", 2)
    assert [seat(st, p)["poverty"] for p in range(3)] == [5, 1, 3]


def test_police_force_moves_one_poverty():
    """LN-62: +2 VP and one poverty point to a chosen other player; none to move, nothing asked."""
    st = position(players=3, stacks={0: [["police_force"], ["grand_hotel"]]}, poverty={0: 4, 1: 0, 2: 0})
    act(st, "run_city")
    act(st, "activate", "police_force")
    assert labels(st) == {"player 1", "player 2"}
    act(st, "player", 1)
    assert [seat(st, p)["poverty"] for p in range(3)] == [3, 1, 0] and seat(st, 0)["vp"] == 2
    none = position(players=3, stacks={0: [["police_force"], ["grand_hotel"]]}, poverty={0: 0, 1: 0, 2: 0})
    act(none, "run_city")
    act(none, "activate", "police_force")
    assert phase(none) == "run" and [seat(none, p)["poverty"] for p in range(3)] == [0, 0, 0]


# ------------------------------------------------------------------ LN-63 Whitehall

def test_whitehall_repeats_an_activation_without_its_cost():
    """LN-63, LN-41: the East India Company's £12 again, no card expended; flipped once."""
    st = position(stacks={0: [["east_india_company"], ["whitehall"], ["grand_hotel"]]},
                  hands={0: ["paupers_a", "paupers_b"]}, money={0: 0})
    act(st, "run_city")
    assert "activate whitehall" not in labels(st)        # nothing activated yet: no target (LN-36)
    act(st, "activate", "east_india_company")
    act(st, "expend", "paupers_a")
    act(st, "activate", "whitehall")                     # the only target: repeated at once
    assert seat(st, 0)["money"] == 24 and hand_of(st, 0) == {"paupers_b": 1}
    act(st, "done")
    assert tops(st, 0) == ["east_india_company:down", "whitehall:down", "grand_hotel"]


def test_whitehall_targets_exclude_a_covered_coffee_house():
    """LN-63, LN-46: a Coffee House covered by its own effect cannot be repeated."""
    st = position(stacks={0: [["coffee_house"], ["whitehall"], ["grand_hotel"]]}, display_top=["mercers"])
    act(st, "run_city")
    act(st, "activate", "coffee_house")                  # takes Mercers (the only card)
    act(st, "activate", "grand_hotel")
    act(st, "activate", "whitehall")                     # Grand Hotel is the only target
    assert seat(st, 0)["money"] == 5 + 4 + 4


def test_whitehall_repeats_an_underground_with_fresh_counters():
    """LN-63, LN-66: two more Underground counters."""
    owners = {"city": 0, "westminster": 0, "hackney": 0, "st_pancras": 0}
    st = position(stacks={0: [["underground"], ["whitehall"]]}, hands={0: ["paupers_a"]}, boroughs=owners)
    act(st, "run_city")                                  # Underground (Whitehall has no target yet)
    act(st, "counter", "city")
    act(st, "counter", "westminster")
    act(st, "activate", "whitehall")
    assert labels(st) == {"counter hackney", "counter st_pancras"}
    act(st, "counter", "hackney")                        # St Pancras then forced
    r = raw(st)
    assert r["underground_left"] == 6 and seat(st, 0)["vp"] == 8


# ------------------------------------------------------------------ LN-64, LN-65: prisons and the Workhouse

def test_brixton_prison_up_to_three_cards():
    """LN-64: up to three cards of any colour, -1 poverty each, never below zero."""
    st = position(stacks={0: [["brixton_prison"], ["grand_hotel"]]},
                  hands={0: ["paupers_a", "grocers", "st_pauls", "mercers"]}, poverty={0: 2})
    act(st, "run_city")
    act(st, "activate", "brixton_prison")
    assert labels(st) == {"stop", "expend paupers_a", "expend salters", "expend st_pauls", "expend mercers"}
    act(st, "expend", "st_pauls")
    act(st, "expend", "salters")
    assert seat(st, 0)["poverty"] == 0
    act(st, "expend", "paupers_a")
    assert phase(st) == "run" and seat(st, 0)["hand"] == {"mercers": 1}


def test_millbank_prison_vp_even_without_poverty_and_stop():
    """LN-64: Millbank's +1 VP per card even at 0 poverty; "stop" at any time, zero cards allowed."""
    st = position(stacks={0: [["millbank_prison"], ["grand_hotel"]]}, hands={0: ["paupers_a", "grocers"]},
                  poverty={0: 0})
    act(st, "run_city")
    act(st, "activate", "millbank_prison")
    act(st, "expend", "paupers_a")
    act(st, "stop")
    assert (seat(st, 0)["vp"], seat(st, 0)["poverty"]) == (1, 0)
    zero = position(stacks={0: [["brixton_prison"], ["grand_hotel"]]}, hands={0: ["grocers"]}, poverty={0: 3})
    act(zero, "run_city")
    act(zero, "activate", "brixton_prison")
    act(zero, "stop")
    assert seat(zero, 0)["poverty"] == 3 and phase(zero) == "run"


def test_workhouse_expends_paupers_only():
    """LN-65, LN-70: +£1 and -1 poverty per Paupers; other cards are not offered."""
    st = position(stacks={0: [["workhouse"], ["grand_hotel"]]},
                  hands={0: ["paupers_a", "paupers_b", "grocers"]}, money={0: 0}, poverty={0: 5})
    act(st, "run_city")
    act(st, "activate", "workhouse")
    assert labels(st) == {"stop", "expend paupers_a", "expend paupers_b"}
    act(st, "expend", "paupers_a")
    act(st, "expend", "paupers_b")                       # no Paupers left: back to the run
    assert (seat(st, 0)["money"], seat(st, 0)["poverty"], phase(st)) == (2, 3, "run")


# ------------------------------------------------------------------ LN-66 to LN-68: the Underground

def test_underground_without_a_legal_borough_still_gives_vp():
    """LN-66, LN-67: no building counter on the board: no counter placed, +4 VP all the same."""
    st = position(stacks={0: [["underground"]]}, hands={0: ["paupers_a"]})
    act(st, "run_city")
    assert seat(st, 0)["vp"] == 4 and raw(st)["underground_left"] == 10


def test_underground_supply_empty():
    """LN-66, LN-4: no counter left in the supply: none placed."""
    st = position(stacks={0: [["underground"]]}, hands={0: ["paupers_a"]}, boroughs={"city": 0},
                  underground_left=0)
    act(st, "run_city")
    assert seat(st, 0)["vp"] == 4 and sum(raw(st)["underground"]) == 0


def test_underground_counters_only_in_occupied_boroughs_and_the_river_charge():
    """LN-67, LN-68, LN-3: a later counter goes next to the network; it is free when a neighbour
    with a counter is on its own bank, £3 when every such neighbour is across the river."""
    owners = {"city": 1, "southwark_bermondsey": 1, "lambeth": 1, "westminster": 1, "camberwell": 1}
    st = position(stacks={0: [["underground"]]}, hands={0: ["paupers_a"]}, boroughs=owners, money={0: 3},
                  underground=("city", "westminster"))
    act(st, "run_city")
    assert labels(st) == {"counter southwark_bermondsey", "counter lambeth"}
    act(st, "counter", "lambeth")                        # only across the Westminster bridge: £3
    assert seat(st, 0)["money"] == 0
    assert labels(st) == {"counter southwark_bermondsey", "counter camberwell"}
    act(st, "counter", "southwark_bermondsey")           # next to Lambeth (same bank) and the City: free
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (0, 0)


# ------------------------------------------------------------------ LN-43 Hospital

def test_two_hospitals_keep_two_cards():
    """LN-43: each usable Hospital keeps one card face up and is flipped in its place; a Hospital
    never keeps itself."""
    st = position(stacks={0: [["hospital_a"], ["hospital_b"], ["grocers"], ["mercers"], ["almshouses"]]},
                  money={0: 0})
    act(st, "run_city")
    for card in ("salters", "mercers", "almshouses"):
        act(st, "activate", card)
    assert labels(st) == {"stop", "keep salters", "keep mercers", "keep almshouses"}
    act(st, "keep", "mercers")
    assert labels(st) == {"stop", "keep salters", "keep almshouses"}
    act(st, "keep", "salters")
    assert tops(st, 0) == ["hospital_a:down", "hospital_b:down", "grocers", "mercers", "almshouses:down"]


def test_hospital_stop_and_a_face_down_hospital():
    """LN-43: "stop" keeps nothing; a face-down Hospital is not asked at all (LN-42)."""
    st = position(stacks={0: [["hospital_a"], ["grocers"]]})
    act(st, "run_city")                                  # Grocers, then "done" forced: the flip step
    assert labels(st) == {"stop", "keep salters"}
    act(st, "stop")
    assert tops(st, 0) == ["hospital_a", "grocers:down"]
    down = position(stacks={0: [["hospital_a:down"], ["grocers"]]})
    act(down, "run_city")
    assert tops(down, 0) == ["hospital_a:down", "grocers:down"]


# ------------------------------------------------------------------ LN-70 hand cards

def test_hand_cards_are_never_placed():
    """LN-70, LN-27: Paupers, Wren, Huguenots and Jewish Refugees have no stone base."""
    st = position(hands={0: ["paupers_a", "paupers_b", "paupers_c", "wren", "huguenots", "jewish_refugees",
                             "grocers"]})
    act(st, "play_cards")
    assert not any(l.startswith("place ") and l != "place salters" for l in labels(st))
    assert {"use wren", "use huguenots", "use jewish_refugees"} <= labels(st)


def test_jewish_refugees_draw_two():
    """LN-33, LN-70: Jewish Refugees, like Huguenots, goes to the discard pile and takes two cards."""
    st = position(hands={0: ["jewish_refugees", "grocers"]}, display_top=["mercers"])
    act(st, "play_cards")
    act(st, "use", "jewish_refugees")
    assert discard_pile(st) == {"jewish_refugees": 1}
    act(st, "take_top", "mercers")
    draw(st, "almshouses")                               # the deck is the only source left
    assert hand_of(st, 0) == {"grocers": 1, "mercers": 1, "almshouses": 1}
    assert phase(st) == "play"
