"""Reads and checks a room's learned model (``data/learned.json``, written by ``python -m fagin.train``).

The document names the features it was fitted on (``features``: they must be the room's
``FEATURE_NAMES``, in order) and holds one logistic regression per player count (``models``:
``{"3": {"bias": b, "weights": [w, ...]}}``, one weight per feature), the win probability.  An
entry may also hold ``margin`` (``{"bias": b, "weights": [w, ...]}``): a linear regression of
the seat's final score margin on the same features.  Everything else in it
(the command, the seed, the held-out figures) is a record and is not read.  A file that
does not fit is refused with a ValueError that starts with the file's name and the field:
``learned.json: models.3.weights: 12 values, 13 features``.  ``engines/learned.pxd``
copies what this returns into the C arrays the search reads.
"""
from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

from fagin.engines.room_data import read_json


class ModelEntry(NamedTuple):
    """One player count's model: the win probability's logistic ``weights`` and ``bias``, and
    the margin model's ``(weights, bias)``, or None where the entry holds none."""
    weights: tuple
    bias: float
    margin: tuple | None = None


def read_model(path, names, max_players, game, min_players=2):
    """``(document, {players: ModelEntry})`` from the model file at ``path``, checked
    against the room's feature ``names`` and its player counts (``min_players`` to
    ``max_players``; ``game`` names the game in messages); ``(None, {})`` when there is no file."""
    path = pathlib.Path(path)
    if not path.exists():
        return None, {}
    where = path.name
    doc = read_json(path, what="a model file")
    names = list(names)
    if list(doc.get("features", ())) != names:
        raise ValueError(f"{where}: features {doc.get('features')!r}, the engine defines {names!r}")
    entries = doc.get("models", {})
    if not isinstance(entries, dict):
        raise ValueError(f"{where}: models: an object of player counts expected")
    models = {}
    for key, entry in entries.items():
        try:
            n = int(key)
        except ValueError:
            n = None
        if n is None or str(n) != key or not min_players <= n <= max_players:
            raise ValueError(f"{where}: models.{key}: not a player count of {game}")
        weights, bias = _linear(entry, f"{where}: models.{key}", len(names))
        margin = None
        if "margin" in entry:
            margin = _linear(entry["margin"], f"{where}: models.{key}.margin", len(names))
        models[n] = ModelEntry(weights, bias, margin)
    return doc, models


def _linear(entry, where, features):
    """``(weights, bias)`` of one linear model's object (``{"bias": b, "weights": [...]}``),
    one weight per feature; ``where`` names it in messages."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: an object with bias and weights expected")
    for field in ("weights", "bias"):
        if field not in entry:
            raise ValueError(f"{where}.{field}: missing")
    raw = entry["weights"]
    if not isinstance(raw, list):
        raise ValueError(f"{where}.weights: a list of numbers expected")
    if len(raw) != features:
        raise ValueError(f"{where}.weights: {len(raw)} values, {features} features")
    weights = tuple(_number(x, f"{where}.weights[{i}]") for i, x in enumerate(raw))
    return weights, _number(entry["bias"], f"{where}.bias")


def _number(x, field):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{field}: {x!r} is not a finite number")
    return float(x)
