"""The server's settings, its request validation and the proto comments follow `search/limits.py`."""
import pathlib
import re

import pytest

from fagin.engines import new_game
from fagin.search import limits
from fagin.server import request
from fagin.server.codec import encode_state
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb

PROTO = pathlib.Path(__file__).resolve().parents[2] / "proto" / "fagin" / "v1" / "fagin.proto"


def test_server_settings_are_bounded_by_what_a_search_accepts():
    # The default node cap is derived from the tree-memory budget, never above the search's default.
    assert 1 <= ServerConfig().node_cap <= limits.DEFAULT_MAX_NODES
    at_limits = ServerConfig(max_iterations=limits.MAX_ITERATIONS, max_time_ms=limits.MAX_TIME_MS,
                             max_nodes=limits.MAX_NODES)
    assert at_limits.max_iterations == limits.MAX_ITERATIONS
    for name, limit in [("max_iterations", limits.MAX_ITERATIONS), ("max_time_ms", limits.MAX_TIME_MS),
                        ("max_nodes", limits.MAX_NODES)]:
        with pytest.raises(ValueError, match=name):
            ServerConfig(**{name: limit + 1})


def _request(**search):
    state = encode_state(new_game("kids_of_london", players=3, seed=1))
    return pb.RecommendRequest(state=state, seat=0, search=pb.SearchSettings(**search))


@pytest.mark.parametrize("algorithm", request.SELECTION)
def test_search_defaults_come_from_limits(algorithm):
    job = request.prepare(_request(algorithm=algorithm, iterations=10), ServerConfig(workers=1))
    assert job.settings.exploration == limits.DEFAULT_EXPLORATION
    gamma = limits.DEFAULT_GAMMA[request.SELECTION[algorithm]]
    assert request.DEFAULT_GAMMA[algorithm] == gamma
    if algorithm != "ismcts":
        assert job.settings.gamma == gamma


def test_exploration_range_is_the_limits_one():
    config = ServerConfig(workers=1)
    request.prepare(_request(iterations=10, exploration=limits.MAX_EXPLORATION), config)
    with pytest.raises(request.BadRequest, match=r"^search\.exploration: must be a number from 0 to 100,"):
        request.prepare(_request(iterations=10, exploration=limits.MAX_EXPLORATION * 1.01), config)


def test_threads_beyond_the_search_maximum_are_lowered_with_a_note():
    # A server may have more workers than one search may use: the request was
    # lowered to the workers only, and the search refused it as an internal error.
    workers = limits.MAX_THREADS + 44
    job = request.prepare(_request(iterations=10, threads=workers), ServerConfig(workers=workers))
    assert job.settings.threads == limits.MAX_THREADS
    assert len(job.searcher.parts) == limits.MAX_THREADS
    assert any(f"to the search maximum {limits.MAX_THREADS}" in n for n in job.notes)


def test_proto_comments_quote_the_limits():
    text = PROTO.read_text()
    block = re.search(r"message SearchSettings \{.*?\n\}", text, re.S).group(0)
    comments = " ".join(line.strip().removeprefix("//").strip()
                        for line in block.splitlines() if line.strip().startswith("//"))
    assert f"at most 10^{len(str(limits.MAX_ITERATIONS)) - 1}" in comments
    assert limits.MAX_ITERATIONS == 10 ** (len(str(limits.MAX_ITERATIONS)) - 1)
    assert f"at most {limits.MAX_TIME_MS}, a day" in comments and limits.MAX_TIME_MS == 86_400_000
    assert f"0 to {limits.MAX_EXPLORATION:g}; default {limits.DEFAULT_EXPLORATION} (\"ismcts\")" in comments
    gammas = {alg: limits.DEFAULT_GAMMA[sel] for alg, sel in request.SELECTION.items() if sel != "ucb"}
    assert (f"default {gammas['ismcts_rm']} (\"ismcts_rm\"), {gammas['oos']} (\"oos\")") in comments
    assert f"or above {limits.MAX_THREADS}, it is lowered" in comments
