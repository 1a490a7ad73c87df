"""The 炒地皮 rules engine: pure, typed, and fast (no I/O, no database, no network).

Modules by concern: ``cards`` (kinds and tokens), ``ruleset`` (the rules as data),
``order`` (trump context), ``units`` (pairs, triples, tractors), ``lead`` (leads and
throws), ``follow`` (follow legality), ``trick`` (the winner), ``scoring``, ``level``
and ``bidding``.
"""
