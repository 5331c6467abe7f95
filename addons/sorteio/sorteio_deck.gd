@icon("res://addons/sorteio/icons/sorteio_deck.svg")
class_name SorteioDeck
extends Resource
## A deck as a Godot resource, made from a [code]*.sorteio.json[/code] deck file by the editor's
## importer ([code]editor/deck_import_plugin.gd[/code]).
##
## The JSON file stays the designers' source of truth: this is its text plus what Python's
## validation said on import. Every property is read-only in the Inspector: an imported
## resource cannot be saved, so an edit there would be lost (edit the deck in the Sorteio
## panel's card table or in the file).
## (Minimal version written by the editor helper; the node helper's version replaces it.)

## The deck JSON as imported (what Python reads). Stored, not shown in the Inspector.
@export_storage var json_text: String = ""
## The file it was imported from (res:// path).
@export var source_path: String = ""
## The deck's name (its "nome"), "" when it did not validate.
@export var deck_name: String = ""
## True when Python accepted the deck on import.
@export var valid: bool = false
## The problems found on import, one Dictionary each: severity ("error" or "warning"), file,
## card_id (or null), field, message (as Python's validate request returns them).
@export var problems: Array[Dictionary] = []


## The problems whose severity is "error".
func errors() -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for row: Dictionary in problems:
		if row.get("severity", "") == "error":
			out.append(row)
	return out


func _validate_property(property: Dictionary) -> void:
	if property.name in ["source_path", "deck_name", "valid", "problems"]:
		property.usage |= PROPERTY_USAGE_READ_ONLY
