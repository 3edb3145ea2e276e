"""Dict-like model responses: ``{"answer": "...", "confidence": 4}`` and what small models make of it.

Tried in order, the first that gives every required field wins (as DSPy's JSON adapter
tries strict, repaired, then brace-matched JSON):

1. the members after each ``{`` (missing closing brace, single quotes, bare words allowed);
2. the members from the first key onwards, for a response without its opening brace;
3. the text between the known keys, as the MIGRES authors split responses on their keys.
"""

from __future__ import annotations

import re
from typing import Collection, Iterator, Mapping

from hopkit.errors import ParseError
from hopkit.parsing.scanner import QUOTES, Bare, Members, Quoted, Scanned, decode_escapes, scan_list, scan_members
from hopkit.parsing.values import FIELD_KINDS, FieldKind, Value, coerce, is_null

MAX_STARTS = 8


def parse_dict(text: str, fields: Mapping[str, FieldKind], *,
               optional: Collection[str] = ()) -> dict[str, Value | None]:
    """The values of ``fields`` in a dict-like response.

    Keys match in any case and with spaces, underscores or hyphens between words
    (``Missing Information`` is ``missing_information``); the first occurrence wins.

    Args:
        text: the model's response.
        fields: each expected key and the kind of its value: "str", "int", "float",
            "bool", "list[str]" or "list[int]".
        optional: keys that may be absent or null; they come back as None.

    Returns:
        A dict with every key of ``fields``, in the order of ``fields``.

    Raises:
        ParseError: a required key is absent or null, or a value is not of its kind.
        ValueError: ``fields`` names an unknown kind, or ``optional`` an unknown key.
    """
    _check_spec(fields, optional)
    expected = "a dict with " + ", ".join(f"{key!r} ({kind})" for key, kind in fields.items())
    key_spans = _key_spans(text, fields)
    problems: list[str] = []
    for found in _candidates(text, fields, key_spans, expected):
        result, problem = _read(found, fields, optional)
        if result is not None:
            return result
        problems.append(problem)
    raise ParseError(expected, text, problems[0])


def normalize_key(key: str) -> str:
    """``key`` lower-cased with everything but letters and digits removed."""
    return "".join(c for c in key.casefold() if c.isalnum())


def _check_spec(fields: Mapping[str, FieldKind], optional: Collection[str]) -> None:
    for key, kind in fields.items():
        if kind not in FIELD_KINDS:
            raise ValueError(f"field {key!r} has unknown kind {kind!r}; known: {', '.join(FIELD_KINDS)}")
    unknown = [key for key in optional if key not in fields]
    if unknown:
        raise ValueError(f"optional keys {unknown} are not among the fields {list(fields)}")
    norms = [normalize_key(key) for key in fields]
    if "" in norms or len(set(norms)) < len(norms):
        raise ValueError(f"fields {list(fields)} must have distinct keys with letters or digits")


def _candidates(text: str, fields: Mapping[str, FieldKind], key_spans: list[tuple[int, int, str]],
                expected: str) -> Iterator[dict[str, Scanned]]:
    by_norm = {normalize_key(key): key for key in fields}
    starts = [i + 1 for i, ch in enumerate(text) if ch == "{"][:MAX_STARTS]
    if key_spans:
        starts.append(key_spans[0][0])
    for start in sorted(starts):
        try:
            members = scan_members(text, start, expected)
        except ParseError:
            continue
        yield {by_norm[norm]: value for norm, value in _by_norm_key(members).items() if norm in by_norm}
    yield _between_keys(text, key_spans, expected)


def _by_norm_key(members: Members) -> dict[str, Scanned]:
    found: dict[str, Scanned] = {}
    for key, value in members:
        found.setdefault(normalize_key(key), value)
    for _, value in members:
        if isinstance(value, dict):
            for key, inner in value.items():
                found.setdefault(normalize_key(key), inner)
    return found


def _read(found: Mapping[str, Scanned], fields: Mapping[str, FieldKind],
          optional: Collection[str]) -> tuple[dict[str, Value | None] | None, str]:
    result: dict[str, Value | None] = {}
    for key, kind in fields.items():
        value = found.get(key)
        if value is None or is_null(value):
            if key not in optional:
                return None, f"no value for {key!r}"
            result[key] = None
            continue
        try:
            result[key] = coerce(value, kind)
        except ValueError as error:
            return None, f"{key!r} should be {kind}: {error}"
    return result, ""


def _key_pattern(key: str) -> re.Pattern[str]:
    words = re.findall(r"[^\W_]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", key))
    name = r"[\s_-]*".join(re.escape(word) for word in words)
    return re.compile(rf"(?<!\w)[\"'\u201c\u2018]?[_-]*{name}[_-]*[\"'\u201d\u2019]?[ \t]*[:=]", re.IGNORECASE)


def _key_spans(text: str, fields: Mapping[str, FieldKind]) -> list[tuple[int, int, str]]:
    """Every place a known key is written followed by ':' or '=': (start, end, key), in text order."""
    spans = [(match.start(), match.end(), key) for key in fields for match in _key_pattern(key).finditer(text)]
    return sorted(spans)


def _between_keys(text: str, key_spans: list[tuple[int, int, str]], expected: str) -> dict[str, Scanned]:
    found: dict[str, Scanned] = {}
    for number, (_, end, key) in enumerate(key_spans):
        if key in found:
            continue
        stop = key_spans[number + 1][0] if number + 1 < len(key_spans) else len(text)
        found[key] = _loose_value(text[end:stop], expected)
    return found


def _loose_value(piece: str, expected: str) -> Scanned:
    piece = piece.strip()
    if piece.startswith("["):
        try:
            return scan_list(piece, 0, expected)[0]
        except ParseError:
            pass
    if "}" in piece:
        piece = piece[:piece.rindex("}")]
    piece = piece.rstrip().rstrip(",").rstrip()
    if piece and piece[0] in QUOTES:
        end = piece.rfind(QUOTES[piece[0]], 1)
        return Quoted(decode_escapes(piece[1:end] if end > 0 else piece[1:]))
    return Bare(piece.split("\n", 1)[0].strip())
