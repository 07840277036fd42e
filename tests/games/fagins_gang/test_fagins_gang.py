"""Fagin's Gang rule cases (seeds/fagins_gang.md), each citing its ruling.

Positions are built as descriptions through the validating constructor:
`position()` starts from a real game after the set-up dice and changes what a
case needs, keeping every cube in one place (the warehouses take the rest).
"""
from __future__ import annotations

import copy
import random

import pytest

from fagin.engines import load_game, new_game
from fagin.engines.fagins_gang import engine as E
from fagin.engines.fagins_gang import actions as A

from ...positions import named_ids

GAME = load_game("fagins_gang")
BLUE, PURPLE, GREEN, YELLOW, BLACK, RED = range(6)
PAT, HAT, COV, CLE, MAY, PET = range(6)      # locations, in colour order (FG-7)
A_MOVE, A_STEAL, A_SHILL, A_MARKET, DONE = 0, 1, 2, 3, 4


def move_id(loc, j):
    return 5 + 57 * loc + j


def enter(loc):
    return move_id(loc, 0)


def climb(loc, space, to):
    """The urchin on `space` of `loc` moves to space `to` (up or down)."""
    return move_id(loc, 1 + 8 * space + to)


def up(loc, space):
    """One space up; from the top, home."""
    return move_id(loc, 1 + 8 * space + (7 if space == 6 else space + 1))


def down(loc, space):
    """One space down; from the street, back to the den."""
    return move_id(loc, 1 + 8 * space + (7 if space == 0 else space - 1))


def steal(loc, space):
    return 347 + 7 * loc + space


def shill(loc, space):
    return 389 + 7 * loc + space


def white(c):
    return 431 + c


def pay(c):
    return 437 + c


def pick(c):
    return 443 + c


def sell(c):
    return 449 + c


def buy(c):
    return 455 + c


def die(n):
    return 461 + n - 1


def goods(**kw):
    names = ["blue", "purple", "green", "yellow", "black", "red"]
    return [kw.get(n, 0) for n in names]


def position(players=2, urchins=(), hands=None, shillings=None, constables=None, warehouses=None,
             stalls=None, wheel=0, active=0, home=None, phase="choose", **extra):
    """A description in phase choose of round 1 (seat `active` to act), changed as asked.
    `urchins`: (seat, location, space); `hands`: {seat: goods list}; constables default to
    the top facing down, out of the way; the warehouses take every cube not placed."""
    d = new_game("fagins_gang", players, seed=1).describe()
    d["urchins"] = [{"seat": s, "location": L, "space": sp} for s, L, sp in urchins]
    # Constables out of the way: the highest space no urchin of the case stands on.
    d["constables"] = [{"space": max(sp for sp in range(7) if (L, sp) not in {(u[1], u[2]) for u in urchins}),
                        "facing_up": False} for L in range(6)]
    for L, (sp, upwards) in (constables or {}).items():
        d["constables"][L] = {"space": sp, "facing_up": upwards}
    d["wheel"] = wheel
    d["active_player"] = active
    d["turns_done"] = active
    home = home or {}
    for p, seat in enumerate(d["seats"]):
        seat["goods"] = list((hands or {}).get(p, [0] * 6))
        seat["shillings"] = (shillings or {}).get(p, 20)
        seat["home"] = home.get(p, 0)
        seat["den"] = 5 - seat["home"] - sum(1 for u in urchins if u[0] == p)
    stock = {2: 15, 3: 15, 4: 20, 5: 25, 6: 30}[players]
    d["stalls"] = list(stalls if stalls is not None else [0] * 6)
    if warehouses is not None:
        d["warehouses"] = list(warehouses)
        # the cubes not placed anywhere lie on the stalls
        for c in range(6):
            d["stalls"][c] = stock - d["warehouses"][c] - sum(s["goods"][c] for s in d["seats"])
    else:
        d["warehouses"] = [stock - d["stalls"][c] - sum(s["goods"][c] for s in d["seats"]) for c in range(6)]
    d["phase"] = phase
    d.update(extra)
    return GAME.from_description(d)


def play(state, *actions):
    for a in actions:
        legal = state.legal_actions()
        assert a in legal, f"{A.action_label(a)} ({a}) not legal; legal: {[A.action_label(x) for x in legal]}"
        state.apply(a)
    return state


def hand(state, seat):
    return state.describe()["seats"][seat]["goods"]


def seat_of(state, seat):
    return state.describe()["seats"][seat]


# ------------------------------------------------------------------ FG-1, FG-2

def test_fg1_one_action_and_no_mixing():
    """FG-1: the four actions are a choice of their own; after b only b's steps are offered."""
    st = position(urchins=[(0, CLE, 1), (0, MAY, 2)], hands={0: goods(yellow=1)})
    assert st.legal_actions() == [A_MOVE, A_STEAL, A_SHILL, A_MARKET]
    play(st, A_STEAL)
    legal = st.legal_actions()
    assert all(347 <= a < 389 or 437 <= a < 443 for a in legal), legal     # steals and exchanges only
    assert steal(CLE, 1) in legal and steal(MAY, 2) in legal


def test_fg1_market_is_always_open_and_only_possible_actions_offered():
    """FG-1, FG-2: with no urchin out and no goods, only a (enter is unaffordable: no cube) ... d."""
    st = position(hands={0: [0] * 6})
    assert st.legal_actions() == [A_MARKET]


def test_fg2_three_locations_at_most_and_done():
    """FG-2: steps at different locations; done after one; the third step ends the action."""
    st = position(urchins=[(0, PAT, 2), (0, HAT, 2), (0, COV, 2), (0, CLE, 2)])
    play(st, A_SHILL)
    assert DONE not in st.legal_actions()        # at least one step
    play(st, shill(PAT, 2))
    assert DONE in st.legal_actions() and shill(PAT, 2) not in st.legal_actions()
    play(st, shill(HAT, 2), shill(COV, 2))
    d = st.describe()
    assert d["active_player"] == 1 and d["phase"] == "choose"       # ended by itself
    assert seat_of(st, 0)["shillings"] == 20 + 3 * 1                # level 1 pays 1 (FG-22)


def test_fg2_action_ends_when_no_step_is_left():
    """FG-2: a single usable urchin: the action ends after its one step."""
    st = position(urchins=[(0, PAT, 2)])
    play(st, A_SHILL, shill(PAT, 2))
    assert st.describe()["active_player"] == 1


# ------------------------------------------------------------- FG-3, FG-4, FG-5: option b

def test_fg3_worked_example_level_4_of_the_yellow_track():
    """FG-3, FG-8: the rulebook's example: the urchin on level 4 of the yellow track steals
    2 blue + 2 black."""
    st = position(urchins=[(0, CLE, 5)])
    play(st, A_STEAL, steal(CLE, 5))
    assert hand(st, 0) == goods(blue=2, black=2)


def test_fg4_worked_example_level_0_white_hands_any_colours_including_yellow():
    """FG-4, FG-8: the rulebook's example: level 0 of the yellow track gives four cubes of
    any four colours, yellow included."""
    st = position(urchins=[(0, CLE, 1)])
    play(st, A_STEAL, steal(CLE, 1))
    assert st.describe()["phase"] == "white_hand" and st.describe()["white_hands_left"] == 4
    play(st, white(GREEN), white(YELLOW), white(YELLOW), white(RED))
    assert hand(st, 0) == goods(green=1, yellow=2, red=1)


def test_fg4_white_hands_named_in_ascending_order():
    """FG-4: one action per multiset: after naming yellow, lower colours are not offered."""
    st = position(urchins=[(0, CLE, 1)])
    play(st, A_STEAL, steal(CLE, 1), white(YELLOW))
    assert st.legal_actions() == [white(YELLOW), white(BLACK), white(RED)]


def _b_state():
    # Three urchins on levels with fixed goods and one with white hands; five cubes in hand.
    return position(urchins=[(0, PAT, 2), (0, HAT, 5), (0, COV, 3), (0, CLE, 3)],
                    hands={0: goods(blue=2, purple=1, red=6)})


def test_fg4_three_steals():
    """FG-3, FG-4: option b as three steals at three locations."""
    st = _b_state()
    play(st, A_STEAL, steal(PAT, 2), steal(HAT, 5), steal(COV, 3), white(RED))
    # Paternoster level 1: 2 blue + 1 green; Hatton level 4: 2 green + 2 black; Covent level 2:
    # green, yellow + a white hand (red)
    assert hand(st, 0) == goods(blue=4, purple=1, green=4, yellow=1, black=2, red=7)
    assert st.describe()["active_player"] == 1


@pytest.mark.parametrize("order", ["swap_first", "swap_middle", "swap_last"])
def test_fg4_two_steals_and_one_exchange_in_any_order(order):
    """FG-4: two steals and one exchange of any three cubes for one of choice, in any order."""
    st = _b_state()
    play(st, A_STEAL)
    swap = [pay(RED), pay(RED), pay(RED), pick(YELLOW)]
    steals = [[steal(PAT, 2)], [steal(HAT, 5)]]
    seq = {"swap_first": [swap] + steals, "swap_middle": [steals[0], swap, steals[1]],
           "swap_last": steals + [swap]}[order]
    for part in seq:
        play(st, *part)
    assert hand(st, 0) == goods(blue=4, purple=1, green=3, yellow=1, black=2, red=3)
    assert st.describe()["active_player"] == 1


def test_fg4_exchange_may_use_cubes_just_stolen():
    """FG-4: steal first, then exchange the stolen cubes (at another location with an urchin,
    here the street of Paternoster Row)."""
    st = position(urchins=[(0, HAT, 5), (0, PAT, 0)], hands={0: [0] * 6})
    play(st, A_STEAL, steal(HAT, 5))              # 2 green + 2 black
    play(st, pay(GREEN), pay(GREEN), pay(BLACK), pick(RED))
    assert hand(st, 0) == goods(black=1, red=1)


@pytest.mark.parametrize("steal_at", [0, 1, 2])
def test_fg4_one_steal_and_two_exchanges(steal_at):
    """FG-4: one steal and six cubes exchanged for two of choice, the steal first, between
    or last."""
    st = _b_state()
    parts = [[pay(BLUE), pay(BLUE), pay(PURPLE), pick(BLACK)], [pay(RED), pay(RED), pay(RED), pick(BLACK)]]
    parts.insert(steal_at, [steal(HAT, 5)])
    play(st, A_STEAL)
    for part in parts:
        play(st, *part)
    assert hand(st, 0) == goods(green=2, black=4, red=3)
    assert st.describe()["active_player"] == 1


def test_fg4_three_exchanges_nine_for_three():
    """FG-4: three exchanges: nine cubes for three of choice, at three locations with an urchin
    (the street counts)."""
    st = position(urchins=[(0, PAT, 2), (0, HAT, 0), (0, COV, 0)], hands={0: goods(red=9)})
    play(st, A_STEAL)
    for c in (BLUE, BLUE, YELLOW):
        play(st, pay(RED), pay(RED), pay(RED), pick(c))
    assert hand(st, 0) == goods(blue=2, yellow=1)
    assert st.describe()["active_player"] == 1


def test_fg4_an_exchange_is_made_at_a_location_instead_of_a_steal():
    """FG-4: "instead of stealing goods at a location": an exchange takes the place of a steal
    at a location where the seat has an urchin and uses it up. With no urchin on the board
    three exchanges (nine cubes for three) were allowed; now action b is not offered."""
    assert A_STEAL not in position(hands={0: goods(red=9)}).legal_actions()
    # One urchin, on a street (which offers no goods): one exchange, and the action is over.
    st = position(urchins=[(0, PAT, 0)], hands={0: goods(red=9)})
    play(st, A_STEAL, pay(RED), pay(RED), pay(RED), pick(BLUE))
    assert hand(st, 0) == goods(blue=1, red=6) and st.describe()["active_player"] == 1
    # One urchin on a level: a steal there or an exchange instead, not both.
    st = position(urchins=[(0, PAT, 2)], hands={0: goods(red=9)})
    play(st, A_STEAL, pay(RED), pay(RED), pay(RED), pick(BLUE))
    assert st.describe()["active_player"] == 1
    st = position(urchins=[(0, PAT, 2)], hands={0: goods(red=9)})
    play(st, A_STEAL, steal(PAT, 2))
    assert st.describe()["active_player"] == 1
    # A position with more exchanges than such locations is refused.
    kw = dict(urchins=[(0, PAT, 2), (0, HAT, 2)], hands={0: goods(red=9)}, action="steal_goods")
    assert position(phase="steps", steps_done=1, **kw).legal_actions()
    with pytest.raises(ValueError, match="^steps_done: 3 exchanges.*FG-4"):
        position(phase="exchange_pay", steps_done=2, exchange_paid=1, exchange_min="red", **kw)


def test_fg4_exchange_needs_three_cubes_and_pays_in_ascending_order():
    """FG-4: no exchange with two cubes; a colour is offered only if the exchange can finish."""
    st = position(urchins=[(0, PAT, 2)], hands={0: goods(blue=1, red=1)})
    play(st, A_STEAL)
    assert all(not 437 <= a < 443 for a in st.legal_actions())
    st = position(urchins=[(0, PAT, 2)], hands={0: goods(blue=1, green=1, red=1)})
    play(st, A_STEAL)
    assert [a for a in st.legal_actions() if 437 <= a < 443] == [pay(BLUE)]
    play(st, pay(BLUE))
    assert st.legal_actions() == [pay(GREEN)]


def test_fg4_exchanged_cubes_go_to_and_come_from_the_warehouses():
    """FG-4, FG-9: the three cubes go back to their warehouses, the chosen one leaves its own."""
    st = position(urchins=[(0, PAT, 2)], hands={0: goods(red=3)})
    before = st.describe()["warehouses"]
    play(st, A_STEAL, pay(RED), pay(RED), pay(RED), pick(BLUE))
    after = st.describe()["warehouses"]
    assert after[RED] == before[RED] + 3 and after[BLUE] == before[BLUE] - 1


def test_fg3_depleted_stock_gives_what_is_left():
    """FG-3: a short warehouse gives what it holds, an empty one nothing."""
    # Clerkenwell level 4 gives 2 blue + 2 black: one blue and no black left.
    st = position(urchins=[(0, CLE, 5)], warehouses=[1, 5, 5, 5, 0, 5])
    play(st, A_STEAL, steal(CLE, 5))
    assert hand(st, 0) == goods(blue=1)
    assert st.describe()["warehouses"][BLUE] == 0


def test_fg4_white_hands_with_depleted_stocks():
    """FG-3, FG-4: white hands take only colours in stock; with every warehouse empty the
    rest give nothing."""
    st = position(urchins=[(0, CLE, 1), (0, PAT, 2)], warehouses=[0, 0, 2, 0, 0, 0])
    play(st, A_STEAL, steal(CLE, 1))
    assert st.legal_actions() == [white(GREEN)]
    play(st, white(GREEN), white(GREEN))
    d = st.describe()
    assert hand(st, 0) == goods(green=2)
    assert d["phase"] == "steps" and d["white_hands_left"] == 0
    # The steal at Paternoster level 1 (2 blue + 1 green) takes nothing now, but is a legal step.
    play(st, steal(PAT, 2))
    assert hand(st, 0) == goods(green=2) and st.describe()["active_player"] == 1


def test_fg4_white_hand_lower_colour_when_higher_ones_run_out():
    """FG-4: the ascending order never costs a cube: with no stock at or above the last colour,
    lower colours are offered again."""
    st = position(urchins=[(0, CLE, 1)], warehouses=[3, 0, 0, 1, 0, 0])
    play(st, A_STEAL, steal(CLE, 1), white(YELLOW))
    assert st.legal_actions() == [white(BLUE)]
    play(st, white(BLUE), white(BLUE), white(BLUE))
    assert hand(st, 0) == goods(blue=3, yellow=1)


def test_fg5_street_offers_no_goods_but_most_shillings():
    """FG-5: no steal of goods at the street (an exchange there is possible, FG-4); it pays
    more shillings than any level (4 against at most 3, FG-8)."""
    st = position(urchins=[(0, PAT, 0)])
    assert A_STEAL not in st.legal_actions()
    play(st, A_SHILL, shill(PAT, 0))
    assert seat_of(st, 0)["shillings"] == 24
    board = E.BOARD["locations"]
    assert all(loc["spaces"][0]["shillings"] == 4 and max(s["shillings"] for s in loc["spaces"][1:]) == 3
               for loc in board)
    # level 0 pays no shillings: no step of c there
    st = position(urchins=[(0, PAT, 1)])
    assert A_SHILL not in st.legal_actions()


# ------------------------------------------------------------------ components

def test_fg6_setup_stocks_shillings_and_starting_goods():
    """FG-6: stocks by player count, two cubes per stall, 20 shillings, two cubes of each colour."""
    for players, stock in ((2, 15), (3, 15), (4, 20), (5, 25), (6, 30)):
        d = new_game("fagins_gang", players, seed=2).describe()
        for c in range(6):
            assert d["warehouses"][c] + d["stalls"][c] + sum(s["goods"][c] for s in d["seats"]) == stock
        assert d["stalls"] == [2] * 6
        assert all(s["shillings"] == 20 and s["goods"] == [2] * 6 and s["den"] == 5 for s in d["seats"])


def test_fg7_fg8_board_data():
    """FG-7, FG-8: six locations in colour order, seven spaces, level 0 all white hands."""
    locs = E.BOARD["locations"]
    assert [loc["colour"] for loc in locs] == E.COLOURS
    for loc in locs:
        assert [s["level"] for s in loc["spaces"]] == ["street", 0, 1, 2, 3, 4, 5]
        assert loc["spaces"][1]["white"] == 4


def test_fg8_street_holds_many_urchins():
    """FG-8: entering a street where rivals stand knocks nobody out."""
    st = position(urchins=[(1, PAT, 0), (1, PAT, 0)], hands={0: goods(blue=1)})
    play(st, A_MOVE, enter(PAT))
    us = st.describe()["urchins"]
    assert sorted((u["seat"], u["space"]) for u in us if u["location"] == PAT) == [(0, 0), (1, 0), (1, 0)]


# ------------------------------------------------------------------ action a

def test_fg10_entering_costs_the_street_cube():
    """FG-10: an urchin from the den onto the street, paying one cube of the location's colour."""
    st = position(hands={0: goods(yellow=1)})
    play(st, A_MOVE, enter(CLE))
    assert hand(st, 0) == [0] * 6 and seat_of(st, 0)["den"] == 4
    assert {"seat": 0, "location": CLE, "space": 0} in st.describe()["urchins"]
    st = position(hands={0: goods(blue=1)})
    play(st, A_MOVE)
    assert st.legal_actions() == [enter(PAT)]        # no yellow: no entry at Clerkenwell


def test_fg11_down_is_free_and_the_street_leads_to_the_den():
    """FG-11: down one space for nothing; down from the street: back to the den."""
    st = position(urchins=[(0, CLE, 3), (0, MAY, 0)], hands={0: [0] * 6})
    play(st, A_MOVE, down(CLE, 3), down(MAY, 0))
    d = st.describe()
    assert {"seat": 0, "location": CLE, "space": 2} in d["urchins"]
    assert seat_of(st, 0)["den"] == 4 and hand(st, 0) == [0] * 6


def test_fg12_up_costs_the_space_reached():
    """FG-12: up from level 1 to level 2 of Clerkenwell costs 1 red (FG-8)."""
    st = position(urchins=[(0, CLE, 2)], hands={0: goods(red=1, black=1)})
    play(st, A_MOVE, up(CLE, 2))
    assert hand(st, 0) == goods(black=1)
    st = position(urchins=[(0, CLE, 2)], hands={0: goods(black=1)})
    play(st, A_MOVE)
    assert down(CLE, 2) in st.legal_actions() and up(CLE, 2) not in st.legal_actions()   # down is free


def test_fg13_constable_pushes_past_and_blocks_at_the_end():
    """FG-13: moving onto the constable's space lands one further (paying for that space);
    a push off the track is not allowed."""
    st = position(urchins=[(0, CLE, 2)], constables={CLE: (3, True)}, hands={0: goods(blue=1)})
    play(st, A_MOVE)
    assert climb(CLE, 2, 3) not in st.legal_actions()      # never onto the constable
    play(st, climb(CLE, 2, 4))                   # past level 2 to level 3, paying only its blue
    assert {"seat": 0, "location": CLE, "space": 4} in st.describe()["urchins"]
    assert hand(st, 0) == [0] * 6
    st = position(urchins=[(0, CLE, 5)], constables={CLE: (6, False)}, hands={0: [2] * 6})
    play(st, A_MOVE)
    assert up(CLE, 5) not in st.legal_actions()
    st = position(hands={0: goods(yellow=2)}, constables={CLE: (0, False)})
    play(st, A_MOVE, enter(CLE))                 # the street is watched: the urchin lands on level 0
    assert {"seat": 0, "location": CLE, "space": 1} in st.describe()["urchins"]


def test_fg14_knock_out_and_never_onto_own():
    """FG-14: landing on a rival's urchin knocks it down to the street (to the den if the
    constable stands there); never onto one's own."""
    st = position(urchins=[(0, CLE, 2), (1, CLE, 3)], hands={0: goods(red=1)})
    play(st, A_MOVE, up(CLE, 2))
    d = st.describe()
    assert {"seat": 0, "location": CLE, "space": 3} in d["urchins"]
    assert {"seat": 1, "location": CLE, "space": 0} in d["urchins"] and seat_of(st, 1)["den"] == 4
    st = position(urchins=[(0, CLE, 2), (1, CLE, 3)], hands={0: goods(red=1)}, constables={CLE: (0, True)})
    play(st, A_MOVE, up(CLE, 2))
    assert seat_of(st, 1)["den"] == 5
    st = position(urchins=[(0, CLE, 2), (0, CLE, 3)], hands={0: goods(red=1, blue=1)})
    play(st, A_MOVE)
    assert up(CLE, 2) not in st.legal_actions() and up(CLE, 3) in st.legal_actions()


def test_fg12_climb_several_spaces_paying_each():
    """FG-12: one step may climb several spaces, paying every space entered; FG-13: the
    constable's space is passed for free; FG-14: urchins passed over are not touched."""
    # Clerkenwell: level 1 costs black, level 2 red, level 3 blue.
    st = position(urchins=[(0, CLE, 1), (1, CLE, 3)], hands={0: goods(black=1, red=1, blue=1)})
    play(st, A_MOVE)
    legal = st.legal_actions()
    assert climb(CLE, 1, 4) in legal and climb(CLE, 1, 5) not in legal      # no purple for level 4
    play(st, climb(CLE, 1, 4))
    d = st.describe()
    assert {"seat": 0, "location": CLE, "space": 4} in d["urchins"] and hand(st, 0) == [0] * 6
    assert {"seat": 1, "location": CLE, "space": 3} in d["urchins"]
    st = position(urchins=[(0, CLE, 1)], constables={CLE: (3, False)}, hands={0: goods(black=1, blue=1)})
    play(st, A_MOVE, climb(CLE, 1, 4))           # level 1 (black), past level 2, level 3 (blue)
    assert hand(st, 0) == [0] * 6


def test_fg11_down_only_one_space():
    """FG-11: down is one space (two past a constable), never further."""
    st = position(urchins=[(0, CLE, 5)])
    play(st, A_MOVE)
    assert climb(CLE, 5, 4) in st.legal_actions() and climb(CLE, 5, 3) not in st.legal_actions()


def test_fg15_home_to_fagin():
    """FG-15: from level 5, 15 shillings and the return goods (yellow + green at Clerkenwell)."""
    st = position(urchins=[(0, CLE, 6)], hands={0: goods(green=1, yellow=1, red=1)}, shillings={0: 16})
    play(st, A_MOVE, up(CLE, 6))
    s0 = seat_of(st, 0)
    assert s0["home"] == 1 and s0["shillings"] == 1 and s0["goods"] == goods(red=1)
    assert not st.describe()["urchins"]
    st = position(urchins=[(0, CLE, 6)], hands={0: goods(green=1, yellow=1)}, shillings={0: 14})
    play(st, A_MOVE)
    assert up(CLE, 6) not in st.legal_actions()          # 14 shillings: not home yet


# ------------------------------------------------------------------ c, market, constables, rounds

def test_fg22_steal_shillings_by_level():
    """FG-22: shillings from the bank by level: street 4, level 3 pays 2, level 5 pays 3 (FG-8)."""
    st = position(urchins=[(0, PAT, 0), (0, HAT, 4), (0, COV, 6)])
    play(st, A_SHILL, shill(PAT, 0), shill(HAT, 4), shill(COV, 6))
    assert seat_of(st, 0)["shillings"] == 20 + 4 + 2 + 3


def test_fg16_prices_follow_the_wheel():
    """FG-16: colour i sells at ring[(i + wheel) mod 6]."""
    ring = E.BOARD["price_ring"]
    for w in range(6):
        assert position(wheel=w).describe()["prices"] == [ring[(i + w) % 6] for i in range(6)]


def test_fg17_fg18_market_visit():
    """FG-17, FG-18: the caller trades first with the coin's extra shilling per cube, then the
    others clockwise; sales before purchases at price + 2; then the wheel turns (a die)."""
    ring, coin, margin = E.BOARD["price_ring"], E.BOARD["market_coin_bonus"], E.BOARD["buy_margin"]
    blue = ring[0] + margin                          # a blue's purchase price at wheel 0
    st = position(players=3, active=1, wheel=0, hands={0: goods(red=1), 1: goods(blue=2), 2: [0] * 6},
                  shillings={2: blue})
    play(st, A_MARKET)
    d = st.describe()
    assert d["market_seat"] == 1 and d["market_caller"] == 1
    play(st, sell(BLUE), sell(BLUE))                 # blue at its price + the coin, twice
    assert seat_of(st, 1)["shillings"] == 20 + 2 * (ring[0] + coin)
    play(st, DONE)
    d = st.describe()
    assert d["market_seat"] == 2                     # seat 2 can pay for exactly one blue
    assert st.legal_actions() == [DONE, buy(BLUE)]
    play(st, buy(BLUE))
    assert seat_of(st, 2)["shillings"] == 0 and hand(st, 2) == goods(blue=1)
    d = st.describe()
    assert d["market_seat"] == 0                     # seat 2 could trade no more: passed on
    play(st, sell(RED), DONE)                        # red at ring[5], no coin
    assert seat_of(st, 0)["shillings"] == 20 + ring[5]
    assert st.is_chance_node() and st.describe()["phase"] == "wheel"
    st.apply(die(3))
    d = st.describe()
    assert d["wheel"] == 3 and d["active_player"] == 2 and d["phase"] == "choose"


def test_fg18_no_selling_after_buying_and_limits():
    """FG-18: once buying, no more selling; at most 6 sold and 3 bought."""
    st = position(active=0, hands={0: goods(red=8)}, shillings={0: 100}, stalls=[5, 0, 0, 0, 0, 0],
                  warehouses=None)
    play(st, A_MARKET)
    for _ in range(6):
        play(st, sell(RED))
    assert sell(RED) not in st.legal_actions()
    play(st, buy(BLUE))
    assert all(not 449 <= a < 455 for a in st.legal_actions())
    play(st, buy(BLUE), buy(BLUE))
    assert st.describe()["market_seat"] == 1 or st.is_chance_node()


def test_fg19_constable_setup_dice():
    """FG-19: odd from the street upwards, even from the top downwards."""
    st = GAME.new_initial_state(2)
    for n in range(1, 7):
        st.apply(die(n))
    d = st.describe()
    assert [(c["space"], c["facing_up"]) for c in d["constables"]] == \
        [(1, True), (4, False), (3, True), (2, False), (5, True), (0, False)]
    st.apply(die(2))
    assert st.describe()["wheel"] == 2 and st.current_player() == 0


def test_fg20_patrol_catches_and_turns():
    """FG-20: the die names a location; its constable walks one space, catching an urchin;
    at the end of the track it turns round; on the street it catches every urchin."""
    st = position(urchins=[(1, CLE, 3)], constables={CLE: (2, True), PAT: (1, False)},
                  active=1, hands={1: [0] * 6})
    play(st, A_MOVE, climb(CLE, 3, 1))           # seat 1 (the last) moves down past the constable
    # down from level 2 (space 3): the constable on space 2 pushes it to space 1
    assert {"seat": 1, "location": CLE, "space": 1} in st.describe()["urchins"]
    assert st.describe()["phase"] == "patrol"
    st.apply(die(CLE + 1))
    d = st.describe()
    assert d["constables"][CLE] == {"space": 3, "facing_up": True}
    st = position(urchins=[(0, PAT, 0), (1, PAT, 0), (1, CLE, 6)], constables={PAT: (1, False), CLE: (5, True)},
                  active=1, turns_done=2, phase="patrol")
    st.apply(die(PAT + 1))
    assert st.describe()["constables"][PAT] == {"space": 0, "facing_up": False}
    assert [s["den"] for s in st.describe()["seats"]] == [5, 4]
    st = position(urchins=[(1, CLE, 5)], constables={CLE: (6, True)}, active=1, turns_done=2, phase="patrol")
    st.apply(die(CLE + 1))
    assert st.describe()["constables"][CLE] == {"space": 5, "facing_up": False}
    assert st.describe()["seats"][1]["den"] == 5


def test_fg21_start_player_coin_passes():
    """FG-21: after the patrol the coin moves one seat clockwise and its holder begins."""
    st = position(players=3, active=2, turns_done=3, phase="patrol")
    st.apply(die(1))
    d = st.describe()
    assert d["first_player"] == 1 and d["active_player"] == 1 and d["round"] == 1


def test_fg23_fg24_end_after_the_round_and_ranking():
    """FG-23: a third urchin home ends the game after the round; FG-24: most home, then
    most shillings."""
    st = position(players=3, urchins=[(0, CLE, 6)], hands={0: goods(green=1, yellow=1)}, shillings={0: 15},
                  home={0: 2, 1: 2, 2: 0})
    play(st, A_MOVE, up(CLE, 6))
    assert seat_of(st, 0)["home"] == 3 and not st.is_terminal()     # the round goes on
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(die(6))
        else:
            st.apply(A_MARKET if A_MARKET in st.legal_actions() else st.legal_actions()[0])
    assert st.returns() == [1.0, 0.0, 0.0]
    d = st.describe()
    s = copy.deepcopy(d)
    s["seats"][1]["home"] = 3
    s["seats"][1]["den"] -= 1
    s["seats"][1]["shillings"] = d["seats"][0]["shillings"] + 1
    s["winner"] = 1
    assert GAME.from_description(s).returns() == [0.0, 1.0, 0.0]     # more shillings wins
    s["winner"] = 0
    with pytest.raises(ValueError, match="^winner"):
        GAME.from_description(s)


def test_fg24_full_tie_goes_later_in_turn_order():
    """FG-24: equal home, shillings and goods: the seat later in the round's order wins."""
    st = position(players=3, home={0: 3, 1: 3, 2: 3}, active=2, turns_done=3, phase="patrol")
    st.apply(die(1))
    assert st.is_terminal() and st.returns() == [0.0, 0.0, 1.0]


def test_fg25_round_limit():
    """FG-25: after round 30 the game ends, ranked by FG-24."""
    last = E.BOARD["max_rounds"]
    assert last == 40
    st = position(players=2, round=last - 1, first_player=1, active=0, turns_done=2, phase="patrol",
                  shillings={0: 30, 1: 20})
    st.apply(die(1))
    assert st.is_terminal() and st.returns() == [1.0, 0.0]
    with pytest.raises(ValueError, match="^round"):
        position(players=2, round=last)


def test_fg26_games_end_within_the_bound():
    """FG-26: random and heuristic games end within max_game_length."""
    rng = random.Random(5)
    for players in (2, 6):
        st = GAME.new_initial_state(players)
        n = 0
        while not st.is_terminal():
            st.apply(st.sample_chance(rng.getrandbits(63)) if st.is_chance_node() else
                     E.heuristic_action(st.to_bytes(), rng.getrandbits(63)))
            n += 1
        assert n <= GAME.max_game_length


def test_fg27_nothing_hidden_determinize_is_exact():
    """FG-27: every seat's view is the whole state; determinize returns the very state; the
    key is equal for equal positions and differs when anything differs."""
    rng = random.Random(7)
    for players in (2, 4, 6):
        st = new_game("fagins_gang", players, seed=players)
        for step in range(300):
            if st.is_terminal():
                break
            if st.is_chance_node():
                st.apply(st.sample_chance(rng.getrandbits(63)))
                continue
            for seat in range(players):
                assert st.view(seat) == st.describe()
                world = st.determinize(seat, rng.getrandbits(63))
                assert world.to_bytes() == st.to_bytes()
            other = GAME.from_description(st.describe())
            assert other.infoset_key(0) == st.infoset_key(0)
            st.apply(rng.choice(st.legal_actions()))
    a = position(shillings={0: 20})
    b = position(shillings={0: 21})
    assert a.infoset_key(0) != b.infoset_key(0) and a.infoset_key(1) != b.infoset_key(1)


def test_fg28_shillings_bounded():
    """FG-28: shillings beyond 30000 are refused in a description and lost in play."""
    with pytest.raises(ValueError, match=r"^seats\[0\]\.shillings"):
        position(shillings={0: 30001})
    st = position(urchins=[(0, PAT, 0)], shillings={0: 29998})
    play(st, A_SHILL, shill(PAT, 0))
    assert seat_of(st, 0)["shillings"] == 30000


# ------------------------------------------------------------------ invariants and bad positions

@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fg6_fg9_cubes_conserved_shillings_never_negative(players):
    """FG-6, FG-9: in heuristic and random play every cube stays in one place and no seat's
    shillings go below zero; FG-10: five urchins each, always."""
    rng = random.Random(players)
    stock = {2: 15, 3: 15, 4: 20, 5: 25, 6: 30}[players]
    for game in range(2):
        st = GAME.new_initial_state(players)
        while not st.is_terminal():
            if st.is_chance_node():
                a = st.sample_chance(rng.getrandbits(63))
            elif game == 0:
                a = E.heuristic_action(st.to_bytes(), rng.getrandbits(63))
            else:
                a = rng.choice(st.legal_actions())
            st.apply(a)
            d = st.describe()
            for c in range(6):
                assert d["warehouses"][c] + d["stalls"][c] + sum(s["goods"][c] for s in d["seats"]) == stock
            assert all(s["shillings"] >= 0 for s in d["seats"])
            for p, s in enumerate(d["seats"]):
                assert s["den"] + s["home"] + sum(1 for u in d["urchins"] if u["seat"] == p) == 5


@pytest.mark.parametrize("change, field", [
    (lambda d: d["seats"][0]["goods"].__setitem__(0, d["seats"][0]["goods"][0] + 1), "warehouses"),
    (lambda d: d["seats"][1].__setitem__("shillings", -1), r"seats\[1\]\.shillings"),
    (lambda d: d["seats"][1].__setitem__("den", 4), r"seats\[1\]\.den"),
    (lambda d: d["urchins"].append({"seat": 0, "location": 0, "space": 9}), r"urchins\[0\]\.space"),
    (lambda d: d.__setitem__("phase", "PHASE_NOPE"), "phase"),
    (lambda d: d.__setitem__("active_player", 1), "active_player"),
    (lambda d: d["constables"].pop(), "constables"),
    (lambda d: d.__setitem__("winner", 0), "winner"),
    (lambda d: d.__setitem__("white_hand_min", "blue"), "white_hand_min"),
])
def test_bad_positions_are_refused_with_the_field(change, field):
    """FG-6, FG-10, FG-21: impossible positions are refused naming the field."""
    d = new_game("fagins_gang", 2, seed=3).describe()
    change(d)
    with pytest.raises(ValueError, match="^" + field):
        GAME.from_description(d)


def test_two_urchins_on_one_level_refused():
    """FG-14: one urchin per level; FG-13: none on a constable's space."""
    d = position(urchins=[(0, CLE, 3)]).describe()
    d["urchins"].append({"seat": 1, "location": CLE, "space": 3})
    d["seats"][1]["den"] -= 1
    with pytest.raises(ValueError, match=r"^urchins\[1\]"):
        GAME.from_description(d)
    d = position(urchins=[(0, CLE, 3)]).describe()
    d["constables"][CLE] = {"space": 3, "facing_up": True}
    with pytest.raises(ValueError, match=r"^urchins\[0\]"):
        GAME.from_description(d)


def test_typed_actions_round_trip_and_label():
    """FG-1: every id has a label and a typed form that reads back."""
    # The ids of no move: a move to its own space, or home from mid-track.
    named = named_ids(A.typed_action, GAME.num_distinct_actions)
    for a in named:
        assert A.action_from_typed(A.typed_action(a)) == a
        assert A.action_label(a)
    assert len(named) == GAME.num_distinct_actions - 6 * (7 + 5)
    assert A.action_label(up(CLE, 6)).endswith("goes home to Fagin")


def test_heuristic_bot_plays_legal_moves_and_render():
    """FG-1: the bot answers a legal action; render draws the board."""
    from fagin.engines import GAMES
    bot = GAMES["fagins_gang"].make_heuristic()
    st = new_game("fagins_gang", 4, seed=9)
    for _ in range(200):
        if st.is_terminal():
            break
        if st.is_chance_node():
            st.apply(st.sample_chance(1))
            continue
        a = bot.choose(st, st.current_player(), seed=3)
        assert a in st.legal_actions()
        st.apply(a)
    text = E.render(st.to_bytes())
    assert "Clerkenwell" in text and "market prices" in text


# ------------------------------------------------------ the decoder: derived fields

def _refused(d, field):
    with pytest.raises(ValueError) as e:
        GAME.from_description(d)
    assert str(e.value).startswith(field), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("phase", ["setup_constable", "setup_wheel"])
def test_fg6_fg16_set_up_goods_stalls_and_wheel_are_the_set_ups(phase):
    """Before the first turn every seat holds two cubes of each colour, the stalls two each and
    the wheel position 0 (its set-up die comes last): a seat with three of each and the wheel
    at 3 were accepted."""
    st = GAME.new_initial_state(3)
    if phase == "setup_wheel":
        for _ in range(6):
            st.apply(die(1))
    d = st.describe()
    assert d["phase"] == phase
    more = copy.deepcopy(d)
    more["seats"][0]["goods"] = [x + 1 for x in d["seats"][0]["goods"]]
    more["warehouses"] = [x - 1 for x in d["warehouses"]]
    assert "FG-6" in _refused(more, "seats[0].goods")
    stalls = copy.deepcopy(d)
    stalls["stalls"] = [x + 1 for x in d["stalls"]]
    stalls["warehouses"] = [x - 1 for x in d["warehouses"]]
    assert "FG-6" in _refused(stalls, "stalls")
    assert "FG-16" in _refused({**d, "wheel": 3}, "wheel")
    assert GAME.from_description(d).describe() == d


def test_fg23_no_round_starts_after_a_third_urchin_home():
    """The round in which a third urchin gets home ends the game (FG-23): a round that starts
    with a seat 3 home was accepted and played on."""
    with pytest.raises(ValueError, match=r"^seats\[1\]\.home: 3 .*FG-23"):
        position(home={1: 3}, round=2)
    # In the round it happened, the others still act.
    st = position(home={0: 3}, active=1)
    assert not st.is_terminal() and st.current_player() == 1


def test_fg21_the_start_player_coin_follows_the_rounds():
    """FG-19, FG-21: seat 0 holds the coin in the first round and it passes one seat a round:
    its holder is the rounds played, modulo the players."""
    assert position(round=1, first_player=1, active_player=1).describe()["first_player"] == 1
    with pytest.raises(ValueError, match=r"^first_player: seat 0, but after 1 rounds .* seat 1 "):
        position(round=1, active_player=0)


def test_fg4_white_hands_left_are_those_of_a_steal_made():
    """White hands follow a steal at a used location where the seat's urchin stands (FG-4):
    Paternoster level 2 shows one, so two left cannot be, and with one left none is chosen
    yet, so the colours start from the first."""
    kw = dict(urchins=[(0, PAT, 3)], phase="white_hand", action="steal_goods", steps_done=1,
              used_locations=[PAT])
    assert position(white_hands_left=1, white_hand_min="blue", **kw).legal_actions()
    with pytest.raises(ValueError, match="^white_hands_left: 2, more than"):
        position(white_hands_left=2, white_hand_min="blue", **kw)
    with pytest.raises(ValueError, match="^white_hand_min: no white hand is chosen yet"):
        position(white_hands_left=1, white_hand_min="green", **kw)


def test_fg10_fg24_den_and_winner_may_be_left_out():
    """A seat's den (five less the urchins on the board and home, FG-10) and a finished game's
    winner (FG-24) are the rules': a proto client leaving den out sent 0 and was refused, and a
    finished game without its winner was refused. Left out they are derived; given, checked."""
    from fagin.server import codec
    st = position(players=3, urchins=[(0, CLE, 3), (1, PAT, 0)], home={0: 3, 1: 3, 2: 3}, active=2,
                  turns_done=3, phase="patrol")
    st.apply(die(1))
    assert st.is_terminal()
    d = st.describe()
    message = codec.encode_description(GAME, d).fagins_gang
    message.ClearField("winner")
    for seat in message.seats:
        seat.ClearField("den")
    back = codec.message_to_dict(message)
    assert back["winner"] is None and back["seats"][0]["den"] is None
    assert GAME.from_description(back).describe() == d
    wrong = copy.deepcopy(d)
    wrong["seats"][0]["den"] += 1
    _refused(wrong, "seats[0].den")
