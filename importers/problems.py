"""Import problems and results: what a reader found, where, and what it expected."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from chaodipi.v1 import records_pb2

_Made = TypeVar("_Made")
_ReadGame = Callable[[bytes], tuple[_Made, bool]]
"""What a stream's reader makes of a game's encoding, and whether it vouches for the game's
draw order, bids, kitty exchanges and tricks (``RecordStream.entries``)."""


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One error in an input file: the file, where in it, and what was expected there.

    ``location`` is ``"line 12"``, a JSON path such as ``"$.events[3].cards[1]"``
    (prefixed by ``"line 4: "`` in JSON Lines), or a byte offset in binary input.
    """

    file: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.location}: {self.message}"


class ImportFailed(Exception):
    """Raised in strict mode at the first problem; carries it as ``problem``."""

    def __init__(self, problem: ImportProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass(slots=True)
class ImportResult:
    """Records read from one or more inputs, the problems found, and notes on how they were read."""

    records: list[records_pb2.RecordFile] = field(default_factory=list)
    errors: list[ImportProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def extend(self, other: ImportResult) -> None:
        """Append another result's records, errors and notes."""
        self.records.extend(other.records)
        self.errors.extend(other.errors)
        self.notes.extend(other.notes)


class RecordError(Exception):
    """A bad record inside a reader: where and what was expected. Readers catch it per record."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.message = message


class Collector:
    """Collects problems for one file; in strict mode the first one raises ``ImportFailed``."""

    def __init__(self, file: str, strict: bool) -> None:
        self.file = file
        self.strict = strict
        self.result = ImportResult()

    def problem(self, location: str, message: str) -> None:
        """Record a problem (raise it in strict mode)."""
        found = ImportProblem(self.file, location, message)
        if self.strict:
            raise ImportFailed(found)
        self.result.errors.append(found)

    def add(self, record: records_pb2.RecordFile) -> None:
        """Keep a record that was read without problems."""
        self.result.records.append(record)

    def note(self, text: str) -> None:
        """Say how the input was read (e.g. which protobuf framing was chosen)."""
        self.result.notes.append(text)


class RecordStream:
    """One file's records, given one at a time, and what reading them found.

    ``result`` holds the problems and notes found so far (its ``records`` stay empty: the
    records are given by iterating, once). ``expected``: how many records are to be given in
    all, as far as is known: exact for a file read whole; for a protobuf stream read record by
    record, its frames less those rejected so far.
    """

    def __init__(self, result: ImportResult) -> None:
        self.result = result
        self.expected = 0
        self.records: Iterable[records_pb2.RecordFile] = ()
        # The same records, a game that a frame holds alone read from its bytes (``entries``):
        # set for a protobuf stream read as it is iterated; one or the other is iterated, once.
        self.encoded: Callable[[_ReadGame[Any]], Iterator[Any]] | None = None

    def __iter__(self) -> Iterator[records_pb2.RecordFile]:
        return iter(self.records)

    def entries(self, read: _ReadGame[_Made]) -> Iterator[records_pb2.RecordFile | _Made]:
        """The records, where a protobuf stream's frame holds a game alone, what ``read`` makes
        of the game's encoding in its place: ``read`` gives that and whether it vouches for the
        game's draw order, bids, kitty exchanges and tricks (``audit_encoded_game``: each read
        as a canonical writer writes it, every token canonical, no field unknown). The rest of
        such a record is checked with the records around it, at a fraction of a check of its
        whole; a game ``read`` does not vouch for is checked as any record, and given only if
        clean."""
        if self.encoded is None:
            return iter(self.records)
        return cast(Iterator[records_pb2.RecordFile | _Made], self.encoded(read))

    def given(self, records: list[records_pb2.RecordFile]) -> None:
        """Give records read whole."""
        self.records = records
        self.expected = len(records)

    @classmethod
    def whole(cls, result: ImportResult) -> RecordStream:
        """A file's records read whole, given from its result (which then holds none)."""
        stream = cls(result)
        stream.given(result.records)
        result.records = []
        return stream
