@tool
extends EditorImportPlugin
## Imports deck files, [code]*.sorteio.json[/code], as [SorteioDeck] resources, validated by
## Python on import.
##
## Only the dedicated extension is claimed: Godot 4 matches an importer against the whole
## multi-part extension, so a game's other [code].json[/code] files stay plain JSON (the
## Godot 3 importer took them all). A designer makes a deck importable by renaming
## [code]baralho.json[/code] to [code]baralho.sorteio.json[/code] in the FileSystem dock.
##
## Every problem Python finds is printed to the Output, one line each with the file, card id
## and field; an invalid deck imports as an invalid [SorteioDeck] (its [code]valid[/code] is
## false, its [code]problems[/code] listed) so the game and the panel can say why. The problems
## are printed, not pushed as engine errors: a broken deck is the designer's work in progress,
## not an engine fault.

const EditorPython := preload("res://addons/sorteio/editor/editor_python.gd")
const TabProblems := preload("res://addons/sorteio/editor/tab_problems.gd")

## Printed colours of the Output lines (errors, warnings).
const ERROR_COLOR := "#ff786b"
const WARNING_COLOR := "#ffd166"


func _get_importer_name() -> String:
	return "sorteio.deck"


func _get_visible_name() -> String:
	return SorteioI18n.t("Baralho Sorteio")


func _get_recognized_extensions() -> PackedStringArray:
	return PackedStringArray(["sorteio.json"])


func _get_save_extension() -> String:
	return "res"


func _get_resource_type() -> String:
	return "Resource"


func _get_preset_count() -> int:
	return 1


func _get_preset_name(_preset_index: int) -> String:
	return "Default"


func _get_import_options(_path: String, _preset_index: int) -> Array[Dictionary]:
	return []


func _get_option_visibility(_path: String, _option_name: StringName, _options: Dictionary) -> bool:
	return true


func _get_priority() -> float:
	return 1.0


func _get_import_order() -> int:
	return 0


func _can_import_threaded() -> bool:
	return false  # one Python process at a time, from the editor's main thread


func _import(
	source_file: String,
	save_path: String,
	_options: Dictionary,
	_platform_variants: Array[String],
	_gen_files: Array[String]
) -> Error:
	var deck := SorteioDeck.new()
	deck.source_path = source_file
	deck.json_text = FileAccess.get_file_as_string(source_file)
	if deck.json_text == "" and FileAccess.get_open_error() != OK:
		return FileAccess.get_open_error()
	validate_into(deck, source_file)
	return ResourceSaver.save(deck, "%s.%s" % [save_path, _get_save_extension()])


## Fills [param deck]'s [code]valid[/code], [code]problems[/code] and [code]deck_name[/code]
## from Python's [code]validate[/code] request on [param source_file], printing each problem.
static func validate_into(deck: SorteioDeck, source_file: String) -> void:
	var reply := EditorPython.request_now(
		"validate", {"deck": ProjectSettings.globalize_path(source_file)}
	)
	if not reply.get("ok", false):
		var error: Dictionary = reply.get("error", {})
		var row := {
			"severity": "error",
			"file": source_file,
			"card_id": null,
			"field": "(python)",
			"message":
			(
				SorteioI18n.t("não foi possível validar: %s")
				% _project_relative(str(error.get("message", "?")))
			)
		}
		deck.valid = false
		deck.problems = [row]
		_print_row(row)
		return
	var result: Dictionary = reply["result"]
	deck.valid = bool(result["valid"])
	var rows: Array[Dictionary] = []
	for row: Dictionary in result["errors"] + result["warnings"]:
		row["file"] = source_file  # the res:// path the designer knows, not the absolute one
		rows.append(row)
		_print_row(row)
	deck.problems = rows
	var more := int(result.get("more_errors", 0)) + int(result.get("more_warnings", 0))
	if more > 0:  # a deck with thousands of problems: the rest are counted
		print_rich("[color=%s]%s[/color]" % [WARNING_COLOR, SorteioI18n.t(TabProblems.MORE) % more])
	if result["summary"] is Dictionary:
		deck.deck_name = str(result["summary"]["nome"])
	if not deck.valid:
		var said := SorteioI18n.t(
			"sorteio: %s não é válido: %d problema(s); o painel Sorteio os lista (Validar)"
		)
		print_rich(
			"[color=%s]%s[/color]" % [ERROR_COLOR, said % [source_file, result["errors"].size()]]
		)


static func _print_row(row: Dictionary) -> void:
	var card: String = (
		SorteioI18n.t("carta '%s': ") % row["card_id"] if row["card_id"] != null else ""
	)
	var severity := SorteioI18n.t("erro") if row["severity"] == "error" else SorteioI18n.t("aviso")
	var colour := ERROR_COLOR if row["severity"] == "error" else WARNING_COLOR
	var text := (
		"sorteio %s: %s: %s%s: %s" % [severity, row["file"], card, row["field"], row["message"]]
	)
	# Deck text is shown as typed, never read as markup.
	print_rich("[color=%s]%s[/color]" % [colour, text.replace("[", "[lb]")])


## [param text] with the project's own folder left out of its paths: the row is stored in the
## imported resource, and so in an exported pack, which must hold no folder of this machine.
static func _project_relative(text: String) -> String:
	var root: String = ProjectSettings.globalize_path("res://")
	if not root.ends_with("/"):
		root += "/"
	return text.replace(root, "")
