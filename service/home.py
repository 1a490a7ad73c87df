"""Where chaodipi keeps its data, and which database it uses by default.

Light on purpose (no database driver, platformdirs only when the data folder is looked for):
every command reads it at start, also those that never open the database.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_URL = "CHAODIPI_DATABASE_URL"
ENV_HOME = "CHAODIPI_HOME"
DEFAULT_TENANT = "default"
"""The tenant that keyless calls, the local commands and the dashboard act for."""


def data_dir() -> Path:
    """Where chaodipi keeps its data: ``$CHAODIPI_HOME``, else the user's data folder.

    The default is the platform's (``~/.local/share/chaodipi`` on Linux, as ``platformdirs``
    gives it), so every command finds the same data from any working folder.
    """
    home = os.environ.get(ENV_HOME)
    if home:
        return Path(home).expanduser()
    import platformdirs  # here: the commands that never look for the data folder skip it

    return platformdirs.user_data_path("chaodipi")


def default_url() -> str:
    """``$CHAODIPI_DATABASE_URL``, else a SQLite file in ``data_dir()``."""
    url = os.environ.get(ENV_URL)
    if url:
        return url
    return f"sqlite:///{data_dir() / 'chaodipi.db'}"
