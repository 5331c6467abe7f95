tool
extends EditorPlugin
# Engine test helper (tests/test_editor.py), loaded by a headless editor (godot3-server -e) in a
# throwaway project with addons/sorteio enabled: finds the Sorteio bottom panel and presses each
# of its actions as a designer would, printing what the panel shows as PANEL lines (JSON) for
# pytest to compare with Python's own answers, then quits. Options after "--":
#   --state=/abs/saved.json  a saved match for the preview from a state
#   --shot=/abs/out.png      also capture the editor window (needs a display: godot3 on Xvfb)
#   --expect-failure         only press Validar, expecting the bridge to fail (a bad Python)
#   --import-only            only the deck import checks (issue 15): the Inspector's summary of
#                            a SorteioDeck, its stored fields, the Output's lines, a re-import
#   --play-main              only open the demo's scenes and press Play (the main scene), then Stop

# A script error stalled a step: fail with a CHECK line before the tests' 180 s timeout kills
# the editor (100 s of editor time was close to a correct run's length on a loaded machine).
const TIMEOUT_MS := 170000
const BROKEN := "res://decks/quebrado.json"
const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")
# The decks --play-main waits to see imported before it starts.
const PLAY_DECKS := ["res://decks/padrao.json"]
# What --play-main opens before pressing Play (the demo's scenes).
const PLAY_SCENES := [
	"res://scenes/header_view.tscn",
	"res://scenes/meters_view.tscn",
	"res://scenes/actors_view.tscn",
	"res://scenes/card_view.tscn",
	"res://scenes/draw_log.tscn",
	"res://main.tscn",
]

var _frames := 0
var _scanned := false
var _started := false
var _state := ""
var _shot := ""
var _expect_failure := false
var _import_only := false
var _play_main := false
var _play_frames := 0
var _done := {}
var _quit_at := -1


func _enter_tree() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--state="):
			_state = arg.substr(8)
		elif arg.begins_with("--shot="):
			_shot = arg.substr(7)
		elif arg == "--expect-failure":
			_expect_failure = true
		elif arg == "--import-only":
			_import_only = true
		elif arg == "--play-main":
			_play_main = true
	# The first scan ends in a process frame, after the plugins started: this cannot miss it.
	get_editor_interface().get_resource_filesystem().connect("sources_changed", self, "_on_sources")
	set_process(true)


func _on_sources(_exist: bool) -> void:
	_scanned = true


func _process(_delta: float) -> void:
	_frames += 1
	if _quit_at > 0:
		if _frames >= _quit_at:
			get_tree().quit()
		return
	if OS.get_ticks_msec() > TIMEOUT_MS:  # a script error stalled a step: fail, do not hang
		_finish(false, "timed out after %d frames" % _frames)
		return
	if _frames >= 30 and not _started and _imports_done():  # the editor started and imported
		_started = true
		_run()
	elif _started and _play_main:
		_play_step()


func _run() -> void:
	if _play_main:
		return  # _process steps it (_play_step)
	if _import_only:
		yield(_import_checks(), "completed")
		_finish(true, "")
		return
	var panel = get_editor_interface().get_base_control().find_node("SorteioPanel", true, false)
	if panel == null:
		_finish(false, "no SorteioPanel in the editor")
		return
	panel.connect("action_finished", self, "_on_action_finished")
	make_bottom_panel_item_visible(panel)
	var ok := true
	if _expect_failure:
		panel.set_deck("res://decks/bom.json")
		var passed: bool = yield(_act(panel, "validate", "validate"), "completed")
		_emit("failure", {"ok": passed, "error": panel.last_error}, 0)
		_finish(not passed, "")
		return
	panel.set_deck("res://decks/bom.json")
	ok = yield(_act(panel, "validate", "validate"), "completed") and ok
	_emit("validate_good", panel.results["validate"], panel.rows("validate"))
	panel.set_deck("res://decks/quebrado.json")
	ok = yield(_act(panel, "validate", "validate"), "completed") and ok
	_emit("validate_broken", panel.results["validate"], panel.rows("validate"))
	panel.set_deck("res://decks/bom.json")
	ok = yield(_act(panel, "coverage", "coverage"), "completed") and ok
	_emit("coverage", {"problems": panel.results["coverage"]["problems"]}, panel.rows("coverage"))
	ok = yield(_act(panel, "preview", "preview"), "completed") and ok
	_emit("preview_start", _cards(panel.results["preview"]), panel.rows("preview"))
	ok = yield(_act(panel, "preview", "preview", [_state]), "completed") and ok
	_emit("preview_state", _cards(panel.results["preview"]), panel.rows("preview"))
	var frames_before := _frames
	var seen := []
	panel.run_simulate()  # the default 3,000 matches
	while not _done.has("simulate"):
		if not seen.has(panel.progress_value()):
			seen.append(panel.progress_value())
		yield(get_tree(), "idle_frame")
	ok = _done["simulate"] and ok
	var sim: Dictionary = panel.results["simulate"]
	var base: Dictionary = sim["scenarios"][0]
	_emit(
		"simulate",
		{
			"matches": sim["matches"],
			"catastrophe_pct": base["catastrophe_pct"],
			"low": base["catastrophe_ci95_low_pct"],
			"high": base["catastrophe_ci95_high_pct"],
			"bars": panel.chart_bars(),
			"frames": _frames - frames_before,
			"progress_seen": seen,
		},
		panel.rows("simulate")
	)
	_done.erase("simulate")
	panel.run_simulate(300, "teto_obrigatorias=2..4")
	while not _done.has("simulate"):
		yield(get_tree(), "idle_frame")
	ok = _done["simulate"] and ok
	var rates := []
	for row in panel.results["simulate"]["scenarios"]:
		rates.append([row["teto_obrigatorias"], row["catastrophe_pct"]])
	_emit("sweep", {"rates": rates}, panel.rows("simulate"))
	_done.erase("simulate")
	panel.run_simulate(200000, " ")  # no sweep (blank), long: stopped by Parar once it has begun
	# Some matches done first: 6 frames (~1 ms each here) were not always enough under load.
	while panel.progress_value() <= 0.0 and OS.get_ticks_msec() < TIMEOUT_MS:
		yield(get_tree(), "idle_frame")
	var before: float = panel.progress_value()
	panel.stop_simulation()
	for _i in range(3):
		yield(get_tree(), "idle_frame")
	_emit("stop", {"busy": panel.is_busy(), "done": before, "after": panel.progress_value()}, 0)
	_emit("imported", _imported(), 0)
	_emit("bridge", {"pid": panel.bridge.process_id()}, 0)
	if _shot != "":
		yield(_capture(panel), "completed")
	_finish(ok, "")


func _act(panel, action: String, method: String, args := []):
	_done.erase(action)
	panel.callv("run_" + method, args)
	while not _done.has(action):
		yield(get_tree(), "idle_frame")
	if not _done[action]:
		print("CHECK FAIL %s: %s" % [action, panel.last_error])
	return _done[action]


func _on_action_finished(action: String, ok: bool) -> void:
	_done[action] = ok


func _cards(result: Dictionary) -> Array:
	var out := []
	for row in result["rows"]:
		if row["event"] == "card_played":
			out.append([row["card_id"], row["reason_text"]])
	return [result["from"], out]


func _imported() -> Dictionary:
	var out := {}
	for path in ["res://decks/bom.json", "res://decks/quebrado.json", "res://outro.json"]:
		var deck = load(path)
		if deck == null:
			out[path] = null
			continue
		out[path] = {
			"is_deck": deck is DeckResource,
			"valid": deck.valid,
			"name": deck.deck_name,
			"problems": deck.problems.size(),
			"text": deck.json_text.length(),
		}
	return out


func _imports_done() -> bool:
	# A fixed frame count raced the first scan on a loaded machine: Play then met a deck whose
	# import was not written yet ("get_dependencies: Cannot open file res://.import/...").
	# is_scanning() is false before the first scan has begun too: its end is sources_changed.
	if not _scanned or get_editor_interface().get_resource_filesystem().is_scanning():
		return false
	if not _play_main:
		return true
	for scene in PLAY_DECKS:
		var config := ConfigFile.new()
		if config.load(scene + ".import") != OK:
			return false
		if not File.new().file_exists(str(config.get_value("remap", "path", ""))):
			return false
	return true


func _play_step() -> void:
	# As a designer runs the demo: its scenes open in the editor, then Play (which saves the
	# open scenes first), a moment of the game, then Stop. A step per frame, no coroutine: Play
	# runs editor frames inside its own call (the save's progress dialog), which resumed a
	# yield of a coroutine out of turn.
	var editor := get_editor_interface()
	_play_frames += 1
	if _play_frames == 1:
		for scene in PLAY_SCENES:  # main.tscn last: the scene in front when Play is pressed
			editor.open_scene_from_path(scene)
	elif _play_frames == 10:
		editor.play_main_scene()
	elif _play_frames == 70:
		var playing := editor.is_playing_scene()
		editor.stop_playing_scene()
		_emit("played", {"playing": playing}, 0)
		_finish(playing, "" if playing else "the main scene did not start")


func _import_checks():
	# Issue 15 "Import": what a designer sees of an imported deck, then an edit and re-import.
	var deck = load(BROKEN)
	var usage := {}
	for prop in deck.get_property_list():
		if prop["name"] in ["json_text", "source_path", "deck_name", "valid", "problems"]:
			usage[prop["name"]] = prop["usage"]
	get_editor_interface().inspect_object(deck)
	for _i in range(3):
		yield(get_tree(), "idle_frame")
	var inspector := get_editor_interface().get_inspector()
	var summary = inspector.find_node("SorteioDeckSummary", true, false)
	_emit(
		"inspector",
		{
			"summary": summary.text if summary != null else null,
			"usage": usage,
			"is_deck": deck is DeckResource,
		},
		0
	)
	_emit("output", _output_lines(), 0)
	_emit("panel_texts", _panel_texts(), 0)
	_emit("dock", _dock_tooltips(["res://decks/bom.json", BROKEN, "res://outro.json"]), 0)
	print("PROBE-REIMPORT begin")
	var file := File.new()
	file.open(BROKEN, File.READ)
	var text := file.get_as_text()
	file.close()
	file.open(BROKEN, File.WRITE)
	file.store_string(text + "\n")  # a designer's edit: the editor notices and re-imports it
	file.close()
	var fs := get_editor_interface().get_resource_filesystem()
	fs.scan()
	var frames := 0
	while fs.is_scanning() or frames < 30:
		frames += 1
		yield(get_tree(), "idle_frame")
	deck = load(BROKEN)
	_emit(
		"reimported",
		{
			"valid": deck.valid,
			"problems": deck.problems.size(),
			"newline": deck.json_text.ends_with("\n")
		},
		0
	)
	print("PROBE-REIMPORT end")


func _panel_texts() -> Dictionary:
	# The Sorteio panel's buttons and tab titles, as shown (issue 15: in the run's language).
	var panel = get_editor_interface().get_base_control().find_node("SorteioPanel", true, false)
	var out := {"buttons": [], "tabs": []}
	if panel == null:
		return out
	for node in _find_class(panel, "Button"):
		if node.text != "" and node.get_parent().get_parent() == panel:
			out["buttons"].append(node.text)
	for tabs in _find_class(panel, "TabContainer"):
		for index in range(tabs.get_tab_count()):
			out["tabs"].append(tabs.get_tab_title(index))
	return out


func _dock_tooltips(paths: Array) -> Dictionary:
	# The tooltip of each path's item in the FileSystem dock's tree ("" unmarked, null absent).
	var out := {}
	for path in paths:
		out[path] = null
	for tree in _find_class(get_editor_interface().get_file_system_dock(), "Tree"):
		var stack := [tree.get_root()]
		while not stack.empty():
			var item: TreeItem = stack.pop_back()
			while item != null:
				if item.get_metadata(0) in paths:
					out[item.get_metadata(0)] = item.get_tooltip(0)
				if item.get_children() != null:
					stack.append(item.get_children())
				item = item.get_next()
	return out


func _output_lines() -> Array:
	# The text of the editor's Output panel (EditorLog), the lines the importer printed.
	var out := []
	var log_nodes := _find_class(get_editor_interface().get_base_control(), "EditorLog")
	for log_node in log_nodes:
		for label in _find_class(log_node, "RichTextLabel"):
			for line in label.text.split("\n"):
				if "sorteio" in line:
					out.append(line)
	return out


func _find_class(node: Node, name: String) -> Array:
	# Every node of class `name` at or under `node`.
	var found := []
	if node.get_class() == name:
		found.append(node)
	for child in node.get_children():
		found += _find_class(child, name)
	return found


func _capture(panel: Control):
	_done.erase("simulate")  # before the start: a reply read in place ends it inside the call
	panel.run_simulate(3000, "")
	while not _done.has("simulate"):
		yield(get_tree(), "idle_frame")
	for _i in range(10):
		yield(get_tree(), "idle_frame")
	var viewport := get_editor_interface().get_base_control().get_viewport()
	var image: Image = viewport.get_texture().get_data()
	image.flip_y()
	image.save_png(_shot)
	var seen := {}
	image.lock()
	for y in range(0, image.get_height(), 6):
		for x in range(0, image.get_width(), 6):
			seen[image.get_pixel(x, y).to_html(false)] = true
	image.unlock()
	var size := [image.get_width(), image.get_height()]
	print("PANEL shot %s" % JSON.print({"size": size, "colours": seen.size()}))


func _emit(what: String, data, rows: int) -> void:
	print("PANEL %s %s" % [what, JSON.print({"data": data, "rows": rows})])


func _finish(ok: bool, why: String) -> void:
	if why != "":
		print("CHECK FAIL " + why)
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	_quit_at = _frames + 5  # quit from _process, once this coroutine has returned


func _exit_tree() -> void:
	set_process(false)
