"""ApplyAction's events through the server: every seat's, or the observer's, for the move
and every chance outcome it resolved, typed in the game's Event message."""
import grpc
import pytest

from fagin.v1 import kids_of_london_pb2 as kpb
from fagin.v1 import london_pb2 as lpb

from .test_service import kol_dict, kol_state


def test_apply_action_tells_every_seat_what_it_saw(client):
    state = kol_state(kol_dict(players=3))
    r = client.apply(client.apply(client.apply(state, 5).state, 2, seat=2).state, 0, seed=9)
    assert [s.seat for s in r.events] == [0, 1, 2]
    by_seat = {s.seat: list(s.events) for s in r.events}
    # Seat 1 put its 0 down, which ended the hour: the reveal and thefts, then the next character.
    mine = by_seat[1]
    assert mine[0].label == "you put your 0 down" and mine[0].seat == 1 and not mine[0].summary
    assert mine[0].kids_of_london.kind == kpb.KidsOfLondonEvent.KIND_CHOICE
    assert mine[0].kids_of_london.action.card == 0
    reveal = next(e for e in mine if e.kids_of_london.kind == kpb.KidsOfLondonEvent.KIND_REVEAL)
    assert reveal.summary and list(reveal.kids_of_london.cards) == [5, 0, 2]
    thefts = next(e for e in mine if e.kids_of_london.kind == kpb.KidsOfLondonEvent.KIND_THEFTS)
    assert list(thefts.kids_of_london.coins_after) == [7, 0, 0]
    last = mine[-1]
    assert last.kids_of_london.kind == kpb.KidsOfLondonEvent.KIND_CHARACTER and not last.HasField("seat")
    assert last.label == f"the {r.applied[1].label.removeprefix('reveal ')} is turned up"
    # The others are told that seat 1 put a card down, not which.
    for seat in (0, 2):
        first = by_seat[seat][0]
        assert first.label == "seat 1 puts a card down" and not first.kids_of_london.HasField("action")
        assert [e.kids_of_london for e in by_seat[seat][1:]] == [e.kids_of_london for e in mine[1:]]
        shown = {0: "you 5, seat 1 0, seat 2 2", 2: "seat 0 5, seat 1 0, you 2"}[seat]
        assert by_seat[seat][1].label == f"hour 1, the Banker: the cards are {shown}"


def test_apply_action_gives_one_observers_events_when_asked(client):
    state = kol_state(kol_dict(players=3))
    r = client.apply(state, 5, observer=2)
    assert [s.seat for s in r.events] == [2]
    assert [e.label for e in r.events[0].events] == ["seat 0 puts a card down"]


@pytest.mark.parametrize("observer", [-1, 3])
def test_an_observer_outside_the_game_is_refused(client, observer):
    with pytest.raises(grpc.RpcError) as e:
        client.apply(kol_state(kol_dict(players=3)), 5, observer=observer)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith(f"observer: {observer} is not a seat")


def test_new_game_tells_each_seat_the_opening(client):
    """The opening chance events, as each seat saw them: Kids of London's first character to
    all; London's deal, each seat's own cards named and the others' by letter (LN-86)."""
    r = client.new_game("kids_of_london", 3, seed=1)
    character = kpb.KidsOfLondonState.Character.Name(r.state.kids_of_london.character)
    for s in r.events:
        (e,) = s.events
        assert e.kids_of_london.kind == kpb.KidsOfLondonEvent.KIND_CHARACTER
        assert kpb.KidsOfLondonState.Character.Name(e.kids_of_london.character) == character
    r = client.new_game("london", 3, seed=2)
    assert [s.seat for s in r.events] == [0, 1, 2]
    hands = {s: list(client.view(r.state, s).state.london.seats[s].hand) for s in range(3)}
    for s in r.events:
        # The deal's draws, then its summary (every hand as the seat sees it), then the first
        # turn's card (LN-13).
        kinds = [e.london.kind for e in s.events]
        end = kinds.index(lpb.LondonEvent.KIND_DEAL)
        draws, summary = s.events[:end], s.events[end]
        assert len(draws) == 18 and all(e.london.kind == lpb.LondonEvent.KIND_DRAW and e.summed_up
                                        for e in draws)
        assert summary.summary and not any(e.summed_up for e in s.events[end + 1:])
        all_draws = [e for e in s.events if e.london.kind == lpb.LondonEvent.KIND_DRAW]
        mine = sorted(e.london.card for e in all_draws if e.london.to == s.seat)
        assert mine == sorted(hands[s.seat])
        assert sorted(c for d in summary.london.dealt if d.place == "hand" and d.seat == s.seat
                      for c in d.added) == sorted(e.london.card for e in draws if e.london.to == s.seat)
        others = [e for e in all_draws if e.london.to != s.seat]
        assert others and all(not e.london.HasField("card") and e.london.letter for e in others)


def test_the_opening_told_is_the_opening_drawn():
    """State.resolve_chance_with_events draws exactly what resolve_chance draws from a seed."""
    from fagin.engines import load_game
    game = load_game("london")
    a, b = game.new_initial_state(4), game.new_initial_state(4)
    a.resolve_chance(77)
    told = b.resolve_chance_with_events(77)
    assert a == b and sorted(told) == [0, 1, 2, 3] and all(told.values())
