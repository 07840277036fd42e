"""Checks shared by the engines' decoders of client data (plain Python, imported at run time)."""


def int_in(value, lo, hi, field):
    """``value`` if it is a whole number in [lo, hi]; else ValueError naming ``field``."""
    if type(value) is int and lo <= value <= hi:     # the common case, tested first (a decoder
        return value                                 # calls this for every number of a state)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{field}: must be a whole number from {lo} to {hi}, got {value!r}")
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
