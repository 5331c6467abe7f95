@tool
extends VBoxContainer
## The Sorteio bottom panel: the project's deck as a card table to edit, and its checks —
## Validar (every problem), Cobertura (lint), Prévia (the next turn), Simular (matches, §7
## sweeps).
##
## Every answer comes from Python's request handler (docs/protocol.md: [code]deck_table[/code],
## [code]deck_edit[/code], [code]validate[/code], [code]lint[/code], [code]preview[/code],
## [code]simulate_*[/code]) over a [SorteioBridge] ([code]editor_python.gd[/code] says which);
## the panel lays the answers out and computes nothing of the rules. Editor only. This script
## is the shell: the deck field, the buttons, the status line and the tabs, each tab a script
## of its own ([code]cards_host.gd[/code], [code]tab_problems.gd[/code],
## [code]tab_coverage.gd[/code], [code]tab_preview.gd[/code], [code]tab_simulate.gd[/code]),
## sharing one [code]panel_link.gd[/code] (the bridge, the results, the status line).

## An action ended: [param action] is validate, coverage, preview, simulate, percard, table,
## edit, sheet_export or sheet_import.
signal action_finished(action: String, ok: bool)

const EditorPython := preload("res://addons/sorteio/editor/editor_python.gd")
const CardTable := preload("res://addons/sorteio/editor/card_table.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const CardsHost := preload("res://addons/sorteio/editor/cards_host.gd")
const TabProblems := preload("res://addons/sorteio/editor/tab_problems.gd")
const TabCoverage := preload("res://addons/sorteio/editor/tab_coverage.gd")
const TabPreview := preload("res://addons/sorteio/editor/tab_preview.gd")
const TabSimulate := preload("res://addons/sorteio/editor/tab_simulate.gd")
const PerCard := preload("res://addons/sorteio/editor/percard_view.gd")
const StartPicker := preload("res://addons/sorteio/editor/start_picker.gd")
const SheetActions := preload("res://addons/sorteio/editor/sheet_actions.gd")
const ResultsCsv := preload("res://addons/sorteio/editor/results_csv.gd")

## The editor's undo manager (given by the plugin); card edits are undone through it.
var undo_redo: EditorUndoRedoManager = null:
	set(value):
		undo_redo = value
		_cards.undo_redo = value
		_sheets.undo_redo = value
## action -> the last result Dictionary Python returned.
var results: Dictionary:
	get:
		return _link.results
	set(value):
		_link.results = value
## The last error message shown.
var last_error: String:
	get:
		return _link.last_error
	set(value):
		_link.last_error = value
## The editor's bridge to Python (started at the first action).
var bridge: SorteioBridge:
	get:
		return _link.bridge
	set(value):
		_link.bridge = value
## The per-card study of the Simulação tab ([code]percard_view.gd[/code]: run, stop, shown).
var per_card: PerCard:
	get:
		return _simulate.per_card
## Where the Prévia tab starts ([code]start_picker.gd[/code]: choose, params, describe).
var preview_start: StartPicker:
	get:
		return _preview.start
## Where the Simulação tab's matches start.
var simulation_start: StartPicker:
	get:
		return _simulate.start
## The card table's spreadsheet round trip ([code]sheet_actions.gd[/code]: export_sheet,
## import_sheet, as "Exportar planilha…" / "Importar planilha…" do).
var sheets: SheetActions:
	get:
		return _sheets
## The card table.
var table: CardTable:
	get:
		return _cards.table

var _link: Link
var _cards: CardsHost
var _problems: TabProblems
var _coverage: TabCoverage
var _preview: TabPreview
var _simulate: TabSimulate
var _sheets: SheetActions
var _deck_edit: LineEdit
var _deck_dialog: EditorFileDialog
var _export_dialog: EditorFileDialog
var _export_what: String = ""
var _deck_shown: String = ""


func _init() -> void:
	name = "SorteioPanel"
	custom_minimum_size = Vector2(0, 320)
	# The panel's words come from its own catalog (SorteioI18n), already in the run's language:
	# the editor's catalog must not translate them again ("Preview" was drawn as the pt-BR
	# editor's "Visualização", "New" as "Novo", in an English panel). Its children inherit.
	# (Node.auto_translate_mode is Godot 4.3+; on 4.2, Control.auto_translate.)
	if "auto_translate_mode" in self:
		set("auto_translate_mode", 2)  # Node.AUTO_TRANSLATE_MODE_DISABLED
	else:
		set("auto_translate", false)
	_build()


func _ready() -> void:
	if _deck_edit.text == "":
		_deck_edit.text = EditorPython.project_deck()
	_deck_shown = deck()
	_link.set_status("")


func _exit_tree() -> void:
	_link.close()


# -- the deck ------------------------------------------------------------------------------------


## Chooses the deck the panel checks (a res:// path, a file path or ""); the results of the
## previous deck are cleared.
func set_deck(path: String) -> void:
	_deck_edit.text = path
	_on_deck_changed()


## The deck field as typed ("" means the project's deck, [code]sorteio/deck[/code]).
func deck() -> String:
	return _link.deck()


## Makes the chosen deck the project's deck: the project setting [code]sorteio/deck[/code]
## that the [code]Sorteio[/code] node plays by default too.
func use_as_project_deck() -> void:
	ProjectSettings.set_setting(EditorPython.SETTING_DECK, deck())
	ProjectSettings.set_initial_value(EditorPython.SETTING_DECK, "")
	ProjectSettings.save()
	_link.set_status(SorteioI18n.t("sorteio/deck = %s") % deck())


# -- actions (the buttons call these; the probe calls them too) ---------------------------------


## Validate: every problem of the deck, one row each.
func run_validate() -> void:
	await _problems.run()


## Coverage: the lint report as tables.
func run_coverage() -> void:
	await _coverage.run()


## Preview: the next turn from the start, or from a saved match at [param state_path].
func run_preview(state_path: String = "") -> void:
	await _preview.run(state_path)


## Simulate [param matches] matches (-1: the field's value) with [param player] ("" : the
## chosen one) and a §7 sweep of [param sweep] ({name: [values]}; empty: the controls').
func run_simulate(matches: int = -1, player: String = "", sweep: Dictionary = {}) -> void:
	await _simulate.run(matches, player, sweep)


## Stops a running simulation (Parar).
func stop_simulation() -> void:
	await _simulate.stop()


## Loads the card table of the deck (all rows, in pages).
func load_table() -> void:
	await _cards.load_table()


## Edits one cell (an option column with [param option] >= 0), as typing in the table does.
func edit_cell(index: int, column: String, text: String, option: int = -1) -> void:
	await _cards.edit_cell(index, column, text, option)


## Adds a new card after deck index [param after] (-1: at the end).
func add_card(after: int = -1) -> void:
	await _cards.add_card(after)


## Duplicates the card at deck index [param index].
func duplicate_card(index: int) -> void:
	await _cards.duplicate_card(index)


## Deletes the card at deck index [param index].
func delete_card(index: int) -> void:
	await _cards.delete_card(index)


## Shows the tab [param index] (0 cards, 1 problems, 2 coverage, 3 preview, 4 simulation).
func show_tab(index: int) -> void:
	_link.tabs.current_tab = index


## True while a request or a simulation runs.
func is_busy() -> bool:
	return _link.is_busy() or _simulate.is_running()


## Rows shown for an action's last answer (what a designer sees), for tests.
func rows(action: String) -> int:
	var tree: Tree = _trees().get(action, _simulate.sweep_tree)
	return tree.get_root().get_child_count() if tree.get_root() != null else 0


## The texts of a result tree, row by row (tests read what a designer reads).
func row_texts(action: String) -> Array:
	return Ui.texts(_trees()[action])


## The simulation summary as shown (plain text).
func simulate_summary() -> String:
	return _simulate.summary()


## The status line as shown.
func status_text() -> String:
	return _link.status.text


## The progress bar's value.
func progress_value() -> float:
	return _simulate.progress_value()


## Selects the problem row [param row] of the Problemas tab, as a click does: the card table
## then selects that card and field.
func select_problem(row_index: int) -> void:
	_problems.select_problem(row_index)


## Writes the table of [param what] (validate, coverage, preview, sweep, cards, percard) as
## CSV for the spreadsheet of the run's language ([code]results_csv.gd[/code]: in pt-BR
## [code];[/code], a BOM and decimal commas, as Excel pt-BR opens it; in English [code],[/code]
## and points).
func export_csv(what: String, path: String) -> Error:
	var tree: Tree = _trees()[what]
	var titles: Array = []
	for c in tree.columns:
		titles.append(tree.get_column_title(c))
	return ResultsCsv.write(path, titles, row_texts(what), SorteioI18n.language())


## Writes the per-mode chart (or with [param what] [code]percard_png[/code] the per-card chart)
## as a PNG (what the editor shows of it); ERR_UNAVAILABLE in a headless editor, which draws
## nothing.
func export_png(path: String, what: String = "png") -> Error:
	var image := (
		_simulate.per_card.chart_image() if what == "percard_png" else _simulate.chart_image()
	)
	if image == null:
		return ERR_UNAVAILABLE
	return image.save_png(path)


# -- building the panel --------------------------------------------------------------------------


func _build() -> void:
	var top := HBoxContainer.new()
	add_child(top)
	top.add_child(Ui.label(SorteioI18n.t("Baralho:")))
	_deck_edit = LineEdit.new()
	_deck_edit.placeholder_text = SorteioI18n.t("vazio: o baralho do projeto (sorteio/deck)")
	_deck_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	_deck_edit.text_submitted.connect(func(_t: String) -> void: _on_deck_changed())
	_deck_edit.focus_exited.connect(_on_deck_changed)
	top.add_child(_deck_edit)
	_deck_dialog = Ui.file_dialog(
		self,
		["*.sorteio.json ; " + SorteioI18n.t("Baralho"), "*.json ; JSON"],
		EditorFileDialog.FILE_MODE_OPEN_FILE,
		func(path: String) -> void: set_deck(path)
	)
	top.add_child(Ui.button("…", func() -> void: _deck_dialog.popup_file_dialog()))
	top.add_child(Ui.button(SorteioI18n.t("Usar no jogo"), use_as_project_deck))
	top.add_child(Ui.button(SorteioI18n.t("Validar"), run_validate))
	top.add_child(Ui.button(SorteioI18n.t("Cobertura"), run_coverage))
	top.add_child(Ui.button(SorteioI18n.t("Prévia"), func() -> void: run_preview()))
	top.add_child(Ui.button(SorteioI18n.t("Simular"), func() -> void: run_simulate()))
	var status := Ui.label("")
	status.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	add_child(status)
	var tabs := TabContainer.new()
	tabs.size_flags_vertical = SIZE_EXPAND_FILL
	add_child(tabs)
	_link = Link.new(self, _deck_edit, status, tabs)
	_link.action_finished.connect(action_finished.emit)
	_cards = CardsHost.new(_link)
	tabs.add_child(_cards.table)
	_problems = TabProblems.new(_link)
	_problems.field_chosen.connect(_cards.show_field)
	_cards.validated.connect(func(result: Dictionary) -> void: _problems.show_result(result, false))
	_coverage = TabCoverage.new(_link)
	_preview = TabPreview.new(_link)
	_simulate = TabSimulate.new(_link)
	_simulate.per_card.card_chosen.connect(_cards.show_card)
	for tab: Control in [_problems, _coverage, _preview, _simulate]:
		tabs.add_child(tab)
		tab.connect("export_requested", _ask_export)
	_export_dialog = Ui.file_dialog(
		self,
		["*.csv ; CSV", "*.png ; PNG"],
		EditorFileDialog.FILE_MODE_SAVE_FILE,
		_on_export_chosen
	)
	add_child(_cards)
	_sheets = SheetActions.new(_link, _cards, _problems)
	add_child(_sheets)


func _trees() -> Dictionary:
	return {
		"validate": _problems.tree,
		"coverage": _coverage.tree,
		"preview": _preview.tree,
		"sweep": _simulate.sweep_tree,
		"cards": _simulate.card_tree,
		"percard": _simulate.per_card.tree
	}


func _on_deck_changed() -> void:
	if deck() == _deck_shown:
		return
	_deck_shown = deck()
	_link.results.clear()
	_cards.clear()
	for tree: Tree in [_problems.tree, _coverage.tree, _preview.tree]:
		tree.clear()
	_simulate.clear()
	_link.set_status(SorteioI18n.t("resultados do baralho anterior apagados"))


func _ask_export(what: String) -> void:
	_export_what = what
	var png := what.ends_with("png")
	_export_dialog.current_file = "sorteio_%s.%s" % [what, "png" if png else "csv"]
	_export_dialog.popup_file_dialog()


func _on_export_chosen(path: String) -> void:
	var error := (
		export_png(path, _export_what)
		if _export_what.ends_with("png")
		else export_csv(_export_what, path)
	)
	_link.set_status(
		(
			SorteioI18n.t("exportado: %s") % path
			if error == OK
			else SorteioI18n.t("não foi possível escrever %s (%s)") % [path, error_string(error)]
		),
		Link.OK_COLOR if error == OK else Link.ERROR_COLOR
	)
