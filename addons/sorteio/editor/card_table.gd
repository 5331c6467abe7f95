@tool
extends VBoxContainer
## The card table of the Sorteio panel: one row per card of the deck (id, title, mode, year,
## type, actor and function, approval, text, options with their effects), sorted by a click on
## a column title, filtered by type and mode, searched by any text.
##
## It only shows rows and reports what the designer did: the panel sends the edits to Python
## ([code]deck_edit[/code], which writes the deck file) and hands the answer back with
## [method apply_splices]. Editor only.

## A cell was edited: [param column] one of [constant COLUMNS] (or an option column with
## [param option] >= 0), [param text] as typed.
signal cell_edited(index: int, card_id: String, column: String, option: int, text: String)
## The options dialog was confirmed: [param edits] are [code]deck_edit[/code] edits.
signal options_edited(edits: Array)
## "Nova" was pressed ([param after] = the selected card's index, -1 for the end).
signal add_requested(after: int)
## "Duplicar" was pressed on the selected card.
signal duplicate_requested(index: int, card_id: String)
## "Excluir" was pressed on the selected card.
signal delete_requested(index: int, card_id: String)
## "Desfazer" / "Refazer" was pressed.
signal history_requested(redo: bool)

## Columns shown, in order: [code]deck_table[/code] row keys.
const COLUMNS: Array[String] = [
	"id", "titulo", "modo", "ano", "tipo", "ator", "funcao", "status", "texto", "opcoes"
]
const TITLES: Array[String] = [
	"id",  # i18n
	"título",  # i18n
	"modo",  # i18n
	"ano",  # i18n
	"tipo",  # i18n
	"ator",  # i18n
	"função",  # i18n
	"aprendizado",  # i18n
	"texto",  # i18n
	"opções (texto: efeitos · atores)"  # i18n
]
const CHOICE_COLUMNS: Array[String] = ["modo", "tipo", "status"]
## Minimum widths (px at editor scale 1) of the short columns: a whole id, mode, year or type,
## never broken mid-word ("soc-/02" at 1280x800, issue 15 QA); the long columns (title, text,
## options) share what is left, clipped with the whole text in their tooltip.
const MIN_WIDTHS := {
	"id": 130,
	"titulo": 200,
	"modo": 150,
	"ano": 56,
	"tipo": 100,
	"ator": 90,
	"funcao": 90,
	"status": 110,
	"texto": 160,
	"opcoes": 240
}
## Columns that take the width left over (their text clipped, the whole of it in the tooltip).
const EXPANDING: Array[String] = ["titulo", "texto", "opcoes"]
## Colour of a cell whose edit was refused (the Problemas tab's error colour).
const REFUSED_COLOR := Color(1.0, 0.47, 0.42)

var _rows: Array[Dictionary] = []
var _modes: Array[Dictionary] = []
var _types: Array[String] = []
var _statuses: Array[String] = []
var _sort_column: int = -1
var _sort_ascending: bool = true
var _tree: Tree
var _search: LineEdit
var _type_filter: OptionButton
var _mode_filter: OptionButton
var _count: Label
var _options_dialog: AcceptDialog
var _options_box: GridContainer
var _options_index: int = -1
var _refreshing: bool = false
## The last refused edit: [code]{index, column, message}[/code] ({} when none): its cell shows
## the stored value, marked, until the next edit or table.
var _refused: Dictionary = {}


func _init() -> void:
	name = SorteioI18n.t("Cartas")
	var bar := HBoxContainer.new()
	add_child(bar)
	_search = LineEdit.new()
	_search.placeholder_text = SorteioI18n.t("buscar (id, título, texto, efeitos…)")
	_search.custom_minimum_size = Vector2(220, 0)
	_search.text_changed.connect(func(_text: String) -> void: refresh())
	bar.add_child(_search)
	_type_filter = OptionButton.new()
	_type_filter.item_selected.connect(func(_i: int) -> void: refresh())
	bar.add_child(_type_filter)
	_mode_filter = OptionButton.new()
	_mode_filter.item_selected.connect(func(_i: int) -> void: refresh())
	bar.add_child(_mode_filter)
	_count = Label.new()
	_count.size_flags_horizontal = SIZE_EXPAND_FILL
	bar.add_child(_count)
	for entry: Array in [
		[SorteioI18n.t("Nova"), _on_add],
		[SorteioI18n.t("Duplicar"), _on_duplicate],
		[SorteioI18n.t("Excluir"), _on_delete],
		[SorteioI18n.t("Opções…"), _on_edit_options],
		[SorteioI18n.t("Desfazer"), func() -> void: history_requested.emit(false)],
		[SorteioI18n.t("Refazer"), func() -> void: history_requested.emit(true)]
	]:
		var button := Button.new()
		button.text = entry[0]
		button.pressed.connect(entry[1])
		bar.add_child(button)
	_tree = Tree.new()
	_tree.columns = COLUMNS.size()
	_tree.hide_root = true
	_tree.column_titles_visible = true
	_tree.select_mode = Tree.SELECT_SINGLE
	_tree.size_flags_vertical = SIZE_EXPAND_FILL
	_tree.custom_minimum_size = Vector2(0, 160)
	# The editor's scale exists only in the editor (a game or test script may build the table).
	var editor_scale: float = EditorInterface.get_editor_scale() if Engine.is_editor_hint() else 1.0
	for i in COLUMNS.size():
		_tree.set_column_title(i, SorteioI18n.t(TITLES[i]))
		_tree.set_column_clip_content(i, COLUMNS[i] in EXPANDING)
		_tree.set_column_expand(i, COLUMNS[i] in EXPANDING)
		_tree.set_column_expand_ratio(i, {"opcoes": 5, "texto": 4}.get(COLUMNS[i], 2))
		_tree.set_column_custom_minimum_width(i, int(MIN_WIDTHS[COLUMNS[i]] * editor_scale))
	_tree.item_edited.connect(_on_item_edited)
	_tree.item_activated.connect(_on_item_activated)
	_tree.column_title_clicked.connect(_on_title_clicked)
	add_child(_tree)
	_options_dialog = AcceptDialog.new()
	_options_dialog.title = SorteioI18n.t("Opções da carta")
	_options_box = GridContainer.new()
	_options_box.columns = 3
	_options_dialog.add_child(_options_box)
	_options_dialog.confirmed.connect(_on_options_confirmed)
	add_child(_options_dialog)


## Shows a whole table ([code]deck_table[/code]'s result, all pages joined in [code]rows[/code]).
func show_table(table: Dictionary) -> void:
	_refused = {}
	_rows.assign(table["rows"])
	_modes.assign(table["modes"])
	_types.assign(table["types"])
	_statuses.assign(table["statuses"])
	_fill_filter(_type_filter, SorteioI18n.t("todos os tipos"), _types)
	var mode_names: Array[String] = []
	for mode: Dictionary in _modes:
		mode_names.append(str(mode["nome"]))
	_fill_filter(_mode_filter, SorteioI18n.t("todos os modos"), mode_names)
	refresh()


## An edit of the cell [param column] of deck index [param index] was refused (Python's
## [param message]): the cell shows the stored value again at once, marked in the error colour
## with the message as its tooltip, and is selected, as a problem's cell is.
func refuse_edit(index: int, column: String, message: String) -> void:
	if column not in COLUMNS:
		column = "opcoes"  # an option's text or effects
	_refused = {"index": index, "column": column, "message": message}
	refresh()
	select_field(index, "cartas.%d.%s" % [index, column])


## The refused edit shown now: [code]{index, column, message, text, marked}[/code] with the
## cell's text and whether it is marked ({} when none is shown).
func refused_cell() -> Dictionary:
	if _refused.is_empty():
		return {}
	var c := COLUMNS.find(str(_refused["column"]))
	var item := _tree.get_root().get_first_child() if _tree.get_root() != null else null
	while item != null and int(item.get_metadata(0)) != int(_refused["index"]):
		item = item.get_next()
	if item == null or c < 0:
		return {}
	var shown := _refused.duplicate()
	shown["text"] = item.get_text(c)
	shown["tooltip"] = item.get_tooltip_text(c)
	shown["marked"] = item.get_custom_color(c) == REFUSED_COLOR
	return shown


## Empties the table (the deck changed).
func clear_table() -> void:
	_refused = {}
	_rows.clear()
	_tree.clear()
	_count.text = ""


## Patches the rows with [code]deck_edit[/code]'s splices ([code]{at, removed, rows}[/code]).
func apply_splices(splices: Array) -> void:
	_refused = {}
	for splice: Dictionary in splices:
		var at := int(splice["at"])
		for _i in int(splice["removed"]):
			_rows.remove_at(at)
		var inserted: Array = splice["rows"]
		for k in inserted.size():
			_rows.insert(at + k, inserted[k])
	refresh()


## Number of cards in the table (all, not only the rows the filters show).
func card_count() -> int:
	return _rows.size()


## The row of the card at deck index [param index] ({} when there is none).
func row(index: int) -> Dictionary:
	return _rows[index] if index >= 0 and index < _rows.size() else {}


## The rows shown now (after filter and search), as deck indexes in display order.
func shown_indexes() -> Array[int]:
	var out: Array[int] = []
	var item := _tree.get_root().get_first_child() if _tree.get_root() != null else null
	while item != null:
		out.append(int(item.get_metadata(0)))
		item = item.get_next()
	return out


## Search text, type and mode filters (tests and the probe set them like a designer would).
func set_filters(search: String, type_name: String = "", mode_name: String = "") -> void:
	_search.text = search
	_select_by_text(_type_filter, type_name)
	_select_by_text(_mode_filter, mode_name)
	refresh()


## Sorts by [param column] (a [constant COLUMNS] name), as a click on its title does.
func sort_by(column: String, ascending: bool = true) -> void:
	_sort_column = COLUMNS.find(column)
	_sort_ascending = ascending
	refresh()


## Selects the card at deck index [param index] and the cell of [param field] (a validation
## row's field, e.g. [code]cartas.5.opcoes.1.efeitos.caixa[/code]); clears filters hiding it.
func select_field(index: int, field: String) -> void:
	if index < 0 or index >= _rows.size():
		return
	if not shown_indexes().has(index):
		set_filters("")
	var column := COLUMNS.find(column_of(field))
	var item := _tree.get_root().get_first_child()
	while item != null and int(item.get_metadata(0)) != index:
		item = item.get_next()
	if item != null:
		item.select(max(column, 0))
		_tree.set_selected(item, max(column, 0))
		_tree.scroll_to_item(item)


## The selected cell as [code][deck index, column name][/code] ([code][-1, ""][/code]: none).
func selected_cell() -> Array:
	var item := _tree.get_selected()
	if item == null:
		return [-1, ""]
	var column := _tree.get_selected_column()
	return [int(item.get_metadata(0)), COLUMNS[column] if column >= 0 else ""]


## The table column a validation field names: [code]cartas.5.titulo[/code] -> titulo,
## [code]...pre_requisitos.ano_minimo[/code] -> ano, [code]...aprendizado.status[/code] -> status.
static func column_of(field: String) -> String:
	var parts := field.split(".")
	if parts.size() < 3 or parts[0] != "cartas":
		return "id"
	var key := parts[2]
	if key == "pre_requisitos":
		return "ano"
	if key == "aprendizado":
		return "status"
	return key if key in COLUMNS else "id"


## Redraws the rows (filters, search and sort applied); keeps the selection.
func refresh() -> void:
	var selected := selected_cell()
	_refreshing = true
	_tree.clear()
	var root := _tree.create_item()
	var order: Array[int] = []
	for i in _rows.size():
		if _matches(_rows[i]):
			order.append(i)
	if _sort_column >= 0:
		var key := COLUMNS[_sort_column]
		order.sort_custom(func(a: int, b: int) -> bool: return _before(_rows[a], _rows[b], key))
	for i in order:
		_add_item(root, i)
	_count.text = SorteioI18n.t("%d de %d cartas") % [order.size(), _rows.size()]
	_refreshing = false
	if int(selected[0]) >= 0:
		select_field(int(selected[0]), "cartas.%d.%s" % [selected[0], selected[1]])


func _add_item(root: TreeItem, index: int) -> void:
	var data: Dictionary = _rows[index]
	var item := _tree.create_item(root)
	item.set_metadata(0, index)
	for c in COLUMNS.size():
		var column := COLUMNS[c]
		item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD)  # whole words, never "soc-/02"
		if column in CHOICE_COLUMNS:
			var choices := _choices(column)
			var value := str(data.get(column, ""))
			item.set_cell_mode(c, TreeItem.CELL_MODE_RANGE)
			item.set_text(c, ",".join(_choice_labels(column, choices)))
			item.set_range(c, max(choices.find(value), 0))
			item.set_editable(c, true)
		elif column == "opcoes":
			item.set_text(c, _options_text(data))
		elif column == "ano":
			item.set_text(
				c, str(int(data["ano"])) if data["ano"] != null else str(data["ano_texto"])
			)
			item.set_editable(c, true)
		else:
			item.set_text(c, str(data.get(column, "")))
			item.set_editable(c, true)
		if column in EXPANDING:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_OFF)
			item.set_text_overrun_behavior(c, TextServer.OVERRUN_TRIM_ELLIPSIS)
			item.set_tooltip_text(c, item.get_text(c))
	if not _refused.is_empty() and int(_refused["index"]) == index:
		var refused := COLUMNS.find(str(_refused["column"]))
		if refused >= 0:
			item.set_custom_color(refused, REFUSED_COLOR)
			item.set_tooltip_text(refused, str(_refused["message"]))


func _choices(column: String) -> Array[String]:
	var out: Array[String] = []
	if column == "modo":
		for mode: Dictionary in _modes:
			out.append(str(mode["id"]))
	elif column == "tipo":
		out.assign(_types)
	else:
		out.assign(_statuses)
	return out


func _choice_labels(column: String, choices: Array[String]) -> Array[String]:
	if column != "modo":
		return choices
	var out: Array[String] = []
	for mode: Dictionary in _modes:
		out.append(str(mode["nome"]).replace(",", " "))
	return out


func _options_text(data: Dictionary) -> String:
	var lines: Array[String] = []
	var options: Array = data["opcoes"]
	for k in options.size():
		var option: Dictionary = options[k]
		var line := "%d. %s: %s" % [k + 1, option["opcao"], option["efeitos"]]
		if str(option["efeitos_atores"]) != "":
			line += " · " + str(option["efeitos_atores"])
		lines.append(line)
	return "\n".join(lines)


func _matches(data: Dictionary) -> bool:
	if _type_filter.selected > 0 and str(data.get("tipo", "")) != _types[_type_filter.selected - 1]:
		return false
	if _mode_filter.selected > 0:
		var mode: Dictionary = _modes[_mode_filter.selected - 1]
		if str(data.get("modo", "")) != str(mode["id"]):
			return false
	var needle := _search.text.strip_edges().to_lower()
	if needle == "":
		return true
	for column in COLUMNS:
		var text := _options_text(data) if column == "opcoes" else str(data.get(column, ""))
		if text.to_lower().contains(needle):
			return true
	return str(data.get("modo_nome", "")).to_lower().contains(needle)


func _before(a: Dictionary, b: Dictionary, key: String) -> bool:
	var left: Variant = a.get(key, "")
	var right: Variant = b.get(key, "")
	if key == "ano":
		left = -1 if left == null else int(left)
		right = -1 if right == null else int(right)
	elif key == "modo":
		left = str(a.get("modo_nome", ""))
		right = str(b.get("modo_nome", ""))
	else:
		left = str(left).to_lower()
		right = str(right).to_lower()
	return left < right if _sort_ascending else left > right


func _fill_filter(button: OptionButton, all_label: String, names: Array[String]) -> void:
	var keep := button.get_item_text(button.selected) if button.selected > 0 else ""
	button.clear()
	button.add_item(all_label)
	for entry in names:
		button.add_item(entry)
	_select_by_text(button, keep)


func _select_by_text(button: OptionButton, text: String) -> void:
	button.select(0)
	for i in button.item_count:
		if text != "" and button.get_item_text(i) == text:
			button.select(i)


func _selected_index() -> int:
	var item := _tree.get_selected()
	return int(item.get_metadata(0)) if item != null else -1


func _on_item_edited() -> void:
	if _refreshing:
		return
	var item := _tree.get_edited()
	var c := _tree.get_edited_column()
	var index := int(item.get_metadata(0))
	var column := COLUMNS[c]
	var text := item.get_text(c)
	if column in CHOICE_COLUMNS:
		text = _choices(column)[int(item.get_range(c))]
	cell_edited.emit(index, str(_rows[index]["id"]), column, -1, text)


func _on_item_activated() -> void:
	if _tree.get_selected_column() == COLUMNS.find("opcoes"):
		_on_edit_options()


func _on_title_clicked(column: int, _mouse_button: int) -> void:
	_sort_ascending = not _sort_ascending if _sort_column == column else true
	_sort_column = column
	refresh()


func _on_add() -> void:
	add_requested.emit(_selected_index())


func _on_duplicate() -> void:
	var index := _selected_index()
	if index >= 0:
		duplicate_requested.emit(index, str(_rows[index]["id"]))


func _on_delete() -> void:
	var index := _selected_index()
	if index >= 0:
		delete_requested.emit(index, str(_rows[index]["id"]))


func _on_edit_options() -> void:
	_options_index = _selected_index()
	if _options_index < 0:
		return
	for child in _options_box.get_children():
		child.queue_free()
	for title: String in [
		SorteioI18n.t("opção"),
		SorteioI18n.t("efeitos (medidor +N, …)"),
		SorteioI18n.t("efeitos nos atores")
	]:
		var label := Label.new()
		label.text = title
		_options_box.add_child(label)
	var options: Array = _rows[_options_index]["opcoes"]
	for k in options.size() + 1:  # one empty line more: a new option
		var option: Dictionary = options[k] if k < options.size() else {}
		for key: String in ["opcao", "efeitos", "efeitos_atores"]:
			var edit := LineEdit.new()
			edit.text = str(option.get(key, ""))
			edit.custom_minimum_size = Vector2(240, 0)
			edit.set_meta("option", k)
			edit.set_meta("key", key)
			_options_box.add_child(edit)
	_options_dialog.popup_centered(Vector2i(800, 300))


func _on_options_confirmed() -> void:
	var data: Dictionary = _rows[_options_index]
	var options: Array = data["opcoes"]
	var edits: Array = []
	for child in _options_box.get_children():
		if not child is LineEdit:
			continue
		var edit: LineEdit = child
		var k := int(edit.get_meta("option"))
		var key := str(edit.get_meta("key"))
		var before := str(options[k][key]) if k < options.size() else ""
		if edit.text != before:
			edits.append(
				{
					"op": "set",
					"index": _options_index,
					"card": str(data["id"]),
					"column": key,
					"option": k,
					"text": edit.text
				}
			)
	if not edits.is_empty():
		options_edited.emit(edits)
