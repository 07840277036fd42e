"""Hostile strings in every string field of every request: control characters (a newline
that would forge a log line, a terminal escape, NUL) and a 3 MB string.  Each is refused
INVALID_ARGUMENT with a short message naming the field (or, a client's own tag, served),
and no log line carries the raw input."""
import io
import json
import logging
import re
import time

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor

from fagin.engines import new_game
from fagin.server.codec import encode_state
from fagin.server.logs import TEXT_FORMAT
from fagin.server.rpc import MOST_MESSAGE_CHARS
from fagin.v1 import fagin_pb2 as pb

from .test_admission import serve  # noqa: F401 (the fixture)
from .test_http import web  # noqa: F401 (the fixture)

FORGED = "x\n2026-01-01 00:00:00,000 INFO fagin.server: Recommend ipv4:10.0.0.1:1 OK 1.0ms\r\x1b[2K\x00"
HUGE = "y" * 3_000_000
# A position of each game whose state has string fields, at a player count it takes.
PLAYERS = {"london": 2, "oliver_twist": 3, "goofspiel": 2, "liars_dice": 2, "kids_of_london": 4}
# Longest message a refusal may carry: a few lines, whatever the input's length.
MOST_DETAILS = 1000


def string_fields(descriptor, prefix=(), seen=()):
    """Every path (a tuple of field descriptors) from `descriptor` to a string field."""
    for field in descriptor.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            yield prefix + (field,)
        elif field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.full_name not in seen:
            yield from string_fields(field.message_type, prefix + (field,), seen + (descriptor.full_name,))


def _put(message, path, value):
    field = path[0]
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        entries = getattr(message, field.name)
        if path[1].name == "key":
            entries[value] = "1"
        else:
            entries["points_order"] = value      # an option the game has (NewGame's game: goofspiel)
    elif len(path) == 1:
        if field.is_repeated:
            getattr(message, field.name).append(value)
        else:
            setattr(message, field.name, value)
    else:
        if field.is_repeated:
            items = getattr(message, field.name)
            sub = items[0] if len(items) else items.add()
        else:
            sub = getattr(message, field.name)
        _put(sub, path[1:], value)


def _valid_request(method, path):
    """A request of `method` that the server would serve, of the game whose field `path` reaches."""
    names = [f.name for f in path]
    game_id = next((n for n in names if n in PLAYERS), "kids_of_london")
    state = new_game(game_id, players=PLAYERS[game_id], seed=1)
    recommend = pb.RecommendRequest(state=encode_state(state), seat=state.current_player(),
                                    search=pb.SearchSettings(iterations=20))
    return {
        "NewGame": lambda: pb.NewGameRequest(game="goofspiel", players=2),
        "LegalActions": lambda: pb.LegalActionsRequest(state=encode_state(state)),
        "ApplyAction": lambda: pb.ApplyActionRequest(state=encode_state(state)),
        "ViewState": lambda: pb.ViewStateRequest(state=encode_state(state), seat=0),
        "Recommend": lambda: recommend,
        "StreamRecommend": lambda: pb.StreamRecommendRequest(request=recommend),
        "BatchRecommend": lambda: pb.BatchRecommendRequest(request_id="tag", request=recommend),
        "ViewRecord": lambda: pb.ViewRecordRequest(record=pb.GameRecord(game=game_id, players=PLAYERS[game_id])),
    }[method]()


def _call(stub, method, message):
    """(status code name, details, the answer's request_id for a batch)."""
    call = getattr(stub, method)
    try:
        if method == "StreamRecommend":
            list(call(message, timeout=30))
        elif method == "BatchRecommend":
            (answer,) = list(call(iter([message]), timeout=30))
            if answer.HasField("error"):
                code = next(c for c in grpc.StatusCode if c.value[0] == answer.error.code)
                return code.name, answer.error.message, answer.request_id
            return "OK", "", answer.request_id
        else:
            call(message, timeout=30)
        return "OK", "", None
    except grpc.RpcError as e:
        return e.code().name, e.details(), None


def _names(details, path):
    """Whether a refusal starts by naming the field's place: the message that holds it (a
    decoder may name a sibling there, the field a rule ties it to), one of its fields, or a
    message around it (a state too large as a whole is refused as ``state``); indexes dropped."""
    names = [f.name for f in path]
    if path[-1].containing_type.GetOptions().map_entry:
        holder = names[:-2]
    else:
        holder = names[:-1] if len(names) > 1 else names
    named = re.sub(r"\[\d+\]", "", details).split(":")[0].split(" ")[0].split(".")
    return bool(named[0]) and (holder[:len(named)] == named or named[:len(holder)] == holder)


@pytest.mark.long(8)
def test_every_string_field_refuses_hostile_strings_by_name_and_logs_none_raw(serve):
    srv = serve(workers=1)
    logger = logging.getLogger("fagin")
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    problems, tried = [], 0
    try:
        for method in pb.DESCRIPTOR.services_by_name["Fagin"].methods:
            for path in string_fields(method.input_type):
                for value in (FORGED, HUGE):
                    message = _valid_request(method.name, path)
                    _put(message, path, value)
                    code, details, tag = _call(srv.stub, method.name, message)
                    tried += 1
                    where = f"{method.name} {'.'.join(f.name for f in path)} ({len(value)} characters)"
                    if path[-1].name == "request_id" and value is FORGED:
                        # The client's own tag, echoed to it alone: served, returned as sent.
                        if (code, tag) != ("OK", FORGED):
                            problems.append(f"{where}: {code} {tag!r}")
                        continue
                    if code != "INVALID_ARGUMENT":
                        problems.append(f"{where}: {code} {details[:200]!r}")
                    elif not _names(details, path):
                        problems.append(f"{where}: the message does not name the field: {details[:200]!r}")
                    elif len(details) > MOST_DETAILS:
                        problems.append(f"{where}: a message of {len(details)} characters")
        time.sleep(0.3)           # call log lines are written once each call has ended
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert tried > 400
    assert not problems, "\n".join(problems)
    log = captured.getvalue()
    assert log, "no call was logged"
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")
    # A traceback's lines are the only ones that may not start with a time stamp; none is expected.
    lines = log.split("\n")
    assert not [line for line in lines if line and not stamp.match(line)]
    # The forged line would begin as a real one does: its own time stamp gives it away.
    assert not [line for line in lines if line.startswith(FORGED.split("\n")[1][:23])]
    assert not any(c in log for c in "\r\x1b\x00")
    assert max(len(line) for line in log.split("\n")) < 2000


def test_a_status_message_is_bounded_whatever_raised_it():
    # The last guard behind the quoting: a message over gRPC's 16 KB metadata limit would
    # reach the client as RESOURCE_EXHAUSTED instead of its status.
    from fagin.server.codec import BadRequest
    from fagin.server.rpc import MOST_MESSAGE_CHARS, error_of

    code, message = error_of(BadRequest("state.x: " + "z" * 50_000), "Recommend")
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message.startswith("state.x: zzz")
    assert len(message) < MOST_MESSAGE_CHARS + 100
    assert message.endswith(f"(message cut at {MOST_MESSAGE_CHARS} of 50009 characters)")


def test_an_option_named_like_a_parameter_is_an_unknown_option(serve):
    # Before: passed on to the engine as a keyword, it clashed with its `players` parameter
    # and the call failed INTERNAL.
    srv = serve(workers=1)
    with pytest.raises(grpc.RpcError) as e:
        srv.stub.NewGame(pb.NewGameRequest(game="goofspiel", players=2, options={"players": "3"}), timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("options: unknown option 'players' for goofspiel; known: ")


@pytest.mark.parametrize("case", ["unknown key", "huge unknown key", "key given twice", "value", "path",
                                  "content type", "timeout header"])
def test_http_errors_quote_and_bound_what_the_client_sent(web, case):
    from .test_http import JSON, request
    twice = FORGED + "z" * 10_000          # in a body over the inline JSON size, read by BoundedJson
    path, headers, body = "/fagin.v1.Fagin/Recommend", dict(JSON), None
    if case == "unknown key":
        body = json.dumps({FORGED: 1})
    elif case == "huge unknown key":
        body = json.dumps({FORGED + "k" * 500_000: 1})
    elif case == "key given twice":
        body = '{"state":{"kuhnPoker":{%s:1,%s:2}}}' % (json.dumps(twice), json.dumps(twice))
    elif case == "value":
        path, body = "/fagin.v1.Fagin/NewGame", json.dumps({"game": FORGED + HUGE[:500_000]})
    elif case == "path":
        path = "/fagin.v1.Fagin/" + "%0A%1B" * 1000
    elif case == "content type":
        headers["Content-Type"] = "application/" + "x" * 6000
    else:
        headers["connect-timeout-ms"] = "9" * 6000
    status, _, answer = request(web, path, (body or "{}").encode(), headers)
    message = json.loads(answer)["message"]
    assert 400 <= status < 500, answer[:300]
    assert not re.search(r"[\n\r\x1b\x00]", message), message[:300]
    assert len(message) <= MOST_MESSAGE_CHARS + 100, len(message)
    assert FORGED not in message and "k" * 1000 not in message
