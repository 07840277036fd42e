"""The README's two-minute tour runs as written: every `fagin` line of it, in order, against
a real server, and the recommendation it prints is the one the README shows."""
import io
import pathlib
import re
import shlex
import sys

from fagin.clients import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tour_lines():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## Two-minute tour", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```sh\n(.*?)^```", tour, re.M | re.S).group(1)
    lines = [line for line in block.splitlines() if line.startswith("fagin ")]
    shown = {}          # the output the README shows under a command: its "#   " lines
    last = None
    for line in block.splitlines():
        if line.startswith("fagin "):
            last = line
        elif line.startswith("#   ") and last is not None:
            shown.setdefault(last, []).append(line[4:])
    return lines, shown


def test_the_tour_runs_as_written(server, tmp_path, capsys, monkeypatch):
    lines, shown = tour_lines()
    assert len(lines) >= 10
    monkeypatch.chdir(tmp_path)
    for line in lines:
        command = line.split("  #", 1)[0].strip()
        args = shlex.split(command)[1:]
        out_file = None
        if ">" in args:
            out_file = args[args.index(">") + 1]
            args = args[:args.index(">")]
        if args[0] == "play":
            monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))     # leave the game at once
        code = cli.main(["--server", server.target, *args])
        out, err = capsys.readouterr()
        assert code == 0, f"{command}: exit {code}: {err}"
        if out_file:
            (tmp_path / out_file).write_text(out)
        for want in shown.get(line, ()):
            if want.startswith("top plays"):
                continue                     # a description of the analysis, not its output
            # The README shows the output's first rows, columns aligned by hand.
            got = [" ".join(row.split()) for row in out.splitlines()]
            want_words = " ".join(want.replace("...", "").split())
            if re.fullmatch(r"\d+ iterations, \d+ nodes, \d+ ms, stopped by iterations", want_words):
                assert any(re.fullmatch(r"\d+ iterations, \d+ nodes, \d+ ms, stopped by iterations", g)
                           for g in got), f"{command}: {want!r} not in\n{out}"
            else:
                assert any(g.startswith(want_words) for g in got), f"{command}: {want!r} not in\n{out}"
