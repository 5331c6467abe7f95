"""``python -m sorteio``: the same as the ``sorteio`` command."""

from .launch import main

main()
