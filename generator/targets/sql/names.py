"""Identifiers and literals for generated SQL: the only way spec text reaches a ``.sql`` file.

Identifiers are always double-quoted (``"`` doubled) and at most 63 bytes, PostgreSQL's limit
(longer names are silently truncated by the server, so two long names could become one). A
name statedoc derives that would be longer keeps a readable prefix, then ``_`` and eight hex
digits of the SHA-256 of the whole name, then its suffix: stable across runs and machines.

PostgreSQL literals are ``E'...'`` strings holding only printable ASCII: every other
character, and ``\\``, ``'`` and ``$``, is an escape, so a literal never spans a line, does not
depend on ``standard_conforming_strings`` and can never end a dollar quote. Identifiers may hold
``$`` (``"a$statedoc$b"`` is one valid name), so a function or ``DO`` body is enclosed by
:func:`dollar_quote`, whose tag is chosen so that it does not occur in the body at all.
SQLite has no escapes: ``'`` is doubled and the text is written as is.

Neither database can store NUL in text. A state name with NUL is refused; in messages and
comments NUL is written as the two characters ``\\0`` (:func:`message_text`).
"""

from __future__ import annotations

#: PostgreSQL's NAMEDATALEN - 1.
MAX_NAME_BYTES = 63


class SqlError(ValueError):
    """The document cannot be written as SQL (the message says why)."""


def ident(name: str) -> str:
    """A quoted identifier (refuses what PostgreSQL would truncate or cannot hold)."""
    if not name or "\x00" in name:
        raise SqlError(f"{name!r} cannot be an SQL identifier (empty or NUL)")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise SqlError(f"{name!r} is longer than {MAX_NAME_BYTES} bytes")
    return '"' + name.replace('"', '""') + '"'


def qualified(schema: str | None, name: str) -> str:
    return ident(name) if schema is None else f"{ident(schema)}.{ident(name)}"


def fit_name(base: str, suffix: str = "") -> str:
    """``base + suffix`` when it fits 63 bytes, else a prefix of ``base``, ``_``, eight hex
    digits of the whole name's SHA-256, and ``suffix``."""
    whole = base + suffix
    if len(whole.encode("utf-8")) <= MAX_NAME_BYTES:
        return whole
    import hashlib  # only for a name too long: the config is parsed on every lint's start

    digest = hashlib.sha256(whole.encode("utf-8")).hexdigest()[:8]
    room = MAX_NAME_BYTES - len(suffix.encode("utf-8")) - 1 - len(digest)
    prefix = base.encode("utf-8")[:room].decode("utf-8", "ignore")  # whole characters only
    return f"{prefix}_{digest}{suffix}"


def message_text(text: str) -> str:
    """Spec text as a database message or comment holds it: NUL becomes ``\\0``."""
    return text.replace("\x00", "\\0")


def state_text(name: str) -> str:
    """A state name as a literal may hold it (refused when it has NUL)."""
    if "\x00" in name:
        raise SqlError(f"state {name!r} contains NUL, which database text cannot hold")
    return name


def pg_literal(text: str) -> str:
    """An ``E'...'`` literal of printable ASCII that PostgreSQL reads back as ``text``."""
    out = ["E'"]
    for char in text:
        code = ord(char)
        if char in "\\'$":
            out.append(f"\\x{code:02x}")
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code == 0 or 0xD800 <= code <= 0xDFFF:
            raise SqlError(f"U+{code:04X} cannot be stored in PostgreSQL text")
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append("'")
    return "".join(out)


def dollar_quote(body: str, tag: str = "statedoc") -> str:
    """``body`` between dollar quotes whose tag occurs nowhere in it: ``$statedoc$``, else
    ``$statedoc_1$``, ``$statedoc_2$``, ... The body must start and end with a line break, so
    neither quote can run into it (``$statedoc`` + ``$`` of the body, say)."""
    if not (body.startswith("\n") and body.endswith("\n")):
        raise ValueError("a dollar-quoted body must start and end with a line break")
    quote, n = f"${tag}$", 0
    while quote in body:
        n += 1
        quote = f"${tag}_{n}$"
    return f"{quote}{body}{quote}"


def sqlite_literal(text: str) -> str:
    """A standard SQL literal (``'`` doubled); SQLite reads it back as ``text``."""
    if "\x00" in text:
        raise SqlError("NUL cannot be written in an SQLite literal")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise SqlError("a lone surrogate cannot be written as UTF-8")
    return "'" + text.replace("'", "''") + "'"


def comment_line(text: str) -> str:
    """Text safe inside one ``--`` comment line: every line break and control is escaped."""
    return "".join(
        c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
        for c in text
    )
