"""Hypothesis strategies for the fuzz cases of ``tests/fuzz/targets.py``.

A case's damage is a list of ``(mutator name, seed)`` steps over the tables of
``tests/fuzz/mutators.py``, so Hypothesis shrinks a failure to the fewest mutators on the
simplest source; ``tests/fuzz/campaign.py`` draws the same case classes from ``random`` instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from tests.auditor.conftest import RULESETS
from tests.fuzz.mutators import (
    BYTE_EDITS,
    FOREIGN,
    GAME_MUTATORS,
    MATCH_MUTATORS,
    NOTATION_EDITS,
    SEEDS,
    WRAPPINGS,
    Steps,
)
from tests.fuzz.targets import (
    AUDIT_AS,
    BYTE_PREFIXES,
    FORMATS,
    NAMES,
    AnalysisCase,
    BytesCase,
    Case,
    ForeignCase,
    GameCase,
    JsonCase,
    MatchCase,
    PbCase,
    RefereeCase,
    TextCase,
)


def steps(names: Iterable[str], least: int, most: int) -> st.SearchStrategy[Steps]:
    """Lists of ``(name, seed)`` steps."""
    step = st.tuples(st.sampled_from(sorted(names)), st.integers(0, 2**32 - 1))
    return st.lists(step, min_size=least, max_size=most).map(tuple)


SMALL_GAME_MUTATORS = sorted(set(GAME_MUTATORS) - {"huge_field"})
"""Huge fields have a test of their own: in every case they would make the run slow."""


def hands(least: int, most: int) -> dict[str, st.SearchStrategy[Any]]:
    """A hand case's fields (``HandCase``), with ``least`` to ``most`` game mutations."""
    return {
        "ruleset": st.sampled_from(RULESETS),
        "seed": st.integers(0, SEEDS - 1),
        "first_hand": st.booleans(),
        "steps": steps(SMALL_GAME_MUTATORS, least, most),
    }


game_cases = st.builds(
    GameCase, **hands(1, 6), audit_as=st.sampled_from(AUDIT_AS), with_steps=st.booleans()
)
analysis_cases = st.builds(AnalysisCase, **hands(0, 4), window=st.integers(1, 3))
referee_cases = st.builds(RefereeCase, **hands(0, 4))
match_cases = st.builds(
    MatchCase,
    ruleset=st.sampled_from(RULESETS),
    seed=st.integers(0, 2),
    steps=steps(MATCH_MUTATORS, 1, 4),
    audit_as=st.sampled_from(AUDIT_AS),
)
sources = st.one_of(
    st.builds(GameCase, **hands(0, 4)),
    st.builds(
        MatchCase,
        ruleset=st.sampled_from(RULESETS),
        seed=st.integers(0, 2),
        steps=steps(MATCH_MUTATORS, 0, 3),
    ),
)
"""Damaged records to serialize for the importers (audited as they are)."""

pb_cases = st.builds(
    PbCase,
    source=sources,
    edits=steps(BYTE_EDITS, 0, 3),
    strict=st.booleans(),
    framing=st.sampled_from(("stream", "stream2", "message")),
)
json_cases = st.builds(
    JsonCase, source=sources, edits=steps(("tree", "text"), 0, 3), strict=st.booleans()
)
text_cases = st.builds(
    TextCase, source=sources, edits=steps(NOTATION_EDITS, 0, 4), strict=st.booleans()
)


def _foreign(fmt: str) -> st.SearchStrategy[ForeignCase]:
    return st.builds(
        ForeignCase,
        fmt=st.just(fmt),
        fixture=st.integers(0, len(FOREIGN[fmt]) - 1),
        edits=steps(("tree", "text"), 0, 4),
        wrapping=st.sampled_from(WRAPPINGS),
        wrap_seed=st.integers(0, 2**32 - 1),
        strict=st.booleans(),
        detect=st.booleans(),
    )


foreign_cases = st.sampled_from(sorted(FOREIGN)).flatmap(_foreign)
godot_cases = _foreign("godot")  # the real shengji-godot log, edited
bytes_cases = st.builds(
    BytesCase,
    fmt=st.sampled_from(FORMATS),
    name=st.sampled_from(NAMES),
    prefix=st.integers(0, len(BYTE_PREFIXES) - 1),
    seed=st.integers(0, 2**32 - 1),
    size=st.sampled_from((0, 1, 2, 7, 64, 512, 4096)),
    strict=st.booleans(),
)

STRATEGIES: dict[str, st.SearchStrategy[Case]] = {
    "audit-game": game_cases,
    "analyze-game": analysis_cases,
    "referee-game": referee_cases,
    "audit-match": match_cases,
    "import-pb": pb_cases,
    "import-json": json_cases,
    "import-text": text_cases,
    "import-foreign": foreign_cases,
    "import-godot": godot_cases,
    "import-bytes": bytes_cases,
}
"""Each target's cases, by the target names of ``tests/fuzz/targets.CASES``."""
