@tool
extends EditorPlugin
## Test-only: registers the addon's export plugin (the addon's plugin.gd will do it).

var _export: EditorExportPlugin = null


func _enter_tree() -> void:
	_export = preload("res://addons/sorteio/editor/export_plugin.gd").new()
	add_export_plugin(_export)


func _exit_tree() -> void:
	remove_export_plugin(_export)
