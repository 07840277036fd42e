"""Goofspiel (OpenSpiel's rules): views with imp_info are valid positions."""
from fagin.engines import load_game


def test_an_imp_info_view_where_the_other_seat_won_is_a_valid_position():
    # Found by the contract suite: the canonical filling of the hidden bids took a
    # tie for the other seat's win (seat 1 bid 11 against 6 and won the point).
    game = load_game("goofspiel")
    state = game.from_description({
        "options": {"num_cards": 13, "imp_info": True, "points_order": "random", "returns_type": "win_loss"},
        "point_cards": [5], "bids0": [5], "bids1": [10], "winners": [1],
        "pending0": None, "pending1": None, "points": [0, 6]})
    view = state.view(0)
    assert view["bids1"] == [-1]
    seen = game.from_description(view)
    assert seen.view(0) == view
    assert seen.describe()["winners"] == [1] and seen.describe()["bids1"][0] > 5


def test_imp_info_determinizations_agree_with_the_winners_the_observer_saw():
    # Found by the contract suite: determinize gave the other seat bids that tie
    # a turn it had won, a world the observer knows is impossible.
    game = load_game("goofspiel")
    state = game.from_description({
        "options": {"num_cards": 4, "imp_info": True, "points_order": "descending", "returns_type": "win_loss"},
        "point_cards": [3, 2], "bids0": [1, 0], "bids1": [3, 1], "winners": [1, 1],
        "pending0": None, "pending1": None, "points": [0, 7]})
    for seed in range(50):
        world = state.determinize(0, seed).describe()
        assert world["winners"] == [1, 1]
        assert all(b1 > b0 for b0, b1 in zip(world["bids0"], world["bids1"]))
        game.from_description(world)
