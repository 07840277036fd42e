# cython: language_level=3
"""The static shape of a state description, checked once for every game from its proto.

A description (the game's ``<Game>State`` message as a plain dict, see
``server/codec.py``) reaches a room's decoder through :meth:`Game.from_description
<fagin.engines.core.Game.from_description>`, which first calls the game's
:func:`checker`.  It walks the description along the message's descriptor and
refuses, naming the field's path as the decoders do
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

Compiled, and the path of a bad field is only written when one is found: every
request's state passes through here.
"""
from google.protobuf.descriptor import FieldDescriptor

from fagin.engines.validation import bool_error, enum_error, int_error, list_error, mapping_error, too_many_error

# What a planned field is.
cdef enum Kind:
    K_MESSAGE, K_MESSAGES, K_LIST, K_INT, K_INTS, K_BOOL, K_BOOLS, K_ENUM, K_ENUMS

_INT_TYPES = frozenset((
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64))


def _options():
    # Imported when first needed: the game stubs import it too, which registers the extension.
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


# ------------------------------------------------------------------ errors

def _enum_text(path, value, _Enum enum):
    return enum_error(value, enum.names, enum.prefix, path)


class _Bad(Exception):
    """A bad field below the top: ``text(path, *args)`` is its message once the path, whose
    parts are gathered innermost first on the way out, is known."""

    def __init__(self, part, text, *args):
        super().__init__(part)
        self.parts = [part]
        self.text = text
        self.args_ = args

    def error(self):
        return ValueError(self.text(".".join(reversed(self.parts)), *self.args_))


# ------------------------------------------------------------------ plans

cdef class _Enum:
    """An enum's spellings: the codec's names (``"choose_card"``), in number order, and the
    proto names (``"PHASE_CHOOSE_CARD"``)."""
    cdef readonly tuple names
    cdef readonly str prefix
    cdef frozenset known

    def __init__(self, enum_desc):
        zero = enum_desc.values_by_number[0].name
        if not zero.endswith("UNSPECIFIED"):
            raise TypeError(f"enum {enum_desc.full_name}: zero value must be *_UNSPECIFIED")
        self.prefix = zero[: -len("UNSPECIFIED")]
        values = sorted((v for v in enum_desc.values if v.number), key=lambda v: v.number)
        self.names = tuple(v.name[len(self.prefix):].lower() for v in values)
        self.known = frozenset(self.names) | frozenset(v.name for v in values)

    cdef bint fits(self, value):
        """Whether ``value`` (not None) is a spelling: the codec's, the proto's, or the proto's
        in other letter cases (``PHASE_play``, as validation.enum_index reads it)."""
        if type(value) is str and value in self.known:
            return True
        return isinstance(value, str) and value.startswith(self.prefix) and \
            value[len(self.prefix):].lower() in self.names


cdef class _Field:
    cdef str name
    cdef int kind
    cdef object lo, hi             # a whole number's bounds (Python ints: values may be huge)
    cdef bint unset_ok             # K_INT: None (unset) is fine
    cdef Py_ssize_t most           # a list's most entries; -1: no bound
    cdef _Plan sub                 # K_MESSAGE(S): the message's plan
    cdef _Enum enum                # K_ENUM(S)


cdef class _Plan:
    """The checks of a message type: its fields that have any."""
    cdef tuple fields

    def __len__(self):
        return len(self.fields)

    def __iter__(self):
        """(name, kind, bounds or None, max entries or None) of each checked field."""
        cdef _Field f
        for f in self.fields:
            yield (f.name, f.kind, None if f.lo is None else (f.lo, f.hi), None if f.most < 0 else f.most)


_PLANS = {}


def plan(descriptor):
    """The checks of a message type, made once per type (a recursive type is planned once)."""
    cdef _Plan found = _PLANS.get(descriptor)
    if found is not None:
        return found
    found = _Plan()
    found.fields = ()
    _PLANS[descriptor] = found             # filled below; a cycle finds it under way
    fields = []
    cdef _Field c
    for f in descriptor.fields:
        shape = field_shape(f)
        repeated = _repeated(f)
        c = _Field()
        c.name = f.name
        c.most = shape.max_entries if shape is not None and shape.HasField("max_entries") else -1
        if c.most >= 0 and not repeated:
            raise TypeError(f"{f.full_name}: (fagin.v1.shape) max_entries is for a repeated field")
        if shape is not None and (shape.HasField("min") or shape.HasField("max")):
            if not (shape.HasField("min") and shape.HasField("max")) or f.type not in _INT_TYPES:
                raise TypeError(f"{f.full_name}: (fagin.v1.shape) min and max go together, on a whole number")
            c.lo, c.hi = shape.min, shape.max
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            c.kind = K_MESSAGES if repeated else K_MESSAGE
            c.sub = plan(f.message_type)
        elif f.type == FieldDescriptor.TYPE_BOOL:
            c.kind = K_BOOLS if repeated else K_BOOL
        elif f.type == FieldDescriptor.TYPE_ENUM:
            c.kind = K_ENUMS if repeated else K_ENUM
            c.enum = _Enum(f.enum_type)
        elif c.lo is not None:
            c.kind = K_INTS if repeated else K_INT
            # An unset number reads as 0 (proto3), or None from a dict: fine if 0 is in
            # range or the field is optional; else the field is required.
            c.unset_ok = c.lo <= 0 <= c.hi or f.has_presence
        elif repeated:
            c.kind = K_LIST
        else:
            continue
        fields.append(c)
    found.fields = tuple(fields)
    return found


# ------------------------------------------------------------------ the walk

cdef inline bint _is_mapping(value):
    return type(value) is dict or isinstance(value, dict)


cdef inline bint _whole(value, lo, hi):
    """Whether ``value`` is a whole number in [lo, hi] (validation.int_in's rule)."""
    if type(value) is int:
        return lo <= value <= hi
    return not isinstance(value, bool) and isinstance(value, int) and lo <= value <= hi


cdef inline Py_ssize_t _entries(value, _Field f) except -1:
    """The length of a list (a tuple is one too); _Bad if it is none or too long."""
    if type(value) is not list and not isinstance(value, (list, tuple)):
        raise _Bad(f.name, list_error)
    cdef Py_ssize_t n = len(value)
    if 0 <= f.most < n:
        raise _Bad(f.name, too_many_error, n, f.most)
    return n


cdef int _check(d, _Plan plan) except -1:
    cdef _Field f
    cdef Py_ssize_t i, n
    for f in plan.fields:
        value = (<dict>d).get(f.name) if type(d) is dict else d.get(f.name)
        if value is None:
            if f.kind == K_INT and not f.unset_ok:
                raise _Bad(f.name, int_error, value, f.lo, f.hi)
            continue
        if f.kind == K_INT:
            if not _whole(value, f.lo, f.hi):
                raise _Bad(f.name, int_error, value, f.lo, f.hi)
        elif f.kind == K_MESSAGES:
            n = _entries(value, f)
            last = None
            for i in range(n):
                entry = value[i]
                if entry is last:
                    continue                    # the same dict again (the codec shares equal cards)
                last = entry
                if not _is_mapping(entry):
                    raise _Bad(f"{f.name}[{i}]", mapping_error)
                if f.sub.fields:
                    try:
                        _check(entry, f.sub)
                    except _Bad as e:
                        e.parts.append(f"{f.name}[{i}]")
                        raise
        elif f.kind == K_MESSAGE:
            if not _is_mapping(value):
                raise _Bad(f.name, mapping_error)
            if f.sub.fields:
                try:
                    _check(value, f.sub)
                except _Bad as e:
                    e.parts.append(f.name)
                    raise
        elif f.kind == K_LIST:
            _entries(value, f)
        elif f.kind == K_INTS:
            n = _entries(value, f)
            for i in range(n):
                x = value[i]
                if not _whole(x, f.lo, f.hi):
                    raise _Bad(f"{f.name}[{i}]", int_error, x, f.lo, f.hi)
        elif f.kind == K_BOOL:
            if value is not True and value is not False:
                raise _Bad(f.name, bool_error, value)
        elif f.kind == K_ENUM:
            if value != "" and not f.enum.fits(value):
                raise _Bad(f.name, _enum_text, value, f.enum)
        elif f.kind == K_ENUMS:
            n = _entries(value, f)
            for i in range(n):
                x = value[i]
                # An entry is never unset: a zero value (None) is missing.
                if x is None or x == "" or not f.enum.fits(x):
                    raise _Bad(f"{f.name}[{i}]", _enum_text, x, f.enum)
        else:   # K_BOOLS
            n = _entries(value, f)
            for i in range(n):
                x = value[i]
                if x is not True and x is not False:
                    raise _Bad(f"{f.name}[{i}]", bool_error, x)
    return 0


def check(d, descriptor):
    """Refuses a description ``d`` of the message ``descriptor`` whose static shape is wrong,
    with a ValueError whose message starts with the field's path; returns ``d``."""
    _check_state(d, plan(descriptor))
    return d


cdef _check_state(d, _Plan plan):
    if not _is_mapping(d):
        raise ValueError("state: expected a mapping")
    try:
        _check(d, plan)
    except _Bad as e:
        raise e.error() from None


def state_message(game_id):
    """The descriptor of a game's state message (its entry in ``GameState``'s oneof), or
    None for a game the proto does not carry."""
    from fagin.v1 import fagin_pb2
    field = fagin_pb2.GameState.DESCRIPTOR.fields_by_name.get(game_id)
    return None if field is None else field.message_type


cdef class _Checker:
    cdef _Plan plan

    def __call__(self, d):
        _check_state(d, self.plan)


def checker(game_id):
    """The static shape check of a game's states: a function of a description."""
    descriptor = state_message(game_id)
    cdef _Checker c = _Checker()
    if descriptor is None:
        c.plan = _Plan()
        c.plan.fields = ()
    else:
        c.plan = plan(descriptor)
    return c
