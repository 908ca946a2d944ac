"""The server picker (`president connect` without an address) as a terminal shows it:
prompt_toolkit's real VT100 output into a virtual terminal of 60×20 and 80×24, fed
announcements as they come and go, driven by keys."""

from __future__ import annotations

import pytest
from president.client.tui.servers import ServersScreen
from president.client.tui.servers_app import ServersApp
from president.protocol.discovery import Announcement
from president.protocol.messages import VERSIONS

from ..harness.apps import app_terminal

SIZES = ((20, 60), (24, 80))
FP = ":".join(["AB"] * 32)
KITCHEN = Announcement(
    name="kitchen", port=7766, addresses=("192.168.1.20",), versions=VERSIONS, tables=2
)
ATTIC = Announcement(
    name="attic-server-with-a-long-name-x",
    port=7000,
    addresses=("192.168.1.30", "fd00::30"),
    versions=VERSIONS,
    tables=None,
    password=True,
    fingerprint=FP,
)
FUTURE = Announcement(
    name="future", port=7100, addresses=("192.168.1.40",), versions=(max(VERSIONS) + 1,)
)


def problem(text: str) -> str | None:
    return (
        None if text.replace(".", "").replace(":", "").isalnum() else f"not HOST[:PORT]: {text!r}"
    )


class Picker:
    """A `ServersApp` in a virtual terminal (`terminal`), its screen read back."""

    def __init__(self, rows: int, columns: int, screen: ServersScreen) -> None:
        self.size = (rows, columns)
        self.model = screen

    async def __aenter__(self) -> Picker:
        self.keys = app_terminal(*self.size)
        self.terminal = self.keys.__enter__()
        self.picker = ServersApp(
            self.model, problem, input=self.terminal.keys, output=self.terminal.output
        )
        await self.terminal.start(self.picker.app)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.terminal.stop()
        self.keys.__exit__(None, None, None)

    async def press(self, keys: str) -> str:
        return await self.terminal.press(keys)

    async def announced(self, *servers: Announcement) -> str:
        self.model.update(sorted(servers, key=lambda a: a.name))
        return await self.terminal.redraw()


def fits(text: str, columns: int) -> None:
    for line in text.split("\n"):
        assert len(line) <= columns, line


@pytest.mark.parametrize(("rows", "columns"), SIZES)
async def test_servers_come_and_go_and_the_arrows_choose(rows: int, columns: int) -> None:
    model = ServersScreen(versions=VERSIONS, known={"192.168.1.30:7000": FP})
    async with Picker(rows, columns, model) as p:
        shown = p.terminal.text()
        assert "looking for servers" in shown and "enter connects" in shown
        shown = await p.announced(KITCHEN)
        assert "kitchen" in shown and "192.168.1.20:7766" in shown and "2 tbl" in shown
        shown = await p.announced(KITCHEN, ATTIC, FUTURE)
        fits(shown, columns)
        # the cursor stays on kitchen as the others appear around it
        assert model.selected() == KITCHEN and "▶ kitchen" in shown
        assert "locked" in shown and "trusted" in shown and "other version" in shown
        assert "attic-se" in shown  # a long name is cut in the middle, its end kept
        shown = await p.press("\x1b[A\x1b[A")  # up twice (by name: attic, future, kitchen)
        assert "password needed" in shown and "you trusted this address before" in shown
        shown = await p.announced(KITCHEN, FUTURE)  # the attic's announcement is gone
        assert "attic" not in shown and "▶ future" in shown
        assert f"speaks protocol {max(VERSIONS) + 1}" in shown
        shown = await p.announced()
        assert "looking for servers" in shown and "[0 found" in shown
        await p.announced(KITCHEN, FUTURE)
        shown = await p.press("j")
        assert "▶ kitchen" in shown
        await p.terminal.left("\r")
    assert p.picker.chosen == "192.168.1.20:7766"


@pytest.mark.parametrize(("rows", "columns"), SIZES)
async def test_an_address_can_be_typed_instead(rows: int, columns: int) -> None:
    model = ServersScreen(versions=VERSIONS, trouble="cannot look for servers on the LAN: no")
    async with Picker(rows, columns, model) as p:
        shown = await p.press("\r")
        assert "no server found yet" in shown
        await p.press("a")
        shown = await p.press("bad host!\r")
        assert "not HOST[:PORT]" in shown and p.picker.chosen is None
        await p.press("\x7f" * 9)
        await p.terminal.left("10.0.0.7:7000\r")
    assert p.picker.chosen == "10.0.0.7:7000"


async def test_q_quits_without_a_choice() -> None:
    async with Picker(24, 80, ServersScreen(versions=VERSIONS)) as p:
        await p.announced(KITCHEN)
        await p.terminal.left("q")
    assert p.picker.chosen is None


def test_an_announced_fingerprint_is_a_hint_never_a_vouch() -> None:
    """A server that announces a certificate other than the one trusted for its address
    is flagged; one never trusted says the first connection will ask."""
    model = ServersScreen(versions=VERSIONS, known={"192.168.1.30:7000": ":".join(["CD"] * 32)})
    model.update([ATTIC])
    words = " ".join(model.details())
    assert "not the one you trusted" in words
    model = ServersScreen(versions=VERSIONS)
    model.update([ATTIC])
    words = " ".join(model.details())
    assert "a hint" in words and "trusted" not in words


def test_a_second_server_under_a_known_name_is_flagged() -> None:
    """An impostor announces the name of a server the user trusts, from another address:
    both lines say so, and picking the untrusted one brings a warning to show before the
    first-connection question."""
    from dataclasses import replace

    impostor = replace(KITCHEN, addresses=("192.168.1.66",), fingerprint=FP)
    model = ServersScreen(versions=VERSIONS, known={"192.168.1.20:7766": FP})
    model.update([KITCHEN, impostor])
    assert all("same name" in model.line(server, 60) for server in (KITCHEN, impostor))
    assert model.warnings(KITCHEN) == []  # the one trusted: nothing new to say
    (warning,) = model.warnings(impostor)
    assert "192.168.1.20:7766 (a server you trusted)" in warning
    model.cursor = model.servers.index(impostor)
    assert any("192.168.1.20:7766" in line for line in model.details())


def test_many_servers_under_one_name_are_counted_in_one_line() -> None:
    """A hostile pass announced 63 servers under one name: the details said a line for
    each, which hid the rest. One line counts them; one namesake is still named."""
    from dataclasses import replace

    fakes = [replace(KITCHEN, addresses=(f"10.26.0.{i}",), fingerprint=None) for i in range(1, 64)]
    model = ServersScreen(versions=VERSIONS)
    model.update([KITCHEN, *fakes])
    model.cursor = model.servers.index(KITCHEN)
    said = [line for line in model.details() if "call" in line]
    assert said == [
        f"63 other servers call themselves {KITCHEN.name} too (at 10.26.0.1:7766, 10.26.0.2:7766, …):"
        " only the fingerprint the host printed tells which is theirs"
    ]
    model.update([KITCHEN, fakes[0]])
    model.cursor = model.servers.index(KITCHEN)
    assert [line for line in model.details() if "call" in line] == [
        f"another server calls itself {KITCHEN.name} too, at 10.26.0.1:{KITCHEN.port}"
    ]
