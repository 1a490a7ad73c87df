"""The gRPC audit service: stores uploaded records with their audit and serves games, matches
and player statistics.

Modules: ``server`` (grpc.aio server: auth, TLS, statuses, the ``SERVICES`` it serves),
``audit_service`` (``chaodipi.v1.AuditService``), ``uploads`` (the streaming upload pipeline),
``budget`` (per-call budgets), ``errors`` (exceptions to statuses), ``limits`` (the rules records
and requests are checked against), ``names`` (resource names), ``readmodel`` (every read of stored
games, for the server, the CLI and the dashboard), ``ingest`` (audit and store records: the one
write path), ``samples`` (sample games for an empty database), ``store``, ``models``, ``db``,
``keys`` and ``migrate``. The Python client is ``chaodipi.client``.
"""
