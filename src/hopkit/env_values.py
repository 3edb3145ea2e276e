"""The values of environment variables that hopkit parses, checked before they are used.

:mod:`hopkit.environment` reads each variable; the functions here turn its text into what hopkit uses
(a folder, a URL, a list of names) or refuse it with a :class:`~hopkit.errors.ConfigError` of one line
that names the variable and says what it expects (the command line then exits 2). A value is checked
each time it is read, so a variable set later (or by a test) is checked too.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from hopkit.errors import ConfigError

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _shown(value: str) -> str:
    return repr(value if len(value) <= 200 else value[:200] + "...")


def file_in_the_way(path: Path) -> Path | None:
    """The nearest part of ``path`` that exists, where it is not a folder (None where it is: hopkit may then
    make the rest of ``path``)."""
    for existing in (path, *path.parents):
        if existing.exists():
            return None if existing.is_dir() else existing
    return None


def folder(name: str, value: str, *, expects: str, must_exist: bool) -> Path:
    """``value`` (``~`` expanded) as a folder: one that exists when ``must_exist``, else one hopkit may create
    (whatever of it exists is a folder, not a file).

    Raises:
        ConfigError: naming ``name``: the value holds a control character, or names a file (or a path through
            one), or, when ``must_exist``, nothing.
    """
    if _CONTROL.search(value):
        raise ConfigError(f"{name}: {_shown(value)} holds a control character; expected {expects}")
    path = Path(value).expanduser()
    blocking = file_in_the_way(path)
    if blocking is not None:
        through = "" if blocking == path else f" ({blocking} is a file)"
        raise ConfigError(f"{name}: {path} is not a folder{through}; expected {expects}")
    if must_exist and not path.is_dir():
        raise ConfigError(f"{name}: there is no folder {path}; expected {expects}")
    return path


def http_url(name: str, value: str, *, expects: str) -> str:
    """``value`` as an ``http://`` or ``https://`` URL with a host.

    Raises:
        ConfigError: naming ``name``, for anything else (another scheme, no host, spaces, a bad port).
    """
    problem = None
    if _CONTROL.search(value) or " " in value:
        problem = "holds a space or a control character"
    else:
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 (a port that is not a number in range raises here)
        except ValueError as error:
            problem = f"is not a URL ({error})"
        else:
            if parts.scheme not in ("http", "https"):
                problem = "is not an http:// or https:// URL"
            elif not parts.hostname:
                problem = "names no host"
    if problem is not None:
        raise ConfigError(f"{name}: {_shown(value)} {problem}; expected {expects}")
    return value


def dotted_names(name: str, value: str, *, expects: str) -> tuple[str, ...]:
    """The names in ``value`` (separated by commas or spaces), each a dotted Python name (``module.Class``).

    Raises:
        ConfigError: naming ``name`` and the first name that is not one.
    """
    names = tuple(part for part in value.replace(",", " ").split() if part)
    for part in names:
        if not _DOTTED.fullmatch(part):
            raise ConfigError(f"{name}: {_shown(part)} is not a dotted Python name; expected {expects}")
    return names


def database_url(name: str, value: str) -> str:
    """``value`` as a database URL SQLAlchemy can parse (its driver is checked when the store opens).

    Raises:
        ConfigError: naming ``name`` (the value is not shown: it may hold a password).
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        make_url(value)
    except (ArgumentError, ValueError):
        raise ConfigError(f"{name}: not a database URL; expected e.g. sqlite:///path/to/hopkit.db or "
                          "postgresql+psycopg://user:password@host:5432/db, or leave it unset for the SQLite "
                          "store in HOPKIT_HOME") from None
    return value


def secret_token(name: str, value: str, *, expects: str) -> str:
    """``value`` as a token sent in an HTTP header (an API key): visible ASCII only, no space.

    Raises:
        ConfigError: naming ``name`` and the position of the first other character (the value is not
            shown: it is a secret).
    """
    for position, character in enumerate(value, 1):
        if not "!" <= character <= "~":
            kind = ("a space" if character == " " else "a control character (a newline?)" if _CONTROL.match(character)
                    else "a character that is not ASCII")
            raise ConfigError(f"{name}: holds {kind} at position {position} of {len(value)}; expected {expects}")
    return value
