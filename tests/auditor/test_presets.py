"""Every preset is engine data: a record names any of them without an import to register it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from chaodipi.auditor.generate import generate_hand
from chaodipi.v1 import audit_pb2

# A fresh interpreter reads one record from stdin, audits it and answers with the report; it
# never imports the importers, which once registered the foreign programs' rulesets.
_CHILD = """
import sys
from chaodipi.auditor import audit_game
from chaodipi.v1 import records_pb2

report = audit_game(records_pb2.GameRecord.FromString(sys.stdin.buffer.read()))
assert "chaodipi.importers" not in sys.modules, "the audit imported the importers"
sys.stdout.buffer.write(report.SerializeToString())
"""


@pytest.mark.parametrize("ruleset", ["eighty", "botzone"])
def test_a_foreign_preset_audits_in_a_fresh_process_without_the_importers(ruleset: str) -> None:
    record = generate_hand(ruleset, seed=5)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=record.SerializeToString(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    report = audit_pb2.AuditReport.FromString(done.stdout)
    assert list(report.rejections) == []
    assert report.ruleset == ruleset
    assert (report.breaches, report.scoring_errors) == (0, 0)
    # Botzone's table gives match points for the deal: no level result is computed.
    assert report.computed.HasField("level_result") == (ruleset != "botzone")
