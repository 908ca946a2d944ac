"""Who owns a name on a server (server/players.py): names compared as a reader sees them,
lookalike alphabets refused, and claims that can never lock a newcomer out."""

from __future__ import annotations

from pathlib import Path

import pytest
from president.server import players
from president.server.players import NameBook, name_key

ANN, EVE = "a" * 64, "e" * 64


@pytest.mark.parametrize(
    "lookalike",
    ["Ann", "ANN", "ａｎｎ", "ann\u200b", "a\u00adnn", "\u2060ann"],
)
def test_a_name_that_reads_the_same_belongs_to_the_same_key(tmp_path: Path, lookalike: str) -> None:
    book = NameBook(tmp_path / "names.sqlite3")
    assert book.refusal("ann", ANN, "10.0.0.1") is None
    assert name_key(lookalike) == name_key("ann")
    refusal = book.refusal(lookalike, EVE, "10.0.0.2")
    assert refusal is not None and "belongs to another player" in refusal
    assert book.refusal(lookalike, ANN, "10.0.0.1") is None  # its owner may write it so
    assert book.refusal(lookalike, "", "10.0.0.3") is not None  # nor without a key


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
