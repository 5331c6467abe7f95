"""The socket server's files: the port file (port, token, pid) and the start-up error file;
and the removal of a gone game's files (``--game-files``).

Both may live where other local users can write (issue 10: a symlink planted at
``<port-file>.tmp`` made the server truncate a file of the user running it), so nothing here
follows a symlink or reuses a file it did not create: new files are made with
``O_EXCL|O_NOFOLLOW``, mode 0600, and renamed into place; missing folders are made 0700.
"""

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import Iterable, Tuple


def make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents with mode 0700 (``mkdir -p`` would give the
    parents the default mode); folders that exist are left as they are."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for level in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(str(level), 0o700)


def create_new(target: Path) -> Tuple[Path, int]:
    """A new file beside ``target`` with a random name, mode 0600, that is no one else's: O_EXCL
    fails on anything already there and O_NOFOLLOW on a symlink, so a file or symlink another
    user planted is never opened, let alone truncated (issue 10)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    while True:
        # Named after the target, so a game's stale-file cleanup (<port file>*) also finds it.
        tmp = target.with_name(f"{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return tmp, os.open(str(tmp), flags, 0o600)
        except FileExistsError:
            continue  # a name taken by chance (or planted): draw another


def write_port_file(path: str, port: int, token: str) -> Tuple[int, int]:
    """Write ``{"port", "token", "pid"}`` atomically, readable by the owner only: a new private
    file (see ``_create_new``) renamed over ``path`` (a symlink there is replaced, not followed).
    Returns the file's ``(st_dev, st_ino)``, so the server removes only its own file."""
    target = Path(path)
    make_private_dirs(target.parent)
    tmp, fd = create_new(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"port": port, "token": token, "pid": os.getpid()}, handle)
            handle.flush()
            info = os.fstat(handle.fileno())
        os.replace(str(tmp), str(target))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(str(tmp))
        raise
    return info.st_dev, info.st_ino


def remove_port_file(path: str, identity: Tuple[int, int]) -> None:
    """Remove the port file if it is still the one this server wrote."""
    with contextlib.suppress(OSError):
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) == identity:
            os.remove(path)


def write_error_file(path: str, text: str) -> None:
    """Best effort; O_NOFOLLOW: a symlink planted at ``path`` is not followed (issue 10)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(OSError):
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)


def remove_game_files(prefixes: Iterable[str]) -> int:
    """Remove the files whose path starts with one of ``prefixes`` (an absolute folder path and
    the start of a file name, e.g. ``/home/me/.local/share/godot/app_userdata/G/sorteio_deck_42_``):
    a game's deck copies, port and error files, once that game is gone. Only entries directly in
    that folder and never a folder (a symlink is removed, not followed). Returns how many were
    removed; what cannot be removed (already gone, no permission) is left, silently."""
    removed = 0
    for prefix in prefixes:
        folder, start = os.path.split(prefix)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.startswith(start):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    continue
                os.remove(entry.path)
                removed += 1
    return removed
