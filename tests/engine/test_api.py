"""The engine's public API: values from tokens and back, and the same answers as the modules."""

from __future__ import annotations

import dataclasses
import random

import pytest

from chaodipi import engine
from chaodipi.auditor.bidding import BiddingOutcome
from chaodipi.engine.bidding import apply_bid, start_bidding
from chaodipi.engine.cards import full_deck
from chaodipi.engine.follow import _lead as follow_lead
from chaodipi.engine.follow import check_follow
from chaodipi.engine.lead import lead_units
from chaodipi.engine.level import level_result
from chaodipi.engine.presets import CHANGSHU, CLASSIC
from chaodipi.engine.trick import trick_winner


def test_every_public_name_is_there() -> None:
    assert sorted(engine.__all__) == sorted(set(engine.__all__))
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == []


@pytest.mark.parametrize("token", ["S", "H", "C", "D", "NT"])
def test_trump_tokens_round_trip(token: str) -> None:
    assert engine.trump_token(engine.parse_trump(token.lower())) == token


def test_no_trump_is_none_in_every_value() -> None:
    table = engine.Table(CLASSIC, level="6", trump="NT")
    assert table.trump is None and table.context is engine.Table(CLASSIC, 4, None).context
    bid = engine.Bid.parse(1, "overcall", "BJ BJ", trump="NT")
    assert (bid.names_trump, bid.trump_choice) == (True, None)
    assert engine.Bid.parse(1, "overcall", "BJ BJ").names_trump is False


def test_cards_and_hands_print_back_to_tokens() -> None:
    assert str(engine.Cards("lj c6 c6")) == "LJ C6 C6"
    assert engine.Cards("C6 LJ") == tuple(engine.parse_cards("C6 LJ"))
    hand = engine.Hand("C6 LJ C6")
    assert str(hand) == "C6 C6 LJ" and engine.Hand(list(hand)).counts == hand.counts


def test_a_hand_is_not_a_card_list() -> None:
    with pytest.raises(engine.CardError, match="one per card kind"):
        engine.Hand.from_counts(engine.parse_cards("C6 C6"))
    with pytest.raises(engine.CardError, match="negative"):
        engine.Hand.from_counts([-1] + [0] * 53)
    with pytest.raises(engine.CardError, match="bad card kind"):
        engine.Hand([54])
    assert engine.Hand.from_counts(engine.Hand("SA SA").counts).count(engine.parse_card("SA")) == 2


def test_a_hand_gives_up_what_it_holds_and_names_the_rest() -> None:
    hand = engine.Hand("SA SK")
    assert engine.format_cards(hand.remove(engine.parse_cards("SA SA D2"))) == "SA D2"
    assert str(hand) == "SK"
    hand.add(engine.parse_cards("D2"))
    assert len(hand) == 2 and engine.parse_card("D2") in hand


def test_table_takes_tokens_cards_or_kinds_alike() -> None:
    table = engine.Table(CLASSIC, "6", "H")
    lead = table.lead("C9 C9")
    hand = engine.Hand("C3 C5 H2 H2")
    by_tokens = table.follow(hand, lead, "C3 H2")
    assert by_tokens == table.follow(hand, lead, engine.Cards("C3 H2"))
    assert by_tokens == table.follow(hand, lead, engine.parse_cards("C3 H2"))
    assert (by_tokens.legal, by_tokens.code) == (False, "FOLLOW_REVOKE")
    assert table.follow(hand, lead, "C3 C5") is engine.LEGAL


def test_r_unit_split_a_lead_of_one_kind_is_the_canonical_one() -> None:
    rng = random.Random(3)
    for ruleset in (CLASSIC, CHANGSHU):
        table = engine.Table(ruleset, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
        for kind in range(engine.KINDS):
            for width in range(1, ruleset.decks + 1):
                lead = table.lead([kind] * width)
                assert lead.units == lead_units(table.context, [kind] * width)
                assert lead is engine.lead_of_one_kind(kind, width)


def test_r_follow_the_same_units_under_two_tables_are_judged_by_each() -> None:
    # The follow check recognises the last lead it saw by identity: the table must count too.
    # At level 5 the ♠5 led is a trump and ♥4 must answer; at level 2 it is a spade.
    five, two = engine.Table(CLASSIC, "5", "H"), engine.Table(CLASSIC, "2", "H")
    units = five.lead("S5").units
    assert units is two.lead("S5").units
    hand, spade = engine.Hand("S3 H4"), engine.parse_cards("S3")
    assert check_follow(five.context, units, hand, spade) is not None
    assert check_follow(two.context, units, hand, spade) is None
    assert check_follow(five.context, units, hand, spade) is not None


def test_r_win_the_table_and_the_module_agree() -> None:
    rng = random.Random(7)
    deck = full_deck(2)
    for _ in range(200):
        rng.shuffle(deck)
        table = engine.Table(CLASSIC, rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
        hands = [engine.Hand(deck[i * 25 : (i + 1) * 25]) for i in range(4)]
        lead = table.lead([next(iter(hands[0]))])
        follows = [list(table.legal_follow(hands[s], lead)) for s in (1, 2, 3)]
        assert table.winner(lead, follows) == trick_winner(table.context, lead.units, follows)


def test_r_throw_force_the_lead_that_counts_is_the_forced_unit() -> None:
    table = engine.Table(CLASSIC, "2", "H")
    hands = [
        engine.Hand("CK CJ CJ"),
        engine.Hand("C10 C10"),
        engine.Hand("CQ CQ"),
        engine.Hand("C3"),
    ]
    failed = table.throw(0, "CK CJ CJ", hands)
    assert (failed.stands, str(failed.lead), failed.rule) == (False, "CJ CJ", "R-THROW-FORCE")
    stands = table.throw(0, "CK CJ CJ", [hands[0], engine.Hand("C3"), engine.Hand("C4"), hands[3]])
    assert (stands.stands, str(stands.lead), stands.rule) == (True, "CJ CJ CK", "R-THROW-CHECK")


def test_the_values_built_by_their_own_init_are_whole_and_frozen() -> None:
    # These write their ``__init__`` out (mypyc compiles it to plain stores): every field must
    # still be set as given, and none assignable afterwards, in either build.
    table = engine.Table(CLASSIC, level="2", trump="H")
    hands = [engine.Hand("CK CJ CJ"), engine.Hand("C10 C10"), engine.Hand("CQ CQ"), engine.Hand()]
    throw = table.throw(0, "CK CJ CJ", hands)
    state = start_bidding("2", first_hand=True)
    bid = engine.Bid.parse(1, "declare", "H2")
    after = apply_bid(CLASSIC, state, bid, held=engine.parse_cards("H2"))
    assert after.standing is not None
    values = [
        table.lead("D5 D5 D6 D6 DK"),
        throw,
        throw.beaten[0],
        state,
        after,
        after.standing,
        bid,
        level_result(CLASSIC, 45, "6", "3"),
        follow_lead(table.context, table.lead("D5 D5 D6 D6").units),
        BiddingOutcome(3, 1, 2, 0),
    ]
    for value in values:
        fields = [field.name for field in dataclasses.fields(value)]
        copy = dataclasses.replace(value)  # through ``__init__`` again, every field passed
        assert [getattr(copy, f) for f in fields] == [getattr(value, f) for f in fields]
        name = fields[0]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, getattr(value, name))
