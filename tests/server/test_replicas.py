"""Sessions behind several replicas: a session's kept tree lives on one server, so its calls
must reach that server (a balancer hashing on the ``fagin-session`` metadata); a call that
lands on another replica searches afresh from its record and still answers correctly."""
import os
import re
import shutil
import socket
import subprocess
import time
import types
from pathlib import Path

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


# --- through a real nginx, with deploy/nginx.conf ------------------------------------------------

NGINX_CONF = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"


def _nginx():
    """nginx's path; without it the test is skipped, except in CI (CI=true), where it fails."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        message = "nginx is not installed: apt-get install nginx (make test does it as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def deploy_config(replicas, grpc_port, http_port, prefix):
    """deploy/nginx.conf with the test's replicas and ports, its files under `prefix`."""
    text = NGINX_CONF.read_text()
    for upstream, port_of in (("fagin_grpc", lambda s: s.port), ("fagin_http", lambda s: s.server.http.port)):
        block = re.search(r"upstream %s \{.*?\n    \}" % upstream, text, re.S).group(0)
        lines = [line for line in block.splitlines() if not re.match(r"\s+server \S+;$", line)]
        servers = [f"        server 127.0.0.1:{port_of(s)};" for s in replicas]
        text = text.replace(block, "\n".join(lines[:2] + servers + lines[2:]))
    text = text.replace("listen 50051 http2;", f"listen 127.0.0.1:{grpc_port} http2;")
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{http_port};")
    text = text.replace("worker_processes auto;", "worker_processes 1;")
    temp = "\n".join(f"    {kind}_temp_path {prefix}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {\n", f"http {{\n    access_log off;\n{temp}\n", 1)
    assert text.count("server 127.0.0.1:") == 2 * len(replicas) and "10.0.0." not in text, text
    return text


def wait_for_port(port, process, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert process.poll() is None, "nginx stopped"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


@pytest.fixture(scope="module")
def balancer(replicas, tmp_path_factory):
    executable = _nginx()
    prefix = tmp_path_factory.mktemp("nginx")
    grpc_port, http_port = free_port(), free_port()
    (prefix / "nginx.conf").write_text(deploy_config(replicas, grpc_port, http_port, prefix))
    process = subprocess.Popen([executable, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                                "-e", str(prefix / "error.log"), "-g", f"daemon off; pid {prefix}/nginx.pid;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(grpc_port, process)
        wait_for_port(http_port, process)
        yield grpc_port, http_port
    finally:
        process.terminate()
        process.wait(10)


def trees_kept(srv):
    return {key[1] for key in srv.server.service.sessions.kept}


def test_through_nginx_a_session_always_reaches_the_replica_that_keeps_its_tree(replicas, balancer):
    """Both ports through deploy/nginx.conf: every call of a session after its first goes on
    from its tree (a round robin would send every other call to the replica without it), and
    the sessions are spread over both replicas."""
    grpc_port, http_port = balancer
    names = [f"nginx-{k}" for k in range(8)]
    with FaginClient(f"127.0.0.1:{grpc_port}", timeout=30) as client:
        for name in names:
            reports = [client.recommend(KUHN, 0, iterations=40, seed=k, session=name).session for k in range(3)]
            assert not reports[0].continued and all(r.continued for r in reports[1:]), (name, reports)
    web = [f"nginx-web-{k}" for k in range(8)]
    port = types.SimpleNamespace(server=types.SimpleNamespace(http=types.SimpleNamespace(port=http_port)))
    for name in web:
        body = {"state": {"kuhnPoker": {"cards": [2, 0]}}, "seat": 0, "session": name, "search": {"iterations": "40"}}
        continued = [call(port, "Recommend", body, {"fagin-session": name})[1]["session"].get("continued", False)
                     for _ in range(3)]
        assert continued == [False, True, True], (name, continued)
    held = [trees_kept(srv) & set(names + web) for srv in replicas]
    assert held[0] and held[1] and not held[0] & held[1] and held[0] | held[1] == set(names + web), held


def test_the_kubernetes_balancer_hashes_the_session_header_over_the_ready_pods():
    """deploy/kubernetes.yaml's Envoy (no Envoy here to run it): its route hashes the header the
    clients send, onto a ring of the headless Service's pods, at the servers' port."""
    import yaml
    manifest = {(d["kind"], d["metadata"]["name"]): d
                for d in yaml.safe_load_all((NGINX_CONF.parent / "kubernetes.yaml").read_text())}
    envoy = yaml.safe_load(manifest["ConfigMap", "fagin-balancer"]["data"]["envoy.yaml"])["static_resources"]
    (listener,) = envoy["listeners"]
    (manager,) = listener["filter_chains"][0]["filters"]
    (host,) = manager["typed_config"]["route_config"]["virtual_hosts"]
    (route,) = host["routes"]
    assert route["route"]["hash_policy"] == [{"header": {"header_name": SESSION_METADATA}}]
    (cluster,) = envoy["clusters"]
    assert route["route"]["cluster"] == cluster["name"]
    assert (cluster["type"], cluster["lb_policy"]) == ("STRICT_DNS", "RING_HASH")
    (endpoint,) = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"]
    address = endpoint["endpoint"]["address"]["socket_address"]
    assert address["address"].startswith("fagin-headless.")
    assert manifest["Service", "fagin-headless"]["spec"]["clusterIP"] == "None"
    env = {e["name"]: e["value"] for e in
           manifest["Deployment", "fagin"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert address["port_value"] == int(env["FAGIN_PORT"]) == listener["address"]["socket_address"]["port_value"]
    balancer = manifest["Deployment", "fagin-balancer"]["spec"]["template"]["spec"]
    assert balancer["volumes"][0]["configMap"]["name"] == "fagin-balancer"
    assert manifest["Service", "fagin-balancer"]["spec"]["selector"] == {"app": "fagin-balancer"}
