"""The server's log: text lines, or JSON lines (``serve --log-json``) with the call's request
id and tenant on every line written while answering a call, and a line per call."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from chaodipi.service.context import TENANT
from chaodipi.service.metrics import REQUEST_ID, calls_log


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object a line: time, level, logger, message, the call's
    request id and tenant (when the line is about a call), and any fields the call log adds."""

    _EXTRA = ("method", "code", "ms")

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id:
            entry["request_id"] = request_id
        tenant = TENANT.get(None)
        if tenant is not None:
            entry["tenant"] = tenant
        for name in self._EXTRA:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


JsonFormatter.converter = time.gmtime


def configure_logging(json_lines: bool) -> None:
    """The server's logging on standard error: JSON lines with every call logged, or text
    lines without the per-call ones."""
    handler = logging.StreamHandler()
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        calls_log.setLevel(logging.WARNING)
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    # Alembic (1.20) logs each of its own plugins as it loads them, at every start:
    # plumbing, not the migrations a user wants to see.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
