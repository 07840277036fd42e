"""Checks shared by the engines' decoders of client data (plain Python, imported at run time).

A state's static shape (types, enum spellings, the ranges and lengths annotated in its proto) is
checked before its decoder runs (:mod:`fagin.engines.shape`, with these messages); what is left
here serves the checks a decoder writes itself: a bound that depends on other fields (a seat
below the player count), an enum name turned into the engine's index, and typed actions."""


def int_error(field, value, lo, hi):
    """The message of :func:`int_in` (and of the shared shape check) for a bad number."""
    return f"{field}: must be a whole number from {lo} to {hi}, got {value!r}"


def int_in(value, lo, hi, field):
    """``value`` if it is a whole number in [lo, hi]; else ValueError naming ``field``."""
    if type(value) is int and lo <= value <= hi:     # the common case, tested first (a decoder
        return value                                 # calls this for every number of a state)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(int_error(field, value, lo, hi))
    return value


def enum_spellings(names, prefix):
    """The proto enum value names a client writes (``PHASE_CHOOSE_CARD``) for an engine's
    dict names (``choose_card``): the codec maps one to the other by this rule."""
    return ", ".join(prefix + name.upper() for name in names)


def enum_index(value, names, prefix, field, need=None):
    """The index of ``value`` in ``names``, the dict names of a proto enum whose values
    are spelt ``prefix`` + the upper-cased name; else ValueError naming ``field``.

    The message lists the spelling a JSON or proto client must use, and says
    "missing" for an unset enum (the codec's None) rather than printing None.
    ``need``, if given, says why the field is needed (``"phase choose_card needs
    the revealed character"``).
    """
    if value in names:
        return names.index(value)
    # A proto value name given where the dict spelling is expected (a client
    # that wrote the JSON spelling into a dict) is accepted too.
    if isinstance(value, str) and value.startswith(prefix) and value[len(prefix):].lower() in names:
        return names.index(value[len(prefix):].lower())
    raise ValueError(enum_error(value, names, prefix, field, need))


def enum_error(value, names, prefix, field, need=None):
    """The message of :func:`enum_index` for a missing or unknown ``value``."""
    if value is None or value == "" or (isinstance(value, str) and value.upper() == prefix + "UNSPECIFIED"):
        got = "missing"
    elif isinstance(value, str) and value.startswith("unknown_") and value[8:].isdigit():
        got = f"unknown enum number {value[8:]}"     # the codec's name for a number the proto lacks
    else:
        got = f"unknown value {value!r}"
    why = f" ({need})" if need else ""
    return f"{field}: {got}{why}; expected one of {enum_spellings(names, prefix)}"


def mapping_error(field):
    """The message for a value that should be a mapping (a message) and is not."""
    return f"{field}: expected a mapping"


def list_error(field, what=""):
    """The message for a value that should be a list (a repeated field) and is not; ``what``
    names the entries (``"cards"``: "expected a list of cards")."""
    return f"{field}: expected a list" + (f" of {what}" if what else "")


def too_many_error(field, n, most):
    """The message for a list of ``n`` entries where at most ``most`` are possible."""
    return f"{field}: {n} entries, more than the {most} possible"


def bool_error(field, value):
    """The message for a value that should be true or false and is not."""
    return f"{field}: expected true or false, got {value!r}"


def mapping(value, field):
    """``value`` if it is a mapping (a message, decoded); else ValueError naming ``field``."""
    if not isinstance(value, dict):
        raise ValueError(mapping_error(field))
    return value


def list_of(value, field, most=None, what=""):
    """``value`` as a list (None, an unset repeated field, is empty); else ValueError naming
    ``field``.  ``most`` bounds its length; ``what`` names the entries in the message
    (``"cards"``: "expected a list of cards")."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise ValueError(list_error(field, what))
    if most is not None and len(value) > most:
        raise ValueError(too_many_error(field, len(value), most))
    return list(value)


def one_per_seat(value, players, field="seats"):
    """``value``, a list of one mapping per player, as ``[(path, entry)]`` with each entry's
    path (``seats[1]``) for the messages of the checks that follow; else ValueError naming
    ``field`` (or the entry that is not a mapping)."""
    entries = list_of(value, field, what="one entry per player")
    if len(entries) != players:
        raise ValueError(f"{field}: {len(entries)} entries for {players} players (one per player)")
    return [(f"{field}[{p}]", mapping(entry, f"{field}[{p}]")) for p, entry in enumerate(entries)]
