"""The call log never touches a call's context once the call has ended."""
import logging

from fagin.server.rpc import CallLog


class EndedCallContext:
    """A context whose peer() may be read only while the call runs (grpc.aio may
    free the call before its done-callbacks run)."""

    def __init__(self):
        self.callbacks = []
        self.ended = False

    def peer(self):
        assert not self.ended, "peer() read after the call ended"
        return "ipv4:127.0.0.1:5555"

    def add_done_callback(self, callback):
        self.callbacks.append(callback)

    def end(self):
        self.ended = True
        for callback in self.callbacks:
            callback(self)


def test_the_log_line_is_written_without_reading_the_ended_call(caplog):
    caplog.set_level(logging.INFO, logger="fagin.server")
    context = EndedCallContext()
    call = CallLog("Recommend", context)
    call.info["game"] = "kuhn_poker"
    context.end()
    assert "Recommend ipv4:127.0.0.1:5555 OK" in caplog.text and "game=kuhn_poker" in caplog.text
