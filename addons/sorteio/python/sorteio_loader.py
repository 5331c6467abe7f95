"""Imports the addon's Python side (sorteio_extension, which registers SorteioPython) when the
in-process bridge loads this file as a script and reloads it: it works from any working folder,
where a project-root ``*.pyextension`` is read only from the folder the game was started in."""

import addons.sorteio.python.sorteio_extension  # noqa: F401  (registers the class on import)
