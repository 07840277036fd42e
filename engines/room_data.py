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


def read_json(path, *, what=None, expect=dict):
    """The JSON document in the data file at ``path``, which must be of type ``expect``
    (an object by default; None: any).  Every fault is a ValueError that starts with the
    file's name: ``NAME: cannot be read: ...`` (missing, unreadable, not UTF-8),
    ``NAME: not valid JSON: ...``, ``NAME: key 'k' appears twice in one object`` and
    ``NAME: a JSON object expected at the top, got an array``.  ``what`` says what the
    file should be (for example "a model file"): the message then reads
    ``NAME: not a model file: ...`` after the name, whatever the fault."""
    path = pathlib.Path(path)
    where = path.name if what is None else f"{path.name}: not {what}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{where}: cannot be read: {e}") from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicate_keys(where))
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}{'' if what else ': not valid JSON'}: {e}") from None
    if expect is not None and not isinstance(doc, expect):
        raise ValueError(f"{where}: {_JSON_NAMES.get(expect, expect.__name__)} expected at the top, "
                         f"got {_JSON_NAMES.get(type(doc), type(doc).__name__)}")
    return doc


_JSON_NAMES = {dict: "a JSON object", list: "an array", str: "a string", int: "a number",
               float: "a number", bool: "true or false", type(None): "null"}
