"""Property tests over random Gangs of Kyoto games (GK-2 conservation, GK-6 limits, GK-17/18 hidden cards)."""
from hypothesis import given, settings, strategies as st

from fagin.engines.gangs_of_kyoto import engine as gk

from .helpers import GAME, count_cards, full_deck


@settings(max_examples=40, deadline=None)
@given(players=st.sampled_from([2, 3, 4, 5]), rnd=st.randoms(use_true_random=False),
       options=st.sampled_from([{}, {"play_through": True}, {"open_piles": True}]))
def test_random_games_keep_every_card_and_every_secret(players, rnd, options):
    state = GAME.new_initial_state(players, **options)
    deck = full_deck()
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < 5000
        d = state.describe()
        # GK-2: every card is in exactly one place, at every step.
        assert count_cards(d) == deck
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            state.apply(rnd.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        seat = state.current_player()
        assert len(state.legal_actions()) <= GAME.max_decision_actions
        # GK-6: no row stands at or above its limit when someone must decide.
        assert all(s["row_sum"] < s["limit"] for s in d["seats"])
        if rnd.random() < 0.3:
            observer = rnd.randrange(players)
            seed = rnd.getrandbits(32)
            det = state.determinize(observer, seed)
            assert det == state.determinize(observer, seed)
            assert det.infoset_key(observer) == state.infoset_key(observer)
            assert det.legal_actions() == state.legal_actions()
            assert count_cards(det.describe()) == deck
            # What the observer sees is the same in both worlds.
            assert det.view(observer) == state.view(observer)
            # A position rebuilt from the observer's view has the observer's key of the full position.
            full = GAME.from_description(d)
            seen = GAME.from_description(state.view(observer))
            assert seen.infoset_key(observer) == full.infoset_key(observer)
            assert seen.legal_actions() == full.legal_actions()
        state.apply(rnd.choice(state.legal_actions()))
    returns = state.returns()
    assert sorted(returns) == [0.0] * (players - 1) + [1.0]
    if not options.get("play_through"):
        winner = returns.index(1.0)
        assert state.describe()["seats"][winner]["bells"] >= 13 or count_cards(state.describe())
