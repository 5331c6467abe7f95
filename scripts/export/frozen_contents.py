"""Every member of a PyInstaller executable, decompressed, for the search for build paths.

    FREEZER_PYTHON frozen_contents.py EXE > dump

Run with the Python that has PyInstaller (build/export/.freeze-venv). Writes records of a 4-byte
name length, an 8-byte data length (big-endian), the name (UTF-8) and the data: each entry of the
executable's archive, each module of its PYZ (the marshalled code object, which holds its file
name and constants) and each member of a zip inside (base_library.zip).
"""

import io
import marshal
import sys
import zipfile

from PyInstaller.archive.readers import CArchiveReader


def members(path):
    archive = CArchiveReader(path)
    for name, entry in archive.toc.items():
        kind = entry[-1]
        if kind == "z":  # the PYZ: one code object per module
            pyz = archive.open_embedded_archive(name)
            for module in pyz.toc:
                code = pyz.extract(module)
                yield f"{name}/{module}", marshal.dumps(code) if code is not None else b""
            continue
        data = archive.extract(name)
        if data is None:
            continue
        yield name, data
        if data[:4] == b"PK\x03\x04":
            with zipfile.ZipFile(io.BytesIO(data)) as inner:
                for member in inner.namelist():
                    yield f"{name}/{member}", inner.read(member)


def main():
    out = sys.stdout.buffer
    for name, data in members(sys.argv[1]):
        raw = name.encode()
        out.write(len(raw).to_bytes(4, "big") + len(data).to_bytes(8, "big") + raw + data)


if __name__ == "__main__":
    main()
