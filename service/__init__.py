"""The gRPC audit service: stores uploaded records with their audit and serves replays.

Modules: ``server`` (grpc.aio server), ``client`` (typed client), ``ingest`` (audit and store
records), ``queries`` (read-only queries for the dashboard), ``store``, ``models``, ``db``,
``keys``, ``migrate`` and ``commands`` (CLI).
"""
