"""``python -m service …``: the service's commands without the rest of the ``chaodipi`` CLI."""

import typer

from service.commands import register

app = typer.Typer(help="chaodipi audit service", no_args_is_help=True)
register(app)

if __name__ == "__main__":
    app()
