"""Entry point of the ``sorteio`` command. It imports nothing heavy itself, so a Ctrl-C while
click, rich and pydantic load (the first ~0.2 s) exits quietly with 130 instead of printing an
import traceback; ``cli.main`` takes over once they are loaded.

The command line is the ``cli`` extra (``pip install 'sorteio[cli]'``: click, rich, openpyxl);
the base install carries only what the rules and the Godot bridges import (pydantic, issue 14).
Without the extra, ``sorteio serve`` still runs (the socket bridge needs no CLI library: it is
``sorteio.bridge.server``, the module the Godot node itself starts) and every other command says
which extra to install and exits 2, without a traceback.
"""

import gc
import sys

BAD_INPUT = 2
# The libraries of the `cli` extra (top-level module names).
CLI_EXTRA = ("click", "rich")
CLI_HINT = ("the sorteio command line needs the 'cli' extra: pip install 'sorteio[cli]' "
            "(the base install has only the rules and the Godot bridges; `sorteio serve` and "
            "`python -m sorteio.bridge.server` work without it)")


def missing_cli_library(exc: ImportError) -> bool:
    """Whether ``exc`` says a library of the ``cli`` extra is not installed (and not some other
    import failure, which is a bug to show as it is)."""
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ModuleNotFoundError) and name.split(".")[0] in CLI_EXTRA


def main() -> None:
    """Run ``sorteio.cli.main``; Ctrl-C during the imports exits 130 without a traceback."""
    try:
        try:
            from .cli import main as run
        except ImportError as exc:
            if not missing_cli_library(exc):
                raise
            sys.exit(_without_cli())
    except KeyboardInterrupt:
        sys.stderr.write("aborted\n")
        sys.exit(130)
    try:
        run()
    finally:
        # The interpreter's exit runs full garbage collections over every object still alive
        # (pydantic's schemas, rich, matplotlib's modules after a report): ~0.2 s of CPU after
        # `simulate --out`, a tenth of the §7 sweep's (issue 16). Frozen objects are skipped;
        # modules are still torn down and atexit handlers still run. Only here, at the end of
        # the process's own entry point: tests call cli.main in-process and go on living.
        gc.freeze()


def _without_cli() -> int:
    """The base install: ``sorteio serve [OPTIONS]`` runs the socket server (same options as the
    CLI's ``serve``); anything else prints the install hint and returns 2."""
    args = sys.argv[1:]
    if args[:1] == ["serve"]:
        from .bridge.server import main as serve

        return serve(args[1:])
    sys.stderr.write(f"error: {CLI_HINT}\n")
    return BAD_INPUT
