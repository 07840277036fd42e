"""The shared kit for learned evaluations (engines/learned.pxd and .pyx, engines/learned_model.py): the
loader refuses a model file that does not fit with the file and the field, and London, the
first room to use it, evaluates exactly as before it moved there; the rooms call the kit's one
compiled copy."""
import json
import subprocess
import sys

import pytest

from fagin.engines import new_game
from fagin.engines.learned_model import ModelEntry, read_model

NAMES = ("a", "b", "c")


def _write(tmp_path, doc):
    path = tmp_path / "learned.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def test_a_good_file_reads_and_a_missing_one_is_none(tmp_path):
    doc = {"features": list(NAMES), "models": {"2": {"bias": 0.5, "weights": [1, 2.5, -3]}}, "note": "kept"}
    got, models = read_model(_write(tmp_path, doc), NAMES, 4, "Test")
    assert got == doc and models == {2: ModelEntry((1.0, 2.5, -3.0), 0.5, None)}
    assert read_model(tmp_path / "none.json", NAMES, 4, "Test") == (None, {})


def test_a_margin_model_reads_beside_the_win_model(tmp_path):
    doc = {"features": list(NAMES), "models": {
        "2": {"bias": 0.5, "weights": [1, 2.5, -3], "margin": {"bias": -2, "weights": [0, 4, 1.5]}},
        "3": {"bias": 0.0, "weights": [0, 0, 0]}}}
    _, models = read_model(_write(tmp_path, doc), NAMES, 4, "Test")
    assert models[2].margin == ((0.0, 4.0, 1.5), -2.0) and models[3].margin is None


@pytest.mark.parametrize("models, field", [
    ({"2": {"bias": 0.0, "weights": [0.0]}}, "models.2.weights: 1 values, 3 features"),
    ({"2": {"weights": [0, 0, 0]}}, "models.2.bias: missing"),
    ({"2": {"bias": 0.0}}, "models.2.weights: missing"),
    ({"2": {"bias": "x", "weights": [0, 0, 0]}}, "models.2.bias: 'x' is not a finite number"),
    ({"2": {"bias": 0.0, "weights": [0, None, 0]}}, r"models.2.weights\[1\]: None"),
    ({"5": {"bias": 0.0, "weights": [0, 0, 0]}}, "models.5: not a player count of Test"),
    ({"1": {"bias": 0.0, "weights": [0, 0, 0]}}, "models.1: not a player count of Test"),
    ({"two": {"bias": 0.0, "weights": [0, 0, 0]}}, "models.two: not a player count of Test"),
    ([], "models: an object"),
    ({"2": {"bias": 0.0, "weights": [0, 0, 0], "margin": []}}, "models.2.margin: an object with bias and weights"),
    ({"2": {"bias": 0.0, "weights": [0, 0, 0], "margin": {"weights": [0, 0, 0]}}}, "models.2.margin.bias: missing"),
    ({"2": {"bias": 0.0, "weights": [0, 0, 0], "margin": {"bias": 1, "weights": [0]}}},
     "models.2.margin.weights: 1 values, 3 features"),
    ({"2": {"bias": 0.0, "weights": [0, 0, 0], "margin": {"bias": 1, "weights": [0, "inf", 0]}}},
     r"models.2.margin.weights\[1\]: 'inf' is not a finite number"),
])
def test_a_bad_model_is_refused_naming_the_file_and_field(tmp_path, models, field):
    path = _write(tmp_path, {"features": list(NAMES), "models": models})
    with pytest.raises(ValueError, match=rf"^learned.json: {field}"):
        read_model(path, NAMES, 4, "Test")


def test_features_must_be_the_rooms_in_order(tmp_path):
    path = _write(tmp_path, {"features": ["b", "a", "c"], "models": {}})
    with pytest.raises(ValueError, match=r"^learned.json: features \['b', 'a', 'c'\], the engine defines"):
        read_model(path, NAMES, 4, "Test")
    with pytest.raises(ValueError, match=r"^learned.json: not a model file"):
        read_model(_write(tmp_path, "{not json"), NAMES, 4, "Test")


def test_londons_learned_evaluation_is_unchanged_by_the_kit():
    """Values pinned from London's own arrays before they moved into the kit (the same
    positions: 60 heuristic moves from seed 7)."""
    from fagin.engines.london import engine as E
    want = {2: [0.5729593177484151, 0.4273837526071265],
            3: [0.2677865394593457, 0.49668955834379874, 0.4538149770456993],
            4: [0.27605777507656487, 0.2695166624366672, 0.3181981305020551, 0.2695166624366672]}
    for players, values in want.items():
        st = new_game("london", players, seed=7)
        k = 0
        while k < 60 and not st.is_terminal():
            if st.is_chance_node():
                st.resolve_chance(k)
                continue
            st.apply(E.heuristic_action(st.to_bytes(), k))
            k += 1
        assert E.learned_evaluation(st.to_bytes()) == values
    assert E.PROGRESS_FEATURE == "deck_left"


#: The kit's functions, each declared in engines/learned.pxd and defined once in engines/learned.pyx.
KIT_FUNCTIONS = ("learned_relative", "learned_has", "learned_linear", "learned_logistic", "learned_evaluate",
                 "learned_evaluate_margins", "learned_load", "learned_room", "learned_room_evaluate",
                 "learned_room_margins")


def test_the_kit_is_one_compiled_module_whose_functions_the_rooms_cimport():
    """The rooms call the kit's one copy, fagin.engines.learned, cimported under the name it is
    imported by: importing a room imports the kit, and nothing under a folder's own name."""
    code = ("import sys\n"
            "import fagin.engines.london.engine\n"
            "kit = sys.modules.get('fagin.engines.learned')\n"
            "print(sorted(getattr(kit, '__pyx_capi__', {})))\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engines', 'search', 'server')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    exported, stray = done.stdout.splitlines()
    assert exported == repr(sorted(KIT_FUNCTIONS))
    assert stray == "[]"


def test_a_room_binds_its_learned_evaluation_in_one_call_and_no_function_of_its_own():
    """The table hands the learned entries the room's model (GameDef.learned), so the kit's own
    functions are every room's entries: a room calls learned_room once and writes no entry."""
    import re
    from pathlib import Path
    engines = Path(__file__).resolve().parents[2] / "engines"
    rooms = sorted(p for p in engines.glob("*/engine.pyx") if "learned_room(" in p.read_text(encoding="utf-8"))
    assert len(rooms) == 5
    for path in rooms:
        text = "".join(p.read_text(encoding="utf-8") for p in [path, *path.parent.glob("*.pxi")])
        assert len(re.findall(r"\blearned_room\(", text)) == 1, path
        assert not re.search(r"cdef \w+ \w+_(evaluate|margins)_learned\(", text), path
        assert "LearnedRoom" not in text, path
