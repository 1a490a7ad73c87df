"""Protobuf binary: a single GameRecord, MatchRecord or RecordFile, or a length-delimited stream.

A stream is RecordFile messages, each preceded by its length as a varint (the framing of
``writeDelimitedTo`` in the Java and C++ libraries). Reading tries, in order: a stream whose
framing uses every byte and whose entries parse cleanly; one RecordFile; one GameRecord; one
MatchRecord. "Cleanly" means no parse error, no unknown fields, and a RecordFile holding a
record. The choice made is reported as a note.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import DecodeError, Message

from chaodipi.auditor.wire import encode_varint
from chaodipi.importers.problems import Collector, ImportResult
from chaodipi.importers.tokens import bad_token, canonical_records
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
        start, length, shift = pos, 0, 0
        while True:
            if pos >= len(data) or shift > 63:
                return f"byte {start}: the length prefix is cut off or longer than 10 bytes"
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
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


def _parse(kind: type[Message], data: bytes) -> Message | None:
    message = kind()
    try:
        message.ParseFromString(data)
    except DecodeError:
        return None
    if not _clean(message, data):
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


def _keep(
    out: Collector, record: records_pb2.RecordFile, where: str, data: bytes | None = None
) -> None:
    """Keep a record unless it holds a bad token; ``data``: its bytes, when they are its own."""
    found = bad_token(record, "", json_names=False, data=data)
    if found:
        out.problem(f"{where}: {found[0]}", found[1])
    else:
        out.add(record)


def read_pb(data: bytes, file: str, strict: bool = False) -> ImportResult:
    """Records from protobuf binary input (see the module docstring for the framing rules)."""
    out = Collector(file, strict)
    if not data:
        out.problem("byte 0", "the file is empty: expected protobuf records")
        return out.result
    frames = _frames(data)
    parsed = (
        [(start, _parse(records_pb2.RecordFile, body)) for start, body in frames]
        if isinstance(frames, list)
        else []
    )
    if parsed and all(message is not None for _, message in parsed):
        assert isinstance(frames, list)
        out.note(f"{file}: read as a length-delimited stream of {len(parsed)} RecordFile messages")
        # The frames, each tagged as field 1, are the records as one message's repeated field.
        ends = [start for start, _ in frames[1:]] + [len(data)]
        field = b"".join(
            [_RECORD_TAG + data[start:end] for (start, _), end in zip(frames, ends, strict=True)]
        )
        if canonical_records(records_pb2.RecordFile.DESCRIPTOR, field):
            for _, message in parsed:
                assert isinstance(message, records_pb2.RecordFile)
                out.add(message)
            return out.result
        for i, ((start, message), (_, body)) in enumerate(zip(parsed, frames, strict=True)):
            assert isinstance(message, records_pb2.RecordFile)
            _keep(out, message, f"record {i + 1} (byte {start})", body)
        return out.result
    single = _single(data)
    if single is not None:
        out.note(f"{file}: read as one {single[1]} message")
        _keep(out, single[0], "byte 0")
        return out.result
    if isinstance(frames, list) and len(frames) > 1:
        out.note(f"{file}: read as a length-delimited stream of {len(frames)} messages")
        for i, (start, message) in enumerate(parsed):
            if isinstance(message, records_pb2.RecordFile):
                _keep(out, message, f"record {i + 1} (byte {start})")
            else:
                out.problem(
                    f"record {i + 1} (byte {start})",
                    "expected a RecordFile message holding a game or a match",
                )
        return out.result
    why = frames if isinstance(frames, str) else "its one frame is not a RecordFile"
    out.problem(
        "byte 0",
        "expected a protobuf GameRecord, MatchRecord or RecordFile message, or a "
        f"length-delimited stream of RecordFile messages (as a stream: {why})",
    )
    return out.result
