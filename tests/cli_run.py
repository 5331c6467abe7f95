"""Run the ``sorteio`` CLI as a user does, in a subprocess, and check it never shows a traceback."""

import subprocess
import sys


def sorteio(*args, check_code=0, env=None):
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=120, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == check_code, (proc.returncode, proc.stdout, proc.stderr)
    return proc
