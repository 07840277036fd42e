"""A room's data files, ``engines/<game>/data/*.json``: where they are and how they are read.

Every room reads its component data (cards, boards, decks), its learned model and its
calibration through this one loader, so that each file is found the same way and a file
that is not what it should be is refused the same way: a ``ValueError`` whose message
starts with the file's name (``board.json: not valid JSON: ...``). What the data means is
checked by the room that reads it, against its rulings.

A key that appears twice in one JSON object is refused rather than silently overwritten:
in a hand-kept component list that is a copy-and-paste slip that would change the game.
"""
from __future__ import annotations

import json
import pathlib


def data_path(module_file, name) -> pathlib.Path:
    """The path of the data file ``name`` of the room whose module is ``module_file``
    (a room module's ``__file__``): ``engines/<game>/data/<name>``."""
    return pathlib.Path(module_file).resolve().parent / "data" / name


def _no_duplicate_keys(where):
    def pairs_to_dict(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"{where}: key {key!r} appears twice in one object")
            seen.add(key)
        return dict(pairs)
    return pairs_to_dict


def read_json(path, *, what="valid JSON", expect=dict):
    """The JSON document in the data file at ``path``, which must be of type ``expect``
    (an object by default; None: any). A missing or unreadable file, a file that is not
    JSON, a key given twice in one object, or a document of another type is a ValueError
    naming the file: ``NAME: not WHAT: the reason`` (``what`` says what the file should be,
    for example "a model file")."""
    path = pathlib.Path(path)
    where = path.name
    try:
        doc = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_no_duplicate_keys(where))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{where}: not {what}: {e}") from None
    if expect is not None and not isinstance(doc, expect):
        kind = "a JSON object" if expect is dict else f"a JSON {expect.__name__}"
        raise ValueError(f"{where}: not {what}: {kind} expected at the top")
    return doc
