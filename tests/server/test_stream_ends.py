"""How a streaming call that grpc closes while it waits at a report is logged.

grpc.aio ends an async-generator handler that is suspended at a ``yield`` (its report
handed over, the next not yet due) with ``GeneratorExit``, not ``CancelledError``: the
client's cancel, or the server's shutdown at the end of its grace period.  The call's
log line must still say what its client saw, CANCELLED or UNAVAILABLE, never OK."""
import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from fagin.engines import new_game
from fagin.server.codec import encode_state
from fagin.server.config import ServerConfig
from fagin.server.service import FaginService
from fagin.v1 import fagin_pb2 as pb

from ..serving import TEST_CONFIG


class WaitingContext:
    """A call's context as a handler sees it: the peer, no deadline, and a done-callback
    that the test fires when the call has ended."""

    def __init__(self):
        self.done = []

    def peer(self):
        return "ipv4:127.0.0.1:5000"

    def invocation_metadata(self):
        return ()

    def add_done_callback(self, callback):
        self.done.append(callback)

    def time_remaining(self):
        return None

    def code(self):
        return None

    def end(self):
        for callback in self.done:
            callback(self)


def stream_request():
    state = encode_state(new_game("kids_of_london", players=4, seed=3))
    return pb.StreamRecommendRequest(
        request=pb.RecommendRequest(state=state, seat=0, search=pb.SearchSettings(iterations=10**6, time_ms=4_000)),
        report_interval_ms=50)


def stream_closed_at_a_report(shutting_down):
    """The code logged for a StreamRecommend that grpc closes at its first report."""
    config = ServerConfig(**TEST_CONFIG)
    executor = ThreadPoolExecutor(config.workers)
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("fagin.server")
    keep = Keep(logging.INFO)
    old_level = logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)

    async def main():
        service = FaginService(config, executor)
        context = WaitingContext()
        reports = service.StreamRecommend(stream_request(), context)
        first = pb.RecommendProgress.FromString(await reports.__anext__())
        assert not first.final
        if shutting_down:
            service.scheduler.shutdown_begins(0)
        await reports.aclose()             # what grpc does to a generator suspended at a yield
        context.end()
        assert service.scheduler.admission.reserved_bytes == 0
    try:
        asyncio.run(main())
    finally:
        logger.removeHandler(keep)
        logger.setLevel(old_level)
        executor.shutdown(cancel_futures=True)
    lines = [r.getMessage() for r in records if r.getMessage().startswith("StreamRecommend ")]
    assert len(lines) == 1, lines
    return lines[0].split()[2]


@pytest.mark.parametrize("shutting_down, code", [(False, "CANCELLED"), (True, "UNAVAILABLE")])
def test_a_stream_closed_at_a_report_is_logged_as_its_client_sees_it(shutting_down, code):
    assert stream_closed_at_a_report(shutting_down) == code
