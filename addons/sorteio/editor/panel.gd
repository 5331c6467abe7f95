@tool
extends VBoxContainer
## The Sorteio bottom panel: the project's deck as a card table to edit, and its checks —
## Validar (every problem), Cobertura (lint), Prévia (the next turn), Simular (matches, §7
## sweeps).
##
## Every answer comes from Python's request handler (docs/protocol.md: [code]deck_table[/code],
## [code]deck_edit[/code], [code]validate[/code], [code]lint[/code], [code]preview[/code],
## [code]simulate_*[/code]) over a [SorteioBridge] ([code]editor_python.gd[/code] says which);
## this script lays the answers out and computes nothing of the rules. Editor only.

## An action ended: [param action] is validate, coverage, preview, simulate, table or edit.
signal action_finished(action: String, ok: bool)

const EditorPython := preload("res://addons/sorteio/editor/editor_python.gd")
const CardTable := preload("res://addons/sorteio/editor/card_table.gd")
const Chart := preload("res://addons/sorteio/editor/chart.gd")
const STEP_BUDGET_MS := 60
const DEFAULT_MATCHES := 3000
const PAGE := 500
const ERROR_COLOR := Color(1.0, 0.45, 0.42)
const WARNING_COLOR := Color(1.0, 0.82, 0.4)
const OK_COLOR := Color(0.5, 0.9, 0.55)
## The players of [code]sorteio simulate --policy[/code], with the words the panel says.
const PLAYERS: Array[Array] = [
	["random", "aleatório (escolhe na moeda)"],
	["protect", "protetor (evita zerar medidores)"],
	["lookahead", "antecipador (pesa a próxima carta)"],
]
## The §7 parameters a sweep may vary: [name, label, lowest, highest, step] (GDD 06 §7 safe
## ranges; Python checks them again and says so when a value is outside).
const SWEEP: Array[Array] = [
	["cartas_por_turno", "N (cartas por turno)", 6, 8, 1],
	["teto_obrigatorias", "T (teto de obrigatórias)", 2, 4, 1],
	["limite_medidor", "limite do medidor", 25, 35, 5],
	["limite_emergencia", "limite de emergência", 0, 24, 2],
	["limite_por_modo", "limite por modo", 1, 2, 1],
]

## The editor's undo manager (given by the plugin); card edits are undone through it.
var undo_redo: EditorUndoRedoManager = null
## action -> the last result Dictionary Python returned.
var results: Dictionary = {}
## The last error message shown.
var last_error: String = ""
## The editor's bridge to Python (started at the first action).
var bridge: SorteioBridge = null
## The card table.
var table: CardTable

var _deck_edit: LineEdit
var _status: Label
var _tabs: TabContainer
var _problems: Tree
var _coverage: Tree
var _preview: Tree
var _state_edit: LineEdit
var _preview_seed: SpinBox
var _preview_player: OptionButton
var _matches: SpinBox
var _sim_seed: SpinBox
var _sim_player: OptionButton
var _sweep_checks: Array[CheckBox] = []
var _sweep_from: Array[SpinBox] = []
var _sweep_to: Array[SpinBox] = []
var _progress: ProgressBar
var _sim_summary: RichTextLabel
var _mode_chart: Chart
var _sweep_table: Tree
var _card_table: Tree
var _deck_dialog: EditorFileDialog
var _state_dialog: EditorFileDialog
var _export_dialog: EditorFileDialog
var _export_what: String = ""
var _busy: bool = false
var _job: int = -1
var _digest: String = ""
var _deck_shown: String = ""
var _rescan: Timer
var _message: String = ""


func _init() -> void:
	name = "SorteioPanel"
	custom_minimum_size = Vector2(0, 320)
	_build()


func _ready() -> void:
	if _deck_edit.text == "":
		_deck_edit.text = EditorPython.project_deck()
	_deck_shown = deck()
	_set_status("")


func _exit_tree() -> void:
	if bridge != null:
		bridge.close()
		bridge = null


# -- the deck ------------------------------------------------------------------------------------


## Chooses the deck the panel checks (a res:// path, a file path or ""); the results of the
## previous deck are cleared.
func set_deck(path: String) -> void:
	_deck_edit.text = path
	_on_deck_changed()


## The deck field as typed ("" means the project's deck, [code]sorteio/deck[/code]).
func deck() -> String:
	var typed := _deck_edit.text.strip_edges()
	return typed if typed != "" else EditorPython.project_deck()


## Makes the chosen deck the project's deck: the project setting [code]sorteio/deck[/code]
## that the [code]Sorteio[/code] node plays by default too.
func use_as_project_deck() -> void:
	ProjectSettings.set_setting(EditorPython.SETTING_DECK, deck())
	ProjectSettings.set_initial_value(EditorPython.SETTING_DECK, "")
	ProjectSettings.save()
	_set_status("sorteio/deck = %s" % deck())


# -- actions (the buttons call these; the probe calls them too) ---------------------------------


## Validate: every problem of the deck, one row each.
func run_validate() -> void:
	var reply := await _call("validate", {"deck": _deck_for_python()})
	if _answer("validate", reply):
		_show_validate(reply["result"])


## Coverage: the lint report as tables.
func run_coverage() -> void:
	var reply := await _call("lint", {"deck": _deck_for_python()})
	if _answer("coverage", reply):
		_show_coverage(reply["result"])


## Preview: the next turn from the start, or from a saved match at [param state_path].
func run_preview(state_path: String = "") -> void:
	if state_path != "":
		_state_edit.text = state_path
	var state := _state_edit.text.strip_edges()
	var params := {"deck": _deck_for_python(), "seed": int(_preview_seed.value),
		"policy": PLAYERS[_preview_player.selected][0], "state": null}
	if state != "":
		params["state"] = _globalize(state)
	var reply := await _call("preview", params)
	if _answer("preview", reply):
		_show_preview(reply["result"])


## Simulate [param matches] matches (-1: the field's value) with [param player] ("" : the
## chosen one) and a §7 sweep of [param sweep] ({name: [values]}; empty: the controls').
func run_simulate(matches: int = -1, player: String = "", sweep: Dictionary = {}) -> void:
	if matches > 0:
		_matches.value = matches
	if player != "":
		for i in PLAYERS.size():
			if PLAYERS[i][0] == player:
				_sim_player.select(i)
	var params := {"deck": _deck_for_python(), "matches": int(_matches.value),
		"seed": int(_sim_seed.value), "policy": PLAYERS[_sim_player.selected][0],
		"sweep": _sweep_params(sweep)}
	_progress.value = 0
	var reply := await _call("simulate_start", params)
	if not _answer("simulate", reply, false):
		return
	_job = int(reply["result"]["job"])
	_progress.max_value = float(reply["result"]["total"])
	while _job > 0:
		var step := await _call("simulate_step", {"job": _job, "budget_ms": STEP_BUDGET_MS})
		if _job < 0:
			return  # stopped meanwhile
		if not _answer("simulate", step, false):
			_job = -1
			return
		var data: Dictionary = step["result"]
		_progress.value = float(data["done"])
		_set_status("simulando: %d de %d partidas" % [int(data["done"]), int(data["total"])])
		if data["finished"]:
			_job = -1
			results["simulate"] = data["result"]
			_show_simulate(data["result"])
			action_finished.emit("simulate", true)
			return
		await get_tree().process_frame


## Stops a running simulation (Parar).
func stop_simulation() -> void:
	if _job > 0:
		var job := _job
		_job = -1
		await _call("simulate_cancel", {"job": job})
		_set_status("simulação interrompida")
		action_finished.emit("simulate", false)


## Loads the card table of the deck (all rows, in pages).
func load_table() -> void:
	if not _editable():
		return
	var asked := deck()
	var all_rows: Array = []
	var reply: Dictionary = {}
	while true:
		reply = await _call("deck_table", {"deck": _deck_for_python(),
			"offset": all_rows.size(), "limit": PAGE})
		if not reply.get("ok", false):
			break
		all_rows += reply["result"]["rows"]
		if all_rows.size() >= int(reply["result"]["total"]):
			break
	if asked != deck():
		return  # the deck changed meanwhile: that table is of no use
	if _answer("table", reply, false):
		var whole: Dictionary = reply["result"].duplicate()
		whole["rows"] = all_rows
		_digest = str(whole["digest"])
		results["table"] = whole
		table.show_table(whole)
		_set_status("%d cartas" % all_rows.size())
		action_finished.emit("table", true)


## Edits one cell (an option column with [param option] >= 0), as typing in the table does.
func edit_cell(index: int, column: String, text: String, option: int = -1) -> void:
	var edit := {"op": "set", "index": index, "card": str(table.row(index).get("id", "")),
		"column": column, "text": text}
	if option >= 0:
		edit["option"] = option
	await _edit([edit], "Sorteio: %s de %s" % [column, edit["card"]])


## Adds a new card after deck index [param after] (-1: at the end).
func add_card(after: int = -1) -> void:
	var edit: Dictionary = {"op": "add", "after": null}
	if after >= 0:
		edit["after"] = after
	await _edit([edit], "Sorteio: nova carta")


## Duplicates the card at deck index [param index].
func duplicate_card(index: int) -> void:
	var card := str(table.row(index).get("id", ""))
	await _edit([{"op": "duplicate", "index": index, "card": card}], "Sorteio: duplicar " + card)


## Deletes the card at deck index [param index].
func delete_card(index: int) -> void:
	var card := str(table.row(index).get("id", ""))
	await _edit([{"op": "delete", "index": index, "card": card}], "Sorteio: excluir " + card)


## Shows the tab [param index] (0 cards, 1 problems, 2 coverage, 3 preview, 4 simulation).
func show_tab(index: int) -> void:
	_tabs.current_tab = index


## True while a request or a simulation runs.
func is_busy() -> bool:
	return _busy or _job > 0


## Rows shown for an action's last answer (what a designer sees), for tests.
func rows(action: String) -> int:
	var tree: Tree = {"validate": _problems, "coverage": _coverage, "preview": _preview,
		"sweep": _sweep_table, "cards": _card_table}.get(action, _sweep_table)
	return tree.get_root().get_child_count() if tree.get_root() != null else 0


## The texts of a result tree, row by row (tests read what a designer reads).
func row_texts(action: String) -> Array:
	var tree: Tree = {"validate": _problems, "coverage": _coverage, "preview": _preview,
		"sweep": _sweep_table, "cards": _card_table}[action]
	var out: Array = []
	var item := tree.get_root().get_first_child() if tree.get_root() != null else null
	while item != null:
		var cells: Array[String] = []
		for c in tree.columns:
			cells.append(item.get_text(c))
		out.append(cells)
		item = item.get_next()
	return out


## The simulation summary as shown (plain text).
func simulate_summary() -> String:
	return _sim_summary.get_parsed_text()


## The status line as shown.
func status_text() -> String:
	return _status.text


## The progress bar's value.
func progress_value() -> float:
	return _progress.value


## Selects the problem row [param row] of the Problemas tab, as a click does: the card table
## then selects that card and field.
func select_problem(row_index: int) -> void:
	_problems.get_root().get_child(row_index).select(0)  # emits item_selected


## Writes the table of [param what] (validate, coverage, preview, sweep, cards) as CSV.
func export_csv(what: String, path: String) -> Error:
	var file := FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		return FileAccess.get_open_error()
	var tree: Tree = {"validate": _problems, "coverage": _coverage, "preview": _preview,
		"sweep": _sweep_table, "cards": _card_table}[what]
	var titles := PackedStringArray()
	for c in tree.columns:
		titles.append(tree.get_column_title(c))
	file.store_csv_line(titles)
	for cells: Array in row_texts(what):
		file.store_csv_line(PackedStringArray(cells))
	return OK


## Writes the per-mode chart as a PNG (what the editor shows of it); ERR_UNAVAILABLE in a
## headless editor, which draws nothing.
func export_png(path: String) -> Error:
	var image := _mode_chart.to_image()
	if image == null:
		return ERR_UNAVAILABLE
	return image.save_png(path)


# -- talking to Python ---------------------------------------------------------------------------


func _call(method: String, params: Dictionary) -> Dictionary:
	while _busy:  # one request at a time, answers in order
		await get_tree().process_frame
	_busy = true
	if bridge == null or bridge.has_failed():
		if bridge != null:
			bridge.close()
		_set_status("a iniciar o Python…")
		bridge = EditorPython.start_bridge(self)
	while not bridge.is_ready() and not bridge.has_failed():
		bridge.poll()
		await get_tree().process_frame
	var reply: Dictionary
	if bridge.has_failed():
		reply = SorteioBridge.error_reply("bridge_down", bridge.failure())
	else:
		@warning_ignore("redundant_await")  # the base's request is plain; bridges' are coroutines
		reply = await bridge.request(method, params)
	_busy = false
	return reply


func _answer(action: String, reply: Dictionary, finish: bool = true) -> bool:
	if reply.get("ok", false):
		if finish:
			results[action] = reply["result"]
			action_finished.emit(action, true)
		return true
	var error: Dictionary = reply.get("error", {})
	last_error = str(error.get("message", "?"))
	_set_status("erro (%s): %s" % [error.get("code", "?"), last_error], ERROR_COLOR)
	action_finished.emit(action, false)
	return false


func _edit(edits: Array, label: String) -> void:
	if not _editable():
		return
	var reply := await _call("deck_edit", {"deck": _deck_for_python(), "edits": edits,
		"expect": _digest})
	if not reply.get("ok", false) and str(reply.get("error", {}).get("code", "")) == "stale":
		await load_table()  # changed on disk: show the file as it is now
	if not _answer("edit", reply, false):
		return
	var result: Dictionary = reply["result"]
	_after_edit(result)
	if undo_redo != null:
		undo_redo.create_action(label, UndoRedo.MERGE_DISABLE, self, false, false)
		undo_redo.add_do_method(self, "_replay", result["redo"])
		undo_redo.add_undo_method(self, "_replay", result["undo"])
		undo_redo.commit_action(false)  # already done: Python wrote the file
	action_finished.emit("edit", true)


func _replay(edits: Array) -> void:
	var reply := await _call("deck_edit", {"deck": _deck_for_python(), "edits": edits})
	if _answer("edit", reply, false):
		_after_edit(reply["result"])
		action_finished.emit("edit", true)


func _after_edit(result: Dictionary) -> void:
	_digest = str(result["digest"])
	table.apply_splices(result["splices"])
	results["validate"] = result["validation"]
	_show_validate(result["validation"], false)
	_set_status("%s · validado em %d ms" % [_message, int(result["validate_ms"])],
		_status.get_theme_color("font_color"))
	_rescan.start()  # the editor re-imports the deck once the designer pauses


func _editable() -> bool:
	if _deck_for_python() == null:
		_set_status("o baralho embutido é só leitura: copie-o para o projeto "
			+ "(ex.: res://decks/baralho.sorteio.json) e defina sorteio/deck", WARNING_COLOR)
		action_finished.emit("table", false)
		return false
	return true


# -- showing answers -----------------------------------------------------------------------------


func _show_validate(result: Dictionary, switch_tab: bool = true) -> void:
	var root := _reset(_problems, ["", "arquivo", "carta", "campo", "problema"])
	for row: Dictionary in result["errors"] + result["warnings"]:
		var item := _problems.create_item(root)
		var error: bool = row["severity"] == "error"
		item.set_text(0, "erro" if error else "aviso")
		item.set_custom_color(0, ERROR_COLOR if error else WARNING_COLOR)
		item.set_text(1, str(row["file"]).get_file())
		item.set_text(2, str(row["card_id"]) if row["card_id"] != null else "-")
		item.set_text(3, str(row["field"]))
		item.set_text(4, str(row["message"]))
		item.set_metadata(0, row)
		for c in 5:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
	var summary: Variant = result["summary"]
	if result["valid"]:
		_set_status("%s: válido — %d cartas (%d jogáveis), %d aviso(s)" % [summary["nome"],
			int(summary["cards"]), int(summary["playable"]), result["warnings"].size()], OK_COLOR)
	else:
		_set_status("%d problema(s) no baralho; escolha um para ver a carta"
			% result["errors"].size(), ERROR_COLOR)
	if switch_tab:
		_tabs.current_tab = 1


func _show_coverage(report: Dictionary) -> void:
	var root := _reset(_coverage, ["", "", "", "", "", "", ""])
	_section(root, "Cartas jogáveis por ano (§3.1.3, §5)",
		["ano", "novas", "comuns", "de ator", "necessárias", "modos", "situação"])
	for y: Dictionary in report["years"]:
		_line(_coverage, root, [y["year"], y["new"], y["common_available"], y["actor_available"],
			y["need"], y["modes"], y["status"]], y["status"] != "ok")
	_section(root, "Cartas por modo (§3.4)", ["modo", "cartas", "ano 1", "ano 2", "ano 3", "ano 4"])
	for m: Dictionary in report["modes"]:
		_line(_coverage, root, [m.get("nome", m["mode"]), m["cards"]] + m["by_year"], false)
	_section(root, "Cartas ligadas por medidor (§3.2, §3.3)",
		["medidor", "ligadas", "até ano 1", "até ano 2", "até ano 3", "até ano 4", "situação"])
	for m: Dictionary in report["meters"]:
		_line(_coverage, root, [m.get("nome", m["meter"]), m["linked"]] + m["by_year"]
			+ [m["status"]], m["status"] != "ok")
	if not report["actors"].is_empty():
		var functions: Array = report["actors"][0]["functions"].keys()
		_section(root, "Cartas de ator por função (GDD 07 §3.2)", ["ator"] + functions)
		for a: Dictionary in report["actors"]:
			var cells: Array = [a.get("nome", a["actor"])]
			for f: String in functions:
				cells.append(a["functions"][f])
			_line(_coverage, root, cells, not a["missing"].is_empty())
	if not report["never_drawn"].is_empty():
		_section(root, "Nunca sorteadas", ["carta", "por quê"])
		for n: Dictionary in report["never_drawn"]:
			_line(_coverage, root, [n["card"], n["reason"]], false)
	_section(root, "Problemas", [""])
	for text: String in report["problems"]:
		_line(_coverage, root, [text], true)
	if report["problems"].is_empty():
		_line(_coverage, root, ["Nenhum problema de cobertura."], false)
	_set_status("cobertura: %d jogáveis de %d cartas para %d vagas; %d problema(s)" % [
		int(report["playable"]), int(report["cards"]), int(report["slots_per_match"]),
		report["problems"].size()])
	_tabs.current_tab = 2


func _show_preview(result: Dictionary) -> void:
	var root := _reset(_preview, ["ano.vaga", "carta", "modo", "por quê", "opção escolhida",
		"medidores depois"])
	if result["start_text"] != null:
		var start := _preview.create_item(root)
		start.set_text(0, "início")
		start.set_text(3, str(result["start_text"]))
	for row: Dictionary in result["rows"]:
		var item := _preview.create_item(root)
		if row["event"] == "turn_started":
			item.set_text(0, "Ano %d" % int(row["year"]))
			var texts: Array[String] = []
			for ob: Dictionary in row["mandatory"]:
				texts.append(str(ob["texto"]))
			item.set_text(3, "obrigatórias: " + (", ".join(texts) if texts else "nenhuma"))
		elif row["event"] == "card_played":
			item.set_text(0, "%d.%d" % [int(row["year"]), int(row["slot"])])
			item.set_text(1, "%s «%s»" % [row["card_id"], row["titulo"]])
			item.set_text(2, str(row.get("modo_texto", row["modo"])))
			item.set_text(3, str(row["reason_text"]))
			item.set_text(4, str(row["option_text"]))
			item.set_text(5, str(row["meters_text"]))
		else:
			item.set_text(0, "fim do ano %d" % int(row["year"]))
			item.set_text(3, "%d cartas%s" % [int(row["cards"]),
				" (turno curto)" if row["short"] else ""])
		for c in 6:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
	if result["ending"] != null:
		var end := _preview.create_item(root)
		end.set_text(0, "fim")
		end.set_text(3, str(result["ending"]))
	_set_status("prévia do próximo turno (%s)" % (
		"do estado salvo" if result["from"] == "state" else "do início"))
	_tabs.current_tab = 3


func _show_simulate(result: Dictionary) -> void:
	var scenarios: Array = result["scenarios"]
	var base: Dictionary = scenarios[0]
	var names: Dictionary = result.get("names", {})
	var player := str(result["policy"])
	for entry: Array in PLAYERS:
		if entry[0] == player:
			player = entry[1]
	var ended: Array[String] = []
	var meter_names: Dictionary = names.get("medidores", {})
	for key: String in base:
		if key.begins_with("zeroed_") and int(base[key]) > 0:
			var meter := key.substr(7)
			ended.append("%s %d" % [meter_names.get(meter, meter), int(base[key])])
	var text := ("[b]%d partidas com o jogador %s[/b], semente %d: catástrofe [b]%.1f%%[/b] "
		+ "(IC 95%% %.1f%%–%.1f%%) · obrigatórias por turno %.2f · turnos curtos %.1f%% · "
		+ "nunca sorteadas: %d\nMedidores que zeraram (partidas): %s") % [
		int(result["matches"]), player, int(result["seed"]), base["catastrophe_pct"],
		base["catastrophe_ci95_low_pct"], base["catastrophe_ci95_high_pct"],
		base["mandatory_per_turn"], base["short_turn_pct"], int(base["never_drawn_count"]),
		", ".join(ended) if ended else "nenhum"]
	if scenarios.size() > 1:
		var moved: Array[String] = []
		for row: Dictionary in scenarios:
			if int(row["flag_over_4pp"]):
				moved.append(str(row["label"]))
		if moved.is_empty():
			text += "\n[color=#%s]Veredito §7: nenhum cenário move a catástrofe em mais de 4 " % (
				OK_COLOR.to_html(false)) + "pontos.[/color]"
		else:
			text += "\n[color=#%s]Veredito §7: move a catástrofe em mais de 4 pontos: %s.[/color]" % [
				ERROR_COLOR.to_html(false), "; ".join(moved)]
	_sim_summary.text = text
	var mode_names: Dictionary = names.get("modos", {})
	var modes: Dictionary = base["mode_draws_per_match"]
	var labels: Array = []
	for mode: String in modes:
		labels.append(mode_names.get(mode, mode))
	_mode_chart.set_data("sorteios por partida, por modo", labels, modes.values())
	var card_root := _reset(_card_table, ["carta", "sorteios por partida"])
	var cards: Dictionary = base["card_draws_per_match"]
	var ids: Array = cards.keys()
	ids.sort_custom(func(a: String, b: String) -> bool: return cards[a] > cards[b])
	for card: String in ids:
		_line(_card_table, card_root, [card, "%.3f" % cards[card]], false)
	var columns: Array = ["#"] + result["parameters"] + ["catástrofe", "IC 95%", "Δ pontos",
		"move > 4 pontos?", "obr/turno"]
	_sweep_table.columns = columns.size()
	var root := _reset(_sweep_table, columns)
	if scenarios.size() > 1:
		for row: Dictionary in scenarios:
			var cells: Array = [row["scenario"]]
			for p: String in result["parameters"]:
				cells.append(row[p])
			var diff: Variant = row["diff_vs_baseline_pp"]
			var flagged := int(row["flag_over_4pp"]) != 0
			cells += ["%.1f%%" % row["catastrophe_pct"],
				"%.1f–%.1f" % [row["catastrophe_ci95_low_pct"], row["catastrophe_ci95_high_pct"]],
				"base" if row["baseline"] else ("%+.1f" % diff if diff != null else "?"),
				"sim" if flagged else "não", "%.2f" % row["mandatory_per_turn"]]
			_line(_sweep_table, root, cells, flagged)
	_set_status("simulação terminada: %s" % player)
	_tabs.current_tab = 4


# -- building the panel --------------------------------------------------------------------------


func _build() -> void:
	var top := HBoxContainer.new()
	add_child(top)
	top.add_child(_label("Baralho:"))
	_deck_edit = LineEdit.new()
	_deck_edit.placeholder_text = "vazio: o baralho do projeto (sorteio/deck)"
	_deck_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	_deck_edit.text_submitted.connect(func(_t: String) -> void: _on_deck_changed())
	_deck_edit.focus_exited.connect(_on_deck_changed)
	top.add_child(_deck_edit)
	_deck_dialog = _file_dialog(["*.sorteio.json ; Baralho", "*.json ; JSON"],
		EditorFileDialog.FILE_MODE_OPEN_FILE, func(path: String) -> void: set_deck(path))
	top.add_child(_button("…", func() -> void: _deck_dialog.popup_file_dialog()))
	top.add_child(_button("Usar no jogo", use_as_project_deck))
	top.add_child(_button("Validar", run_validate))
	top.add_child(_button("Cobertura", run_coverage))
	top.add_child(_button("Prévia", func() -> void: run_preview()))
	top.add_child(_button("Simular", func() -> void: run_simulate()))
	_status = _label("")
	_status.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	add_child(_status)
	_tabs = TabContainer.new()
	_tabs.size_flags_vertical = SIZE_EXPAND_FILL
	add_child(_tabs)
	table = CardTable.new()
	table.cell_edited.connect(func(index: int, _card: String, column: String, option: int,
			text: String) -> void: edit_cell(index, column, text, option))
	table.options_edited.connect(func(edits: Array) -> void: _edit(edits, "Sorteio: opções"))
	table.add_requested.connect(add_card)
	table.duplicate_requested.connect(func(index: int, _c: String) -> void: duplicate_card(index))
	table.delete_requested.connect(func(index: int, _c: String) -> void: delete_card(index))
	table.history_requested.connect(_on_history)
	_tabs.add_child(table)
	_problems = _tree("Problemas", 5, [0, 1, 1, 2, 5])
	_problems.item_selected.connect(_on_problem_selected)
	_tabs.add_child(_with_export(_problems, "validate"))
	_coverage = _tree("Cobertura", 7, [3, 1, 1, 1, 1, 1, 1])
	_tabs.add_child(_with_export(_coverage, "coverage"))
	_tabs.add_child(_build_preview())
	_tabs.add_child(_build_simulate())
	_export_dialog = _file_dialog(["*.csv ; CSV", "*.png ; PNG"],
		EditorFileDialog.FILE_MODE_SAVE_FILE, _on_export_chosen)
	_rescan = Timer.new()
	_rescan.one_shot = true
	_rescan.wait_time = 2.0
	_rescan.timeout.connect(_on_rescan)
	add_child(_rescan)


func _build_preview() -> Control:
	var box := VBoxContainer.new()
	box.name = "Prévia"
	var row := HBoxContainer.new()
	box.add_child(row)
	row.add_child(_label("Partida salva:"))
	_state_edit = LineEdit.new()
	_state_edit.placeholder_text = "vazio: o início da partida"
	_state_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	row.add_child(_state_edit)
	_state_dialog = _file_dialog(["*.json ; Partida salva"], EditorFileDialog.FILE_MODE_OPEN_FILE,
		func(path: String) -> void: _state_edit.text = path)
	_state_dialog.access = EditorFileDialog.ACCESS_FILESYSTEM
	row.add_child(_button("…", func() -> void: _state_dialog.popup_file_dialog()))
	row.add_child(_label("semente:"))
	_preview_seed = _spin(0, 2147483647, 0)
	row.add_child(_preview_seed)
	row.add_child(_label("jogador:"))
	_preview_player = _players()
	row.add_child(_preview_player)
	_preview = _tree("turno", 6, [1, 2, 1, 4, 2, 3])
	box.add_child(_with_export(_preview, "preview"))
	return box


func _build_simulate() -> Control:
	var scroll := ScrollContainer.new()
	scroll.name = "Simulação"
	scroll.horizontal_scroll_mode = ScrollContainer.SCROLL_MODE_DISABLED
	var box := VBoxContainer.new()
	box.size_flags_horizontal = SIZE_EXPAND_FILL
	scroll.add_child(box)
	var row := HBoxContainer.new()
	box.add_child(row)
	row.add_child(_label("partidas:"))
	_matches = _spin(1, 1000000, DEFAULT_MATCHES)
	row.add_child(_matches)
	row.add_child(_label("semente:"))
	_sim_seed = _spin(0, 2147483647, 0)
	row.add_child(_sim_seed)
	row.add_child(_label("jogador:"))
	_sim_player = _players()
	row.add_child(_sim_player)
	row.add_child(_button("Simular", func() -> void: run_simulate()))
	row.add_child(_button("Parar", stop_simulation))
	_progress = ProgressBar.new()
	_progress.custom_minimum_size = Vector2(160, 0)
	_progress.size_flags_horizontal = SIZE_EXPAND_FILL
	row.add_child(_progress)
	var sweep := HFlowContainer.new()
	box.add_child(sweep)
	sweep.add_child(_label("Varredura §7 (marque o que variar):"))
	for entry: Array in SWEEP:
		var check := CheckBox.new()
		check.text = entry[1]
		sweep.add_child(check)
		_sweep_checks.append(check)
		var low := _spin(entry[2], entry[3], entry[2])
		low.step = entry[4]
		low.prefix = "de"
		sweep.add_child(low)
		_sweep_from.append(low)
		var high := _spin(entry[2], entry[3], entry[3])
		high.step = entry[4]
		high.prefix = "a"
		sweep.add_child(high)
		_sweep_to.append(high)
	_sim_summary = RichTextLabel.new()
	_sim_summary.bbcode_enabled = true
	_sim_summary.fit_content = true
	_sim_summary.size_flags_horizontal = SIZE_EXPAND_FILL
	box.add_child(_sim_summary)
	var exports := HBoxContainer.new()
	box.add_child(exports)
	exports.add_child(_button("Exportar varredura (CSV)", func() -> void: _ask_export("sweep")))
	exports.add_child(_button("Exportar cartas (CSV)", func() -> void: _ask_export("cards")))
	exports.add_child(_button("Exportar gráfico (PNG)", func() -> void: _ask_export("png")))
	_sweep_table = _tree("varredura", 10, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
	_sweep_table.custom_minimum_size = Vector2(0, 110)
	box.add_child(_sweep_table)
	var charts := HBoxContainer.new()
	box.add_child(charts)
	_mode_chart = Chart.new()
	_mode_chart.size_flags_horizontal = SIZE_EXPAND_FILL
	charts.add_child(_mode_chart)
	_card_table = _tree("por carta", 2, [2, 1])
	_card_table.size_flags_horizontal = SIZE_EXPAND_FILL
	_card_table.custom_minimum_size = Vector2(0, 220)
	charts.add_child(_card_table)
	return scroll


func _players() -> OptionButton:
	var button := OptionButton.new()
	for entry: Array in PLAYERS:
		button.add_item(entry[1])
	return button


func _label(text: String) -> Label:
	var label := Label.new()
	label.text = text
	return label


func _button(text: String, action: Callable) -> Button:
	var button := Button.new()
	button.text = text
	button.pressed.connect(action)
	return button


func _spin(low: float, high: float, value: float) -> SpinBox:
	var spin := SpinBox.new()
	spin.min_value = low
	spin.max_value = high
	spin.value = value
	spin.custom_minimum_size = Vector2(80, 0)
	return spin


func _tree(title: String, columns: int, ratios: Array) -> Tree:
	var tree := Tree.new()
	tree.name = title
	tree.columns = columns
	tree.hide_root = true
	tree.column_titles_visible = true
	tree.size_flags_vertical = SIZE_EXPAND_FILL
	tree.custom_minimum_size = Vector2(0, 140)
	for c in columns:
		tree.set_column_expand(c, true)
		tree.set_column_expand_ratio(c, maxi(int(ratios[c]), 1))
		tree.set_column_clip_content(c, false)
	return tree


func _with_export(tree: Tree, what: String) -> Control:
	var box := VBoxContainer.new()
	box.name = tree.name
	box.add_child(tree)
	box.add_child(_button("Exportar (CSV)", func() -> void: _ask_export(what)))
	return box


func _file_dialog(filters: Array, mode: EditorFileDialog.FileMode, chosen: Callable) -> EditorFileDialog:
	var dialog := EditorFileDialog.new()
	dialog.file_mode = mode
	dialog.filters = PackedStringArray(filters)
	dialog.file_selected.connect(chosen)
	add_child(dialog)
	return dialog


func _reset(tree: Tree, titles: Array) -> TreeItem:
	tree.clear()
	for c in tree.columns:
		tree.set_column_expand(c, true)
		tree.set_column_clip_content(c, false)
		tree.set_column_title(c, str(titles[c]) if c < titles.size() else "")
	return tree.create_item()


func _section(root: TreeItem, title: String, headers: Array) -> void:
	var item := _coverage.create_item(root)
	item.set_text(0, title)
	item.set_custom_color(0, Color(0.6, 0.8, 1.0))
	var header := _coverage.create_item(root)
	for c in mini(headers.size(), _coverage.columns):
		header.set_text(c, str(headers[c]))
		header.set_custom_color(c, Color(0.7, 0.7, 0.7))


func _line(tree: Tree, root: TreeItem, cells: Array, warn: bool) -> void:
	var item := tree.create_item(root)
	for c in mini(cells.size(), tree.columns):
		var value: Variant = cells[c]
		item.set_text(c, str(int(value)) if value is float else str(value))
		item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
		if warn:
			item.set_custom_color(c, WARNING_COLOR)


func _set_status(text: String, colour: Color = Color(0, 0, 0, 0)) -> void:
	_message = text
	var where := "%s · %s" % [_deck_label(), EditorPython.describe(bridge)]
	_status.text = where + (" — " + text if text != "" else "")
	if colour.a > 0:
		_status.add_theme_color_override("font_color", colour)
	else:
		_status.remove_theme_color_override("font_color")


func _deck_label() -> String:
	var path := deck()
	if path == "":
		return "baralho embutido 'padrao' (o projeto não define sorteio/deck)"
	return "baralho %s" % path


func _deck_for_python() -> Variant:
	var path := deck()
	if path == "":
		return null
	return _globalize(path)


func _globalize(path: String) -> String:
	if path.begins_with("res://") or path.begins_with("user://"):
		return ProjectSettings.globalize_path(path)
	return path


func _sweep_params(sweep: Dictionary) -> Array:
	var out: Array = []
	if not sweep.is_empty():
		for key: String in sweep:
			out.append("%s=%s" % [key, ",".join(sweep[key].map(func(v: Variant) -> String:
				return str(int(v))))])
		return out
	for i in SWEEP.size():
		if _sweep_checks[i].button_pressed:
			var values: Array[String] = []
			var value := _sweep_from[i].value
			while value <= _sweep_to[i].value:
				values.append(str(int(value)))
				value += float(SWEEP[i][4])
			out.append("%s=%s" % [SWEEP[i][0], ",".join(values)])
	return out


func _on_deck_changed() -> void:
	if deck() == _deck_shown:
		return
	_deck_shown = deck()
	results.clear()
	_digest = ""
	table.clear_table()
	for tree: Tree in [_problems, _coverage, _preview, _sweep_table, _card_table]:
		tree.clear()
	_sim_summary.text = ""
	_mode_chart.set_data("", [], [])
	_progress.value = 0
	_set_status("resultados do baralho anterior apagados")


func _on_problem_selected() -> void:
	var item := _problems.get_selected()
	if item == null:
		return
	var row: Dictionary = item.get_metadata(0)
	var parts := str(row["field"]).split(".")
	if parts.size() >= 2 and parts[0] == "cartas" and parts[1].is_valid_int():
		if table.card_count() == 0:
			await load_table()
		table.select_field(int(parts[1]), str(row["field"]))
		_tabs.current_tab = 0


func _on_history(redo: bool) -> void:
	if undo_redo == null:
		return
	var history := undo_redo.get_history_undo_redo(undo_redo.get_object_history_id(self))
	if redo:
		history.redo()
	else:
		history.undo()


func _on_rescan() -> void:
	var path := deck()
	if path.begins_with("res://") and Engine.is_editor_hint():
		EditorInterface.get_resource_filesystem().scan_sources()


func _ask_export(what: String) -> void:
	_export_what = what
	_export_dialog.current_file = "sorteio_%s.%s" % [what, "png" if what == "png" else "csv"]
	_export_dialog.popup_file_dialog()


func _on_export_chosen(path: String) -> void:
	var error := export_png(path) if _export_what == "png" else export_csv(_export_what, path)
	_set_status("exportado: %s" % path if error == OK else "não foi possível escrever %s (%s)"
		% [path, error_string(error)], OK_COLOR if error == OK else ERROR_COLOR)
