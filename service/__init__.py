"""The gRPC audit service: stores uploaded records with their audit and serves replays.

Modules: ``server`` (grpc.aio server), ``client`` (typed client), ``readmodel`` (every read of
stored games, for the server, the CLI and the dashboard), ``ingest`` (audit and store records:
the one write path), ``samples`` (sample games for an empty database), ``store``, ``models``,
``db``, ``keys`` and ``migrate``.
"""
