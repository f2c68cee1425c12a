"""toolview: publish an agent's tool calls and conversation to a toolview server, and
subscribe to their renderings.

    from toolview import Client

    with Client("127.0.0.1:50051") as client:
        session = client.session("demo")
        call = session.start_call("bash", {"command": "ls"})
        call.output("README.md\\n")
        call.finish("README.md\\n")

``toolview.aio.AsyncClient`` is the same for asyncio; ``toolview.v1`` holds the generated
messages.
"""

from importlib import metadata as _metadata

from ._events import Usage, text_block
from ._outbox import PublishOptions
from ._permissions import (
    DEFAULT_OPTIONS,
    Decision,
    Option,
    allow_always,
    allow_once,
    reject_always,
    reject_once,
)
from ._resume import SYNCED, Item, Synced
from .client import Call, Client, Message, Session, Subscription, Turn
from .errors import ToolviewError
from .v1.rendering_pb2 import Capabilities, Cursor, RenderedUpdate
from .v1.session_service_pb2 import Reset

__all__ = [
    "DEFAULT_OPTIONS",
    "SYNCED",
    "Call",
    "Capabilities",
    "Client",
    "Cursor",
    "Decision",
    "Item",
    "Message",
    "Option",
    "PublishOptions",
    "RenderedUpdate",
    "Reset",
    "Session",
    "Subscription",
    "Synced",
    "ToolviewError",
    "Turn",
    "Usage",
    "allow_always",
    "allow_once",
    "reject_always",
    "reject_once",
    "text_block",
]
#: The installed package's version (pyproject.toml is the one place it is written).
__version__ = _metadata.version("toolview")
