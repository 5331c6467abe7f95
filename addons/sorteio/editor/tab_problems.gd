@tool
extends VBoxContainer
## The Sorteio panel's "Problemas" tab (editor only): every problem of the deck (Python's
## [code]validate[/code] answer), one row each with file, card id and field; choosing a row asks
## the card table to select that card and field.

## A problem row was chosen: [param field] is its field path ([code]cartas.3.modo[/code]).
signal field_chosen(field: String)
## The CSV export of this tab's rows was asked for.
signal export_requested(what: String)

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
## The last row when a reply left rows out (msgid; the count is how many).
const MORE := "… e mais %d problema(s), fora desta lista: sorteio validate lista todos"  # i18n

## The problems, one row each.
var tree: Tree
var _link: Link


func _init(link: Link) -> void:
	_link = link
	tree = Ui.tree(SorteioI18n.t("Problemas"), 5, [0, 1, 1, 2, 5])
	tree.item_selected.connect(_on_problem_selected)
	Ui.with_export(self, tree, func() -> void: export_requested.emit("validate"))


## Validate: every problem of the deck, one row each.
func run() -> void:
	var reply := await _link.request("validate", {"deck": _link.deck_for_python()})
	if _link.answer("validate", reply):
		show_result(reply["result"])


## Shows a [code]validate[/code] result (also the one a card edit returns), and this tab when
## [param switch_tab].
func show_result(result: Dictionary, switch_tab: bool = true) -> void:
	var root := Ui.reset(
		tree,
		[
			"",
			SorteioI18n.t("arquivo"),
			SorteioI18n.t("carta"),
			SorteioI18n.t("campo"),
			SorteioI18n.t("problema")
		]
	)
	for row: Dictionary in result["errors"] + result["warnings"]:
		var item := tree.create_item(root)
		var error: bool = row["severity"] == "error"
		item.set_text(0, SorteioI18n.t("erro") if error else SorteioI18n.t("aviso"))
		item.set_custom_color(0, Link.ERROR_COLOR if error else Link.WARNING_COLOR)
		item.set_text(1, str(row["file"]).get_file())
		item.set_text(2, str(row["card_id"]) if row["card_id"] != null else "-")
		item.set_text(3, str(row["field"]))
		item.set_text(4, str(row["message"]))
		item.set_metadata(0, row)
		for c in 5:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
	# Rows past what one reply carries (a deck with thousands of problems) are counted.
	var more_errors := int(result.get("more_errors", 0))
	var more_warnings := int(result.get("more_warnings", 0))
	if more_errors + more_warnings > 0:
		var more := tree.create_item(root)
		more.set_text(0, "…")
		more.set_text(4, SorteioI18n.t(MORE) % (more_errors + more_warnings))
		more.set_autowrap_mode(4, TextServer.AUTOWRAP_WORD_SMART)
		more.set_selectable(0, false)
	var summary: Variant = result["summary"]
	if result["valid"]:
		_link.set_status(
			(
				SorteioI18n.t("%s: válido — %d cartas (%d jogáveis), %d aviso(s)")
				% [
					summary["nome"],
					int(summary["cards"]),
					int(summary["playable"]),
					result["warnings"].size() + more_warnings
				]
			),
			Link.OK_COLOR
		)
	else:
		_link.set_status(
			(
				SorteioI18n.t("%d problema(s) no baralho; escolha um para ver a carta")
				% (result["errors"].size() + more_errors)
			),
			Link.ERROR_COLOR
		)
	if switch_tab:
		_link.tabs.current_tab = 1


## Shows a spreadsheet's problems (or warnings): [code]sheet_import[/code] /
## [code]sheet_export[/code] rows, one each with the file, the card, the cell as the CLI names
## it ([code]cartas!C14[/code]) and the column with the message; and this tab.
func show_sheet_rows(rows: Array) -> void:
	var root := Ui.reset(
		tree,
		[
			"",
			SorteioI18n.t("arquivo"),
			SorteioI18n.t("carta"),
			SorteioI18n.t("célula"),
			SorteioI18n.t("problema")
		]
	)
	for row: Dictionary in rows:
		var item := tree.create_item(root)
		var error: bool = row["severity"] == "error"
		var column := str(row["field"]) if row["field"] != null else ""
		item.set_text(0, SorteioI18n.t("erro") if error else SorteioI18n.t("aviso"))
		item.set_custom_color(0, Link.ERROR_COLOR if error else Link.WARNING_COLOR)
		item.set_text(1, str(row["file"]).get_file())
		item.set_text(2, str(row["card_id"]) if row["card_id"] != null else "-")
		item.set_text(3, str(row["cell"]))
		item.set_text(4, (column + ": " if column != "" else "") + str(row["message"]))
		for c in 5:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
	_link.tabs.current_tab = 1


## Selects the problem row [param row_index], as a click does.
func select_problem(row_index: int) -> void:
	tree.get_root().get_child(row_index).select(0)  # emits item_selected


func _on_problem_selected() -> void:
	var item := tree.get_selected()
	if item == null:
		return
	var row: Variant = item.get_metadata(0)
	if row is Dictionary:  # not the "… e mais" row
		field_chosen.emit(str(row["field"]))
