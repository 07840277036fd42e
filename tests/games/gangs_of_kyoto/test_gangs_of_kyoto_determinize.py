"""Gangs of Kyoto determinization (GK-18) on hard positions: consistent worlds by construction."""
import collections

from .helpers import GAME, bell, card, entry, position, tiny_deck  # noqa: F401 (fixture)

# A deck with many Bell cards, so that hidden piles can sit just below 13 bells.
BELL_HEAVY = [entry(value=0, count=20), entry(value=1, bells=1, count=10), entry(value=5, bells=2, count=20),
              entry(kind="bell", bells=1, count=20), entry(kind="bell", bells=2, count=10)]
SEVEN_BELLS = [card(5, 2)] * 3 + [card(1, 1)]


def _near_thirteen():
    """Seats 1-3 show 7 bells and hold 5 face-down Bell cards, seat 4 shows 7 and holds 4:
    seat 0 knows nobody has 13, so seats 1-3 hold only +1 cards and seat 4 at most one +2.
    Of the ways to deal 19 of the 30 unseen Bell cards to those places, about 1 in 10,000
    meets that, so dealing at random and rejecting the rest almost always fails."""
    vp = {p: SEVEN_BELLS for p in range(1, 5)}
    hidden = {1: [bell(1)] * 5, 2: [bell(1)] * 5, 3: [bell(1)] * 5, 4: [bell(1)] * 4}
    return position(5, revealed=card(0), deal=[card(0)] * 4, vp=vp, hidden=hidden)


def test_GK_18_piles_near_13_bells_are_dealt_consistently_and_never_from_the_truth(tiny_deck):
    """GK-14, GK-18: every determinization is a world seat 0 could be in — no pile at 13 while
    the game goes on — and differs from the truth where seat 0 cannot know."""
    tiny_deck(BELL_HEAVY)
    st = _near_thirteen()
    truth = st.describe()
    with_a_two = 0
    deal_differs = 0
    n = 400
    for seed in range(n):
        det = st.determinize(0, seed)
        d = det.describe()
        assert all(s["bells"] <= 12 for s in d["seats"])
        assert det.infoset_key(0) == st.infoset_key(0)
        assert det.legal_actions() == st.legal_actions()
        assert det.view(0) == st.view(0)
        for p in (1, 2, 3):
            assert d["seats"][p]["hidden_bells"] == [bell(1)] * 5
        pile = collections.Counter(c["bells"] for c in d["seats"][4]["hidden_bells"])
        assert pile[2] <= 1 and pile[1] + pile[2] == 4
        with_a_two += pile[2] == 1
        deal_differs += d["deal"] != truth["deal"]
    # Seat 4's pile: of the 5 +1 and 10 +2 cards the other piles leave, 4 cards with at most
    # one +2: C(5,4) = 5 deals without a +2 against C(5,3) * 10 = 100 with one; each
    # consistent deal is equally likely, so about 95 % have a +2 (the truth has none).
    assert 0.92 < with_a_two / n < 0.98
    assert deal_differs > 0.9 * n


def test_GK_18_a_view_with_piles_near_13_bells_is_rebuilt(tiny_deck):
    """GK-18: a view's hidden piles are filled from its unseen cards within the 13-bell limit."""
    tiny_deck(BELL_HEAVY)
    st = _near_thirteen()
    view = st.view(0)
    again = GAME.from_description(view)
    assert again.view(0) == view and again.infoset_key(0) == st.infoset_key(0)
    assert all(s["bells"] <= 12 for s in again.describe()["seats"])
    assert again.to_bytes() == GAME.from_description(view).to_bytes()   # one view, one state
