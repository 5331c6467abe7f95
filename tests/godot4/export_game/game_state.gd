extends Node
## The small export game's own autoload. Godot hands every script language each autoload at
## start-up (PythonLanguage too), before an exported game's node loads the addon's Python side:
## the case that made the exported demo print upstream's NotImplementedError and crash at exit
## until the export plugin shipped the fixes as the runtime's sitecustomize.py (issue 13).

## Matches this run has finished (the game counts them; nothing reads it but the game).
var matches_played: int = 0
