"""Rewrite pythonscript's standard library zip for a shipped game: compiled, without what no
game runs. Run by build_demo.py with the runtime's own CPython 3.8 (the .pyc magic must match).

    python3.8 precompile_zip.py lib/python38.zip

pythonscript 0.50 ships the standard library as a zip of .py files only; zipimport cannot write
.pyc files, so every start compiled each module it imports again (about 1 s of the in-process
bridge's start-up). Each .py gets an unchecked hash-based .pyc beside it (PEP 552: used as is,
no timestamp to match, so it works in any time zone); the sources stay for tracebacks. Left out:
ensurepip (pip's wheels), idlelib, tkinter, turtledemo, lib2to3, pydoc_data and test packages.
"""

import importlib.util
import marshal
import os
import sys
import zipfile

DROPPED = ("ensurepip/", "idlelib/", "tkinter/", "turtledemo/", "lib2to3/", "pydoc_data/",
           "test/")
DROPPED_INSIDE = ("/test/", "/tests/")
UNCHECKED_HASH = 0b01


def kept(name):
    return not name.startswith(DROPPED) and not any(part in name for part in DROPPED_INSIDE)


def pyc(source, name):
    code = compile(source, name, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + UNCHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def main(path):
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist() if kept(info.filename)]
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in members:
            target.writestr(info, data)
            if info.filename.endswith(".py"):
                compiled = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
                compiled.compress_type = zipfile.ZIP_DEFLATED
                target.writestr(compiled, pyc(data, info.filename))
    os.replace(tmp, path)


if __name__ == "__main__":
    main(sys.argv[1])
