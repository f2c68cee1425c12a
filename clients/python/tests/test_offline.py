"""The client's rules without a server: ids, the outbox's batching and refusal policy, the
subscription's resume requests, the typed errors."""

import grpc
import pytest

from toolview import Cursor, PublishOptions
from toolview._events import CallEvents, MessageEvents, TurnEvents
from toolview._ids import ID_RULE, event_id, safe_id
from toolview._outbox import Backoff, Outbox
from toolview._resume import Resume
from toolview.errors import (
    FailedPrecondition,
    InvalidArgument,
    ToolviewError,
    Unavailable,
    Undelivered,
    from_rpc_error,
)
from toolview.v1 import session_service_pb2


def test_event_ids_are_derived_from_their_subject() -> None:
    call = CallEvents("s", "toolu_01ABC")
    ids = [
        call.started("Bash", {"command": "ls"}, None).event_id,
        call.output("a").event_id,
        call.output("b").event_id,
        call.finished("ab", False, None, None).event_id,
    ]
    assert ids == ["call:toolu_01ABC", "call:toolu_01ABC:1", "call:toolu_01ABC:2", "call:toolu_01ABC:end"]
    # The same subject and step give the same id: a republished event is a duplicate.
    again = CallEvents("s", "toolu_01ABC")
    assert again.started("Bash", {}, None).event_id == ids[0]
    message, turn = MessageEvents("s", "m1"), TurnEvents("s", "t1")
    assert [
        message.started("user", "hi").event_id,
        message.delta("!").event_id,
        message.finished().event_id,
    ] == ["msg:m1", "msg:m1:1", "msg:m1:end"]
    assert [turn.started().event_id, turn.finished("end_turn", None).event_id] == ["turn:t1", "turn:t1:end"]


def test_ids_follow_the_servers_rule_whatever_the_framework_gives() -> None:
    for raw in ["call_abc", "a b/c", "ü", "x" * 200, "", "toolu_01"]:
        made = safe_id(raw) if raw else safe_id(" ")
        assert ID_RULE.match(made), (raw, made)
    assert safe_id("a b") != safe_id("a/b"), "distinct ids stay distinct"
    assert safe_id("a b") == safe_id("a b")
    long = event_id("call", "x" * 128, "end")
    assert ID_RULE.match(long) and long == event_id("call", "x" * 128, "end")


def _events(n: int, size: int = 10) -> list:
    return [CallEvents("s", f"c{i}").output("x" * size) for i in range(n)]


def test_a_batch_is_the_oldest_events_within_its_bounds() -> None:
    outbox = Outbox(PublishOptions(max_batch_events=3, max_batch_bytes=1000))
    for e in _events(5):
        outbox.put(e, e.ByteSize())
    assert outbox.batch_ready()
    batch = outbox.batch()
    assert [e.call_output.call_id for e in batch] == ["c0", "c1", "c2"]
    outbox.acknowledged(3, duplicates=1)
    assert len(outbox) == 2 and outbox.settled == 3 and outbox.duplicates == 1
    assert not outbox.batch_ready()
    # One event larger than a batch still goes (alone): the server judges its size.
    big = Outbox(PublishOptions(max_batch_bytes=5))
    for e in _events(2):
        big.put(e, e.ByteSize())
    assert len(big.batch()) == 1


def test_the_buffer_is_bounded_in_events_and_bytes() -> None:
    outbox = Outbox(PublishOptions(max_buffered_events=2, max_buffered_bytes=100))
    a, b, c = _events(3, size=30)
    assert outbox.has_room(a.ByteSize())
    outbox.put(a, a.ByteSize())
    outbox.put(b, b.ByteSize())
    assert not outbox.has_room(c.ByteSize())
    roomy = Outbox(PublishOptions(max_buffered_bytes=60))
    roomy.put(a, a.ByteSize())
    assert not roomy.has_room(60), "bytes bound"
    empty = Outbox(PublishOptions(max_buffered_bytes=1))
    assert empty.has_room(10_000), "an empty buffer takes any one event"


def test_a_refusal_drops_only_the_event_the_server_named() -> None:
    outbox = Outbox(PublishOptions())
    events = _events(4)
    for e in events:
        outbox.put(e, e.ByteSize())
    error = FailedPrecondition("events[2].call_output.call_id: the call c2 has not started")
    assert error.field == "events[2].call_output.call_id" and error.event_index == 2
    outbox.refused(outbox.batch(), error)
    assert [e.call_output.call_id for e in outbox.batch()] == ["c0", "c1", "c3"]
    assert [f.event.call_output.call_id for f in outbox.take_failures()] == ["c2"]
    # Naming no event: the whole batch is refused.
    outbox.refused(outbox.batch(), InvalidArgument("no events"))
    assert len(outbox) == 0 and len(outbox.take_failures()) == 3


def test_errors_are_typed_by_code_and_name_the_field() -> None:
    error = InvalidArgument("events[0].event_id: may only contain [A-Za-z0-9._:-], found ' '")
    assert isinstance(error, ToolviewError) and error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.field == "events[0].event_id" and "INVALID_ARGUMENT" in str(error)
    assert InvalidArgument("target: not set").field == "target"
    assert InvalidArgument("something else went wrong").field is None


def _len_field(number: int, payload: bytes) -> bytes:
    assert number < 16 and len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


class _Refused(grpc.RpcError):
    """A failed call as grpc raises it, with a status-details trailer."""

    def __init__(self, details: str, trailers: tuple) -> None:
        self._details, self._trailers = details, trailers

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.INVALID_ARGUMENT

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple:
        return self._trailers


def test_the_field_comes_from_the_bad_request_detail() -> None:
    violation = _len_field(1, b"events[3].call_id") + _len_field(2, b"not a valid id")
    bad_request = _len_field(1, violation)
    detail = _len_field(1, b"type.googleapis.com/google.rpc.BadRequest") + _len_field(2, bad_request)
    status = bytes([0x08, 3]) + _len_field(2, b"msg") + _len_field(3, detail)
    # A message that names no field: the detail is what the client reads.
    error = from_rpc_error(_Refused("the event is bad", (("grpc-status-details-bin", status),)))
    assert isinstance(error, InvalidArgument) and error.field == "events[3].call_id"
    assert error.event_index == 3
    # An older server sends no detail: the message's leading path, as before.
    old = from_rpc_error(_Refused("events[1].event_id: bad", ()))
    assert old.field == "events[1].event_id"
    # A damaged trailer is no field, never an exception.
    broken = from_rpc_error(_Refused("x", (("grpc-status-details-bin", status[:-3]),)))
    assert broken.field is None


def test_backoff_doubles_with_jitter_up_to_its_cap() -> None:
    backoff = Backoff(0.1, 0.4)
    pauses = [backoff.next() for _ in range(5)]
    for pause, cap in zip(pauses, [0.1, 0.2, 0.4, 0.4, 0.4]):
        assert cap / 2 <= pause <= cap
    backoff.reset()
    assert backoff.next() <= 0.1


def _update(offset: int) -> session_service_pb2.SubscribeResponse:
    response = session_service_pb2.SubscribeResponse()
    response.update.cursor.offset, response.update.cursor.epoch = offset, "e1"
    return response


def test_a_subscription_resumes_after_its_last_update() -> None:
    resume = Resume("s", 1, None, "beginning")
    assert resume.request().WhichOneof("start") == "from_beginning"
    resume.accept(_update(1))
    heartbeat = session_service_pb2.SubscribeResponse()
    heartbeat.heartbeat.head_offset = 9
    assert resume.accept(heartbeat) is None, "heartbeats are not passed on"
    assert resume.accept(_update(2)).cursor.offset == 2
    request = resume.request()
    assert (
        request.WhichOneof("start") == "after" and request.after.offset == 2 and request.after.epoch == "e1"
    )
    # A reset: what follows rebuilds from what the server keeps; a reconnection before the next
    # update must not ask for the lost cursor again.
    reset = session_service_pb2.SubscribeResponse()
    reset.reset.epoch = "e2"
    assert resume.accept(reset).epoch == "e2"
    assert resume.request().WhichOneof("start") == "from_beginning"


def test_a_live_start_is_pinned_to_the_head_it_saw() -> None:
    resume = Resume("s", 1, None, "live")
    assert resume.request().WhichOneof("start") == "live_only"
    resume.pin_live_start(Cursor(offset=7, epoch="e1"))
    assert resume.request().after.offset == 7
    fresh = Resume("s", 1, None, "live")
    fresh.pin_live_start(None)
    assert fresh.request().WhichOneof("start") == "from_beginning"
    with pytest.raises(ValueError):
        Resume("s", 1, None, "tomorrow").request()


class _Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection refused"


def test_retries_keep_their_backoff_while_events_keep_coming() -> None:
    """Every publish wakes the sender; a server that is away must still be retried at the
    backoff's pace, not once per published event."""
    import time

    from toolview._publisher import Publisher

    attempts = []

    def call(request, timeout, metadata):  # type: ignore[no-untyped-def]
        attempts.append(time.monotonic())
        raise _Unavailable()

    options = PublishOptions(initial_backoff=0.2, max_backoff=0.2, linger=0)
    publisher = Publisher(call, lambda: [], options, None)
    start = time.monotonic()
    for i in range(60):
        publisher.put(CallEvents("s", f"c{i}").output("x"))
        time.sleep(0.01)
    elapsed = time.monotonic() - start
    # Pauses of 0.1-0.2 s: at most one attempt per 0.1 s, plus the first.
    assert len(attempts) <= elapsed / 0.1 + 2, (len(attempts), elapsed)
    assert publisher.retries == len(attempts)
    with pytest.raises(Undelivered):
        publisher.flush(0.05, closing=True)


def test_a_subscription_gives_up_reconnecting_after_its_deadline() -> None:
    resume = Resume("s", 0, None, "beginning")
    away = Unavailable("the server is away")
    assert resume.resumable(away, False, now=100.0), "no deadline: always"
    resume = Resume("s", 0, None, "beginning")
    resume.reconnect_deadline = 5.0
    assert resume.resumable(away, False, now=100.0)
    assert resume.resumable(away, False, now=104.0)
    assert not resume.resumable(away, False, now=105.0), "5 s of failures"
    # An item in between starts the count again.
    resume.accept(session_service_pb2.SubscribeResponse(heartbeat={"head_offset": 1}))
    assert resume.resumable(away, False, now=200.0)
    assert resume.resumable(away, False, now=204.9)
