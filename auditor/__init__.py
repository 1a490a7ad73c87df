"""The auditor: replays recorded hands and matches under their ruleset and reports every breach.

Pure (no I/O): records in, ``chaodipi.v1`` reports out.

>>> from chaodipi.auditor import audit_game
>>> from chaodipi.auditor.generate import generate_hand
>>> report = audit_game(generate_hand("classic", seed=1))
>>> report.breaches, report.scoring_errors
(0, 0)

A caller holding the record's bytes passes them: they are read once, never built into
messages, and the report is the same.

>>> data = generate_hand("classic", seed=1).SerializeToString()
>>> audit_game(data) == report
True

Modules: ``reading`` (a record as plain values), ``wire`` (the protobuf's vocabulary in
engine values), ``state`` (a hand in replay), ``deal``, ``bidding``, ``tricks``, ``scoring``
and ``claims`` (the replay's steps), ``findings``, ``audit`` (a hand), ``match`` (a match),
``codes`` (the finding codes), ``generate`` and ``faults`` (legal hands, planted faults),
``referee`` (one hand refereed live, event by event, through the same steps).
"""

from chaodipi.auditor.audit import audit_encoded_game, audit_game, audit_steps
from chaodipi.auditor.codes import CODES, Code
from chaodipi.auditor.findings import describe_position
from chaodipi.auditor.match import audit_match
from chaodipi.auditor.wire import describe_result

__all__ = [
    "CODES",
    "Code",
    "audit_encoded_game",
    "audit_game",
    "audit_match",
    "audit_steps",
    "describe_position",
    "describe_result",
]
