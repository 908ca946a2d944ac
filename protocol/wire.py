"""The one mapping between the engine's values and the wire, both ways: cards, actions,
rules, events, the public view and a seat's private part.

The server turns what the engine says into messages with `*_to_wire`; a client turns
them back into the engine's own values with `*_from_wire`, so what it holds is what
the engine gave (tests/protocol/test_wire.py round-trips every kind).  Values from the
wire that the schema let through but the engine cannot take raise
`RemoteProtocolError(Code.BAD_MESSAGE)`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, assert_never, get_args

from president.engine import (
    CARDS,
    PASS,
    Action,
    Bomb,
    Bombed,
    Card,
    Dealt,
    Discard,
    Discarded,
    Due,
    Event,
    ExchangeDone,
    Fell,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    Handover,
    HandStarted,
    Pass,
    Passed,
    Phase,
    Play,
    Played,
    PublicView,
    Return,
    Returned,
    Rules,
    RulesError,
    Skipped,
    Take,
    Took,
    Top,
    TrickEnded,
    WentOut,
    counts_of,
    parse_cards,
    public_event,
    rules_from,
)
from president.engine.rules import PRESETS

from . import messages as m
from .codec import pack, unpack
from .errors import Code, RemoteProtocolError


def _bad(why: str) -> RemoteProtocolError:
    return RemoteProtocolError(Code.BAD_MESSAGE, why)


# --- cards and actions ------------------------------------------------------------------


def cards_to_wire(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple([str(card) for card in cards])


#: Each card by the text the wire carries it as (`str(card)`).
_BY_TEXT: dict[str, Card] = {str(card): card for card in CARDS}


def cards_from_wire(texts: Iterable[str]) -> tuple[Card, ...]:
    try:
        return tuple([_BY_TEXT[text] for text in texts])
    except KeyError:  # not as this side writes them: the engine's notation says what is wrong
        try:
            return parse_cards(texts)
        except ValueError as exc:
            raise _bad(str(exc)) from None


#: What a client sends for an action.
ActionMessage = (
    m.PlayCards
    | m.PassTurn
    | m.ReturnCards
    | m.HandoverCards
    | m.DiscardCards
    | m.TakeCards
    | m.BombRank
)
#: Every action message, for who routes or awaits them (a new action is added above).
ACTION_MESSAGES: tuple[type[ActionMessage], ...] = get_args(ActionMessage)
CardsAction = Play | Return | Handover | Discard | Take
CardsMessage = m.PlayCards | m.ReturnCards | m.HandoverCards | m.DiscardCards | m.TakeCards
#: Each action with cards and its message (the pass is `PassTurn`).
_MESSAGE_OF: dict[type[CardsAction], type[CardsMessage]] = {
    Play: m.PlayCards,
    Return: m.ReturnCards,
    Handover: m.HandoverCards,
    Discard: m.DiscardCards,
    Take: m.TakeCards,
}
_ACTION_OF: dict[type[CardsMessage], type[CardsAction]] = {
    message: action for action, message in _MESSAGE_OF.items()
}


def action_to_wire(action: Action, seen: int = 0) -> ActionMessage:
    """`action` as its message; `seen`: the number of the last table event the client had
    when it chose it (0: not said)."""
    if isinstance(action, Pass):
        return m.PassTurn(seen=seen)
    if isinstance(action, Bomb):
        return m.BombRank(rank=action.rank, seen=seen)
    return _MESSAGE_OF[type(action)](cards=cards_to_wire(action.cards), seen=seen)


def action_from_wire(message: ActionMessage) -> Action:
    if isinstance(message, m.PassTurn):
        return PASS
    if isinstance(message, m.BombRank):
        return Bomb(message.rank)
    return _ACTION_OF[type(message)](cards_from_wire(message.cards))


# --- rules --------------------------------------------------------------------------------


def rules_to_wire(preset: str, rules: Rules) -> dict[str, Any]:
    """{"preset": NAME, toggle: value, ...} for the toggles that differ from the preset."""
    return {"preset": preset, **rules.changes_from(PRESETS[preset])}


def rules_from_wire(wire: Mapping[str, Any]) -> Rules:
    try:
        return rules_from(dict(wire))
    except (RulesError, TypeError) as exc:
        raise _bad(f"rules: {exc}") from None


# --- events -------------------------------------------------------------------------------


def event_to_wire(
    table: str, number: int, event: Event, timeout: m.TimeoutReason = ""
) -> m.TableEvent | None:
    """The message that tells everyone at `table` of `event` (its public face), or None
    for an event nobody else may see (a deal).  `timeout`: the timeout rule made this
    play, pass or return for its seat, and why."""
    seen = public_event(event)
    # (a `match` over every event: mypy names this place when the engine gets a new one)
    match seen:
        case None | Dealt():
            return None
        case Played():
            return m.Played(
                table,
                number,
                seen.seat,
                cards_to_wire(seen.cards),
                seen.clears,
                seen.revolution,
                timeout,
            )
        case Passed():
            return m.Passed(table, number, seen.seat, seen.automatic, timeout)
        case TrickEnded():
            return m.TrickEnded(table, number, seen.winner, seen.leader)
        case Skipped():
            return m.Skipped(table, number, seen.seat)
        case WentOut():
            return m.WentOut(table, number, seen.seat, seen.place)
        case HandStarted():
            return m.HandStarted(table, number, seen.hand, tuple(seen.seating), seen.dealer)
        case Gave():
            return m.Gave(table, number, seen.giver, seen.receiver, seen.size)
        case Returned():
            return m.Returned(
                table, number, seen.giver, seen.receiver, seen.size, seen.automatic, timeout
            )
        case ExchangeDone():
            return m.ExchangeDone(table, number)
        case HandOver():
            points = tuple(points for _, points in seen.points)
            return m.HandOver(table, number, seen.hand, tuple(seen.finish), points)
        case GameOver():
            return m.GameOver(table, number, tuple(seen.winners))
        case HandedOver():
            return m.HandedOver(table, number, seen.giver, seen.receiver, seen.size, timeout)
        case Discarded():
            return m.Discarded(table, number, seen.seat, cards_to_wire(seen.cards), timeout)
        case Took():
            return m.Took(
                table, number, seen.seat, seen.receiver, cards_to_wire(seen.cards), timeout
            )
        case Bombed():
            return m.Bombed(table, number, seen.seat, seen.rank, timeout)
        case Fell():
            return m.Fell(table, number, seen.seat, seen.place)
        case _:
            assert_never(seen)


def event_from_wire(message: m.TableEvent) -> Event:
    """The engine's event (its public face) that `message` tells of."""
    if isinstance(message, m.Played):
        return Played(
            message.seat, cards_from_wire(message.cards), message.clears, message.revolution
        )
    if isinstance(message, m.Passed):
        return Passed(message.seat, message.automatic)
    if isinstance(message, m.TrickEnded):
        return TrickEnded(message.winner, message.leader)
    if isinstance(message, m.Skipped):
        return Skipped(message.seat)
    if isinstance(message, m.WentOut):
        return WentOut(message.seat, message.place)
    if isinstance(message, m.HandStarted):
        return HandStarted(message.hand, tuple(message.seating), message.dealer)
    if isinstance(message, m.Gave):
        return Gave(message.giver, message.receiver, message.size, ())
    if isinstance(message, m.Returned):
        return Returned(message.giver, message.receiver, message.size, (), message.automatic)
    if isinstance(message, m.ExchangeDone):
        return ExchangeDone()
    if isinstance(message, m.HandOver):
        if len(message.points) != len(message.finish):
            raise _bad("hand_over: a score for each place")
        return HandOver(
            message.hand, tuple(message.finish), tuple(zip(message.finish, message.points))
        )
    if isinstance(message, m.GameOver):
        return GameOver(tuple(message.winners))
    if isinstance(message, m.HandedOver):
        return HandedOver(message.giver, message.receiver, message.size, ())
    if isinstance(message, m.Discarded):
        return Discarded(message.seat, cards_from_wire(message.cards))
    if isinstance(message, m.Took):
        return Took(message.seat, message.receiver, cards_from_wire(message.cards))
    if isinstance(message, m.Bombed):
        return Bombed(message.seat, message.rank)
    if isinstance(message, m.Fell):
        return Fell(message.seat, message.place)
    raise _bad(f"{message.TYPE} is not a game event")


def results_to_wire(table: str, hands: Sequence[HandOver]) -> list[m.GameResults]:
    """A game's ended hands (`Game.hands_over`) as `game_results` pages: the latest
    `RESULTS_SENT` of them, oldest first; one empty page for a game with none yet."""
    kept = [
        m.HandResult(hand.hand, hand.finish, tuple(points for _, points in hand.points))
        for hand in hands[-m.RESULTS_SENT :]
    ]
    size = m.RESULTS_PAGE
    chunks = [tuple(kept[at : at + size]) for at in range(0, len(kept), size)] or [()]
    return [
        m.GameResults(table, page, page < len(chunks) - 1, chunk)
        for page, chunk in enumerate(chunks)
    ]


def results_from_wire(pages: Iterable[m.GameResults]) -> tuple[HandOver, ...]:
    """The hands the pages tell of, as the engine's `HandOver` (by hand, each once)."""
    found: dict[int, HandOver] = {}
    for page in pages:
        for hand in page.hands:
            if len(hand.points) != len(hand.finish):
                raise _bad("game_results: a score for each place")
            found[hand.hand] = HandOver(
                hand.hand, tuple(hand.finish), tuple(zip(hand.finish, hand.points))
            )
    return tuple(found[hand] for hand in sorted(found))


# --- the public view ----------------------------------------------------------------------


def public_view_to_wire(view: PublicView) -> m.GameView:
    top = view.top
    return m.GameView(
        hand=view.hand_number,
        phase=view.phase.value,
        seating=view.seating,
        dealer=view.dealer,
        counts=view.counts,
        turn=view.turn,
        top=None
        if top is None
        else m.TopPlay(top.owner, top.rank, top.size, top.jokers, top.run, top.suits),
        trick=tuple([(seat, cards_to_wire(play.cards)) for seat, play in view.trick]),
        played=cards_to_wire(view.played),
        revolution=view.revolution,
        opening=view.opening,
        passed=view.passed,
        locked=view.locked,
        finish_order=view.finish_order,
        standing=view.standing,
        scores=tuple([score for _, score in view.scores]),
        owed=view.owed,
        hands_played=view.hands_played,
        winners=view.winners,
        places=view.places,
        jack_back=view.jack_back,
        lock=view.lock,
        due=None
        if view.due is None
        else m.Due(view.due.kind, view.due.size, cards_to_wire(view.due.cards)),
        backwards=view.backwards,
        taken=cards_to_wire(view.taken),
    )


def public_view_from_wire(game: m.GameView, rules: Rules) -> PublicView:
    """The engine's `PublicView` that `game` carries (at a table playing `rules`)."""
    players = len(game.seating)
    per_seat = (game.counts, game.passed, game.locked, game.scores, game.places)
    if any(len(values) != players for values in per_seat):
        raise _bad("game: a value for each seat of the seating")
    if any(seat >= players for seat in _seats(game)):
        raise _bad("game: a seat beyond the seating")
    top = game.top
    return PublicView(
        rules=rules,
        hand_number=game.hand,
        phase=Phase(game.phase),
        seating=game.seating,
        dealer=game.dealer,
        counts=game.counts,
        turn=game.turn,
        top=None
        if top is None
        else Top(top.owner, top.rank, top.size, top.jokers, top.run, tuple(top.suits)),
        trick=tuple([(seat, Play(cards_from_wire(cards))) for seat, cards in game.trick]),
        played=cards_from_wire(game.played),
        revolution=game.revolution,
        opening=game.opening,
        passed=game.passed,
        locked=game.locked,
        finish_order=game.finish_order,
        standing=game.standing,
        scores=tuple(zip(game.seating, game.scores)),
        owed=game.owed,
        hands_played=game.hands_played,
        winners=game.winners,
        places=game.places,
        jack_back=game.jack_back,
        lock=tuple(game.lock),
        due=None
        if game.due is None
        else Due(game.due.kind, game.due.size, cards_from_wire(game.due.cards)),
        backwards=game.backwards,
        taken=cards_from_wire(game.taken),
    )


def _seats(game: m.GameView) -> list[int]:
    seats = [seat for seat, _ in game.trick] + [seat for seat, _ in game.owed]
    seats += [s for s in (game.dealer, game.turn) if s is not None] + list(game.finish_order)
    return seats + ([game.top.owner] if game.top is not None else [])


# --- a seat's private part, sealed to it --------------------------------------------------

#: Card kinds, as one count byte each: the hand's fixed-size part.
HAND_BYTES = len(CARDS)


def private_to_bytes(hand: Iterable[Card], exchange: Sequence[Gave | Returned]) -> bytes:
    """A seat's own cards and its own part of the exchange, as the plaintext sealed to
    it: msgpack [53 count bytes, [[returned?, giver, receiver, automatic, [card ids]]...]].
    Its length depends only on how many cards the exchange moved (public), never on
    which cards are held."""
    counts = bytes(counts_of(hand))
    moves = [
        [
            type(e) is Returned,
            e.giver,
            e.receiver,
            isinstance(e, Returned) and e.automatic,
            [card.id for card in e.cards],
        ]
        for e in exchange
    ]
    return pack([counts, moves])


def private_from_bytes(data: bytes) -> tuple[tuple[Card, ...], tuple[Gave | Returned, ...]]:
    """(hand, exchange) from `private_to_bytes`; `RemoteProtocolError` for anything else."""
    value = unpack(data)
    try:
        counts, moves = value
        if type(counts) is not bytes or len(counts) != HAND_BYTES or max(counts) > 8:
            raise ValueError("the hand is not 53 counts")
        hand = tuple([CARDS[i] for i, n in enumerate(counts) for _ in range(n)])
        exchange: list[Gave | Returned] = []
        for returned, giver, receiver, automatic, ids in moves:
            # (up to 6 cards a pair under scaled_exchange: 12 players, 6 pairs)
            if not all(type(x) is int for x in (giver, receiver, *ids)) or len(ids) > 6:
                raise ValueError("an exchange entry is not seats and card ids")
            if not (
                0 <= giver < 12 and 0 <= receiver < 12 and all(0 <= i < HAND_BYTES for i in ids)
            ):
                raise ValueError("an exchange entry names no seat or card")
            cards = tuple([CARDS[i] for i in ids])
            if returned is True:
                exchange.append(Returned(giver, receiver, len(cards), cards, automatic is True))
            else:
                exchange.append(Gave(giver, receiver, len(cards), cards))
    except (ValueError, TypeError, IndexError) as exc:
        raise _bad(f"a sealed hand that is not one: {exc}") from None
    return hand, tuple(exchange)
