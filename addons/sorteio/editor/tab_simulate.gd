@tool
extends ScrollContainer
## The Sorteio panel's "Simulação" tab (editor only): matches played by a chosen player
## (Python's [code]simulate_start[/code] / [code]simulate_step[/code] /
## [code]simulate_cancel[/code], a step per frame with a progress bar), the catastrophe rate with
## its 95% interval, the meters that ended the matches, draws per mode (a chart) and per card,
## and GDD 06 §7 sweeps with their verdict; below them the per-card study
## ([code]percard_view.gd[/code]) with the same seed and player.

## An export was asked for: [code]sweep[/code], [code]cards[/code] (CSV) or [code]png[/code].
signal export_requested(what: String)

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const Chart := preload("res://addons/sorteio/editor/chart.gd")
const SimJob := preload("res://addons/sorteio/editor/sim_job.gd")
const PerCard := preload("res://addons/sorteio/editor/percard_view.gd")
const StartPicker := preload("res://addons/sorteio/editor/start_picker.gd")
const DEFAULT_MATCHES := 3000
## The §7 parameters a sweep may vary: [name, label, lowest, highest, step] (GDD 06 §7 safe
## ranges; Python checks them again and says so when a value is outside).
const SWEEP: Array[Array] = [
	["cartas_por_turno", "N (cartas por turno)", 6, 8, 1],  # i18n
	["teto_obrigatorias", "T (teto de obrigatórias)", 2, 4, 1],  # i18n
	["limite_medidor", "limite do medidor", 25, 35, 5],  # i18n
	["limite_emergencia", "limite de emergência", 0, 24, 2],  # i18n
	["limite_por_modo", "limite por modo", 1, 2, 1],  # i18n
]

## The sweep's scenarios, one row each.
var sweep_tree: Tree
## Draws per match, one row per card.
var card_tree: Tree
## The per-card study (how much each card moves the catastrophe rate; whole matches).
var per_card: PerCard
## Where every match starts (the match start, a situation file, §4's sample; no sweep then).
var start: StartPicker
var _link: Link
var _matches: SpinBox
var _seed: SpinBox
var _player: OptionButton
var _sweep_checks: Array[CheckBox] = []
var _sweep_from: Array[SpinBox] = []
var _sweep_to: Array[SpinBox] = []
var _progress: ProgressBar
var _summary: RichTextLabel
var _mode_chart: Chart
var _job: SimJob


func _init(link: Link) -> void:
	_link = link
	_job = SimJob.new(link, "simulate")
	name = SorteioI18n.t("Simulação")
	horizontal_scroll_mode = ScrollContainer.SCROLL_MODE_DISABLED
	var box := VBoxContainer.new()
	box.size_flags_horizontal = SIZE_EXPAND_FILL
	add_child(box)
	var row := HBoxContainer.new()
	box.add_child(row)
	row.add_child(Ui.label(SorteioI18n.t("partidas:")))
	_matches = Ui.spin(1, 1000000, DEFAULT_MATCHES)
	row.add_child(_matches)
	row.add_child(Ui.label(SorteioI18n.t("semente:")))
	_seed = Ui.spin(0, 2147483647, 0)
	row.add_child(_seed)
	row.add_child(Ui.label(SorteioI18n.t("jogador:")))
	_player = Ui.players()
	row.add_child(_player)
	row.add_child(Ui.button(SorteioI18n.t("Simular"), func() -> void: run()))
	row.add_child(Ui.button(SorteioI18n.t("Parar"), stop))
	_progress = ProgressBar.new()
	_progress.custom_minimum_size = Vector2(160, 0)
	_progress.size_flags_horizontal = SIZE_EXPAND_FILL
	row.add_child(_progress)
	start = StartPicker.new(link, false)
	box.add_child(start)
	box.add_child(_sweep_controls())
	_summary = RichTextLabel.new()
	_summary.bbcode_enabled = true
	_summary.fit_content = true
	_summary.size_flags_horizontal = SIZE_EXPAND_FILL
	box.add_child(_summary)
	var exports := HBoxContainer.new()
	box.add_child(exports)
	for entry: Array in [
		[SorteioI18n.t("Exportar varredura (CSV)"), "sweep"],
		[SorteioI18n.t("Exportar cartas (CSV)"), "cards"],
		[SorteioI18n.t("Exportar gráfico (PNG)"), "png"]
	]:
		var what: String = entry[1]
		exports.add_child(Ui.button(entry[0], func() -> void: export_requested.emit(what)))
	sweep_tree = Ui.tree(SorteioI18n.t("varredura"), 10, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
	sweep_tree.custom_minimum_size = Vector2(0, 110)
	box.add_child(sweep_tree)
	var charts := HBoxContainer.new()
	box.add_child(charts)
	_mode_chart = Chart.new()
	_mode_chart.size_flags_horizontal = SIZE_EXPAND_FILL
	charts.add_child(_mode_chart)
	card_tree = Ui.tree(SorteioI18n.t("por carta"), 2, [2, 1])
	card_tree.size_flags_horizontal = SIZE_EXPAND_FILL
	card_tree.custom_minimum_size = Vector2(0, 220)
	charts.add_child(card_tree)
	box.add_child(HSeparator.new())
	per_card = PerCard.new(
		link,
		func() -> Dictionary:
			return {"seed": int(_seed.value), "policy": Ui.PLAYERS[_player.selected][0]}
	)
	per_card.export_requested.connect(export_requested.emit)
	box.add_child(per_card)


## Simulate [param matches] matches (-1: the field's value) with [param player] ("" : the
## chosen one) and a §7 sweep of [param sweep] ({name: [values]}; empty: the controls').
func run(matches: int = -1, player: String = "", sweep: Dictionary = {}) -> void:
	if matches > 0:
		_matches.value = matches
	if player != "":
		for i in Ui.PLAYERS.size():
			if Ui.PLAYERS[i][0] == player:
				_player.select(i)
	var params := {
		"deck": _link.deck_for_python(),
		"matches": int(_matches.value),
		"seed": int(_seed.value),
		"policy": Ui.PLAYERS[_player.selected][0],
		"sweep": _sweep_params(sweep)
	}
	params.merge(start.params())
	_progress.value = 0
	await _job.run(params, _on_start, _on_progress, _show_result)


func _on_start(reply: Dictionary) -> void:
	if start.show_problems(sweep_tree, reply):
		_link.tabs.current_tab = 4


func _on_progress(data: Dictionary) -> void:
	_progress.max_value = maxf(float(data["total"]), 1.0)
	_progress.value = float(data["done"])
	_link.set_status(
		SorteioI18n.t("simulando: %d de %d partidas") % [int(data["done"]), int(data["total"])]
	)


## Stops a running simulation (Parar).
func stop() -> void:
	await _job.stop(SorteioI18n.t("simulação interrompida"))


## True while a simulation runs.
func is_running() -> bool:
	return _job.is_running() or per_card.is_running()


## The summary as shown (plain text).
func summary() -> String:
	return _summary.get_parsed_text()


## The progress bar's value.
func progress_value() -> float:
	return _progress.value


## The per-mode chart as an image (null in a headless editor, which draws nothing).
func chart_image() -> Image:
	return _mode_chart.to_image()


## Forgets the results shown (another deck was chosen).
func clear() -> void:
	sweep_tree.clear()
	card_tree.clear()
	_summary.text = ""
	_mode_chart.set_data("", [], [])
	_progress.value = 0
	per_card.clear()


func _show_result(result: Dictionary) -> void:
	var scenarios: Array = result["scenarios"]
	var base: Dictionary = scenarios[0]
	var names: Dictionary = result.get("names", {})
	var player := str(result["policy"])
	for entry: Array in Ui.PLAYERS:
		if entry[0] == player:
			player = SorteioI18n.t(entry[1])
	var ended: Array[String] = []
	var meter_names: Dictionary = names.get("medidores", {})
	for key: String in base:
		if key.begins_with("zeroed_") and int(base[key]) > 0:
			var meter := key.substr(7)
			ended.append("%s %d" % [meter_names.get(meter, meter), int(base[key])])
	var text := (
		(SorteioI18n.t(
			(
				"[b]%d partidas com o jogador %s[/b], semente %d: catástrofe [b]%.1f%%[/b] "
				+ "(IC 95%% %.1f%%–%.1f%%) · obrigatórias por turno %.2f · turnos curtos %.1f%% · "
				+ "nunca sorteadas: %d\nMedidores que zeraram (partidas): %s\n"
				+ "Cada partida começa %s."
			)
		))
		% [
			int(result["matches"]),
			player,
			int(result["seed"]),
			base["catastrophe_pct"],
			base["catastrophe_ci95_low_pct"],
			base["catastrophe_ci95_high_pct"],
			base["mandatory_per_turn"],
			base["short_turn_pct"],
			int(base["never_drawn_count"]),
			", ".join(ended) if ended else SorteioI18n.t("nenhum"),
			start.describe()
		]
	)
	if scenarios.size() > 1:
		var moved: Array[String] = []
		for row: Dictionary in scenarios:
			if int(row["flag_over_4pp"]):
				moved.append(str(row["label"]))
		if moved.is_empty():
			text += (
				SorteioI18n.t(
					(
						"\n[color=#%s]Veredito §7: nenhum cenário move a catástrofe em mais de 4 "
						+ "pontos.[/color]"
					)
				)
				% Link.OK_COLOR.to_html(false)
			)
		else:
			text += (
				SorteioI18n.t(
					"\n[color=#%s]Veredito §7: move a catástrofe em mais de 4 pontos: %s.[/color]"
				)
				% [Link.ERROR_COLOR.to_html(false), "; ".join(moved)]
			)
	_summary.text = text
	var mode_names: Dictionary = names.get("modos", {})
	var modes: Dictionary = base["mode_draws_per_match"]
	var labels: Array = []
	for mode: String in modes:
		labels.append(mode_names.get(mode, mode))
	_mode_chart.set_data(SorteioI18n.t("sorteios por partida, por modo"), labels, modes.values())
	var card_root := Ui.reset(
		card_tree, [SorteioI18n.t("carta"), SorteioI18n.t("sorteios por partida")]
	)
	var cards: Dictionary = base["card_draws_per_match"]
	var ids: Array = cards.keys()
	ids.sort_custom(func(a: String, b: String) -> bool: return cards[a] > cards[b])
	for card: String in ids:
		Ui.line(card_tree, card_root, [card, "%.3f" % cards[card]], false)
	# The swept parameters by the controls' words ("T (teto de obrigatórias)"), not their ids.
	var labels_by_id := {}
	for entry: Array in SWEEP:
		labels_by_id[entry[0]] = SorteioI18n.t(entry[1])
	var columns: Array = (
		["#"]
		+ result["parameters"].map(func(p: String) -> String: return labels_by_id.get(p, p))
		+ [
			SorteioI18n.t("catástrofe"),
			SorteioI18n.t("IC 95%"),
			SorteioI18n.t("Δ pontos"),
			SorteioI18n.t("move > 4 pontos?"),
			SorteioI18n.t("obr/turno")
		]
	)
	sweep_tree.columns = columns.size()
	var root := Ui.reset(sweep_tree, columns)
	if scenarios.size() > 1:
		for row: Dictionary in scenarios:
			var cells: Array = [row["scenario"]]
			for p: String in result["parameters"]:
				cells.append(row[p])
			var diff: Variant = row["diff_vs_baseline_pp"]
			var flagged := int(row["flag_over_4pp"]) != 0
			cells += [
				"%.1f%%" % row["catastrophe_pct"],
				"%.1f–%.1f" % [row["catastrophe_ci95_low_pct"], row["catastrophe_ci95_high_pct"]],
				(
					SorteioI18n.t("base")
					if row["baseline"]
					else ("%+.1f" % diff if diff != null else "?")
				),
				SorteioI18n.t("sim") if flagged else SorteioI18n.t("não"),
				"%.2f" % row["mandatory_per_turn"]
			]
			Ui.line(sweep_tree, root, cells, flagged)
	_link.set_status(SorteioI18n.t("simulação terminada: %s, %s") % [player, start.describe()])
	_link.tabs.current_tab = 4


func _sweep_controls() -> Control:
	var sweep := HFlowContainer.new()
	sweep.add_child(Ui.label(SorteioI18n.t("Varredura §7 (marque o que variar):")))
	for entry: Array in SWEEP:
		var check := CheckBox.new()
		check.text = SorteioI18n.t(entry[1])
		sweep.add_child(check)
		_sweep_checks.append(check)
		var low := Ui.spin(entry[2], entry[3], entry[2], entry[4])
		low.prefix = SorteioI18n.t("de")
		sweep.add_child(low)
		_sweep_from.append(low)
		var high := Ui.spin(entry[2], entry[3], entry[3], entry[4])
		high.prefix = SorteioI18n.t("a")
		sweep.add_child(high)
		_sweep_to.append(high)
	return sweep


func _sweep_params(sweep: Dictionary) -> Array:
	var out: Array = []
	if not sweep.is_empty():
		for key: String in sweep:
			out.append(
				(
					"%s=%s"
					% [
						key,
						",".join(sweep[key].map(func(v: Variant) -> String: return str(int(v))))
					]
				)
			)
		return out
	for i in SWEEP.size():
		if _sweep_checks[i].button_pressed:
			# A range chosen backwards ("de 8 a 6") is the same range: it sent an empty list,
			# refused in the CLI's syntax ("'' não é um inteiro nem uma faixa como 2..4").
			var values: Array[String] = []
			var value := minf(_sweep_from[i].value, _sweep_to[i].value)
			while value <= maxf(_sweep_from[i].value, _sweep_to[i].value):
				values.append(str(int(value)))
				value += float(SWEEP[i][4])
			out.append("%s=%s" % [SWEEP[i][0], ",".join(values)])
	return out
