tool
extends Node
# Marks each invalid deck in the FileSystem dock: its name in red, and a tooltip saying it does
# not validate and how many problems it has (the Output and the Sorteio panel list them).
#
# Godot 3 gives a plugin no say in how the dock shows a file: the icon is the file's type
# ("Resource" for every imported deck), and only a failed import shows another one, which would
# leave no resource for the game or the panel to read the problems from. So this colours the
# dock's own items. The dock rebuilds them often (a scan, a search, a folder opened), so the
# marks are applied again every REFRESH_S seconds: a walk over the dock's items, cheap.

const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")
const Language = preload("res://addons/sorteio/sorteio_language.gd")
const REFRESH_S := 1.0
const MARK_COLOR := Color(1.0, 0.47, 0.42)

var editor: EditorInterface = null
# res:// path of each invalid deck -> the tooltip of its mark.
var invalid := {}

var _timer: Timer = null


func start(editor_interface: EditorInterface) -> void:
	editor = editor_interface
	var files := editor.get_resource_filesystem()
	for signal_name in ["filesystem_changed", "resources_reimported"]:
		if files.connect(signal_name, self, "_on_files_changed") != OK:
			push_error("sorteio: cannot follow the file system's %s" % signal_name)
	_timer = Timer.new()
	_timer.wait_time = REFRESH_S
	add_child(_timer)
	if _timer.connect("timeout", self, "mark") != OK:
		push_error("sorteio: cannot start the FileSystem dock's marks")
	_timer.start()
	call_deferred("refresh")


func refresh() -> void:
	# Which decks are invalid now (their imported resources say so).
	invalid = {}
	_scan(editor.get_resource_filesystem().get_filesystem())
	mark()


func mark() -> void:
	# Colours the dock's items of the invalid decks (its tree, and its file list when split).
	var dock := editor.get_file_system_dock()
	for tree in _find_all(dock, "Tree"):
		var root: TreeItem = tree.get_root()
		if root != null:
			_mark_item(root)
	for list in _find_all(dock, "ItemList"):
		for index in range(list.get_item_count()):
			var path = list.get_item_metadata(index)
			if typeof(path) == TYPE_STRING and invalid.has(path):
				list.set_item_custom_fg_color(index, MARK_COLOR)
				list.set_item_tooltip(index, invalid[path])


func _on_files_changed(_files = null) -> void:
	call_deferred("refresh")  # after the dock has rebuilt its items from the same signal


func _scan(dir: EditorFileSystemDirectory) -> void:
	if dir == null:
		return
	for index in range(dir.get_file_count()):
		var path := dir.get_file_path(index)
		if path.get_extension() != "json" or not dir.get_file_import_is_valid(index):
			continue
		var deck = ResourceLoader.load(path)
		# A JSON file that is not a deck (no problems listed) is not marked.
		if deck is DeckResource and not deck.valid and not deck.problems.empty():
			invalid[path] = (
				Language.t("%s não é válido: %d problema(s); a Saída e o painel Sorteio os listam")
				% [path, deck.problems.size()]
			)
	for index in range(dir.get_subdir_count()):
		_scan(dir.get_subdir(index))


func _mark_item(item: TreeItem) -> void:
	while item != null:
		var path = item.get_metadata(0)
		if typeof(path) == TYPE_STRING and invalid.has(path):
			if item.get_tooltip(0) != invalid[path]:  # unchanged: no redraw
				item.set_custom_color(0, MARK_COLOR)
				item.set_tooltip(0, invalid[path])
		_mark_item(item.get_children())
		item = item.get_next()


static func _find_all(node: Node, class_name_wanted: String) -> Array:
	var found := []
	if node.get_class() == class_name_wanted:
		found.append(node)
	for child in node.get_children():
		found += _find_all(child, class_name_wanted)
	return found
