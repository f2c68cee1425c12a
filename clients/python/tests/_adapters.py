"""What the adapter suites share: a session's cards and conversation as a UI sees them, and
the check that a card is the one toolview's presenters give."""

import itertools
from typing import Any, Dict, List

from _server import Server

from toolview import Capabilities, Client


def final_cards(server: Server, session_id: str, events: int) -> Dict[str, Any]:
    """Each call's last card, from a VIEW subscription of the whole session by a UI that shows
    every card (so nothing is degraded)."""
    cards: Dict[str, Any] = {}
    every_card = Capabilities(terminal=True, diff=True, read=True, search=True, web=True)
    with Client(server.address) as client, client.subscribe(session_id, "view", every_card) as subscription:
        for update in itertools.islice(subscription, events):
            if update.view.WhichOneof("update") == "card":
                cards[update.call_id] = update.view.card
        assert subscription.cursor.offset == events
    return cards


def assert_presented(server: Server, card: Any, tool: str, args: Any, result: str, **kw: Any) -> None:
    with Client(server.address) as client:
        presented = client.present(tool, args, result, **kw)
    assert card.tool_name == tool
    assert card.call == presented.call, tool
    assert card.result == presented.result, tool


def conversation(server: Server, session_id: str, events: int) -> List[Any]:
    """The session's messages and turns, in order, from a VIEW subscription."""
    shown: List[Any] = []
    with Client(server.address) as client, client.subscribe(session_id, "view") as subscription:
        for update in itertools.islice(subscription, events):
            kind = update.view.WhichOneof("update")
            if kind == "message" and update.view.message.status == 2:  # complete
                shown.append(("message", update.view.message.role, update.view.message.text))
            elif kind == "turn" and update.view.turn.finished:
                usage = update.view.turn.usage
                shown.append(("turn", usage.input_tokens, usage.output_tokens))
    return shown
