@icon("res://addons/sorteio/icons/sorteio_deck.svg")
class_name SorteioDeck
extends Resource
## A deck as a Godot resource, made from a [code].sorteio.json[/code] deck file by the editor's
## import plugin.
##
## The JSON file stays the designers' source of truth: this is its text plus what Python's
## validation said on import. [SorteioNode] accepts one as [member SorteioNode.deck_resource] or
## in [method SorteioNode.start_match]; an exported game carries the text inside its pack, so
## Python gets the deck without the JSON file.

## The deck JSON as imported (what Python reads). Stored, not shown in the Inspector: an
## imported resource cannot be saved, so a text box there lost every edit (issue 15); edit the
## deck in the Sorteio panel's card table or in the file.
@export_storage var json_text: String = ""
## The file it was imported from (res:// path).
@export var source_path: String = ""
## The deck's name (its [code]nome[/code]), "" when it did not validate.
@export var deck_name: String = ""
## True when Python accepted the deck on import.
@export var valid: bool = false
## The problems found on import, one Dictionary each: [code]severity[/code] ("error" or
## "warning"), [code]file[/code], [code]card_id[/code] (or null), [code]field[/code],
## [code]message[/code] (as Python's validate request returns them).
@export var problems: Array[Dictionary] = []


func _validate_property(property: Dictionary) -> void:
	if property.name in ["source_path", "deck_name", "valid", "problems"]:
		property.usage |= PROPERTY_USAGE_READ_ONLY  # what the import found, not for typing


## The problems whose severity is "error" (a deck with any cannot be played).
func errors() -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for row: Dictionary in problems:
		if row.get("severity", "") == "error":
			out.append(row)
	return out
