"""The endgame solver against plain minimax, and the analysis of a hand's end (R-WIN, R-KITTY).

The reference below searches every legal play with no pruning, no transposition table and
no merging: every legal follow is found by trying every multiset of the follower's whole
hand against the engine's follow check, and the hand is scored by ``engine.score_hand``.
Leads are the solver's own lead set (every unit, and each suit's standing throw:
docs/analysis.md says why no other lead is searched).
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chaodipi.auditor.analysis import WINDOWS, KittyNote, analyse_game
from chaodipi.auditor.audit import audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.auditor.reading import read_game
from chaodipi.auditor.wire import SUITS_BY_PROTO
from chaodipi.engine import POINTS, Hand, Table, get_ruleset, parse_cards, score_hand
from chaodipi.engine.cards import KINDS
from chaodipi.engine.follow import check_follow
from chaodipi.engine.solver import (
    BudgetExceeded,
    Endgame,
    Play,
    Position,
    Solver,
    equivalent_cards,
    lead_options,
    legal_follows,
    loose_packed,
)
from chaodipi.engine.trick import trick_winner
from chaodipi.engine.units import Unit

RULESETS = ("classic", "shuangsheng", "anhui", "changshu")
LEAVES = 60_000
"""Leaves the reference may visit in one example; a larger game tree is not drawn."""


class _TooBig(Exception):
    pass


def _window(ruleset: str, seed: int, k: int) -> tuple[Endgame, Position, int]:
    """A generated hand's last ``k`` tricks: the game, the position, the points before."""
    record = generate_hand(ruleset, seed=seed)
    read = read_game(record)
    assert not isinstance(read, list)
    report = audit_game(record, steps=True)
    start = len(record.tricks) - k
    steps = report.steps
    first = next(i for i, s in enumerate(steps) if s.HasField("trick") and s.trick >= start)
    state = steps[first - 1]
    computed = report.computed
    table = Table(read.ruleset, computed.trump.level, SUITS_BY_PROTO[computed.trump.suit])
    game = Endgame(table, computed.dealer, tuple(parse_cards(list(state.kitty))))
    hands = [parse_cards(list(h.cards)) for h in state.hands]
    return game, Position.start(hands, record.tricks[start].leader), state.defenders_points_so_far


def _every_follow(
    game: Endgame, counts: bytes, lead: Sequence[Unit], size: int
) -> set[tuple[int, ...]]:
    cards = [k for k, c in enumerate(counts) for _ in range(c)]
    hand = Hand(cards)
    return {
        play
        for play in set(combinations(cards, size))  # sorted, as ``cards`` is
        if check_follow(game.table.context, lead, hand, play) is None
    }


def _minimax(game: Endgame, position: Position, points: int, leaves: list[int]) -> int:
    """The defenders' final score over every legal play (no pruning), by ``score_hand``."""
    table = game.table
    seat = position.seat
    if len(position.plays) == 4:
        offset = trick_winner(table.context, position.lead, position.plays[1:])
        won = (position.leader + offset) % 4
        cards = [k for play in position.plays for k in play]
        taken = sum(POINTS[k] for k in cards) if game.defends(won) else 0
        if any(position.hands[0]):
            return _minimax(game, Position(position.hands, won), points + taken, leaves)
        leaves[0] += 1
        if leaves[0] > LEAVES:
            raise _TooBig
        return score_hand(
            table.ruleset,
            trick_points=points + taken,
            defenders_won_last_trick=game.defends(won),
            kitty_cards=game.kitty,
            last_lead_units=position.lead,
            last_trick_cards=cards,
        ).total
    if position.plays:
        size = len(position.plays[0])
        plays = [
            Play(seat, cards)
            for cards in _every_follow(game, position.hands[seat], position.lead, size)
        ]
    else:
        plays = lead_options(table, position.hands, seat)
    values = [_minimax(game, position.play(play), points, leaves) for play in plays]
    return max(values) if game.defends(seat) else min(values)


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_r_win_r_kitty_the_solver_equals_plain_minimax(ruleset: str, seed: int, k: int) -> None:
    game, position, points = _window(ruleset, seed, k)
    try:
        expected = _minimax(game, position, points, [0])
    except _TooBig:
        assume(False)
    solver = Solver(game, budget=10**7)
    assert points + solver.value(position) == expected
    # The same value again, from the table the first search filled.
    assert points + solver.value(position) == expected


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_r_win_hands_with_their_loose_cards_packed_have_the_same_value(
    ruleset: str, seed: int, k: int
) -> None:
    # The solver shares bounds between hands alike: sound only if the packed game's plain
    # minimax equals the hand's own.
    game, position, points = _window(ruleset, seed, k)
    packed = loose_packed(game.table, position.hands)
    assert [sum(hand) for hand in packed] == [sum(hand) for hand in position.hands]
    try:
        expected = _minimax(game, position, points, [0])
        assert _minimax(game, Position(packed, position.leader), points, [0]) == expected
    except _TooBig:
        assume(False)


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3), guess=st.integers(0, 40))
def test_r_win_best_play_is_the_first_play_whose_own_value_is_the_best(
    ruleset: str, seed: int, k: int, guess: int
) -> None:
    # best_play decides each play by one probe against the position's value; here each
    # play's value comes from a fresh solver, and any first guess gives the same values.
    game, start, _ = _window(ruleset, seed, k)
    solver = Solver(game, budget=10**7)
    lead = solver.plays(start)[0]
    for position in (start, start.play(lead)):  # a trick's start, and within a trick
        target = solver.value(position)
        assert Solver(game, budget=10**7).value(position, guess * 5) == target
        values = []
        for play in solver.plays(position):
            child, gained = solver.after(position, play)
            values.append(gained + Solver(game, budget=10**7).value(child))
        best = max(values) if game.defends(position.seat) else min(values)
        assert best == target
        play, child, gained = solver.best_play(position, target)
        assert play == solver.plays(position)[values.index(target)]
        assert (child, gained) == solver.after(position, play)


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_r_win_a_searched_plays_value_bounds_its_positions_value(
    ruleset: str, seed: int, k: int
) -> None:
    # The analysis gives value() the bound a recorded play proves: it must hold for every
    # searched play, and the value found within it must be the value found without.
    game, start, _ = _window(ruleset, seed, k)
    solver = Solver(game, budget=10**7)
    lead = solver.plays(start)[0]
    for position in (start, start.play(lead)):  # a trick's start, and within a trick
        target = Solver(game, budget=10**7).value(position)
        for play in solver.plays(position):
            child, gained = solver.after(position, play)
            played = gained + solver.value(child)
            known = solver.bounds_after(position, play, played)
            assert known is not None and played in known
            assert known[0] <= target <= known[1]
            assert Solver(game, budget=10**7).value(position, played, known) == target


def test_r_throw_check_a_throw_smaller_than_the_standing_one_bounds_nothing() -> None:
    # Seat 0 (the dealer) holds the three highest spades: the throw searched is all three,
    # not ♠A ♠K, so ♠A ♠K's value says nothing of the position's.
    game = _game("H", "")
    position = _start(["SA SK SQ", "S3 S4 S5", "S6 S7 S8", "S9 ST SJ"], leader=0)
    solver = Solver(game, budget=10_000)
    table = game.table
    whole, part = (
        Play(0, tuple(cards), table.lead(tuple(cards)).units)
        for cards in (parse_cards("SA SK SQ"), parse_cards("SA SK"))
    )
    assert len(part.units) == 2
    assert solver.bounds_after(position, whole, 25) == (0, 25)
    assert solver.bounds_after(position, part, 25) is None


@pytest.mark.parametrize("ruleset", [*RULESETS, "botzone"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3))
def test_r_follow_legal_follows_are_every_legal_follow(ruleset: str, seed: int, k: int) -> None:
    game, position, _ = _window(ruleset, seed, k)
    lead = lead_options(game.table, position.hands, position.seat)[0]
    after = position.play(lead)
    for seat in (1, 2, 3):
        seat = (position.leader + seat) % 4
        generated = legal_follows(game.table, after.hands[seat], lead.units, len(lead.cards))
        assert len(generated) == len({tuple(sorted(play)) for play in generated})
        assert {tuple(sorted(play)) for play in generated} == _every_follow(
            game, after.hands[seat], lead.units, len(lead.cards)
        )


def test_r_follow_suit_botzone_same_type_follow_not_suit_checked_among_legal_follows() -> None:
    # ♠3 ♠5 and no ♠ pair: ♣7 ♣7 and ♥4 ♥4 (trump) answer ♠9 ♠9 as freely as ♠3 ♠5.
    game = _game("H", "", ruleset="botzone")
    counts = [0] * KINDS
    for k in parse_cards("S3 S5 C7 C7 H4 H4 D4"):
        counts[k] += 1
    lead = game.table.lead("S9 S9").units
    generated = legal_follows(game.table, bytes(counts), lead, 2)
    assert {tuple(sorted(play)) for play in generated} == _every_follow(
        game, bytes(counts), lead, 2
    )
    assert tuple(parse_cards("C7 C7")) in generated


def _game(trump: str, kitty: str, dealer: int = 0, ruleset: str = "classic") -> Endgame:
    return Endgame(Table(get_ruleset(ruleset), "2", trump), dealer, tuple(parse_cards(kitty)))


def _start(hands: Sequence[str], leader: int) -> Position:
    return Position.start([parse_cards(h) for h in hands], leader)


def test_r_kitty_a_pair_led_last_by_a_defender_takes_the_kitty_four_times() -> None:
    game = _game("H", "SK D5")  # 15 points in the kitty
    position = _start(["S3 S3", "SA SA", "S4 S6", "S7 S8"], leader=1)
    assert Solver(game, 1000).value(position) == 15 * 4


def test_r_kitty_changshu_counts_the_last_tricks_points_twice() -> None:
    game = _game("H", "SK", ruleset="changshu")  # 10 points, ×2 whatever the shape
    position = _start(["S3", "SQ", "S4", "S5"], leader=1)
    assert Solver(game, 1000).value(position) == 5 * 2 + 10 * 2


def test_r_win_a_trump_pair_beats_a_led_pair_but_two_trump_singles_do_not() -> None:
    game = _game("H", "")
    # Seat 1 (a defender) is void in spades: its trump pair takes ♠K ♠K, two trumps cannot.
    pair = _start(["SK SK", "H3 H3", "S4 S6", "S7 S8"], leader=0)
    singles = _start(["SK SK", "H3 H4", "S4 S6", "S7 S8"], leader=0)
    assert Solver(game, 1000).value(pair) == 20
    assert Solver(game, 1000).value(singles) == 0


def test_r_win_the_first_of_equal_cards_wins() -> None:
    # Other-suit level cards are equal trumps: the first played keeps the trick.
    game = _game("H", "")
    position = _start(["S2", "C2", "D5", "DK"], leader=0)
    assert Solver(game, 1000).value(position) == 0


def test_equivalent_cards_merge_only_what_no_card_in_play_tells_apart() -> None:
    game = _game("H", "")
    hands = _start(["S3 S4 S6 SK", "S5 SA", "D3", "D4"], leader=0).hands
    classes = equivalent_cards(game.table, hands, 0, [])
    # ♠3 ♠4 are adjacent and pointless; ♠5 (held by seat 1) separates ♠6; ♠K has points.
    assert classes[parse_cards("S3")[0]] == tuple(parse_cards("S3 S4"))
    assert parse_cards("S6")[0] not in classes and parse_cards("SK")[0] not in classes


def test_r_win_a_suit_one_seat_holds_merges_its_cards_of_equal_points() -> None:
    game = _game("H", "SK D5")
    position = _start(["S3 S5 S7", "D3 D4 D6", "C3 C4 C6", "D9 DT DJ"], leader=1)
    solver = Solver(game, budget=10_000)
    assert solver.value(position) == _minimax(game, position, 0, [0])
    # Nobody else holds a spade: ♠3 and ♠7 are one class in the search, ♠5 (points) between
    # them; the classes a report draws its plays from keep them apart.
    s3, s7 = parse_cards("S3 S7")
    assert solver.table[(position.hands, 1)].classes[0][s3] == (s3, s7)
    assert s3 not in equivalent_cards(game.table, position.hands, 0, [])


def test_r_win_a_suit_of_one_kind_is_searched_as_any_other() -> None:
    # A ruleset's own order may take every spade but ♠A into the trumps: spades is then a
    # suit of one kind, for the throw table and the classes alike.
    classic = get_ruleset("classic")
    always = tuple(f"card:S{rank}" for rank in "3456789TJQK")
    order = replace(classic.order, trump_tiers=(*always, *classic.order.trump_tiers))
    game = Endgame(Table(replace(classic, order=order), "2", "H"), 0, ())
    ctx = game.table.context
    assert ctx.kinds[ctx.suit[parse_cards("SA")[0]]] == tuple(parse_cards("SA"))
    position = _start(["SA SA D3", "DA D4 D5", "D6 D7 D8", "D9 DT DJ"], leader=0)
    assert Solver(game, budget=10_000).value(position) == _minimax(game, position, 0, [0])


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), suit=st.sampled_from("SHCD"), left=st.integers(0, 3))
def test_r_win_the_solver_equals_plain_minimax_under_an_order_of_the_records_own(
    ruleset: str, seed: int, suit: str, left: int
) -> None:
    # A record's own order may make any card trump: here all but ``left`` ranks of a suit.
    game, position, points = _window(ruleset, seed, 2)
    rules = game.table.ruleset
    always = tuple(f"card:{suit}{rank}" for rank in "23456789TJQKA"[: 13 - left])
    order = replace(rules.order, trump_tiers=(*always, *rules.order.trump_tiers))
    ctx = game.table.context
    table = Table(replace(rules, order=order), ctx.level, ctx.trump)
    game = Endgame(table, game.dealer, game.kitty)
    try:
        expected = _minimax(game, position, points, [0])
    except _TooBig:
        assume(False)
    assert points + Solver(game, budget=10**7).value(position) == expected


def test_the_solver_stops_at_its_budget_and_gives_no_value() -> None:
    game, position, _ = _window("classic", 5, 4)
    with pytest.raises(BudgetExceeded):
        Solver(game, budget=10).value(position)


def test_analysis_costs_are_zero_on_best_plays_and_add_up_to_the_difference() -> None:
    for seed in range(4):
        analysis = analyse_game(generate_hand("anhui", seed=seed), window=3)
        assert analysis.analysed, analysis.reason
        assert all(play.cost >= 0 for play in analysis.plays)
        for play in analysis.plays:
            assert (play.cost == 0) == (not play.best)
        assert len(analysis.plays) == sum(
            len(t.plays) for t in generate_hand("anhui", seed=seed).tricks[-3:]
        )


def test_r_kitty_a_defender_who_spends_the_top_trump_early_missed_the_kitty() -> None:
    # Classic, trump ♥, seat 1 the dealer. With four tricks left, defender seat 2 plays ♛BJ
    # on seat 1's ♥5 (40 points lost: ♥K kept the trick's points and the BJ the last
    # trick); seat 1's LJ then takes the last trick and the kitty. Perfect play from the
    # window's start follows the hand while its plays are best, so the note names that
    # play, though another line of the same value from the start takes no kitty.
    analysis = analyse_game(generate_hand("classic", seed=965274705), window=5)
    assert analysis.analysed, analysis.reason
    spent = next(play for play in analysis.plays if play.cards == ("BJ",))
    assert (spent.seat, spent.defender, spent.cost, spent.best) == (2, True, 40, ("HK",))
    assert analysis.plays[-1].cards == ("LJ",) and not analysis.plays[-1].defender
    assert analysis.kitty == KittyNote("missed", 19, 1, 2, ("BJ",))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r_kitty_a_note_names_a_costly_play_of_the_side_the_kitty_went_against(
    ruleset: str,
) -> None:
    noted = 0
    for seed in range(16):
        record = generate_hand(ruleset, seed=seed)
        analysis = analyse_game(record, window=4)
        assert analysis.analysed, analysis.reason
        note = analysis.kitty
        if note is None:
            continue
        noted += 1
        play = next(p for p in analysis.plays if (p.trick, p.play) == (note.trick, note.play))
        last = audit_game(record).computed.tricks[-1].winner
        took = last % 2 != analysis.dealer % 2
        assert play.cost > 0 and (play.seat, play.cards) == (note.seat, note.cards)
        assert (note.kind, play.defender) == (("gave_away", False) if took else ("missed", True))
    assert noted


def test_analysis_of_a_hand_over_budget_is_not_analysed() -> None:
    analysis = analyse_game(generate_hand("classic", seed=0), window=4, budget=50)
    assert not analysis.analysed and not analysis.plays
    # Why, as every reason says it: the surfaces say "not analysed" themselves.
    assert (analysis.why, analysis.reason) == (
        "budget",
        "the search visited more than 50 positions",
    )


def test_a_hand_stopped_after_its_first_solve_reports_no_value() -> None:
    # Most of the line's values are found within 4,000 positions here, the window's start
    # (valued last) is not: what the search found before the budget stopped it is not
    # reported as a result.
    hand = generate_hand("classic", seed=0)
    assert analyse_game(hand, window=4).nodes > 4_000
    analysis = analyse_game(hand, window=4, budget=4_000)
    assert not analysis.analysed and analysis.why == "budget"
    assert (analysis.perfect, analysis.actual, analysis.plays, analysis.kitty) == (0, 0, [], None)


@pytest.mark.parametrize("budget", [60_000, 5_000])
def test_the_garbage_collector_is_off_while_a_search_runs_and_as_it_was_after(
    budget: int,
) -> None:
    seen: list[bool] = []

    def stopped() -> bool:  # asked every 4,096 positions, from inside the search
        seen.append(gc.isenabled())
        return False

    hand = generate_hand("classic", seed=0)
    assert gc.isenabled()
    analysis = analyse_game(hand, window=5, budget=budget, stopped=stopped)
    assert analysis.analysed == (budget == 60_000)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        analyse_game(hand, window=5, budget=budget)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_analysis_of_a_hand_cut_short_or_never_played_is_not_analysed() -> None:
    cut = generate_hand("classic", seed=3)
    del cut.tricks[-1]  # the hands still hold the last trick's cards: not the hand's end
    analysis = analyse_game(cut, window=2)
    assert (analysis.analysed, analysis.why) == (False, "breach")
    unplayed = generate_hand("classic", seed=3)
    del unplayed.tricks[:]
    analysis = analyse_game(unplayed)
    assert (analysis.analysed, analysis.why) == (False, "unsupported")


def test_analysis_with_a_breach_in_the_window_is_not_analysed() -> None:
    hand = generate_hand("classic", seed=21)
    last = hand.tricks[-1].plays
    last[1].cards[0], last[2].cards[0] = last[2].cards[0], last[1].cards[0]
    analysis = analyse_game(hand, window=2)
    assert (analysis.analysed, analysis.why) == (False, "breach") and not analysis.plays


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_hand_is_analysed_over_its_rulesets_window_by_default(ruleset: str) -> None:
    hand = generate_hand(ruleset, seed=1)
    analysis = analyse_game(hand, budget=1)  # the window is settled before the search starts
    assert analysis.window == WINDOWS[ruleset]
    assert analysis.first_trick == len(hand.tricks) - WINDOWS[ruleset]


def test_a_ruleset_of_the_records_own_gets_the_smallest_window() -> None:
    hand = generate_hand("anhui", seed=1)
    hand.ruleset_overrides_json = '{"id": "anhui-house"}'
    assert analyse_game(hand, budget=1).window == min(WINDOWS.values()) < WINDOWS["anhui"]
