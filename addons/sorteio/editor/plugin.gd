@tool
extends EditorPlugin
## The editor side of the Sorteio addon (nothing here is exported with a game).
##
## Enabling the plugin registers the [code]Sorteio[/code] autoload ([SorteioNode]); disabling
## removes it. While enabled: the Sorteio bottom panel ([code]panel.gd[/code]: card table,
## validate, coverage, preview, simulate), the importer of [code]*.sorteio.json[/code] decks
## ([code]deck_import_plugin.gd[/code]) and, when present, the export plugin
## ([code]export_plugin.gd[/code]) that puts the Python runtime into exported games. The types
## [SorteioNode] and [SorteioDeck] need no registration: their scripts' [code]class_name[/code]
## and [code]@icon[/code] put them, with their icons, in the Create dialogs.

const AUTOLOAD_NAME := "Sorteio"
const AUTOLOAD_PATH := "res://addons/sorteio/sorteio_node.gd"
# Loaded in _enter_tree, not preloaded: this script compiles on its own, quickly, while the
# editor's first filesystem scan may still run.
const PANEL := "res://addons/sorteio/editor/panel.gd"
const DECK_IMPORTER := "res://addons/sorteio/editor/deck_import_plugin.gd"
## The export plugin (written beside this file by the export work); registered when present.
const EXPORT_PLUGIN := "res://addons/sorteio/editor/export_plugin.gd"
## Marks invalid decks in the FileSystem dock.
const FILESYSTEM_MARKS := "res://addons/sorteio/editor/filesystem_marks.gd"

## The Sorteio bottom panel.
var panel: Control = null
var _importer: EditorImportPlugin = null
var _exporter: EditorExportPlugin = null
var _marks: Node = null


func _enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)


func _enter_tree() -> void:
	SorteioI18n.register_setting()
	var importer_script: GDScript = load(DECK_IMPORTER)
	_importer = importer_script.new()
	add_import_plugin(_importer)
	# --- export plugin (another part of the addon): registered only when its file exists ---
	if ResourceLoader.exists(EXPORT_PLUGIN):
		var exporter_script: GDScript = load(EXPORT_PLUGIN)
		_exporter = exporter_script.new()
		add_export_plugin(_exporter)
	# ----------------------------------------------------------------------------------------
	var panel_script: GDScript = load(PANEL)
	panel = panel_script.new()
	panel.set("undo_redo", get_undo_redo())
	add_control_to_bottom_panel(panel, "Sorteio")
	var marks_script: GDScript = load(FILESYSTEM_MARKS)
	_marks = marks_script.new()
	_marks.name = "SorteioFileSystemMarks"
	add_child(_marks)


func _exit_tree() -> void:
	if _marks != null:
		_marks.free()
		_marks = null
	if panel != null:
		remove_control_from_bottom_panel(panel)
		panel.free()  # now: at editor exit a queued free never runs (and the bridge closes)
		panel = null
	if _exporter != null:
		remove_export_plugin(_exporter)
		_exporter = null
	if _importer != null:
		remove_import_plugin(_importer)
		_importer = null
