"""Fuzz targets: cases (frozen dataclasses whose ``repr`` is a reproducer) and their checks.

``case.run()`` builds the damaged input from the case alone and checks, raising
``AssertionError`` (or whatever escaped) when a property fails:

- ``audit_game`` / ``audit_match`` return a report; a report with rejections has nothing
  computed and every rejection names a field that exists in the record; every finding's code
  is in ``auditor.codes.CODES`` with its severity, and the counts add up; the report's JSON
  dict (``message_dict``) is ``json_format.MessageToDict``'s, and its text (``message_json``)
  that dict's;
- the record serializes and gets the service's content hash;
- every importer (pb, json, text, eighty, botzone, godot, auto-detected) returns records and
  problems naming a location, never raises in lenient mode and raises only ``ImportFailed``
  in strict mode; every record it returns audits as above, exports as annotated notation and
  reads back from that text as itself in canonical form (``canonical``);
- a record written as protobuf JSON reads back as itself, as notation as its canonical form;
  one with a bad card or rank token is what the notation writer refuses (``ValueError``) and
  what the JSON reader reports as a problem;
- ``analyse_game`` never raises: a hand's end is analysed (every cost the difference its side
  counts, never below 0; a costly play with its best play and line; within the node budget) or
  says why not, and the analysis is JSON-ready;
- a live ``Referee`` fed a damaged hand's events never raises: each event gets a verdict whose
  findings have known codes, a refused one leaves the table as it was, an invalid one names its
  fields, and a hand whose every event was applied ends with the audit of its own record.

Each case class has ``draw(rng)``, the benchmark's way to make one; ``tests/fuzz/strategies.py``
builds the same classes for Hypothesis.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from chaodipi.auditor import CODES, audit_encoded_game, audit_game, audit_match
from chaodipi.auditor.analysis import analyse_game
from chaodipi.auditor.jsondict import message_dict, message_json
from chaodipi.auditor.referee import Referee, events_of
from chaodipi.engine.presets import get_ruleset
from chaodipi.importers import (
    ImportFailed,
    ImportProblem,
    ImportResult,
    dumps,
    load_bytes,
    stream_pb,
)
from chaodipi.importers.annotate import export_text
from chaodipi.importers.notation import format_records, read_text
from chaodipi.importers.tokens import CARD_FIELDS, RANK_FIELDS, bad_token, card, rank
from chaodipi.service.audited import content_hash
from chaodipi.v1 import audit_pb2, records_pb2, referee_pb2
from tests.auditor.conftest import RULESETS
from tests.fuzz.mutators import (
    BYTE_EDITS,
    FOREIGN,
    GAME_MUTATORS,
    GAME_WEIGHTS,
    MATCH_MUTATORS,
    NOTATION_EDITS,
    SEEDS,
    WRAPPINGS,
    Steps,
    apply,
    draw_steps,
    fold,
    fold_json,
    foreign_source,
    game_source,
    match_source,
    wrap,
)

AUDIT_AS = (None, *RULESETS, "eighty", "botzone", "godot")
"""Audit under the record's own ruleset, or re-audit under another."""
SEVERITY_COUNTS = {
    audit_pb2.SEVERITY_BREACH: "breaches",
    audit_pb2.SEVERITY_SCORING_ERROR: "scoring_errors",
    audit_pb2.SEVERITY_WARNING: "warnings",
}
EXPORT_HANDS = 100
"""Matches longer than this are audited but not exported and re-read: that is linear but slow
(a 1,001-hand match is 3 MB of notation), and the limit of a match is 1,000 hands."""
_SEGMENT = re.compile(r"^([a-z_0-9]+)(?:\[(\d+)\])?$")


class Case(Protocol):
    """One fuzz case: everything needed to rebuild its input, and the check."""

    target: ClassVar[str]

    def run(self) -> None: ...


# -- properties ---------------------------------------------------------------------------


def resolve(message: Any, path: str) -> None:
    """Assert that ``path`` (``tricks[3].plays[1].cards[0]``) names a field present in it."""
    node = message
    for segment in path.split("."):
        found = _SEGMENT.match(segment)
        assert found, f"rejection path {path!r}: bad segment {segment!r}"
        name, index = found.group(1), found.group(2)
        if name == "deal" and index is None and isinstance(node, records_pb2.GameRecord):
            continue  # the oneof itself: "missing"
        assert name in node.DESCRIPTOR.fields_by_name, f"{path!r}: no field {name!r}"
        node = getattr(node, name)
        if index is not None:
            assert int(index) < len(node), f"{path!r}: index {index} out of range"
            node = node[int(index)]


def check_report(report: audit_pb2.AuditReport, record: Any, prefix: str = "") -> None:
    """The properties of one hand's report (``prefix``: ``hands[i].`` inside a match)."""
    if report.rejections:
        assert not report.findings and not report.HasField("computed"), "rejected yet computed"
        for v in report.rejections:
            assert v.field and v.description, f"rejection without field or reason: {v}"
            assert v.field.startswith(prefix), f"{v.field!r} outside {prefix!r}"
            resolve(record, v.field)
    counts = dict.fromkeys(SEVERITY_COUNTS.values(), 0)
    for finding in report.findings:
        code = CODES.get(finding.code)
        assert code is not None, f"unknown finding code {finding.code!r}"
        assert finding.severity == code.severity, f"{finding.code}: wrong severity"
        counts[SEVERITY_COUNTS[finding.severity]] += 1
    assert (report.breaches, report.scoring_errors, report.warnings) == tuple(counts.values())
    report.SerializeToString()
    check_json(report)


def check_json(report: audit_pb2.AuditReport | audit_pb2.MatchAuditReport) -> None:
    """The report's JSON dict is ``json_format.MessageToDict``'s, and its text that dict's."""
    expected = json_format.MessageToDict(report)
    assert message_dict(report) == expected, "JSON dict otherwise"
    assert message_json(report) == json.dumps(expected, ensure_ascii=False), "JSON text otherwise"


def check_hash(record: records_pb2.GameRecord | records_pb2.MatchRecord) -> None:
    """The record serializes, parses back equal, and gets the service's content hash."""
    again = type(record).FromString(record.SerializeToString())
    assert again == record, "the record does not survive its own serialization"
    assert len(content_hash(record)) == 64


def check_game(
    record: records_pb2.GameRecord, audit_as: str | None = None, with_steps: bool = False
) -> audit_pb2.AuditReport:
    """Audit one hand and check the report."""
    check_hash(record)
    ruleset = None if audit_as is None else get_ruleset(audit_as)
    report = audit_game(record, ruleset=ruleset, steps=with_steps)
    check_report(report, record)
    data = record.SerializeToString()
    assert audit_game(data, ruleset=ruleset, steps=with_steps) == report, "bytes audit otherwise"
    return report


def check_match(
    record: records_pb2.MatchRecord, audit_as: str | None = None
) -> audit_pb2.MatchAuditReport:
    """Audit a match and check its report and every hand's."""
    check_hash(record)
    ruleset = None if audit_as is None else get_ruleset(audit_as)
    report = audit_match(record, ruleset=ruleset)
    for v in report.rejections:
        assert v.field and v.description, f"rejection without field or reason: {v}"
        resolve(record, v.field)
    # A match-level rejection (players, ruleset, hands) stops the audit; a hand of another
    # ruleset is skipped; every other hand has its report, in order.
    rejected = {v.field for v in report.rejections}
    stopped = any(not field.startswith("hands[") for field in rejected)
    audited = (
        []
        if stopped
        else [i for i in range(len(record.hands)) if f"hands[{i}].ruleset" not in rejected]
    )
    assert len(report.hands) == len(audited), "a hand of the match has no report"
    for i, hand in zip(audited, report.hands, strict=True):
        assert hand.record_id == record.hands[i].record_id
        check_report(hand, record, f"hands[{i}].")
    for finding in report.findings:
        assert finding.code in CODES, f"unknown finding code {finding.code!r}"
    report.SerializeToString()
    check_json(report)
    return report


ANALYSIS_BUDGET = 5_000
"""Positions an analysis case may search: a few hundred milliseconds at most."""
NOT_ANALYSED = {"unreadable", "unsupported", "breach", "budget"}


def check_analysis(record: records_pb2.GameRecord, window: int) -> None:
    """Analyse a hand's last ``window`` tricks and check the analysis (docs/analysis.md)."""
    analysis = analyse_game(record, window=window, budget=ANALYSIS_BUDGET)
    json.dumps(analysis.as_dict(), ensure_ascii=False)
    assert analysis.nodes <= ANALYSIS_BUDGET + 1, f"{analysis.nodes} positions searched"
    if not analysis.analysed:
        assert analysis.why in NOT_ANALYSED and analysis.reason, (analysis.why, analysis.reason)
        assert not analysis.plays and analysis.kitty is None
        return
    assert analysis.plays and analysis.perfect >= analysis.points_before
    for play in analysis.plays:
        lost = play.best_value - play.value if play.defender else play.value - play.best_value
        assert play.cost == max(lost, 0), play
        assert bool(play.best) == bool(play.line) == (play.cost > 0), play


def check_referee(record: records_pb2.GameRecord) -> None:
    """Feed a hand's events to a live referee, every one even after a refusal, and check each
    verdict and the table it leaves (auditor/referee.py)."""
    referee = Referee()
    applied = True
    for event in events_of(record):
        before = referee.record.SerializeToString()
        verdict = referee.handle(event).verdict
        for finding in verdict.findings:
            code = CODES.get(finding.code)
            assert code is not None and finding.severity == code.severity, finding
        if verdict.result == referee_pb2.VERDICT_RESULT_LEGAL:
            continue
        applied = False
        assert verdict.result != referee_pb2.VERDICT_RESULT_UNSPECIFIED and verdict.reason, verdict
        if verdict.result == referee_pb2.VERDICT_RESULT_INVALID:
            assert verdict.violations and all(v.field for v in verdict.violations), verdict
        assert referee.record.SerializeToString() == before, "a refused event changed the table"
    if applied and referee.finished:
        assert referee.report == audit_game(referee.record), "the hand ends otherwise than audited"


def _game_as_read(data: bytes) -> tuple[records_pb2.RecordFile | None, bool]:
    """A stream's game encoding as its record, vouched for where the audit's read vouches;
    bytes whose tricks do not parse, None (never vouched for, so never given)."""
    try:
        record = records_pb2.RecordFile(game=records_pb2.GameRecord.FromString(data))
    except DecodeError:
        record = None
    return record, audit_encoded_game(data)[1]


def check_problem(problem: ImportProblem, name: str) -> None:
    """An import problem names the file, a location in it and what was expected."""
    assert isinstance(problem, ImportProblem), problem
    assert problem.file == name and problem.location and problem.message, problem


def check_import(data: bytes, name: str, fmt: str, strict: bool) -> ImportResult | None:
    """Import bytes; check the problems; audit, export and re-read every record."""
    try:
        result = load_bytes(data, name, fmt, strict)
    except ImportFailed as failed:
        assert strict, "ImportFailed in lenient mode"
        check_problem(failed.problem, name)
        return None
    assert isinstance(result, ImportResult)
    for problem in result.errors:
        check_problem(problem, name)
    assert not (strict and result.errors), "strict mode returned problems instead of raising"
    for record in result.records:
        which = record.WhichOneof("record")
        assert which is not None, "an imported RecordFile holds nothing"
        if which == "game":
            check_game(record.game)
        else:
            check_match(record.match)
            if len(record.match.hands) > EXPORT_HANDS:
                continue
        annotated = read_text(export_text([record]), "exported.txt")
        assert not annotated.errors, f"exported text does not read back: {annotated.errors[0]}"
        assert annotated.records == [canonical(record)], "exported text reads back changed"
    return result


def canonical(record: records_pb2.RecordFile) -> records_pb2.RecordFile:
    """A copy with card and rank tokens as the notation writes them (``sa``: ``SA``, ``10``: ``T``).

    The notation is case-insensitive and writes canonical tokens (docs/notation.md), so a
    record round-trips through text to its canonical form.
    """
    copy = records_pb2.RecordFile()
    copy.CopyFrom(record)
    _canonical(copy)
    return copy


def _canonical(message: Any) -> None:
    for fd, value in message.ListFields():
        if fd.full_name in CARD_FIELDS:
            value[:] = [card(t) for t in value]
        elif fd.full_name in RANK_FIELDS:
            setattr(message, fd.name, rank(value))
        elif fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
            for item in value if fd.is_repeated else [value]:
                _canonical(item)


def _is_writable(record: records_pb2.RecordFile) -> bool:
    return bad_token(record, "", json_names=False) is None


# -- cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandCase:
    """A generated hand (4 rulesets × ``SEEDS`` seeds, first hand or not) after game
    mutations: the input of the hand targets below."""

    ruleset: str
    seed: int
    first_hand: bool
    steps: Steps

    def record(self) -> records_pb2.GameRecord:
        game = game_source(self.ruleset, self.seed, self.first_hand)
        apply(GAME_MUTATORS, game, self.steps)
        return game


def _draw_hand(rng: random.Random, clean: float) -> tuple[str, int, bool, Steps]:
    """A hand case's fields: undamaged with probability ``clean``, else 1–4 mutations."""
    damage = draw_steps(rng, GAME_WEIGHTS, 4) if rng.random() >= clean else ()
    return rng.choice(RULESETS), rng.randrange(SEEDS), rng.random() < 0.5, damage


@dataclass(frozen=True)
class GameCase(HandCase):
    """A generated hand damaged by game mutators, audited (maybe under another ruleset)."""

    target: ClassVar[str] = "audit-game"
    audit_as: str | None = None
    with_steps: bool = False

    def run(self) -> None:
        check_game(self.record(), self.audit_as, self.with_steps)

    @classmethod
    def draw(cls, rng: random.Random) -> GameCase:
        return cls(
            rng.choice(RULESETS),
            rng.randrange(SEEDS),
            rng.random() < 0.5,
            draw_steps(rng, GAME_WEIGHTS, 6),
            rng.choice(AUDIT_AS) if rng.random() < 0.2 else None,
            rng.random() < 0.1,
        )


@dataclass(frozen=True)
class AnalysisCase(HandCase):
    """A generated hand, maybe damaged, its last ``window`` tricks analysed."""

    target: ClassVar[str] = "analyze-game"
    window: int = 1

    def run(self) -> None:
        check_analysis(self.record(), self.window)

    @classmethod
    def draw(cls, rng: random.Random) -> AnalysisCase:
        # A clean hand one time in four: most damage stops the analysis before any search.
        return cls(*_draw_hand(rng, 0.25), rng.randint(1, 3))


@dataclass(frozen=True)
class RefereeCase(HandCase):
    """A generated hand, maybe damaged, sent event by event to a live referee."""

    target: ClassVar[str] = "referee-game"

    def run(self) -> None:
        check_referee(self.record())

    @classmethod
    def draw(cls, rng: random.Random) -> RefereeCase:
        # A clean hand one time in five: it plays out, and ends with its audit.
        return cls(*_draw_hand(rng, 0.2))


@dataclass(frozen=True)
class MatchCase:
    """A generated match damaged by match mutators (which damage its hands too), audited."""

    target: ClassVar[str] = "audit-match"
    ruleset: str
    seed: int
    steps: Steps
    audit_as: str | None = None

    def record(self) -> records_pb2.MatchRecord:
        record = match_source(self.ruleset, self.seed)
        apply(MATCH_MUTATORS, record, self.steps)
        return record

    def run(self) -> None:
        check_match(self.record(), self.audit_as)

    @classmethod
    def draw(cls, rng: random.Random) -> MatchCase:
        return cls(
            rng.choice(RULESETS),
            rng.randrange(3),
            draw_steps(rng, dict.fromkeys(MATCH_MUTATORS, 1.0), 4),
            rng.choice(AUDIT_AS) if rng.random() < 0.2 else None,
        )


def _draw_source(rng: random.Random) -> GameCase | MatchCase:
    if rng.random() < 0.2:
        return MatchCase.draw(rng)
    case = GameCase.draw(rng)
    return GameCase(case.ruleset, case.seed, case.first_hand, case.steps)


@dataclass(frozen=True)
class EncodedCase:
    """A damaged record (``source``) written in a format, the bytes or text edited, imported."""

    source: GameCase | MatchCase
    edits: Steps
    strict: bool = False

    def record(self) -> records_pb2.RecordFile:
        record = self.source.record()
        if isinstance(record, records_pb2.GameRecord):
            return records_pb2.RecordFile(game=record)
        return records_pb2.RecordFile(match=record)


@dataclass(frozen=True)
class PbCase(EncodedCase):
    """Protobuf binary (a stream, the record twice, or one bare message), bytes edited."""

    target: ClassVar[str] = "import-pb"
    framing: str = "stream"  # "stream", "stream2" or "message"

    def run(self) -> None:
        record = self.record()
        if self.framing == "message":
            which = record.WhichOneof("record")
            data = getattr(record, which or "game").SerializeToString()
        else:
            data = dumps([record] * (2 if self.framing == "stream2" else 1), "pb")
        edited = fold(BYTE_EDITS, data, self.edits)
        check_import(edited, "fuzz.pb", "auto" if self.source.seed % 2 else "pb", self.strict)
        # A stream's entries (a clean game as the audit reads it, vouched for by the read or
        # checked) are its records, with its problems.
        records, entries = stream_pb(edited, "fuzz.pb"), stream_pb(edited, "fuzz.pb")
        assert list(entries.entries(_game_as_read)) == list(records), (
            "a stream's entries are not its records"
        )
        assert entries.result.errors == records.result.errors, "entries with other problems"

    @classmethod
    def draw(cls, rng: random.Random) -> PbCase:
        return cls(
            _draw_source(rng),
            draw_steps(rng, dict.fromkeys(BYTE_EDITS, 1.0), 3, 0),
            rng.random() < 0.2,
            rng.choice(("stream", "stream2", "message")),
        )


@dataclass(frozen=True)
class JsonCase(EncodedCase):
    """Protobuf JSON, its tree and its text edited; unedited, it must read back the same."""

    target: ClassVar[str] = "import-json"

    def run(self) -> None:
        record = self.record()
        text = dumps([record], "json").decode()
        if not self.edits:
            again = check_import(text.encode(), "fuzz.json", "json", strict=False)
            assert again is not None
            if _is_writable(record):
                assert again.records == [record], "protobuf JSON does not read back the same"
            else:
                assert again.errors, "protobuf JSON with a bad token was read without a problem"
            return
        check_import(
            fold_json(json.loads(text), self.edits).encode(), "fuzz.json", "json", self.strict
        )

    @classmethod
    def draw(cls, rng: random.Random) -> JsonCase:
        edits = draw_steps(rng, {"tree": 3.0, "text": 1.0}, 3, 0)
        return cls(_draw_source(rng), edits, rng.random() < 0.2)


@dataclass(frozen=True)
class TextCase(EncodedCase):
    """The notation (when writable), the text edited; unedited, it must read back the same."""

    target: ClassVar[str] = "import-text"

    def run(self) -> None:
        record = self.record()
        try:
            text = format_records([record])
        except ValueError:
            assert not _is_writable(record), "the notation writer refused a writable record"
            return
        assert _is_writable(record), "the notation writer wrote a bad card token"
        if not self.edits:
            again = read_text(text, "fuzz.txt", strict=True)
            assert again.records == [canonical(record)], "notation does not read back the same"
        data = fold(NOTATION_EDITS, text, self.edits)
        check_import(
            data.encode(), "fuzz.txt", "text" if self.source.seed % 2 else "auto", self.strict
        )

    @classmethod
    def draw(cls, rng: random.Random) -> TextCase:
        edits = draw_steps(rng, dict.fromkeys(NOTATION_EDITS, 1.0), 4, 0)
        return cls(_draw_source(rng), edits, rng.random() < 0.2)


@dataclass(frozen=True)
class ForeignCase:
    """A foreign fixture (80-fen replay, Botzone or godot log): edited, wrapped, imported."""

    target: ClassVar[str] = "import-foreign"
    fmt: str  # "eighty", "botzone" or "godot"
    fixture: int
    edits: Steps
    wrapping: str = "raw"
    wrap_seed: int = 0
    strict: bool = False
    detect: bool = False

    def run(self) -> None:
        data = fold_json(
            foreign_source(self.fmt, self.fixture),
            self.edits,
            lambda doc: wrap(self.fmt, doc, self.wrapping, random.Random(self.wrap_seed)),
        )
        check_import(
            data.encode(), f"{self.fmt}.json", "auto" if self.detect else self.fmt, self.strict
        )

    @classmethod
    def draw(cls, rng: random.Random) -> ForeignCase:
        fmt = rng.choice(tuple(FOREIGN))
        edits = draw_steps(rng, {"tree": 4.0, "text": 1.0}, 4)
        return cls(
            fmt,
            rng.randrange(len(FOREIGN[fmt])),
            edits,
            rng.choice(WRAPPINGS),
            rng.getrandbits(32),
            rng.random() < 0.2,
            rng.random() < 0.2,
        )


BYTE_PREFIXES = (
    b"",
    b"{",
    b"[",
    b'[Game "g"]\n',
    b"\x0a\x80\x01",
    b'\xef\xbb\xbf{"log": [',
    b'{"encoding": "gzip+base64", "data": "',
    b'{"version": 1, "rounds": [{"debug": {"initial_hands": [',
)
FORMATS = ("auto", "pb", "json", "text", "eighty", "botzone", "godot")
NAMES = ("fuzz", "fuzz.pb", "fuzz.json", "fuzz.txt", "fuzz.jsonl", "fuzz.bin")


@dataclass(frozen=True)
class BytesCase:
    """Random bytes (after a prefix that leads a reader on) given to an importer."""

    target: ClassVar[str] = "import-bytes"
    fmt: str
    name: str
    prefix: int
    seed: int
    size: int
    strict: bool = False

    def run(self) -> None:
        data = BYTE_PREFIXES[self.prefix] + random.Random(self.seed).randbytes(self.size)
        check_import(data, self.name, self.fmt, self.strict)

    @classmethod
    def draw(cls, rng: random.Random) -> BytesCase:
        return cls(
            rng.choice(FORMATS),
            rng.choice(NAMES),
            rng.randrange(len(BYTE_PREFIXES)),
            rng.getrandbits(32),
            rng.choice((0, 1, 2, 7, 64, 512, 4096)),
            rng.random() < 0.2,
        )


CASES: tuple[
    type[
        GameCase
        | AnalysisCase
        | RefereeCase
        | MatchCase
        | PbCase
        | JsonCase
        | TextCase
        | ForeignCase
        | BytesCase
    ],
    ...,
] = (
    GameCase,
    AnalysisCase,
    RefereeCase,
    MatchCase,
    PbCase,
    JsonCase,
    TextCase,
    ForeignCase,
    BytesCase,
)
"""Every target, in the order the benchmark cycles through them."""
