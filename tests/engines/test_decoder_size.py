"""A room's decoder of client positions (``from_description`` and the functions of the room's state
file it calls) reads as a list of named checks, one per rule, none longer than a screenful: a
reader finds the rule behind a refusal by its name, and a new rule gets a check of its own
rather than another branch in a long function (CONTRIBUTING.md, "Adding a game")."""
import ast
import io
import pathlib
import re
import tokenize

import pytest

from fagin.engines import GAMES

ROOT = pathlib.Path(__file__).resolve().parents[2]
MOST_LINES = 80
# The checks every room's decoder shares: the static shape checked before it runs, and the
# messages and bounds of the checks it writes itself.
SHARED = (ROOT / "engines" / "shape.pyx", ROOT / "engines" / "validation.py")
# A Cython function or a Python one at the top of a .pxi (a method or closure is part of it).
CYTHON_DEF = re.compile(r"^(?:async\s+def|def|cdef|cpdef)\s+(?:[\w\[\]*, .]+\s+)?\**(\w+)\s*\(")


def python_functions(text):
    """{name: (first line, lines, source)} of a Python file's top-level functions."""
    lines = text.splitlines()
    return {node.name: (node.lineno, node.end_lineno - node.lineno + 1,
                        "\n".join(lines[node.lineno - 1:node.end_lineno]))
            for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def cython_functions(text):
    """{name: (first line, lines, source)} of a .pxi's top-level def/cdef blocks: a block runs
    from its def to the last indented line before the next line at the left margin."""
    lines = text.splitlines()
    out = {}
    for i, line in enumerate(lines):
        match = CYTHON_DEF.match(line)
        if not match:
            continue
        end = i
        for j in range(i + 1, len(lines)):
            if not lines[j].strip() or lines[j].lstrip().startswith("#"):
                continue
            if not lines[j][0].isspace():
                break
            end = j
        out[match.group(1)] = (i + 1, end - i + 1, "\n".join(lines[i:end + 1]))
    return out


def names_used(source):
    """The names a function's code uses (not those only in its strings or comments)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.string for token in tokens if token.type == tokenize.NAME}


def decoder_functions(path):
    """{name: (first line, lines)} of the functions of a room's state file that its
    ``from_description`` reaches."""
    text = path.read_text(encoding="utf-8")
    functions = python_functions(text) if path.suffix == ".py" else cython_functions(text)
    reached, todo = set(), ["from_description"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += [used for used in names_used(functions[name][2]) if used in functions]
    return {name: functions[name][:2] for name in reached}


def state_file(game_id):
    folder = ROOT / "engines" / game_id
    return next(path for path in (folder / "state.pxi", folder / "state.py") if path.is_file())


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_decoder_function_is_longer_than_a_screenful(game_id):
    path = state_file(game_id)
    functions = decoder_functions(path)
    assert "from_description" in functions
    too_long = [f"{path.relative_to(ROOT)}:{line} {name}: {n} lines" for name, (line, n) in sorted(functions.items())
                if n > MOST_LINES]
    assert not too_long, f"split into named checks of at most {MOST_LINES} lines: " + "; ".join(too_long)


@pytest.mark.parametrize("path", SHARED, ids=lambda path: path.name)
def test_the_shared_checks_are_short(path):
    text = path.read_text(encoding="utf-8")
    functions = python_functions(text) if path.suffix == ".py" else cython_functions(text)
    assert functions
    too_long = [f"{name}: {n} lines" for name, (_, n, _) in functions.items() if n > MOST_LINES]
    assert not too_long, too_long


def test_the_line_counter_sees_a_cython_block_whole():
    text = ("cdef int _small(int x) nogil:\n    return x\n\n"
            "def decoder(d, game=None):\n    a = 1\n\n    # a comment at the margin of a block\n"
            "    return _small(a)\n\n\ncdef class Later:\n    pass\n")
    functions = cython_functions(text)
    assert {name: n for name, (_, n, _) in functions.items()} == {"_small": 2, "decoder": 5}
    assert "_small" in names_used(functions["decoder"][2])
