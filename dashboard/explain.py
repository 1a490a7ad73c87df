"""Words for what the replay shows, in either language: where a finding stands, what it says
(from its structured parts, naming the players), step captions, level results, how a score is
made up, and what a re-audit changed.

The auditor writes its findings' messages in English; here they are written again from the
finding's code, position and evidence (expected / recorded, cards, the cards that beat a throw,
the forced unit, the legal alternative, details) with one template per code and form, so the
Chinese page needs no English. Pure functions of a ``ReplayView`` and plain values.

>>> level_text("D+2", "zh"), level_text("swap", "en"), level_text("A+1", "zh")
('庄家升 2 级', 'defenders take the deal', '闲家上台并升 1 级')
>>> cards_text(["BJ", "ST", "HA"], "zh")
'大王 ♠10 ♥A'
>>> deal_difference("extra ♣Q; missing ♥4 ♥4 ♠10")
DealDifference(extra=['CQ'], missing=['H4', 'H4', 'ST'], extra_count=1, missing_count=3)
>>> deal_difference("extra BJ; 91 cards missing").missing_count
91
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from chaodipi.dashboard.i18n import TEXTS, Lang, t
from chaodipi.dashboard.stepping import (
    BID_KEYS,
    PHASE_KEYS,
    SUIT_SYMBOLS,
    ReplayView,
    card_tokens,
)
from chaodipi.engine.cards import CardError, card_label, card_token, parse_card
from chaodipi.v1 import audit_pb2, records_pb2

_SUIT_LETTERS = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}
_SUIT_NAMES = {"spades": "♠", "hearts": "♥", "clubs": "♣", "diamonds": "♦"}
_LEVEL = re.compile(r"^(D|A)\+(\d+)$")
_TRUMP = re.compile(r"^level (\S+) (spades|hearts|clubs|diamonds|no-trump)$")
_DECKS = re.compile(r"^(\d+) copies of each of the 54 cards$")
_TEAM = re.compile(r"^team (\d)$")
_COUNTED = re.compile(r"^(\d+) cards? (extra|missing)$")
_MATCH_POINTS = re.compile(r"^(dealer|defenders) (\d+)$")

SEAT_VALUED = frozenset(
    {"OUT_OF_TURN", "TRICK_WINNER_MISMATCH", "DEALER_MISMATCH", "KITTY_INVALID"}
)
"""Codes whose expected / recorded values name a seat when they are a number."""


# -- cards, seats, levels ---------------------------------------------------------------------


def card_text(token: str, lang: Lang) -> str:
    """A card as people write it: ``♠10``, ``大王`` (``big joker``)."""
    upper = token.strip().upper()
    if upper == "BJ":
        return t(lang, "card.big_joker")
    if upper == "LJ":
        return t(lang, "card.little_joker")
    try:
        return card_label(parse_card(upper))
    except CardError:
        return token


def cards_text(tokens: Iterable[str], lang: Lang) -> str:
    """Cards separated by spaces (``nothing`` for none)."""
    out = " ".join(card_text(token, lang) for token in tokens)
    return out or t(lang, "f.nothing")


def label_token(label: str) -> str | None:
    """The token of a card label the auditor printed (``♠10`` → ``ST``), or None."""
    if label in ("BJ", "LJ"):
        return label
    if not label or label[0] not in _SUIT_LETTERS:
        return None
    token = _SUIT_LETTERS[label[0]] + label[1:].replace("10", "T")
    try:
        return card_token(parse_card(token))
    except CardError:
        return None


@dataclass(frozen=True, slots=True)
class DealDifference:
    """What a deal has beyond whole decks and what it lacks: the cards the evidence names (as
    tokens), and how many there are (the auditor counts instead of naming more than 8)."""

    extra: list[str]
    missing: list[str]
    extra_count: int
    missing_count: int


def deal_difference(recorded: str) -> DealDifference | None:
    """The extra and the missing cards of a deal's evidence, None when the text is not of that
    form. Parts are separated by ``;`` (an older auditor wrote none): ``extra ♣Q``, ``missing
    ♥4 ♥4``, or a count, ``91 cards missing``. O(words)."""
    named: dict[str, list[str]] = {"extra": [], "missing": []}
    counts = {"extra": 0, "missing": 0}
    for part in recorded.split(";"):
        counted = _COUNTED.match(part.strip())
        if counted:
            counts[counted.group(2)] += int(counted.group(1))
            continue
        current: list[str] | None = None
        for word in part.split():
            if word in named:
                current = named[word]
                continue
            token = label_token(word)
            if current is None or token is None:
                return None
            current.append(token)
    extra = counts["extra"] + len(named["extra"])
    missing = counts["missing"] + len(named["missing"])
    if not extra and not missing:
        return None
    return DealDifference(named["extra"], named["missing"], extra, missing)


def count_text(n: int, lang: Lang) -> str:
    """A number of cards: ``1 card``, ``3 cards`` / ``3 张``."""
    return t(lang, "f.one_card") if n == 1 else t(lang, "f.cards", n=n)


def player(view: ReplayView, seat: int, lang: Lang) -> str:
    """A seat as people say it: ``Zhang Min (seat 2)``, or ``seat 2`` with nobody recorded."""
    if 0 <= seat < len(view.seats) and view.seats[seat].name:
        return t(lang, "seat.player", name=view.seats[seat].name, seat=seat)
    return t(lang, "seat.n", seat=seat)


def seat_name(view: ReplayView, seat: int, lang: Lang) -> str:
    """A seat's player name alone (``seat 2`` with nobody recorded)."""
    if 0 <= seat < len(view.seats) and view.seats[seat].name:
        return view.seats[seat].name
    return t(lang, "seat.n", seat=seat)


def level_text(short: str, lang: Lang) -> str:
    """A level change written short (``D+2``, ``A+1``, ``swap``, as stored) in words."""
    match = _LEVEL.match(short)
    if match:
        n = int(match.group(2))
        if match.group(1) == "D":
            return t(lang, "level.dealer_up", n=n) if n else t(lang, "level.dealer_keeps")
        return t(lang, "level.defenders_up", n=n)
    words = {
        "swap": "level.swap",
        "dealer side wins the match": "level.dealer_match",
        "defenders win the match": "level.defenders_match",
        "unset": "level.unset",
        "": "level.unset",
    }
    return t(lang, words[short]) if short in words else short


def result_text(result: records_pb2.LevelResult, lang: Lang) -> str:
    """A computed level result in words."""
    outcome = result.outcome
    if outcome == records_pb2.OUTCOME_DEALER_UP:
        return level_text(f"D+{result.levels}", lang)
    if outcome == records_pb2.OUTCOME_DEFENDERS_UP:
        return level_text(f"A+{result.levels}", lang)
    keys = {
        records_pb2.OUTCOME_SWAP: "level.swap",
        records_pb2.OUTCOME_DEALER_WINS_MATCH: "level.dealer_match",
        records_pb2.OUTCOME_DEFENDERS_WIN_MATCH: "level.defenders_match",
    }
    return t(lang, keys.get(outcome, "level.unset"))


def trump_text(trump: records_pb2.Trump, lang: Lang) -> str:
    """``level 2, trump ♠`` / ``打 2，♠ 为主`` (``no trump yet`` before any declaration)."""
    if not trump.level:
        return t(lang, "trump.none")
    if trump.suit in SUIT_SYMBOLS:
        return t(lang, "trump.text", level=trump.level, suit=SUIT_SYMBOLS[trump.suit])
    return t(lang, "trump.text_nt", level=trump.level)


def ruleset_text(ruleset: str, lang: Lang) -> str:
    """A ruleset's name (its id when the catalogue does not know it)."""
    key = f"ruleset.{ruleset}"
    return t(lang, key) if key in TEXTS else ruleset


def value_text(view: ReplayView, code: str, text: str, lang: Lang) -> str:
    """An evidence value in words: cards as cards, a seat as its player, a level change, a
    trump, a team; any other text as recorded."""
    stripped = text.strip()
    if not stripped:
        return t(lang, "f.nothing")
    if stripped.isdigit():
        return player(view, int(stripped), lang) if code in SEAT_VALUED else stripped
    tokens = card_tokens(stripped)
    if tokens:
        return cards_text(tokens, lang)
    if _LEVEL.match(stripped) or stripped in ("swap", "dealer side wins the match"):
        return level_text(stripped, lang)
    if stripped == "defenders win the match":
        return level_text(stripped, lang)
    trump = _TRUMP.match(stripped)
    if trump:
        suit = _SUIT_NAMES.get(trump.group(2))
        if suit is None:
            return t(lang, "trump.text_nt", level=trump.group(1))
        return t(lang, "trump.text", level=trump.group(1), suit=suit)
    decks = _DECKS.match(stripped)
    if decks:
        return t(lang, "f.decks", n=decks.group(1))
    team = _TEAM.match(stripped)
    if team:
        return t(lang, "team.n", n=team.group(1))
    points = _MATCH_POINTS.match(stripped)
    if points and code == "LEVEL_MISMATCH":
        side = "f.points_dealer" if points.group(1) == "dealer" else "f.points_defenders"
        return t(lang, side, n=points.group(2))
    if stripped == "none" and code == "LEVEL_MISMATCH":
        return t(lang, "f.points_none")
    if stripped == "no further hands":
        return t(lang, "f.no_further")
    if stripped.startswith("hand ") and stripped[5:].isdigit():
        return t(lang, "common.hand_n", n=stripped[5:])
    return stripped


# -- positions and steps ----------------------------------------------------------------------


def position_text(view: ReplayView, finding: audit_pb2.Finding, lang: Lang) -> str:
    """Where a finding stands: ``play · trick 13, play 3 · Zhang Min (seat 2)``."""
    pos = finding.position
    parts = [t(lang, PHASE_KEYS[pos.phase])] if pos.phase in PHASE_KEYS else []
    if pos.HasField("bid_index"):
        parts.append(f"{t(lang, 'bid.bid')} {pos.bid_index + 1}")
    if pos.HasField("trick"):
        where = t(lang, "replay.trick_caption", trick=pos.trick + 1)
        if pos.HasField("play"):
            where = t(lang, "replay.step_play", trick=pos.trick + 1, play=pos.play + 1)
        parts.append(where)
    if pos.HasField("seat"):
        parts.append(player(view, pos.seat, lang))
    return " · ".join(parts)


def step_caption(view: ReplayView, index: int, lang: Lang) -> str:
    """A caption for a step: ``Trick 3, play 2 of 4``, ``Trick 3 complete`` or the phase."""
    step = view.steps[index]
    if step.phase == audit_pb2.PHASE_PLAY and step.HasField("trick"):
        if step.HasField("play"):
            return t(lang, "replay.step_play", trick=step.trick + 1, play=step.play + 1)
        return t(lang, "replay.step_trick_end", trick=step.trick + 1)
    text = t(lang, PHASE_KEYS.get(step.phase, "phase.step"))
    return text[:1].upper() + text[1:]


# -- findings ---------------------------------------------------------------------------------


def finding_title(code: str, lang: Lang) -> str:
    """What a code means, short (``did not follow suit`` / ``没有跟花色``)."""
    key = f"code.{code}"
    return t(lang, key) if key in _CODE_KEYS else t(lang, "code.other", code=code)


_CODE_KEYS = frozenset(key for key in TEXTS if key.startswith("code.") and key != "code.other")


def beats_text(view: ReplayView, beats: Sequence[audit_pb2.Beat], lang: Lang) -> str:
    """Who beats which unit of a throw: ``Li Wei holds ♠K over ♠9; …`` (each pair once)."""
    seen: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []
    for beat in beats:
        item = (beat.seat, tuple(beat.cards), tuple(beat.unit))
        if item not in seen:
            seen.append(item)
    separator = "；" if lang == "zh" else "; "
    return separator.join(
        t(
            lang,
            "f.beat",
            name=seat_name(view, seat, lang),
            cards=cards_text(cards, lang),
            unit=cards_text(unit, lang),
        )
        for seat, cards, unit in seen
    )


def finding_sentence(view: ReplayView, finding: audit_pb2.Finding, lang: Lang) -> str:
    """What a finding says, written from its parts in ``lang``, naming the players."""
    code, pos, ev = finding.code, finding.position, finding.evidence
    seat = pos.seat if pos.HasField("seat") else None
    who = player(view, seat, lang) if seat is not None else ""
    trick = pos.trick + 1 if pos.HasField("trick") else 0
    recorded_cards = card_tokens(ev.recorded)
    expected = value_text(view, code, ev.expected, lang)
    recorded = value_text(view, code, ev.recorded, lang)
    fields = {"player": who, "trick": trick, "expected": expected, "recorded": recorded}

    def say(key: str, **more: object) -> str:
        return t(lang, key, **{**fields, **more})

    def counts() -> dict[str, str]:
        """The evidence's two numbers as counts of cards (``expected`` / ``recorded``)."""
        return {
            name: count_text(int(text), lang) if text.strip().isdigit() else text
            for name, text in (("due", ev.expected), ("counted", ev.recorded))
        }

    if code == "DEAL_INVALID":
        return _deal_sentence(finding, seat, lang, say, counts())
    if code == "CARD_NOT_IN_HAND" and seat is not None:
        verb = {audit_pb2.PHASE_BIDDING: "f.card_bid", audit_pb2.PHASE_KITTY: "f.card_kitty"}
        return say(verb.get(pos.phase, "f.card_play"), cards=cards_text(recorded_cards, lang))
    if code == "OUT_OF_TURN" and pos.HasField("play"):
        return say("f.out_of_turn", play=pos.play + 1)
    if code == "WRONG_CARD_COUNT":
        if seat is not None and pos.HasField("play") and pos.play > 0:
            return say("f.count_follow", **counts())
        if seat is not None and recorded_cards:
            return say("f.count_lead", cards=cards_text(recorded_cards, lang))
        if trick and not ev.recorded.strip().isdigit():
            return say("f.generic")
        if trick:
            return say("f.count_trick")
    if code == "BID_ILLEGAL" and seat is not None:
        bid = (
            view.record.bids[pos.bid_index]
            if pos.HasField("bid_index") and pos.bid_index < len(view.record.bids)
            else None
        )
        kind = t(lang, BID_KEYS.get(bid.kind, "bid.bid")) if bid is not None else t(lang, "bid.bid")
        return say("f.bid", kind=kind, cards=cards_text(recorded_cards, lang))
    if code == "BID_ILLEGAL":
        return say("f.bid_nobody")
    if code == "KITTY_INVALID" and seat is not None:
        if card_tokens(ev.expected) and recorded_cards:
            return say(
                "f.kitty_cards",
                expected=cards_text(card_tokens(ev.expected), lang),
                recorded=cards_text(recorded_cards, lang),
            )
        return say("f.kitty_other")
    if code == "LEAD_MIXED_SUITS" and seat is not None:
        return say("f.mixed", cards=cards_text(recorded_cards, lang))
    if code == "THROW_NOT_ALLOWED" and seat is not None:
        return say("f.throw_not_allowed", cards=cards_text(recorded_cards, lang))
    if code == "THROW_NOT_ENFORCED" and seat is not None:
        due = ev.details.get("penalty_due", "")
        penalty = t(lang, "f.penalty_due", n=due) if due.isdigit() and int(due) else ""
        return say(
            "f.throw_not_enforced",
            cards=cards_text(recorded_cards, lang),
            beats=beats_text(view, ev.beaten_by, lang),
            forced=cards_text(ev.forced_unit or card_tokens(ev.expected), lang),
            penalty=penalty,
        )
    if code == "THROW_ENFORCED_WRONGLY" and seat is not None:
        options = forced_options(ev)
        if len(options) > 1:
            return say("f.throw_forced_tied", options=units_text(options, lang))
        if finding.rule_id == "R-THROW-FORCE-TIE":
            return say("f.throw_forced_pick")
        return say("f.throw_forced_wrong" if ev.forced_unit else "f.throw_stood")
    if code in ("FOLLOW_REVOKE", "FOLLOW_SHAPE") and seat is not None:
        key = "f.revoke" if code == "FOLLOW_REVOKE" else "f.shape"
        return say(
            key,
            cards=cards_text(recorded_cards, lang),
            alt=cards_text(ev.legal_alternative, lang),
        )
    if code == "PENALTY_MISMATCH" and trick and seat is not None:
        return say("f.penalty")
    if code == "PENALTY_MISMATCH" and pos.phase == audit_pb2.PHASE_SCORING:
        # The claimed stake units of the hand's failed throws (R-THROW-PENALTY).
        return say("f.stake_none" if ev.expected.strip() == "0" else "f.stake")
    simple = {"TRICK_WINNER_MISMATCH": "f.winner", "TRICK_POINTS_MISMATCH": "f.trick_points"}
    if code in simple and trick:
        return say(simple[code])
    if code == "LEVEL_MISMATCH" and _MATCH_POINTS.match(ev.expected.strip()):
        return say("f.match_points", points=view.audit.computed.defenders_points)
    if code == "DEALER_MISMATCH" and pos.phase == audit_pb2.PHASE_SCORING:
        return say("f.next_dealer")
    if code == "DEALER_MISMATCH" and pos.phase == audit_pb2.PHASE_BIDDING:
        return say("f.dealer_bidding")
    scoring = {
        "KITTY_MISMATCH": "f.kitty",
        "SCORE_MISMATCH": "f.score",
        "LEVEL_MISMATCH": "f.level",
        "TRUMP_MISMATCH": "f.trump",
        "DEALER_MISMATCH": "f.dealer",
    }
    if code in scoring and (ev.expected or ev.recorded):
        return say(scoring[code])
    if code == "UNSUPPORTED":
        ctx = view.record.context
        return say(_unsupported_key(view, finding), zero=ctx.team0_level, one=ctx.team1_level)
    if code == "SPLIT_INVALID" and seat is not None:
        return say("f.split")
    if code == "RECORD_INCOMPLETE":
        return _incomplete_sentence(view, lang)
    if ev.expected or ev.recorded:
        return say("f.generic")
    title = finding_title(code, lang)
    return say("f.generic_player", title=title) if who else say("f.generic_none", title=title)


def _deal_sentence(
    finding: audit_pb2.Finding,
    seat: int | None,
    lang: Lang,
    say: Callable[..., str],
    counts: dict[str, str],
) -> str:
    """A DEAL_INVALID finding: the deck's extra and missing cards, counted, or a hand or the
    kitty of the wrong size."""
    ev = finding.evidence
    difference = deal_difference(ev.recorded)
    decks = _DECKS.match(ev.expected.strip())
    if difference is not None and decks:
        parts = []
        if difference.extra_count:
            parts.append(t(lang, "f.extra", n=difference.extra_count))
        if difference.missing_count:
            parts.append(t(lang, "f.missing", n=difference.missing_count))
        separator = "，" if lang == "zh" else ", "
        return say("f.deal_deck", decks=decks.group(1), diff=separator.join(parts))
    return say("f.deal_hand" if seat is not None else "f.deal_kitty", **counts)


def forced_options(evidence: audit_pb2.Evidence) -> list[list[str]]:
    """The tied units a failed throw may force (R-THROW-FORCE-TIE), as card tokens; empty when
    the evidence names none."""
    text = evidence.details.get("forced_options", "")
    units = [card_tokens(unit) for unit in text.split("|")]
    return units if all(units) else []


def units_text(units: Sequence[Sequence[str]], lang: Lang) -> str:
    """Units of cards, one after another: ``♥2、♣2`` / ``♥2, ♣2``."""
    return ("、" if lang == "zh" else ", ").join(cards_text(unit, lang) for unit in units)


def _unsupported_key(view: ReplayView, finding: audit_pb2.Finding) -> str:
    """Which open rule an UNSUPPORTED finding meets, from its phase and the record."""
    ctx = view.record.context
    if finding.position.phase == audit_pb2.PHASE_DEAL:
        return "f.unsupported_rules"  # rules the record's source program sets (its metadata)
    if not ctx.first_hand and not ctx.HasField("dealer"):
        return "f.unsupported_dealer"
    if ctx.first_hand and ctx.team0_level != ctx.team1_level:
        return "f.unsupported_levels"
    if not view.record.bids:
        return "f.unsupported_nobody"
    return "f.unsupported"


def _incomplete_sentence(view: ReplayView, lang: Lang) -> str:
    """A RECORD_INCOMPLETE finding: who still holds cards, or that no trick was played, or
    that the record's source says it stops early."""
    if not view.record.tricks:
        return t(lang, "f.incomplete_no_trick")
    hands = view.steps[-1].hands if view.steps else []
    left = [
        t(lang, "f.cards_left", name=seat_name(view, seat, lang), n=len(hand.cards))
        for seat, hand in enumerate(hands)
        if hand.cards
    ]
    if left:
        return t(lang, "f.incomplete", left=("，" if lang == "zh" else ", ").join(left))
    return t(lang, "f.incomplete_source")


# -- the score of a hand ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """How the defenders' total of a scored hand is made up (R-SCORE, R-KITTY, R-THROW-SIDE).

    ``last_trick`` is what the ruleset adds for the last trick's own points (``changshu``
    counts them twice): the rest of the total once the other parts are taken away."""

    tricks: int
    penalties: int
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    last_trick: int
    total: int
    claimed: int | None


def score_parts(view: ReplayView) -> ScoreParts | None:
    """The parts of the computed score, or None when the hand was not scored."""
    computed = view.audit.computed
    dealer = view.dealer
    if dealer is None or not view.scored:
        return None
    tricks = sum(r.points for r in computed.tricks if r.winner % 2 != dealer % 2)
    penalties = sum(r.penalty for r in computed.tricks)
    bonus = computed.kitty_bonus
    last = computed.defenders_points - tricks - penalties - bonus
    claim = view.record.claim
    claimed = claim.defenders_points if claim.HasField("defenders_points") else None
    return ScoreParts(
        tricks=tricks,
        penalties=penalties,
        kitty_points=computed.kitty_points,
        kitty_multiplier=computed.kitty_multiplier,
        kitty_bonus=bonus,
        last_trick=last,
        total=computed.defenders_points,
        claimed=claimed,
    )


# -- a re-audit against the stored audit ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FindingChange:
    """One difference between two audits: a finding that appears, disappears or changes (same
    code and place, other severity or evidence)."""

    kind: str  # "appears", "disappears" or "changes"
    before: audit_pb2.Finding | None
    after: audit_pb2.Finding | None

    @property
    def finding(self) -> audit_pb2.Finding:
        """The finding as it is now (as it was, for one that disappears)."""
        found = self.after or self.before
        assert found is not None  # a change has at least one side
        return found


def _place(finding: audit_pb2.Finding) -> tuple[int, ...]:
    """A finding's place as a sort key: phase, bid, exchange, trick, play, seat."""
    pos = finding.position
    return (
        pos.hand_index if pos.HasField("hand_index") else -1,
        pos.phase,
        pos.bid_index if pos.HasField("bid_index") else -1,
        pos.exchange_index if pos.HasField("exchange_index") else -1,
        pos.trick if pos.HasField("trick") else -1,
        pos.play if pos.HasField("play") else -1,
        pos.seat if pos.HasField("seat") else -1,
    )


def audit_changes(
    before: Sequence[audit_pb2.Finding], after: Sequence[audit_pb2.Finding]
) -> list[FindingChange]:
    """What changed from ``before`` to ``after``, in the order of the hand (step by step).

    Findings pair up by code and place, in order within each (code, place); a pair whose
    severity, evidence or message differ is a change. O(n log n) in the findings."""
    keyed_before: dict[tuple[str, tuple[int, ...]], list[audit_pb2.Finding]] = {}
    for finding in before:
        keyed_before.setdefault((finding.code, _place(finding)), []).append(finding)
    changes: list[FindingChange] = []
    for finding in after:
        waiting = keyed_before.get((finding.code, _place(finding)))
        if not waiting:
            changes.append(FindingChange("appears", None, finding))
            continue
        old = waiting.pop(0)
        same = (
            old.severity == finding.severity
            and old.evidence == finding.evidence
            and old.message == finding.message
        )
        if not same:
            changes.append(FindingChange("changes", old, finding))
    for left in keyed_before.values():
        changes.extend(FindingChange("disappears", old, None) for old in left)
    return sorted(changes, key=lambda c: (_place(c.finding), c.finding.code, c.kind))
