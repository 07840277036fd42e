"""The server's log output: plain text (the default) or one JSON object a line
(``--log-format json``), for log collectors that index fields.

Every line has ``time`` (UTC, ISO 8601 with ms), ``level``, ``logger`` and
``message``; a call's line (``rpc.CallLog``) adds ``method``, ``peer``,
``code``, ``ms`` and what the handler recorded (``game``, ``iterations``,
``requests``, ``errors``); a line with an exception adds ``exc``.
"""
from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: The most characters of a client's string that a log line or an error message shows.
QUOTED_CHARS = 64


def quoted(text, limit=QUOTED_CHARS):
    """A client's string as a log line or an error message may show it: quoted as Python's
    repr quotes it, every character that does not print (line breaks, escape sequences, NUL,
    bidirectional controls) escaped, so that it can never start a forged log line or drive a
    terminal; and cut to `limit` characters with its length told, so that an echo never
    carries megabytes."""
    text = str(text)
    shown = repr(text[:limit])
    return shown if len(text) <= limit else f"{shown}... ({len(text)} characters)"


#: The attribute of a log record that carries a call's fields (``extra={CALL_FIELDS: {...}}``).
CALL_FIELDS = "fagin_call"


class JsonFormatter(logging.Formatter):
    def format(self, record):
        line = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, CALL_FIELDS, None)
        if fields:
            for key, value in fields.items():
                line.setdefault(key, value)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # default=str: a field of another type (an enum, a path) is written, not an error.
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level, log_format="text", stream=None):
    """Sends the process's log records at `level` and above to `stream`
    (stderr) in `log_format`; returns the handler."""
    if log_format not in FORMATS:
        raise ValueError(f"log_format: expected one of {', '.join(FORMATS)}, got {log_format!r}")
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    return handler
