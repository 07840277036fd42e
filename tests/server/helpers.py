"""Building API states for server tests."""
import copy

from fagin.engines.kids_of_london import engine as kol
from fagin.server import codec

from ..games.kids_of_london.helpers import GAME, play, position, with_  # noqa: F401 (re-exported)


def kol_state(d):
    """A GameState message from a Kids of London dict (no validation: for bad inputs too)."""
    from fagin.v1 import fagin_pb2
    msg = fagin_pb2.GameState()
    codec.dict_to_message(d, msg.kids_of_london)
    msg.kids_of_london.SetInParent()
    return msg


def kol_dict(players=4, character="banker", cards=(), **kw):
    """The dict form of a choose-card position, with `cards` already put down by seats 0, 1, ..."""
    return copy.deepcopy(play(position(players, character, **kw), *cards).describe())
