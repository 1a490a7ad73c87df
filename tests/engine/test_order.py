"""Card order (R-ORDER, R-ORDER-CS-DUAL): what engine/order.py computes."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.engine.cards import CLUBS, HEARTS, KINDS, SPADES, parse_card, rank_index
from chaodipi.engine.order import TRUMP, TrumpContext, trump_context
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG


def order_of(ctx: TrumpContext, tokens: str) -> list[int]:
    return [ctx.strength[parse_card(t)] for t in tokens.split()]


def test_r_order_classic_trump_ranking() -> None:
    ctx = trump_context(CLASSIC, rank_index("6"), HEARTS)
    s = order_of(ctx, "BJ LJ H6 S6 C6 D6 HA HK H7 H5 H2")
    assert s[0] > s[1] > s[2] > s[3] == s[4] == s[5] > s[6] > s[7] > s[8] > s[9] > s[10]
    assert all(ctx.is_trump[parse_card(t)] for t in ["BJ", "LJ", "H6", "S6", "HA", "H2"])
    assert ctx.strength[parse_card("H2")] > ctx.strength[parse_card("SA")]


def test_r_order_side_suit_skips_level() -> None:
    ctx = trump_context(CLASSIC, rank_index("6"), HEARTS)
    assert ctx.step[parse_card("C7")] == ctx.step[parse_card("C5")] + 1
    assert ctx.suit[parse_card("C6")] == TRUMP
    assert not ctx.is_trump[parse_card("CA")]


def test_r_order_same_rules_in_shuangsheng_and_anhui() -> None:
    for ruleset in (SHUANGSHENG, ANHUI):
        ctx = trump_context(ruleset, rank_index("6"), HEARTS)
        ref = trump_context(CLASSIC, rank_index("6"), HEARTS)
        assert ctx.strength == ref.strength


def test_r_order_no_trump_jokers_and_level_cards() -> None:
    ctx = trump_context(CLASSIC, rank_index("6"), None)
    s = order_of(ctx, "BJ LJ H6 S6 C6 D6")
    assert s[0] > s[1] > s[2] == s[3] == s[4] == s[5]
    assert not ctx.is_trump[parse_card("HA")]
    assert ctx.suit[parse_card("HA")] == HEARTS


def test_r_order_cs_ranking_and_spade_ace() -> None:
    ctx = trump_context(CHANGSHU, rank_index("6"), HEARTS)
    s = order_of(ctx, "H5 BJ LJ SA H6 S6 C6 D6 HA H7 H4")
    assert s[0] > s[1] > s[2] > s[3] > s[4] > s[5] == s[6] == s[7] > s[8] > s[9] > s[10]
    # 黑桃A永遠是主，則黑桃K作為付牌是最大的.
    assert ctx.is_trump[parse_card("SA")]
    spades = ctx.steps[SPADES]
    assert spades[-1] == (parse_card("SK"),)


def test_r_order_cs_no_trump() -> None:
    ctx = trump_context(CHANGSHU, rank_index("6"), None)
    s = order_of(ctx, "BJ LJ SA H6 S6")
    assert s[0] > s[1] > s[2] > s[3] == s[4]
    assert not ctx.is_trump[parse_card("H5")]


def test_r_order_cs_dual_level_five_is_top() -> None:
    ctx = trump_context(CHANGSHU, rank_index("5"), CLUBS)
    top = max(range(KINDS), key=lambda k: ctx.strength[k])
    assert top == parse_card("C5")
    assert ctx.strength[parse_card("H5")] < ctx.strength[parse_card("SA")]


def test_r_order_cs_dual_level_ace_in_spade_ace_place() -> None:
    ctx = trump_context(CHANGSHU, rank_index("A"), SPADES)
    s = order_of(ctx, "LJ SA HA CA")
    assert s[0] > s[1] > s[2] == s[3]


def test_r_order_cs_dual_a_place_named_twice_in_code_holds_its_cards_once() -> None:
    # A ruleset built in code is not validated: naming ♠A's place again, above the jokers,
    # puts ♠A there once, not on two steps of the trumps.
    order = replace(CHANGSHU.order, trump_tiers=("card:SA", *CHANGSHU.order.trump_tiers))
    ctx = trump_context(replace(CHANGSHU, order=order), rank_index("2"), HEARTS)
    assert ctx.kinds[TRUMP].count(parse_card("SA")) == 1
    assert max(range(KINDS), key=lambda k: ctx.strength[k]) == parse_card("SA")
    assert len(ctx.kinds[TRUMP]) == len(set(ctx.kinds[TRUMP]))


def test_r_order_beats_trump_over_side() -> None:
    ctx = trump_context(CLASSIC, rank_index("2"), SPADES)
    assert ctx.beats(parse_card("S3"), parse_card("HA"))
    assert not ctx.beats(parse_card("HA"), parse_card("S3"))
    assert not ctx.beats(parse_card("CA"), parse_card("H3"))  # off-suit never beats


contexts = st.builds(
    trump_context,
    st.sampled_from([CLASSIC, SHUANGSHENG, ANHUI, CHANGSHU]),
    st.integers(0, 12),
    st.sampled_from([0, 1, 2, 3, None]),
)


@settings(max_examples=60, deadline=None)
@given(
    ctx=contexts,
    a=st.integers(0, KINDS - 1),
    b=st.integers(0, KINDS - 1),
    c=st.integers(0, KINDS - 1),
)
def test_r_order_total_preorder(ctx: TrumpContext, a: int, b: int, c: int) -> None:
    s = ctx.strength
    # Total and transitive: a preorder by one number.
    assert s[a] >= s[b] or s[b] >= s[a]
    if s[a] >= s[b] >= s[c]:
        assert s[a] >= s[c]
    # beats is the strict part, within a suit or by trump.
    if ctx.beats(a, b):
        assert not ctx.beats(b, a)
        assert s[a] > s[b]
    if ctx.suit[a] == ctx.suit[b]:
        assert ctx.beats(a, b) == (s[a] > s[b])
        assert (ctx.step[a] == ctx.step[b]) == (s[a] == s[b])


@settings(max_examples=40, deadline=None)
@given(ctx=contexts)
def test_r_order_steps_partition_the_deck(ctx: TrumpContext) -> None:
    seen = sorted(k for steps in ctx.steps for step in steps for k in step)
    assert seen == list(range(KINDS))
    for suit, steps in enumerate(ctx.steps):
        for i, step in enumerate(steps):
            for k in step:
                assert (ctx.suit[k], ctx.step[k]) == (suit, i)
                for up in ctx.link_up[k]:
                    assert ctx.suit[up] == suit and ctx.step[up] == i + 1
