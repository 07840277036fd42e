"""Python client for the fagin service, synchronous and asyncio.

    from fagin.clients import FaginClient

    with FaginClient("127.0.0.1:50051") as fagin:
        state = fagin.new_game("kids_of_london", players=4, seed=1).state
        rec = fagin.recommend(state, seat=0, iterations=5000)
        print(rec.action.label, [(s.action.label, s.visits) for s in rec.actions])

Every method returns the API's protobuf messages (``fagin.v1.fagin_pb2``);
errors are ``grpc.RpcError`` with the server's status code and a message that
names the offending field.

A server with TLS and a token (docs/operating.md, Security)::

    FaginClient("fagin.example:50051", ca_file="ca.pem", token=os.environ["FAGIN_AUTH_TOKEN"])

``tls=True`` alone verifies the server against the system's root certificates;
``cert_file``/``key_file`` present a client certificate (mTLS).
"""
from __future__ import annotations

import json
import random
from typing import AsyncIterator, Iterable, Iterator

import grpc
from google.protobuf import json_format

from fagin.v1 import fagin_pb2 as pb
from fagin.v1 import fagin_pb2_grpc

DEFAULT_TARGET = "127.0.0.1:50051"

#: The trailing metadata by which a server says how long to wait before retrying (gRFC A6).
RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"
#: Attempts of a call refused RESOURCE_EXHAUSTED (admission control) that gRPC's retry policy
#: makes in all, each after the server's grpc-retry-pushback-ms (jittered by the server), or
#: without a hint after gRPC's own randomized exponential backoff.
RETRY_ATTEMPTS = 5
#: The longest a client waits on its own after a refusal (``backoff_s``).
MAX_BACKOFF_S = 5.0


def retry_service_config(attempts=RETRY_ATTEMPTS, codes=("RESOURCE_EXHAUSTED",)) -> dict:
    """A channel service config whose retry policy sends a call the server refused by load
    (``codes``) again, at most `attempts` times in all, honouring the server's pushback.
    gRPC retries only calls it has not committed to (no response yet), such as a refusal."""
    service = pb.DESCRIPTOR.services_by_name["Fagin"].full_name
    return {"methodConfig": [{
        "name": [{"service": service}],
        "retryPolicy": {"maxAttempts": attempts, "initialBackoff": "0.05s", "maxBackoff": "2s",
                        "backoffMultiplier": 2, "retryableStatusCodes": list(codes)},
    }]}


def retry_options(attempts=RETRY_ATTEMPTS) -> list:
    """Channel options for :func:`retry_service_config` (none for `attempts` below 2)."""
    if attempts < 2:
        return [("grpc.enable_retries", 0)]
    return [("grpc.service_config", json.dumps(retry_service_config(attempts))), ("grpc.enable_retries", 1)]


def pushback_ms(metadata) -> int | None:
    """The server's retry hint in ms from a status's trailing metadata, or None: none given,
    or a negative or unreadable one, which means "do not retry" (gRFC A6)."""
    for key, value in (metadata or ()):
        if key == RETRY_PUSHBACK_KEY:
            try:
                ms = int(value)
            except ValueError:
                return None
            return ms if ms >= 0 else None
    return None


def backoff_s(hint_ms, rng=None) -> float:
    """How long a client waits before its next call after a refusal hinting `hint_ms`: the
    hint, plus up to half again at random (so that clients refused together do not come back
    together), at most MAX_BACKOFF_S."""
    return min(MAX_BACKOFF_S, hint_ms / 1000 * (1 + 0.5 * (rng or random).random()))


def _read(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"{what}: cannot read {path}: {e.strerror}") from None


def target_hosts(target: str) -> list:
    """The hosts a gRPC target names ("host:port", "[::1]:port", "dns:///host:port",
    "ipv4:a:p,b:p"); none for a Unix socket, which is always local."""
    target = target.strip()
    if target.startswith(("unix:", "unix-abstract:")):
        return []
    for prefix in ("dns:///", "dns:", "ipv4:", "ipv6:"):
        if target.startswith(prefix):
            target = target[len(prefix):]
            break
    hosts = []
    for address in target.split(","):
        if address.startswith("["):
            hosts.append(address[1:address.find("]")] if "]" in address else address[1:])
        elif address.count(":") == 1:
            hosts.append(address.rsplit(":", 1)[0])
        else:                   # a bare host, or a bare IPv6 address with no port
            hosts.append(address)
    return hosts


def is_loopback_target(target: str) -> bool:
    """True when every host the target names is reachable only from this machine (a Unix
    socket always is); see :func:`fagin.server.security.is_loopback_host`."""
    from fagin.server.security import is_loopback_host
    return all(is_loopback_host(h) for h in target_hosts(target))


def channel_security(target: str, *, tls=False, ca_file=None, cert_file=None, key_file=None,
                     token=None, server_name=None):
    """``(credentials, options)`` for a channel to ``target``; credentials None = plaintext.

    TLS when ``tls`` or any TLS file is given: the server is verified against ``ca_file``
    (PEM), or the system's root certificates without one; ``cert_file`` and ``key_file``
    present a client certificate (mTLS); ``server_name`` is the name the server's certificate
    must carry when it differs from the target's host. ``token`` is sent on every call as
    ``authorization: Bearer <token>``, only over TLS or to a loopback address or Unix
    socket (gRPC's own rule for call credentials: a token in plaintext on a network can be
    read and replayed).
    """
    if bool(cert_file) != bool(key_file):
        raise ValueError("a client certificate needs both cert_file and key_file")
    tls = tls or bool(ca_file or cert_file or server_name)
    options = []
    if tls:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read(ca_file, "CA file") if ca_file else None,
            private_key=_read(key_file, "client key") if key_file else None,
            certificate_chain=_read(cert_file, "client certificate") if cert_file else None)
        if server_name:
            options.append(("grpc.ssl_target_name_override", server_name))
    elif token:
        if target.startswith("unix:"):
            credentials = grpc.local_channel_credentials(grpc.LocalConnectionType.UDS)
        elif is_loopback_target(target):
            credentials = grpc.local_channel_credentials(grpc.LocalConnectionType.LOCAL_TCP)
        else:
            raise ValueError(f"a token is sent only over TLS or to a loopback address, and "
                             f"{target} is neither: use TLS (tls=True or ca_file)")
    else:
        return None, options
    if token:
        credentials = grpc.composite_channel_credentials(
            credentials, grpc.access_token_call_credentials(token))
    return credentials, options


def make_channel(target: str, *, aio=False, **security):
    """A channel to ``target`` (grpc.aio's with ``aio``); ``security`` as for
    :func:`channel_security`."""
    credentials, options = channel_security(target, **security)
    # A refusal by load is retried after the server's hint, by gRPC itself (README, "The API").
    options = options + retry_options()
    module = grpc.aio if aio else grpc
    if credentials is None:
        return module.insecure_channel(target, options=options)
    return module.secure_channel(target, credentials, options=options)


def _channel(target, channel, aio, security):
    if channel is not None:
        if any(security.values()):
            raise ValueError("give either a channel or the security options, not both")
        return channel
    return make_channel(target, aio=aio, **security)


def search_settings(iterations=None, time_ms=None, seed=0, exploration=None, algorithm="", gamma=None,
                    sample_action=False, threads=None, rollout="", level=None, temperature=None,
                    min_iterations=None, stop_when_decided=False):
    """A SearchSettings message; None (or "") leaves a field to the server's default."""
    s = pb.SearchSettings(seed=seed, algorithm=algorithm, sample_action=sample_action, rollout=rollout,
                          stop_when_decided=stop_when_decided)
    # Fields with presence: set only when given, so that "not sent" keeps its own meaning
    # (a level's own temperature, min_iterations' default of 1).
    present = {"level": level, "temperature": temperature, "min_iterations": min_iterations, "threads": threads,
               "gamma": gamma, "iterations": iterations, "time_ms": time_ms, "exploration": exploration}
    for name, value in present.items():
        if value is not None:
            setattr(s, name, value)
    return s


def analysis_settings(candidates=None, pv_depth=None, beliefs=False, final_move=""):
    """An AnalysisSettings message; None (or "") leaves a field to the server's default."""
    a = pb.AnalysisSettings(beliefs=beliefs, final_move=final_move)
    if candidates is not None:
        a.candidates = candidates
    if pv_depth is not None:
        a.pv_depth = pv_depth
    return a


#: The request metadata that names a call's session (RecommendRequest.session) for a load
#: balancer to route the session's calls to the replica that keeps its tree: a balancer cannot
#: read the request's body.  The server refuses a call whose metadata names another session
#: than its request (docs/operating.md, "Sessions behind several replicas").
SESSION_METADATA = "fagin-session"


def session_metadata(session) -> tuple:
    """The metadata a call of ``session`` carries for the balancer (none without a session)."""
    return ((SESSION_METADATA, session),) if session else ()


def _set_position(req, state, record):
    """Puts the position into a request: ``state`` (a GameState, or a GameRecord given in its
    place) or ``record`` (a GameRecord: a complete record or a seat's view)."""
    if record is None and isinstance(state, pb.GameRecord):
        state, record = None, state
    if record is not None:
        if state is not None:
            raise ValueError("give state or record, not both")
        req.record.CopyFrom(record)
    elif state is not None:
        req.state.CopyFrom(state)
    return req


def recommend_request(state=None, seat=0, analysis=None, session="", new_session=False, record=None, ponder_ms=0,
                      **settings):
    """A RecommendRequest; ``settings`` as for :func:`search_settings`; ``analysis``: an
    AnalysisSettings, a dict of :func:`analysis_settings`' arguments (``{}``: the
    defaults) or None (not an analysis request); ``session``: the game's name for the server
    to keep the seat's search tree under between calls ("": none kept), one that is hard to
    guess; ``new_session``: let the server make that name (the answer's ``session.session``
    holds it, to be sent as ``session`` in the seat's next calls); ``record``: a GameRecord in
    place of ``state`` (or pass it as ``state``); ``ponder_ms``: with a session, how long the
    server may go on searching the seat's kept tree after answering, while the others think."""
    req = _set_position(pb.RecommendRequest(seat=seat, search=search_settings(**settings), session=session,
                                            new_session=new_session, ponder_ms=ponder_ms), state, record)
    if analysis is not None:
        req.analysis.CopyFrom(analysis if isinstance(analysis, pb.AnalysisSettings)
                              else analysis_settings(**analysis))
    return req


def _apply_request(state, action, seat, seed, stop_at_chance, observer=None, record=None):
    req = _set_position(pb.ApplyActionRequest(seed=seed, stop_at_chance=stop_at_chance), state, record)
    if seat is not None:
        req.seat = seat
    if observer is not None:
        req.observer = observer
    if isinstance(action, pb.Action):
        req.action.CopyFrom(action)
    elif action is not None:
        req.action_id = int(action)
    return req


def _legal_request(state, seat, record=None):
    req = _set_position(pb.LegalActionsRequest(), state, record)
    if seat is not None:
        req.seat = seat
    return req


def _view_request(state, seat, record=None):
    return _set_position(pb.ViewStateRequest(seat=seat), state, record)


def _new_game_request(game, players, seed, options):
    return pb.NewGameRequest(game=game, players=players, seed=seed,
                             options={k: str(v) for k, v in options.items()})


class _Client:
    """What both clients hold: the channel (a ``grpc.aio`` one where ``_aio``), its stub and
    the default deadline."""

    _aio = False

    def __init__(self, target: str = DEFAULT_TARGET, *, timeout: float | None = None,
                 channel: grpc.Channel | grpc.aio.Channel | None = None, tls=False, ca_file=None,
                 cert_file=None, key_file=None, token=None, server_name=None):
        self.target = target
        self.timeout = timeout
        self._channel = _channel(target, channel, self._aio, dict(
            tls=tls, ca_file=ca_file, cert_file=cert_file, key_file=key_file, token=token,
            server_name=server_name))
        self._stub = fagin_pb2_grpc.FaginStub(self._channel)

    def _t(self, timeout):
        return self.timeout if timeout is None else timeout


class FaginClient(_Client):
    """A blocking client. ``timeout`` (seconds) is the default deadline of every call.

    ``tls``, ``ca_file``, ``cert_file``, ``key_file``, ``token``, ``server_name``: see
    :func:`channel_security`.
    """

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def list_games(self, *, timeout=None) -> list:
        """Every game served, with player counts, options and algorithms."""
        return list(self._stub.ListGames(pb.ListGamesRequest(), timeout=self._t(timeout)).games)

    def new_game(self, game: str, players: int, seed: int = 0, *, timeout=None, **options):
        """A new game (NewGameResponse: ``.state``, ``.status``, and ``.record``, the game's
        record so far, which every call below takes in place of a state)."""
        return self._stub.NewGame(_new_game_request(game, players, seed, options), timeout=self._t(timeout))

    def legal_actions(self, state=None, seat=None, *, record=None, timeout=None):
        """LegalActionsResponse: ``.actions`` (and ``.probabilities`` at a chance node).
        ``state`` may be a GameRecord, or give ``record=`` instead (the same in every call)."""
        return self._stub.LegalActions(_legal_request(state, seat, record), timeout=self._t(timeout))

    def apply(self, state=None, action=None, seat=None, seed=0, stop_at_chance=False, *, observer=None,
              record=None, timeout=None):
        """ApplyActionResponse after ``action`` (an id or an Action with its typed form), with
        every seat's events, or only ``observer``'s and then also its ``view`` of the new state
        and, if it is to decide there, its ``legal_actions``. Given a record, the answer's
        ``.record`` is that record extended by what happened."""
        return self._stub.ApplyAction(_apply_request(state, action, seat, seed, stop_at_chance, observer, record),
                                      timeout=self._t(timeout))

    def view(self, state=None, seat=0, *, record=None, timeout=None):
        """ViewStateResponse: the state as ``seat`` sees it, and a text rendering."""
        return self._stub.ViewState(_view_request(state, seat, record), timeout=self._t(timeout))

    def view_record(self, record, seat, *, timeout=None):
        """ViewRecordResponse: ``.record``, ``seat``'s view of a complete record, and ``.view``,
        the position it reaches as ``seat`` sees it."""
        return self._stub.ViewRecord(pb.ViewRecordRequest(record=record, seat=seat), timeout=self._t(timeout))

    def recommend(self, state=None, seat=0, *, timeout=None, **settings):
        """A Recommendation; ``settings``: iterations, time_ms, seed, exploration, algorithm,
        gamma, sample_action, threads, rollout, level, temperature, min_iterations,
        stop_when_decided (see ``SearchSettings`` in fagin.proto), and ``analysis``,
        ``session``, ``new_session``, ``record`` and ``ponder_ms`` (see :func:`recommend_request`).  A
        call with a ``session`` carries it as ``fagin-session`` metadata too, for a balancer in
        front of several replicas to route the session's calls to the one keeping its tree."""
        req = recommend_request(state, seat, **settings)
        return self._stub.Recommend(req, timeout=self._t(timeout), metadata=session_metadata(req.session))

    def stream_recommend(self, state=None, seat=0, report_interval_ms=100, *, timeout=None,
                         **settings) -> Iterator:
        """RecommendProgress messages; the last one has ``final`` set (a ``session`` is sent as
        metadata too, as by :meth:`recommend`)."""
        req = pb.StreamRecommendRequest(request=recommend_request(state, seat, **settings),
                                        report_interval_ms=report_interval_ms)
        return self._stub.StreamRecommend(req, timeout=self._t(timeout), metadata=session_metadata(req.request.session))

    def batch_recommend(self, requests: Iterable, *, timeout=None) -> Iterator:
        """BatchRecommendResponse per request, in completion order.

        ``requests``: ``(request_id, RecommendRequest)`` pairs (any iterable,
        consumed as the server asks for more).
        """
        stream = (pb.BatchRecommendRequest(request_id=rid, request=req) for rid, req in requests)
        return self._stub.BatchRecommend(stream, timeout=self._t(timeout))


class AsyncFaginClient(_Client):
    """The asyncio client: the same methods as :class:`FaginClient`, awaitable."""

    _aio = True

    async def close(self):
        await self._channel.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def list_games(self, *, timeout=None):
        return list((await self._stub.ListGames(pb.ListGamesRequest(), timeout=self._t(timeout))).games)

    async def new_game(self, game, players, seed=0, *, timeout=None, **options):
        return await self._stub.NewGame(_new_game_request(game, players, seed, options),
                                        timeout=self._t(timeout))

    async def legal_actions(self, state=None, seat=None, *, record=None, timeout=None):
        return await self._stub.LegalActions(_legal_request(state, seat, record), timeout=self._t(timeout))

    async def apply(self, state=None, action=None, seat=None, seed=0, stop_at_chance=False, *, observer=None,
                    record=None, timeout=None):
        return await self._stub.ApplyAction(
            _apply_request(state, action, seat, seed, stop_at_chance, observer, record), timeout=self._t(timeout))

    async def view(self, state=None, seat=0, *, record=None, timeout=None):
        return await self._stub.ViewState(_view_request(state, seat, record), timeout=self._t(timeout))

    async def view_record(self, record, seat, *, timeout=None):
        return await self._stub.ViewRecord(pb.ViewRecordRequest(record=record, seat=seat),
                                           timeout=self._t(timeout))

    async def recommend(self, state=None, seat=0, *, timeout=None, **settings):
        req = recommend_request(state, seat, **settings)
        return await self._stub.Recommend(req, timeout=self._t(timeout), metadata=session_metadata(req.session))

    async def stream_recommend(self, state=None, seat=0, report_interval_ms=100, *, timeout=None,
                               **settings) -> AsyncIterator:
        req = pb.StreamRecommendRequest(request=recommend_request(state, seat, **settings),
                                        report_interval_ms=report_interval_ms)
        async for progress in self._stub.StreamRecommend(req, timeout=self._t(timeout),
                                                         metadata=session_metadata(req.request.session)):
            yield progress

    async def batch_recommend(self, requests, *, timeout=None) -> AsyncIterator:
        """``requests``: an iterable or async iterable of ``(request_id, RecommendRequest)``."""
        async def stream():
            if hasattr(requests, "__aiter__"):
                async for rid, req in requests:
                    yield pb.BatchRecommendRequest(request_id=rid, request=req)
            else:
                for rid, req in requests:
                    yield pb.BatchRecommendRequest(request_id=rid, request=req)
        async for resp in self._stub.BatchRecommend(stream(), timeout=self._t(timeout)):
            yield resp


def message_to_dict(message, snake_case: bool = False) -> dict:
    """A message in proto3 JSON as the HTTP API answers it: field names in lowerCamelCase
    (protobuf's default JSON mapping, ``meanValue``), or as in the .proto with `snake_case`
    (``mean_value``); fields at their default written too (action id 0 is an action)."""
    try:
        return json_format.MessageToDict(message, preserving_proto_field_name=snake_case,
                                         always_print_fields_with_no_presence=True)
    except TypeError:      # protobuf < 5
        return json_format.MessageToDict(message, preserving_proto_field_name=snake_case,
                                         including_default_value_fields=True)
