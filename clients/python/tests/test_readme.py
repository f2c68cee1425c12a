"""The README's publish example, run as it is against a real server: the cards it makes are the
ones it says (a terminal card with its exit code, the answer, the turn's end)."""

import re
from pathlib import Path

from _server import Server

from toolview import Capabilities, Client

README = Path(__file__).resolve().parents[1] / "README.md"


def example(section: str) -> str:
    text = README.read_text()
    after = text[text.index(f"## {section}") :]
    match = re.search(r"```python[^\n]*\n(.*?)```", after, re.S)
    assert match, f"no python block under {section}"
    return match.group(1)


def test_the_publish_example_gives_the_cards_it_says(server: Server) -> None:
    code = example("Publish")
    assert '"127.0.0.1:50051"' in code
    exec(compile(code.replace("127.0.0.1:50051", server.address), str(README), "exec"), {})

    with Client(server.address) as client:
        head = client.get_session("my-session").head_offset
        caps = Capabilities(terminal=True)
        updates = list(zip(range(head), client.subscribe("my-session", "view", caps)))
    views = [u.view for _, u in updates]
    card = [v.card for v in views if v.WhichOneof("update") == "card"][-1]
    assert card.call.WhichOneof("card") == "terminal"
    assert card.call.terminal.title == "npm test"
    assert card.result.WhichOneof("card") == "terminal"
    assert card.result.terminal.exit_code == 0
    assert card.result.terminal.output == "> vitest run\nTests 3 passed"
    messages = [v.message for v in views if v.WhichOneof("update") == "message"]
    assert (messages[-1].role, messages[-1].text) == (2, "All green.")
    turns = [v.turn for v in views if v.WhichOneof("update") == "turn"]
    assert turns[-1].finished and turns[-1].usage.input_tokens == 1200
