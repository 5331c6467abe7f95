"""Entry point of the ``sorteio`` command. It imports nothing heavy itself, so a Ctrl-C while
click, rich and pydantic load (the first ~0.2 s) exits quietly with 130 instead of printing an
import traceback; ``cli.main`` takes over once they are loaded."""

import sys


def main() -> None:
    """Run ``sorteio.cli.main``; Ctrl-C during the imports exits 130 without a traceback."""
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("aborted\n")
        sys.exit(130)
    run()
