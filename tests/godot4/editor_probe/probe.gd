@tool
extends EditorPlugin
## Engine test helper (tests/test_godot4_editor.py), loaded by a headless Godot 4 editor in a
## throwaway project with addons/sorteio enabled: presses the Sorteio panel's actions as a
## designer would, prints what the panel shows as PANEL lines (JSON) for pytest to compare
## with Python's own answers, then quits. Options after "--": --state=/abs/saved.json,
## --out=/abs/folder (CSV and PNG exports, a bad situation file), --situation=/abs/file.json (a
## designer's situation), --shot=/abs/out.png (needs a display).

# Every wait for the editor, the panel or Python ends at a deadline (a failed CHECK naming what
# never came), generous for a loaded 2-core machine under Xvfb, where one editor frame took ~1 s
# at a load of 14 and the editor ~90 s to start. The run as a whole has no time limit of its
# own (it used to fail a slow but correct run after 240 s with no CHECK saying why): pytest's
# timeout bounds it.
const START_TIMEOUT_MS := 180000
const ACTION_TIMEOUT_MS := 120000
const PER_CARD_TIMEOUT_MS := 240000
const GOOD := "res://decks/bom.sorteio.json"
const BROKEN := "res://decks/quebrado.sorteio.json"
const EMPTY := "res://decks/vazio.sorteio.json"

var _panel: Control = null
var _done: Dictionary = {}
var _ok: bool = true


func _enter_tree() -> void:
	_run.call_deferred()


func _arg(key: String) -> String:
	for arg: String in OS.get_cmdline_user_args():
		if arg.begins_with("--%s=" % key):
			return arg.substr(key.length() + 3)
	return ""


func _run() -> void:
	var tree := get_tree()
	var limit := Time.get_ticks_msec() + START_TIMEOUT_MS
	while _starting() and Time.get_ticks_msec() < limit:
		await tree.process_frame
	_panel = EditorInterface.get_base_control().find_child("SorteioPanel", true, false)
	if _panel == null:
		_finish("no SorteioPanel in the editor after %d ms" % START_TIMEOUT_MS)
		return
	_panel.action_finished.connect(func(action: String, ok: bool) -> void: _done[action] = ok)
	make_bottom_panel_item_visible(_panel)
	_emit("status", {"text": _panel.status_text()}, 0)
	if _arg("only") == "inprocess":
		await _inprocess()
		_finish("")
		return
	if _arg("only") == "controls":
		_emit("controls", _controls(), 0)
		await _headings()
		_finish("")
		return
	if _arg("only") == "percard_bench":
		await _percard_bench()
		_finish("")
		return
	if _arg("only") == "layout":
		await _layout()
		_finish("")
		return
	if _arg("only") == "sheets":
		await _sheets(_arg("out"), _arg("sheets"))
		_finish("")
		return
	await _act(
		"validate",
		func() -> void:
			_panel.set_deck(GOOD)
			_panel.run_validate()
	)
	_emit("validate_good", _panel.results["validate"], _panel.rows("validate"))
	await _act(
		"validate",
		func() -> void:
			_panel.set_deck(BROKEN)
			_panel.run_validate()
	)
	_emit("validate_broken", _panel.results["validate"], _panel.rows("validate"))
	# Simulate on the invalid deck: the status counts the problems and names the first by its
	# res:// path (designer QA, issue 15).
	await _act("simulate", func() -> void: _panel.run_simulate(20, "random"), false)
	_emit("simulate_broken", {"status": _panel.status_text(), "error": _panel.last_error}, 0)
	# Choosing a problem loads the card table (the table's action), then selects its cell. Done
	# inside _act, after it forgets the last "table": the socket bridge reads a reply in place for
	# its first 2 ms, so when the editor lost the CPU for longer than Python took (a loaded
	# machine), the table came and its action ended inside select_problem, and waiting for it
	# afterwards failed ("CHECK FAIL table:" with no error, the cell selected all the same).
	await _act("table", func() -> void: _panel.select_problem(0))
	_emit("problem_selects_cell", {"cell": _panel.table.selected_cell()}, 0)
	_panel.set_deck(GOOD)
	_emit("cleared", {"status": _panel.status_text()}, _panel.rows("validate"))
	await _act("table", func() -> void: _panel.load_table())
	var table: Control = _panel.table
	_emit("table", {"count": table.card_count(), "first": table.row(0)}, 0)
	table.set_filters("", "ator")
	var actors: int = table.shown_indexes().size()
	table.set_filters("reforma")
	var found: Array = table.shown_indexes()
	table.set_filters("")
	table.sort_by("ano", false)
	var by_year: Array = table.shown_indexes()
	table.sort_by("id")
	_emit("filters", {"actors": actors, "search": found, "first_by_year": by_year.slice(0, 3)}, 0)
	var file := ProjectSettings.globalize_path(GOOD)
	var history: UndoRedo = get_undo_redo().get_history_undo_redo(
		get_undo_redo().get_object_history_id(_panel)
	)
	var steps: Array = [{"step": "start", "md5": FileAccess.get_md5(file)}]
	await _act("edit", func() -> void: _panel.edit_cell(0, "titulo", "Reforma já"))
	steps.append({"step": "edit", "md5": FileAccess.get_md5(file), "row": table.row(0)["titulo"]})
	await _act("edit", func() -> void: _panel.edit_cell(0, "efeitos", "caixa +12, Saúde -3", 0))
	steps.append({"step": "effects", "md5": FileAccess.get_md5(file)})
	await _act("edit", func() -> void: history.undo())
	await _act("edit", func() -> void: history.undo())
	steps.append({"step": "undo2", "md5": FileAccess.get_md5(file), "row": table.row(0)["titulo"]})
	await _act("edit", func() -> void: history.redo())
	steps.append({"step": "redo", "md5": FileAccess.get_md5(file), "row": table.row(0)["titulo"]})
	await _act("edit", func() -> void: history.undo())
	var count: int = table.card_count()
	await _act("edit", func() -> void: _panel.add_card(0))
	steps.append({"step": "add", "count": table.card_count(), "id": table.row(1)["id"]})
	await _act("edit", func() -> void: _panel.duplicate_card(0))
	steps.append({"step": "duplicate", "count": table.card_count(), "id": table.row(1)["id"]})
	await _act("edit", func() -> void: _panel.delete_card(0))
	steps.append(
		{
			"step": "delete",
			"count": table.card_count(),
			"id": table.row(0)["id"],
			"problems": _panel.rows("validate")
		}
	)
	for _i in 3:
		await _act("edit", func() -> void: history.undo())
	steps.append(
		{
			"step": "undo3",
			"md5": FileAccess.get_md5(file),
			"count": table.card_count(),
			"before": count
		}
	)
	await _act("edit", func() -> void: _panel.edit_cell(2, "modo", "economa"))
	steps.append({"step": "bad_mode", "problems": _panel.row_texts("validate")})
	await _act("edit", func() -> void: history.undo())
	await _act("edit", func() -> void: _panel.edit_cell(0, "ano", "dois"), false)
	steps.append({"step": "bad_year", "error": _panel.last_error, "md5": FileAccess.get_md5(file)})
	# Typed in the cell as a designer does ("2,"): refused, the stored year back at once, marked.
	table.sort_by("id")
	var typed: TreeItem = table._tree.get_root().get_first_child()
	var year_column: int = table.COLUMNS.find("ano")
	table._tree.set_selected(typed, year_column)
	typed.set_text(year_column, "2,")
	var at := int(typed.get_metadata(0))
	await _act(
		"edit",
		func() -> void: table.cell_edited.emit(at, table.row(at)["id"], "ano", -1, "2,"),
		false
	)
	steps.append(
		{
			"step": "refused",
			"cell": table.refused_cell(),
			"selected": table.selected_cell(),
			"stored": table.row(at)["ano"],
			"md5": FileAccess.get_md5(file)
		}
	)
	_emit("edits", steps, 0)
	await _act("coverage", func() -> void: _panel.run_coverage())
	_emit(
		"coverage",
		{"problems": _panel.results.get("coverage", {}).get("problems")},
		_panel.rows("coverage")
	)
	await _act("preview", func() -> void: _panel.run_preview())
	_emit("preview_start", _cards(_panel.results["preview"]), _panel.rows("preview"))
	await _act("preview", func() -> void: _panel.run_preview(_arg("state")))
	_emit("preview_state", _cards(_panel.results["preview"]), _panel.rows("preview"))
	_emit("preview_rows", _panel.row_texts("preview").slice(0, 3), 0)
	if _arg("out") != "" and _arg("situation") != "":
		await _situations(_arg("out"))
	var seen: Array = []
	_done.erase("simulate")
	_panel.run_simulate(3000, "random")
	var until := Time.get_ticks_msec() + ACTION_TIMEOUT_MS
	while not _done.has("simulate") and Time.get_ticks_msec() < until:
		if not seen.has(_panel.progress_value()):
			seen.append(_panel.progress_value())
		await tree.process_frame
	if not _done.get("simulate", false):
		_fail("simulate", until)
		_finish("")
		return
	var base: Dictionary = _panel.results["simulate"]["scenarios"][0]
	_emit(
		"simulate",
		{
			"catastrophe_pct": base["catastrophe_pct"],
			"progress_seen": seen.size(),
			"summary": _panel.simulate_summary()
		},
		_panel.rows("cards")
	)
	await _act(
		"simulate",
		func() -> void: _panel.run_simulate(300, "protect", {"teto_obrigatorias": [2, 3, 4]})
	)
	_emit(
		"sweep",
		{"summary": _panel.simulate_summary(), "rows": _panel.row_texts("sweep")},
		_panel.rows("sweep")
	)
	var out := _arg("out")
	if out != "":
		_emit(
			"exports",
			{
				"csv": _panel.export_csv("sweep", out + "/sweep.csv"),
				"png": _panel.export_png(out + "/modes.png")
			},
			0
		)
	await _per_card(out)
	_done.erase("simulate")
	_panel.run_simulate(200000, "random")
	# Stopped once some matches are done (40 frames were not always enough on a loaded machine).
	until = Time.get_ticks_msec() + ACTION_TIMEOUT_MS
	while _panel.progress_value() <= 0.0 and Time.get_ticks_msec() < until:
		await tree.process_frame
	await _panel.stop_simulation()
	var stopped: float = _panel.progress_value()
	for _i in 4:
		await tree.process_frame
	_emit("stop", {"busy": _panel.is_busy(), "done": stopped, "after": _panel.progress_value()}, 0)
	await _reimport()
	_emit("imported", _imported(), 0)
	await _filesystem_marks()
	var shot := _arg("shot")
	if shot != "":
		await _shots(shot, out)
	await _empty_deck()  # last: the shots are of the good deck's table
	_finish("")


## True until the editor has started: its filesystem scan over, 20 frames run, the panel there.
func _starting() -> bool:
	return (
		EditorInterface.get_resource_filesystem().is_scanning()
		or get_tree().get_frame() < 20
		or EditorInterface.get_base_control().find_child("SorteioPanel", true, false) == null
	)


## Issue 15's spreadsheet round trip from the panel: export the deck to .xlsx and .csv, import
## both back, import an edited sheet, undo and redo it, import a sheet with a bad cell; the
## deck file's md5 at each step. Then the results' CSV in both languages. [param out]: where
## to export; [param given]: the sheets pytest prepared (edited.xlsx, bad.xlsx).
func _sheets(out: String, given: String) -> void:
	_panel.set_deck(GOOD)
	await _act("table", func() -> void: _panel.load_table())
	var file := ProjectSettings.globalize_path(GOOD)
	var history: UndoRedo = get_undo_redo().get_history_undo_redo(
		get_undo_redo().get_object_history_id(_panel)
	)
	var steps: Array = [{"step": "start", "md5": FileAccess.get_md5(file)}]
	for kind: String in ["xlsx", "csv"]:
		var sheet := "%s/deck.%s" % [out, kind]
		await _act("sheet_export", func() -> void: _panel.sheets.export_sheet(sheet))
		steps.append({"step": "export_" + kind, "status": _panel.status_text()})
		await _act("sheet_import", func() -> void: _panel.sheets.import_sheet(sheet))
		steps.append(
			{
				"step": "import_" + kind,
				"md5": FileAccess.get_md5(file),
				"status": _panel.status_text(),
				"undo": history.get_current_action_name()
			}
		)
	await _act("sheet_import", func() -> void: _panel.sheets.import_sheet(given + "/edited.xlsx"))
	var edited := FileAccess.get_md5(file)
	steps.append(
		{
			"step": "edited",
			"md5": edited,
			"title": _panel.table.row(0)["titulo"],
			"status": _panel.status_text(),
			"undo": history.get_current_action_name()
		}
	)
	await _act("table", func() -> void: history.undo())
	steps.append(
		{"step": "undo", "md5": FileAccess.get_md5(file), "title": _panel.table.row(0)["titulo"]}
	)
	await _act("table", func() -> void: history.redo())
	steps.append({"step": "redo", "md5": FileAccess.get_md5(file)})
	await _act("table", func() -> void: history.undo())
	await _act(
		"sheet_import", func() -> void: _panel.sheets.import_sheet(given + "/bad.xlsx"), false
	)
	steps.append(
		{
			"step": "bad",
			"md5": FileAccess.get_md5(file),
			"problems": _panel.row_texts("validate"),
			"status": _panel.status_text()
		}
	)
	_emit("sheets", steps, 0)
	var csv := {}
	for language: String in ["pt_BR", "en"]:
		ProjectSettings.set_setting(SorteioI18n.SETTING_LANGUAGE, language)
		var path := "%s/problems_%s.csv" % [out, language]
		csv[language] = _panel.export_csv("validate", path)
	ProjectSettings.set_setting(SorteioI18n.SETTING_LANGUAGE, "auto")
	# A table of numbers as the Simulação tab shows them, in each language's dialect.
	var writer: GDScript = load("res://addons/sorteio/editor/results_csv.gd")
	var titles: Array = ["#", "catástrofe", "IC 95%", "Δ", "carta", "campo"]
	var rows: Array = [
		["1", "12.5%", "10.1–14.9", "+1.20", "eco-01", "cartas.3.modo"],
		["2", "7.0%", "+0.40 a +2.10", "-3", 'diz "sim"; ou, não', "4.6.1"]
	]
	for language: String in ["pt_BR", "en"]:
		csv["text_" + language] = writer.call("text", titles, rows, language)
	_emit("results_csv", csv, 0)


func _situations(out: String) -> void:
	# Issue 14: the panel starts from GDD 06 §4's sample, from a situation file (the sample's
	# copy), and shows a bad file's problems one row each; the status says where it starts.
	var shown := {}
	_panel.preview_start.choose("secao4")
	await _act("preview", func() -> void: _panel.run_preview())
	shown["secao4"] = _cards(_panel.results["preview"])
	shown["secao4_status"] = _panel.status_text()
	_panel.preview_start.choose("situation", _arg("situation"))
	await _act("preview", func() -> void: _panel.run_preview())
	shown["file"] = _cards(_panel.results["preview"])
	shown["file_status"] = _panel.status_text()
	var bad := out + "/situacao_ruim.json"
	var file := FileAccess.open(bad, FileAccess.WRITE)
	file.store_string('{"ano": 9, "medidores": {"caixa": "x"}}')
	file.close()
	_panel.preview_start.choose("situation", bad)
	await _act("preview", func() -> void: _panel.run_preview(), false)
	shown["bad_rows"] = _panel.row_texts("preview")
	shown["bad_status"] = _panel.status_text()
	_panel.preview_start.choose("start")
	_panel.simulation_start.choose("secao4")
	await _act("simulate", func() -> void: _panel.run_simulate(200, "random"))
	shown["simulate"] = _panel.simulate_summary()
	shown["simulate_status"] = _panel.status_text()
	shown["simulate_kernel"] = _panel.results["simulate"].get("kernel", "")
	_panel.simulation_start.choose("start")
	_emit("situations", shown, 0)


func _per_card(out: String) -> void:
	# The per-card study, small (±50 points, at most 100 matches a card) so it ends fast; the
	# progress line is read while it runs, then the ranked table, the chart and a row click.
	# The editor goes on meanwhile: its frames and a 50 ms Timer are counted while it runs.
	var lines: Array = []
	var timer := Timer.new()
	timer.wait_time = 0.05
	var ticks := [0]
	timer.timeout.connect(func() -> void: ticks[0] += 1)
	_panel.add_child(timer)
	timer.start()
	var frames := 0
	var began := Time.get_ticks_msec()
	_done.erase("percard")
	_panel.per_card.run(50.0, 100, "random")
	var limit := Time.get_ticks_msec() + PER_CARD_TIMEOUT_MS
	while not _done.has("percard") and Time.get_ticks_msec() < limit:
		var text: String = _panel.per_card.shown()["progress"]["text"]
		if text != "" and not lines.has(text):
			lines.append(text)
		await get_tree().process_frame
		frames += 1
	timer.stop()
	timer.queue_free()
	if not _done.get("percard", false):
		_fail("percard", limit)
		return
	var shown: Dictionary = _panel.per_card.shown()
	shown["progress_lines"] = lines
	shown["running"] = {
		"frames": frames,
		"timer_ticks": ticks[0],
		"wall_ms": Time.get_ticks_msec() - began,
		"steps": _panel.per_card._job.stats["steps"],
		"budget_ms_max": _panel.per_card._job.stats["budget_ms_max"]
	}
	shown["status"] = _panel.status_text()
	if out != "":
		shown["csv"] = _panel.export_csv("percard", out + "/percard.csv")
		shown["png"] = _panel.export_png(out + "/percard.png", "percard_png")
	_panel.per_card.select_row(0)  # the table is loaded (the edits above): selected at once
	for _i in 3:
		await get_tree().process_frame
	shown["selected"] = _panel.table.selected_cell()
	shown["selected_id"] = _panel.table.row(shown["selected"][0]).get("id", "")
	_emit("percard", shown, _panel.rows("percard"))


func _percard_bench() -> void:
	# benchmarks/bench_panel_percard.py: the per-card study on the good deck, once per driver
	# mode (--modes=fixed,adaptive: sim_job.gd's former fixed 60 ms steps, then its adaptive
	# budget), at --precision points and --cap matches (default: the CLI's defaults), --seed,
	# player random. Prints each run's wall time, frames, the job's stats, a 0.1 s Timer's
	# timeouts meanwhile and the ranking (card, Δ).
	_panel.set_deck(GOOD)
	var precision := float(_arg("precision")) if _arg("precision") != "" else 0.07
	var cap := int(_arg("cap")) if _arg("cap") != "" else 400000
	var job: RefCounted = _panel.per_card._job
	_panel._simulate._seed.value = int(_arg("seed")) if _arg("seed") != "" else 0
	var timer := Timer.new()
	timer.wait_time = 0.1
	var ticks := [0]
	timer.timeout.connect(func() -> void: ticks[0] += 1)
	_panel.add_child(timer)
	for mode: String in (_arg("modes") if _arg("modes") != "" else "adaptive").split(","):
		job.adaptive = mode != "fixed"
		_done.erase("percard")
		ticks[0] = 0
		timer.start()
		var frames := 0
		var longest := 0
		var began := Time.get_ticks_msec()
		var last := began
		_panel.per_card.run(precision, cap, "random")
		var limit := began + 1800000
		while not _done.has("percard") and Time.get_ticks_msec() < limit:
			await get_tree().process_frame
			frames += 1
			longest = maxi(longest, Time.get_ticks_msec() - last)
			last = Time.get_ticks_msec()
		timer.stop()
		if not _done.get("percard", false):
			_fail("percard", limit)
			return
		var ranking: Array = []
		for card: Dictionary in _panel.results["percard"]["cards"]:
			ranking.append([card["card"], card["diff_pp"]])
		_emit(
			"percard_bench",
			{
				"mode": mode,
				"bridge": _panel._link.bridge.kind(),
				"wall_s": (Time.get_ticks_msec() - began) / 1000.0,
				"frames": frames,
				"longest_frame_ms": longest,
				"timer_ticks": ticks[0],
				"stats": job.stats,
				"matches": _panel.results["percard"]["matches_played"],
				"kernel": _panel.results["percard"].get("kernel", ""),
				"ranking": ranking
			},
			0
		)


func _inprocess() -> void:
	# With the Python GDExtension installed: the panel runs on the editor's own interpreter.
	await _act(
		"validate",
		func() -> void:
			_panel.set_deck(GOOD)
			_panel.run_validate()
	)
	_emit(
		"inprocess_validate",
		{"status": _panel.status_text(), "valid": _panel.results["validate"]["valid"]},
		_panel.rows("validate")
	)
	await _act("table", func() -> void: _panel.load_table())
	var file := ProjectSettings.globalize_path(GOOD)
	var before := FileAccess.get_md5(file)
	await _act("edit", func() -> void: _panel.edit_cell(0, "titulo", "Reforma já"))
	var edited := FileAccess.get_md5(file)
	await _act(
		"edit",
		func() -> void:
			(
				get_undo_redo()
				. get_history_undo_redo(get_undo_redo().get_object_history_id(_panel))
				. undo()
			)
	)
	_emit(
		"inprocess_edit",
		{
			"before": before,
			"edited": edited,
			"after": FileAccess.get_md5(file),
			"count": _panel.table.card_count()
		},
		0
	)


## The Simulação tab's controls as a designer finds them: the per-card study's precision and
## cap, and the words around the §7 sweep's ranges.
func _controls() -> Dictionary:
	var simulate: Control = _panel._simulate
	var shown := {
		"precision": _panel.per_card._precision.value,
		"cap": _panel.per_card._cap.value,
		"from": simulate._sweep_from.map(func(spin: SpinBox) -> String: return spin.prefix),
		"to": simulate._sweep_to.map(func(spin: SpinBox) -> String: return spin.prefix)
	}
	# N from 8 to 6, chosen backwards: the sweep the Simulate button sends.
	simulate._sweep_checks[0].button_pressed = true
	simulate._sweep_from[0].value = 8
	simulate._sweep_to[0].value = 6
	shown["backwards"] = simulate._sweep_params({})
	simulate._sweep_checks[0].button_pressed = false
	# What the editor draws: a Control's text goes through atr(), the editor's own catalog
	# unless the panel turns that off ("Preview" came out as the pt-BR editor's "Visualização").
	var drawn: Array = []
	for button: Node in _panel.find_children("*", "Button", true, false):
		if button.text != "" and button.is_visible_in_tree():
			drawn.append(button.atr(button.text))
	var tabs: TabContainer = _panel._link.tabs
	for i in tabs.get_tab_count():
		drawn.append(tabs.get_tab_bar().atr(tabs.get_tab_title(i)))
	shown["drawn"] = drawn
	return shown


## The column titles of the Problemas tab and of a §7 sweep, as shown.
func _headings() -> void:
	await _act(
		"validate",
		func() -> void:
			_panel.set_deck(BROKEN)
			_panel.run_validate()
	)
	_panel.set_deck(GOOD)
	await _act(
		"simulate", func() -> void: _panel.run_simulate(20, "random", {"teto_obrigatorias": [2, 3]})
	)
	var titles := {}
	for what: String in ["validate", "sweep"]:
		var tree: Tree = _panel._trees()[what]
		var shown: Array = []
		for c in tree.columns:
			shown.append(tree.get_column_title(c))
		titles[what] = shown
	_emit("headings", titles, 0)


func _layout() -> void:
	# Issue 15 "nothing cut off": the Prévia tab's rows fill the tab (its tree was held at its
	# minimum height, two rows and an empty tab below), and every cell with text wraps (the
	# "início" row's "Ano 2, a partir da vaga 4 de 7 (...)" ended in an ellipsis).
	_panel.custom_minimum_size = Vector2(0, 520)
	await _act("preview", func() -> void: _panel.run_preview(_arg("state")))
	for _i in 10:
		await get_tree().process_frame
	var tree: Tree = _panel._trees()["preview"]
	var tab: Control = _panel._link.tabs.get_current_tab_control()
	var unwrapped: Array = []
	var item := tree.get_root().get_first_child()
	while item != null:
		for c in tree.columns:
			if item.get_text(c) != "" and item.get_autowrap_mode(c) == TextServer.AUTOWRAP_OFF:
				unwrapped.append(item.get_text(c))
		item = item.get_next()
	_emit(
		"preview_layout",
		{
			"tab": tab.name,
			"tab_height": tab.size.y,
			"tree_height": tree.size.y,
			"unwrapped": unwrapped
		},
		_panel.rows("preview")
	)


func _shots(shot: String, out: String) -> void:
	# Under Xvfb: the card table with its problems, then the simulation with a §7 sweep.
	_panel.custom_minimum_size = Vector2(0, 520)
	EditorInterface.get_file_system_dock().navigate_to_path(BROKEN)  # its red-cross icon
	await _act("table", func() -> void: _panel.load_table())
	await _act("edit", func() -> void: _panel.edit_cell(2, "modo", "economa"))
	_panel.show_tab(0)
	_panel.table.select_field(2, "cartas.2.modo")
	await _capture(shot)
	await _act(
		"edit",
		func() -> void:
			(
				get_undo_redo()
				. get_history_undo_redo(get_undo_redo().get_object_history_id(_panel))
				. undo()
			)
	)
	await _act(
		"simulate",
		func() -> void: _panel.run_simulate(3000, "random", {"teto_obrigatorias": [2, 3, 4]})
	)
	await _capture(shot.get_basename() + "_simulate.png")
	if out != "":
		_emit("png", {"png": _panel.export_png(out + "/modes.png")}, 0)
	await _act("percard", func() -> void: _panel.per_card.run(50.0, 100, "random"))
	await _capture(shot.get_basename() + "_percard.png")
	if out != "":
		var saved: Error = _panel.export_png(out + "/percard.png", "percard_png")
		var image: Image = Image.load_from_file(out + "/percard.png") if saved == OK else null
		_emit(
			"percard_png",
			{
				"png": saved,
				"height": image.get_height() if image != null else 0,
				"chart_height": _panel.per_card._chart.custom_minimum_size.y
			},
			0
		)


func _capture(path: String) -> void:
	for _i in 20:
		await get_tree().process_frame
	var image := EditorInterface.get_base_control().get_viewport().get_texture().get_image()
	var colours := {}
	for y in range(0, image.get_height(), 7):
		for x in range(0, image.get_width(), 7):
			colours[image.get_pixel(x, y).to_html(false)] = true
	image.save_png(path)
	_emit(
		"shot",
		{"path": path, "size": [image.get_width(), image.get_height()], "colours": colours.size()},
		0
	)


func _reimport() -> void:
	# A designer edits the broken deck again: the editor re-imports it (no engine error).
	var path := ProjectSettings.globalize_path(BROKEN)
	var text := FileAccess.get_file_as_string(path)
	var out := FileAccess.open(path, FileAccess.WRITE)
	out.store_string(text + "\n")
	out.close()
	var fs := EditorInterface.get_resource_filesystem()
	fs.reimport_files(PackedStringArray([BROKEN]))
	for _i in 10:
		await get_tree().process_frame


## A designer starting a deck from scratch ("cartas": [], which only warns; no match can start on
## it, README "Rule decisions" 13): the card table opens it empty and adds its first card.
func _empty_deck() -> void:
	_panel.set_deck(EMPTY)
	await _act("table", func() -> void: _panel.load_table())
	var before: int = _panel.table.card_count()
	await _act("edit", func() -> void: _panel.add_card())
	var first: Dictionary = _panel.table.row(0)
	_emit(
		"empty_deck",
		{"before": before, "after": _panel.table.card_count(), "id": first.get("id", "")},
		0
	)


func _filesystem_marks() -> void:
	# Issue 15: an invalid deck is marked in the FileSystem dock (colour, tooltip naming its
	# first problem, in the dock's tree and its tooltip plugin); fixed, the mark goes.
	var marks: Node = get_tree().root.find_child("SorteioFileSystemMarks", true, false)
	if marks == null:
		_finish("no SorteioFileSystemMarks in the editor")
		return
	EditorInterface.get_file_system_dock().navigate_to_path(BROKEN)
	var shown := {}
	for when: String in ["broken", "fixed"]:
		var limit := Time.get_ticks_msec() + 5000
		while Time.get_ticks_msec() < limit:  # the marks are applied again every second
			await get_tree().process_frame
		var tip: Control = marks.tooltips._make_tooltip_for_path(BROKEN, {}, VBoxContainer.new())
		var labels: Array = tip.find_children("*", "Label", true, false).map(
			func(label: Label) -> String: return label.text
		)
		tip.free()
		shown[when] = {
			"broken": marks.shown_mark(BROKEN),
			"good": marks.shown_mark(GOOD),
			"tooltip_plugin": labels
		}
		if when == "broken":  # the designer fixes the deck: the good deck's text, re-imported
			var path := ProjectSettings.globalize_path(BROKEN)
			var broken_text := FileAccess.get_file_as_string(path)
			shown["restore"] = broken_text
			var out := FileAccess.open(path, FileAccess.WRITE)
			out.store_string(FileAccess.get_file_as_string(ProjectSettings.globalize_path(GOOD)))
			out.close()
			EditorInterface.get_resource_filesystem().reimport_files(PackedStringArray([BROKEN]))
	var back := FileAccess.open(ProjectSettings.globalize_path(BROKEN), FileAccess.WRITE)
	back.store_string(shown["restore"])  # broken again for what follows (the screenshots)
	back.close()
	shown.erase("restore")
	EditorInterface.get_resource_filesystem().reimport_files(PackedStringArray([BROKEN]))
	_emit("filesystem_marks", shown, 0)


func _act(action: String, start: Callable, expect_ok: bool = true) -> void:
	_done.erase(action)
	start.call()
	var limit := Time.get_ticks_msec() + ACTION_TIMEOUT_MS
	while not _done.has(action) and Time.get_ticks_msec() < limit:
		await get_tree().process_frame
	if _done.get(action, not expect_ok) != expect_ok:
		_fail(action, limit)


## A failed CHECK for [param action]: the panel's error, or that it had not ended by
## [param deadline] (ticks in ms).
func _fail(action: String, deadline: int) -> void:
	var why: String = _panel.last_error
	if not _done.has(action) and Time.get_ticks_msec() >= deadline:
		why = "no action_finished in time (busy: %s) %s" % [_panel.is_busy(), why]
	print("CHECK FAIL %s: %s" % [action, why])
	_ok = false


func _cards(result: Dictionary) -> Array:
	var out: Array = []
	for row: Dictionary in result["rows"]:
		if row["event"] == "card_played":
			out.append([row["card_id"], row["reason_text"], row["meters_text"]])
	return [result["from"], out, result["start_text"]]


func _imported() -> Dictionary:
	var out := {}
	for path: String in [GOOD, BROKEN, "res://outro.json"]:
		var resource: Resource = load(path)
		if resource is SorteioDeck:
			var deck: SorteioDeck = resource
			out[path] = {
				"class": deck.get_script().resource_path,
				"valid": deck.valid,
				"name": deck.deck_name,
				"problems": deck.problems.size(),
				"text": deck.json_text.length()
			}
		else:
			out[path] = {"class": resource.get_class() if resource != null else "null"}
	return out


func _emit(what: String, data: Variant, rows: int) -> void:
	print("PANEL %s %s" % [what, JSON.stringify({"data": data, "rows": rows})])


func _finish(why: String) -> void:
	if why != "":
		print("CHECK FAIL " + why)
		_ok = false
	print("GODOT-TEST %s" % ("passed" if _ok else "failed"))
	get_tree().quit(0 if _ok else 1)
