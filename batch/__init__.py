"""Batch audit of a whole corpus: every core of this machine, or a Ray cluster past one machine.

>>> from batch import JsonFolderSink, LocalBackend, run_batch
>>> sink = JsonFolderSink(Path("reports"))  # doctest: +SKIP
>>> summary = run_batch(["logs/"], sink, LocalBackend())  # doctest: +SKIP

``batch.commands.register`` adds ``chaodipi audit-batch`` to the CLI.
"""

from batch.local import LocalBackend
from batch.run import Control, Result, Row, audit_chunk, run_batch
from batch.sinks import DatabaseSink, JsonFolderSink
from batch.summary import Summary

__all__ = [
    "Control",
    "DatabaseSink",
    "JsonFolderSink",
    "LocalBackend",
    "Result",
    "Row",
    "Summary",
    "audit_chunk",
    "run_batch",
]
