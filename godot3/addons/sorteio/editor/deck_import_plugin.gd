tool
extends EditorImportPlugin
# Imports each deck JSON as a SorteioDeck resource (sorteio_deck.gd). The JSON stays the
# designers' source of truth: the resource keeps its text and what Python's `validate` request
# said about it, and every problem is printed to the editor's Output (file, card id, field).
# A JSON file that is not a deck (no "cartas") imports as an empty, invalid SorteioDeck without
# a word. Turn the importer off with the project setting sorteio/import_json_decks = false.

const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")

var bridge = null  # editor_bridge.gd, shared with the panel


func get_importer_name() -> String:
	return "sorteio.deck"


func get_visible_name() -> String:
	return "Sorteio deck"


func get_recognized_extensions() -> Array:
	return ["json"]


func get_save_extension() -> String:
	return "res"


func get_resource_type() -> String:
	return "Resource"


func get_preset_count() -> int:
	return 1


func get_preset_name(_preset: int) -> String:
	return "Default"


func get_import_options(_preset: int) -> Array:
	return []


func get_option_visibility(_option: String, _options: Dictionary) -> bool:
	return true


func get_priority() -> float:
	return 1.0


func get_import_order() -> int:
	return 0


func import(source_file: String, save_path: String, _options, _platforms, _gen_files) -> int:
	var file := File.new()
	if file.open(source_file, File.READ) != OK:
		push_error("sorteio: cannot read %s" % source_file)
		return ERR_CANT_OPEN
	var deck := DeckResource.new()
	deck.json_text = file.get_as_text()
	file.close()
	deck.source_path = source_file
	var parsed := JSON.parse(deck.json_text)
	var looks_like_deck: bool = (
		parsed.error == OK
		and typeof(parsed.result) == TYPE_DICTIONARY
		and parsed.result.has("cartas")
	)
	if looks_like_deck or parsed.error != OK:
		_validate(deck, source_file)
	return ResourceSaver.save("%s.%s" % [save_path, get_save_extension()], deck)


func _validate(deck: Resource, source_file: String) -> void:
	if bridge == null:
		return
	var reply: Dictionary = bridge.request(
		"validate", {"deck": ProjectSettings.globalize_path(source_file)}
	)
	if not reply.get("ok", false):
		var error: Dictionary = reply.get("error", {})
		var message: String = "could not validate: %s" % error.get("message", "?")
		deck.problems = [
			{
				"severity": "error",
				"file": source_file,
				"card_id": null,
				"field": "(python)",
				"message": message
			}
		]
		push_warning("sorteio: %s: %s" % [source_file, message])
		return
	var result: Dictionary = reply["result"]
	deck.valid = bool(result["valid"])
	deck.problems = result["errors"] + result["warnings"]
	if result["summary"] != null:
		deck.deck_name = str(result["summary"]["nome"])
	for row in deck.problems:
		var card: String = "card '%s': " % row["card_id"] if row["card_id"] != null else ""
		push_warning(
			(
				"sorteio %s: %s: %s%s: %s"
				% [row["severity"], source_file, card, row["field"], row["message"]]
			)
		)
