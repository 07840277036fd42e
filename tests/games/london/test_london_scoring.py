"""London's end of game on the engine: scoring and tie-breaks (LN-75 to LN-81), the round cap
(LN-97) and whole random games (card conservation, LN-2).  The spec's scoring examples LN-W9 to
LN-W11 are in test_london_examples.py."""
import random

import pytest

from fagin.engines.london import engine as E

from .helpers import GAME, act, position, raw, scored, total_cards


def test_scoring_order_repay_then_score_money():
    """LN-75, LN-76, LN-78: loans are repaid at £15 as far as the money goes (3 loans, £40: two
    repaid, £10 left = 3 VP, one loan unpaid = -7); the rest of the money scores 1 VP per full £3."""
    st = scored(money={0: 40, 1: 0}, loans={0: 3})
    assert raw(st)["final_vp"][:2] == [3 - 7, 0]


def test_bank_of_england_changes_nothing_at_the_end():
    """LN-76, LN-24: each loan is repaid at £15 even with a face-up Bank of England."""
    st = scored(money={0: 30, 1: 0}, loans={0: 2}, stacks={0: [["bank_of_england"]]})
    assert raw(st)["final_vp"][0] == 2                    # the Bank of England's 2 VP, nothing else


def test_no_loan_to_repay_a_loan():
    """LN-25, LN-76: £14 cannot repay a loan and no new loan is taken: -7, £14 = 4 VP."""
    st = scored(money={0: 14, 1: 0}, loans={0: 1})
    r = raw(st)
    assert r["final_vp"][0] == 4 - 7 and r["loans"][0] == 1


def test_hand_cards_become_poverty_even_with_public_houses():
    """LN-77, LN-52: each card in hand adds one poverty point at the end."""
    st = scored(hands={0: ["paupers_a", "paupers_b", "paupers_c"]}, stacks={0: [["public_houses"]]},
                poverty={0: 2, 1: 4})
    assert raw(st)["final_poverty"][:2] == [5, 4]


def test_vp_of_boroughs_underground_and_every_card():
    """LN-78, LN-69, LN-42, LN-30: boroughs, +2 per Underground counter, printed VP of every card
    (covered and flipped included), VP counters."""
    st = scored(boroughs={"city": 0, "hackney": 0}, underground=("hackney",), vp={0: 3},
                stacks={0: [["st_pauls", "grocers"], ["albert_hall:down"], ["bridge", "leather_industry:down"]]})
    assert raw(st)["final_vp"][0] == 6 + 2 + 2 + 6 + 0 + 3 + 2 + 1 + 3


def test_poverty_adjustment_and_negative_totals():
    """LN-79, LN-80: the lowest poverty is subtracted from all; the table's loss may make the total
    negative; the other player wins."""
    st = scored(poverty={0: 14, 1: 2})
    r = raw(st)
    assert r["final_vp"][:2] == [-E.poverty_penalty_of(12), 0] == [-21, 0]
    assert st.returns() == [0.0, 1.0]


def test_three_way_tie_break_and_shared_win():
    """LN-81: the winners among tied seats are those still tied after every break; returns 1 each."""
    st = scored(players=3, poverty={0: 3, 1: 3, 2: 3})
    assert st.returns() == [1.0, 1.0, 1.0]
    st = scored(players=3, poverty={0: 3, 1: 3, 2: 3}, boroughs={"greenwich": 2, "lewisham": 1},
                vp={0: 2})
    # Seat 0: 2 VP counters; seats 1 and 2: 2 VP from a borough each; tied on poverty and boroughs
    # between 1 and 2 (one each), seat 0 has none: seats 1 and 2 share the win.
    assert st.returns() == [0.0, 1.0, 1.0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_round_cap_ends_the_game(players):
    """LN-97: a game is over once turns reach 100 per player."""
    st = position(players=players, active=players - 1, turns=100 * players - 1, deck=[])
    act(st, "take_three")
    assert st.is_terminal() and raw(st)["turns"] == 100 * players


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_random_games_end_and_conserve_the_cards(players, seed):
    """LN-2, LN-74, LN-97: random play from the deal ends, with the 110 cards conserved throughout
    and at least one winner."""
    rng = random.Random(seed)
    st = GAME.new_initial_state(players)
    steps = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply(st.sample_chance(rng.getrandbits(32)))
        else:
            st.apply(rng.choice(st.legal_actions()))
        steps += 1
        if steps % 25 == 0:
            assert total_cards(st) == 110
    assert total_cards(st) == 110
    assert 1.0 in st.returns()
