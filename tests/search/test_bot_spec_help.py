"""Every kind of bot spec that make_bot parses is explained in the help of every command that
takes bot specs (before: `fagin arena --help` lacked remote:, level:N, :reuse=1, :decided=1),
all of it from one source, fagin.search.bots.SPEC_KINDS and SETTING_HELP."""
import ast
import inspect
import re
import textwrap

import pytest

from fagin.search import arena, bots, levels, tournament, train, tune
from fagin.search.ismcts import ROLLOUTS


def _names_make_bot_parses():
    """The words make_bot compares a spec's head with (``name == "random"``, ``name in
    ("remote", ...)``, ``base not in levels.ALGORITHMS + ("auto",)``), read from its source:
    a kind added there shows up here without this test changing."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(bots.make_bot)))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in ("name", "base"):
            for comparator in node.comparators:
                value = eval(compile(ast.Expression(comparator), "make_bot", "eval"), {"levels": levels})
                found.update([value] if isinstance(value, str) else value)
    return found


def _tokens():
    """(the spec heads make_bot parses, which must stand as words; the other forms)."""
    heads = _names_make_bot_parses()
    assert {"random", "heuristic", "policy", "level", "remote", "remote-determinized", "ismcts", "auto"} <= heads
    forms = ([f":{r}" for r in ROLLOUTS] + [":sample", "@MSms", "xTHREADS", ":ITERATIONS", "level:N",
                                           "remote:HOST:PORT:SPEC"]
             + [f"{key}=" for key in bots.TUNABLE] + ["reuse=1", "decided=1"])
    return sorted(heads), forms


def _help(main, capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    return capsys.readouterr().out


COMMANDS = {
    "fagin arena": tournament.main,
    "python -m fagin.search.arena": arena.main,
    "python -m fagin.search.tune": tune.main,
    "python -m fagin.train": train.main,
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_spec_kind_is_in_the_commands_help(command, capsys):
    text = _help(COMMANDS[command], capsys)
    heads, forms = _tokens()
    missing = ([h for h in heads if not re.search(r"(?<![\w-])" + re.escape(h) + r"(?![\w-])", text)]
               + [f for f in forms if f not in text])
    assert not missing, f"{command} --help does not explain {missing}"


def test_the_help_and_make_bots_docstring_are_one_text():
    assert bots.spec_help() in bots.make_bot.__doc__
    assert set(bots.SETTING_HELP) == set(bots.TUNABLE)
    for example in bots.EXAMPLE_SPECS:
        if not example.startswith("remote"):
            bots.make_bot(example)           # every example is a spec make_bot takes
