#!/bin/sh
# Stands in for a Python where `sorteio` is not installed: the test interpreter without
# site-packages (-S) or the current folder (-I) on its path.
exec "$SORTEIO_PYTHON" -I -S "$@"
