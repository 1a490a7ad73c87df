"""Batch audit of a whole corpus: every core of this machine, or a Ray cluster past one machine.

>>> from chaodipi.batch import JsonFolderSink, LocalBackend, run_batch
>>> sink = JsonFolderSink(Path("reports"))  # doctest: +SKIP
>>> summary = run_batch(["logs/"], sink, LocalBackend())  # doctest: +SKIP

The command line runs it as ``chaodipi audit-batch``.
"""

from chaodipi.batch.local import LocalBackend
from chaodipi.batch.row import Row
from chaodipi.batch.run import Control, Result, audit_chunk, run_batch
from chaodipi.batch.sinks import DatabaseSink, FramedSink, JsonFolderSink, framed_reports
from chaodipi.batch.summary import Summary

__all__ = [
    "Control",
    "DatabaseSink",
    "FramedSink",
    "JsonFolderSink",
    "LocalBackend",
    "Result",
    "Row",
    "Summary",
    "audit_chunk",
    "framed_reports",
    "run_batch",
]
