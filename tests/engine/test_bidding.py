"""Bidding: declare, lock, overcall, 炒底/抄底, kitty flips and fallbacks (R-BID)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from chaodipi.engine.bidding import (
    Bid,
    BiddingState,
    BidError,
    BidKind,
    FallbackResult,
    Phase,
    Unsupported,
    apply_bid,
    bury,
    check_bid,
    end_drawing,
    fallback_trump,
    start_bidding,
)
from chaodipi.engine.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    parse_card,
    parse_cards,
    rank_index,
)
from chaodipi.engine.presets import ANHUI, CHANGSHU, CLASSIC, SHUANGSHENG
from chaodipi.engine.ruleset import Ruleset

SIX = rank_index("6")
# Every seat holds every level card and both jokers twice (three times in changshu), so a
# test only meets the rule it is about.
TWO_DECKS = parse_cards("S6 H6 C6 D6 LJ BJ") * 2
THREE_DECKS = parse_cards("S6 H6 C6 D6 LJ BJ") * 3


def bid(seat: int, kind: BidKind, tokens: str, trump_choice: str | None = None) -> Bid:
    return Bid.parse(seat, kind, tokens, trump=trump_choice)


def hand_for(ruleset: Ruleset) -> list[int]:
    return THREE_DECKS if ruleset.decks == 3 else TWO_DECKS


def run(ruleset: Ruleset, state: BiddingState, *bids: Bid) -> BiddingState:
    for b in bids:
        state = apply_bid(ruleset, state, b, held=hand_for(ruleset))
    return state


def reason(ruleset: Ruleset, state: BiddingState, b: Bid) -> str | None:
    return check_bid(ruleset, state, b, held=hand_for(ruleset))


def first() -> BiddingState:
    return start_bidding(SIX, first_hand=True)


def buried_later(ruleset: Ruleset, *bids: Bid, dealer: int = 0) -> BiddingState:
    state = run(ruleset, start_bidding(SIX, first_hand=False, dealer=dealer), *bids)
    return bury(end_drawing(state))


# --- declaring (报主) ---------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG], ids=lambda r: r.id)
def test_r_bid_first_declarer_becomes_dealer(ruleset: Ruleset) -> None:
    # 谁先起到任意花色的当前级牌并亮出，即成为该局的庄家 … 此花色即成为该局的主花色
    state = run(ruleset, first(), bid(3, BidKind.DECLARE, "C6"))
    assert (state.dealer, state.trump, state.first_declarer) == (3, CLUBS, 3)


def test_r_bid_jokers_never_declare() -> None:
    why = reason(CLASSIC, first(), bid(0, BidKind.DECLARE, "BJ"))
    assert why is not None and "常主不可进行报主" in why


def test_r_bid_declare_needs_a_level_card() -> None:
    why = reason(CLASSIC, first(), bid(0, BidKind.DECLARE, "S7"))
    assert why == "♠7 is not a level card (level 6)"


def test_r_bid_declare_only_while_drawing() -> None:
    why = reason(CLASSIC, end_drawing(first()), bid(0, BidKind.DECLARE, "S6"))
    assert why is not None and "while the cards are drawn" in why


def test_r_bid_second_declaration_is_not_allowed() -> None:
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "S6"))
    why = reason(CLASSIC, state, bid(1, BidKind.DECLARE, "H6"))
    assert why is not None and "already declared" in why


def test_r_bid_later_hand_declaration_keeps_the_dealer() -> None:
    # 正常报主 … 此时该花色即成为该局的主花色。但该局庄家不变。
    state = run(
        CLASSIC, start_bidding(SIX, first_hand=False, dealer=2), bid(1, BidKind.DECLARE, "D6")
    )
    assert (state.dealer, state.trump) == (2, DIAMONDS)


# --- draw order and the hand ---------------------------------------------------------------


def test_r_bid_card_must_be_drawn_before_it_is_shown() -> None:
    hand_in_draw_order = parse_cards("S2 S3 H6 C9")
    early = Bid(0, BidKind.DECLARE, (parse_card("H6"),), drawn_count=2)
    why = check_bid(CLASSIC, first(), early, held=hand_in_draw_order)
    assert why == "seat 0 shows ♥6 but holds 0 ♥6 among the 2 cards drawn by then"
    on_time = Bid(0, BidKind.DECLARE, (parse_card("H6"),), drawn_count=3)
    state = apply_bid(CLASSIC, first(), on_time, held=hand_in_draw_order)
    assert state.draw_unchecked == 0


def test_r_bid_without_draw_order_the_check_is_counted_as_skipped() -> None:
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "H6"))
    assert state.draw_unchecked == 1


def test_r_bid_shown_cards_must_be_in_the_hand() -> None:
    why = check_bid(CLASSIC, first(), bid(0, BidKind.DECLARE, "H6"), held=parse_cards("S6"))
    assert why == "seat 0 shows ♥6 but holds 0 ♥6 in the hand"


def test_r_bid_a_card_used_to_declare_cannot_declare_again() -> None:
    # 亮过主的牌不能再次亮主
    hand = parse_cards("H6 H6")
    state = apply_bid(ANHUI, first(), bid(0, BidKind.DECLARE, "H6"), held=hand)
    state = apply_bid(ANHUI, state, bid(1, BidKind.OVERCALL, "C6 C6"), held=TWO_DECKS)
    why = check_bid(ANHUI, state, bid(0, BidKind.OVERCALL, "H6 H6"), held=hand)
    assert why is not None and "亮过主的牌不能再次亮主" in why


# --- lock (上保险) --------------------------------------------------------------------------


def test_r_bid_lock_text_example_hearts_locked_only_spades_or_jokers_overcall() -> None:
    # 玩家报红杏主后，再次摸到红杏上保险，此时其他玩家只能再反黑桃或常主。
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "H6"), bid(0, BidKind.LOCK, "H6"))
    assert state.standing is not None and state.standing.locked
    for tokens in ("D6 D6", "C6 C6"):
        why = reason(CLASSIC, state, bid(1, BidKind.OVERCALL, tokens))
        assert why is not None and "not higher than the standing" in why
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "S6 S6")) is None
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "LJ LJ", trump_choice="NT")) is None
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "BJ BJ", trump_choice="H")) is None


def test_r_bid_lock_only_by_the_declarer_with_the_same_card() -> None:
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "H6"))
    assert reason(CLASSIC, state, bid(2, BidKind.LOCK, "H6")) is not None
    assert reason(CLASSIC, state, bid(0, BidKind.LOCK, "S6")) is not None
    assert reason(CLASSIC, state, bid(0, BidKind.LOCK, "H6")) is None


def test_r_bid_lock_needs_the_second_copy() -> None:
    state = apply_bid(CLASSIC, first(), bid(0, BidKind.DECLARE, "H6"), held=parse_cards("H6"))
    why = check_bid(CLASSIC, state, bid(0, BidKind.LOCK, "H6"), held=parse_cards("H6"))
    assert why is not None and "shown in an earlier bid" in why


@pytest.mark.parametrize("ruleset", [ANHUI, CHANGSHU], ids=lambda r: r.id)
def test_r_bid_no_lock_outside_classic(ruleset: Ruleset) -> None:
    state = run(ruleset, first(), bid(0, BidKind.DECLARE, "H6"))
    why = reason(ruleset, state, bid(0, BidKind.LOCK, "H6"))
    assert why == f"{ruleset.id} has no lock (上保险)"


# --- overcall (反主) ------------------------------------------------------------------------


@pytest.mark.parametrize("pair", ["D6 D6", "C6 C6", "H6 H6", "S6 S6"])
def test_r_bid_any_pair_beats_an_unlocked_single(pair: str) -> None:
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "S6"))
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, pair)) is None


CLASSIC_LADDER = ["D6 D6", "C6 C6", "H6 H6", "S6 S6", "LJ LJ", "BJ BJ"]


def _overcall(seat: int, tokens: str) -> Bid:
    # Joker pairs name the trump where the rules let the bidder choose; NT fits every ruleset.
    return bid(seat, BidKind.OVERCALL, tokens, trump_choice="NT" if "J" in tokens else None)


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG], ids=lambda r: r.id)
@pytest.mark.parametrize(("low", "high"), list(itertools.combinations(CLASSIC_LADDER, 2)))
def test_r_bid_ladder_bj_lj_spades_hearts_clubs_diamonds(
    ruleset: Ruleset, low: str, high: str
) -> None:
    # 反主顺序须按照大王>小王>黑桃>红杏>梅花>方片的次序进行
    declared = run(ruleset, first(), bid(0, BidKind.DECLARE, "D6"))
    assert reason(ruleset, run(ruleset, declared, _overcall(1, low)), _overcall(2, high)) is None
    assert (
        reason(ruleset, run(ruleset, declared, _overcall(1, high)), _overcall(2, low)) is not None
    )


def test_r_bid_declarer_overcalls_only_after_someone_else() -> None:
    # 报主玩家也可参与反主，但必须在有其他玩家先进行反主的前提下。
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "D6"))
    why = reason(CLASSIC, state, bid(0, BidKind.OVERCALL, "S6 S6"))
    assert why is not None and "holds the standing bid" in why
    state = run(CLASSIC, state, bid(1, BidKind.OVERCALL, "C6 C6"))
    assert reason(CLASSIC, state, bid(0, BidKind.OVERCALL, "S6 S6")) is None


def test_r_bid_first_hand_overcaller_becomes_dealer() -> None:
    # 反主反打: 反主玩家变成当前庄家
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "D6"), bid(1, BidKind.OVERCALL, "H6 H6"))
    assert (state.dealer, state.trump) == (1, HEARTS)


def test_r_bid_overcall_needs_a_standing_bid() -> None:
    assert reason(CLASSIC, first(), bid(1, BidKind.OVERCALL, "H6 H6")) is not None


def test_r_bid_overcalls_end_with_the_bury() -> None:
    state = buried_later(CLASSIC, bid(1, BidKind.DECLARE, "D6"))
    why = reason(CLASSIC, state, bid(2, BidKind.OVERCALL, "S6 S6"))
    assert why is not None and "after the bury only 炒底" in why


def test_r_bid_classic_big_joker_pair_names_trump_little_joker_pair_no_trump() -> None:
    # 对大王炒底后，可随意定主，也可以定无主，对小王炒底后就只能打无主。
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "D6"))
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "BJ BJ")) is not None
    after = run(CLASSIC, state, bid(1, BidKind.OVERCALL, "BJ BJ", trump_choice="C"))
    assert (after.trump, after.trump_label) == (CLUBS, "♣")
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "LJ LJ", trump_choice="S")) is not None
    after = run(CLASSIC, state, bid(1, BidKind.OVERCALL, "LJ LJ"))
    assert (after.trump, after.trump_known, after.trump_label) == (None, True, "no-trump")


def test_r_bid_level_card_bid_cannot_name_another_suit() -> None:
    state = run(CLASSIC, first(), bid(0, BidKind.DECLARE, "D6"))
    assert reason(CLASSIC, state, bid(1, BidKind.OVERCALL, "S6 S6", trump_choice="H")) is not None


def test_r_bid_anhui_joker_pairs_do_not_overcall() -> None:
    # 只能使用级牌来反主; 对大鬼和对小鬼不能直接亮主，只能炒底亮无主
    state = run(ANHUI, first(), bid(0, BidKind.DECLARE, "D6"))
    why = reason(ANHUI, state, bid(1, BidKind.OVERCALL, "BJ BJ"))
    assert why is not None and "is not a overcall in anhui" in why
    assert reason(ANHUI, first(), bid(1, BidKind.DECLARE, "LJ")) is not None


def test_r_bid_anhui_first_hand_overcaller_becomes_dealer() -> None:
    state = run(ANHUI, first(), bid(0, BidKind.DECLARE, "D6"), bid(3, BidKind.OVERCALL, "S6 S6"))
    assert (state.dealer, state.trump) == (3, SPADES)


@pytest.mark.parametrize(
    ("declarer", "dealer"),
    [(0, 0), (2, 2), (1, 2), (3, 0)],
)
def test_r_bid_anhui_later_hand_seat_by_declaration(declarer: int, dealer: int) -> None:
    # 自放自打，上放下打: the holding team (0, 2) deals from whoever declared
    state = start_bidding(SIX, first_hand=False, holding_team=0)
    state = run(ANHUI, state, bid(declarer, BidKind.DECLARE, "H6"))
    assert state.dealer == dealer


def test_r_bid_anhui_partner_overcall_moves_the_deal_to_the_partner() -> None:
    # 在拿底牌前，庄家伙伴反主，则庄家伙伴为庄
    state = start_bidding(SIX, first_hand=False, holding_team=0)
    state = run(ANHUI, state, bid(0, BidKind.DECLARE, "H6"), bid(2, BidKind.OVERCALL, "S6 S6"))
    assert state.dealer == 2


CHANGSHU_LADDER = [
    "S6",
    "D6 D6",
    "C6 C6",
    "H6 H6",
    "S6 S6",
    "D6 D6 D6",
    "C6 C6 C6",
    "H6 H6 H6",
    "S6 S6 S6",
    "LJ LJ LJ",
    "BJ BJ BJ",
]


@pytest.mark.parametrize(("low", "high"), list(itertools.pairwise(CHANGSHU_LADDER)))
def test_r_bid_changshu_ladder_text_example(low: str, high: str) -> None:
    # 單張 6 < 對方塊 6 < 對梅花 6 < 對紅桃 6 < 對黑桃 6 < 三張方塊 6 < … < 三張小王 < 三張大王
    low_kind = BidKind.DECLARE
    state = run(CHANGSHU, first(), bid(0, low_kind, low))
    assert reason(CHANGSHU, state, bid(1, BidKind.OVERCALL, high)) is None
    state = run(CHANGSHU, first(), bid(0, BidKind.DECLARE, high))
    assert reason(CHANGSHU, state, bid(1, BidKind.OVERCALL, low)) is not None


def test_r_bid_changshu_bid_winner_deals_and_every_overcall_adds_stake() -> None:
    # 反主加分: 反一次+1反兩次+2
    state = run(
        CHANGSHU,
        first(),
        bid(0, BidKind.DECLARE, "D6"),
        bid(1, BidKind.OVERCALL, "C6 C6"),
        bid(1, BidKind.OVERCALL, "S6 S6 S6"),
    )
    assert (state.dealer, state.trump, state.stake) == (1, SPADES, 2)


def test_r_bid_changshu_shown_pair_cannot_grow_into_a_triple() -> None:
    # 亮过主的牌不能再次亮主: the two ♣6 shown stay used, so the third cannot make a triple.
    state = run(CHANGSHU, first(), bid(0, BidKind.DECLARE, "D6"), bid(1, BidKind.OVERCALL, "C6 C6"))
    why = reason(CHANGSHU, state, bid(1, BidKind.OVERCALL, "C6 C6 C6"))
    assert why is not None and "亮过主的牌不能再次亮主" in why


def test_r_bid_changshu_three_jokers_make_no_trump() -> None:
    state = run(
        CHANGSHU, first(), bid(0, BidKind.DECLARE, "D6"), bid(2, BidKind.OVERCALL, "BJ BJ BJ")
    )
    assert (state.trump, state.trump_known) == (None, True)
    assert reason(CHANGSHU, first(), bid(0, BidKind.DECLARE, "BJ")) is not None


# --- 炒底 / 抄底 ------------------------------------------------------------------------------


def test_r_bid_classic_chao_di_text_example_after_hearts_only_spades_or_jokers() -> None:
    # 当一个玩家进行红杏炒了以后，其他玩家就只能用黑桃和王炒，而不能再用梅花和方片炒。
    state = buried_later(CLASSIC, bid(1, BidKind.DECLARE, "D6"))
    state = run(CLASSIC, state, bid(2, BidKind.CHAO_DI, "H6 H6"))
    assert (state.trump, state.kitty_holder, state.dealer) == (HEARTS, 2, 0)
    for tokens in ("C6 C6", "D6 D6"):
        assert reason(CLASSIC, state, bid(3, BidKind.CHAO_DI, tokens)) is not None
    assert reason(CLASSIC, state, bid(3, BidKind.CHAO_DI, "S6 S6")) is None
    assert reason(CLASSIC, state, bid(3, BidKind.CHAO_DI, "BJ BJ", trump_choice="NT")) is None
    # 庄家可以再炒 (回头望)
    assert reason(CLASSIC, state, bid(0, BidKind.CHAO_DI, "S6 S6")) is None


def test_r_bid_classic_no_chao_di_in_the_first_hand() -> None:
    # 第一局当庄家盖底牌后，不可再进行反主
    state = bury(end_drawing(run(CLASSIC, first(), bid(0, BidKind.DECLARE, "D6"))))
    why = reason(CLASSIC, state, bid(1, BidKind.CHAO_DI, "S6 S6"))
    assert why == "classic has no 炒底 in the first hand (除游戏第一局外)"


def test_r_bid_chao_di_only_after_the_bury() -> None:
    state = run(
        CLASSIC, start_bidding(SIX, first_hand=False, dealer=0), bid(1, BidKind.DECLARE, "D6")
    )
    assert reason(CLASSIC, state, bid(2, BidKind.CHAO_DI, "S6 S6")) is not None


def test_r_bid_anhui_chao_di_text_example_diamonds_then_big_jokers() -> None:
    # 目前打黑桃6，在庄家扣完底牌后，某玩家有一对方块6，即可炒底牌扣底并且方块为主牌。
    # 如果这时又有一玩家亮出2张大王。则该玩家再次炒底牌扣底，此时为无主。
    state = start_bidding(SIX, first_hand=False, holding_team=0)
    state = bury(end_drawing(run(ANHUI, state, bid(0, BidKind.DECLARE, "S6"))))
    state = run(ANHUI, state, bid(1, BidKind.CHAO_DI, "D6 D6"))
    assert (state.trump, state.kitty_holder) == (DIAMONDS, 1)
    state = run(ANHUI, state, bid(3, BidKind.CHAO_DI, "BJ BJ"))
    assert (state.trump, state.trump_known, state.kitty_holder, state.dealer) == (None, True, 3, 0)


def test_r_bid_anhui_chao_di_any_trump_pair_higher_or_not() -> None:
    state = buried_later(ANHUI, bid(1, BidKind.DECLARE, "D6"))
    state = run(ANHUI, state, bid(2, BidKind.CHAO_DI, "S6 S6"))
    assert reason(ANHUI, state, bid(3, BidKind.CHAO_DI, "D6 D6")) is None
    assert reason(ANHUI, state, bid(3, BidKind.CHAO_DI, "D6")) is not None


def test_r_bid_changshu_chao_di_text_example() -> None:
    # 目前打草花 6，在莊家扣完底牌後，某玩家亮出一對梅花 6，即可抄底牌扣底並且梅花為主牌。
    state = buried_later(CHANGSHU, bid(0, BidKind.DECLARE, "C6"))
    state = run(CHANGSHU, state, bid(1, BidKind.CHAO_DI, "C6 C6"))
    assert (state.trump, state.kitty_holder, state.dealer, state.stake) == (CLUBS, 1, 0, 1)


def test_r_bid_changshu_chao_di_needs_two_level_cards_and_a_higher_bid() -> None:
    # 至少要兩張級牌才能抄底; 亮出比當前級別高的牌
    state = buried_later(CHANGSHU, bid(0, BidKind.DECLARE, "C6"))
    assert reason(CHANGSHU, state, bid(1, BidKind.CHAO_DI, "S6")) is not None
    state = run(CHANGSHU, state, bid(1, BidKind.CHAO_DI, "H6 H6"))
    assert reason(CHANGSHU, state, bid(2, BidKind.CHAO_DI, "C6 C6")) is not None
    assert reason(CHANGSHU, state, bid(2, BidKind.CHAO_DI, "LJ LJ LJ")) is None


# --- the machine ---------------------------------------------------------------------------


def test_r_bid_apply_never_mutates_and_raises_the_reason() -> None:
    before = first()
    after = run(CLASSIC, before, bid(0, BidKind.DECLARE, "D6"))
    assert before == first() and after != before
    with pytest.raises(BidError, match="already declared"):
        run(CLASSIC, after, bid(1, BidKind.DECLARE, "S6"))


def test_r_bid_start_needs_a_consistent_dealer() -> None:
    with pytest.raises(ValueError):
        start_bidding(SIX, first_hand=True, dealer=0)
    with pytest.raises(ValueError):
        start_bidding(SIX, first_hand=False)
    assert start_bidding(SIX, first_hand=False, dealer=3).holding_team == 1


def test_r_bid_bury_without_a_declaration_needs_the_fallback() -> None:
    with pytest.raises(ValueError, match="fallback"):
        bury(end_drawing(first()))


# --- nobody declares ------------------------------------------------------------------------


KITTY = parse_cards("S2 H3 C9 D4 SK HQ C8 D7")


def test_r_bid_classic_later_hand_third_kitty_card_sets_trump() -> None:
    # 从底牌中抽取正数第三张牌的花色作为该局的主花色
    result = fallback_trump(CLASSIC, KITTY, SIX, first_hand=False)
    assert isinstance(result, FallbackResult)
    assert (result.trump, result.index) == (CLUBS, 2)


def test_r_bid_classic_third_kitty_card_joker_is_no_trump() -> None:
    # 若第三张为常主则该局游戏为无主
    kitty = parse_cards("S2 H3 BJ D4 SK HQ C8 D7")
    result = fallback_trump(CLASSIC, kitty, SIX, first_hand=False)
    assert isinstance(result, FallbackResult) and result.trump is None


@pytest.mark.parametrize("ruleset", [CLASSIC, SHUANGSHENG], ids=lambda r: r.id)
def test_r_bid_first_hand_without_declaration_is_unsupported(ruleset: Ruleset) -> None:
    result = fallback_trump(ruleset, KITTY, SIX, first_hand=True)
    assert isinstance(result, Unsupported) and "silent" in result.reason


def flipped(ruleset: Ruleset, kitty: list[int], seats: list[int]) -> BiddingState:
    state = end_drawing(first())
    for seat, card in zip(seats, kitty, strict=False):
        state = apply_bid(ruleset, state, Bid(seat, BidKind.KITTY_FLIP, (card,)), held=())
    return state


def test_r_bid_anhui_flip_stops_at_the_first_level_card_and_its_flipper_deals() -> None:
    # 如果底牌有级牌则以该级牌的花色为主牌 … 翻到级牌 … 的一方为庄家
    kitty = parse_cards("S2 H3 C6 D4 SK HQ C8 D7")
    state = flipped(ANHUI, kitty, [1, 2, 3])
    why = reason(ANHUI, state, Bid(0, BidKind.KITTY_FLIP, (kitty[3],)))
    assert why is not None and "already set trump" in why
    result = fallback_trump(ANHUI, kitty, SIX, first_hand=True, flips=state.flips)
    assert isinstance(result, FallbackResult)
    assert (result.trump, result.decider) == (CLUBS, 3)
    assert bury(state, fallback=result).dealer == 3


def test_r_bid_anhui_flip_without_level_card_takes_the_first_highest_side_card() -> None:
    # 如无级牌则最大的一张副牌的花色为主牌花色; 最先拿到最大副牌的一方为庄家
    kitty = parse_cards("S2 HK C9 BJ SK HQ C8 D7")
    state = flipped(ANHUI, kitty, [2, 3, 0, 1, 2, 3, 0, 1])
    result = fallback_trump(ANHUI, kitty, SIX, first_hand=True, flips=state.flips)
    assert isinstance(result, FallbackResult)
    assert (result.trump, result.index, result.decider) == (HEARTS, 1, 3)


def test_r_bid_anhui_later_hand_flip_deals_by_declaration() -> None:
    # 闲家翻到最大则"上放下打"，闲家下家的为庄家
    kitty = parse_cards("S6 H3 C9 D4 SK HQ C8 D7")
    state = end_drawing(start_bidding(SIX, first_hand=False, holding_team=0))
    state = apply_bid(ANHUI, state, Bid(1, BidKind.KITTY_FLIP, (kitty[0],)), held=())
    result = fallback_trump(ANHUI, kitty, SIX, first_hand=False, flips=state.flips)
    assert isinstance(result, FallbackResult)
    assert bury(state, fallback=result).dealer == 2


def test_r_bid_flips_go_in_seat_order() -> None:
    state = flipped(ANHUI, KITTY, [1])
    assert reason(ANHUI, state, Bid(3, BidKind.KITTY_FLIP, (KITTY[1],))) is not None
    assert (
        reason(CLASSIC, end_drawing(first()), Bid(0, BidKind.KITTY_FLIP, (KITTY[0],))) is not None
    )


def test_r_bid_flips_must_match_the_kitty() -> None:
    with pytest.raises(ValueError, match="flip 1"):
        fallback_trump(ANHUI, KITTY, SIX, first_hand=True, flips=[(0, parse_card("BJ"))])


@pytest.mark.parametrize(
    ("tokens", "trump"),
    [
        ("S2 H3 C4 D6 S6 LJ", DIAMONDS),  # 第一張級牌為主
        ("S2 HK C4 DK LJ BJ", HEARTS),  # 點數最大的那張牌的花色, the first of equals
        ("S2 H3 C4 DA BJ BJ", DIAMONDS),  # 大小王不算
    ],
)
def test_r_bid_changshu_kitty_first_level_card_else_highest(tokens: str, trump: int) -> None:
    result = fallback_trump(CHANGSHU, parse_cards(tokens), SIX, first_hand=True)
    assert isinstance(result, FallbackResult) and result.trump == trump


def test_r_bid_phase_progression() -> None:
    state = first()
    assert state.phase is Phase.DRAWING
    state = end_drawing(run(CLASSIC, state, bid(0, BidKind.DECLARE, "D6")))
    assert state.phase is Phase.DRAWN
    state = bury(state)
    assert (state.phase, state.kitty_holder) == (Phase.BURIED, 0)


# --- a first hand whose teams stand at different levels ---------------------------------------

UNEQUAL_HELD = parse_cards("S2 H2 C2 D2 S5 H5 C5 D5 LJ BJ") * 2


@pytest.mark.parametrize("swapped", [False, True])
def test_r_bid_first_hand_each_team_bids_with_its_own_level(swapped: bool) -> None:
    # Team A on 2 and team B on 5; with the teams swapped every seat moves on by one.
    levels = ("5", "2") if swapped else ("2", "5")
    a, b = (1, 0) if swapped else (0, 1)  # a seat of team A (on 2) and one of team B (on 5)

    def play(state: BiddingState, seat: int, kind: BidKind, cards: str) -> BiddingState:
        return apply_bid(CLASSIC, state, bid(seat, kind, cards), held=UNEQUAL_HELD)

    state = start_bidding(team_levels=levels, first_hand=True)
    assert state.level is None
    assert "team" in str(
        check_bid(CLASSIC, state, bid(b, BidKind.DECLARE, "S2"), held=UNEQUAL_HELD)
    )
    state = play(state, b, BidKind.DECLARE, "C5")
    assert (state.dealer, state.level) == (b, rank_index("5"))
    state = play(state, a, BidKind.OVERCALL, "H2 H2")
    assert (state.dealer, state.level, state.trump) == (a, rank_index("2"), HEARTS)
    state = bury(end_drawing(state))
    # After the bury the level played is the dealer team's for everybody.
    assert state.level_for(b) == state.level_for(a) == rank_index("2")


def test_r_bid_first_hand_equal_team_levels_are_one_level() -> None:
    state = start_bidding(team_levels=("6", "6"), first_hand=True)
    assert (state.level, state.team_levels) == (SIX, None)
    with pytest.raises(ValueError, match="first hand"):
        start_bidding(team_levels=("2", "5"), first_hand=False, dealer=0)
    with pytest.raises(ValueError, match="not both"):
        start_bidding("2", team_levels=("2", "5"), first_hand=True)


@pytest.mark.parametrize("ruleset", [ANHUI, CHANGSHU], ids=lambda r: r.id)
def test_r_bid_first_hand_of_unequal_levels_kitty_fallback_is_unsupported(
    ruleset: Ruleset,
) -> None:
    # Nobody declared: the kitty is searched for a level card, but whose is not settled.
    kitty = parse_cards("S2 S5 HA D4 D9 C7")
    kitty += parse_cards("C8 C9")[: ruleset.kitty_size - len(kitty)]
    result = fallback_trump(ruleset, kitty, None, True)
    assert isinstance(result, Unsupported)
    assert "different levels" in result.reason


def test_r_bid_the_bury_changes_the_phase_dealer_and_trump_and_keeps_the_rest() -> None:
    # Every field set apart from its default: the bury keeps what it does not decide.
    state = BiddingState(
        level=None,
        first_hand=True,
        holding_team=1,
        dealer=None,
        dealer_by_bidding=True,
        phase=Phase.DRAWN,
        standing=None,
        first_declarer=2,
        trump=None,
        trump_known=False,
        shown=((2, parse_card("C6")),),
        stake=3,
        kitty_holder=None,
        flips=((1, parse_card("SA")),),
        draw_unchecked=4,
        bids=(Bid.parse(2, "declare", "C6"),),
        team_levels=(4, 7),
    )
    buried = bury(state, fallback=FallbackResult(trump=1, index=None, decider=2, reason="flip"))
    expected = dataclasses.replace(
        state, phase=Phase.BURIED, trump=1, trump_known=True, dealer=3, level=7, kitty_holder=3
    )
    assert buried == expected
