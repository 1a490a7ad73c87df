"""Terminal output of the command line: where text goes, user text escaped, words counted.

Every piece of text that comes from a record or a file (a game id, a player's name, a JSON
key, a file name) goes through ``user()`` before Rich prints it, so ``[red]`` or ``[/]`` in it
is shown as written, never read as markup:

>>> user("[red]Li Lei[/]")
'\\\\[red]Li Lei\\\\[/]'
>>> count(1, "breach"), count(2, "breach"), count(0, "card")
('1 breach', '2 breaches', '0 cards')

Rich is imported when something is printed through it, not with this module: off a terminal,
``chaodipi audit FILE`` prints its plain lines and never imports Rich (start-up time,
docs/benchmarks.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar, Protocol

import typer.core
from typer import _click as click  # Typer vendors click: its commands take these types

from chaodipi.cli.coercion import plain_coercion

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Task
    from rich.text import Text


PIPED_WIDTH = 200
"""Columns results are laid out in off a terminal when ``COLUMNS`` does not say: Rich's own 80
would cut a wide table's headers ("pla…") in a file or a pipe."""


def stdout() -> Console:
    """Results: what a command was asked for.

    A console per use, so the terminal's width (or ``COLUMNS``) is read when printing; off a
    terminal, ``PIPED_WIDTH`` unless ``COLUMNS`` says otherwise.
    """
    from rich.console import Console

    console = Console(highlight=False)
    if "COLUMNS" not in os.environ and not console.is_terminal:
        console.width = PIPED_WIDTH
    return console


def stderr() -> Console:
    """Errors, warnings and progress: what a script reading stdout does not want."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def is_terminal(*, on_stderr: bool = False) -> bool:
    """Whether ``stdout()`` (or ``stderr()``) prints to a terminal, as its ``is_terminal`` says.

    Rich is asked only when the stream is a terminal or the environment tells Rich how to
    treat it (``TTY_COMPATIBLE``, ``FORCE_COLOR``): otherwise Rich's answer is no, and it is
    given here without importing Rich.
    """
    if "TTY_COMPATIBLE" not in os.environ and "FORCE_COLOR" not in os.environ:
        isatty = getattr(sys.stderr if on_stderr else sys.stdout, "isatty", None)
        try:
            if isatty is None or not isatty():
                return False
        except ValueError:  # a closed stream, as Rich reads it
            return False
    return (stderr() if on_stderr else stdout()).is_terminal


_PLURALS = {"breach": "breaches", "match": "matches", "is": "are", "was": "were"}


def user(text: object) -> str:
    """Text from a record or a file, safe inside a Rich markup string."""
    from rich.markup import escape

    return escape(str(text))


def cell(text: object) -> Text:
    """Text from a record or a file as a table cell (a plain ``Text``, never markup)."""
    from rich.text import Text

    return Text(str(text))


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 breach``, ``3 breaches``: a number and the word it counts."""
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {plural or _PLURALS.get(word) or word + 's'}"


def _complain(message: str) -> None:
    console = stderr()
    # Off a terminal (a log, a script reading stderr) a message stays one line, whatever the
    # width Rich assumes there, so that it can be searched for.
    console.print(message, soft_wrap=not console.is_terminal)


def error(message: str) -> None:
    """An error line on stderr; ``message`` is markup: wrap text from input in ``user()``."""
    _complain(f"[red]error:[/] {message}")


def warning(message: str) -> None:
    """A warning line on stderr; ``message`` is markup: wrap text from input in ``user()``."""
    _complain(f"[yellow]warning:[/] {message}")


def interactive(*, quiet: bool = False) -> bool:
    """Whether to show progress: stderr is a terminal and the output is not machine-read."""
    return not quiet and is_terminal(on_stderr=True)


class Advance(Protocol):
    """A progress bar's step: one more item done; ``total``, when given, is the new total."""

    def __call__(self, total: int | None = None) -> None: ...


@contextmanager
def progress_bar(
    what: str, total: int | None, *, unit: str = "records", quiet: bool = False
) -> Iterator[Advance]:
    """A progress bar on stderr: the count (of ``total``), the rate and the time left.

    Shown only on a terminal and never with ``quiet`` (``--json``); it is drawn on stderr and
    vanishes when done, so stdout stays exactly the command's result. Yields ``advance``: call
    it after each item (with the total, when that changes as the items come). When the bar is
    not shown, Rich's progress module is not even imported (start-up time, docs/benchmarks.md).
    """
    if not interactive(quiet=quiet):
        yield _no_progress
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} {unit}/s", style="cyan")

    known = total is not None
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn() if known else TextColumn("{task.completed:,.0f} " + unit),
        Rate(),
        TimeRemainingColumn() if known else TimeElapsedColumn(),
    )
    with Progress(*columns, console=stderr(), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda total=None: bar.update(task, advance=1, total=total)


def _no_progress(total: int | None = None) -> None:
    """``advance`` of a progress bar that is not shown."""


class Command(typer.core.TyperCommand):
    """A command whose help shows a value's name for options that take one, nothing for flags.

    Typer prints each parameter's Python type (``<bool>``, ``<list[Path]>``); an option's
    ``metavar`` replaces it, and here ``--help`` and the arguments show none.
    """

    def get_help_option(self, ctx: click.Context) -> typer.core.TyperOption | None:
        return _no_type(super().get_help_option(ctx))

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _hide_argument_types(self.params)
        super().format_help(ctx, formatter)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        plain_coercion(self.get_params(ctx))  # no pydantic for plain values (cli/coercion.py)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # a reader that stopped early (| head): handled where output is written
        except OSError as exc:
            # A file a command writes (or reads) that the system refuses, or its output (a full
            # disk): named when it is a file, with the system's reason.
            where = "" if exc.filename is None else f"{user(exc.filename)}: "
            error(f"{where}{user(exc.strerror or exc)}")
            raise typer.Exit(2) from None
        except Exception as exc:
            reason = _database_failure(exc)
            if reason is None:
                raise
            error(user(reason))
            raise typer.Exit(2) from None


def _database_failure(exc: Exception) -> str | None:
    """A database URL that cannot be opened (a server not reached, a file not made, a URL not
    understood), in words without SQLAlchemy's exception names or SQL; None for any other error.

    Told by SQLAlchemy's classes, imported only then: the command line starts without it.
    """
    if not type(exc).__module__.startswith("sqlalchemy."):
        return None
    from sqlalchemy.exc import ArgumentError, InterfaceError, NoSuchModuleError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):  # not reached, not opened
        # The driver's own message, its first line (SQLAlchemy's text adds the statement).
        lines = str(exc.orig).strip().splitlines()
        reason = lines[0] if lines else "it did not answer"
    elif isinstance(exc, (ArgumentError, NoSuchModuleError)):
        reason = str(exc)
    else:
        return None
    return f"cannot use the database ({reason}): check the database URL given"


class Group(typer.core.TyperGroup):
    """The command group of ``chaodipi``, with help as ``Command`` shows it.

    The commands of other modules are loaded when named: ``lazy`` maps each such module (its
    ``register(app)`` adds its commands) to the names it adds, in the order help lists them, so
    that ``chaodipi audit FILE`` imports neither the server, the dashboard nor the batch code.
    """

    lazy: ClassVar[dict[str, tuple[str, ...]]] = {}

    def get_help_option(self, ctx: click.Context) -> typer.core.TyperOption | None:
        return _no_type(super().get_help_option(ctx))

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for param in self.params:  # Typer's shell-completion flags
            if isinstance(param, typer.core.TyperOption) and param.is_flag:
                param.metavar = ""
        super().format_help(ctx, formatter)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        plain_coercion(self.get_params(ctx))  # the shell-completion flags' and --help's
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = super().list_commands(ctx)
        later = [name for names_of in self.lazy.values() for name in names_of]
        return [n for n in names if n not in later] + later

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            module = next((m for m, names in self.lazy.items() if cmd_name in names), None)
            if module is not None:
                self._load(module)
        return super().get_command(ctx, cmd_name)

    def _load(self, module: str) -> None:
        import importlib

        commands = typer.Typer()
        importlib.import_module(module).register(commands)
        for name, command in typer.main.get_group(commands).commands.items():
            self.add_command(command, name)


def _no_type(option: typer.core.TyperOption | None) -> typer.core.TyperOption | None:
    if option is not None:
        option.metavar = ""
    return option


def _hide_argument_types(params: list[click.Parameter]) -> None:
    for param in params:
        if isinstance(param, typer.core.TyperArgument):
            param.display_type_rich = _nothing  # type: ignore[method-assign]  # per object


def _nothing(ctx: click.Context) -> None:
    return None
