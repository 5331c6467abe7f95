@tool
extends Node
## The Sorteio panel's card table, fed and edited through Python (editor only): loads the rows
## (Python's [code]deck_table[/code], in pages), sends each edit ([code]deck_edit[/code], which
## writes the deck file in its own layout and validates it) with Godot's undo, and re-imports
## the deck once the designer pauses. The table itself is [code]card_table.gd[/code].

## A card edit was validated: the [code]validate[/code] result to show.
signal validated(result: Dictionary)

const CardTable := preload("res://addons/sorteio/editor/card_table.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const PAGE := 500

## The card table (the panel's first tab).
var table: CardTable
## The editor's undo manager (given by the plugin); card edits are undone through it.
var undo_redo: EditorUndoRedoManager = null
var _link: Link
var _digest: String = ""
var _rescan: Timer


func _init(link: Link) -> void:
	_link = link
	name = "CardsHost"
	table = CardTable.new()
	table.cell_edited.connect(
		func(index: int, _card: String, column: String, option: int, text: String) -> void:
			edit_cell(index, column, text, option)
	)
	table.options_edited.connect(
		func(edits: Array) -> void: _edit(edits, SorteioI18n.t("Sorteio: opções"))
	)
	table.add_requested.connect(add_card)
	table.duplicate_requested.connect(func(index: int, _c: String) -> void: duplicate_card(index))
	table.delete_requested.connect(func(index: int, _c: String) -> void: delete_card(index))
	table.history_requested.connect(_on_history)
	_rescan = Timer.new()
	_rescan.one_shot = true
	_rescan.wait_time = 2.0
	_rescan.timeout.connect(_on_rescan)
	add_child(_rescan)


## Loads the card table of the deck (all rows, in pages).
func load_table() -> void:
	if not _editable():
		return
	var asked := _link.deck()
	var all_rows: Array = []
	var reply: Dictionary = {}
	while true:
		reply = await _link.request(
			"deck_table",
			{"deck": _link.deck_for_python(), "offset": all_rows.size(), "limit": PAGE}
		)
		if not reply.get("ok", false):
			break
		all_rows += reply["result"]["rows"]
		if all_rows.size() >= int(reply["result"]["total"]):
			break
	if asked != _link.deck():
		return  # the deck changed meanwhile: that table is of no use
	if _link.answer("table", reply, false):
		var whole: Dictionary = reply["result"].duplicate()
		whole["rows"] = all_rows
		_digest = str(whole["digest"])
		_link.results["table"] = whole
		table.show_table(whole)
		_link.set_status(SorteioI18n.t("%d cartas") % all_rows.size())
		_link.action_finished.emit("table", true)


## Edits one cell (an option column with [param option] >= 0), as typing in the table does.
func edit_cell(index: int, column: String, text: String, option: int = -1) -> void:
	var edit := {
		"op": "set",
		"index": index,
		"card": str(table.row(index).get("id", "")),
		"column": column,
		"text": text
	}
	if option >= 0:
		edit["option"] = option
	await _edit([edit], SorteioI18n.t("Sorteio: %s de %s") % [column, edit["card"]])


## Adds a new card after deck index [param after] (-1: at the end).
func add_card(after: int = -1) -> void:
	var edit: Dictionary = {"op": "add", "after": null}
	if after >= 0:
		edit["after"] = after
	await _edit([edit], SorteioI18n.t("Sorteio: nova carta"))


## Duplicates the card at deck index [param index].
func duplicate_card(index: int) -> void:
	var card := str(table.row(index).get("id", ""))
	await _edit(
		[{"op": "duplicate", "index": index, "card": card}],
		SorteioI18n.t("Sorteio: duplicar %s") % card
	)


## Deletes the card at deck index [param index].
func delete_card(index: int) -> void:
	var card := str(table.row(index).get("id", ""))
	await _edit(
		[{"op": "delete", "index": index, "card": card}],
		SorteioI18n.t("Sorteio: excluir %s") % card
	)


## Selects the card and field of [param field] ([code]cartas.3.modo[/code]; a problem row's
## field), loading the table first when it is empty, and shows the table.
func show_field(field: String) -> void:
	var parts := field.split(".")
	if parts.size() >= 2 and parts[0] == "cartas" and parts[1].is_valid_int():
		if table.card_count() == 0:
			await load_table()
		table.select_field(int(parts[1]), field)
		_link.tabs.current_tab = 0


## Selects the card [param card_id] in the card table (loaded first when empty) and shows it;
## nothing when the deck has no such card (the built-in deck has no table).
func show_card(card_id: String) -> void:
	if table.card_count() == 0:
		await load_table()
	for i in table.card_count():
		if table.row(i).get("id", "") == card_id:
			show_field("cartas.%d.id" % i)
			return


## Reloads the table after the deck file was written in one piece (a spreadsheet import, or its
## undo): the rows come again from the file, and the editor re-imports it once things pause.
func reload_after_write() -> void:
	_rescan.start()
	await load_table()


## Forgets the table (another deck was chosen).
func clear() -> void:
	_digest = ""
	table.clear_table()


func _edit(edits: Array, label: String) -> void:
	if not _editable():
		return
	var reply := await _link.request(
		"deck_edit", {"deck": _link.deck_for_python(), "edits": edits, "expect": _digest}
	)
	if not reply.get("ok", false) and str(reply.get("error", {}).get("code", "")) == "stale":
		await load_table()  # changed on disk: show the file as it is now
	if not _link.answer("edit", reply, false):
		if edits.size() == 1 and edits[0].get("op") == "set":  # the stored value back, marked
			table.refuse_edit(int(edits[0]["index"]), str(edits[0]["column"]), _link.last_error)
		return
	var result: Dictionary = reply["result"]
	_after_edit(result)
	if undo_redo != null:
		# The panel is the action's context: its undo history is the one the editor shows.
		undo_redo.create_action(label, UndoRedo.MERGE_DISABLE, _link.panel, false, false)
		undo_redo.add_do_method(self, "_replay", result["redo"])
		undo_redo.add_undo_method(self, "_replay", result["undo"])
		undo_redo.commit_action(false)  # already done: Python wrote the file
	_link.action_finished.emit("edit", true)


func _replay(edits: Array) -> void:
	var reply := await _link.request("deck_edit", {"deck": _link.deck_for_python(), "edits": edits})
	if _link.answer("edit", reply, false):
		_after_edit(reply["result"])
		_link.action_finished.emit("edit", true)


func _after_edit(result: Dictionary) -> void:
	_digest = str(result["digest"])
	table.apply_splices(result["splices"])
	_link.results["validate"] = result["validation"]
	validated.emit(result["validation"])
	_link.set_status(
		SorteioI18n.t("%s · validado em %d ms") % [_link.message, int(result["validate_ms"])],
		_link.status.get_theme_color("font_color")
	)
	_rescan.start()  # the editor re-imports the deck once the designer pauses


func _editable() -> bool:
	if _link.deck_for_python() == null:
		_link.set_status(
			SorteioI18n.t(
				(
					"o baralho embutido é só leitura: copie-o para o projeto "
					+ "(ex.: res://decks/baralho.sorteio.json) e defina sorteio/deck"
				)
			),
			Link.WARNING_COLOR
		)
		_link.action_finished.emit("table", false)
		return false
	return true


func _on_history(redo: bool) -> void:
	if undo_redo == null:
		return
	var history := undo_redo.get_history_undo_redo(undo_redo.get_object_history_id(_link.panel))
	if redo:
		history.redo()
	else:
		history.undo()


func _on_rescan() -> void:
	var path := _link.deck()
	if path.begins_with("res://") and Engine.is_editor_hint():
		EditorInterface.get_resource_filesystem().scan_sources()
