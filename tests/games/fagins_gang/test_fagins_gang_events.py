"""Fagin's Gang's events (engines/fagins_gang/events.py): the patrol told with the urchins
the constable caught, as a round's summary."""
import random

from fagin.engines import load_game

GAME = load_game("fagins_gang")


def test_the_patrol_is_told_with_the_urchins_caught():
    """FG-20, FG-27: every patrol die is told to every seat alike, naming the location, the
    constable's new space and each urchin caught (one that stood on the board before and is
    back in its seat's den after), then the round's end."""
    rng = random.Random(5)
    st = GAME.new_initial_state(3)
    patrols = caught = 0
    while not st.is_terminal():
        a = st.sample_chance(rng.getrandbits(63)) if st.is_chance_node() else rng.choice(st.legal_actions())
        after = st.child(a)
        if st.describe()["phase"] == "patrol":
            told = [st.events(a, after, seat) for seat in range(3)]
            patrol = told[0][0]
            assert patrol["summary"] and patrol["typed"]["kind"] == "patrol"
            assert patrol["typed"]["location"] == st.typed_action(a)["die"] - 1
            dens = [s["den"] for s in after.describe()["seats"]]
            was = [s["den"] for s in st.describe()["seats"]]
            assert [dens[p] - was[p] for p in range(3)] == [
                sum(1 for u in patrol["typed"].get("caught", []) if u["seat"] == p) for p in range(3)]
            assert all(t[0]["typed"] == patrol["typed"] for t in told)
            patrols += 1
            caught += len(patrol["typed"].get("caught", []))
        st = after
    assert patrols and caught
