"""`fagin play oliver_twist --players 3`: a whole game in the terminal against bots (OT-36)."""
import io
import re
from types import SimpleNamespace

from fagin.clients import FaginClient, cli


class _FirstOption(io.StringIO):
    """A terminal user who always types the first option the game listed."""

    def __init__(self, out):
        super().__init__()
        self.out = out

    def readline(self):
        shown = re.findall(r"your options: \[(\d+)\]", self.out.getvalue())
        return shown[-1] + "\n"


def test_play_oliver_twist_to_the_end_OT_36(server):
    out = io.StringIO()
    args = SimpleNamespace(players=3, seat=0, seed=5, game="oliver_twist", iterations=20)
    with FaginClient(server.target) as client:
        cli.cmd_play(client, args, stdin=_FirstOption(out), out=out)
    text = out.getvalue()
    assert "You are seat 0" in text and "space numbers" in text and "spaces to choose:" in text
    assert "game over:\n  seat 0 (you)  " in text and "night - over" in text
