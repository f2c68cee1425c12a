"""Ids: the server's id rule, and the event ids derived from what an event is about.

An event id is its session's idempotency key: the server appends nothing for an id it already
holds. Deriving the id from the event's subject (``call:<call_id>:3`` is that call's third
output chunk) rather than drawing it at random makes a retried publish, or a harness that
replays its work after a crash, a duplicate instead of a second event.
"""

from __future__ import annotations

import hashlib
import re
import uuid

#: An event, call, message or turn id: 1-128 characters of ``[A-Za-z0-9._:-]``.
ID_RULE = re.compile(r"[A-Za-z0-9._:-]{1,128}\Z")
MAX_ID = 128


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def safe_id(raw: str) -> str:
    """``raw`` when it follows the id rule; otherwise a readable id made from it that does.

    Other characters become ``-`` and a digest of ``raw`` keeps two such ids apart, so a
    framework's ids (``toolu_01…``, ``call_…``, UUIDs) map to the same id every time.
    """
    if ID_RULE.match(raw):
        return raw
    readable = re.sub(r"[^A-Za-z0-9._:-]", "-", raw)[: MAX_ID - 10]
    return f"{readable}.{_digest(raw)[:8]}" if readable else f"id.{_digest(raw)[:16]}"


def new_id(prefix: str) -> str:
    """A fresh random id for a subject the caller did not name."""
    return f"{prefix}-{uuid.uuid4().hex}"


def event_id(*parts: str | int) -> str:
    """The event id for a subject and its step: ``event_id("call", "c1", 3)`` is
    ``call:c1:3``; one longer than the rule allows becomes a digest of it."""
    text = ":".join(str(p) for p in parts)
    return text if len(text) <= MAX_ID else f"h:{_digest(text)[:62]}"
