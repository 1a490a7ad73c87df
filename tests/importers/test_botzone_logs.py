"""Botzone logs beyond the clean fixture: the bids the judger accepts, its result, its errors,
cut logs and the players of a match object (issue 14)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from chaodipi.auditor import audit_game
from chaodipi.auditor.reading import INCOMPLETE_KEY, UNSUPPORTED_KEY
from chaodipi.importers import load_bytes
from chaodipi.importers.botzone import game_from_botzone
from chaodipi.v1 import audit_pb2, records_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures" / "botzone"
FULL = json.loads((FIXTURES / "full-deal.json").read_text())
DIAMOND_TWOS = (7, 61)  # ♦2 of each deck (id % 54 = 4 * rank + suit)


def _log(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(FULL)
    data.update(changes)
    return data


def _import(data: Any) -> records_pb2.GameRecord:
    result = load_bytes(json.dumps(data).encode(), "b.json", "botzone")
    assert result.errors == [], result.errors
    (record,) = result.records
    return record.game


def _codes(report: audit_pb2.AuditReport) -> list[str]:
    return [f.code for f in report.findings]


def _answers(data: dict[str, Any], seat: int) -> list[int]:
    """Log indexes of the seat's answers in the deal stage."""
    return [i for i, item in enumerate(data["log"][:200]) if i % 2 == 1 and str(seat) in item]


def _dealt_at(data: dict[str, Any], card: int) -> int:
    """The log index of the request that dealt ``card``."""
    return next(
        i
        for i, item in enumerate(data["log"][:200])
        if i % 2 == 0 and card in next(iter(item["output"]["content"].values()))["deliver"]
    )


# --- bids the judger accepts (B.1) ----------------------------------------------------------


def _seat3_calls_then_snatches(snatch: list[int], snatch_at: int | None = None) -> dict[str, Any]:
    """Seat 1's ♥2 call removed; seat 3 calls ♦2 as soon as it holds one, then snatches."""
    data = _log()
    data["log"][83] = {"1": {"response": []}}
    call_at = _dealt_at(data, DIAMOND_TWOS[0]) + 1
    assert "3" in data["log"][call_at]
    data["log"][call_at] = {"3": {"response": [DIAMOND_TWOS[0]]}}
    if snatch_at is not None:
        data["log"][159] = {"3": {"response": []}}
        data["log"][snatch_at] = {"3": {"response": snatch}}
    else:
        data["log"][159] = {"3": {"response": snatch}}
    return data


def test_r_bid_botzone_caller_snatches_with_the_card_it_called_with_audits_clean() -> None:
    # ♦2 (id 7) called, then ♦2♦2 (ids 7 and 61) snatched by the same seat: the judger
    # accepts it (called, then snatched), so the deal is the fixture's: banker 3, trump ♦.
    game = _import(_seat3_calls_then_snatches([7, 61]))
    assert [(b.seat, b.kind, list(b.cards)) for b in game.bids] == [
        (3, records_pb2.BID_KIND_DECLARE, ["D2"]),
        (3, records_pb2.BID_KIND_OVERCALL, ["D2", "D2"]),
    ]
    report = audit_game(game)
    assert _codes(report) == []
    assert (report.computed.dealer, report.computed.trump.suit) == (3, records_pb2.SUIT_DIAMONDS)
    # Under classic the shown card counts against the hand (亮过主的牌不能再次亮主), and the
    # declarer may not overcall itself.
    from chaodipi.engine.presets import CLASSIC

    assert "BID_ILLEGAL" in _codes(audit_game(game, ruleset=CLASSIC))


def test_r_bid_botzone_snatch_listing_one_card_id_twice_audits_clean() -> None:
    # [7, 7]: each id passes the judger's `in` test, so one ♦2 shows the pair.
    data = _log()
    later = [i for i in _answers(data, 3) if _dealt_at(data, 7) < i < _dealt_at(data, 61)]
    data = _seat3_calls_then_snatches([7, 7], snatch_at=later[1])
    report = audit_game(_import(data))
    assert _codes(report) == []
    assert report.computed.trump.suit == records_pb2.SUIT_DIAMONDS


# --- the judger's result: finish.content (B.2) ----------------------------------------------


def test_botzone_finish_content_is_the_claimed_match_points() -> None:
    game = _import(_log())
    assert game.claim.level_result == records_pb2.LevelResult(
        outcome=records_pb2.OUTCOME_DEFENDERS_UP, levels=2
    )
    report = audit_game(game)
    assert not report.computed.HasField("level_result")
    assert any("score 2 each" in note for note in report.notes)


@pytest.mark.parametrize(
    ("content", "claimed"),
    [
        ({"0": 0, "1": 2, "2": 0, "3": 2}, "dealer 2"),  # the teams swapped
        ({"0": 3, "1": 0, "2": 3, "3": 0}, "defenders 3"),  # the wrong band
        ({"0": 0, "1": 1, "2": 0, "3": 1}, "dealer 1"),
    ],
)
def test_botzone_wrong_finish_content_is_a_level_mismatch(
    content: dict[str, int], claimed: str
) -> None:
    data = _log()
    data["log"][-1]["output"]["content"] = content
    report = audit_game(_import(data))
    assert _codes(report) == ["LEVEL_MISMATCH"]
    finding = report.findings[0]
    assert (finding.evidence.expected, finding.evidence.recorded) == ("defenders 2", claimed)
    assert "give the defenders (seats 0 and 2) 2 match points each" in finding.message


def test_botzone_finish_content_not_of_the_judgers_shape_is_rejected() -> None:
    data = _log()
    data["log"][-1]["output"]["content"] = {"0": 2, "1": 1, "2": 2, "3": 1}
    result = load_bytes(json.dumps(data).encode(), "b.json", "botzone")
    assert result.records == []
    assert str(result.errors[0]) == (
        "b.json: $.log[402].output.content: expected Botzone's end-of-deal points: one side's "
        "two seats 1, 2 or 3 each and the other side's 0, found [2, 1, 2, 1]"
    )


def test_botzone_log_without_finish_is_audited_and_incomplete() -> None:
    data = _log(log=FULL["log"][:-1])
    game = _import(data)
    assert game.metadata[INCOMPLETE_KEY] == (
        "the log has no finish item: the judger's result is not there to check"
    )
    report = audit_game(game)
    assert _codes(report) == ["RECORD_INCOMPLETE"]
    assert report.findings[0].message == game.metadata[INCOMPLETE_KEY]
    assert report.computed.defenders_points == 120  # everything played is still checked


def test_botzone_judger_error_is_incomplete_with_its_verdict_and_is_confirmed() -> None:
    # Seat 3 snatches with ♦2 and ♠3 (not a pair): the judger's ILLEGAL_MOVE [4] ends the deal.
    data = _log(log=FULL["log"][:160])
    data["log"][159] = {"3": {"response": [7, 8]}}
    scores = {"0": 1, "1": 0, "2": 1, "3": -3}
    data["log"].append(
        {
            "output": {
                "command": "finish",
                "content": scores,
                "display": {
                    "currplayer": 3,
                    "score": scores,
                    "error": [None, None, None, "ILLEGAL_MOVE [4]"],
                },
            }
        }
    )
    game = _import(data)
    report = audit_game(game)
    assert _codes(report) == ["BID_ILLEGAL", "RECORD_INCOMPLETE"]  # the verdict, confirmed
    assert report.findings[1].message == (
        "the judger ended the deal with an error at $.log[160]: seat 3 ILLEGAL_MOVE [4]"
    )
    assert not game.claim.HasField("level_result")


def test_botzone_bad_card_fixture_reads_up_to_the_judgers_error() -> None:
    result = load_bytes((FIXTURES / "bad-card.json").read_bytes(), "bad-card.json")
    assert result.errors == []
    report = audit_game(result.records[0].game)
    assert _codes(report) == ["RECORD_INCOMPLETE"]
    assert report.findings[0].message.startswith(
        "the judger ended the deal with an error at $.log[262]: seat 3 NOT_YOUR_POKER; seat 3's "
        "answer at $.log[261] is not read (expected a number 0-107, found 108); the hand is not "
        "played out"
    )


# --- cut logs (B.3): one rule for every cut -----------------------------------------------------


def test_botzone_every_cut_of_the_log_reads_as_far_as_it_goes() -> None:
    # Cut on a request or after an answer, at every place: a record, RECORD_INCOMPLETE, and
    # no breach or scoring error that only the cut causes.
    full = FULL["log"]
    reasons = set()
    for length in range(len(full)):
        game = game_from_botzone({"initdata": FULL["initdata"], "log": full[:length]}, "$", "b")
        report = audit_game(game)
        assert not report.rejections, length
        assert (report.breaches, report.scoring_errors) == (0, 0), (
            length,
            [(f.code, f.message) for f in report.findings],
        )
        assert "RECORD_INCOMPLETE" in _codes(report), length
        reasons.add(game.metadata[INCOMPLETE_KEY].split(" at ")[0])
    assert reasons == {
        "the log ends",  # on a request, or after an answer
        "the log has no finish item: the judger's result is not there to check",
        "seat 2's lead of 2 cards",  # the throw at log[227]: the judger's cut-down unseen
    }


def test_botzone_cut_after_a_lead_of_several_cards_stops_before_it() -> None:
    game = _import(_log(log=FULL["log"][:228]))  # log[227] is seat 2's throw ♠7 ♠A
    assert game.metadata[INCOMPLETE_KEY] == (
        "seat 2's lead of 2 cards at $.log[227] is not read: the log ends there before "
        "checking it as a throw"
    )
    assert len(game.tricks) == 3
    assert "THROW_NOT_ENFORCED" not in _codes(audit_game(game))


# --- logs the judger wrote, checked against the botzone variant ---------------------------------


def _fixture(name: str) -> records_pb2.GameRecord:
    return _import(json.loads((FIXTURES / name).read_text()))


def test_r_throw_check_botzone_stood_throw_put_down_regrouped_stands() -> None:
    # Seat 0 throws ♣A ♣K ♣A (log[203]); it stands, and the judger puts it down unit by unit,
    # ♣A ♣A ♣K (log[204]): the same cards, so no forced unit and no attempt.
    game = _fixture("throw-stood-regrouped.json")
    (lead,) = game.tricks[0].plays
    assert (list(lead.cards), list(lead.attempted)) == (["CA", "CK", "CA"], [])
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_throw_force_tie_botzone_equal_tops_of_any_shape_tie() -> None:
    # Trump ♥ at 3: seat 0 throws ♠3 ♣3 ♣3; seat 1's LJ LJ beats the pair and the single. The
    # tops are other-suit level cards of equal order: checkThrow forces ♠3 (the lower
    # Major.index), our rule accepts a card of either, and the fine is 10 x 3.
    game = _fixture("throw-forced-tie-across-shapes.json")
    (lead,) = game.tricks[0].plays
    assert (list(lead.cards), list(lead.attempted)) == (["S3"], ["S3", "C3", "C3"])
    assert game.tricks[0].claim.penalty == 30
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_win_botzone_throw_answers_compared_by_largest_unit_top_only() -> None:
    # Trump ♠ at Q: seat 0 throws ♦A ♦K; seat 1 ruffs with ♦Q ♠7, seat 2 with ♠A ♣Q. The
    # largest units (singles) tie on ♦Q and ♣Q, and checkWinner keeps the earlier play: the
    # judger gives the trick to seat 1, who leads the next (log[211]); ♠A over ♠7 does not count.
    game = _fixture("throw-won-by-largest-unit-top.json")
    assert [list(p.cards) for p in game.tricks[0].plays] == [
        ["DA", "DK"],
        ["DQ", "S7"],
        ["SA", "CQ"],
        ["D2", "D3"],
    ]
    assert (game.tricks[0].claim.winner, game.tricks[1].leader) == (1, 1)
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_follow_suit_botzone_same_type_follow_not_suit_checked() -> None:
    # Trump ♥ at 2: seat 0 leads ♠9 ♠9. Seat 1 holds ♠3 ♠5 but no ♠ pair and ruffs with
    # ♥4 ♥4; seat 2 holds ♠6 ♠8 and answers ♣7 ♣7. checkLegalMove checks the suit only when
    # the type differs: the judger accepts both and gives the trick to seat 1 (log[211]).
    game = _fixture("follow-same-type-off-suit.json")
    assert [list(p.cards) for p in game.tricks[0].plays][:3] == [
        ["S9", "S9"],
        ["H4", "H4"],
        ["C7", "C7"],
    ]
    assert (game.tricks[0].claim.winner, game.tricks[1].leader) == (1, 1)
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_follow_shape_botzone_throw_of_pairs_and_singles_owes_no_pairs() -> None:
    # Trump ♥ at 2: seat 0 throws ♠A ♠A ♠K, which stands; seat 1 holds ♠3 ♠3 ♠5 ♠6 and answers
    # ♠3 ♠5 ♠6: no tractor in the throw, so the judger checks no structure.
    game = _fixture("throw-without-tractor-no-pair-duty.json")
    assert list(game.tricks[0].plays[1].cards) == ["S3", "S5", "S6"]
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_unit_botzone_joker_pairs_inside_a_throw_are_no_tractor() -> None:
    # Trump ♥ at 2: seat 0 throws LJ LJ BJ BJ ♥2, two pairs and a single to checkThrow, which
    # stand; seat 1 holds ♥3 ♥3 ♥4 ♥4 and answers ♥3 ♥4 ♥6 ♥7 ♥8, owing no tractor.
    game = _fixture("throw-joker-pairs-not-a-tractor.json")
    assert list(game.tricks[0].plays[0].cards) == ["LJ", "LJ", "BJ", "BJ", "H2"]
    assert list(game.tricks[0].plays[1].cards) == ["H3", "H4", "H6", "H7", "H8"]
    assert _codes(audit_game(game)) == ["RECORD_INCOMPLETE"]


def test_r_lead_botzone_side_throw_with_its_level_card_is_unsupported() -> None:
    # Trump ♥ at 2: seat 0 throws ♠A ♠2, which the judger lets stand (its suit letter is ♠).
    # No field models the judger's check, penalty and winner for it: the record is unsupported,
    # naming the trick, rather than a LEAD_MIXED_SUITS the judger never made.
    game = _fixture("throw-side-suit-with-its-level-card.json")
    assert game.metadata[UNSUPPORTED_KEY].startswith("trick 1: seat 0 leads ♠A ♠2,")
    assert _codes(audit_game(game)) == ["UNSUPPORTED"]


def test_r_kitty_botzone_bury_of_another_size_than_eight_is_unsupported() -> None:
    # Seat 0 buries 7 cards (log[201]); the judger takes them and asks for the first lead.
    # Hands of 25 and a kitty of 8 are the ruleset's: the record is unsupported, naming the
    # bury, rather than a KITTY_INVALID the judger never made.
    game = _fixture("bury-of-seven-cards.json")
    assert len(game.kitty_exchanges[0].buried) == 7
    assert game.metadata[UNSUPPORTED_KEY].startswith("seat 0 buries 7 cards at $.log[201],")
    assert _codes(audit_game(game)) == ["UNSUPPORTED"]


# --- players (B.4) ------------------------------------------------------------------------------


def _bot(seat: int) -> dict[str, Any]:
    return {
        "_id": f"p{seat}",
        "type": "bot",
        "bot": {
            "_id": f"v{seat}",
            "ver": 8,
            "bot": {"_id": f"bot{seat}", "name": f"Bot {seat}"},
            "user": {"_id": f"u{seat}", "name": f"user{seat}"},
        },
    }


def test_botzone_players_come_from_the_match_object() -> None:
    players = [_bot(0), _bot(1), {"type": "human", "user": {"_id": "h2", "name": "Ann"}}, {}]
    game = _import(_log(players=players, scores=[2, 0, 2, 0], _id="m1"))
    assert [(p.id, p.display_name) for p in game.players] == [
        ("botzone:bot:bot0", "Bot 0 (user0)"),
        ("botzone:bot:bot1", "Bot 1 (user1)"),
        ("botzone:user:h2", "Ann"),
        ("botzone:seat3", "seat 3"),  # an entry without an id: the seat stands in
    ]


def test_botzone_judger_log_without_players_has_seat_based_ids() -> None:
    game = _import(_log())
    assert [p.id for p in game.players] == [f"botzone:seat{s}" for s in range(4)]
