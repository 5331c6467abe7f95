@tool
extends Node
## Marks each invalid deck ([code]*.sorteio.json[/code] whose import did not validate) in the
## FileSystem dock: its name in the error colour and a tooltip naming the deck, its number of
## problems and the first one (issue 15). A deck fixed and re-imported loses its mark.
##
## Godot 4 gives a plugin no say over a file's icon in the dock (the imported type's, the same
## for every deck) and a failed import would leave no resource for the game or the panel to read
## the problems from; so, as the Godot 3 addon does, this colours the dock's own items (its tree,
## and its file list when the dock is split). The dock rebuilds them often (a scan, a search, a
## folder opened), so the marks are applied again every [constant REFRESH_S] seconds: a walk
## over the dock's items, cheap; the decks themselves are read only when files change.

const REFRESH_S := 1.0
## The Problemas tab's error colour.
const MARK_COLOR := Color(1.0, 0.47, 0.42)

## res:// path of each invalid deck -> the tooltip of its mark.
var invalid: Dictionary = {}
## The dock's tooltip of a file (Godot 4.3+ builds it from these plugins, not from the item's
## tooltip text): an invalid deck's gets the mark's text, in the error colour.
var tooltips: DeckTooltip = DeckTooltip.new()
var _marked: Dictionary = {}  # path -> true: items this coloured (to clear once fixed)
var _timer: Timer


func _ready() -> void:
	tooltips.marks = self
	EditorInterface.get_file_system_dock().add_resource_tooltip_plugin(tooltips)
	var files := EditorInterface.get_resource_filesystem()
	files.filesystem_changed.connect(_on_files_changed)
	files.resources_reimported.connect(_on_files_changed)
	_timer = Timer.new()
	_timer.wait_time = REFRESH_S
	_timer.timeout.connect(mark)
	add_child(_timer)
	_timer.start()
	refresh.call_deferred()


func _exit_tree() -> void:
	EditorInterface.get_file_system_dock().remove_resource_tooltip_plugin(tooltips)
	tooltips.marks = null


## Reads which decks are invalid now (their imported resources say so), then marks them.
func refresh() -> void:
	invalid = {}
	_scan(EditorInterface.get_resource_filesystem().get_filesystem())
	mark()


## Colours the dock's items of the invalid decks and clears the items of decks fixed since.
func mark() -> void:
	var dock := EditorInterface.get_file_system_dock()
	if dock == null:
		return
	for tree: Node in dock.find_children("*", "Tree", true, false):
		var root: TreeItem = (tree as Tree).get_root()
		if root != null:
			_mark_item(root)
	for node: Node in dock.find_children("*", "ItemList", true, false):
		var list := node as ItemList
		for index in list.item_count:
			var path: Variant = list.get_item_metadata(index)
			if path is String and invalid.has(path):
				list.set_item_custom_fg_color(index, MARK_COLOR)
				list.set_item_tooltip(index, invalid[path])
				_marked[path] = true
			elif path is String and _marked.has(path):
				list.set_item_custom_fg_color(index, Color(0, 0, 0, 0))
				list.set_item_tooltip(index, path)
	for path: String in _marked.keys():
		if not invalid.has(path):
			_marked.erase(path)


## The mark of [param path] in the dock's tree: [code]{color, tooltip}[/code] ({} when the
## dock shows no item for it).
func shown_mark(path: String) -> Dictionary:
	var dock := EditorInterface.get_file_system_dock()
	for tree: Node in dock.find_children("*", "Tree", true, false):
		var root: TreeItem = (tree as Tree).get_root()
		var item := _find(root, path) if root != null else null
		if item != null:
			return {
				"marked": item.get_custom_color(0) == MARK_COLOR,
				"tooltip": item.get_tooltip_text(0)
			}
	return {}


## The tooltip of an invalid deck: its path, how many problems, the first one.
static func tooltip(path: String, deck: SorteioDeck) -> String:
	var first: Dictionary = deck.problems[0]
	var card: String = (
		SorteioI18n.t("carta '%s': ") % first["card_id"] if first.get("card_id") != null else ""
	)
	var said := SorteioI18n.t("%s não é válido: %d problema(s); o primeiro: %s%s: %s")
	return (
		said % [path, deck.problems.size(), card, first.get("field", ""), first.get("message", "")]
		+ "\n"
		+ SorteioI18n.t("a Saída e o painel Sorteio (Problemas) listam todos")
	)


func _on_files_changed(_files: PackedStringArray = PackedStringArray()) -> void:
	refresh.call_deferred()  # after the dock has rebuilt its items from the same signal


func _scan(dir: EditorFileSystemDirectory) -> void:
	if dir == null:
		return
	for index in dir.get_file_count():
		var path := dir.get_file_path(index)
		if not path.ends_with(".sorteio.json") or not dir.get_file_import_is_valid(index):
			continue
		# Read again: a deck re-imported since must not be seen as it was.
		var deck := ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_REPLACE) as SorteioDeck
		if deck != null and not deck.valid and not deck.problems.is_empty():
			invalid[path] = tooltip(path, deck)
	for index in dir.get_subdir_count():
		_scan(dir.get_subdir(index))


func _mark_item(item: TreeItem) -> void:
	while item != null:
		var path: Variant = item.get_metadata(0)
		if path is String and invalid.has(path):
			if item.get_tooltip_text(0) != invalid[path]:  # unchanged: no redraw
				item.set_custom_color(0, MARK_COLOR)
				item.set_tooltip_text(0, invalid[path])
			_marked[path] = true
		elif path is String and _marked.has(path):
			item.clear_custom_color(0)
			item.set_tooltip_text(0, path)
		_mark_item(item.get_first_child())
		item = item.get_next()


func _find(item: TreeItem, path: String) -> TreeItem:
	while item != null:
		if item.get_metadata(0) is String and item.get_metadata(0) == path:
			return item
		var inside := _find(item.get_first_child(), path)
		if inside != null:
			return inside
		item = item.get_next()
	return null


## Adds an invalid deck's mark to the FileSystem dock's tooltip of the file.
class DeckTooltip:
	extends EditorResourceTooltipPlugin

	## The marks this reads (null once the plugin is gone).
	var marks: Node = null

	func _handles(type: String) -> bool:
		return type == "Resource"  # the imported type of a deck

	func _make_tooltip_for_path(path: String, _metadata: Dictionary, base: Control) -> Control:
		if marks != null and marks.invalid.has(path):
			var label := Label.new()
			label.text = marks.invalid[path]
			label.add_theme_color_override("font_color", MARK_COLOR)
			base.add_child(label)
		return base
