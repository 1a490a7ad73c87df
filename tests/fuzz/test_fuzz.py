"""Fuzzing: damaged records into the audit and every importer end as reports or problems.

The properties are in ``tests/fuzz/targets.py`` (one ``case.run()`` per case); this module
runs a few hundred derandomized Hypothesis cases per target, so CI is deterministic and
short. ``tests/fuzz/campaign.py`` runs the same targets for 100,000 cases (docs/reliability.md).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from tests.auditor.conftest import RULESETS
from tests.fuzz.strategies import STRATEGIES
from tests.fuzz.targets import CASES, Case, GameCase, check_game

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
EXAMPLES = {
    "audit-game": 250,
    "analyze-game": 60,
    "referee-game": 80,
    "audit-match": 80,
    "import-pb": 150,
    "import-json": 120,
    "import-text": 120,
    "import-foreign": 120,
    "import-godot": 60,
    "import-bytes": 250,
}
"""Cases per target in CI (1,290); the benchmark runs 100,000."""


@pytest.mark.parametrize("target", list(EXAMPLES))
def test_every_case_ends_as_a_report_or_a_problem(target: str) -> None:
    """Audit targets: a report, rejections naming fields, known codes. Import targets: records
    (audited, exported, read back) or problems naming a location; ImportFailed only in strict
    mode (tests/fuzz/targets.py)."""

    @settings(FUZZ, max_examples=EXAMPLES[target])
    @given(STRATEGIES[target])
    def run(case: Case) -> None:
        case.run()

    run()


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seed", range(6))
def test_audit_answers_huge_fields(ruleset: str, seed: int) -> None:
    case = GameCase(ruleset, seed, seed % 2 == 0, (("huge_field", seed),))
    record = case.record()
    report = check_game(record)
    assert report.rejections, "a field of thousands of items was audited"


@pytest.mark.parametrize("cls", CASES, ids=[cls.target for cls in CASES])
def test_a_case_is_its_own_reproducer(cls: type[GameCase]) -> None:
    """What the benchmark prints for a failure (the case's repr) rebuilds the same input."""
    namespace = {c.__name__: c for c in CASES}
    for seed in range(20):
        case = cls.draw(random.Random(seed))
        assert eval(repr(case), namespace) == case
    game = GameCase("changshu", 2, False, (("huge_field", 3), ("swap_cards", 4)))
    assert game.record() == game.record()
