"""Game records through the API: NewGame and ApplyAction return them, every call that takes a
state takes one, ViewRecord makes a seat's view, and bad ones are refused naming the field
(``record.moves[17].action_id: ...``)."""
import grpc
import pytest

from fagin.clients.client import recommend_request
from fagin.engines import load_game
from fagin.server import codec
from fagin.v1 import fagin_pb2 as pb


def _refused(call, *args, **kwargs):
    with pytest.raises(grpc.RpcError) as e:
        call(*args, **kwargs)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value.details()
    return e.value.details()


def _play(client, game, players, moves, seed=1):
    """A game played by the server's recommendations through ApplyAction on its record, and
    the same on its state; returns (record, state)."""
    new = client.new_game(game, players, seed=seed)
    record, state = new.record, new.state
    assert record.game == game and record.players == players and not record.HasField("viewer")
    for i in range(moves):
        if new.status.terminal if i == 0 else applied.status.terminal:
            break
        seat = (new.status if i == 0 else applied.status).current_seat
        rec = client.recommend(record=record, seat=seat, iterations=50, seed=i)
        applied = client.apply(record=record, action=rec.action.id, seat=seat, seed=i)
        by_state = client.apply(state, rec.action.id, seat=seat, seed=i)
        assert applied.state == by_state.state and applied.status == by_state.status
        assert list(applied.applied) == list(by_state.applied)
        record, state = applied.record, applied.state
    return record, state


def test_new_game_and_apply_action_return_the_record_extended(client):
    new = client.new_game("kids_of_london", 3, seed=4)
    assert [m.WhichOneof("move") for m in new.record.moves] == ["action_id"]      # the first character
    assert not new.record.moves[0].HasField("seat")
    record, state = _play(client, "kids_of_london", 3, 8, seed=4)
    assert len(record.moves) > 8
    # The record is the position: every call answers for it as for the state.
    assert client.view(record=record, seat=1) == client.view(state, 1)
    assert client.legal_actions(record) == client.legal_actions(state)


def test_a_record_and_its_position_get_the_same_recommendation(client):
    record, state = _play(client, "london", 2, 30)
    seat = client.legal_actions(state).status.current_seat
    a = client.recommend(record=record, seat=seat, iterations=300, seed=5)
    b = client.recommend(state, seat, iterations=300, seed=5)
    a.ClearField("elapsed_ms")
    b.ClearField("elapsed_ms")
    assert a == b
    final = [p for p in client.stream_recommend(record, seat, iterations=300, seed=5) if p.final][0]
    final.recommendation.ClearField("elapsed_ms")
    assert final.recommendation == b
    answers = list(client.batch_recommend([("r", recommend_request(record=record, seat=seat, iterations=300,
                                                                   seed=5))]))
    answers[0].recommendation.ClearField("elapsed_ms")
    assert answers[0].recommendation == b


def test_a_seats_view_of_a_record_answers_as_its_position(client):
    record, state = _play(client, "kids_of_london", 4, 12, seed=2)
    seat = client.legal_actions(state).status.pending_seats[-1]
    viewed = client.view_record(record, seat)
    view = viewed.record
    assert view.viewer == seat
    assert any(m.unseen for m in view.moves)                 # the others' secret cards
    assert all(m.HasField("check") for m in view.moves)
    assert viewed.view == client.view(state, seat)
    a = client.recommend(record=view, seat=seat, iterations=400, seed=3)
    b = client.recommend(state, seat, iterations=400, seed=3)
    assert [(s.action.id, s.visits, s.policy) for s in a.actions] == [(s.action.id, s.visits, s.policy) for s in b.actions]
    # The view's calls answer for its viewer only.
    assert client.view(record=view, seat=seat).state == client.view(state, seat).state
    assert _refused(client.view, record=view, seat=(seat + 1) % 4).startswith(
        f"seat: seat {(seat + 1) % 4}, but the record is seat {seat}'s view")
    assert _refused(client.recommend, record=view, seat=(seat + 1) % 4, iterations=10).startswith("seat: ")
    # ApplyAction extends a view as its viewer sees the move, with its check.
    played = client.apply(record=view, action=b.action.id, seat=seat, observer=seat)
    assert played.record.viewer == seat and played.record.moves[-1].action_id == b.action.id
    assert played.state == client.view(record=played.record, seat=seat).state


def test_view_record_refuses_a_view_and_a_seat_outside_the_game(client):
    record, _ = _play(client, "kuhn_poker", 2, 1)
    view = client.view_record(record, 0).record
    assert _refused(client.view_record, view, 1).startswith("record.viewer: give a complete record")
    assert _refused(client.view_record, record, 2) == "seat: 2 is not a seat of this 2-player game"


def test_bad_records_are_refused_naming_the_field(client):
    record, state = _play(client, "kuhn_poker", 2, 1)
    both = pb.LegalActionsRequest(state=state, record=record)
    with pytest.raises(grpc.RpcError) as e:
        client._stub.LegalActions(both, timeout=10)
    assert e.value.details() == "record: give state or record, not both"
    bad = pb.GameRecord()
    bad.CopyFrom(record)
    bad.moves[-1].action_id = 7
    assert _refused(client.legal_actions, bad).startswith("record.moves[2].action_id: not legal: ")
    bad.moves[-1].unseen = True
    assert _refused(client.legal_actions, bad) == \
        "record.moves[2].unseen: a complete record (no viewer) gives every move"
    assert _refused(client.legal_actions, pb.GameRecord(game="chess", players=2)).startswith(
        "record.game: unknown game 'chess'")
    assert _refused(client.legal_actions, pb.GameRecord(game="kuhn_poker", players=3)).startswith("record.players: ")
    assert _refused(client.legal_actions, pb.GameRecord(game="goofspiel", players=2, options={"x": "1"})).startswith(
        "record.options: unknown option 'x' for goofspiel")
    assert _refused(client.legal_actions, pb.GameRecord(game="kuhn_poker", players=2, viewer=2)) == \
        "record.viewer: 2 is not a seat of this 2-player game"
    many = pb.GameRecord(game="kuhn_poker", players=2, moves=[pb.RecordMove(action_id=0)] * 6)
    assert _refused(client.legal_actions, many) == "record.moves: at most 5 moves in a kuhn_poker record, got 6"
    checked = pb.GameRecord(game="kuhn_poker", players=2, moves=[pb.RecordMove(action_id=0, check=1)])
    assert _refused(client.legal_actions, checked) == \
        "record.moves[0].check: only a seat's view (record.viewer set) carries checks"
    negative = pb.GameRecord(game="kuhn_poker", players=2, moves=[pb.RecordMove(seat=-1, action_id=0)])
    assert _refused(client.legal_actions, negative).startswith(
        "record.moves[0].seat: must be a seat (0 or more), got -1")
    empty = pb.GameRecord(game="kuhn_poker", players=2, moves=[pb.RecordMove(seat=0)])
    assert _refused(client.legal_actions, empty).startswith("record.moves[0]: give the move")
    req = recommend_request(record=bad, seat=0, iterations=10)
    answers = list(client.batch_recommend([("x", req)]))
    assert answers[0].error.message.startswith("request.record.moves[2].unseen: ")


def test_a_record_from_a_set_up_position(client):
    game = load_game("kuhn_poker")
    start = codec.encode_state(game.from_description({"cards": [2, 0], "actions": []}))
    record = pb.GameRecord(start=start, moves=[pb.RecordMove(seat=0, action_id=1)])
    legal = client.legal_actions(record)
    assert legal.status.current_seat == 1
    record.game, record.players = "kuhn_poker", 2
    assert client.legal_actions(record) == legal
    record.players = 3
    assert _refused(client.legal_actions, record) == \
        "record.players: 3, but the start position has 2 players"
    record.players, record.game = 2, "leduc_poker"
    assert _refused(client.legal_actions, record).startswith("record.game: 'leduc_poker', but the start")


def test_the_asyncio_client_takes_records(server):
    import asyncio

    from fagin.clients import AsyncFaginClient

    async def run():
        async with AsyncFaginClient(server.target, timeout=30) as fagin:
            new = await fagin.new_game("goofspiel", 2, seed=3)
            legal = await fagin.legal_actions(record=new.record)
            played = await fagin.apply(record=new.record, action=legal.actions[0].id, seat=0)
            view = (await fagin.view_record(played.record, 1)).record
            assert view.viewer == 1 and view.moves[-1].unseen       # seat 0's bid, secret from seat 1
            rec = await fagin.recommend(record=view, seat=1, iterations=100, seed=2)
            same = await fagin.recommend(played.state, 1, iterations=100, seed=2)
            assert [s.visits for s in rec.actions] == [s.visits for s in same.actions]
            assert (await fagin.view(record=view, seat=1)).state == (await fagin.view(played.state, 1)).state
            finals = [p async for p in fagin.stream_recommend(record=view, seat=1, iterations=100, seed=2)]
            assert finals[-1].final
    asyncio.run(run())


def test_apply_action_on_a_seats_view_tells_only_what_the_viewer_saw(client):
    new = client.new_game("kuhn_poker", 2, seed=1)
    view = client.view_record(new.record, 0).record
    assert [m.unseen for m in view.moves] == [False, True]       # its own card; not seat 1's
    played = client.apply(record=view, action=1, seat=0)        # bet
    assert [a.label for a in played.applied] == ["bet"]
    assert played.state.kuhn_poker.cards[1] == -1               # the viewer's view, not the fill
    assert [e.seat for e in played.events] == [0]


def test_a_view_no_deal_explains_is_refused_naming_the_move(client):
    """A view written by a client (no checks) in which seat 1 bids a card it has already bid
    (Goofspiel's bids are revealed when the turn is over): no deal explains it."""
    new = client.new_game("goofspiel", 2, seed=5)
    record = new.record
    for turn in range(2):
        record = client.apply(record=record, action=turn, seat=0).record
        record = client.apply(record=record, action=turn, seat=1, seed=turn).record
    view = client.view_record(record, 0).record
    for m in view.moves:
        m.ClearField("check")
    bad = pb.GameRecord()
    bad.CopyFrom(view)
    bad.moves.add(seat=0, action_id=2)
    bad.moves.add(seat=1, action_id=0)          # seat 1 bid its lowest card on the first turn
    index = len(bad.moves) - 1
    details = _refused(client.legal_actions, bad)
    assert details.startswith(f"record.moves[{index}].action_id: not legal: "), details
    assert details.endswith("(in no deal that the moves before it, as seat 0 saw them, allow)"), details


def test_a_view_does_not_tell_which_seat_bid_first(client):
    """Goofspiel: seat 1 cannot know whether seat 0 bid before it; records of both orders give
    seat 1 one view: its own bid, then seat 0's, shown as the turn ends."""
    new = client.new_game("goofspiel", 2, seed=5)
    first = client.apply(record=client.apply(record=new.record, action=3, seat=0).record, action=5, seat=1).record
    second = client.apply(record=client.apply(record=new.record, action=5, seat=1).record, action=3, seat=0).record
    def bids(record):
        return [m for m in record.moves if m.HasField("seat")]

    assert [m.seat for m in bids(first)] == [0, 1] and [m.seat for m in bids(second)] == [1, 0]
    a, b = client.view_record(first, 1), client.view_record(second, 1)
    assert a == b
    assert [(m.seat, m.unseen) for m in bids(a.record)] == [(1, False), (0, False)]
    # Before the turn ends, seat 0's bid is unseen, after seat 1's own.
    early = client.view_record(client.apply(record=new.record, action=3, seat=0).record, 1).record
    assert [(m.seat, m.unseen) for m in bids(early)] == [(0, True)]


def test_a_london_view_extended_by_apply_action_replays(client):
    """ApplyAction on a seat's view of a London game: the view it answers replays, move after move
    (identical cards named by their typed form, the checks reading the seat's view)."""
    new = client.new_game("london", 2, seed=8)
    seat = new.status.current_seat
    view = client.view_record(new.record, seat).record
    for i in range(12):
        if seat not in client.view(record=view, seat=seat).status.pending_seats:
            assert _refused(client.legal_actions, record=view).startswith(f"seat: the record is seat {seat}'s view")
            break
        legal = client.legal_actions(record=view)
        played = client.apply(record=view, action=legal.actions[i % len(legal.actions)].id, seat=seat)
        view = played.record
        assert client.view(record=view, seat=seat).state == played.state
