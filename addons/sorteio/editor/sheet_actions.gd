@tool
extends Node
## The card table's spreadsheet round trip (issue 15 "a round trip between a deck and a
## spreadsheet", editor only): "Exportar planilha…" writes the deck the panel shows as a
## workbook (.xlsx, the default) or one CSV file through Python's [code]sheet_export[/code];
## "Importar planilha…" reads a sheet through [code]sheet_import[/code], which checks it as a
## deck and, only when it has no problem, writes the deck file (as [code]sorteio sheet
## import[/code] does, keeping the file's key order). The import is one action in the editor's
## undo history: undo writes back the file's previous bytes, redo the imported ones. A sheet's
## problems go to the Problemas tab, one row each with its cell ([code]cartas!C14[/code]), and
## nothing is written. No rule lives here: Python reads, checks and writes.

const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const CardsHost := preload("res://addons/sorteio/editor/cards_host.gd")
const TabProblems := preload("res://addons/sorteio/editor/tab_problems.gd")

## The editor's undo manager (given by the plugin through the panel); imports are undone
## through it.
var undo_redo: EditorUndoRedoManager = null
var _link: Link
var _cards: CardsHost
var _problems: TabProblems
var _export_dialog: EditorFileDialog
var _import_dialog: EditorFileDialog


func _init(link: Link, cards: CardsHost, problems: TabProblems) -> void:
	_link = link
	_cards = cards
	_problems = problems
	name = "SheetActions"
	var filters := ["*.xlsx ; " + SorteioI18n.t("Pasta de trabalho (Excel)"), "*.csv ; CSV"]
	_export_dialog = Ui.file_dialog(
		self,
		filters,
		EditorFileDialog.FILE_MODE_SAVE_FILE,
		func(path: String) -> void: export_sheet(path)
	)
	_export_dialog.access = EditorFileDialog.ACCESS_FILESYSTEM
	_import_dialog = Ui.file_dialog(
		self,
		filters,
		EditorFileDialog.FILE_MODE_OPEN_FILE,
		func(path: String) -> void: import_sheet(path)
	)
	_import_dialog.access = EditorFileDialog.ACCESS_FILESYSTEM
	# The card table's toolbar is its first child (card_table.gd builds it first).
	var bar: Node = cards.table.get_child(0)
	bar.add_child(Ui.button(SorteioI18n.t("Exportar planilha…"), _ask_export))
	bar.add_child(Ui.button(SorteioI18n.t("Importar planilha…"), _ask_import))


## Writes the deck the panel shows to [param path] (.xlsx or .csv; res:// or absolute).
## Ends as the action [code]sheet_export[/code].
func export_sheet(path: String) -> void:
	var target := Link.globalize(path)
	var reply := await _link.request(
		"sheet_export", {"deck": _link.deck_for_python(), "sheet": target}
	)
	if not _link.answer("sheet_export", reply, false):
		return
	var result: Dictionary = reply["result"]
	var warnings: Array = result["warnings"]
	var text := (
		SorteioI18n.t("planilha exportada: %s (%d cartas)") % [result["file"], int(result["cards"])]
	)
	if not warnings.is_empty():
		_problems.show_sheet_rows(warnings)
		text += SorteioI18n.t("; %d aviso(s) na aba Problemas") % warnings.size()
	_link.set_status(text, Link.WARNING_COLOR if not warnings.is_empty() else Link.OK_COLOR)
	_link.results["sheet_export"] = result
	_link.action_finished.emit("sheet_export", true)


## Reads the sheet at [param path] (.xlsx or .csv) into the deck the panel shows: written as
## one undoable action when the sheet has no problem; else its problems, each with its cell,
## in the Problemas tab and the deck file untouched. Ends as the action
## [code]sheet_import[/code] (ok only when the deck was written).
func import_sheet(path: String) -> void:
	var deck: Variant = _link.deck_for_python()
	if deck == null:
		_link.set_status(
			SorteioI18n.t(
				(
					"o baralho embutido é só leitura: copie-o para o projeto "
					+ "(ex.: res://decks/baralho.sorteio.json) e defina sorteio/deck"
				)
			),
			Link.WARNING_COLOR
		)
		_link.action_finished.emit("sheet_import", false)
		return
	var source := Link.globalize(path)
	var existed := FileAccess.file_exists(deck)
	var before := FileAccess.get_file_as_bytes(deck)
	var reply := await _link.request("sheet_import", {"sheet": source, "out": deck})
	if not _link.answer("sheet_import", reply, false):
		return
	var result: Dictionary = reply["result"]
	_link.results["sheet_import"] = result
	if not result["written"]:
		var errors: Array = result["errors"]
		_problems.show_sheet_rows(errors)
		_link.last_error = str(errors[0]["message"]) if not errors.is_empty() else ""
		_link.set_status(
			(
				SorteioI18n.t("%d problema(s) na planilha %s; o baralho não foi alterado")
				% [errors.size(), source.get_file()]
			),
			Link.ERROR_COLOR
		)
		_link.action_finished.emit("sheet_import", false)
		return
	var after := FileAccess.get_file_as_bytes(deck)
	var changed := after != before or not existed
	if changed and undo_redo != null:
		# One action: undo gives the previous file back byte for byte. The panel is its
		# context, as for the card table's edits, so "Desfazer" undoes it in turn.
		undo_redo.create_action(
			SorteioI18n.t("Sorteio: importar planilha %s") % source.get_file(),
			UndoRedo.MERGE_DISABLE,
			_link.panel,
			false,
			false
		)
		undo_redo.add_do_method(self, "_restore", deck, after)
		# A deck file that did not exist is removed again (null: no file).
		var undo_data: Variant = null
		if existed:
			undo_data = before
		undo_redo.add_undo_method(self, "_restore", deck, undo_data)
		undo_redo.commit_action(false)  # already done: Python wrote the file
	await _cards.reload_after_write()
	var summary: Dictionary = result["summary"]
	_link.set_status(
		(
			(
				SorteioI18n.t("planilha %s importada: %d cartas escritas em %s")
				% [source.get_file(), int(summary["cards"]), _link.deck()]
			)
			if changed
			else SorteioI18n.t("planilha %s importada: o baralho não mudou") % source.get_file()
		),
		Link.OK_COLOR
	)
	_link.action_finished.emit("sheet_import", true)


## Writes [param data] to the deck file at [param path] (undo / redo of an import; null:
## removes the file, which the import created), then reloads the card table (which ends as the
## action [code]table[/code]).
func _restore(path: String, data: Variant) -> void:
	if data == null:
		DirAccess.remove_absolute(path)
		_cards.clear()
		_link.set_status(SorteioI18n.t("%s removido (desfeito)") % path)
		_link.action_finished.emit("table", true)
		return
	var file := FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		_link.set_status(
			(
				SorteioI18n.t("não foi possível escrever %s (%s)")
				% [path, error_string(FileAccess.get_open_error())]
			),
			Link.ERROR_COLOR
		)
		_link.action_finished.emit("table", false)
		return
	file.store_buffer(data)
	file.close()
	await _cards.reload_after_write()


func _ask_export() -> void:
	var deck := _link.deck()
	var stem := deck.get_file().get_basename().get_basename() if deck != "" else "padrao"
	_export_dialog.current_file = stem + ".xlsx"
	_export_dialog.popup_file_dialog()


func _ask_import() -> void:
	_import_dialog.popup_file_dialog()
