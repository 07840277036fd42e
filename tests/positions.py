"""What the rooms' tests share: decision states of a game played by its room's heuristic bot with
a share of uniform moves (the positions the learned-evaluation tests read, in
tests/engines/test_learned_rooms.py and the rooms' own), and the action ids a room names."""
import random

from fagin.engines import load_game, new_game


def played_positions(game_id, players, seed, count, every=0.2, uniform=0.2):
    """``(positions, last)``: up to ``count`` decision states of one game (each decision kept with
    probability ``every``), and the state the game stopped at (terminal if it ran out first)."""
    engine = load_game(game_id).engine
    st = new_game(game_id, players, seed=seed)
    rng = random.Random(seed)
    out = []
    k = 0
    while not st.is_terminal() and len(out) < count:
        if st.is_chance_node():
            st.resolve_chance(rng.getrandbits(63))
            continue
        if rng.random() < every:
            out.append(st.clone())
        legal = st.legal_actions()
        st.apply(rng.choice(legal) if rng.random() < uniform else engine.heuristic_action(st.to_bytes(), k))
        k += 1
    return out, st


def named_ids(name, count):
    """The action ids below ``count`` that ``name`` (a label or typed-form function) names; an id
    it refuses with a ValueError is an id of no action."""
    named = []
    for a in range(count):
        try:
            name(a)
        except ValueError:
            continue
        named.append(a)
    return named
