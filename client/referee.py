"""A Python client of the live referee (``chaodipi.v1.RefereeService``): one table per stream.

``RefereeTable`` opens a Referee stream on an ``AuditClient``'s channel (its API key, TLS and
channel options), sends the hand's events one at a time and returns each event's
``RefereeResponse`` (its verdict; a trick's and the hand's result when it ends them). The
stream's deadline is ``timeout`` seconds for the whole hand, and each event waits at most
``event_timeout`` seconds for its verdict (``TimeoutError``; the table is then closed). A
stream is never retried: the table lives in it, so a failure (``ServiceError``: its status code
and message) ends the table and the hand is sent again on a new one. Cards are tokens, as a
string (``"SA SA"``) or a list.

>>> from chaodipi.client import AuditClient
>>> from chaodipi.client.referee import RefereeTable
>>> with AuditClient("127.0.0.1:50051", api_key=key) as client:          # doctest: +SKIP
...     with RefereeTable(client, record_id="t1", ruleset="classic") as table:
...         table.deal(draw_order=deck, first_drawer=0)
...         verdict = table.play(0, "SA SA").verdict                      # legal, or why not
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType

import grpc

from chaodipi.client import AuditClient, ServiceError
from chaodipi.v1 import records_pb2, referee_pb2, referee_pb2_grpc, service_pb2

__all__ = ["Cards", "RefereeTable"]

Answer = referee_pb2.RefereeResponse | ServiceError | None
"""What the reading thread passes on: a response, the stream's error, or its end (None)."""

Cards = str | Sequence[str]
"""Card tokens: ``"SA SA"`` or ``["SA", "SA"]``."""


def _tokens(cards: Cards) -> list[str]:
    return cards.split() if isinstance(cards, str) else list(cards)


class RefereeTable:
    """One table of the live referee, opened on ``client``'s channel.

    The keyword arguments are ``OpenTable``'s fields (``record_id``, ``ruleset``,
    ``players`` as four ``Player`` messages or (id, name) pairs, ``context``, …). Opening
    sends ``open`` and reads its verdict (``opened``); an open the server refuses raises
    ``ValueError`` with its reason. A thread reads the responses as they come.
    """

    def __init__(
        self,
        client: AuditClient,
        *,
        record_id: str,
        ruleset: str = "classic",
        ruleset_overrides_json: str = "",
        players: Iterable[records_pb2.Player | tuple[str, str]] = (),
        context: records_pb2.HandContext | None = None,
        played_at: str = "",
        venue: str = "",
        metadata: Mapping[str, str] | None = None,
        timeout: float | None = 3600.0,
        event_timeout: float | None = 10.0,
    ) -> None:
        stub = referee_pb2_grpc.RefereeServiceStub(client.channel)
        self.event_timeout = event_timeout
        self._requests: queue.SimpleQueue[referee_pb2.RefereeRequest | None] = queue.SimpleQueue()
        self._responses: Iterator[referee_pb2.RefereeResponse] = stub.Referee(
            iter(self._requests.get, None), timeout=timeout, metadata=client.metadata
        )
        self._answers: queue.SimpleQueue[Answer] = queue.SimpleQueue()
        threading.Thread(target=self._read, name="referee-responses", daemon=True).start()
        table = referee_pb2.OpenTable(
            record_id=record_id,
            ruleset=ruleset,
            ruleset_overrides_json=ruleset_overrides_json,
            played_at=played_at,
            venue=venue,
            metadata=dict(metadata or {}),
        )
        for player in players:
            if isinstance(player, records_pb2.Player):
                table.players.append(player)
            else:
                table.players.add(id=player[0], display_name=player[1])
        if context is not None:
            table.context.CopyFrom(context)
        self.opened = self.send(referee_pb2.RefereeRequest(open=table))
        if self.opened.verdict.result != referee_pb2.VERDICT_RESULT_LEGAL:
            self.close()
            raise ValueError(f"the table was not opened: {self.opened.verdict.reason}")

    def __enter__(self) -> RefereeTable:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, request: referee_pb2.RefereeRequest) -> referee_pb2.RefereeResponse:
        """Send one event and wait for its response."""
        self._requests.put(request)
        return self._next()

    def _read(self) -> None:
        """The responses as they come, then None (the stream is over) or its error."""
        try:
            for response in self._responses:
                self._answers.put(response)
        except grpc.RpcError as error:
            self._answers.put(ServiceError(error))
            return
        self._answers.put(None)

    def _next(self) -> referee_pb2.RefereeResponse:
        try:
            answer = self._answers.get(timeout=self.event_timeout)
        except queue.Empty:
            self.close()
            raise TimeoutError(
                f"no verdict within {self.event_timeout} s: the table is closed"
            ) from None
        if isinstance(answer, ServiceError):
            self._answers.put(answer)  # the stream stays failed
            raise answer
        if answer is None:
            self._answers.put(None)
            raise ValueError("the table's stream is over")
        return answer

    def deal(
        self,
        *,
        draw_order: Cards | None = None,
        first_drawer: int = 0,
        hands: Sequence[Cards] | None = None,
        kitty: Cards = (),
    ) -> referee_pb2.RefereeResponse:
        """The deal: the deck in draw order (the kitty last), or the four hands and the kitty."""
        deal = referee_pb2.Deal()
        if draw_order is not None:
            deal.draw_order.deck.extend(_tokens(draw_order))
            deal.draw_order.first_drawer = first_drawer
        else:
            for hand in hands or ():
                deal.dealt_hands.hands.add(cards=_tokens(hand))
            deal.dealt_hands.kitty.extend(_tokens(kitty))
        return self.send(referee_pb2.RefereeRequest(deal=deal))

    def bid(
        self,
        seat: int,
        kind: records_pb2.BidKind.ValueType,
        cards: Cards,
        *,
        trump: records_pb2.Suit.ValueType | None = None,
        drawn_count: int | None = None,
    ) -> referee_pb2.RefereeResponse:
        """A bid: ``kind`` a ``BidKind`` (``records_pb2.BID_KIND_DECLARE``, …)."""
        event = records_pb2.BidEvent(seat=seat, kind=kind, cards=_tokens(cards))
        if trump is not None:
            event.trump_chosen = trump
        if drawn_count is not None:
            event.drawn_count = drawn_count
        return self.send(referee_pb2.RefereeRequest(bid=event))

    def bury(self, seat: int, picked_up: Cards, buried: Cards) -> referee_pb2.RefereeResponse:
        """A kitty exchange: the cards taken up and the cards buried."""
        exchange = records_pb2.KittyExchange(
            seat=seat, picked_up=_tokens(picked_up), buried=_tokens(buried)
        )
        return self.send(referee_pb2.RefereeRequest(kitty_exchange=exchange))

    def play(
        self, seat: int, cards: Cards, *, split: Sequence[Cards] = ()
    ) -> referee_pb2.RefereeResponse:
        """A lead or a follow (``split``: the leader's own units of a lead)."""
        event = referee_pb2.PlayEvent(play=records_pb2.Play(seat=seat, cards=_tokens(cards)))
        for unit in split:
            event.declared_split.add(cards=_tokens(unit))
        return self.send(referee_pb2.RefereeRequest(play=event))

    def stored(self) -> service_pb2.RecordSummary:
        """After the hand's last play: what became of its record (``game`` names it)."""
        return self._next().stored

    def close(self) -> None:
        """End the stream (a table left open is cancelled)."""
        self._requests.put(None)
        cancel = getattr(self._responses, "cancel", None)
        if cancel is not None:
            cancel()
