"""The rooms' one data loader (``fagin.engines.room_data``): every room reads its data files
through it, and it refuses a file that is not what it should be with the file named."""
import pathlib
import re

import pytest

from fagin.engines import GAMES
from fagin.engines.room_data import data_path, read_json

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_a_rooms_data_path_is_its_data_folder():
    import fagin.engines.london as london
    path = data_path(london.__file__, "cards.json")
    assert path == ROOT / "engines" / "london" / "data" / "cards.json"
    assert path.exists()


@pytest.mark.parametrize("text, message", [
    ("{not json", r"^board\.json: not valid JSON: Expecting property name"),
    ('{"a": 1, "b": {"c": 2, "c": 3}}', r"^board\.json: key 'c' appears twice in one object$"),
    ("[1, 2]", r"^board\.json: a JSON object expected at the top, got an array$"),
    ('"text"', r"^board\.json: a JSON object expected at the top, got a string$"),
    (b"\xff{}", r"^board\.json: cannot be read: 'utf-8' codec can't decode"),
])
def test_a_bad_data_file_is_refused_with_its_name(tmp_path, text, message):
    path = tmp_path / "board.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_json(path)


def test_a_missing_file_cannot_be_read():
    with pytest.raises(ValueError, match=r"^deck\.json: cannot be read: .*No such file"):
        read_json(ROOT / "no such folder" / "deck.json")


def test_what_a_file_should_be_follows_its_name_in_every_message(tmp_path):
    path = tmp_path / "learned.json"
    for text, rest in (("{not json", "Expecting property name"),
                       ('{"a": 1, "a": 2}', "key 'a' appears twice in one object"),
                       ("[]", "a JSON object expected at the top, got an array")):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=rf"^learned\.json: not a model file: {re.escape(rest)}"):
            read_json(path, what="a model file")


def test_any_document_when_asked(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    assert read_json(path, expect=None) == [1, 2]
    assert read_json(path, expect=list) == [1, 2]


def test_every_shipped_data_file_is_valid_json_with_no_key_twice():
    # json.loads alone would let a repeated key through, keeping its last value.
    files = sorted((ROOT / "engines").glob("*/data/*.json"))
    assert len(files) >= 10
    for path in files:
        read_json(path)


def test_nothing_but_the_loader_reads_a_rooms_data_folder():
    # One loader: the rooms, the engine kit, the search and the server find a room's data
    # through room_data (data_path), and the rooms read it through read_json.
    sources = [p for folder in ("engines", "search", "server")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".pyx", ".pxi")]
    assert len(sources) > 50
    for path in sources:
        if path.name == "room_data.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""/ ["']data["']|join\(.*["']data["']""", text), path
        if path.parent.parent.name == "engines" and path.parent.name in GAMES:
            assert not re.search(r"\bjson\.loads?\(", text), path
