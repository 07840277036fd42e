"""A state's bytes are its fields and nothing else.

A room that decodes a client's position from a dict of fields (``_pack``, London and
Oliver Twist) builds its struct by Cython's field-by-field conversion, which leaves the
compiler's padding bytes as whatever the stack held.  States compare and hash by their
bytes (``State.__eq__``, ``__hash__``), so a struct with padding made one position decode
to states that need not be equal.  Every state struct therefore spells its alignment out
in named fields that are always 0.  A room that fills its struct in place zeroes it first
(``memset``), which the decoders' own tests cover."""
import pytest

from fagin.engines import GAMES, load_game, new_game


def _rooms_with_pack():
    for game_id in GAMES:
        engine = load_game(game_id).engine
        if hasattr(engine, "_pack") and hasattr(engine, "_raw"):
            yield game_id


@pytest.mark.parametrize("game_id", list(_rooms_with_pack()))
def test_every_byte_of_a_packed_state_is_a_field(game_id):
    """Each byte of the struct, set alone, shows in some field: none is padding."""
    engine = load_game(game_id).engine
    spec = load_game(game_id).spec
    size = len(new_game(game_id, spec.min_players, seed=1).to_bytes())
    zero = bytes(size)
    fields = engine._raw(zero)
    padding = []
    for offset in range(size):
        one = bytearray(zero)
        one[offset] = 0xFF
        if engine._raw(bytes(one)) == fields:
            padding.append(offset)
    assert padding == [], f"{game_id}: bytes {padding} of the state struct are padding, in no field"

