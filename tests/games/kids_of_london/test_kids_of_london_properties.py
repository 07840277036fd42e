"""Property tests over random Kids of London playouts, against an independent Python model.

The model (`resolve_hour`, `winners`) restates the rulings in plain Python so
that every hour the engine resolves in a random game is checked against it:
KL-4..KL-17 for the theft and KL-20 for the scoring.
"""
from hypothesis import given, strategies as st

from fagin.engines.kids_of_london import engine as kol

from .helpers import GAME, coins

VALUE = {"merchant": 4, "left_priest": 5, "right_priest": 5, "jeweller": 6, "banker": 7,
         "prince": 8, "beggar": 3}


def resolve_hour(players, before, cards, character, last_hour, prince_choice, lone_choice):
    """Coins after an hour, per the rulings; `cards` includes the fictitious card."""
    seats = len(cards)
    fict = players if seats > players else None
    after = list(before)
    leaders = [s for s in range(seats) if cards[s] == 8]
    in_play = [s for s in range(seats) if not (cards[s] == 8 and len(leaders) >= 2)]   # KL-7

    def rob(robbers):
        k = len(robbers)
        for s in robbers:
            if character == "beggar":                                         # KL-11, KL-12
                after[s] -= min(3 // k, after[s])
            elif character == "left_priest":                                  # KL-10, KL-15
                after[(s + 1) % seats] += 5 // k
            elif character == "right_priest":
                after[(s - 1) % seats] += 5 // k
            elif character == "prince":                                       # KL-13, KL-14, KL-17
                if last_hour or s == fict or prince_choice[s]:
                    after[s] += 8 // k
            else:
                after[s] += VALUE[character] // k                             # KL-4

    if not in_play:                                                           # KL-8
        return after
    if len(in_play) == 1:                                                     # KL-9, KL-17
        (s,) = in_play
        if s == fict or lone_choice == kol.ACTION_LONE_CHARACTER:
            rob([s])
        else:
            after[s] += cards[s]
        return after
    hi = max(cards[s] for s in in_play)
    lo = min(cards[s] for s in in_play)
    if hi != lo:                                                              # KL-5, KL-6
        for s in in_play:
            if cards[s] == lo:
                after[s] += lo
    rob([s for s in in_play if cards[s] == hi])
    return after


def winners(players, final):
    """KL-20."""
    top = max(final)
    rest = [c for c in final if c < top]
    if not rest:
        return [0.0] * players
    second = max(rest)
    return [1.0 if final[s] == second else 0.0 for s in range(players)]


def check_hidden_information(state, rnd):
    """Determinize keeps the observer's key and legal actions, is seeded, and hides others' choices."""
    d = state.describe()
    n = d["players"]
    pending = [s for s in range(n) if state.clone().make_current(s)]
    assert state.current_player() in pending
    for observer in pending:
        seed = rnd.getrandbits(32)
        det = state.determinize(observer, seed)
        assert det == state.determinize(observer, seed)
        assert det.infoset_key(observer) == state.infoset_key(observer)
        mine, theirs = state.clone(), det.clone()
        assert mine.make_current(observer) and theirs.make_current(observer)
        assert mine.legal_actions() == theirs.legal_actions()
    if d["phase"] == "choose_card" and len(pending) >= 2:
        # Two worlds that differ only in other seats' secret cards look the same to `observer`.
        observer = pending[-1]
        worlds = []
        for _ in range(2):
            w = state.clone()
            for s in pending:
                if s != observer:
                    w.make_current(s)
                    w.apply(rnd.choice(w.legal_actions()))
            worlds.append(w)
        assert worlds[0].infoset_key(observer) == worlds[1].infoset_key(observer)


@given(players=st.sampled_from([2, 3, 4, 5]), rnd=st.randoms(use_true_random=False))
def test_random_playouts_follow_the_rules(players, rnd):
    state = GAME.new_initial_state(players)
    played = [[] for _ in range(players + (1 if players == 2 else 0))]
    hour = None
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps <= GAME.max_game_length
        d = state.describe()
        assert all(c >= 0 for c in coins(state))
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
            action = rnd.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            if hour is None or hour["turn"] != d["turn"]:
                hour = {"turn": d["turn"], "before": coins(state), "character": d["character"],
                        "prince": {}, "lone": None}
            check_hidden_information(state, rnd)
            assert len(state.legal_actions()) <= GAME.max_decision_actions
            action = rnd.choice(state.legal_actions())
            seat = state.current_player()
            if d["phase"] == "choose_prince":
                hour["prince"][seat] = action == kol.ACTION_PRINCE
            elif d["phase"] == "choose_lone":
                hour["lone"] = action
        turn_before, before, character = d["turn"], coins(state), d["character"]
        state.apply(action)
        after = state.describe()
        if after["turn"] != turn_before:
            cards = after["last_hour"]["cards"]
            for s, c in enumerate(cards):
                played[s].append(c)
            base = hour["before"] if hour and hour["turn"] == turn_before else before
            expected = resolve_hour(players, base, cards, after["last_hour"]["character"],
                                    turn_before == 8, hour["prince"] if hour else {},
                                    hour["lone"] if hour else None)
            assert coins(state) == expected, (turn_before, cards, after["last_hour"])
    # KL-1, KL-3: every seat (the fictitious one too) played each card exactly once.
    assert all(sorted(p) == list(range(9)) for p in played)
    assert state.returns() == winners(players, coins(state))
