"""Seeded random games for tests that look for a kind of transition (a bust, a nightfall)."""
import random


def random_path(game, players, seed):
    """Every transition of a seeded random game, ``(before, action, after)`` in order."""
    rng = random.Random(seed)
    st = game.new_initial_state(players)
    path = []
    while not st.is_terminal():
        a = st.sample_chance(rng.getrandbits(63)) if st.is_chance_node() else rng.choice(st.legal_actions())
        after = st.child(a)
        path.append((st, a, after))
        st = after
    return path
