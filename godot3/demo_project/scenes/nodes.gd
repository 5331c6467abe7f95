extends Reference
# Makes the demo's nodes in code. The views build their children in _init and their .tscn files
# hold the root alone: Godot 3's editor lays out an open scene's containers and saves the
# positions it computed each time it runs the game, which rewrote any scene saved with children
# (issue 15: main.tscn, +17 lines; header_view.tscn too). Each root keeps the __meta__
# (_edit_use_anchors_) the editor writes on a Control it shows, so opening one changes nothing.


static func add_label(parent: Node, node_name: String, text := "", autowrap := true) -> void:
	# A Label named `node_name` under `parent`, wrapping its text by default.
	var label := Label.new()
	label.name = node_name
	label.text = text
	label.autowrap = autowrap
	parent.add_child(label)


static func add_grid(parent: Node, node_name: String, columns: int) -> void:
	var grid := GridContainer.new()
	grid.name = node_name
	grid.columns = columns
	parent.add_child(grid)
