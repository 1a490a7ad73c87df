"""The auditor: replays recorded hands and matches under their ruleset and reports every breach.

Pure (no I/O): records in, ``chaodipi.v1`` reports out.

>>> from chaodipi.auditor import audit_game
>>> from chaodipi.auditor.generate import generate_hand
>>> report = audit_game(generate_hand("classic", seed=1))
>>> report.breaches, report.scoring_errors
(0, 0)
"""

from chaodipi.auditor.audit import audit_game, audit_match, audit_steps
from chaodipi.auditor.codes import CODES, Code

__all__ = ["CODES", "Code", "audit_game", "audit_match", "audit_steps"]
