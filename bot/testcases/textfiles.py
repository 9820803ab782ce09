"""Reading input files safely: regular files only, and TOML whose nesting the standard parser can take.

`read_regular` is the only function here that touches the file system. A FIFO, a device such as
`/dev/zero` or a folder given where a file is expected would block the reader or never end: it is
refused, with what it is, before a byte is read. `toml_nesting_line` is pure: `tomllib` recurses once
per nested array or inline table, so a file nested about 500 deep exhausts Python's stack; callers
refuse such a file with this line number first.
"""

from __future__ import annotations

import os
import stat

# TOML arrays and inline tables inside each other: far beyond any config or case file
MAX_TOML_NESTING = 100
TOML_TOO_DEEP = "arrays or tables nested more than {limit} levels deep"


class NotRegularFile(OSError):
    """A path that names something other than a regular file; the message says what it is (callers name
    the path)."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (symlinks followed); raises OSError, NotRegularFile for anything else."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{_kind(mode)}, not a regular file")
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        return handle.read()


def read_regular_text(path: str | os.PathLike[str]) -> str:
    """`read_regular` decoded as UTF-8 with universal newlines, like `Path.read_text(encoding="utf-8")`.

    Raises OSError (NotRegularFile included) or UnicodeDecodeError."""
    return read_regular(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def toml_nesting_line(text: str, limit: int = MAX_TOML_NESTING) -> int | None:
    """The line of the first `[` or `{` nested more than `limit` deep in TOML text, or None.

    Strings and comments are skipped, so brackets inside them do not count; table headers (`[[case]]`)
    count like arrays, which only matters past the limit.
    """
    depth = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            end = _string_end(text, i)
            line += text.count("\n", i, end)
            i = end
        else:
            if c in "[{":
                depth += 1
                if depth > limit:
                    return line
            elif c in "]}":
                depth = max(0, depth - 1)
            i += 1
    return None


def _string_end(text: str, i: int) -> int:
    """The offset after the TOML string starting at text[i] (a quote), or the end of text."""
    q = text[i]
    n = len(text)
    basic = q == '"'
    if text.startswith(q * 3, i):
        j = i + 3
        while j < n:
            if basic and text[j] == "\\":
                j += 2
            elif text.startswith(q * 3, j):
                return j + 3
            else:
                j += 1
        return n
    j = i + 1
    while j < n and text[j] != "\n":
        if basic and text[j] == "\\":
            j += 2
        elif text[j] == q:
            return j + 1
        else:
            j += 1
    return min(j, n)
