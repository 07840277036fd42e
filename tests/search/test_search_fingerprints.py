"""Seeded searches answer as the stored fingerprints say (bench/search_fingerprints.py).

The stored file holds the fingerprints of over a thousand seeded searches over every game,
player count and search setting; a refactor of the search or the engines must leave them
exactly as they are.  This test re-runs a spread of them (every setting, every game) in a
few seconds; the bench script re-runs them all."""
import importlib.util
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
STORED = BENCH / "data" / "search_fingerprints.json"


def _script():
    spec = importlib.util.spec_from_file_location("search_fingerprints", BENCH / "search_fingerprints.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: A stride prime to the number of settings, so that the subset takes every setting in turn
#: across the games.
EVERY = 17


def test_a_subset_of_the_stored_searches_answers_as_stored():
    script = _script()
    stored = json.loads(STORED.read_text())
    found = script.run(EVERY)
    assert {v["kind"] for v in found.values()} == {kind for _, kind, _ in script.SETTINGS}
    assert {k.split("/")[0] for k in found} == {k.split("/")[0] for k in stored}
    assert len(found) >= 60 and set(found) <= set(stored)
    assert script.differences(stored, found) == []


def test_the_stored_file_holds_every_search():
    script = _script()
    stored = json.loads(STORED.read_text())
    keys = [key for key, *_ in script.cases()]
    assert sorted(stored) == sorted(keys) and len(keys) >= 500


def test_a_changed_visit_count_or_value_is_listed():
    script = _script()
    stored = json.loads(STORED.read_text())
    key = next(k for k, v in stored.items() if "root" in v and v["root"][0][1] > 0)
    changed = json.loads(json.dumps(stored[key]))
    changed["root"][0][1] += 1
    changed["root"][0][2] += 1e-12
    assert script.differences({key: stored[key]}, {key: changed}) == [
        f"{key}: .root[0][1]: {stored[key]['root'][0][1]} stored, {changed['root'][0][1]} now",
        f"{key}: .root[0][2]: {stored[key]['root'][0][2]!r} stored, {changed['root'][0][2]!r} now"]
