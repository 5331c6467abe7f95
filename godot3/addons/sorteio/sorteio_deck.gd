tool
class_name SorteioDeck, "res://addons/sorteio/icons/sorteio_deck.svg"
extends Resource
# A deck as a Godot resource, made from a deck JSON by the editor's import plugin
# (editor/deck_import_plugin.gd). The JSON file stays the designers' source of truth: this is
# its text plus what Python's validation said on import. SorteioNode accepts one in `deck`;
# an exported game carries the text inside its pack, so Python gets the deck without the JSON.
#
# The fields are stored, not exported: an imported resource cannot be saved, so a text box or a
# field in the Inspector let a designer type and then lost the edit ("Imported resources can't be
# saved", issue 15). The editor shows what the import found, read-only, at the top of the
# Inspector (editor/deck_inspector_plugin.gd); a deck is edited in its JSON file. A tool script:
# in the editor a script that is not one gets a placeholder instance, which holds exported
# properties only, and the importer and the Inspector need these stored ones.

# Stored fields and their types (see _get_property_list).
const STORED := {
	"json_text": TYPE_STRING,
	"source_path": TYPE_STRING,
	"deck_name": TYPE_STRING,
	"valid": TYPE_BOOL,
	"problems": TYPE_ARRAY,
}

# The deck JSON as imported (what Python reads).
var json_text := ""
# The file it was imported from (res:// path).
var source_path := ""
# The deck's name (its "nome"), "" when it did not validate.
var deck_name := ""
# True when Python accepted the deck on import.
var valid := false
# The problems found on import, one Dictionary each: severity ("error" or "warning"), file,
# card_id (or null), field, message (as the Python validate request returns them).
var problems := []


func _get_property_list() -> Array:
	# Saved with the resource and loaded back, never shown in the Inspector.
	var out := []
	for key in STORED:
		out.append({"name": key, "type": STORED[key], "usage": PROPERTY_USAGE_STORAGE})
	return out


func errors() -> Array:
	var out := []
	for row in problems:
		if row.get("severity", "") == "error":
			out.append(row)
	return out
