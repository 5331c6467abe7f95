tool
extends VBoxContainer
# The Sorteio bottom panel: pick a deck, then Validate, Coverage, Preview and Simulate it. Every
# answer comes from the Python request handler (validate, lint, preview, simulate_*) over the
# editor's bridge; this script only lays the answers out. Nothing here runs in an exported game.

signal action_finished(action, ok)

const Chart = preload("res://addons/sorteio/editor/chart.gd")
# Every string shown goes through Language.t (the run's language, issue 15; msgids as the Godot 4
# panel's where both show the same text: godot3/addons/sorteio/i18n/README.md).
const Language = preload("res://addons/sorteio/sorteio_language.gd")
const STEP_BUDGET_MS := 60
const DEFAULT_MATCHES := 3000

var bridge = null  # editor_bridge.gd, given by the plugin
var results := {}  # action -> the last result Dictionary Python returned
var last_error := ""

var _deck_edit: LineEdit
var _status: Label
var _tabs: TabContainer
var _problems: Tree
var _coverage: Tree
var _preview: Tree
var _state_edit: LineEdit
var _preview_seed: SpinBox
var _matches: SpinBox
var _sim_seed: SpinBox
var _sweep_edit: LineEdit
var _progress: ProgressBar
var _sim_summary: Label
var _mode_chart: Control
var _card_chart: Control
var _sweep_table: Tree
var _deck_dialog: FileDialog
var _state_dialog: FileDialog
var _queue := []  # [action, method, params] waiting for the bridge
var _job := -1


func _init() -> void:
	name = "SorteioPanel"
	rect_min_size = Vector2(0, 300)
	_build()


func _ready() -> void:
	set_process(false)


# -- actions (the buttons call these; tests call them too) ---------------------------------------


func set_deck(path: String) -> void:
	_deck_edit.text = path


func deck() -> String:
	return _deck_edit.text.strip_edges()


func run_validate() -> void:
	_send("validate", "validate", {"deck": _deck_for_python()})


func run_coverage() -> void:
	_send("coverage", "lint", {"deck": _deck_for_python()})


func run_preview(state_path: String = "") -> void:
	if state_path != "":
		_state_edit.text = state_path
	var state = _state_edit.text.strip_edges()
	var params := {"deck": _deck_for_python(), "seed": int(_preview_seed.value)}
	params["state"] = _globalize(state) if state != "" else null
	_send("preview", "preview", params)


func run_simulate(matches: int = -1, sweep_text: String = "") -> void:
	if matches > 0:
		_matches.value = matches
	if sweep_text != "":
		_sweep_edit.text = sweep_text
	var params := {
		"deck": _deck_for_python(),
		"matches": int(_matches.value),
		"seed": int(_sim_seed.value),
		"sweep": _sweep_params(_sweep_edit.text),
	}
	_progress.value = 0
	_send("simulate", "simulate_start", params)


func stop_simulation() -> void:
	if _job > 0 and bridge != null:
		bridge.request("simulate_cancel", {"job": _job})
	_job = -1
	_set_status(Language.t("simulação interrompida"))
	emit_signal("action_finished", "simulate", false)


func is_busy() -> bool:
	return not _queue.empty() or _job > 0


func rows(action: String) -> int:
	# Rows shown for an action's last answer (what a designer sees), for tests.
	var tree: Tree = {"validate": _problems, "coverage": _coverage, "preview": _preview}.get(
		action, _sweep_table
	)
	return _count(tree.get_root())


func chart_bars() -> Array:
	return [_mode_chart.bar_count(), _card_chart.bar_count()]


func progress_value() -> float:
	return _progress.value


# -- bridge --------------------------------------------------------------------------------------


func _send(action: String, method: String, params: Dictionary) -> void:
	if bridge == null:
		_fail(action, "no bridge (is the plugin enabled?)")
		return
	_queue.append([action, method, params])
	_set_status(
		Language.t("a iniciar o Python…") if not bridge.poll() else Language.t("a trabalhar…")
	)
	set_process(true)


func _process(_delta: float) -> void:
	if not _queue.empty():
		if not bridge.poll():
			if bridge.has_failed():
				var why: String = bridge.last_error()
				for item in _queue:
					_fail(item[0], why)
				_queue.clear()
			return
		var item: Array = _queue.pop_front()
		_answer(item[0], bridge.request(item[1], item[2]))
		return
	if _job > 0:
		_step()
		return
	set_process(false)


func _answer(action: String, reply: Dictionary) -> void:
	if not reply.get("ok", false):
		var error: Dictionary = reply.get("error", {})
		_fail(action, "%s (%s)" % [error.get("message", "?"), error.get("code", "?")])
		return
	var result: Dictionary = reply["result"]
	if action == "simulate":
		_job = int(result["job"])
		_progress.max_value = float(result["total"])
		_set_status(Language.t("simulando %d partidas…") % int(result["total"]))
		return
	results[action] = result
	call("_show_" + action, result)
	emit_signal("action_finished", action, true)


func _step() -> void:
	var reply: Dictionary = bridge.request(
		"simulate_step", {"job": _job, "budget_ms": STEP_BUDGET_MS}
	)
	if not reply.get("ok", false):
		_job = -1
		var error: Dictionary = reply.get("error", {})
		_fail("simulate", "%s (%s)" % [error.get("message", "?"), error.get("code", "?")])
		return
	var step: Dictionary = reply["result"]
	_progress.value = float(step["done"])
	if not step["finished"]:
		_set_status(
			Language.t("simulando: %d de %d partidas") % [int(step["done"]), int(step["total"])]
		)
		return
	_job = -1
	results["simulate"] = step["result"]
	_show_simulate(step["result"])
	emit_signal("action_finished", "simulate", true)


func _fail(action: String, message: String) -> void:
	last_error = message
	_set_status(Language.t("erro: ") + message)
	push_warning("sorteio panel: %s: %s" % [action, message])
	emit_signal("action_finished", action, false)


# -- showing answers -----------------------------------------------------------------------------


func _show_validate(result: Dictionary) -> void:
	var root := _reset(
		_problems,
		[
			"",
			Language.t("arquivo"),
			Language.t("carta"),
			Language.t("campo"),
			Language.t("problema")
		]
	)
	for row in result["errors"] + result["warnings"]:
		var item := _problems.create_item(root)
		item.set_text(0, Language.t("erro") if row["severity"] == "error" else Language.t("aviso"))
		item.set_custom_color(
			0, Color(1, 0.4, 0.4) if row["severity"] == "error" else Color(1, 0.8, 0.3)
		)
		item.set_text(1, str(row["file"]).get_file())
		item.set_tooltip(1, str(row["file"]))
		item.set_text(2, str(row["card_id"]) if row["card_id"] != null else "-")
		item.set_text(3, str(row["field"]))
		item.set_text(4, str(row["message"]))
	var summary = result["summary"]
	if result["valid"]:
		_set_status(
			(
				Language.t("%s: válido — %d cartas (%d jogáveis), %d aviso(s)")
				% [
					summary["nome"],
					summary["cards"],
					summary["playable"],
					result["warnings"].size()
				]
			)
		)
	else:
		_set_status(Language.t("%d problema(s) no baralho") % result["errors"].size())
	_tabs.current_tab = 0


func _show_coverage(report: Dictionary) -> void:
	var root := _reset(_coverage, ["", "", "", "", "", "", ""])
	_section(
		_coverage,
		root,
		Language.t("Cartas jogáveis por ano (§3.1.3, §5)"),
		_words(["ano", "novas", "comuns", "de ator", "necessárias", "modos", "situação"])
	)
	for y in report["years"]:
		_line(
			_coverage,
			root,
			[
				y["year"],
				y["new"],
				y["common_available"],
				y["actor_available"],
				y["need"],
				y["modes"],
				y["status"]
			],
			y["status"] != "ok"
		)
	_section(
		_coverage,
		root,
		Language.t("Cartas por modo (§3.4)"),
		_words(["modo", "cartas"]) + _years("ano %d")
	)
	for m in report["modes"]:
		_line(_coverage, root, [m.get("nome", m["mode"]), m["cards"]] + m["by_year"], false)
	_section(
		_coverage,
		root,
		Language.t("Cartas ligadas por medidor (§3.2, §3.3)"),
		_words(["medidor", "ligadas"]) + _years("até ano %d") + [Language.t("situação")]
	)
	for m in report["meters"]:
		_line(
			_coverage,
			root,
			[m.get("nome", m["meter"]), m["linked"]] + m["by_year"] + [m["status"]],
			m["status"] != "ok"
		)
	if not report["actors"].empty():
		var functions: Array = report["actors"][0]["functions"].keys()
		_section(
			_coverage,
			root,
			Language.t("Cartas de ator por função (GDD 07 §3.2)"),
			[Language.t("ator")] + functions
		)
		for a in report["actors"]:
			var cells := [a.get("nome", a["actor"])]
			for f in functions:
				cells.append(a["functions"][f])
			_line(_coverage, root, cells, not a["missing"].empty())
	if not report["never_drawn"].empty():
		_section(_coverage, root, Language.t("Nunca sorteadas"), _words(["carta", "por quê"]))
		for n in report["never_drawn"]:
			_line(_coverage, root, [n["card"], n["reason"]], false)
	_section(_coverage, root, Language.t("Problemas"), [""])
	for text in report["problems"]:
		_line(_coverage, root, [text], true)
	if report["problems"].empty():
		_line(_coverage, root, [Language.t("Nenhum problema de cobertura.")], false)
	_set_status(
		(
			Language.t("cobertura: %d jogáveis de %d cartas para %d vagas; %d problema(s)")
			% [
				report["playable"],
				report["cards"],
				report["slots_per_match"],
				report["problems"].size()
			]
		)
	)
	_tabs.current_tab = 1


func _show_preview(result: Dictionary) -> void:
	var root := _reset(_preview, _words(["ano.vaga", "carta", "modo", "por quê", "opção"]))
	for row in result["rows"]:
		var item := _preview.create_item(root)
		if row["event"] == "turn_started":
			item.set_text(0, Language.t("Ano %d") % int(row["year"]))
			var texts := []
			for ob in row["mandatory"]:
				texts.append(ob["texto"])
			item.set_text(
				3,
				(
					Language.t("obrigatórias: ")
					+ (PoolStringArray(texts).join(", ") if texts else Language.t("nenhuma"))
				)
			)
		elif row["event"] == "card_played":
			item.set_text(0, "%d.%d" % [int(row["year"]), int(row["slot"])])
			item.set_text(1, "%s «%s»" % [row["card_id"], row["titulo"]])
			item.set_text(2, str(row.get("modo_texto", row["modo"])))
			item.set_text(3, str(row["reason_text"]))
			item.set_tooltip(3, str(row["reason_text"]))
			item.set_text(4, str(row["option_text"]))
		else:
			item.set_text(0, Language.t("fim do ano %d") % int(row["year"]))
			item.set_text(
				3,
				(
					Language.t("%d cartas%s")
					% [int(row["cards"]), Language.t(" (turno curto)") if row["short"] else ""]
				)
			)
	if result["ending"] != null:
		var end := _preview.create_item(root)
		end.set_text(0, Language.t("fim"))
		end.set_text(3, str(result["ending"]))
	_set_status(
		(
			Language.t("prévia do próximo turno (%s)")
			% (
				Language.t("do estado salvo")
				if result["from"] == "state"
				else Language.t("do início")
			)
		)
	)
	_tabs.current_tab = 2


func _show_simulate(result: Dictionary) -> void:
	var scenarios: Array = result["scenarios"]
	var base: Dictionary = scenarios[0]
	_sim_summary.text = (
		Language.t(
			(
				"%d partidas, semente %d: catástrofe %.1f%% (IC 95%% %.1f%%–%.1f%%) · "
				+ "obrigatórias por turno %.2f · turnos curtos %.1f%% · nunca sorteadas: %d"
			)
		)
		% [
			int(result["matches"]),
			int(result["seed"]),
			base["catastrophe_pct"],
			base["catastrophe_ci95_low_pct"],
			base["catastrophe_ci95_high_pct"],
			base["mandatory_per_turn"],
			base["short_turn_pct"],
			int(base["never_drawn_count"])
		]
	)
	var names: Dictionary = result.get("names", {}).get("modos", {})
	var modes: Dictionary = base["mode_draws_per_match"]
	var mode_labels := []
	for mode in modes:
		mode_labels.append(names.get(mode, mode))
	_mode_chart.set_data(Language.t("sorteios por partida, por modo"), mode_labels, modes.values())
	var cards: Dictionary = base["card_draws_per_match"]
	_card_chart.set_data(
		Language.t("sorteios por partida, por carta (%d cartas jogáveis)") % cards.size(),
		cards.keys(),
		cards.values()
	)
	var columns: Array = (
		["#"]
		+ result["parameters"]
		+ _words(["catástrofe", "IC 95%", "Δ pontos", "obr/turno"])
	)
	var root := _reset(_sweep_table, columns)
	if scenarios.size() > 1:
		for row in scenarios:
			var cells := [row["scenario"]]
			for p in result["parameters"]:
				cells.append(row[p])
			var diff = row["diff_vs_baseline_pp"]
			cells += [
				"%.1f%%" % row["catastrophe_pct"],
				"%.1f–%.1f" % [row["catastrophe_ci95_low_pct"], row["catastrophe_ci95_high_pct"]],
				(
					Language.t("base")
					if row["baseline"]
					else ("%+.1f" % diff if diff != null else "?")
				),
				"%.2f" % row["mandatory_per_turn"],
			]
			_line(_sweep_table, root, cells, row["flag_over_4pp"])
	_set_status(Language.t("simulação terminada"))
	_tabs.current_tab = 3


# -- building the panel --------------------------------------------------------------------------


func _build() -> void:
	var top := HBoxContainer.new()
	add_child(top)
	top.add_child(_label(Language.t("Baralho:")))
	_deck_edit = LineEdit.new()
	_deck_edit.placeholder_text = Language.t("res://decks/baralho.json (vazio: o padrão do pacote)")
	_deck_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	top.add_child(_deck_edit)
	_deck_dialog = _file_dialog("_on_deck_chosen")
	top.add_child(_button("…", "_on_pick_deck"))
	top.add_child(_button(Language.t("Validar"), "run_validate"))
	top.add_child(_button(Language.t("Cobertura"), "run_coverage"))
	top.add_child(_button(Language.t("Prévia"), "run_preview"))
	top.add_child(_button(Language.t("Simular"), "run_simulate"))
	_status = _label("")
	_status.size_flags_horizontal = SIZE_EXPAND_FILL
	_status.clip_text = true
	add_child(_status)
	_tabs = TabContainer.new()
	_tabs.size_flags_vertical = SIZE_EXPAND_FILL
	add_child(_tabs)
	_problems = _tree("Problemas", 5)  # i18n
	_tabs.add_child(_problems)
	_coverage = _tree("Cobertura", 7)  # i18n
	_tabs.add_child(_coverage)
	_tabs.add_child(_build_preview())
	_tabs.add_child(_build_simulate())
	# The tabs keep their nodes' (Portuguese) names; the titles are in the run's language.
	for tab in _tabs.get_child_count():
		_tabs.set_tab_title(tab, Language.t(_tabs.get_child(tab).name))


func _build_preview() -> Control:
	var box := VBoxContainer.new()
	box.name = "Prévia"  # i18n
	var row := HBoxContainer.new()
	box.add_child(row)
	row.add_child(_label(Language.t("Estado salvo:")))
	_state_edit = LineEdit.new()
	_state_edit.placeholder_text = Language.t("vazio: o início da partida")
	_state_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	row.add_child(_state_edit)
	_state_dialog = _file_dialog("_on_state_chosen")
	row.add_child(_button("…", "_on_pick_state"))
	row.add_child(_label(Language.t("semente:")))
	_preview_seed = _spin(0, 2147483647, 0)
	row.add_child(_preview_seed)
	_preview = _tree(Language.t("turno"), 5)
	box.add_child(_preview)
	return box


func _build_simulate() -> Control:
	var box := VBoxContainer.new()
	box.name = "Simulação"  # i18n
	var row := HBoxContainer.new()
	box.add_child(row)
	row.add_child(_label(Language.t("partidas:")))
	_matches = _spin(1, 1000000, DEFAULT_MATCHES)
	row.add_child(_matches)
	row.add_child(_label(Language.t("semente:")))
	_sim_seed = _spin(0, 2147483647, 0)
	row.add_child(_sim_seed)
	row.add_child(_label(Language.t("varredura §7:")))
	_sweep_edit = LineEdit.new()
	_sweep_edit.placeholder_text = Language.t("ex.: teto_obrigatorias=2..4 limite_medidor=25,30,35")
	_sweep_edit.size_flags_horizontal = SIZE_EXPAND_FILL
	_sweep_edit.rect_min_size = Vector2(280, 0)
	row.add_child(_sweep_edit)
	row.add_child(_button(Language.t("Parar"), "stop_simulation"))
	_progress = ProgressBar.new()
	_progress.rect_min_size = Vector2(160, 0)
	row.add_child(_progress)
	_sim_summary = _label("")
	_sim_summary.autowrap = true
	box.add_child(_sim_summary)
	var charts := HBoxContainer.new()
	charts.size_flags_vertical = SIZE_EXPAND_FILL
	box.add_child(charts)
	_mode_chart = Chart.new()
	_mode_chart.size_flags_horizontal = SIZE_EXPAND_FILL
	charts.add_child(_mode_chart)
	_card_chart = Chart.new()
	_card_chart.size_flags_horizontal = SIZE_EXPAND_FILL
	charts.add_child(_card_chart)
	_sweep_table = _tree(Language.t("varredura"), 9)
	_sweep_table.rect_min_size = Vector2(0, 90)
	box.add_child(_sweep_table)
	return box


# Each msgid of `words` in the run's language (column titles).
static func _words(words: Array) -> Array:
	var out := []
	for word in words:
		out.append(Language.t(word))
	return out


# The four years' column titles from one msgid ("ano %d" -> "ano 1" ... "ano 4").
static func _years(msgid: String) -> Array:
	var out := []
	for year in range(1, 5):
		out.append(Language.t(msgid) % year)
	return out


func _label(text: String) -> Label:
	var label := Label.new()
	label.text = text
	return label


func _button(text: String, method: String) -> Button:
	var button := Button.new()
	button.text = text
	button.connect("pressed", self, method)
	return button


func _spin(low: int, high: int, value: int) -> SpinBox:
	var spin := SpinBox.new()
	spin.min_value = low
	spin.max_value = high
	spin.value = value
	spin.rect_min_size = Vector2(90, 0)
	return spin


func _tree(title: String, columns: int) -> Tree:
	var tree := Tree.new()
	tree.name = title
	tree.columns = columns
	tree.hide_root = true
	tree.set_column_titles_visible(true)
	tree.size_flags_vertical = SIZE_EXPAND_FILL
	tree.rect_min_size = Vector2(0, 120)
	return tree


func _file_dialog(method: String) -> FileDialog:
	var dialog := FileDialog.new()
	dialog.mode = FileDialog.MODE_OPEN_FILE
	dialog.access = FileDialog.ACCESS_FILESYSTEM
	dialog.filters = PoolStringArray(["*.json ; JSON"])
	dialog.connect("file_selected", self, method)
	add_child(dialog)
	return dialog


func _on_pick_deck() -> void:
	_deck_dialog.current_dir = ProjectSettings.globalize_path("res://")
	_deck_dialog.popup_centered_ratio(0.6)


func _on_deck_chosen(path: String) -> void:
	_deck_edit.text = _localize(path)


func _on_pick_state() -> void:
	_state_dialog.popup_centered_ratio(0.6)


func _on_state_chosen(path: String) -> void:
	_state_edit.text = path


func _reset(tree: Tree, titles: Array) -> TreeItem:
	tree.clear()
	for i in range(tree.columns):
		tree.set_column_title(i, str(titles[i]) if i < titles.size() else "")
	return tree.create_item()


func _section(tree: Tree, root: TreeItem, title: String, headers: Array) -> void:
	var item := tree.create_item(root)
	item.set_text(0, title)
	item.set_custom_color(0, Color(0.6, 0.8, 1.0))
	var header := tree.create_item(root)
	for i in range(min(headers.size(), tree.columns)):
		header.set_text(i, str(headers[i]))
		header.set_custom_color(i, Color(0.7, 0.7, 0.7))


func _line(tree: Tree, root: TreeItem, cells: Array, warn: bool) -> void:
	var item := tree.create_item(root)
	for i in range(min(cells.size(), tree.columns)):
		var value = cells[i]
		item.set_text(i, str(int(value)) if typeof(value) == TYPE_REAL else str(value))
		if warn:
			item.set_custom_color(i, Color(1, 0.8, 0.3))


func _count(item: TreeItem) -> int:
	if item == null:
		return 0
	var total := 0
	var child := item.get_children()
	while child != null:
		total += 1 + _count(child)
		child = child.get_next()
	return total


func _set_status(text: String) -> void:
	_status.text = text


func _deck_for_python():
	var path := deck()
	if path == "":
		return null
	return _globalize(path)


func _globalize(path: String) -> String:
	if path.begins_with("res://") or path.begins_with("user://"):
		return ProjectSettings.globalize_path(path)
	return path


func _localize(path: String) -> String:
	var localized := ProjectSettings.localize_path(path)
	return localized if localized.begins_with("res://") else path


func _sweep_params(text: String) -> Array:
	# "a=1..2 b=3,4" or "a=1..2; b=3,4" -> ["a=1..2", "b=3,4"]: words, not rules (Python parses).
	var out := []
	for part in text.replace(";", " ").split(" ", false):
		out.append(part)
	return out
