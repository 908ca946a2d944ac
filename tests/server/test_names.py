"""Who owns a name on a server (server/players.py): names that must show what they are,
compared by their look (the TR39 confusable skeleton), lookalike alphabets refused, and
claims that can never lock a newcomer out."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.client.connection import Client, ConnectFailed
from president.protocol import messages as m
from president.server import players
from president.server.app import Server
from president.server.players import NameBook, name_key, name_problem

from ..harness.servers import client, running_server
from ..harness.waiting import wait_for

ANN, EVE = "a" * 64, "e" * 64
FRIEND, GUEST = "f" * 64, "9" * 64

#: What a hostile guest registered while "cope" was claimed (issue 26), and what part of
#: the refusal says why.
ATTACKS = [
    ("\u0441\u043e\u0440\u0435", "looks like cope"),  # all Cyrillic: с о р е
    ("c\u0585pe", "looks like cope"),  # an Armenian o
    ("c0pe", "looks like cope"),  # a zero for the o
    ("cope\u3164", "U+3164 (Hangul Filler)"),
    ("cope ", "may not begin or end with a space"),
    ("cope\u2800", "U+2800 (Braille Pattern Blank)"),
    ("cope\u200b", "U+200B (Zero Width Space)"),
    ("\u115fcope", "U+115F (Hangul Choseong Filler)"),
    ("cope\uffa0", "U+FFA0 (Halfwidth Hangul Filler)"),
    ("co\u00a0pe", "a space other than the ordinary one"),
    ("cope\ufe0f", "U+FE0F (Variation Selector-16)"),
]


@pytest.mark.parametrize(("attack", "why"), ATTACKS)
def test_a_name_that_looks_like_a_claimed_one_is_refused(
    tmp_path: Path, attack: str, why: str
) -> None:
    book = NameBook(tmp_path / "names.sqlite3")
    assert book.refusal("cope", FRIEND, "10.0.0.1") is None
    refusal = book.refusal(attack, GUEST, "10.0.0.66")
    assert refusal is not None and why in refusal and "\n" not in refusal
    assert book.refusal(attack, "", "10.0.0.67") is not None  # nor without a key
    assert len(refusal) <= 500  # a `reject`'s reason
    assert book.count() == 1


def test_the_owner_may_write_their_name_in_any_case_or_look() -> None:
    book = NameBook()
    assert book.refusal("cope", FRIEND) is None
    for written in ("Cope", "COPE", "\uff43\uff4f\uff50\uff45", "\u0441\u043e\u0440\u0435"):
        assert book.refusal(written, FRIEND) is None, written
    assert book.count() == 1  # a look of one's own claim claims nothing more


@pytest.mark.parametrize(
    "honest",
    ["cop\u00e9", "coper", "Copeland", "scope", "\u0410\u043d\u0434\u0440\u0435\u0439", "Co pe"],
)
def test_a_name_that_looks_different_is_welcome_beside_a_claim(honest: str) -> None:
    """An accent shows ("copé" is not "cope"), and so do other letters."""
    book = NameBook()
    assert book.refusal("cope", FRIEND) is None
    assert book.refusal(honest, GUEST) is None
    assert book.owner(honest) == GUEST


@pytest.mark.parametrize(
    "blank", [" ", "   ", "\u3164", "\u2800\u2800", "\u200b", "\u3000", "\u115f\u1160", "\ufe0f"]
)
def test_a_name_of_blanks_is_nobodys(blank: str) -> None:
    refusal = NameBook().refusal(blank, ANN)
    assert refusal is not None and refusal == name_problem(blank)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (" ann", "begin or end with a space"),
        ("an  n", "two spaces in a row"),
        ("\u0301ann", "begin with a combining mark"),
        ("ann\t", "U+0009: a control character"),
        ("\ue000ann", "private-use"),
        ("a\u17b4nn", "shows as nothing"),
        ("\u2060ann", "invisible format character"),
        ("a\u00adnn", "invisible format character"),
        ("ann\u3000", "a space other than the ordinary one"),
        ("pat stopped watching \u2014 \u2014 server", "U+2014): the screens draw their own"),
        ("\u2500 sam is away \u2500", "U+2500)"),  # (a box's line: as wide, alike)
        ("pat \u2212 x", "U+2212)"),
        ("pat \ufe58 x", "U+2014)"),  # (a small em dash: an em dash in NFKC)
        ("pat\u2015", "U+2015)"),
        ("Zoé\U0001f1ef\U0001f1f5花子", "U+1F1EF (Regional Indicator Symbol Letter J): terminals"),
        ("\U0001f44d\U0001f3fd ann", "U+1F3FD (Emoji Modifier Fitzpatrick Type-4)"),
        # (a hostile pass: strokes that are letters in Korean and Japanese, set as words
        # of their own, made a watcher's name read as the screens' own lines)
        ("\u3161 you are back at your seat \u3161", "'\u3161': dashes or strokes at both"),
        (
            "\u30fc\u30fc the game so far \u30fc\u30fc",
            "dashes or strokes at both ends, or two at one",
        ),
        ("\u4e00 sam \u4e00", "dashes or strokes at both ends, or two at one"),
        ("ann --", "dashes or strokes at both ends, or two at one"),
        ("x\u2581\u2581 y", "U+2581 (Lower One Eighth Block): the screens draw"),
        ("a\U0001fb79", "U+1FB79"),
        ("y" + "".join(chr(0x300 + i) for i in range(30)), "stack more than 3 marks"),
        ("a\u20dd\u20dd", "U+20DD (Combining Enclosing Circle): an enclosing mark"),
        ("\ufdfd", "U+FDFD (Arabic Ligature Bismillah Ar-Rahman Ar-Raheem): terminals draw"),
        # (a second pass: more strokes, a stroke with a mark or a dot, spacing marks and
        # Hangul's joining jamo stacked, a precomposed letter with three more)
        ("\u23ba\u23ba x", "dashes or strokes at both ends, or two at one"),
        ("x \u3127\u3127", "dashes or strokes at both ends, or two at one"),
        ("\u30fc\u30fc. x", "dashes or strokes at both ends, or two at one"),
        ("\u30fc\u0331 x \u30fc", "dashes or strokes at both ends, or two at one"),
        ("\u2812\u2812 x", "dashes or strokes at both ends, or two at one"),
        ("ann" + "\u093e" * 20, "stack more than 3 marks"),
        ("\uac00" + "\u1161" * 19, "stack more than 3 marks"),
        ("\u01d6" + "\u0300" * 3, "stack more than 3 marks"),
    ],
)
def test_a_name_must_show_what_it_is(name: str, why: str) -> None:
    refusal = name_problem(name)
    assert refusal is not None and why in refusal


@pytest.mark.parametrize(
    "name",
    ["you", "YOU", "y0u", "\uff59\uff4f\uff55", "ann (you)", "your you", "Yours", "y\u1ecdu"],
)
def test_a_person_may_not_be_named_as_the_screens_call_the_viewer(name: str) -> None:
    """A hostile pass named itself "you": each viewer's log read its moves as their own
    ("you deal", "you pass"), and "ann (you)" as their own seat's row."""
    for key in (ANN, ""):
        refusal = NameBook().refusal(name, key)
        assert refusal is not None and "the screens call each player's own seat so" in refusal


@pytest.mark.parametrize("name", ["youssef", "bayou", "y o u", "you1", "You Hee-yeol"])
def test_names_holding_you_in_a_word_of_their_own_pass(name: str) -> None:
    assert NameBook().refusal(name, ANN) is None


@pytest.mark.parametrize("name", ["bot:random", "BOT:search", "\uff42\uff4f\uff54\uff1agreedy"])
def test_a_person_may_not_be_named_as_the_lobby_names_a_server_bot(name: str) -> None:
    """The lobby lists a server's bot as "bot:STRATEGY" (and the terminal lobby leaves
    those out of a table's people): a person so named passed for a bot there."""
    for key in (ANN, ""):
        refusal = NameBook().refusal(name, key)
        assert refusal is not None and 'may not begin with "bot:"' in refusal
    assert NameBook().refusal("robot:x", ANN) is None and NameBook().refusal("bot", ANN) is None


@pytest.mark.parametrize("name", ["t2ann> hi <t2bob", "<ann>", "ann\uff1e"])
def test_a_name_may_not_hold_the_marks_that_frame_a_speaker_in_chat(name: str) -> None:
    """The chat shows who speaks as <name>: "t2ann> hi <t2bob" spoke as two people
    ("<t2ann> hi <t2bob> ..."); a fullwidth ">" reads as one too."""
    for key in (ANN, ""):
        refusal = NameBook().refusal(name, key)
        assert refusal is not None and "may not hold < or >" in refusal
    assert NameBook().refusal("ann -> bob", ANN) is not None
    assert NameBook().refusal("ann - bob", ANN) is None


@pytest.mark.parametrize(
    "name",
    [
        "Ann Lee",
        "\u2764\ufe0f",
        "\u2764\ufe0fAnn",
        "R2-D2",
        "\u3055\u304f\u3089",
        "\u4e00\u90ce",  # 一郎: a stroke begins it, in a word with a letter
        "\u30e9\u30fc\u30e1\u30f3",  # ラーメン
        "jean-luc",
        "Nguy\u1ec5n",
        "Nguye\u0302\u0303n",  # (decomposed: two marks on one letter)
        "\u0915\u094d\u0937\u093f",  # क्षि
        "\u0930\u093e\u092e",  # राम: a spacing mark
        "\u1000\u103b\u1031\u102c\u103a",  # ကျော် "Kyaw": four marks, three spacing
        "\u1019\u103b\u102d\u102f\u1038\u1019\u1004\u103a\u1038",  # မျိုးမင်း
        "\u0f66\u0f92\u0fb2\u0f7c\u0f63\u0f0b\u0f58",  # སྒྲོལ་མ
        "\u658e\u85e4 \u4e00",  # 斎藤 一: one stroke-like letter at one end
        "ann -",
        "ann :)",
        "You Si-kun",  # (a surname: 游, 유)
        "\ud55c\uad6d\uc5b4",  # 한국어: syllables decompose into joining jamo
        "ann!",
        "(ann)",
    ],
)
def test_a_name_that_shows_what_it_is_passes(name: str) -> None:
    """Single inner spaces, and the emoji style selector right after a symbol."""
    assert name_problem(name) is None


@pytest.mark.parametrize("lookalike", ["Ann", "ANN", "\uff41\uff4e\uff4e"])
def test_a_name_that_reads_the_same_belongs_to_the_same_key(tmp_path: Path, lookalike: str) -> None:
    book = NameBook(tmp_path / "names.sqlite3")
    assert book.refusal("ann", ANN, "10.0.0.1") is None
    assert name_key(lookalike) == name_key("ann")
    refusal = book.refusal(lookalike, EVE, "10.0.0.2")
    assert refusal == m.name_taken(lookalike)
    assert book.refusal(lookalike, ANN, "10.0.0.1") is None  # its owner may write it so
    assert book.refusal(lookalike, "", "10.0.0.3") is not None  # nor without a key


def old_book(path: Path, claims: list[tuple[str, str]]) -> None:
    """A names file as servers kept it before looks: `claims` (name, player) in order."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(
            "CREATE TABLE names (folded TEXT PRIMARY KEY, name TEXT NOT NULL,"
            " player TEXT NOT NULL, claimed TEXT NOT NULL)"
        )
        for name, player in claims:
            db.execute(
                "INSERT INTO names VALUES (?, ?, ?, ?)",
                (name_key(name), name, player, "2026-01-01T00:00:00+00:00"),
            )
        db.commit()


def test_claims_kept_before_looks_are_looked_at_when_opened(tmp_path: Path) -> None:
    """The guest's lookalikes, welcomed under the old rules, lose to the friend's earlier
    "cope"; a blank-padded name claimed even before it owns no look; every claim stays."""
    path = tmp_path / "names.sqlite3"
    old_book(
        path,
        [
            ("cope\u2800", GUEST),
            ("cope", FRIEND),
            ("\u0441\u043e\u0440\u0435", GUEST),
            ("ann", ANN),
        ],
    )
    book = NameBook(path)
    assert book.count() == 4
    assert book.refusal("cope", FRIEND) is None and book.refusal("Cope", FRIEND) is None
    assert "looks like cope" in (book.refusal("\u0441\u043e\u0440\u0435", GUEST) or "")
    assert book.refusal("ann", ANN) is None
    assert book.refusal("ANN", EVE) == m.name_taken("ANN")
    book.close()


def test_looks_computed_another_way_are_computed_again(tmp_path: Path) -> None:
    path = tmp_path / "names.sqlite3"
    book = NameBook(path)
    assert book.refusal("cope", FRIEND) is None
    assert book.db is not None
    book.db.execute("UPDATE facts SET value = 'an older way'")
    book.db.execute("DELETE FROM looks")  # as if that way's looks did not match
    book.close()
    book = NameBook(path)
    assert "looks like cope" in (book.refusal("c0pe", GUEST) or "")
    assert book.db is not None
    (way,) = book.db.execute("SELECT value FROM facts WHERE fact = 'looks'").fetchone()
    assert way == players.LOOKS_VERSION


async def test_a_lookalike_hello_is_rejected_by_a_real_server_even_after_a_restart(
    tmp_path: Path,
) -> None:
    friend, guest = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    cyrillic = "\u0441\u043e\u0440\u0435"
    async with running_server(tmp_path) as server:
        cope = await client(server, "cope", tmp_path, identity=friend)
        for attack, why in ATTACKS[:6]:
            with pytest.raises(ConnectFailed) as refused:
                await client(server, attack, tmp_path, identity=guest)
            assert why in str(refused.value), attack
        honest = await client(server, "cop\u00e9", tmp_path, identity=guest)
        await honest.link.close()
        await cope.link.close()
    async with running_server(tmp_path) as server:  # the same data directory
        with pytest.raises(ConnectFailed, match="looks like cope"):
            await client(server, cyrillic, tmp_path, identity=guest)
        back = await client(server, "Cope", tmp_path, identity=friend)
        await back.link.close()


def test_a_composed_and_a_decomposed_accent_are_one_name(tmp_path: Path) -> None:
    book = NameBook(tmp_path / "names.sqlite3")
    assert book.refusal("Jos\u00e9", ANN) is None
    assert book.refusal("Jose\u0301", EVE) is not None


@pytest.mark.parametrize("name", ["\u0430nn", "p\u0430ul", "\u03bftto"])
def test_a_name_mixing_lookalike_alphabets_is_refused(name: str) -> None:
    refusal = NameBook().refusal(name, EVE)
    assert refusal is not None and "may not mix" in refusal


@pytest.mark.parametrize("name", ["Андрей", "Ελένη", "さくら桜", "José", "Zoë"])
def test_a_name_in_one_alphabet_is_welcome(name: str) -> None:
    assert NameBook().refusal(name, EVE) is None


def test_a_flood_of_claims_from_one_address_claims_only_its_hour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past its hour's claims an address's new names are used unclaimed: nobody is
    refused, and the book does not grow; an hour later it claims again."""
    now = [0.0]
    book = NameBook(clock=lambda: now[0])
    for n in range(players.CLAIMS_PER_HOUR + 20):
        assert book.refusal(f"flood{n}", f"{n:064x}", "10.0.0.66") is None
    assert book.count() == players.CLAIMS_PER_HOUR
    assert book.owner(f"flood{players.CLAIMS_PER_HOUR + 5}") is None
    assert book.refusal("newcomer", ANN, "10.0.0.7") is None  # another address claims
    assert book.owner("newcomer") == ANN
    now[0] = 3601.0
    assert book.refusal("later", EVE, "10.0.0.66") is None and book.owner("later") == EVE


def test_a_full_book_lets_a_newcomer_in_unclaimed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(players, "MAX_NAMES", 3)
    book = NameBook()
    for n, name in enumerate(["a", "b", "c"]):
        assert book.refusal(name, f"{n:064x}", f"10.0.0.{n}") is None
    assert book.refusal("newcomer", ANN, "10.0.0.9") is None  # welcome, not refused
    assert book.owner("newcomer") is None and book.owner("a") == f"{0:064x}"


async def sits_at_a_table_of_their_own(server: Server, person: Client) -> None:
    """`person` makes table T and sits there (back once the server has them seated)."""
    await person.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
    await person.send(m.Join(table="T"))
    name = person.link.name
    await wait_for(
        lambda: (
            "T" in server.lobby.tables
            and any(s.name == name for s in server.lobby.tables["T"].slots)
        )
    )


async def test_a_name_used_unclaimed_is_not_another_keys_while_its_person_sits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile-guest pass: once the book is full (or the host's address past its
    claims), a name is used unclaimed, and another key on another address claimed the
    name of a player seated under it; the player was then refused at every reconnect.
    Now that key is refused while the person sits there (connected or away), before the
    book would write its claim; once the chair is free the name is anyone's again."""
    monkeypatch.setattr(players, "MAX_NAMES", 0)  # the book full: every name unclaimed
    ann_key, eve_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=ann_key)
        await sits_at_a_table_of_their_own(server, ann)
        assert server.names.owner("ann") is None  # used unclaimed
        with pytest.raises(ConnectFailed, match="the name ann is another player's, who sits at T"):
            await client(server, "ann", tmp_path, identity=eve_key)
        # nor a name that looks like it (the book compares by look: "ANN" would have
        # claimed ann's look and locked her out all the same)
        for alike in ("ANN", "Ann", "\uff41nn"):
            with pytest.raises(ConnectFailed, match="who sits at T"):
                await client(server, alike, tmp_path, identity=eve_key)
        await ann.link.close()  # away: the chair waits for her
        await wait_for(lambda: server.lobby.tables["T"].slots[0].member is None)
        with pytest.raises(ConnectFailed, match="who sits at T"):
            await client(server, "ann", tmp_path, identity=eve_key)
        back = await client(server, "ann", tmp_path, identity=ann_key)  # her own key
        await back.send(m.Join(table="T"))  # her chair back by her key
        await wait_for(lambda: server.lobby.tables["T"].slots[0].member is not None)
        await back.send(m.Leave())
        await wait_for(lambda: not any(s.name == "ann" for s in server.lobby.tables["T"].slots))
        other = await client(server, "ann", tmp_path, identity=eve_key)  # the chair is free
        await other.link.close()
        await back.link.close()


async def test_a_keyless_player_seated_keeps_the_name_from_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player whose client has no key (protocol 3) sits under a name no key holds: a
    key may not claim it while they sit (a hostile-guest pass did, and the keyless
    player's reconnect was refused); another client without a key may use it, as before
    (nothing tells the two apart)."""
    monkeypatch.setattr(players, "MAX_NAMES", 0)
    async with running_server(tmp_path) as server:
        olga = await client(server, "olga", tmp_path)  # no identity: keyless
        await sits_at_a_table_of_their_own(server, olga)
        with pytest.raises(ConnectFailed, match="the name olga is another player's, who sits at T"):
            await client(server, "olga", tmp_path, identity=Ed25519PrivateKey.generate())
        again = await client(server, "olga", tmp_path)
        await again.link.close()
        await olga.link.close()


def test_the_book_is_kept_with_a_write_ahead_log_its_files_private(tmp_path: Path) -> None:
    """A hostile pass: each claim was two fsyncs on the event loop (a rollback journal),
    and a burst of hellos from many addresses held every table (scripts/
    bench_name_claims.py: the median claim 11 times longer so).  The log's files are the
    book's mode, 0600."""
    import os
    import stat

    from president.server.players import NameBook

    book = NameBook(tmp_path / "names.sqlite3")
    assert book.db is not None
    assert book.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert book.refusal("ann", "a" * 64, "10.0.0.1") is None
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["names.sqlite3", "names.sqlite3-shm", "names.sqlite3-wal"], made
    assert all(stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600 for name in made)
    book.db.close()
    assert NameBook(tmp_path / "names.sqlite3").owner("ann") == "a" * 64  # kept
