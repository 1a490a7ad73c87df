"""Mutators for fuzzing: the one definition shared by ``tests/fuzz`` and ``tests/fuzz/campaign.py``.

Every mutator is a plain function ``(target, rng)`` that damages its target in place with
nothing but ``random.Random`` (JSON mutators return the new document, which may be a new
root). Tables map stable names to mutators, so a case is a list of ``(name, seed)`` steps:
Hypothesis draws and shrinks such lists, the benchmark draws them from one seeded generator,
and either prints a failing case as a reproducer.

Sources are valid records made by ``auditor.generate`` for the four rulesets, the foreign
fixtures in ``tests/fixtures`` and the forms every importer reads (protobuf binary and JSON,
the notation, the 80-fen envelope and D1 row).
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import gzip
import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from google.protobuf.message import Message

from chaodipi.auditor.reading import MAX_HANDS
from chaodipi.engine.cards import KINDS, RANK_LETTERS, card_token
from chaodipi.engine.presets import PRESETS, get_ruleset
from chaodipi.engine.ruleset import Ruleset
from chaodipi.v1 import records_pb2
from tests.auditor.conftest import RULESETS, hand, match

T = TypeVar("T")
Steps = tuple[tuple[str, int], ...]
"""A case's damage: mutator names with the seed each runs on."""

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEEDS = 6
"""Generated records per ruleset (and first hand or not) that cases start from."""

TOKENS = [card_token(k) for k in range(KINDS)]
BAD_TOKENS = ["", "X9", "S1", "10S", "SAA", "ＳＡ", "S\u0301A", "🂡", "\x00", "BJBJ", "-", " SA"]
BIG = (-(2**31), -(2**31) + 1, -1000, -5, -1, 2**31 - 1, 10**6)
SEATS = (*BIG, 4, 5, 8, 99)
ENUMS = (*BIG, 6, 7, 99, 127, 128)
RANKS = ("", "2", "10", "A", "a", "1", "0", "Z", "22", "T ", "\u0662", "ⅷ")
WILD_TEXT = ("", " ", "\n", "#", '"', "\\", '[Game "x"]', "\u2028", "\x85", "é" * 300, "\t;|")
WILD_JSON: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2,
    3,
    4,
    14,
    15,
    53,
    54,
    99,
    100,
    107,
    108,
    2**31,
    -(2**31) - 1,
    2**63,
    10**40,
    0.5,
    -0.0,
    2.0,
    1e308,
    float("nan"),
    float("inf"),
    "",
    "x",
    "SA",
    "2",
    "0",
    "²",
    "\u0663",
    "-7",
    "9" * 40,
    "\x00",
    [],
    [0],
    [[]],
    {},
    {"": None},
    {"seq": 1, "type": "x"},
)


def _wild_json(rng: random.Random) -> Any:
    """One of ``WILD_JSON``, a copy: a document that holds it may be edited again (a list
    extended, a value put inside itself), and the next case must find ``WILD_JSON`` as it was."""
    return copy.deepcopy(rng.choice(WILD_JSON))


JSON_SNIPPETS = (
    "[" * 3000,
    '{"a":' * 2000,
    "1" * 5000,
    "-" + "9" * 4400,
    "NaN",
    "-Infinity",
    "1e999",
    '"\\ud800"',
    '"\\u0000"',
    "\ufeff",
    "\x00",
    "]",
    "}",
    ",",
    '"',
    "null",
    "[]",
    "{}",
)
TEXT_SNIPPETS = (
    '[Game "g"]',
    '[Match "m"]',
    "[EndMatch]",
    '[Levels "2" "Z"]',
    '[Dealer "99"]',
    '[Overrides "{\\"decks\\": 9}"]',
    "bid 0 99: S2",
    "bid 9 declare: S2 trump=77",
    "trick 1 @7: SA | -",
    "trick 99999999999 @0: SA",
    "claim points=99999999999",
    "claim result=77+3",
    "; split () ()",
    " => ",
    " | ",
    " @-5 ",
    "#",
    '"',
    "\\",
    "\r",
    "1" * 5000,
    "\u0663",
    "\x00",
    "\u2028",
    "\n\n",
    "hand 0: " + " ".join(TOKENS * 2),
)
HUGE = (5_000, 10_000)


# -- sources ------------------------------------------------------------------------------


def game_source(ruleset: str, seed: int, first_hand: bool) -> records_pb2.GameRecord:
    """A fresh copy of a generated, valid hand."""
    return hand(ruleset, seed % SEEDS, first_hand=first_hand)


def match_source(ruleset: str, seed: int) -> records_pb2.MatchRecord:
    """A fresh copy of a generated, valid match (up to five hands)."""
    return match(ruleset, seed % 3)


FOREIGN = {
    "eighty": (
        "deal-25-tricks.json",
        "deal-shapes.json",
        "deal-25-tricks.envelope.json",
        "bad-card.json",
    ),
    "botzone": ("full-deal.json", "full-deal.platform.json", "bad-card.json"),
    "godot": ("standard_log.compact.json",),
}
"""Fixtures per foreign format that cases start from."""


@cache
def _fixture_text(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


def foreign_source(fmt: str, fixture: int) -> Any:
    """A fresh parsed copy of a foreign fixture."""
    names = FOREIGN[fmt]
    return json.loads(_fixture_text(f"{fmt}/{names[fixture % len(names)]}"))


# -- records ------------------------------------------------------------------------------


def _card_lists(game: records_pb2.GameRecord) -> list[Any]:
    """Every repeated card-token field of a game, in record order."""
    lists: list[Any] = []
    if game.HasField("draw_order"):
        lists.append(game.draw_order.deck)
    if game.HasField("dealt_hands"):
        lists += [h.cards for h in game.dealt_hands.hands]
        lists.append(game.dealt_hands.kitty)
    lists += [bid.cards for bid in game.bids]
    for ex in game.kitty_exchanges:
        lists += [ex.picked_up, ex.buried]
    for trick in game.tricks:
        for play in trick.plays:
            lists += [play.cards, play.attempted]
        lists += [unit.cards for unit in trick.declared_split]
    return lists


def _message_lists(game: records_pb2.GameRecord) -> list[Any]:
    """Every repeated message field of a game (tricks, plays, bids, hands …)."""
    lists: list[Any] = [game.tricks, game.bids, game.kitty_exchanges, game.players]
    if game.HasField("dealt_hands"):
        lists.append(game.dealt_hands.hands)
    for trick in game.tricks:
        lists += [trick.plays, trick.declared_split]
    return [items for items in lists if items]


def _pick(rng: random.Random, items: Sequence[T]) -> T | None:
    return rng.choice(items) if items else None


def _token(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(BAD_TOKENS)
    token = rng.choice(TOKENS)
    return token.lower() if roll < 0.2 else token


def _seat(rng: random.Random) -> int:
    return rng.randrange(4) if rng.random() < 0.6 else rng.choice(SEATS)


def _wild_int(rng: random.Random) -> int:
    return rng.choice((*BIG, 0, 5, 10, 25, 80, 100, 200, 400, rng.randrange(-500, 500)))


def drop_card(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Delete one card from a play, a hand, the kitty, the deck, a bid or a bury."""
    cards = _pick(rng, [c for c in _card_lists(game) if c])
    if cards is not None:
        del cards[rng.randrange(len(cards))]


def duplicate_card(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Play, deal or bury a card twice."""
    cards = _pick(rng, [c for c in _card_lists(game) if c])
    if cards is not None:
        cards.insert(rng.randrange(len(cards) + 1), rng.choice(cards))


def swap_cards(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Swap two cards, within one list or between two (plays, hands, kitty, buries)."""
    lists = [c for c in _card_lists(game) if c]
    if lists:
        a, b = rng.choice(lists), rng.choice(lists)
        i, j = rng.randrange(len(a)), rng.randrange(len(b))
        a[i], b[j] = b[j], a[i]


def move_card(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Take a card from one list and put it into another (possibly empty) one."""
    lists = _card_lists(game)
    source = _pick(rng, [c for c in lists if c])
    if source is not None:
        card = source.pop(rng.randrange(len(source)))
        rng.choice(lists).append(card)


def replace_card(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Write another card, a lower-case one or a token that is no card."""
    cards = _pick(rng, [c for c in _card_lists(game) if c])
    if cards is not None:
        cards[rng.randrange(len(cards))] = _token(rng)


def change_seat(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Change a play's, leader's, bidder's, burier's, dealer's or claimed seat, 0-3 or not."""
    fields: list[tuple[Message, str]] = [(game.context, "dealer")]
    if game.HasField("draw_order"):
        fields.append((game.draw_order, "first_drawer"))
    fields += [(bid, "seat") for bid in game.bids]
    fields += [(ex, "seat") for ex in game.kitty_exchanges]
    for trick in game.tricks:
        fields += [(trick, "leader"), (trick.claim, "winner")]
        fields += [(play, "seat") for play in trick.plays]
    fields.append((game.claim, "next_dealer"))
    message, name = rng.choice(fields)
    setattr(message, name, _seat(rng))


def add_attempt(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Record a failed throw: a lead's attempt (its own cards and others), or a follow's."""
    trick = _pick(rng, [t for t in game.tricks if t.plays])
    if trick is not None:
        play = trick.plays[0] if rng.random() < 0.8 else rng.choice(trick.plays)
        play.attempted.extend([*play.cards, *(_token(rng) for _ in range(rng.randint(1, 3)))])


def add_split(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Declare a split of a lead into units, right or wrong."""
    trick = _pick(rng, [t for t in game.tricks if t.plays])
    if trick is not None:
        cards = list(trick.plays[0].cards)
        rng.shuffle(cards)
        while cards:
            cut = rng.randint(1, len(cards))
            trick.declared_split.add(cards=cards[:cut])
            cards = cards[cut:]
        if rng.random() < 0.3:
            trick.declared_split.add(cards=[_token(rng)] if rng.random() < 0.5 else [])


def truncate_tricks(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Cut the hand short after any trick (or before the first)."""
    del game.tricks[rng.randrange(len(game.tricks) + 1) :]


def truncate_plays(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Cut a trick short, down to no plays at all."""
    trick = _pick(rng, game.tricks)
    if trick is not None:
        del trick.plays[rng.randrange(len(trick.plays) + 1) :]


def drop_item(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Lose a trick, a play, a bid, a bury, a dealt hand, a split unit or a player."""
    items = _pick(rng, _message_lists(game))
    if items is not None:
        del items[rng.randrange(len(items))]


def duplicate_item(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Record a trick, a play, a bid, a bury or a hand twice."""
    items = _pick(rng, _message_lists(game))
    if items is not None:
        items.add().CopyFrom(rng.choice(items))


def swap_items(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Put two tricks, plays, bids, buries or hands in the wrong order."""
    items = _pick(rng, [m for m in _message_lists(game) if len(m) > 1])
    if items is not None:
        i, j = rng.sample(range(len(items)), 2)
        first = type(items[i])()
        first.CopyFrom(items[i])
        items[i].CopyFrom(items[j])
        items[j].CopyFrom(first)


def wild_enum(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Set an enum to a value outside it (protobuf enums are open) or to another member."""
    value = rng.choice(ENUMS) if rng.random() < 0.7 else rng.randrange(6)
    targets: list[tuple[Message, str]] = [(bid, "kind") for bid in game.bids]
    targets += [(bid, "trump_chosen") for bid in game.bids]
    targets += [(game.claim.trump, "suit"), (game.claim.level_result, "outcome")]
    message, name = rng.choice(targets)
    setattr(message, name, value)


def wild_claim(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Claim wild winners, points, penalties, multipliers, results and levels."""
    roll = rng.random()
    if roll < 0.1:
        game.ClearField("claim")
    elif roll < 0.2 and game.tricks:
        rng.choice(game.tricks).ClearField("claim")
    elif roll < 0.5 and game.tricks:
        name = rng.choice(("winner", "points", "penalty"))
        setattr(rng.choice(game.tricks).claim, name, _wild_int(rng))
    elif roll < 0.8:
        name = rng.choice(
            ("kitty_multiplier", "kitty_bonus", "defenders_points", "next_dealer", "stake_units")
        )
        setattr(game.claim, name, _wild_int(rng))
    elif roll < 0.9:
        result = game.claim.level_result
        result.levels = _wild_int(rng)
        result.dealer_team_level_after = rng.choice(RANK_LETTERS)
        result.defender_team_level_after = rng.choice(("", *RANK_LETTERS))
    else:
        game.claim.trump.level = rng.choice(("", *RANK_LETTERS))


def wild_context(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Change the levels, the first-hand flag, the dealer or the hand number."""
    ctx = game.context
    roll = rng.random()
    if roll < 0.3:
        setattr(
            ctx, rng.choice(("team0_level", "team1_level")), rng.choice((*RANKS, *RANK_LETTERS))
        )
    elif roll < 0.5:
        ctx.first_hand = not ctx.first_hand
    elif roll < 0.6:
        ctx.ClearField("dealer")
    elif roll < 0.7:
        ctx.hand_number = _wild_int(rng)
    elif roll < 0.8:
        game.ClearField("context")
    else:
        ctx.dealer = _seat(rng)
        ctx.first_hand = rng.random() < 0.5


def wild_drawn_count(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Give a bid an impossible or a missing draw count."""
    bid = _pick(rng, game.bids)
    if bid is not None:
        if rng.random() < 0.2:
            bid.ClearField("drawn_count")
        else:
            bid.drawn_count = _wild_int(rng)


def wild_overrides(rng: random.Random) -> str:
    """Ruleset overrides JSON: known fields with values of any type, or text that is no object."""
    if rng.random() < 0.2:
        return rng.choice(("", "{}", "[]", "null", "{", '"x"', *JSON_SNIPPETS))
    base = get_ruleset(rng.choice(RULESETS))
    data: dict[str, Any] = {}
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.5:
            section = rng.choice(("order", "throw", "kitty", "level", "bidding"))
            fields = dataclasses.fields(getattr(base, section))
            data.setdefault(section, {})
            if isinstance(data[section], dict):
                name = rng.choice(fields).name
                data[section][name] = _override_value(rng, getattr(getattr(base, section), name))
        elif roll < 0.9:
            name = rng.choice(dataclasses.fields(Ruleset)).name
            data[name] = _override_value(rng, getattr(base, name))
        else:
            data[rng.choice(("base", "id", "nope", ""))] = rng.choice((*PRESETS, *WILD_JSON[:20]))
    return json.dumps(data, default=str)


def _override_value(rng: random.Random, current: Any) -> Any:
    """Another value of the field's own kind, a near miss or something of another type."""
    roll = rng.random()
    if roll < 0.4:
        return _wild_json(rng)
    if isinstance(current, bool):
        return not current
    if isinstance(current, int):
        return current + rng.choice((-current, -current - 1, -1, 1, 2, 3, 13, 10**6, -(10**6)))
    if isinstance(current, tuple):
        items = [
            dataclasses.asdict(i) if dataclasses.is_dataclass(i) and not isinstance(i, type) else i
            for i in current
        ]
        if items and rng.random() < 0.5:
            i = rng.randrange(len(items))
            items[i] = mutate_json(items[i], rng)
        return items[: rng.randrange(len(items) + 1)] if rng.random() < 0.3 else items
    return rng.choice((f"{current}x", "", current.upper() if isinstance(current, str) else 0))


def wild_ruleset(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Name another, an unknown or a foreign ruleset, or override fields with wild values."""
    if rng.random() < 0.4:
        game.ruleset = rng.choice((*PRESETS, "", "poker", "CLASSIC", " classic", "classic\x00"))
    else:
        game.ruleset_overrides_json = wild_overrides(rng)


def wild_strings(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Put quotes, newlines, comment signs and long text into the free-text fields."""
    text = rng.choice(WILD_TEXT) + rng.choice(WILD_TEXT)
    roll = rng.random()
    if roll < 0.3:
        game.record_id = text
    elif roll < 0.5:
        game.metadata[text] = rng.choice(WILD_TEXT)
    elif roll < 0.7:
        game.players.add(id=text, display_name=rng.choice(WILD_TEXT))
    else:
        setattr(game, rng.choice(("venue", "played_at")), text)


def to_dealt_hands(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Give the deal as dealt hands instead of the draw order (sometimes with 3 or 5 hands)."""
    if not game.HasField("draw_order"):
        return
    deck, first = list(game.draw_order.deck), game.draw_order.first_drawer
    kitty = PRESETS[game.ruleset].kitty_size if game.ruleset in PRESETS else 8
    cut = max(len(deck) - kitty, 0)
    hands: list[list[str]] = [[], [], [], []]
    for i, token in enumerate(deck[:cut]):
        hands[(first + i) % 4].append(token)
    count = rng.choice((4, 4, 4, 3, 5))
    game.dealt_hands.SetInParent()  # clears draw_order: they are one oneof
    for seat in range(count):
        game.dealt_hands.hands.add(cards=hands[seat % 4])
    game.dealt_hands.kitty.extend(deck[cut:])


def drop_deal(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Lose the deal altogether."""
    which = game.WhichOneof("deal")
    if which is not None:
        game.ClearField(which)


def huge_field(game: records_pb2.GameRecord, rng: random.Random) -> None:
    """Blow one repeated field up to thousands of items (tricks, plays, cards, bids …)."""
    size = rng.choice(HUGE)
    what = rng.randrange(6)
    if what == 0 and game.tricks:
        model = list(game.tricks)
        for i in range(size - len(model)):
            game.tricks.add().CopyFrom(model[i % len(model)])
    elif what == 1 and game.tricks:
        trick = rng.choice(game.tricks)
        trick.plays.extend(
            records_pb2.Play(seat=i % 4, cards=[rng.choice(TOKENS)]) for i in range(size // 4)
        )
    elif what == 2:
        cards = _pick(rng, [c for c in _card_lists(game) if c])  # a follow's attempt is unread
        if cards is not None:
            cards.extend(rng.choice(TOKENS) for _ in range(size))
    elif what == 3 and game.bids:
        model_bid = game.bids[0]
        for _ in range(size):
            game.bids.add().CopyFrom(model_bid)
    elif what == 4 and game.tricks:
        trick = rng.choice(game.tricks)
        for _ in range(size):
            trick.declared_split.add(cards=[rng.choice(TOKENS)])
    else:
        for _ in range(size // 4):
            game.kitty_exchanges.add(seat=_seat(rng), picked_up=TOKENS[:8], buried=TOKENS[8:16])


GameMutator = Callable[[records_pb2.GameRecord, random.Random], None]
GAME_MUTATORS: dict[str, GameMutator] = {
    f.__name__: f
    for f in (
        drop_card,
        duplicate_card,
        swap_cards,
        move_card,
        replace_card,
        change_seat,
        add_attempt,
        add_split,
        truncate_tricks,
        truncate_plays,
        drop_item,
        duplicate_item,
        swap_items,
        wild_enum,
        wild_claim,
        wild_context,
        wild_drawn_count,
        wild_ruleset,
        wild_strings,
        to_dealt_hands,
        drop_deal,
        huge_field,
    )
}
GAME_WEIGHTS = {name: 0.02 if name == "huge_field" else 1.0 for name in GAME_MUTATORS}
"""Huge fields are slow to build: one game case in a few hundred gets one."""


REAL_DAMAGE = (
    "drop_card",
    "duplicate_card",
    "swap_cards",
    "move_card",
    "replace_card",
    "change_seat",
    "add_attempt",
    "add_split",
    "truncate_tricks",
    "truncate_plays",
    "drop_item",
    "duplicate_item",
    "swap_items",
    "wild_claim",
    "wild_context",
)
"""The damage real logs show: wrong, lost or repeated cards, plays and tricks, wrong seats,
failed throws and splits as the table stated them, wrong claims."""


def damage(
    game: records_pb2.GameRecord, rng: random.Random, times: int, names: Sequence[str] | None = None
) -> Steps:
    """Apply ``times`` random game mutators among ``names`` (default: all but huge fields)."""
    names = names or [n for n in GAME_MUTATORS if n != "huge_field"]
    steps = tuple((rng.choice(names), rng.getrandbits(32)) for _ in range(times))
    apply(GAME_MUTATORS, game, steps)
    return steps


def damage_hand(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Damage one hand of the match with one or two game mutators."""
    if match.hands:
        damage(rng.choice(match.hands), rng, rng.randint(1, 2))


def drop_hand(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Lose a hand of the match."""
    if match.hands:
        del match.hands[rng.randrange(len(match.hands))]


def duplicate_hand(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Record a hand twice (or, rarely, once more than ``MAX_HANDS`` allows)."""
    if match.hands:
        model = rng.choice(match.hands)
        for _ in range(MAX_HANDS + 1 - len(match.hands) if rng.random() < 0.01 else 1):
            match.hands.add().CopyFrom(model)


def swap_hands(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Put two hands in the wrong order."""
    if len(match.hands) > 1:
        i, j = rng.sample(range(len(match.hands)), 2)
        first = records_pb2.GameRecord()
        first.CopyFrom(match.hands[i])
        match.hands[i].CopyFrom(match.hands[j])
        match.hands[j].CopyFrom(first)


def wild_players(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Seat three or five players, or none."""
    count = rng.choice((0, 3, 5))
    del match.players[count:]
    while len(match.players) < count:
        match.players.add(id=f"p{len(match.players)}")


def wild_match_ruleset(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Change the match's ruleset or overrides, or a hand's ruleset only."""
    roll = rng.random()
    if roll < 0.3:
        match.ruleset = rng.choice((*PRESETS, "", "poker"))
    elif roll < 0.6 and match.hands:
        rng.choice(match.hands).ruleset = rng.choice((*PRESETS, "poker"))
    else:
        match.ruleset_overrides_json = wild_overrides(rng)


def wild_match_claim(match: records_pb2.MatchRecord, rng: random.Random) -> None:
    """Claim a wild winning team or final levels."""
    claim = match.claimed_result
    if rng.random() < 0.5:
        claim.winning_team = _wild_int(rng) if rng.random() < 0.5 else rng.randrange(2)
    else:
        claim.team0_final_level = rng.choice((*RANKS, *RANK_LETTERS))
        claim.team1_final_level = rng.choice(RANK_LETTERS)


MatchMutator = Callable[[records_pb2.MatchRecord, random.Random], None]
MATCH_MUTATORS: dict[str, MatchMutator] = {
    f.__name__: f
    for f in (
        damage_hand,
        drop_hand,
        duplicate_hand,
        swap_hands,
        wild_players,
        wild_match_ruleset,
        wild_match_claim,
    )
}


# -- JSON documents -----------------------------------------------------------------------


def _path(doc: Any, rng: random.Random) -> list[tuple[Any, Any]]:
    """A random walk from the root to a leaf: the (container, key) pairs passed."""
    path: list[tuple[Any, Any]] = []
    node = doc
    while isinstance(node, (dict, list)) and node:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
    return path


def _nudge(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((-1, 1, 54, -54, 108, -value - 1, 2**31))
    if isinstance(value, str):
        return rng.choice((value.upper(), value[:-1], value + value, value + "x", str(len(value))))
    return _wild_json(rng)


def mutate_json(doc: Any, rng: random.Random) -> Any:
    """One structural change at a random place of a JSON value; returns the (new) root."""
    path = _path(doc, rng)
    if not path:
        return _wild_json(rng)
    parent, key = rng.choice(path)
    value = parent[key]
    op = rng.choices(
        ("delete", "wild", "nudge", "duplicate", "swap", "truncate", "rename", "huge", "stringify"),
        weights=(3, 3, 4, 2, 2, 1, 1, 0.05, 0.5),
    )[0]
    if op == "delete":
        del parent[key]
    elif op == "wild":
        parent[key] = _wild_json(rng)
    elif op == "nudge":
        parent[key] = _nudge(value, rng)
    elif op == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif op == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = rng.randrange(len(parent))
        parent[key], parent[other] = parent[other], value
    elif op == "truncate" and isinstance(value, list):
        del value[rng.randrange(len(value) + 1) :]
    elif op == "rename" and isinstance(parent, dict):
        parent[rng.choice((*parent, "", "x", key.upper()))] = parent.pop(key)
    elif op == "huge" and isinstance(value, list) and value:
        value.extend(copy.deepcopy(value[-1]) for _ in range(rng.choice(HUGE)))
    elif op == "stringify":
        parent[key] = json.dumps(value)
    else:
        parent[key] = _nudge(value, rng)
    return doc


def _text_edit(text: str, rng: random.Random, snippets: Sequence[str]) -> str:
    if not text:
        return rng.choice(snippets)
    op = rng.randrange(7)
    i, j = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
    if op == 0:  # insert a snippet
        return text[:i] + rng.choice(snippets) + text[i:]
    if op == 1:  # delete a span
        return text[:i] + text[j:]
    if op == 2:  # truncate
        return text[:i]
    if op == 3:  # one character becomes another
        return (
            text[:i]
            + chr(
                rng.choice(
                    (0, 9, 10, 13, 35, 34, 92, 0x85, 0x2028, 0x1F0A1, rng.randrange(32, 0x3000))
                )
            )
            + text[i + 1 :]
        )
    lines = text.split("\n")
    k, m = rng.randrange(len(lines)), rng.randrange(len(lines))
    if op == 4:  # drop a line
        del lines[k]
    elif op == 5:  # duplicate a line
        lines.insert(m, lines[k])
    else:  # swap two lines, or a word of one with a snippet
        if rng.random() < 0.5:
            lines[k], lines[m] = lines[m], lines[k]
        else:
            words = lines[k].split(" ")
            words[rng.randrange(len(words))] = rng.choice(snippets).strip() or "-"
            lines[k] = " ".join(words)
    return "\n".join(lines)


def edit_notation(text: str, rng: random.Random) -> str:
    """One edit of notation text: lines dropped, repeated or swapped, words and bytes changed."""
    return _text_edit(text, rng, (*TEXT_SNIPPETS, *TOKENS))


def edit_json_text(text: str, rng: random.Random) -> str:
    """One edit of JSON text: raw snippets (deep nesting, huge numbers, NaN), cuts, lines."""
    return _text_edit(text, rng, JSON_SNIPPETS)


def edit_bytes(data: bytes, rng: random.Random) -> bytes:
    """One edit of binary data: bits flipped, spans cut, repeated or replaced, a bad varint."""
    if not data:
        return rng.randbytes(rng.randrange(1, 64))
    i, j = sorted((rng.randrange(len(data) + 1), rng.randrange(len(data) + 1)))
    op = rng.randrange(6)
    if op == 0 and i < len(data):
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if op == 1:
        return data[:i] + data[j:]
    if op == 2:
        return data[:j] + data[i:j] + data[j:]
    if op == 3:
        return data[:i] + rng.randbytes(j - i) + data[j:]
    if op == 4:
        return (
            data[:i]
            + rng.choice(
                (b"\xff" * 10, b"\x80" * 11, b"\x0a\xff\xff\xff\x0f", b"\x52\x00", b"\x00")
            )
            + data[i:]
        )
    return data[:i]


def envelope(document: Any, rng: random.Random | None = None) -> dict[str, Any]:
    """A ``gzip+base64`` envelope around a JSON document; with ``rng``, sometimes a broken one."""
    raw = json.dumps(document).encode()
    data = base64.b64encode(gzip.compress(raw, mtime=0)).decode()
    if rng is not None and rng.random() < 0.3:
        data = rng.choice(
            (
                data[: rng.randrange(len(data))],
                data + "=",
                "!" + data,
                base64.b64encode(raw).decode(),  # not gzip
                base64.b64encode(gzip.compress(b"\xff\xfe{", mtime=0)).decode(),  # not UTF-8
                base64.b64encode(gzip.compress(raw[: len(raw) // 2], mtime=0)).decode(),
            )
        )
    return {"encoding": "gzip+base64", "replayVersion": 2, "bytes": len(raw), "data": data}


def wrap(fmt: str, document: Any, how: str, rng: random.Random) -> Any:
    """A foreign document as its program stores it: raw, enveloped, in a D1 row, or in a list."""
    if how == "envelope":
        return envelope(document, rng)
    if how == "row" and fmt == "eighty":
        stored = envelope(document, rng) if rng.random() < 0.5 else document
        return {
            "replay_json": json.dumps(stored),
            "completed_at": rng.choice((1_700_000_000, 0, -1, 2**40, 10**20, -(10**20), "x", None)),
        }
    if how == "list":
        return [document, copy.deepcopy(document)]
    return document


WRAPPINGS = ("raw", "envelope", "row", "list")


def apply(
    mutators: Mapping[str, Callable[[T, random.Random], None]], target: T, steps: Steps
) -> None:
    """Run each step's mutator on ``target`` (in place) with a generator seeded by the step."""
    for name, seed in steps:
        mutators[name](target, random.Random(seed))


def fold(edits: Mapping[str, Callable[[T, random.Random], T]], value: T, steps: Steps) -> T:
    """Run each step's edit on the value the step before returned."""
    for name, seed in steps:
        value = edits[name](value, random.Random(seed))
    return value


BYTE_EDITS = {"bytes": edit_bytes}
NOTATION_EDITS = {"notation": edit_notation}
JSON_EDITS: dict[str, Callable[[Any, random.Random], Any]] = {
    "tree": mutate_json,
    "text": edit_json_text,
}
"""``tree`` edits a parsed document, ``text`` its serialized text (see ``fold_json``)."""


def fold_json(document: Any, steps: Steps, wrapper: Callable[[Any], Any] | None = None) -> str:
    """The document after its ``tree`` edits, wrapped, serialized, after its ``text`` edits."""
    document = fold(JSON_EDITS, document, tuple(s for s in steps if s[0] == "tree"))
    if wrapper is not None:
        document = wrapper(document)
    return fold(JSON_EDITS, json.dumps(document), tuple(s for s in steps if s[0] == "text"))


def draw_steps(
    rng: random.Random, weights: Mapping[str, float], most: int, least: int = 1
) -> Steps:
    """Between ``least`` and ``most`` steps, mutators picked by weight."""
    names, values = list(weights), list(weights.values())
    return tuple(
        (rng.choices(names, values)[0], rng.getrandbits(32))
        for _ in range(rng.randint(least, most))
    )
