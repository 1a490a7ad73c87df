"""Lead format and declared splits (R-LEAD, R-UNIT-SPLIT)."""

from __future__ import annotations

from chaodipi.engine.cards import HEARTS, parse_cards, rank_index
from chaodipi.engine.lead import check_lead, describe_lead, lead_units
from chaodipi.engine.order import trump_context
from chaodipi.engine.presets import CHANGSHU, CLASSIC

LEVEL6 = rank_index("6")
CTX = trump_context(CLASSIC, LEVEL6, HEARTS)
CS = trump_context(CHANGSHU, LEVEL6, HEARTS)


def test_r_lead_one_unit_is_always_legal() -> None:
    for tokens in ("CA", "C9 C9", "C9 C9 C10 C10", "BJ", "S6"):
        assert check_lead(CTX, parse_cards(tokens)) is None


def test_r_lead_mixed_suits_names_the_suits() -> None:
    problem = check_lead(CTX, parse_cards("C5 HA"))
    assert problem is not None
    assert problem.code == "LEAD_MIXED_SUITS"
    assert "♣ (♣5)" in problem.reason and "trumps (♥A)" in problem.reason


def test_r_lead_level_cards_and_jokers_lead_with_the_trump_suit() -> None:
    assert check_lead(CTX, parse_cards("S6 H3 BJ")) is None
    problem = check_lead(CTX, parse_cards("S6 SA"))
    assert problem is not None and problem.code == "LEAD_MIXED_SUITS"


def test_r_lead_empty() -> None:
    problem = check_lead(CTX, [])
    assert problem is not None and problem.code == "LEAD_EMPTY"


def test_r_unit_split_declared_split_is_used() -> None:
    # 要請出牌方說明是A單張加AAKK連對還是三條A加兩個K.
    cards = parse_cards("CA CA CA CK CK")
    declared = [parse_cards("CA CA CA"), parse_cards("CK CK")]
    assert check_lead(CS, cards, declared) is None
    assert [u.label() for u in lead_units(CS, cards, declared)] == ["♣A ♣A ♣A", "♣K ♣K"]
    assert [u.label() for u in lead_units(CS, cards)] == ["♣K ♣K ♣A ♣A", "♣A"]


def test_r_unit_split_declared_split_must_be_the_lead() -> None:
    cards = parse_cards("CA CK CK")
    problem = check_lead(CTX, cards, [parse_cards("CA CA"), parse_cards("CK")])
    assert problem is not None and problem.code == "SPLIT_INVALID"
    assert "is not the lead" in problem.reason


def test_r_unit_split_declared_parts_must_be_units() -> None:
    cards = parse_cards("CA CK CK")
    problem = check_lead(CTX, cards, [parse_cards("CA CK"), parse_cards("CK")])
    assert problem is not None and problem.code == "SPLIT_INVALID"
    assert "♣A ♣K is not a unit" in problem.reason
    problem = check_lead(CTX, parse_cards("C9 C9 CJ CJ"), [parse_cards("C9 C9 CJ CJ")])
    assert problem is not None and "♣9 ♣9 and ♣J ♣J are not adjacent" in problem.reason


def test_r_unit_split_declared_split_may_not_add_units() -> None:
    cards = parse_cards("CA CA CK CK")
    declared = [parse_cards("CA CA"), parse_cards("CK CK")]
    problem = check_lead(CTX, cards, declared)
    assert problem is not None and problem.code == "SPLIT_INVALID"
    assert "2 units where 1 suffice" in problem.reason
    assert [u.shape for u in lead_units(CTX, cards, declared)] == [(2, 2)]


def test_r_unit_split_describe_lead() -> None:
    assert describe_lead(lead_units(CTX, parse_cards("C9 C9"))) == "pair"
    assert describe_lead(lead_units(CTX, parse_cards("CA C9 C9 C3"))) == (
        "throw of a pair and 2 singles"
    )
    assert describe_lead(lead_units(CTX, parse_cards("C2 C2 C3 C3 C9 C9 C10 C10"))) == (
        "throw of 2 tractors of 2 pairs"
    )
