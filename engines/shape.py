"""The static shape of a state description, checked once for every game from its proto.

A description (the game's ``<Game>State`` message as a plain dict, see
``server/codec.py``) reaches a room's decoder through :meth:`Game.from_description
<fagin.engines.core.Game.from_description>`, which first calls :func:`check` with the
room's state message.  The check walks the description along the message's
descriptor and refuses, naming the field's path as the decoders do
(``seats[1].coins: must be a whole number from 0 to 1000000, got -1``):

* a message that is not a mapping, a repeated field that is not a list, or one
  longer than its ``max_entries``;
* a bool that is not true or false;
* an enum value that is not one of the enum's names, spelt as the codec spells
  them (``PHASE_CHOOSE_CARD`` is ``"choose_card"``; the proto name is accepted too),
  or a list's entry that is missing (the zero value);
* a whole number outside the ``min``..``max`` its field is annotated with.

Bounds come from the ``(fagin.v1.shape)`` field option (``proto/fagin/v1/options.proto``),
given only where they hold whatever the rest of the state says.  Unset values
pass: None for a message, a list, a bool or an enum (whether an enum may be
missing is the decoder's call), and for a number whose range holds 0 (proto3's
default) or that is ``optional``.  Strings and unannotated numbers are the
decoder's: their meaning (a card's id, a seat below the player count) depends
on the room's data or the rest of the state.  So a room's decoder reads a
checked description and writes only its cross-field rules.
"""
from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor

from fagin.engines.validation import enum_error

# What a planned field is.
_MESSAGE, _MESSAGES, _LIST, _INT, _INTS, _BOOL, _BOOLS, _ENUM, _ENUMS = range(9)

_INT_TYPES = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
              FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
              FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
              FieldDescriptor.TYPE_SFIXED64}


def _options():
    # Imported here: the game stubs import it, and it registers the extension first.
    from fagin.v1 import options_pb2
    return options_pb2


def field_shape(field):
    """A field's ``(fagin.v1.shape)`` annotation (a ``FieldShape``), or None."""
    options = field.GetOptions()
    ext = _options().shape
    return options.Extensions[ext] if options.HasExtension(ext) else None


def _repeated(field):
    rep = getattr(field, "is_repeated", None)        # protobuf >= 5; older runtimes: label
    return rep if rep is not None else field.label == FieldDescriptor.LABEL_REPEATED


class _Enum:
    """An enum's spellings: the codec's names (``"choose_card"``), in number order, and the
    proto names (``"PHASE_CHOOSE_CARD"``), each to its codec name."""

    __slots__ = ("names", "known", "prefix")

    def __init__(self, enum_desc):
        zero = enum_desc.values_by_number[0].name
        if not zero.endswith("UNSPECIFIED"):
            raise TypeError(f"enum {enum_desc.full_name}: zero value must be *_UNSPECIFIED")
        self.prefix = zero[: -len("UNSPECIFIED")]
        values = sorted((v for v in enum_desc.values if v.number), key=lambda v: v.number)
        self.names = tuple(v.name[len(self.prefix):].lower() for v in values)
        self.known = frozenset(self.names) | frozenset(v.name for v in values)

    def check(self, value, path):
        if value is None or (type(value) is str and (value in self.known or value == "")):
            return
        # A proto name in other letter cases (``PHASE_play``) is one too (validation.enum_index).
        if isinstance(value, str) and value.startswith(self.prefix) and \
                value[len(self.prefix):].lower() in self.names:
            return
        raise ValueError(enum_error(value, self.names, self.prefix, path))


_PLANS: dict = {}


def plan(descriptor):
    """The checks of a message type: a tuple of (name, what, details) for the fields that
    have any, built once per type (a recursive type is planned once)."""
    found = _PLANS.get(descriptor)
    if found is not None:
        return found
    fields = []
    _PLANS[descriptor] = fields            # filled below; a cycle finds it under way
    for f in descriptor.fields:
        shape = field_shape(f)
        most = shape.max_entries if shape is not None and shape.HasField("max_entries") else None
        bounds = None
        if shape is not None and (shape.HasField("min") or shape.HasField("max")):
            if not (shape.HasField("min") and shape.HasField("max")) or f.type not in _INT_TYPES:
                raise TypeError(f"{f.full_name}: (fagin.v1.shape) min and max go together, on a whole number")
            bounds = (shape.min, shape.max)
        if most is not None and not _repeated(f):
            raise TypeError(f"{f.full_name}: (fagin.v1.shape) max_entries is for a repeated field")
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            what, details = (_MESSAGES, (plan(f.message_type), most)) if _repeated(f) else \
                (_MESSAGE, plan(f.message_type))
        elif f.type == FieldDescriptor.TYPE_BOOL:
            what, details = (_BOOLS, most) if _repeated(f) else (_BOOL, None)
        elif f.type == FieldDescriptor.TYPE_ENUM:
            what, details = (_ENUMS, (_Enum(f.enum_type), most)) if _repeated(f) else \
                (_ENUM, _Enum(f.enum_type))
        elif bounds is not None:
            if _repeated(f):
                what, details = _INTS, bounds + (most,)
            else:
                # An unset number reads as 0 (proto3), or None from a dict: fine if 0 is in
                # range or the field is optional; else the field is required.
                unset_ok = bounds[0] <= 0 <= bounds[1] or f.has_presence
                what, details = _INT, bounds + (unset_ok,)
        elif _repeated(f):
            what, details = _LIST, most
        else:
            continue
        fields.append((f.name, what, details))
    _PLANS[descriptor] = fields = tuple(fields)
    return fields


def _mapping(value):
    return type(value) is dict or isinstance(value, dict)


def _whole(value, lo, hi):
    """Whether ``value`` is a whole number in [lo, hi] (validation.int_in's rule)."""
    if type(value) is int:
        return lo <= value <= hi
    return not isinstance(value, bool) and isinstance(value, int) and lo <= value <= hi


def _int_error(value, lo, hi, path):
    return ValueError(f"{path}: must be a whole number from {lo} to {hi}, got {value!r}")


def _entries(value, most, path):
    """``value`` as a list (a tuple is one too); else ValueError naming ``path``."""
    if type(value) is not list and not isinstance(value, (list, tuple)):
        raise ValueError(f"{path}: expected a list")
    if most is not None and len(value) > most:
        raise ValueError(f"{path}: {len(value)} entries, more than the {most} possible")
    return value


def _check(d, fields, prefix, seen):
    for name, what, details in fields:
        value = d.get(name)
        if value is None:
            if what == _INT and not details[2]:
                raise _int_error(value, details[0], details[1], prefix + name)
            continue
        if what == _INT:
            if not (type(value) is int and details[0] <= value <= details[1]) and \
                    not _whole(value, details[0], details[1]):
                raise _int_error(value, details[0], details[1], prefix + name)
        elif what == _MESSAGES:
            sub, most = details
            path = prefix + name
            last = None
            for i, entry in enumerate(_entries(value, most, path)):
                if entry is last:
                    continue                    # the same dict again (the codec shares equal cards)
                last = entry
                if not _mapping(entry):
                    raise ValueError(f"{path}[{i}]: expected a mapping")
                if sub and id(entry) not in seen:
                    _check(entry, sub, f"{path}[{i}].", seen)
                    seen.add(id(entry))
        elif what == _MESSAGE:
            if not _mapping(value):
                raise ValueError(f"{prefix}{name}: expected a mapping")
            if details:
                _check(value, details, f"{prefix}{name}.", seen)
        elif what == _LIST:
            _entries(value, details, prefix + name)
        elif what == _INTS:
            lo, hi, most = details
            for i, x in enumerate(_entries(value, most, prefix + name)):
                if not (type(x) is int and lo <= x <= hi) and not _whole(x, lo, hi):
                    raise _int_error(x, lo, hi, f"{prefix}{name}[{i}]")
        elif what == _BOOL:
            if value is not True and value is not False:
                raise ValueError(f"{prefix}{name}: expected true or false, got {value!r}")
        elif what == _ENUM:
            details.check(value, prefix + name)
        elif what == _ENUMS:
            enum, most = details
            for i, x in enumerate(_entries(value, most, prefix + name)):
                if x is None or x == "":        # an entry is never unset: a zero value is missing
                    raise ValueError(enum_error(x, enum.names, enum.prefix, f"{prefix}{name}[{i}]"))
                enum.check(x, f"{prefix}{name}[{i}]")
        else:   # _BOOLS
            for i, x in enumerate(_entries(value, details, prefix + name)):
                if x is not True and x is not False:
                    raise ValueError(f"{prefix}{name}[{i}]: expected true or false, got {x!r}")


def check(d, descriptor):
    """Refuses a description ``d`` of the message ``descriptor`` whose static shape is wrong,
    with a ValueError whose message starts with the field's path; returns ``d``."""
    if not _mapping(d):
        raise ValueError("state: expected a mapping")
    _check(d, plan(descriptor), "", set())
    return d


def state_message(game_id):
    """The descriptor of a game's state message (its entry in ``GameState``'s oneof), or
    None for a game the proto does not carry."""
    from fagin.v1 import fagin_pb2
    field = fagin_pb2.GameState.DESCRIPTOR.fields_by_name.get(game_id)
    return None if field is None else field.message_type


def checker(game_id):
    """:func:`check` for a game's states: a function of a description."""
    descriptor = state_message(game_id)
    fields = () if descriptor is None else plan(descriptor)

    def check_state(d):
        if not _mapping(d):
            raise ValueError("state: expected a mapping")
        _check(d, fields, "", set())
    return check_state
