"""Shared fixtures and helpers for the test suite."""
import os

import pytest
from hypothesis import HealthCheck, settings

from fagin.clients import FaginClient
from fagin.server.config import ServerConfig

from .serving import TEST_CONFIG, RunningServer

# A local Ray (tests/search/test_tuning.py, tests/server/test_batch.py) waits 30 s by default
# for its GCS server's port file; on 2 cores shared with other test workers that start-up can
# take longer.  Ray reads this from the environment (its processes inherit it).
os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")
# Likewise its raylet's registration with the GCS (30 s by default), which a loaded machine
# (measurements beside the suite) was seen to exceed: "GCS cannot find the node".
os.environ.setdefault("RAY_raylet_start_wait_time_s", "120")

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items):
    """Spreads the tests marked ``long(seconds)`` (a browser's full game, a local Ray, a
    ten-second deadline) over the workers, each at the head of its worker's share.

    ``make test`` runs ``pytest-xdist --dist worksteal``: it gives worker k the k-th of
    equal runs of the collected list, and idle workers steal from the tails.  Left in place,
    the browser's full games (a minute and a half in all) sat in one worker's share, one after
    another, and the whole run waited on them.  So the long tests go, longest first, to the
    share with the least expected time, at its head; the rest keep their order.  Every worker
    sorts alike (the worker count is in the environment), as xdist requires.  The tests that
    start a local Ray are not marked: started beside the browser games they left Ray's raylet
    short of its fixed 30 s to register on a loaded 2-core machine."""
    def seconds(item):
        mark = item.get_closest_marker("long")
        return None if mark is None else float(mark.args[0] if mark.args else 5)

    long = sorted((i for i in items if seconds(i) is not None), key=seconds, reverse=True)
    rest = [i for i in items if seconds(i) is None]
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    heads, load = [[] for _ in range(workers)], [0.0] * workers
    for item in long:
        k = load.index(min(load))
        heads[k].append(item)
        load[k] += seconds(item)
    # xdist's first split: worker k takes len(pending) // (workers - k) from the front.
    ordered, left = [], len(items)
    for k in range(workers):
        size = left // (workers - k)
        take = max(0, size - len(heads[k]))
        ordered += heads[k] + rest[:take]
        rest = rest[take:]
        left -= size
    items[:] = ordered + rest


# A real server shared by every test that asks for one (server, engine contract and CLI tests).

@pytest.fixture(scope="session")
def server():
    srv = RunningServer(ServerConfig(**TEST_CONFIG))
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def client(server):
    with FaginClient(server.target, timeout=60) as c:
        yield c


@pytest.fixture(scope="session")
def one_worker_server():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "workers": 1}))
    yield srv
    srv.stop()
