"""``python -m chaodipi.cli …``: the same as the ``chaodipi`` command."""

from chaodipi.cli.main import app

app()
