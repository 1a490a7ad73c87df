"""Rulesets as data: presets validate, house variants override them, bad variants are named."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

import chaodipi.engine.ruleset as ruleset_module
from chaodipi.engine.presets import (
    ANHUI,
    CHANGSHU,
    CLASSIC,
    PRESETS,
    SHUANGSHENG,
    ruleset_from_mapping,
    ruleset_from_text,
)
from chaodipi.engine.ruleset import (
    JokerTrump,
    LevelBand,
    PassingAce,
    Ruleset,
    RulesetError,
    validate,
)


@pytest.mark.parametrize("ruleset", list(PRESETS.values()), ids=list(PRESETS))
def test_ruleset_every_preset_validates(ruleset: Ruleset) -> None:
    validate(ruleset)


def test_ruleset_presets_are_known_and_read_only() -> None:
    assert set(PRESETS) == {
        "classic",
        "shuangsheng",
        "anhui",
        "changshu",
        "eighty",
        "botzone",
        "godot",
    }
    with pytest.raises(TypeError):
        PRESETS["house"] = CLASSIC  # type: ignore[index]


def test_r_level_reconstructed_tables_are_marked() -> None:
    assert "level.bands" in CLASSIC.reconstructed
    assert "level.bands" in ANHUI.reconstructed
    assert "level.bands" not in SHUANGSHENG.reconstructed
    assert "level.bands" not in CHANGSHU.reconstructed


def _load(tmp_path: Path, name: str, text: str) -> Ruleset:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return ruleset_from_text(path.read_text(encoding="utf-8"), path.name)


def test_ruleset_toml_house_variant_overrides_a_preset(tmp_path: Path) -> None:
    variant = _load(
        tmp_path,
        "house.toml",
        """
base = "shuangsheng"
id = "house-toml"
name = "house rules"

[kitty]
pair = 6
throw = 0

[level]
passing_ace = "wrap"
must_play = ["A"]

[bidding]
lock = false
little_joker_trump = "choose"
chao_di_bids = ["2:S", "2:BJ"]
""",
    )
    assert variant.id == "house-toml"
    assert (variant.kitty.pair, variant.kitty.throw, variant.kitty.single) == (6, 0, 2)
    assert variant.level.passing_ace is PassingAce.WRAP
    assert variant.level.must_play == ("A",)
    assert variant.level.bands == SHUANGSHENG.level.bands
    assert variant.bidding.lock is False
    assert variant.bidding.little_joker_trump is JokerTrump.CHOOSE
    assert variant.bidding.chao_di_bids == ("2:S", "2:BJ")
    assert variant.throw == SHUANGSHENG.throw


def test_ruleset_json_house_variant_overrides_a_preset(tmp_path: Path) -> None:
    data = {
        "base": "anhui",
        "id": "house-json",
        "kitty": {"tractor": 12},
        "level": {
            "bands": [
                {"lo": 0, "hi": 35, "outcome": "dealer_up", "levels": 2},
                {"lo": 40, "hi": 75, "outcome": "dealer_up", "levels": 1},
                {"lo": 80, "hi": None, "outcome": "swap"},
            ]
        },
        "bidding": {"fallback_later_hands": "kitty_card", "fallback_kitty_index": 8},
    }
    variant = _load(tmp_path, "house.json", json.dumps(data))
    assert variant.kitty.tractor == 12
    assert variant.kitty.tractor_per_pair is False  # kept from anhui
    assert [b.lo for b in variant.level.bands] == [0, 40, 80]
    assert variant.bidding.fallback_kitty_index == 8
    assert variant.level.must_play == ("J", "A")


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"kitty": {"pairs": 4}}, "kitty.pairs"),
        ({"level": {"passing_ace": "loop"}}, "level.passing_ace"),
        ({"bidding": {"big_joker_trump": "any"}}, "bidding.big_joker_trump"),
        ({"bidding": {"ladder": ["1:*", "2:X"]}}, "bidding.ladder"),
        ({"bidding": {"ladder": ["1:*", "4:S"]}}, "bidding.ladder"),
        ({"bidding": {"overcall_bids": ["3:S"]}}, "bidding.overcall_bids"),
        (
            {"bidding": {"ladder": ["1:*", "2:LJ"], "overcall_bids": [], "chao_di_bids": []}},
            "bidding.lock",
        ),
        ({"bidding": {"fallback_kitty_index": 9}}, "bidding.fallback_kitty_index"),
        ({"level": {"must_play": ["Z"]}}, "level"),
        (
            {
                "level": {
                    "bands": [
                        {"lo": 0, "hi": 40, "outcome": "swap"},
                        {"lo": 50, "hi": None, "outcome": "swap"},
                    ]
                }
            },
            "level.bands[1].lo",
        ),
        ({"level": {"bands": [{"lo": 0, "hi": 40, "outcome": "swap"}]}}, "level.bands"),
        ({"level": {"bands": [{"lo": 0, "outcome": "win"}]}}, "level.bands[0]"),
        ({"trump": "S"}, "ruleset.trump"),
        # classic's 80-95 band swaps the deal: no side to give match points (R-LEVEL).
        ({"level": {"match_points": True}}, "level.bands[4].outcome"),
    ],
)
def test_ruleset_bad_override_names_the_field(override: dict[str, object], field: str) -> None:
    with pytest.raises(RulesetError, match=field.replace("[", r"\[").replace("]", r"\]")):
        ruleset_from_mapping({"base": "classic", "id": "bad", **override})


@pytest.mark.parametrize(
    ("base", "override", "message"),
    [
        # Four hands of 1 and a kitty of 158 are three decks' cards, and no game.
        (
            "changshu",
            {"hand_size": 1, "kitty_size": 158},
            r"ruleset\.hand_size: 1 is not within 33-40",
        ),
        (
            "classic",
            {"hand_size": 1, "kitty_size": 104},
            r"ruleset\.hand_size: 1 is not within 22-26",
        ),
        ("classic", {"hand_size": 27, "kitty_size": 0}, r"ruleset\.hand_size: 27 is not within"),
        (
            "classic",
            {"hand_size": 22, "kitty_size": 23},
            r"ruleset\.kitty_size: 23 is not within 1-22",
        ),
        ("classic", {"hand_size": 24, "kitty_size": 8}, r"ruleset: 4 hands of 24 and a kitty of 8"),
        ("classic", {"decks": 4}, r"ruleset\.decks: 4 decks are not supported"),
    ],
)
def test_ruleset_sizes_outside_a_game_are_refused_naming_the_field(
    base: str, override: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesetError, match=message):
        ruleset_from_mapping({"base": base, "id": "bad", **override})


def test_r_order_a_trump_place_listed_twice_is_refused_naming_it() -> None:
    tiers = ["card:SA", "BJ", "LJ", "card:SA", "trump-level", "other-level", "trump-suit"]
    with pytest.raises(RulesetError, match=r"order\.trump_tiers: 'card:SA' is listed twice"):
        ruleset_from_mapping({"base": "classic", "id": "bad", "order": {"trump_tiers": tiers}})


def test_ruleset_sizes_within_the_bounds_are_accepted() -> None:
    # A house kitty of 12 with two decks: four hands of 24.
    house = ruleset_from_mapping(
        {"base": "classic", "id": "big-kitty", "hand_size": 24, "kitty_size": 12}
    )
    assert (house.hand_size, house.kitty_size) == (24, 12)


def test_ruleset_bad_file_text_names_the_file() -> None:
    with pytest.raises(RulesetError, match=r"house\.toml: not valid TOML"):
        ruleset_from_text("base = ", "house.toml")
    with pytest.raises(RulesetError, match=r"house\.json: not valid JSON"):
        ruleset_from_text("{", "house.json")


@pytest.mark.parametrize(
    ("ruleset", "single", "pair", "tractor", "per_pair", "throw", "last"),
    [
        (CLASSIC, 2, 4, 4, True, 0, 1),
        (SHUANGSHENG, 2, 4, 4, True, 2, 1),
        (ANHUI, 2, 4, 8, False, 0, 1),
        (CHANGSHU, 2, 2, 2, False, 2, 2),
    ],
    ids=["classic", "shuangsheng", "anhui", "changshu"],
)
def test_r_kitty_preset_values_follow_rules_section_7(
    ruleset: Ruleset, single: int, pair: int, tractor: int, per_pair: bool, throw: int, last: int
) -> None:
    k = ruleset.kitty
    assert (k.single, k.pair, k.tractor, k.tractor_per_pair, k.throw, k.last_trick_factor) == (
        single,
        pair,
        tractor,
        per_pair,
        throw,
        last,
    )


def test_ruleset_field_annotations_read_as_their_source_text() -> None:
    # Overrides are converted by the annotation text, which a mypyc-compiled dataclass does not
    # keep (its fields carry erased classes): ``_annotation`` must give the text in both builds.
    source = Path(str(ruleset_module.__file__)).with_name("ruleset.py")
    written = {
        (node.name, stmt.target.id): ast.unparse(stmt.annotation)
        for node in ast.parse(source.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef)
        for stmt in node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    }
    classes = (Ruleset, LevelBand, *ruleset_module._SECTIONS.values())
    read = {
        (cls.__name__, spec.name): ruleset_module._annotation(spec)
        for cls in classes
        for spec in dataclasses.fields(cls)
    }
    assert len(read) > 50
    assert read == {key: written[key] for key in read}
