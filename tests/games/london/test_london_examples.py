"""London's worked examples LN-W1 to LN-W11 (seeds/london.md), each played on the engine.

The numbers the rulebook's pictures leave out are those the spec chose; each
test follows its example step by step and checks every number it states.
"""
import pytest

from fagin.engines.london import engine as E

from .helpers import (act, action_id, building_display, discard_pile, display_rows, draw, hand_of,
                             labels, phase, position, raw, scored, seat, tops, total_cards, with_fields)


# ------------------------------------------------------------------ LN-W1

def _w1_start():
    return position(players=2, hands={0: ["huguenots", "coffee_house", "st_pauls", "east_india_company",
                                          "paupers_a"]}, money={0: 5})


def test_w1_play_cards_with_huguenots_st_pauls_and_east_india_company():
    """LN-W1 (LN-22, LN-26 to LN-34, LN-46): Huguenots draws two, Coffee House is free,
    St Paul's needs a loan, the East India Company is paid with Grocers."""
    st = _w1_start()
    deck_before = sum(raw(st)["deck"])
    act(st, "play_cards")
    assert "place st_pauls" not in labels(st)            # no second blue card yet
    act(st, "use", "huguenots")
    assert discard_pile(st) == {"huguenots": 1}          # LN-33, LN-34: not the Card Display
    draw(st, "water_works")                              # the deck is the only source (LN-91)
    draw(st, "grocers")
    assert hand_of(st, 0) == {"coffee_house": 1, "st_pauls": 1, "east_india_company": 1, "paupers_a": 1,
                              "water_works": 1, "grocers": 1}
    act(st, "place", "coffee_house")                     # new stack (the only place), nothing expended
    assert seat(st, 0)["money"] == 5 and display_rows(st) == ([], [])
    act(st, "place", "st_pauls")                         # not on the Coffee House (LN-29): a new stack
    assert display_rows(st)[0] == ["water_works"]
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (5, 1)
    act(st, "place", "east_india_company")               # expends Grocers; then only "done" is left
    s = seat(st, 0)
    assert (s["money"], s["loans"]) == (1, 1)
    assert s["hand"] == {"paupers_a": 1}
    assert [[c["card"] for c in stack] for stack in s["stacks"]] == [["coffee_house"], ["st_pauls"],
                                                                      ["east_india_company"]]
    assert display_rows(st) == (["grocers", "water_works"], [])
    assert discard_pile(st) == {"huguenots": 1}
    assert sum(raw(st)["deck"]) == deck_before - 2
    assert raw(st)["active"] == 1 and phase(st) == "source"     # "done" was the only choice (LN-90)


def test_w1_east_india_company_first_gives_the_same_result():
    """LN-W1's last remark (LN-22): paying the East India Company before St Paul's."""
    st = _w1_start()
    act(st, "play_cards")
    act(st, "use", "huguenots")
    draw(st, "water_works")
    draw(st, "grocers")
    act(st, "place", "coffee_house")
    act(st, "place", "east_india_company")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (1, 0)
    act(st, "place", "st_pauls")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (1, 1)


# ------------------------------------------------------------------ LN-W2

def test_w2_run_city_with_the_hospital():
    """LN-W2 (LN-36 to LN-46): five activations, the Hospital keeps the first card face up."""
    st = position(players=2, stacks={0: [["east_india_company"], ["woolwich_arsenal"], ["coffee_house"],
                                         ["british_museum"], ["hospital_a"]]},
                  hands={0: ["paupers_a", "salters"]}, money={0: 5}, poverty={0: 5}, boroughs={"hackney": 0},
                  display_top=["almshouses", "grocers"])
    act(st, "run_city")
    assert labels(st) == {"activate east_india_company", "activate woolwich_arsenal", "activate coffee_house",
                          "activate british_museum"}          # no Hospital, no "done" yet (LN-36, LN-43)
    act(st, "activate", "east_india_company")
    assert labels(st) == {"expend paupers_a", "expend salters"}
    act(st, "expend", "paupers_a")
    assert display_rows(st)[0] == ["almshouses", "grocers", "paupers_a"]
    assert seat(st, 0)["money"] == 17
    act(st, "activate", "woolwich_arsenal")
    assert (seat(st, 0)["money"], seat(st, 0)["vp"]) == (10, 5)
    act(st, "activate", "coffee_house")
    assert labels(st) == {"coffee_top almshouses", "coffee_top salters"}   # Grocers is of Salters' kind
    act(st, "coffee_top", "almshouses")
    assert display_rows(st)[0] == ["grocers", "paupers_a"]
    assert len(seat(st, 0)["stacks"]) == 5 and seat(st, 0)["money"] == 10
    assert "activate coffee_house" not in labels(st)     # covered now
    act(st, "activate", "almshouses")                    # placed during the run, activated later (LN-40)
    assert seat(st, 0)["poverty"] == 3
    act(st, "activate", "british_museum")
    assert (seat(st, 0)["vp"], seat(st, 0)["poverty"]) == (6, 2)
    # Nothing is left to activate, so "done" was the only choice and is taken (LN-90): the flip
    # step asks about the Hospital, and nothing has been flipped yet (LN-41).
    assert phase(st) == "hospital"
    assert all("down" not in t for t in tops(st, 0))
    assert labels(st) == {"stop", "keep east_india_company", "keep woolwich_arsenal", "keep almshouses"}
    act(st, "keep", "east_india_company")
    s = seat(st, 0)
    assert tops(st, 0) == ["east_india_company", "woolwich_arsenal:down", "almshouses:down",
                           "british_museum", "hospital_a:down"]
    assert s["stacks"][2][0] == {"card": "coffee_house", "down": False, "covered": True, "now": False, "money": 0}
    assert (s["money"], s["vp"], s["poverty"]) == (10, 6, 7)    # poverty 2 + 5 stacks + 1 card - 1 borough
    assert s["hand"] == {"salters": 1}
    # On a later Run City the East India Company (kept face up) can be activated again.
    later = with_fields(st, active=0, phase=E.PHASES.index("action"))
    act(later, "run_city")
    assert "activate east_india_company" in labels(later)


# ------------------------------------------------------------------ LN-W3

def test_w3_a_single_activation_west_india_docks():
    """LN-W3 (LN-37, LN-41): expend any card, +£7, flipped after "done"."""
    st = position(players=2, stacks={0: [["west_india_docks"]]}, hands={0: ["paupers_b"]}, money={0: 0})
    act(st, "run_city")                                  # activation, cost and "done" are all forced
    s = seat(st, 0)
    assert s["money"] == 7 and s["hand_n"] == 0
    assert tops(st, 0) == ["west_india_docks:down"]
    empty = position(players=2, stacks={0: [["west_india_docks"]]}, money={0: 0})
    assert "run_city" not in labels(empty)


# ------------------------------------------------------------------ LN-W4

def test_w4_the_underground():
    """LN-W4 (LN-66 to LN-69): the first counter across the bridge is free, red pays £3 to cross."""
    owners = {"southwark_bermondsey": 0, "deptford": 0, "city": 1, "westminster": 1,
              "bethnal_green_stepney_poplar": 2}
    st = position(players=3, active=0, stacks={0: [["underground"]]}, hands={0: ["paupers_a"]},
                  boroughs=owners, money={0: 5, 1: 5, 2: 5})
    act(st, "run_city")                                  # the only activation, the only card to expend
    assert seat(st, 0)["vp"] == 4
    assert labels(st) == {"counter city", "counter westminster", "counter bethnal_green_stepney_poplar",
                          "counter southwark_bermondsey"}
    act(st, "counter", "southwark_bermondsey")
    assert seat(st, 0)["money"] == 5                     # the first counter of the game is free (LN-68)
    assert labels(st) == {"counter deptford", "counter city"}
    act(st, "counter", "deptford")
    assert seat(st, 0)["money"] == 5
    r = raw(st)
    assert r["underground_left"] == 8
    # Later red activates an Underground.
    red = position(players=3, active=1, stacks={1: [["underground"]]}, hands={1: ["paupers_b"]},
                   boroughs=owners, money={0: 5, 1: 5, 2: 5}, underground=("southwark_bermondsey", "deptford"))
    act(red, "run_city")                                 # City is the only legal borough: placed at once
    assert raw(red)["underground"][E.BOROUGH_INDEX["city"]] == 1
    assert seat(red, 1)["money"] == 2 and seat(red, 1)["vp"] == 4
    assert labels(red) == {"counter westminster", "counter bethnal_green_stepney_poplar"}
    act(red, "counter", "westminster")
    assert seat(red, 1)["money"] == 2
    assert raw(red)["underground_left"] == 6
    # At the end: +2 per borough with an Underground counter to its building counter's owner (LN-69).
    end = position(players=3, active=0, phase="action", boroughs=owners, money={0: 0, 1: 0, 2: 0},
                   underground=("southwark_bermondsey", "deptford", "city", "westminster"), deck=[],
                   last_round=True, turns_left=1)
    act(end, "take_three")
    assert end.is_terminal()
    assert raw(end)["final_vp"][:3] == [4 + 2 + 2 + 2, 6 + 2 + 6 + 2, 3]


# ------------------------------------------------------------------ LN-W5

def test_w5_buy_land():
    """LN-W5 (LN-22, LN-71, LN-72): the three starting boroughs, then neighbours of occupied ones."""
    st = position(players=3, active=0, money={0: 5, 1: 5, 2: 5})
    act(st, "buy_land")
    assert labels(st) == {"buy city", "buy westminster", "buy southwark_bermondsey"}
    act(st, "buy", "city")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (7, 1)
    st.resolve_chance(1)                                 # red's 4 cards, then blue's turn card
    assert seat(st, 0)["hand_n"] == 4 and raw(st)["active"] == 1
    act(st, "buy_land")
    assert labels(st) == {"buy westminster", "buy st_marylebone", "buy st_pancras",
                          "buy islington_stoke_newington", "buy hackney", "buy bethnal_green_stepney_poplar",
                          "buy southwark_bermondsey"}
    act(st, "buy", "st_pancras")
    assert (seat(st, 1)["money"], seat(st, 1)["loans"]) == (0, 0)
    st.resolve_chance(2)
    assert seat(st, 1)["hand_n"] == 1 + 3 and raw(st)["active"] == 2
    act(st, "buy_land")
    assert labels(st) == {"buy westminster", "buy st_marylebone", "buy islington_stoke_newington",
                          "buy hackney", "buy bethnal_green_stepney_poplar", "buy southwark_bermondsey",
                          "buy hampstead"}
    act(st, "buy", "southwark_bermondsey")
    st.resolve_chance(3)
    assert (seat(st, 2)["money"], seat(st, 2)["hand_n"]) == (0, 1 + 4)
    assert seat(st, 2)["boroughs"] == {"southwark_bermondsey"}


# ------------------------------------------------------------------ LN-W6

def test_w6_the_card_display():
    """LN-W6: fill the bottom row (LN-19), shift when both are full (LN-20), refill the top row first;
    a card taken leaves its space free for the next (LN-21)."""
    # a..h: almshouses, covent_garden, mercers, theatre_royal, great_fire_monument, vauxhall_gardens,
    # woolwich_arsenal, water_works.  Seat 0 cuts f and g at the hand limit (expending to the Display).
    filler = ["paupers_c"] * 5 + ["paupers_b"] * 4
    st = position(players=2, active=0, phase="cut", hands={0: ["vauxhall_gardens", "woolwich_arsenal"] + filler,
                                                           1: ["school_a_blue", "water_works"]},
                  display_top=["almshouses", "covent_garden", "mercers"],
                  display_bottom=["theatre_royal", "great_fire_monument"])
    act(st, "cut", "vauxhall_gardens")
    assert display_rows(st) == (["almshouses", "covent_garden", "mercers"],
                                ["great_fire_monument", "theatre_royal", "vauxhall_gardens"])
    act(st, "cut", "woolwich_arsenal")
    assert display_rows(st) == (["great_fire_monument", "theatre_royal", "vauxhall_gardens"], ["woolwich_arsenal"])
    assert discard_pile(st) == {"almshouses": 1, "covent_garden": 1, "mercers": 1}
    # Seat 1's turn: it takes e from the top row, then expends h in Play Cards.
    assert raw(st)["active"] == 1
    act(st, "take_top", "great_fire_monument")
    assert display_rows(st) == (["theatre_royal", "vauxhall_gardens"], ["woolwich_arsenal"])
    act(st, "play_cards")
    act(st, "place", "school_a_blue")                    # expends Water Works, the only other blue
    assert display_rows(st) == (["theatre_royal", "vauxhall_gardens", "water_works"], ["woolwich_arsenal"])
    assert total_cards(st) == 110


# ------------------------------------------------------------------ LN-W7

@pytest.mark.parametrize("stacks,left", [([], 2), ([["bank_of_england"]], 4)])
def test_w7_loans_for_the_active_player(stacks, left):
    """LN-W7 (LN-22, LN-24): the same shortfall as "£5 and a £13 payment" (£8): one loan, £2 left;
    £4 with a face-up Bank of England."""
    st = position(players=2, hands={0: ["st_pauls", "water_works"]}, money={0: 2}, stacks={0: stacks})
    act(st, "play_cards")
    act(st, "place", "st_pauls")                         # £10 with £2
    if stacks:
        act(st, "new_stack")
    assert (seat(st, 0)["money"], seat(st, 0)["loans"]) == (left, 1)


@pytest.mark.parametrize("bank,left", [(False, 0), (True, 4)])
def test_w7_loans_for_two_loans(bank, left):
    """LN-W7 (LN-22, LN-24): a payment £20 beyond the purse (£5 and £25 in the example) takes two
    loans and leaves £0; with Bank of England £4.  The payment here is Fire Brigade's £1 per borough
    owed by a seat with £0 holding 20 boroughs (only the amount matters)."""
    every = {b: 1 for b in E.BOROUGH_IDS}
    st = position(players=2, stacks={0: [["fire_brigade"]], 1: [["bank_of_england"]] if bank else []},
                  boroughs=every, money={1: 0})
    act(st, "run_city")
    assert (seat(st, 1)["money"], seat(st, 1)["loans"]) == (left, 2)


def test_w7_loans_forced_by_lloyds_and_fire_brigade():
    """LN-W7 (LN-23, LN-59, LN-60): an opponent with £1 owes £2 to Lloyds: one loan, £9 left, the
    active player +£2; with £0 and three boroughs, Fire Brigade leaves £7."""
    st = position(players=2, stacks={0: [["lloyds_of_london"]]}, money={0: 5, 1: 1})
    act(st, "run_city")
    assert (seat(st, 1)["money"], seat(st, 1)["loans"]) == (9, 1)
    assert seat(st, 0)["money"] == 7
    st = position(players=2, stacks={0: [["fire_brigade"]]}, money={1: 0},
                  boroughs={"hackney": 1, "city": 1, "islington_stoke_newington": 1})
    act(st, "run_city")
    assert (seat(st, 1)["money"], seat(st, 1)["loans"]) == (7, 1)


# ------------------------------------------------------------------ LN-W8

def test_w8_the_last_round():
    """LN-W8 (LN-74): the deck's last card is taken by Take Three; the other seat plays once more."""
    st = position(players=2, active=1, phase="source", deck=["sewers", "paupers_c"],
                  display_top=["grocers", "mercers", "almshouses"], draw_for=0, draws_left=1, draws_min=1)
    act(st, "deck")
    draw(st, "sewers")                                   # the turn's card: 1 left in the deck
    assert raw(st)["last_round"] == 0
    act(st, "take_three")
    act(st, "deck")
    draw(st, "paupers_c")                                # the deck's last card
    assert raw(st)["last_round"] == 1
    assert "deck" not in labels(st)
    act(st, "take_top", "mercers")
    act(st, "take_top", "almshouses")                   # seat 1 ends its turn
    assert raw(st)["active"] == 0
    assert hand_of(st, 0) == {"grocers": 1}             # its turn's card: the only one left, taken at once
    act(st, "take_three")                                # nothing left to take
    assert st.is_terminal()
    assert raw(st)["turns"] == 2


# ------------------------------------------------------------------ LN-W9 to LN-W11

def test_w9_scoring():
    """LN-W9 (LN-76 to LN-80): loans repaid, hand cards to poverty, VP, the poverty adjustment."""
    st = scored(3, money={0: 20, 1: 7, 2: 31}, loans={0: 1, 1: 2, 2: 2}, poverty={0: 6, 1: 3, 2: 4},
                vp={0: 9, 1: 12, 2: 5}, hands={0: ["paupers_a", "paupers_b"], 2: ["paupers_c"]},
                boroughs={"city": 0, "hackney": 0, "westminster": 1, "southwark_bermondsey": 2, "lambeth": 2},
                underground=("city",),
                stacks={0: [["st_pauls"], ["buckingham_palace"], ["water_works:down"]],          # 14 VP
                        1: [["nelsons_column"], ["great_fire_monument"], ["lords:down"]],       # 10 VP
                        2: [["tower_bridge:down"], ["thames_embankment:down"], ["kew_gardens:down"]]})  # 12
    r = raw(st)
    assert r["final_poverty"][:3] == [8, 3, 5]
    assert r["final_vp"][:3] == [34 - 5, 16 - 0, 24 - 1]
    assert st.returns() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("case", [
    # A (seat 0) and B (seat 1): boroughs, Building Display, VP counters, poverty, returns
    ("fewest poverty", ["hackney"], [["buckingham_palace"]], 11, 4,
     ["greenwich"], [["st_pauls"]], 13, 6, [1.0, 0.0]),
    ("most boroughs", ["hackney", "lewisham"], [["st_pauls"]], 10, 5,
     ["greenwich"], [["nelsons_column"]], 13, 5, [1.0, 0.0]),
    ("highest card", ["hackney"], [["buckingham_palace", "salters"]], 11, 2,
     ["greenwich"], [["st_pauls"], ["water_works"]], 11, 2, [1.0, 0.0]),
    ("still tied", ["hackney"], [["nelsons_column"]], 13, 3,
     ["greenwich"], [["parliament"]], 13, 3, [1.0, 1.0]),
], ids=lambda c: c[0])
def test_w10_tie_breaks(case):
    """LN-W10 (LN-81): both at 20 VP; fewest poverty, most boroughs, highest card, then a shared win."""
    _, a_b, a_stacks, a_vp, a_pov, b_b, b_stacks, b_vp, b_pov, returns = case
    boroughs = {**{b: 0 for b in a_b}, **{b: 1 for b in b_b}}
    st = scored(2, boroughs=boroughs, stacks={0: a_stacks, 1: b_stacks}, vp={0: a_vp, 1: b_vp},
                poverty={0: a_pov, 1: b_pov})
    assert raw(st)["final_vp"][:2] == [20, 20]
    assert st.returns() == returns


def test_w11_the_poverty_table():
    """LN-W11 (LN-11, LN-79): VP lost for the poverty left after the adjustment."""
    table = {0: 0, 1: 1, 2: 1, 3: 2, 4: 3, 5: 5, 10: 15, 11: 18, 20: 45}
    assert {p: E.poverty_penalty_of(p) for p in table} == table
    with pytest.raises(ValueError, match="points"):
        E.poverty_penalty_of(-1)
