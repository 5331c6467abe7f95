class_name SorteioDeck, "res://addons/sorteio/icons/sorteio_deck.svg"
extends Resource
# A deck as a Godot resource, made from a deck JSON by the editor's import plugin
# (editor/deck_import_plugin.gd). The JSON file stays the designers' source of truth: this is
# its text plus what Python's validation said on import. SorteioNode accepts one in `deck`;
# an exported game carries the text inside its pack, so Python gets the deck without the JSON.

# The deck JSON as imported (what Python reads).
export(String, MULTILINE) var json_text := ""
# The file it was imported from (res:// path).
export var source_path := ""
# The deck's name (its "nome"), "" when it did not validate.
export var deck_name := ""
# True when Python accepted the deck on import.
export var valid := false
# The problems found on import, one Dictionary each: severity ("error" or "warning"), file,
# card_id (or null), field, message (as the Python validate request returns them).
export var problems := []


func errors() -> Array:
	var out := []
	for row in problems:
		if row.get("severity", "") == "error":
			out.append(row)
	return out
