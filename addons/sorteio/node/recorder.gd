extends RefCounted
## Writes the requests of a match and their replies to a recording (JSON), which the scripted
## bridge ([code]bridges/scripted_bridge.gd[/code]) replays with no Python:
## [code]{"format": "sorteio-recording/1", "exchanges": [{method, params, reply}, ...]}[/code].

var _exchanges: Array[Dictionary] = []


## Adds one exchange and writes the whole recording to [param path] (user://, res:// or
## absolute); a file that cannot be opened is skipped, as a game's recording is optional.
func record(path: String, method: String, params: Dictionary, reply: Dictionary) -> void:
	# Paths (the deck, a save's deck) stay out: a recording replays on any machine.
	var kept: Dictionary = params.duplicate()
	kept.erase("deck")
	kept.erase("deck_text")  # a deck from the pack, sent as its text
	kept.erase("state")
	_exchanges.append({"method": method, "params": kept, "reply": reply})
	if path.begins_with("res://") or path.begins_with("user://"):
		path = ProjectSettings.globalize_path(path)
	var file: FileAccess = FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		return
	file.store_string(
		JSON.stringify(
			{"format": SorteioNode.RECORDING_FORMAT, "exchanges": _exchanges}, "\t", false
		)
	)
	file.close()
