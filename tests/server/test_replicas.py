"""Sessions behind several replicas: a session's kept tree lives on one server, so its calls
must reach that server (a balancer hashing on the ``fagin-session`` metadata); a call that
lands on another replica searches afresh from its record and still answers correctly."""
import grpc
import pytest
from google.protobuf import json_format

from fagin.clients import FaginClient
from fagin.clients.client import SESSION_METADATA, recommend_request
from fagin.server import sessions
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG, RunningServer
from .test_http import call
from .test_metrics import free_port


def serve():
    """A server with a gRPC and an HTTP port (another free port if one was taken meanwhile)."""
    for attempt in range(3):
        try:
            return RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1, "http_port": free_port()}))
        except OSError:
            if attempt == 2:
                raise


@pytest.fixture(scope="module")
def replicas():
    a, b = serve(), serve()
    yield a, b
    a.stop()
    b.stop()


def test_the_client_and_the_server_name_the_same_metadata():
    assert SESSION_METADATA == sessions.SESSION_METADATA == "fagin-session"


def own_turn_of_two(client, seed=2):
    """A London 2-player game's record at a seat's decision after which, the recommended move
    played, the same seat decides again: (record, seat, the record after the move, the
    recommendation).  The recommendation is the first of a session of that seat."""
    resp = client.new_game("london", 2, seed=seed)
    record, status = resp.record, resp.status
    for k in range(200):
        seat = status.current_seat
        rec = client.recommend(record=record, seat=seat, iterations=200, seed=k, session=f"game{seed}-{k}")
        after = client.apply(record=record, action=rec.action.id, seat=seat, seed=k)
        if not after.status.terminal and not after.status.chance and after.status.current_seat == seat:
            return record, seat, after.record, rec, f"game{seed}-{k}", k
        record, status = after.record, after.status
    raise AssertionError("no turn of two decisions found")


def test_a_session_continues_on_its_replica_and_searches_afresh_on_another(replicas):
    a, b = replicas
    with FaginClient(a.target, timeout=60) as on_a, FaginClient(b.target, timeout=60) as on_b:
        record, seat, after, first, session, k = own_turn_of_two(on_a)
        assert first.session.fresh_reason == sessions.NO_TREE and not first.session.continued
        budget = dict(iterations=200, seed=k + 1000)
        # The seat's next decision lands on B, which keeps no tree of the session: a fresh
        # search of the record's position, the answer a call without a session gets there.
        elsewhere = on_b.recommend(record=after, seat=seat, session=session, **budget)
        assert not elsewhere.session.continued and elsewhere.session.fresh_reason == sessions.NO_TREE
        plain = on_b.recommend(record=after, seat=seat, **budget)
        assert elsewhere.action.id == plain.action.id
        assert [(s.action.id, s.visits) for s in elsewhere.actions] == [(s.action.id, s.visits) for s in plain.actions]
        assert elsewhere.action.id in {x.id for x in on_b.legal_actions(record=after, seat=seat).actions}
        # Back on A, the session's tree is there, and it has reached the position.
        back = on_a.recommend(record=after, seat=seat, session=session, **budget)
        assert back.session.continued and back.session.head_start > 0
        assert sum(s.visits for s in back.actions) == back.session.head_start + 200


def metadata_call(srv, req, metadata):
    """A Recommend call carrying `metadata` as it is given (FaginClient sends the request's own)."""
    with FaginClient(srv.target, timeout=30) as client:
        return client._stub.Recommend(req, timeout=30, metadata=metadata)


KUHN = json_format.ParseDict({"kuhnPoker": {"cards": [2, 0]}}, pb.GameState())


def test_session_metadata_naming_another_session_is_refused(replicas):
    srv = replicas[0]
    req = recommend_request(KUHN, 0, iterations=50, session="table-7")
    with pytest.raises(grpc.RpcError) as e:
        metadata_call(srv, req, (("fagin-session", "table-8"),))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("session: 'table-7', but the call's fagin-session metadata names 'table-8'")
    with pytest.raises(grpc.RpcError) as e:
        metadata_call(srv, req, (("fagin-session", "table-7"), ("fagin-session", "table-7")))
    assert e.value.details().startswith("session: the call carries 2 fagin-session metadata entries")
    # The same name, none, or metadata on a call without a session: answered.
    assert metadata_call(srv, req, (("fagin-session", "table-7"),)).session.session == "table-7"
    assert metadata_call(srv, req, ()).session.continued
    plain = recommend_request(KUHN, 0, iterations=50)
    assert not metadata_call(srv, plain, (("fagin-session", "table-7"),)).HasField("session")
    # A stream is one call of one session, checked as Recommend is.
    with FaginClient(srv.target, timeout=30) as client:
        stream = client._stub.StreamRecommend(pb.StreamRecommendRequest(request=req), timeout=30,
                                              metadata=(("fagin-session", "other"),))
        with pytest.raises(grpc.RpcError) as e:
            list(stream)
        assert e.value.details().startswith("request.session: 'table-7', but the call's fagin-session metadata")
        # A batch's requests name many sessions: its call's metadata is not theirs to agree with.
        batch = list(client._stub.BatchRecommend(iter([pb.BatchRecommendRequest(request_id="1", request=req)]),
                                                 timeout=30, metadata=(("fagin-session", "other"),)))
        assert batch[0].recommendation.session.session == "table-7"


def test_the_http_port_forwards_the_session_header(replicas):
    srv = replicas[1]
    body = {"state": {"kuhnPoker": {"cards": [2, 0]}}, "seat": 0, "session": "http-1",
            "search": {"iterations": "50"}}
    status, answer = call(srv, "Recommend", body, {"fagin-session": "http-2"})
    assert status == 400 and answer["code"] == "invalid_argument"
    assert answer["message"].startswith("session: 'http-1', but the call's fagin-session metadata names 'http-2'")
    status, answer = call(srv, "Recommend", body, {"fagin-session": "http-1"})
    assert status == 200 and answer["session"]["session"] == "http-1"
    status, answer = call(srv, "Recommend", body, {"fagin-session": "http-1"})
    assert answer["session"]["continued"] is True
