"""Errors for enum fields of client positions, in the spelling clients write.

An engine's dicts spell an enum value in lower case without its prefix
(``"give"``), as ``server/codec.py`` maps them; a JSON client writes the
proto value name (``"PHASE_GIVE"``), and an unset enum reaches the engine as
``None``.  :func:`enum_index` accepts either spelling and, when the value is
missing or unknown, says so and lists the proto names.
"""


def proto_names(prefix, names):
    """The proto value names of an engine's enum values: ``PREFIX_NAME`` each."""
    return [prefix + n.upper() for n in names]


def enum_index(value, names, prefix, field):
    """The index of ``value`` in ``names`` (engine spelling, or the proto name ``prefix`` +
    upper case); ValueError naming ``field`` if it is missing or unknown."""
    if isinstance(value, str):
        if value in names:
            return names.index(value)
        if value.startswith(prefix) and value[len(prefix):].lower() in names:
            return names.index(value[len(prefix):].lower())
    expected = ", ".join(proto_names(prefix, names))
    if value is None or value == "" or (isinstance(value, str) and value.upper() == prefix + "UNSPECIFIED"):
        raise ValueError(f"{field}: missing; expected one of {expected}")
    raise ValueError(f"{field}: unknown value {value!r}; expected one of {expected}")
