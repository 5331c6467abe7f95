@tool
extends VBoxContainer
## The per-card study of the Sorteio panel's "Simulação" tab (editor only): how much each card
## moves the catastrophe rate (Python's [code]simulate_start[/code] with [code]per_card[/code],
## [code]sorteio simulate --per-card[/code]; docs/simulator.md "What each card does"). Rounds
## of matches until every card's Δ is known to the chosen precision (points) or the cap, then
## Benjamini-Hochberg; the bar shows rounds and cards settled, then a ranked table (card, Δ
## with its 95% interval, matches, flagged in colour, the verdict sentence wrapped) and a
## ranked, labelled chart of the largest effects. Every figure and sentence is Python's.

## An export was asked for: [code]percard[/code] (CSV) or [code]percard_png[/code].
signal export_requested(what: String)
## The designer chose a card's row: [param card] is its id (the panel selects it in the table).
signal card_chosen(card: String)

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const Chart := preload("res://addons/sorteio/editor/chart.gd")
const SimJob := preload("res://addons/sorteio/editor/sim_job.gd")
## Bars in the chart: the cards with the largest |Δ| (the table and the CSV hold all).
const CHART_BARS := 25
## The study's defaults, the CLI's (python/sorteio/sim/percard.py DEFAULT_HALF_WIDTH_PP and
## DEFAULT_MAX_MATCHES): ±0.07 points is the precision two seeds agree at
## (docs/simulator.md "Does it hold?"); tests/test_godot4_editor.py keeps them equal.
const DEFAULT_PRECISION := 0.07
const DEFAULT_CAP := 400000

## The ranked cards, one row each.
var tree: Tree
var _link: Link
var _precision: SpinBox
var _cap: SpinBox
var _progress: ProgressBar
var _progress_text: Label
var _summary: RichTextLabel
var _chart: Chart
var _job: SimJob
## Seed and player of the study: the Simulação tab's controls.
var _settings: Callable


## [param settings] returns {seed, policy} as the Simulação tab's controls say.
func _init(link: Link, settings: Callable) -> void:
	_link = link
	_job = SimJob.new(link, "percard")
	_settings = settings
	name = SorteioI18n.t("por carta")
	size_flags_horizontal = SIZE_EXPAND_FILL
	var row := HFlowContainer.new()
	add_child(row)
	row.add_child(Ui.label(SorteioI18n.t("Estudo por carta — precisão (± pontos):")))
	_precision = Ui.spin(0.01, 50, DEFAULT_PRECISION, 0.01)
	row.add_child(_precision)
	row.add_child(Ui.label(SorteioI18n.t("no máximo (partidas por carta):")))
	_cap = Ui.spin(1, 1000000, DEFAULT_CAP)
	row.add_child(_cap)
	row.add_child(Ui.button(SorteioI18n.t("Estudar cada carta"), func() -> void: run()))
	row.add_child(Ui.button(SorteioI18n.t("Parar"), stop))
	_progress = ProgressBar.new()
	_progress.custom_minimum_size = Vector2(160, 0)
	_progress.size_flags_horizontal = SIZE_EXPAND_FILL
	add_child(_progress)
	_progress_text = Ui.label("")
	add_child(_progress_text)
	_summary = RichTextLabel.new()
	_summary.bbcode_enabled = true
	_summary.fit_content = true
	_summary.size_flags_horizontal = SIZE_EXPAND_FILL
	add_child(_summary)
	var exports := HBoxContainer.new()
	add_child(exports)
	exports.add_child(
		Ui.button(
			SorteioI18n.t("Exportar por carta (CSV)"),
			func() -> void: export_requested.emit("percard")
		)
	)
	exports.add_child(
		Ui.button(
			SorteioI18n.t("Exportar gráfico por carta (PNG)"),
			func() -> void: export_requested.emit("percard_png")
		)
	)
	var panes := HBoxContainer.new()
	add_child(panes)
	tree = Ui.tree(SorteioI18n.t("estudo por carta"), 6, [2, 1, 2, 1, 1, 6])
	tree.size_flags_horizontal = SIZE_EXPAND_FILL
	tree.custom_minimum_size = Vector2(0, 260)
	tree.item_selected.connect(_on_row_selected)
	panes.add_child(tree)
	_chart = Chart.new()
	_chart.value_format = "%+.2f"
	_chart.size_flags_horizontal = SIZE_EXPAND_FILL
	panes.add_child(_chart)


## Runs the study to [param precision] points (<= 0: the field's) with at most
## [param max_matches] matches per card (<= 0: the field's) and the player [param policy] (""
## : the Simulação tab's).
func run(precision: float = -1.0, max_matches: int = -1, policy: String = "") -> void:
	if precision > 0.0:
		_precision.value = precision
	if max_matches > 0:
		_cap.value = max_matches
	var chosen: Dictionary = _settings.call()
	var params := {
		"deck": _link.deck_for_python(),
		"seed": chosen["seed"],
		"policy": policy if policy != "" else chosen["policy"],
		"per_card": {"precision": _precision.value, "max_matches": int(_cap.value)}
	}
	_progress.value = 0
	await _job.run(params, func(_reply: Dictionary) -> void: pass, _show_progress, show_result)


## Stops a running study.
func stop() -> void:
	await _job.stop(SorteioI18n.t("estudo por carta interrompido"))


## True while a study runs.
func is_running() -> bool:
	return _job.is_running()


## What is shown, for tests: {progress: {value, max, text}, summary (plain text),
## chart: {bars, labels}, rows: the table's texts row by row}.
func shown() -> Dictionary:
	return {
		"progress":
		{"value": _progress.value, "max": _progress.max_value, "text": _progress_text.text},
		"summary": _summary.get_parsed_text(),
		"chart": {"bars": _chart.bar_count(), "labels": _chart.bar_labels()},
		"rows": Ui.texts(tree)
	}


## Selects the row [param row_index], as a click does: the card table then selects that card.
func select_row(row_index: int) -> void:
	tree.get_root().get_child(row_index).select(0)  # emits item_selected


## The chart as an image (null in a headless editor, which draws nothing).
func chart_image() -> Image:
	return _chart.to_image()


## Forgets the results shown (another deck was chosen).
func clear() -> void:
	tree.clear()
	_summary.text = ""
	_progress_text.text = ""
	_chart.set_data("", [], [])
	_progress.value = 0


## Shows a per-card result ([code]sorteio simulate --per-card --json[/code]'s shape).
func show_result(result: Dictionary) -> void:
	var colour := Link.ERROR_COLOR if int(result["cards_flagged"]) > 0 else Link.OK_COLOR
	var base: Variant = result["baseline"]
	var text := "[color=#%s][b]%s[/b][/color]" % [colour.to_html(false), result["summary"]]
	if base is Dictionary:
		text += (
			SorteioI18n.t(
				"\nBaralho inteiro: catástrofe %.1f%% (IC 95%% %.1f%%–%.1f%%) · semente %d · %s · "
			)
			% [
				base["catastrophe_pct"],
				base["catastrophe_ci95_low_pct"],
				base["catastrophe_ci95_high_pct"],
				int(result["seed"]),
				_player_name(str(result["policy"]))
			]
		)
		text += (
			SorteioI18n.t("%d partidas em %d rodadas")
			% [int(result["matches_played"]), int(result["rounds"])]
		)
	text += (SorteioI18n.t(
		(
			"\nΔ = catástrofe sem a carta − com o baralho inteiro, nas mesmas partidas: positivo, "
			+ "a carta protege; negativo, ela prejudica."
		)
	))
	_summary.text = text
	var root := Ui.reset(
		tree,
		[
			SorteioI18n.t("carta"),
			SorteioI18n.t("Δ pontos"),
			SorteioI18n.t("IC 95%"),
			SorteioI18n.t("partidas"),
			"q (BH)",
			SorteioI18n.t("veredito (sinalizada: cor)")
		]
	)
	var labels: Array = []
	var values: Array = []
	for card: Dictionary in result["cards"]:
		var flagged := int(card["flagged"]) != 0
		var item := tree.create_item(root)
		var cells: Array = [
			str(card["card"]),
			"%+.2f" % card["diff_pp"],
			"%+.2f a %+.2f" % [card["diff_ci95_low_pp"], card["diff_ci95_high_pp"]],
			str(int(card["matches"])),
			"%.3f" % card["q_value_bh"],
			str(card["verdict"])
		]
		for c in cells.size():
			item.set_text(c, cells[c])
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
			if flagged:
				item.set_custom_color(c, Link.ERROR_COLOR)
		item.set_metadata(0, str(card["card"]))
		if labels.size() < CHART_BARS:
			labels.append("%s%s" % [card["card"], " *" if flagged else ""])
			values.append(card["diff_pp"])
	_chart.set_data(
		(
			SorteioI18n.t("Δ catástrofe (pontos) sem a carta, as %d de maior |Δ| (* sinalizada)")
			% labels.size()
		),
		labels,
		values
	)
	_link.tabs.current_tab = 4
	_reveal.call_deferred()
	_link.set_status(
		(
			SorteioI18n.t("estudo por carta terminado: %d de %d sinalizadas")
			% [int(result["cards_flagged"]), int(result["cards_total"])]
		)
	)


func _reveal() -> void:
	# Scrolls the Simulação tab to the table and chart (what a PNG export captures).
	var scroller := _link.tabs.get_current_tab_control() as ScrollContainer
	if scroller != null:
		scroller.ensure_control_visible(_chart)


func _show_progress(data: Dictionary) -> void:
	_progress.max_value = maxf(float(data["total"]), 1.0)
	_progress.value = float(data["done"])
	_progress_text.text = (
		SorteioI18n.t("rodada %d · %d de %d cartas resolvidas · %d de %d partidas")
		% [
			int(data.get("round", 0)),
			int(data.get("cards_settled", 0)),
			int(data.get("cards", 0)),
			int(data["done"]),
			int(data["total"])
		]
	)
	_link.set_status(SorteioI18n.t("estudo por carta: %s") % _progress_text.text)


func _on_row_selected() -> void:
	var item := tree.get_selected()
	if item != null:
		card_chosen.emit(str(item.get_metadata(0)))


static func _player_name(policy: String) -> String:
	for entry: Array in Ui.PLAYERS:
		if entry[0] == policy:
			return SorteioI18n.t("jogador %s") % SorteioI18n.t(str(entry[1]))
	return SorteioI18n.t("jogador %s") % policy
