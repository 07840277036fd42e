"""The rooms' one data loader (``fagin.engines.room_data``): every room reads its data files
through it, and it refuses a file that is not what it should be with the file named."""
import pathlib
import re

import pytest

from fagin.engines import registry
from fagin.engines.room_data import data_path, read_json

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_a_rooms_data_path_is_its_data_folder():
    import fagin.engines.london as london
    path = data_path(london.__file__, "cards.json")
    assert path.parent.name == "data" and path.parent.parent.name == "london"
    assert path.exists()


@pytest.mark.parametrize("text, message", [
    ("{not json", r"^board\.json: not valid JSON: "),
    ('{"a": 1, "b": {"c": 2, "c": 3}}', r"^board\.json: key 'c' appears twice in one object$"),
    ("[1, 2]", r"^board\.json: not valid JSON: a JSON object expected at the top$"),
    ("\udcff", r"^board\.json: not valid JSON: "),
])
def test_a_bad_data_file_is_refused_with_its_name(tmp_path, text, message):
    path = tmp_path / "board.json"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(ValueError, match=message):
        read_json(path)


def test_a_missing_file_is_refused_with_its_name_and_what_it_should_be(tmp_path):
    with pytest.raises(ValueError, match=r"^deck\.json: not a deck file: "):
        read_json(tmp_path / "deck.json", what="a deck file")


def test_any_document_when_asked():
    assert read_json(ROOT / "engines" / "london" / "data" / "cards.json", expect=None)["cards"]


def test_every_data_file_of_every_room_reads_through_the_loader():
    # Every room's shipped data is valid, with no key given twice (which json.loads alone
    # would let through, keeping the last value).
    files = sorted((ROOT / "engines").glob("*/data/*.json"))
    assert len(files) >= 10
    for path in files:
        read_json(path)


def test_no_room_reads_json_itself():
    # One loader: a room's modules go through room_data rather than calling json or
    # building data paths of their own.
    for room in registry.GAMES:
        folder = ROOT / "engines" / room
        for path in list(folder.glob("*.py")) + list(folder.glob("*.pyx")) + list(folder.glob("*.pxi")):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"\bjson\.loads?\(", text), path
            assert '/ "data"' not in text, path
