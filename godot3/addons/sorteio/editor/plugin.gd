tool
extends EditorPlugin
# The editor side of the addon (none of it is exported with a game):
# - enabling the plugin registers the autoload `Sorteio` (a SorteioNode); disabling removes it;
# - the Sorteio bottom panel (panel.gd): validate, coverage, preview, simulate a deck;
# - the importer that turns deck JSON files into SorteioDeck resources (deck_import_plugin.gd);
# - what a SorteioDeck's import found, read-only, in the Inspector (deck_inspector_plugin.gd);
# - invalid decks in red in the FileSystem dock (filesystem_marks.gd).
# - the export plugin that ships the frozen socket server with a game (export_plugin.gd).
# Panel and importer share one Python bridge (editor_bridge.gd), started when first needed.

const AUTOLOAD_NAME := "Sorteio"
const AUTOLOAD_PATH := "res://addons/sorteio/sorteio_node.gd"
const SETTING_IMPORT := "sorteio/import_json_decks"
# Loaded in _enter_tree, not preloaded: this script must compile on its own, quickly, as the
# editor may load it while its first filesystem scan still runs.
const EDITOR_BRIDGE := "res://addons/sorteio/editor/editor_bridge.gd"
const PANEL := "res://addons/sorteio/editor/panel.gd"
const DECK_IMPORTER := "res://addons/sorteio/editor/deck_import_plugin.gd"
const DECK_INSPECTOR := "res://addons/sorteio/editor/deck_inspector_plugin.gd"
const FILESYSTEM_MARKS := "res://addons/sorteio/editor/filesystem_marks.gd"
# Adds the frozen socket server to exports, refuses platforms the addon cannot serve.
const EXPORT_PLUGIN := "res://addons/sorteio/editor/export_plugin.gd"

var bridge = null
var panel: Control = null
var importer: EditorImportPlugin = null
var inspector: EditorInspectorPlugin = null
var marks: Node = null
var exporter: EditorExportPlugin = null


func enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)


func disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)


func _enter_tree() -> void:
	exporter = load(EXPORT_PLUGIN).new()
	add_export_plugin(exporter)
	bridge = load(EDITOR_BRIDGE).new()
	panel = load(PANEL).new()
	panel.bridge = bridge
	add_control_to_bottom_panel(panel, "Sorteio")
	if not ProjectSettings.has_setting(SETTING_IMPORT):
		ProjectSettings.set_setting(SETTING_IMPORT, true)
		ProjectSettings.set_initial_value(SETTING_IMPORT, true)
	if ProjectSettings.get_setting(SETTING_IMPORT):
		importer = load(DECK_IMPORTER).new()
		importer.bridge = bridge
		add_import_plugin(importer)
	inspector = load(DECK_INSPECTOR).new()
	add_inspector_plugin(inspector)
	if importer != null:
		marks = load(FILESYSTEM_MARKS).new()
		add_child(marks)
		marks.start(get_editor_interface())


func _exit_tree() -> void:
	if marks != null:
		marks.free()
		marks = null
	if inspector != null:
		remove_inspector_plugin(inspector)
		inspector = null
	if exporter != null:
		remove_export_plugin(exporter)
		exporter = null
	if importer != null:
		remove_import_plugin(importer)
		importer = null
	if panel != null:
		remove_control_from_bottom_panel(panel)
		panel.free()  # now: at editor exit a queued free never runs
		panel = null
	if bridge != null:
		bridge.close()
		bridge = null
