tool
extends EditorImportPlugin
# Imports each deck JSON as a SorteioDeck resource (sorteio_deck.gd). The JSON stays the
# designers' source of truth: the resource keeps its text and what Python's `validate` request
# said about it, and every problem is printed to the editor's Output (file, card id, field).
# A JSON file that is not a deck (no "cartas") imports as an empty, invalid SorteioDeck without
# a word. Turn the importer off with the project setting sorteio/import_json_decks = false.
#
# Problems are printed (printerr for errors: red in the Output; print for warnings), not pushed
# as engine warnings, as the Godot 4 importer does: a broken deck is the designer's work in
# progress, not an engine fault, and Godot 3 passes a pushed message through a Latin-1 C string
# on its way to the Output, which lost every "§" of the messages (issue 15).

const DECK_SCRIPT := "res://addons/sorteio/sorteio_deck.gd"
# The Output lines in the run's language (issue 15), msgids as the Godot 4 importer's.
const Language = preload("res://addons/sorteio/sorteio_language.gd")

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
	var deck = new_deck()
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


static func new_deck() -> Resource:
	# A SorteioDeck whose script is a one-line built-in subclass saved inside the imported file.
	# Godot 3.2's filesystem scan re-imports every dependency of a re-imported file as well
	# (EditorFileSystem::_update_scan_actions); with sorteio_deck.gd itself as the script, the
	# script was such a dependency: its re-import failed ("BUG: File queued for import, but
	# can't be imported!", "Method failed.") and the editor then reloaded it ("Another resource
	# is loaded from path ... (possible cyclic resource inclusion)"), on every edit of a deck
	# (issue 15). A built-in script is part of the file, not a dependency; it extends the class,
	# so `deck is SorteioDeck` (and the node's checks) still hold.
	var script := GDScript.new()
	script.source_code = 'tool\nextends "%s"\n' % DECK_SCRIPT
	script.reload()
	var deck := Resource.new()
	deck.set_script(script)
	return deck


func _validate(deck: Resource, source_file: String) -> void:
	if bridge == null:
		return
	var reply: Dictionary = bridge.request(
		"validate", {"deck": ProjectSettings.globalize_path(source_file)}
	)
	if not reply.get("ok", false):
		var error: Dictionary = reply.get("error", {})
		var message: String = (
			Language.t("não foi possível validar: %s")
			% _project_relative(str(error.get("message", "?")))
		)
		var row := {
			"severity": "error",
			"file": source_file,
			"card_id": null,
			"field": "(python)",
			"message": message
		}
		deck.problems = [row]
		_print_row(row)
		return
	var result: Dictionary = reply["result"]
	deck.valid = bool(result["valid"])
	deck.problems = result["errors"] + result["warnings"]
	if result["summary"] != null:
		deck.deck_name = str(result["summary"]["nome"])
	for row in deck.problems:
		row["file"] = source_file  # the res:// path the designer knows, not the absolute one
		_print_row(row)
	if not deck.valid:
		var said := Language.t(
			"sorteio: %s não é válido: %d problema(s); o painel Sorteio os lista (Validar)"
		)
		printerr(said % [source_file, result["errors"].size()])


static func _print_row(row: Dictionary) -> void:
	var card: String = Language.t("carta '%s': ") % row["card_id"] if row["card_id"] != null else ""
	var severity := Language.t("erro") if row["severity"] == "error" else Language.t("aviso")
	var text: String = (
		"sorteio %s: %s: %s%s: %s"
		% [severity, row["file"], card, row["field"], row["message"]]
	)
	if row["severity"] == "error":
		printerr(text)
	else:
		print(text)


static func _project_relative(text: String) -> String:
	# The row is stored in the imported resource, and so in an exported pack: paths inside the
	# project are written from its folder (".venv/bin/python"), not as this machine's folders.
	var root := ProjectSettings.globalize_path("res://")
	if not root.ends_with("/"):
		root += "/"
	return text.replace(root, "")
