"""Expanding SOURCE arguments into files and streaming units of work (one per record) out of them.

A unit is ``(unit_id, digest, payload, problem)``: ``unit_id`` is ``<absolute path>#<index>``,
``digest`` the SHA-256 (hex, 32 digits) of the payload, ``payload`` the record as a one-frame
length-delimited protobuf stream (what ``importers.load_bytes(..., "pb")`` reads back), and
``problem`` the import error when the source could not be read there (then ``payload`` is empty).
The pair (unit_id, digest) is what ``--resume`` skips: a record edited in place is audited again.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from chaodipi import importers
from chaodipi.auditor.wire import encode_varint
from chaodipi.importers.protobin import is_record_frame

Unit = tuple[str, str, bytes, str]
"""(unit_id, digest, payload, problem): see the module docstring."""

FOLDER_SUFFIXES = frozenset({".pb", ".bin", ".json", ".jsonl", ".txt"})
"""Files taken from a folder (a file named outright or by a glob is taken whatever its suffix)."""

_STREAM_SUFFIXES = (".pb", ".bin")
_MAGIC = frozenset("*?[")


def digest_of(data: bytes) -> str:
    """The digest a unit is known by in the ledger."""
    return hashlib.sha256(data).hexdigest()[:32]


def _walk(folder: Path, skip: set[Path]) -> Iterator[Path]:
    # Sorted at every level, so the order (and the record indexes) are the same on every run.
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and (here / d).resolve() not in skip
        )
        for name in sorted(files):
            if not name.startswith(".") and Path(name).suffix.lower() in FOLDER_SUFFIXES:
                yield here / name


def expand(sources: Iterable[str], *, exclude: Iterable[Path] = ()) -> Iterator[Path]:
    """Absolute paths of the files named by ``sources`` (files, folders or globs), lazily.

    A folder is walked recursively (hidden entries and folders in ``exclude`` skipped, e.g. the
    report folder when it sits inside a source folder); a file named twice is read once. A
    missing file or folder that is not a glob raises ``FileNotFoundError`` when reached.
    """
    skip = {p.resolve() for p in exclude}
    seen: set[Path] = set()
    for source in sources:
        path = Path(source)
        if path.is_dir() or path.is_file():
            matches: Iterable[Path] = [path]
        elif _MAGIC & set(source):
            matches = (Path(m) for m in sorted(glob.iglob(source, recursive=True)))
        else:
            raise FileNotFoundError(f"{source}: no such file or folder")
        for match in matches:
            files = _walk(match, skip) if match.is_dir() else [match]
            for file in files:
                resolved = file.resolve()
                if resolved not in seen and not any(p in skip for p in resolved.parents):
                    seen.add(resolved)
                    yield resolved


def missing(sources: Iterable[str]) -> list[str]:
    """The sources that name no existing file or folder and are not globs."""
    return [s for s in sources if not (_MAGIC & set(s)) and not Path(s).exists()]


def _varint(f: BinaryIO) -> int | None:
    value = shift = 0
    while shift <= 63:
        byte = f.read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
        shift += 7
    return None


def _is_stream(path: Path) -> bool:
    """Whether the file is a length-delimited stream of at least two frames using every byte,
    the first a clean ``RecordFile``.

    Only the first body is parsed and the other lengths read (their bodies are skipped): the
    bytes of a single message often also read as a chain of lengths, but its first "frame" is
    then no record. One frame is left to the importer, which also tells a single protobuf
    message from a one-frame stream.
    """
    size = path.stat().st_size
    count = 0
    with path.open("rb") as f:
        while f.tell() < size:
            length = _varint(f)
            if length is None or f.tell() + length > size:
                return False
            if count == 0:
                if not is_record_frame(f.read(length)):
                    return False
            else:
                f.seek(length, os.SEEK_CUR)
            count += 1
    return count >= 2


def _stream_length(path: Path) -> int | None:
    """The number of frames of a length-delimited stream of two or more frames (lengths read,
    bodies skipped: O(frames) reads), or None when the file is not one."""
    if path.suffix.lower() not in _STREAM_SUFFIXES or not _is_stream(path):
        return None
    count = 0
    with path.open("rb") as f:
        while (length := _varint(f)) is not None:
            f.seek(length, os.SEEK_CUR)
            count += 1
    return count


def count_units(paths: Iterable[Path]) -> int | None:
    """How many units ``units(paths)`` gives, when every file is a length-delimited stream
    (counted without parsing a record); None as soon as one is not (its records are only known
    once the importer has read it), so a progress bar then shows a count and a rate."""
    total = 0
    for path in paths:
        frames = _stream_length(path)
        if frames is None:
            return None
        total += frames
    return total


def _frames(path: Path) -> Iterator[bytes]:
    """Each frame of a checked stream with its length prefix: a one-record stream of its own."""
    with path.open("rb") as f:
        while (length := _varint(f)) is not None:
            yield encode_varint(length) + f.read(length)


def _problem_unit(path: Path, index: int | str, problem: str) -> Unit:
    return f"{path}#{index}", digest_of(problem.encode()), b"", problem


def _file_units(path: Path) -> Iterator[Unit]:
    if path.suffix.lower() in _STREAM_SUFFIXES and _is_stream(path):
        # Streamed frame by frame: a file may hold any number of records. The worker parses each
        # frame as the service parses an upload (a frame that does not parse is unreadable).
        for index, frame in enumerate(_frames(path)):
            yield f"{path}#{index}", digest_of(frame), frame, ""
        return
    try:
        result = importers.load(path)
    except OSError as exc:
        yield _problem_unit(path, "e0", f"cannot read the file: {exc.strerror or exc}")
        return
    for index, record in enumerate(result.records):
        body = record.SerializeToString(deterministic=True)
        frame = encode_varint(len(body)) + body
        yield f"{path}#{index}", digest_of(frame), frame, ""
    for k, error in enumerate(result.errors):
        yield _problem_unit(path, f"e{k}", f"{error.location}: {error.message}")


def units(paths: Iterable[Path]) -> Iterator[Unit]:
    """The units of work in the files, file by file, in file order.

    Length-delimited ``.pb``/``.bin`` streams are read one frame at a time; other files are read
    whole by ``importers.load`` (one file at a time), so memory follows the largest non-stream
    file, never the corpus. A file's import errors become units with ids ``<path>#e<k>``.
    """
    for path in paths:
        yield from _file_units(path)
