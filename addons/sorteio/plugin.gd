tool
extends EditorPlugin
# Enabling the plugin registers the autoload `Sorteio` (a SorteioNode); disabling removes it.

const AUTOLOAD_NAME := "Sorteio"
const AUTOLOAD_PATH := "res://addons/sorteio/sorteio_node.gd"


func enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)


func disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)
