"""Reading a solver's command stream: what it holds at each check."""

from __future__ import annotations


def held_at_checks(data: bytes) -> list[list[bytes]]:
    """What a solver holds at each `(check-sat)`: the commands of its open scopes, in order (not the scopes)."""
    scopes: list[list[bytes]] = [[]]
    found: list[list[bytes]] = []
    for line in data.splitlines(keepends=True):
        command = line.strip()
        if command == b"(reset)":
            scopes = [[]]
        elif command.startswith(b"(push "):
            scopes += [[] for _ in range(int(command[6:-1]))]
        elif command.startswith(b"(pop "):
            del scopes[len(scopes) - int(command[5:-1]):]
            assert scopes, "a pop below level 0"
        elif command == b"(check-sat)":
            found.append([c.rstrip(b"\r\n") for scope in scopes for c in scope])
        elif command and not command.startswith((b"(get-", b"(labels", b";")):
            scopes[-1].append(line)
    return found


def sent_since_reset_at_checks(data: bytes) -> list[bytes]:
    """What a solver was sent since its last `(reset)` (or its start) at each `(check-sat)`, scopes included, with
    line ends as z3 reads them and without the questions that change nothing (`(get-info ...)`): what decides its
    answer and its model."""
    found: list[bytes] = []
    since: list[bytes] = []
    for line in data.replace(b"\r\n", b"\n").splitlines(keepends=True):
        command = line.strip()
        if command == b"(reset)":
            since = []
            continue
        if not command.startswith(b"(get-info"):
            since.append(line)
        if command == b"(check-sat)":
            found.append(b"".join(since))
    return found
