"""Shared fixtures and helpers for the test suite."""
import os

import pytest
from hypothesis import HealthCheck, settings

from fagin.clients import FaginClient
from fagin.server.config import ServerConfig

from .serving import TEST_CONFIG, RunningServer

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
