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


def _game():
    return load_game("goofspiel")


def _refused(d, field):
    import pytest
    with pytest.raises(ValueError) as e:
        _game().from_description(d)
    assert str(e.value).startswith(field), str(e.value)


def test_a_pending_bid_is_kept_when_a_fixed_order_leaves_the_point_card_out():
    """Descending order turns up the point cards by itself, so a client may leave them out;
    then seat 0's pending bid was dropped silently and seat 0 was asked to bid again."""
    game = _game()
    st = game.new_initial_state(2, num_cards=5, points_order="descending")
    for a in (1, 0, 2):                             # one turn, then seat 0 bids card 3
        st.apply(a)
    d = st.describe()
    assert d["pending0"] == 2 and st.current_player() == 1
    seen = game.from_description({**d, "point_cards": []})
    assert seen.describe() == d and seen.current_player() == 1 and seen.legal_actions() == st.legal_actions()


def test_a_pending_bid_needs_its_random_point_card():
    """With the random order, a pending bid whose turn's point card is not listed was dropped
    silently (the position became the chance event before the bid)."""
    game = _game()
    st = game.new_initial_state(2, num_cards=5)
    for a in (0, 1, 0, 1, 3):                       # point, two bids; point, seat 0 bids
        st.apply(a)
    d = st.describe()
    assert d["pending0"] is not None and len(d["point_cards"]) == 2
    _refused({**d, "point_cards": d["point_cards"][:-1]}, "pending0")
    assert game.from_description({**d, "point_cards": d["point_cards"][:-1], "pending0": None}).is_chance_node()
    _refused({**d, "pending1": 0}, "pending1")      # both bids made: a finished turn


def test_the_last_self_playing_turn_is_checked():
    """The last turn plays itself with the last cards: its bids and point card were not
    compared, so repeated cards (bids1 [0, 3, 1, 3], point cards [0, 2, 3, 2]) were accepted."""
    import random
    game = _game()
    rng = random.Random(2)
    st = game.new_initial_state(2, num_cards=4)
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
    d = st.describe()
    assert game.from_description(d).describe() == d
    wrong = (d["bids1"][-1] + 1) % 4
    _refused({**d, "bids1": d["bids1"][:-1] + [wrong]}, "bids1")
    _refused({**d, "point_cards": d["point_cards"][:-1] + [(d["point_cards"][-1] + 1) % 4]}, "point_cards[3]")
    _refused({**d, "point_cards": d["point_cards"] + [0]}, "point_cards[4]")


def test_hidden_bids_only_with_imp_info():
    """Without imp_info every bid is shown: a view never holds a hidden (-1) bid."""
    d = _game().from_description({
        "options": {"num_cards": 4, "imp_info": False, "points_order": "descending"},
        "bids0": [1], "bids1": [3], "winners": [1]}).describe()
    _refused({**d, "bids1": [-1]}, "bids1")
    seen = _game().from_description({**d, "options": {**d["options"], "imp_info": True}, "bids1": [-1]})
    assert seen.describe()["winners"] == [1]
