"""Protobuf binary: a single GameRecord, MatchRecord or RecordFile, or a length-delimited stream.

A stream is RecordFile messages, each preceded by its length as a varint (the framing of
``writeDelimitedTo`` in the Java and C++ libraries). Reading tries, in order: a stream whose
framing uses every byte and whose entries parse cleanly; one RecordFile; one GameRecord; one
MatchRecord. "Cleanly" means no parse error, no unknown fields, and a RecordFile holding a
record. The choice made is reported as a note.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar, cast

from google.protobuf.message import DecodeError, Message

from chaodipi.auditor.reading import RECORD_FILE_READ
from chaodipi.auditor.wire import encode_varint, read_varint, sole_game, sole_match
from chaodipi.importers.problems import Collector, ImportResult, RecordStream
from chaodipi.importers.tokens import bad_token, clean_records
from chaodipi.v1 import records_pb2

_Frame = tuple[int, bytes]  # (offset of the length prefix, message bytes)
_RECORD_TAG = b"\x0a"  # field 1, length-delimited


def write_pb(records: Iterable[records_pb2.RecordFile]) -> bytes:
    """A length-delimited stream of RecordFile messages."""
    out = bytearray()
    for record in records:
        data = record.SerializeToString(deterministic=True)
        out += encode_varint(len(data)) + data
    return bytes(out)


def _frames(data: bytes) -> list[_Frame] | str:
    """The stream's frames, or why the bytes are not a length-delimited stream."""
    frames: list[_Frame] = []
    pos = 0
    while pos < len(data):
        start = pos
        prefix = read_varint(data, pos)
        if prefix is None:
            return f"byte {start}: the length prefix is cut off or longer than 10 bytes"
        length, pos = prefix
        if pos + length > len(data):
            return (
                f"byte {start}: a length of {length} runs past the end of the data "
                f"({len(data) - pos} bytes left)"
            )
        frames.append((start, data[pos : pos + length]))
        pos += length
    return frames


def _clean(message: Message, data: bytes) -> bool:
    """Whether a message parsed from ``data`` and all its submessages have no unknown fields.

    The parser keeps unknown fields (at any depth) and serializes them again. Once they are
    dropped, a message that serializes back to ``data`` had none: ``data`` parses to it, and
    parsing is a function. That is one walk and one serialization in C; bytes another writer
    ordered otherwise fall back to comparing sizes around the drop (which shrinks a message
    exactly when it had some) on a fresh parse. A message that had some is rejected, so what
    the drop changed is never kept.
    """
    message.DiscardUnknownFields()
    if message.SerializeToString(deterministic=True) == data:
        return True
    fresh = type(message).FromString(data)
    size = fresh.ByteSize()
    fresh.DiscardUnknownFields()
    return fresh.ByteSize() == size


def _parse(kind: type[Message], data: bytes, known_only: bool = False) -> Message | None:
    """A clean message of type ``kind`` from ``data``, or None; ``known_only``: ``data`` is
    known to hold no unknown field (``clean_records``), which then goes unchecked."""
    message = kind()
    try:
        message.ParseFromString(data)
    except DecodeError:
        return None
    if not known_only and not _clean(message, data):
        return None
    if isinstance(message, records_pb2.RecordFile) and message.WhichOneof("record") is None:
        return None
    return message


def is_record_frame(body: bytes) -> bool:
    """Whether bytes are one clean RecordFile holding a game or a match: a stream's frame."""
    return _parse(records_pb2.RecordFile, body) is not None


def _single(data: bytes) -> tuple[records_pb2.RecordFile, str] | None:
    for kind in (records_pb2.RecordFile, records_pb2.GameRecord, records_pb2.MatchRecord):
        message = _parse(kind, data)
        if isinstance(message, records_pb2.RecordFile):
            return message, "RecordFile"
        if isinstance(message, records_pb2.GameRecord):
            return records_pb2.RecordFile(game=message), "GameRecord"
        if isinstance(message, records_pb2.MatchRecord):
            return records_pb2.RecordFile(match=message), "MatchRecord"
    return None


_SINGLE_NUMBERS = frozenset(
    fd.number
    for kind in (records_pb2.RecordFile, records_pb2.GameRecord, records_pb2.MatchRecord)
    for fd in kind.DESCRIPTOR.fields
)
"""The field numbers of the messages a whole file may be read as (``_single``)."""


def _never_single(frames: list[_Frame]) -> bool:
    """Whether a stream of two frames or more cannot be read as one message, as its first
    length prefix shows.

    As one message, the first length prefix is read as the first field's tag, the field's
    number being the length over 8. A number that none of ``_single``'s message types has is an
    unknown field (or, when 0, a parse error), and either rejects the message. A prefix of at
    most 4 bytes is read as the tag it is whatever the parser's varint limits (a record of 120
    bytes or more, up to 256 MiB, has such a prefix)."""
    prefix = frames[1][0] - len(frames[0][1])  # the second frame starts after the first's bytes
    return prefix <= 4 and len(frames[0][1]) >> 3 not in _SINGLE_NUMBERS


_Read = tuple[int, bytes, records_pb2.RecordFile | bytes | None, bool]
"""A frame read: its start and bytes, its clean record (or the encoding of the game it holds
alone, its draw order, bids, kitty exchanges and tricks yet to be vouched for) or None,
whether its tokens are known to be canonical."""
_CHUNK = 64
"""Frames checked together for unknown fields and tokens: the checks cost one C parse a chunk
instead of one a record, and memory holds a chunk's checks, not the file's."""


def _read_frames(
    data: bytes, frames: list[_Frame], games_as_bytes: bool = False
) -> Iterator[_Read]:
    """Each frame's start and bytes, its clean RecordFile (None if it is not one), and whether
    its tokens are known to be canonical, parsed as they are asked for. A chunk of records
    whose tokens are all canonical and fields all known (``clean_records``) is read without a
    check of each record; else each is checked alone.

    ``games_as_bytes``: the chunk is checked but for its games' draw orders, bids, kitty
    exchanges and tricks (``RECORD_FILE_READ``: most of a record's bytes, which
    ``audit_encoded_game`` reads and vouches for), and a frame of a clean chunk that holds a
    game alone gives the game's encoding instead of its parse; one that holds neither a game
    nor a match alone (whose game would be checked in part) is checked alone."""
    kind = RECORD_FILE_READ if games_as_bytes else records_pb2.RecordFile.DESCRIPTOR
    for first in range(0, len(frames), _CHUNK):
        chunk = frames[first : first + _CHUNK]
        ends = [start for start, _ in frames[first + 1 : first + _CHUNK + 1]]
        ends += [len(data)] * (len(chunk) - len(ends))
        # The frames, each tagged as field 1, are the records as one message's repeated field.
        field = b"".join(
            [_RECORD_TAG + data[start:end] for (start, _), end in zip(chunk, ends, strict=True)]
        )
        clean = clean_records(kind, field)
        for start, body in chunk:
            if games_as_bytes and clean:
                game = sole_game(body)
                if game is not None:
                    yield start, body, game, True
                    continue
                if not sole_match(body):
                    yield start, body, _record(body), False
                    continue
            yield start, body, _record(body, clean), clean


def _record(body: bytes, known_only: bool = False) -> records_pb2.RecordFile | None:
    """A frame's clean RecordFile holding a record, or None (``_parse``)."""
    message = _parse(records_pb2.RecordFile, body, known_only)
    assert message is None or isinstance(message, records_pb2.RecordFile)
    return message


_Made = TypeVar("_Made")


def _stream(
    stream: RecordStream,
    out: Collector,
    frames: Iterable[_Read],
    count: int,
    read: Callable[[bytes], tuple[_Made, bool]] | None = None,
) -> Iterator[records_pb2.RecordFile | _Made]:
    """A stream's records one by one; each frame that is not a clean RecordFile holding a
    record, or whose record holds a bad token, is a problem at its record number and byte.

    ``read``: what to give for a game ``frames`` gives as its encoding, and whether it vouches
    for the game's draw order, bids, kitty exchanges and tricks (``RecordStream.entries``); a
    game it does not vouch for is checked as a record alone, and given only if it is clean."""
    clean = True
    for i, (start, body, message, canonical) in enumerate(frames):
        made: _Made | None = None
        if isinstance(message, bytes):
            assert read is not None
            made, vouched = read(message)
            if vouched:
                yield made
                continue
            message, canonical = _record(body), False
        if message is None:
            clean = False
            out.problem(_where(i, start), "expected a RecordFile message holding a game or a match")
            stream.expected -= 1
            continue
        found = None if canonical else bad_token(message, "", json_names=False, data=body)
        if found:
            out.problem(f"{_where(i, start)}: {found[0]}", found[1])
            stream.expected -= 1
            continue
        yield message if made is None else made
    messages = "RecordFile messages" if clean else "messages"
    out.note(f"{out.file}: read as a length-delimited stream of {count} {messages}")


def _where(index: int, start: int) -> str:
    """Where a stream's frame is: its record number and byte (said only of a bad one)."""
    return f"record {index + 1} (byte {start})"


def stream_pb(data: bytes, file: str, strict: bool = False) -> RecordStream:
    """Records from protobuf binary input (see the module docstring for the framing rules).

    A stream of two frames or more that cannot be read as one message (``_never_single``) is
    read as a stream whatever its frames hold, so it is read record by record as it is
    iterated: each frame parsed, checked and given, and memory holds one record. Other input
    is read whole first, to choose how to read it.
    """
    out = Collector(file, strict)
    stream = RecordStream(out.result)
    if not data:
        out.problem("byte 0", "the file is empty: expected protobuf records")
        return stream
    frames = _frames(data)
    if isinstance(frames, list) and len(frames) > 1 and _never_single(frames):
        stream.expected = len(frames)
        # One of the two is iterated: ``stream.entries(read)`` or the stream itself. Frames
        # read without games as bytes give messages only.
        stream.encoded = lambda read: _stream(
            stream, out, _read_frames(data, frames, True), len(frames), read
        )
        stream.records = cast(
            Iterator[records_pb2.RecordFile],
            _stream(stream, out, _read_frames(data, frames), len(frames)),
        )
        return stream
    parsed = list(_read_frames(data, frames)) if isinstance(frames, list) else []
    if parsed and all(message is not None for _, _, message, _ in parsed):
        stream.given(
            cast(list[records_pb2.RecordFile], list(_stream(stream, out, parsed, len(parsed))))
        )
        return stream
    single = _single(data)
    if single is not None:
        out.note(f"{file}: read as one {single[1]} message")
        found = bad_token(single[0], "", json_names=False)
        if found:
            out.problem(f"byte 0: {found[0]}", found[1])
        else:
            stream.given([single[0]])
        return stream
    if len(parsed) > 1:
        stream.given(
            cast(list[records_pb2.RecordFile], list(_stream(stream, out, parsed, len(parsed))))
        )
        return stream
    why = frames if isinstance(frames, str) else "its one frame is not a RecordFile"
    out.problem(
        "byte 0",
        "expected a protobuf GameRecord, MatchRecord or RecordFile message, or a "
        f"length-delimited stream of RecordFile messages (as a stream: {why})",
    )
    return stream


def read_pb(data: bytes, file: str, strict: bool = False) -> ImportResult:
    """Records from protobuf binary input, read whole (``stream_pb``)."""
    stream = stream_pb(data, file, strict)
    records = list(stream)
    stream.result.records = records
    return stream.result
