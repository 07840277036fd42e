# cython: boundscheck=True, wraparound=False
"""Reads a serialized protobuf message into the codec's plain dict, in one pass over its bytes.

The codec's dicts (see :mod:`fagin.server.codec`) have every field of the
message type: unset optionals and messages are None, an enum's zero value is
None and other values their lower-cased names without the prefix, repeated
fields are lists.  Reading them field by field from a parsed message costs a
Python attribute lookup per field and a wrapper object per sub-message; walking
the serialized bytes with a plan per message type costs a small part of that
(the figures: docs/architecture.md, "A Recommend call").  The bytes come from
``SerializeToString`` of a message protobuf has already parsed and checked
(UTF-8 included), and are read with explicit bounds checks all the same.
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

from google.protobuf.descriptor import FieldDescriptor

# Field kinds (how a field reads when unset and how its values are stored).
cdef enum Kind:
    SCALAR, OPTIONAL, ENUM, MESSAGE, REP_SCALAR, REP_ENUM, REP_MESSAGE

# Value types (how one value is encoded).
cdef enum Value:
    V_INT32, V_INT64, V_UINT32, V_UINT64, V_SINT32, V_SINT64, V_BOOL, V_ENUM,
    V_FIXED32, V_SFIXED32, V_FLOAT, V_FIXED64, V_SFIXED64, V_DOUBLE, V_STRING, V_BYTES, V_MESSAGE

_VALUE = {
    FieldDescriptor.TYPE_INT32: V_INT32, FieldDescriptor.TYPE_INT64: V_INT64,
    FieldDescriptor.TYPE_UINT32: V_UINT32, FieldDescriptor.TYPE_UINT64: V_UINT64,
    FieldDescriptor.TYPE_SINT32: V_SINT32, FieldDescriptor.TYPE_SINT64: V_SINT64,
    FieldDescriptor.TYPE_BOOL: V_BOOL, FieldDescriptor.TYPE_ENUM: V_ENUM,
    FieldDescriptor.TYPE_FIXED32: V_FIXED32, FieldDescriptor.TYPE_SFIXED32: V_SFIXED32,
    FieldDescriptor.TYPE_FLOAT: V_FLOAT, FieldDescriptor.TYPE_FIXED64: V_FIXED64,
    FieldDescriptor.TYPE_SFIXED64: V_SFIXED64, FieldDescriptor.TYPE_DOUBLE: V_DOUBLE,
    FieldDescriptor.TYPE_STRING: V_STRING, FieldDescriptor.TYPE_BYTES: V_BYTES,
    FieldDescriptor.TYPE_MESSAGE: V_MESSAGE,
}


class TooLong(Exception):
    """A repeated field with more items than ``max_list``, or a string longer than
    ``max_string``: ``what`` says which bound, ``path`` lists the field names and indexes
    from the innermost out (as the codec's walker did)."""

    def __init__(self, what):
        super().__init__(what)
        self.what = what
        self.path = []


class Malformed(ValueError):
    """Bytes that are not a message of the plan's type (never from SerializeToString)."""


def enum_prefix(enum_desc):
    zero = enum_desc.values_by_number[0].name
    if not zero.endswith("UNSPECIFIED"):
        raise TypeError(f"enum {enum_desc.full_name}: zero value must be *_UNSPECIFIED")
    return zero[: -len("UNSPECIFIED")]


cdef class FieldPlan:
    cdef str name
    cdef int kind
    cdef int value
    cdef dict enum_names          # number -> name (None for the zero value)
    cdef MessagePlan message


cdef class MessagePlan:
    """How to read one message type: its fields by number, and what unset fields read as."""
    cdef dict defaults            # non-repeated field name -> value when unset
    cdef tuple repeated           # repeated fields' names, in declaration order
    cdef dict by_number           # field number -> FieldPlan
    cdef bint leaf                # no message or repeated fields: a read may be shared (to_dict's share)
    cdef list small               # the same for field numbers below SMALL_FIELDS (None: no field)


_PLANS = {}
# Field numbers below this are found by index, not by a dict lookup (a state's
# fields are numbered from 1, and a large state reads thousands of them).
cdef enum:
    SMALL_FIELDS = 32


def plan_for(descriptor):
    """The (cached) plan of a message type."""
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = _build(descriptor)
    return plan


cdef MessagePlan _build(descriptor):
    cdef MessagePlan plan = MessagePlan()
    cdef FieldPlan f
    _PLANS[descriptor] = plan              # first, so that recursive message types end
    plan.defaults = {}
    plan.by_number = {}
    repeated = []
    for field in descriptor.fields:
        if field.type not in _VALUE:
            raise TypeError(f"{descriptor.full_name}.{field.name}: field type {field.type} is not supported")
        f = FieldPlan()
        f.name = field.name
        f.value = _VALUE[field.type]
        is_repeated = getattr(field, "is_repeated", None)
        if is_repeated is None:            # protobuf < 5
            is_repeated = field.label == FieldDescriptor.LABEL_REPEATED
        if is_repeated:
            f.kind = REP_MESSAGE if f.value == V_MESSAGE else REP_ENUM if f.value == V_ENUM else REP_SCALAR
            repeated.append(field.name)
        elif f.value == V_MESSAGE:
            f.kind = MESSAGE
        elif field.has_presence:
            f.kind = OPTIONAL
        elif f.value == V_ENUM:
            f.kind = ENUM
        else:
            f.kind = SCALAR
        if f.kind == SCALAR:
            plan.defaults[f.name] = field.default_value
        elif f.kind in (OPTIONAL, ENUM, MESSAGE):
            plan.defaults[f.name] = None
        if field.enum_type is not None:
            prefix = len(enum_prefix(field.enum_type))
            f.enum_names = {v.number: (None if v.number == 0 else v.name[prefix:].lower())
                            for v in field.enum_type.values}
        if f.value == V_MESSAGE:
            f.message = plan_for(field.message_type)
        plan.by_number[field.number] = f
    plan.repeated = tuple(repeated)
    plan.leaf = not repeated
    for f in plan.by_number.values():
        if f.value == V_MESSAGE:
            plan.leaf = False
    plan.small = [plan.by_number.get(n) for n in range(SMALL_FIELDS)]
    return plan


cdef inline uint64_t _varint(const unsigned char* data, Py_ssize_t end, Py_ssize_t* at) except? 0xFFFFFFFFFFFFFFFF:
    cdef uint64_t result = 0
    cdef int shift = 0
    cdef Py_ssize_t i = at[0]
    cdef unsigned char b
    while True:
        if i >= end or shift > 63:
            raise Malformed("a truncated or overlong varint")
        b = data[i]
        i += 1
        result |= (<uint64_t>(b & 0x7F)) << shift
        if not (b & 0x80):
            at[0] = i
            return result
        shift += 7


_MISSING = object()


cdef inline object _enum_name(dict names, int32_t number):
    name = names.get(number, _MISSING)
    if name is _MISSING:
        return f"unknown_{number}"          # an unknown number; the engine refuses it
    return name


cdef object _value(FieldPlan f, const unsigned char* data, Py_ssize_t end, Py_ssize_t* at, int wire,
                   object max_list, Py_ssize_t max_string, dict shared):
    """One value of field ``f`` at ``data[at]`` with wire type ``wire``; moves ``at`` past it."""
    cdef uint64_t v
    cdef uint32_t u32
    cdef uint64_t u64
    cdef float f32
    cdef double f64
    cdef Py_ssize_t length, i
    if wire == 0:
        v = _varint(data, end, at)
        if f.value == V_INT32:
            return <int32_t>v
        if f.value == V_ENUM:
            return _enum_name(f.enum_names, <int32_t>v)
        if f.value == V_INT64:
            return <int64_t>v
        if f.value == V_UINT32:
            return <uint32_t>v
        if f.value == V_UINT64:
            return v
        if f.value == V_BOOL:
            return v != 0
        if f.value == V_SINT32:
            return <int32_t>((<uint32_t>v >> 1) ^ (-(<int32_t>(v & 1))))
        if f.value == V_SINT64:
            return <int64_t>((v >> 1) ^ (-(<int64_t>(v & 1))))
    elif wire == 5:
        if at[0] + 4 > end:
            raise Malformed("a truncated fixed32")
        memcpy(&u32, data + at[0], 4)       # little-endian on every platform CPython runs here
        at[0] += 4
        if f.value == V_FIXED32:
            return u32
        if f.value == V_SFIXED32:
            return <int32_t>u32
        if f.value == V_FLOAT:
            memcpy(&f32, &u32, 4)
            return <double>f32
    elif wire == 1:
        if at[0] + 8 > end:
            raise Malformed("a truncated fixed64")
        memcpy(&u64, data + at[0], 8)
        at[0] += 8
        if f.value == V_FIXED64:
            return u64
        if f.value == V_SFIXED64:
            return <int64_t>u64
        if f.value == V_DOUBLE:
            memcpy(&f64, &u64, 8)
            return f64
    elif wire == 2:
        length = <Py_ssize_t>_varint(data, end, at)
        i = at[0]
        if length < 0 or length > end - i:
            raise Malformed("a length past the end")
        at[0] = i + length
        if f.value == V_MESSAGE:
            if shared is not None and f.message.leaf:
                # The same bytes of one message type read the same: one dict for all of them
                # (a card met 116 times).  By type first: other types may have the same bytes.
                seen = shared.get(f.message)
                if seen is None:
                    seen = shared[f.message] = {}
                key = (<const char*>data)[i:i + length]
                found = seen.get(key)
                if found is None:
                    found = seen[key] = _read(f.message, data, i, i + length, max_list, max_string, shared)
                return found
            return _read(f.message, data, i, i + length, max_list, max_string, shared)
        if f.value == V_STRING:
            text = (<const char*>data)[i:i + length].decode("utf-8")
            if max_string >= 0 and len(text) > max_string:
                raise TooLong(f"{len(text)} characters, more than the longest name accepted ({max_string})")
            return text
        if f.value == V_BYTES:
            return (<const char*>data)[i:i + length]
    raise Malformed(f"{f.name}: wire type {wire} does not fit its field type")


cdef object _item(FieldPlan f, const unsigned char* data, Py_ssize_t end, Py_ssize_t* at, int wire,
                  object max_list, Py_ssize_t max_string, dict shared, Py_ssize_t index):
    """Item ``index`` of repeated field ``f`` (:func:`_value`); a TooLong names the item."""
    try:
        return _value(f, data, end, at, wire, max_list, max_string, shared)
    except TooLong as e:
        e.path.append(f"{f.name}[{index}]")
        raise


cdef dict _read(MessagePlan plan, const unsigned char* data, Py_ssize_t start, Py_ssize_t end,
                object max_list, Py_ssize_t max_string, dict shared):
    cdef dict out = plan.defaults.copy()
    cdef FieldPlan f
    cdef Py_ssize_t max_items = -1 if max_list is None else max_list
    cdef Py_ssize_t at = start, run_end
    cdef uint64_t key
    cdef int wire, item_wire
    cdef list items
    # The last item read of a repeated message field, when shared: a state lists equal cards
    # one after another (a deck by kind), and an item with the same bytes is that same dict,
    # found without a lookup.
    cdef FieldPlan last_field = None
    cdef Py_ssize_t last_start = 0, last_length = -1, item_start, length
    last_item = None
    for name in plan.repeated:
        out[name] = []
    while at < end:
        key = _varint(data, end, &at)
        wire = key & 7
        f = plan.small[key >> 3] if (key >> 3) < SMALL_FIELDS else plan.by_number.get(key >> 3)
        if f is None or (wire != _wire_of(f.value) and not (wire == 2 and f.kind >= REP_SCALAR
                                                             and _is_number(f.value))):
            # A field this server does not know, or one with another wire type, which
            # protobuf keeps as an unknown field: ignored.
            _skip(data, end, &at, wire)
            continue
        if f.kind < REP_SCALAR:
            try:
                out[f.name] = _value(f, data, end, &at, wire, max_list, max_string, shared)
            except TooLong as e:
                e.path.append(f.name)
                raise
            continue
        items = out[f.name]
        if wire == 2 and _is_number(f.value):
            # A packed run of numbers (how proto3 writes repeated numbers).
            run_end = at + <Py_ssize_t>_varint(data, end, &at)
            if run_end < at or run_end > end:
                raise Malformed(f"{f.name}: a packed field past the end")
            item_wire = 5 if _is_fixed32(f.value) else 1 if _is_fixed64(f.value) else 0
            while at < run_end:
                items.append(_value(f, data, run_end, &at, item_wire, max_list, max_string, shared))
        elif shared is not None and f.kind == REP_MESSAGE and f.message.leaf:
            item_start = at
            length = <Py_ssize_t>_varint(data, end, &item_start)
            if (f is last_field and length == last_length and 0 <= length <= end - item_start
                    and memcmp(data + item_start, data + last_start, length) == 0):
                items.append(last_item)
                at = item_start + length
            else:
                last_item = _item(f, data, end, &at, wire, max_list, max_string, shared, len(items))
                items.append(last_item)
                last_field, last_start, last_length = f, item_start, length
        else:
            items.append(_item(f, data, end, &at, wire, max_list, max_string, shared, len(items)))
        if max_items >= 0 and len(items) > max_items:
            e = TooLong(f"{len(items) + _count_rest(f, key >> 3, data, at, end)} items, more than "
                        f"this game can ever hold ({max_list})")
            e.path.append(f.name)
            raise e
    return out


cdef inline int _wire_of(int value):
    if value == V_MESSAGE or value == V_STRING or value == V_BYTES:
        return 2
    if _is_fixed32(value):
        return 5
    if _is_fixed64(value):
        return 1
    return 0


cdef inline bint _is_number(int value):
    return value != V_MESSAGE and value != V_STRING and value != V_BYTES


cdef inline bint _is_fixed32(int value):
    return value == V_FIXED32 or value == V_SFIXED32 or value == V_FLOAT


cdef inline bint _is_fixed64(int value):
    return value == V_FIXED64 or value == V_SFIXED64 or value == V_DOUBLE


cdef Py_ssize_t _count_rest(FieldPlan f, uint64_t number, const unsigned char* data, Py_ssize_t at,
                            Py_ssize_t end) except -1:
    """How many more items of field ``number`` the bytes ``data[at:end]`` hold: an error
    names the field's whole length, as the message holds it."""
    cdef Py_ssize_t count = 0, run_end
    cdef uint64_t key
    while at < end:
        key = _varint(data, end, &at)
        if key >> 3 == number:
            if (key & 7) == 2 and _is_number(f.value):
                run_end = at + <Py_ssize_t>_varint(data, end, &at)
                if run_end < at or run_end > end:
                    raise Malformed(f"{f.name}: a packed field past the end")
                while at < run_end:
                    if _is_fixed32(f.value):
                        at += 4
                    elif _is_fixed64(f.value):
                        at += 8
                    else:
                        _varint(data, run_end, &at)
                    count += 1
                continue
            count += 1
        _skip(data, end, &at, key & 7)
    return count


cdef void _skip(const unsigned char* data, Py_ssize_t end, Py_ssize_t* at, int wire) except *:
    cdef Py_ssize_t length
    if wire == 0:
        _varint(data, end, at)
    elif wire == 1:
        at[0] += 8
    elif wire == 5:
        at[0] += 4
    elif wire == 2:
        length = <Py_ssize_t>_varint(data, end, at)
        if length < 0 or length > end - at[0]:
            raise Malformed("a length past the end")
        at[0] += length
    elif wire == 3:
        _skip_group(data, end, at)
    else:
        raise Malformed(f"wire type {wire} where a field starts")
    if at[0] > end:
        raise Malformed("a field past the end")


cdef void _skip_group(const unsigned char* data, Py_ssize_t end, Py_ssize_t* at) except *:
    """Past a group (a deprecated encoding protobuf keeps as an unknown field) whose start
    was just read, nested groups included; a loop, so that deep nesting costs no stack."""
    cdef Py_ssize_t depth = 1, length
    cdef int wire
    while depth:
        wire = _varint(data, end, at) & 7
        if wire == 3:
            depth += 1
        elif wire == 4:
            depth -= 1
        elif wire == 2:
            length = <Py_ssize_t>_varint(data, end, at)
            if length < 0 or length > end - at[0]:
                raise Malformed("a length past the end")
            at[0] += length
        elif wire == 0:
            _varint(data, end, at)
        elif wire == 1 or wire == 5:
            at[0] += 8 if wire == 1 else 4
            if at[0] > end:
                raise Malformed("a field past the end")
        else:
            raise Malformed(f"wire type {wire} where a field starts")


def to_dict(bytes data, MessagePlan plan, max_list=None, Py_ssize_t max_string=-1, bint share=False):
    """The dict of serialized message ``data`` of ``plan``'s type.

    With ``max_list``, a repeated field with more items raises :class:`TooLong`; with
    ``max_string`` >= 0, so does a longer string.  With ``share``, sub-messages with only
    scalar fields that have the same bytes are read once, as one dict: the result is then
    to be read, not changed (a decoder's input).
    """
    return _read(plan, <const unsigned char*>data, 0, len(data), max_list, max_string,
                 {} if share else None)


# ------------------------------------------------------------------ writing answers
#
# A Recommendation is written straight to its bytes: built as protobuf messages
# it cost a Python message per action and a copy of each action's cached
# message (a quarter of fagin's own CPU in a small call).  Actions arrive
# already serialized (codec caches them), so only numbers are encoded here.
# Fields follow proto3's implicit presence as protobuf writes them: a zero
# number is left out (a double counts as zero only if all its bits are, so
# -0.0 is written), message fields are always written.

from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from libc.stdlib cimport malloc, free

cdef inline Py_ssize_t _varint_len(uint64_t v) noexcept:
    cdef Py_ssize_t n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


cdef inline Py_ssize_t _put_varint(unsigned char* out, Py_ssize_t at, uint64_t v) noexcept:
    while v >= 0x80:
        out[at] = <unsigned char>((v & 0x7F) | 0x80)
        v >>= 7
        at += 1
    out[at] = <unsigned char>v
    return at + 1


cdef inline Py_ssize_t _put_bytes(unsigned char* out, Py_ssize_t at, int tag, const unsigned char* data,
                                  Py_ssize_t n) noexcept:
    at = _put_varint(out, at, tag)
    at = _put_varint(out, at, <uint64_t>n)
    memcpy(out + at, data, n)
    return at + n


cdef inline Py_ssize_t _put_double(unsigned char* out, Py_ssize_t at, int tag, double v) noexcept:
    cdef uint64_t bits
    cdef int i
    memcpy(&bits, &v, 8)
    if bits == 0:
        return at
    out[at] = <unsigned char>tag
    for i in range(8):                  # little-endian, as protobuf's fixed64, on any machine
        out[at + 1 + i] = <unsigned char>(bits >> (8 * i))
    return at + 9


cdef inline Py_ssize_t _put_number(unsigned char* out, Py_ssize_t at, int tag, int64_t v) noexcept:
    if v == 0:
        return at
    at = _put_varint(out, at, tag)
    return _put_varint(out, at, <uint64_t>v)


cdef inline Py_ssize_t _stat_len(Py_ssize_t action_len, int64_t visits, double mean, double policy) noexcept:
    cdef uint64_t bits
    cdef Py_ssize_t n = 1 + _varint_len(action_len) + action_len
    if visits != 0:
        n += 1 + _varint_len(<uint64_t>visits)
    memcpy(&bits, &mean, 8)
    if bits != 0:
        n += 9
    memcpy(&bits, &policy, 8)
    if bits != 0:
        n += 9
    return n


def recommendation_bytes(bytes action, list stats, int64_t iterations, int64_t nodes, double elapsed_ms,
                         int stop_reason, int seat, bytes settings, list notes):
    """A serialized ``fagin.v1.Recommendation``: ``action`` and ``settings`` are serialized
    messages, ``stats`` (action bytes, visits, mean value, policy) tuples, ``notes`` strings."""
    # Room for the worst case: 11 bytes a tag and length or a number, 9 a double.
    cdef Py_ssize_t cap = 96 + len(action) + len(settings), at = 0, n
    cdef bytes a
    cdef int64_t visits
    cdef double mean, policy
    encoded_notes = [note.encode("utf-8") for note in notes]
    for note in encoded_notes:
        cap += 12 + len(note)
    for a, visits, mean, policy in stats:
        if a is None:
            raise TypeError("recommendation_bytes: an action's bytes are None")
        cap += 64 + len(a)
    cdef unsigned char* out = <unsigned char*>malloc(cap)
    if out == NULL:
        raise MemoryError()
    try:
        at = _put_bytes(out, at, 0x0A, <const unsigned char*>PyBytes_AS_STRING(action), len(action))
        for a, visits, mean, policy in stats:
            n = _stat_len(len(a), visits, mean, policy)
            at = _put_varint(out, at, 0x12)
            at = _put_varint(out, at, <uint64_t>n)
            at = _put_bytes(out, at, 0x0A, <const unsigned char*>PyBytes_AS_STRING(a), len(a))
            at = _put_number(out, at, 0x10, visits)
            at = _put_double(out, at, 0x19, mean)
            at = _put_double(out, at, 0x21, policy)
        at = _put_number(out, at, 0x18, iterations)
        at = _put_number(out, at, 0x20, nodes)
        at = _put_double(out, at, 0x29, elapsed_ms)
        at = _put_number(out, at, 0x30, stop_reason)
        at = _put_number(out, at, 0x38, seat)
        at = _put_bytes(out, at, 0x42, <const unsigned char*>PyBytes_AS_STRING(settings), len(settings))
        for a in encoded_notes:
            at = _put_bytes(out, at, 0x4A, <const unsigned char*>PyBytes_AS_STRING(a), len(a))
        return PyBytes_FromStringAndSize(<char*>out, at)
    finally:
        free(out)


def length_delimited(int field_number, bytes data):
    """The bytes of a length-delimited field: its tag, the length of ``data``, ``data``."""
    cdef uint64_t tag = (<uint64_t>field_number << 3) | 2
    cdef Py_ssize_t n = len(data)
    cdef bytearray out = bytearray(_varint_len(tag) + _varint_len(n))
    cdef unsigned char* p = out
    _put_varint(p, _put_varint(p, 0, tag), n)
    return bytes(out) + data
