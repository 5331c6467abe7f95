"""The frozen ``sorteio serve`` shipped beside an exported game (the PyInstaller entry point).

The Godot node runs it as it runs ``python -c LAUNCHER``: ``sorteio-serve ERROR_FILE --port 0
--port-file F --parent-pid P --game-files PREFIX ...``, and the same launcher code
(``sorteio.bridge.server.LAUNCHER``) runs here, so a start-up error reaches the game the same way.
Started by hand, it takes the options of ``sorteio serve`` (``sorteio-serve --port-file
/tmp/sorteio.json``).
"""

import os
import signal
import sys

from sorteio.bridge import server


def _stop_with_the_parent() -> bool:
    # The one-folder server runs as one process, the game's child. Ask Linux for a SIGTERM when
    # the game goes, even killed with SIGKILL, so the server shuts down cleanly at once (and
    # removes its port file and, with --game-files, the game's), before --parent-pid's watch
    # would notice. Linux sends it when the parent's thread that started us ends: the node starts
    # the server from the main thread. False when the parent died before the request took effect.
    if not (getattr(sys, "frozen", False) and sys.platform.startswith("linux")):
        return True
    import ctypes

    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getppid()
    libc.prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
    return os.getppid() == parent


if __name__ == "__main__":
    from_the_node = len(sys.argv) > 1 and not sys.argv[1].startswith("-")
    if not _stop_with_the_parent() and not from_the_node:
        sys.exit(0)
    if from_the_node:
        # The first argument is the error file. A game already gone is seen by --parent-pid's
        # check: with --game-files its files are removed and it exits 2, writing no error file.
        exec(server.LAUNCHER)
    else:
        sys.exit(server.main(sys.argv[1:]))
