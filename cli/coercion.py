"""Command-line values of plain types (flags, words, paths) read without pydantic.

Typer 0.29 coerces every parameter's value, a flag's default included, through a pydantic
``TypeAdapter`` that it builds on first use: importing pydantic and building the adapters was
more than a third of ``chaodipi audit FILE`` from start to finish, which may take 0.25 s
(docs/benchmarks.md: 387 M of its 1,081 M instructions). A value of the type the parameter
already declares (a ``bool`` for a flag, a ``str`` for a word, a ``str`` naming a path) needs
none of that: ``plain_coercion`` gives such parameters a coercion that returns the value as
Typer's own would, down to the error messages of the path checks, and hands any other value to
Typer's (so pydantic is imported only for the values that need it).

This reaches into Typer's parameter coercion (``typer._coercion``), which is not public, as
cli/console.py reaches into its click (``typer._click``); pyproject.toml therefore keeps Typer
below 0.30, and tests/cli/test_startup.py checks each value shape against Typer's own reading.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click.exceptions import BadParameter
from typer._click.utils import format_filename
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import path_type_name
from typer.core import _TyperParameter


def plain_coercion(params: Iterable[object]) -> None:
    """Give each parameter of a plain type (``bool``, ``str``, a path or a list of one of them,
    without a parser) a coercion that needs no pydantic for values already of that type.

    Worst case O(parameters); a parameter whose coercion Typer has already built is left alone.
    """
    for param in params:
        if isinstance(param, _TyperParameter) and param._runtime_param is None:
            plain = _PlainValue.of(param.type_descriptor)
            if plain is not None:
                param._runtime_param = plain


_WORDS = (bool, str)


@dataclass(frozen=True)
class _PlainValue(RuntimeParam):
    """A parameter's coercion for values of its own type; Typer's for any other value.

    ``item`` is the type of the value, or of each value of a list: ``bool``, ``str`` or a
    ``Path`` class.
    """

    descriptor: TypeDescriptor
    item: type

    @classmethod
    def of(cls, descriptor: TypeDescriptor) -> _PlainValue | None:
        """The plain coercion of a parameter, or None where Typer's own is needed."""
        info = descriptor.parameter_info
        annotation = descriptor.annotation
        if descriptor.file_annotation is not None or info.parser is not None:
            return None
        origin: object = get_origin(annotation)
        if origin is list:
            (item,) = get_args(annotation)
        elif origin is None:
            item = annotation
        else:
            return None
        if item in _WORDS or (
            isinstance(item, type)
            and issubclass(item, Path)
            and info.path_type is None
            and not info.allow_dash
        ):
            return cls(info, annotation, descriptor, item)
        return None

    @cached_property
    def _typer(self) -> RuntimeParam:
        return build_runtime_param(self.descriptor)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        """The value as the command gets it. Worst case O(values), each path one ``os.stat``
        (with ``realpath`` and ``access`` when the parameter asks for them)."""
        if self.item is not self.annotation:  # a list: one value, or several
            values = value if isinstance(value, (list, tuple)) else [value]
            if all(self._plain(v) for v in values):
                return [self._one(v, param, ctx) for v in values]
        elif self._plain(value):
            return self._one(value, param, ctx)
        return self._typer._coerce_value(value, param, ctx)

    def _plain(self, value: Any) -> bool:
        """Whether the value is read here: a word or a flag as such, a path as a ``str``."""
        if self.item in _WORDS:
            return type(value) is self.item
        return type(value) is str or isinstance(value, self.item)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        return value if self.item in _WORDS else self._path(value, param, ctx)

    def _path(self, value: str | Path, param: Any, ctx: Any) -> Path:
        """As Typer's ``coerce_cli_path`` reads a path, with ``Path(value)`` for pydantic's."""
        info = self.parameter_info
        rv: str | Path = value if isinstance(value, self.item) else self.item(value)
        if info.resolve_path:
            rv = os.path.realpath(rv)
        label = path_type_name(info)
        try:
            st = os.stat(rv)
        except OSError:
            if not info.exists:
                return self._as_item(rv)
            raise BadParameter(
                f"{label} {format_filename(value)!r} does not exist.", ctx=ctx, param=param
            ) from None
        where = repr(format_filename(value))
        if not info.file_okay and stat.S_ISREG(st.st_mode):
            raise BadParameter(f"{label} {where} is a file.", ctx=ctx, param=param)
        if not info.dir_okay and stat.S_ISDIR(st.st_mode):
            raise BadParameter(f"{label} {where} is a directory.", ctx=ctx, param=param)
        if info.readable and not os.access(rv, os.R_OK):
            raise BadParameter(f"{label} {where} is not readable.", ctx=ctx, param=param)
        if info.writable and not os.access(rv, os.W_OK):
            raise BadParameter(f"{label} {where} is not writable.", ctx=ctx, param=param)
        return self._as_item(rv)

    def _as_item(self, rv: str | Path) -> Path:
        """The path as the parameter's class (a ``resolve_path`` gives a ``str``)."""
        if isinstance(rv, Path) and isinstance(rv, self.item):
            return rv
        made: Path = self.item(rv)
        return made
