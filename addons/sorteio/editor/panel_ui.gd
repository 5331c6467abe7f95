@tool
extends RefCounted
## The controls the Sorteio panel's tabs are built of, made alike (editor only): labels,
## buttons, spin boxes, result trees with their CSV export button, file dialogs, tree rows.

## The players of [code]sorteio simulate --policy[/code], with the words the panel says (msgids:
## a line marked [code]# i18n[/code] holds one, shown through [method SorteioI18n.t]).
const PLAYERS: Array[Array] = [
	["random", "aleatório (escolhe na moeda)"],  # i18n
	["protect", "protetor (evita zerar medidores)"],  # i18n
	["lookahead", "antecipador (pesa a próxima carta)"],  # i18n
]
const WARNING_COLOR := Color(1.0, 0.82, 0.4)


## A menu of the [constant PLAYERS].
static func players() -> OptionButton:
	var menu := OptionButton.new()
	for entry: Array in PLAYERS:
		menu.add_item(SorteioI18n.t(entry[1]))
	return menu


## The headings "ano 1" to "ano 4" in the run's language.
static func years() -> Array[String]:
	var out: Array[String] = []
	for year in range(1, 5):
		out.append(SorteioI18n.t("ano %d") % year)
	return out


## A label saying [param text].
static func label(text: String) -> Label:
	var made := Label.new()
	made.text = text
	return made


## A button saying [param text] that calls [param action].
static func button(text: String, action: Callable) -> Button:
	var made := Button.new()
	made.text = text
	made.pressed.connect(action)
	return made


## A spin box from [param low] to [param high] in steps of [param step], showing
## [param value]. The step is set first: a SpinBox snaps a value to its step (0.2 given with
## the default step of 1 from a minimum of 0.01 became 0.01).
static func spin(low: float, high: float, value: float, step: float = 1.0) -> SpinBox:
	var made := SpinBox.new()
	made.step = step
	made.min_value = low
	made.max_value = high
	made.value = value
	made.custom_minimum_size = Vector2(80, 0)
	return made


## A result tree named [param title] with [param columns] columns sized by [param ratios].
static func tree(title: String, columns: int, ratios: Array) -> Tree:
	var made := Tree.new()
	made.name = title
	made.columns = columns
	made.hide_root = true
	made.column_titles_visible = true
	made.size_flags_vertical = Control.SIZE_EXPAND_FILL
	made.custom_minimum_size = Vector2(0, 140)
	for c in columns:
		made.set_column_expand(c, true)
		made.set_column_expand_ratio(c, maxi(int(ratios[c]), 1))
		made.set_column_clip_content(c, false)
	return made


## Puts [param shown] into [param box] (named after it) above an "Exportar (CSV)" button that
## calls [param export].
static func with_export(box: VBoxContainer, shown: Tree, export: Callable) -> void:
	box.name = shown.name
	box.add_child(shown)
	box.add_child(button(SorteioI18n.t("Exportar (CSV)"), export))


## An editor file dialog, a child of [param parent], calling [param chosen] with the path.
static func file_dialog(
	parent: Node, filters: Array, mode: EditorFileDialog.FileMode, chosen: Callable
) -> EditorFileDialog:
	var dialog := EditorFileDialog.new()
	dialog.file_mode = mode
	dialog.filters = PackedStringArray(filters)
	dialog.file_selected.connect(chosen)
	parent.add_child(dialog)
	return dialog


## Clears [param shown] and titles its columns with [param titles]; returns its new root.
static func reset(shown: Tree, titles: Array) -> TreeItem:
	shown.clear()
	for c in shown.columns:
		shown.set_column_expand(c, true)
		shown.set_column_clip_content(c, false)
		shown.set_column_title(c, str(titles[c]) if c < titles.size() else "")
	return shown.create_item()


## Adds a row of [param cells] under [param root] (whole floats shown as ints), in the
## warning colour when [param warn].
static func line(shown: Tree, root: TreeItem, cells: Array, warn: bool) -> void:
	var item := shown.create_item(root)
	for c in mini(cells.size(), shown.columns):
		var value: Variant = cells[c]
		item.set_text(c, str(int(value)) if value is float else str(value))
		item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
		if warn:
			item.set_custom_color(c, WARNING_COLOR)


## The texts of [param shown], row by row.
static func texts(shown: Tree) -> Array:
	var out: Array = []
	var item := shown.get_root().get_first_child() if shown.get_root() != null else null
	while item != null:
		var cells: Array[String] = []
		for c in shown.columns:
			cells.append(item.get_text(c))
		out.append(cells)
		item = item.get_next()
	return out
