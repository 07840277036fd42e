"""BatchRecommend's flow control and its request tags: a client that does not read its
answers stops the server reading its requests, instead of growing the server's memory."""
import time

import grpc

from fagin.server.service import BATCH_ANSWERS_AHEAD, MAX_REQUEST_ID_CHARS
from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

from .test_admission import ServiceServer, request, serve  # noqa: F401 (the fixture)

ITERATIONS = 50


def _searches_started(srv):
    return srv.service.scheduler.iterations_searched // ITERATIONS


def test_a_client_that_reads_no_answers_stops_the_server_reading_its_requests(serve):
    concurrency = 2
    srv = serve(workers=1, batch_concurrency=concurrency)
    total = 600
    # No bandwidth probing: the client's receive window stays at its initial size, so what
    # the client's transport takes in unread is small and fixed.
    channel = grpc.insecure_channel(f"127.0.0.1:{srv.port}", options=[("grpc.http2.bdp_probe", 0)])
    try:
        stub = fagin_pb2_grpc.FaginStub(channel)
        items = (pb.BatchRecommendRequest(request_id=str(k), request=request(iterations=ITERATIONS, seed=k))
                 for k in range(total))
        answers = stub.BatchRecommend(items, timeout=60)
        # Nothing is read: the server searches until the client's window and its own small
        # queue are full, then reads no more requests.
        full = concurrency * BATCH_ANSWERS_AHEAD
        deadline = time.monotonic() + 30
        while srv.service.batch_answers_waiting < full:
            assert time.monotonic() < deadline, f"{srv.service.batch_answers_waiting} answers wait, not {full}"
            time.sleep(0.05)
        # The queue full, no more requests are read: far from all of them were searched.
        assert _searches_started(srv) < total // 2
        assert srv.service.batch_answers_waiting == full
        # Reading resumes the batch: every answer arrives, exactly once.
        ids = [a.request_id for a in answers]
        assert sorted(ids, key=int) == [str(k) for k in range(total)]
        assert srv.service.batch_answers_waiting == 0
    finally:
        channel.close()


def test_a_request_id_too_long_to_echo_is_refused_by_name(serve):
    srv = serve(workers=1)
    long_id = "x" * 100_000
    items = [pb.BatchRecommendRequest(request_id=long_id, request=request(iterations=ITERATIONS)),
             pb.BatchRecommendRequest(request_id="r" * MAX_REQUEST_ID_CHARS, request=request(iterations=ITERATIONS))]
    answers = list(srv.stub.BatchRecommend(iter(items), timeout=20))
    assert len(answers) == 2
    refused = next(a for a in answers if a.HasField("error"))
    assert refused.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert refused.error.message.startswith(
        f"request_id: at most {MAX_REQUEST_ID_CHARS} characters, got 100000")
    assert len(refused.error.message) < 300
    assert refused.request_id == ""          # never echoed: it is what was too long
    served = next(a for a in answers if a.HasField("recommendation"))
    assert served.request_id == "r" * MAX_REQUEST_ID_CHARS
