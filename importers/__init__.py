"""Importers: game logs from many places turned into ``chaodipi.v1`` records.

Formats: ``text`` (our notation, docs/notation.md), ``pb`` (protobuf binary), ``json``
(protobuf JSON), ``eighty`` (the 80-fen-shengji ``eighty-completed-deal`` v2 replay),
``botzone`` (Botzone 双升 judger logs) and ``godot`` (shengji-godot game logs, one record a
round); see docs/foreign-formats.md for the foreign ones.

>>> result = load_bytes(b'[Game "g1"]\\n[Ruleset "classic"]\\n', "g1.txt")
>>> result.records[0].game.ruleset, result.errors
('classic', [])

Every reader is pure; only ``load``, ``stream`` and ``write`` touch files. A foreign record names
its program's preset (``eighty``, ``botzone``, ``godot``), which the engine knows like every other.
The readers of the text notation and the foreign formats are imported when a file of theirs is
read, so that reading protobuf (the command line's and the service's common case) does not pay
for them at start-up.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from chaodipi.auditor.reading import load_json
from chaodipi.importers.problems import (
    Collector,
    ImportFailed,
    ImportProblem,
    ImportResult,
    RecordStream,
)
from chaodipi.importers.protobin import read_pb, stream_pb, write_pb
from chaodipi.importers.protojson import read_json, write_json
from chaodipi.v1 import records_pb2

FORMATS = ("text", "pb", "json", "eighty", "botzone", "godot")
"""Input formats ``load`` understands (besides ``auto``)."""

OUTPUTS = ("pb", "json", "text")
"""Output formats ``write`` produces."""

__all__ = [
    "FORMATS",
    "OUTPUTS",
    "ImportFailed",
    "ImportProblem",
    "ImportResult",
    "RecordStream",
    "detect_format",
    "dumps",
    "load",
    "load_bytes",
    "stream",
    "write",
]


def _sniff_json(value: object) -> str:
    from chaodipi.importers import eighty, godot

    # A loop, not recursion: an array nested nearly as deep as json.loads allows is valid.
    while isinstance(value, list) and value:
        if all(isinstance(v, dict) and "type" in v and "seq" in v for v in value):
            return "eighty"  # a legacy v1 replay: reported as not replayable
        value = value[0]
    if isinstance(value, dict):
        if value.get("format") == eighty.FORMAT or "replay_json" in value:
            return "eighty"
        if value.get("encoding") == "gzip+base64":
            return "eighty"
        if isinstance(value.get("log"), list):
            return "botzone"
        if godot.is_godot_log(value):
            return "godot"
    return "json"


def detect_format(name: str, data: bytes) -> str:
    """The format of a file from its name and content: one of ``FORMATS``.

    ``.pb`` and ``.bin`` are protobuf binary. Otherwise JSON content is told apart by its
    shape (an ``eighty-completed-deal`` replay or its envelope, a Botzone log with ``log``, a
    shengji-godot log with ``rounds`` and ``version``, or protobuf JSON); text with a ``[Game``
    or ``[Match`` header is the notation; bytes that are not UTF-8 text are protobuf binary.
    """
    suffix = Path(name).suffix.lower()
    if suffix in (".pb", ".bin"):
        return "pb"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "pb"
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return _sniff_json(load_json(text))
        except json.JSONDecodeError:
            # JSON Lines, perhaps: told by its first line (reading every line here would
            # double the cost of reading the file; a bad later line is its reader's problem).
            with contextlib.suppress(json.JSONDecodeError):
                return _sniff_json(load_json(stripped.split("\n", 1)[0]))
    for line in text.split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            if line.startswith(("[Game", "[Match")):
                return "text"
            break
    if suffix in (".json", ".jsonl"):
        return "json"
    if any(ord(ch) < 32 and ch not in "\t\r\n" for ch in text):
        return "pb"
    return "text"


def _chosen(data: bytes, name: str, format: str) -> str:
    """The format to read a file in: ``format``, or the one detected for ``auto``."""
    chosen = detect_format(name, data) if format == "auto" else format
    if chosen not in FORMATS:
        raise ValueError(f"unknown format {format!r}: expected auto or one of {', '.join(FORMATS)}")
    return chosen


def load_bytes(data: bytes, name: str, format: str = "auto", strict: bool = False) -> ImportResult:
    """Records from the bytes of one file called ``name`` (used for messages and detection).

    Lenient (default): a bad record is reported in ``errors`` and skipped. Strict: the first
    problem raises ``ImportFailed``.
    """
    chosen = _chosen(data, name, format)
    if chosen == "pb":
        return read_pb(data, name, strict)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        out = Collector(name, strict)
        out.problem(f"byte {exc.start}", f"not UTF-8 text: expected a file of format {chosen}")
        return out.result
    if not text.strip():
        out = Collector(name, strict)
        out.problem("byte 0", f"the file is empty: expected {chosen} records")
        return out.result
    if chosen == "json":
        return read_json(text, name, strict)
    if chosen == "text":
        from chaodipi.importers.notation import read_text

        return read_text(text, name, strict)
    if chosen == "eighty":
        from chaodipi.importers.eighty import read_eighty

        return read_eighty(text, name, strict)
    if chosen == "botzone":
        from chaodipi.importers.botzone import read_botzone

        return read_botzone(text, name, strict)
    from chaodipi.importers.godot import read_godot

    return read_godot(text, name, strict)


def load(path: str | os.PathLike[str], format: str = "auto", strict: bool = False) -> ImportResult:
    """Records from a file; see ``load_bytes``."""
    return load_bytes(Path(path).read_bytes(), str(path), format, strict)


def stream(path: str | os.PathLike[str], format: str = "auto") -> RecordStream:
    """``load``'s records given one at a time, with the same problems and notes (lenient).

    A protobuf stream is read a record at a time as it is iterated (``stream_pb``), so memory
    holds one record and a record is parsed just before it is used; other input is read whole.
    """
    data, name = Path(path).read_bytes(), str(path)
    chosen = _chosen(data, name, format)
    if chosen == "pb":
        return stream_pb(data, name)
    return RecordStream.whole(load_bytes(data, name, chosen))


def dumps(records: Iterable[records_pb2.RecordFile], to: str) -> bytes:
    """Records as the bytes of a ``pb``, ``json`` or ``text`` file."""
    if to == "pb":
        return write_pb(records)
    if to == "json":
        return write_json(records).encode()
    if to == "text":
        from chaodipi.importers.notation import format_records

        return format_records(records).encode()
    raise ValueError(f"unknown output format {to!r}: expected one of {', '.join(OUTPUTS)}")


def write(
    records: Iterable[records_pb2.RecordFile],
    path_or_stream: str | os.PathLike[str] | BinaryIO,
    to: str,
) -> None:
    """Write records as ``pb`` (length-delimited RecordFile stream), ``json`` or ``text``."""
    data = dumps(records, to)
    if isinstance(path_or_stream, (str, os.PathLike)):
        Path(path_or_stream).write_bytes(data)
    else:
        path_or_stream.write(data)
