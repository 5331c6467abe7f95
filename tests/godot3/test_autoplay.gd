extends SceneTree
# Engine test: the demo's autoplay plays one whole match through the bridge the autoload picked
# (socket, or python where pythonscript is installed), and we check from the engine side what
# SorteioNode emitted. Run with the demo (or a copy with pythonscript) as the project:
#   godot3-server --path godot3/demo_project -s tests/godot3/test_autoplay.gd -- --seed=N
# Prints "BRIDGE <kind>" (the caller checks it is the bridge it meant to test).
# Prints one "CHECK ok|FAIL name: detail" line per check and "GODOT-TEST passed|failed";
# quits 0 when every check passed, 1 otherwise (the caller also fails on any SCRIPT ERROR).

const Checks = preload("lib/checks.gd")
const SIGNALS := [
	"bridge_ready",
	"match_started",
	"turn_started",
	"card_drawn",
	"option_applied",
	"turn_ended",
	"match_ended",
	"state_loaded",
	"error_occurred",
]
const TIMEOUT_MS := 60000
# Which signal may follow which (a catastrophe ends the match right after option_applied).
const NEXT := {
	"bridge_ready": ["match_started"],
	"match_started": ["turn_started"],
	"turn_started": ["card_drawn", "turn_ended"],
	"card_drawn": ["option_applied"],
	"option_applied": ["card_drawn", "turn_ended", "match_ended"],
	"turn_ended": ["turn_started", "match_ended"],
	"match_ended": [],
}

var t = Checks.new()
var events := []
var stale_states := 0
# Sorteio.year when each turn_ended fired (README: already the next year, but after the last).
var years_at_turn_end := []
var sorteio: Node = null
var seed_value := 7
var started_ms := 0
var done := false


func _init() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--seed="):
			seed_value = int(arg.split("=")[1])
	call_deferred("_start")


func _start() -> void:
	sorteio = root.get_node("Sorteio")
	for name in SIGNALS:
		# Connected before the demo: we see every emission, in order, before the demo reacts.
		sorteio.connect(name, self, "_on_" + name)
	if sorteio.is_bridge_ready():
		# The in-process bridge is up as soon as the autoload starts it, before this script ran
		# (a main scene's _ready would still hear bridge_ready: it comes in the first frame).
		_on_bridge_ready(sorteio.bridge_kind)
	var main: Node = load("res://main.tscn").instance()
	main.autoplay = true
	main.autoplay_delay = 0.0
	main.match_seed = seed_value
	started_ms = OS.get_ticks_msec()
	root.add_child(main)


func _idle(_delta: float) -> bool:
	if done:
		return false
	var ended: bool = not events.empty() and events[-1][0] in ["match_ended", "error_occurred"]
	if ended or OS.get_ticks_msec() - started_ms > TIMEOUT_MS:
		done = true
		_check_all(ended)
		t.finish(self)
	return false


func _record(name: String, args: Array, state_ok: bool) -> void:
	events.append([name, args])
	if not state_ok:
		stale_states += 1
		print("stale state at %s #%d" % [name, events.size()])


func _on_bridge_ready(kind: String) -> void:
	print("SERVER_PID %d" % sorteio.bridge_process_id())  # the caller checks it dies with us
	_record("bridge_ready", [kind], sorteio.is_bridge_ready())


func _on_match_started(match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	var ok: bool = sorteio.deck_info.hash() == deck.hash() and sorteio.year == int(snapshot["year"])
	_record("match_started", [match_seed, deck, snapshot], ok)


func _on_turn_started(year: int, mandatory: Array) -> void:
	_record("turn_started", [year, mandatory], sorteio.year == year and sorteio.phase == "drawing")


func _on_card_drawn(card: Dictionary, slot: int, reason: Dictionary, order: Array) -> void:
	var current: Dictionary = sorteio.current_draw
	var ok: bool = (
		current.get("card_id") == card["id"]
		and sorteio.slot == slot
		and sorteio.phase == "awaiting_choice"
	)
	_record("card_drawn", [card, slot, reason, order], ok)


func _on_option_applied(
	card_id: String, option: int, meters: Dictionary, actors: Dictionary
) -> void:
	var ok: bool = sorteio.meters.hash() == meters.hash() and sorteio.current_draw.empty()
	_record("option_applied", [card_id, option, meters, actors], ok)


func _on_turn_ended(year: int, cards: int, short: bool, meters: Dictionary) -> void:
	years_at_turn_end.append([year, sorteio.year, sorteio.phase])
	_record("turn_ended", [year, cards, short, meters], sorteio.phase in ["turn_start", "ended"])


func _on_match_ended(reason: String, ending: Dictionary) -> void:
	_record("match_ended", [reason, ending], sorteio.is_match_over())


func _on_state_loaded(snapshot: Dictionary, pending: Dictionary) -> void:
	_record("state_loaded", [snapshot, pending], true)


func _on_error_occurred(message: String, code: String) -> void:
	_record("error_occurred", [message, code], true)


func _names() -> Array:
	var names := []
	for event in events:
		names.append(event[0])
	return names


func _check_all(ended: bool) -> void:
	var names := _names()
	t.check(
		ended,
		"match finished in time",
		"%d events in %d ms" % [events.size(), OS.get_ticks_msec() - started_ms]
	)
	t.check(not "error_occurred" in names, "no error_occurred", str(_errors()))
	t.check(names.size() > 0 and names[0] == "bridge_ready", "bridge_ready first")
	var kind: String = sorteio.bridge_kind
	print("BRIDGE %s" % kind)
	t.check(kind in ["socket", "python"], kind + " bridge", kind)
	if kind == "python":
		# The only way a python bridge answers: the pythonscript entry on the node's child.
		var entry = sorteio.get_node_or_null("SorteioPython")
		var path: String = entry.get_script().resource_path if entry != null else "no child"
		t.check(
			path == sorteio.python_entry and path.ends_with(".py"),
			"requests went through the in-process entry",
			path
		)
	t.check(names.count("match_started") == 1, "one match_started")
	t.check(names.count("match_ended") == 1 and names[-1] == "match_ended", "match_ended last")
	t.check(stale_states == 0, "node state updated before each signal", str(stale_states))
	_check_order()
	_check_year_at_turn_end()
	_check_turns()
	_check_cards()
	_check_ranges()
	_check_ending()


func _errors() -> Array:
	var out := []
	for event in events:
		if event[0] == "error_occurred":
			out.append(event[1])
	return out


func _check_order() -> void:
	# bridge_ready match_started (turn_started (card_drawn option_applied)* turn_ended)* ...
	# match_ended, where a catastrophe ends right after an option_applied.
	var expect := "bridge_ready"
	var bad := ""
	for event in events:
		var name: String = event[0]
		var allowed: Array = NEXT.get(expect, [])
		if name == "bridge_ready" and expect == "bridge_ready":
			continue
		if not name in allowed:
			bad = "%s after %s" % [name, expect]
			break
		expect = name
	t.check(bad == "", "signals in order", bad)


func _check_year_at_turn_end() -> void:
	var wrong := []
	for seen in years_at_turn_end:
		var expected: int = seen[0] if seen[2] == "ended" else seen[0] + 1
		if seen[1] != expected:
			wrong.append(seen)
	t.check(
		not years_at_turn_end.empty() and wrong.empty(),
		"Sorteio.year at turn_ended is the next year (the same once ended)",
		str(wrong)
	)


func _check_turns() -> void:
	var per_turn := 7
	var year := 0
	var slots := []
	var problems := []
	for event in events:
		var args: Array = event[1]
		match event[0]:
			"match_started":
				per_turn = int(args[1]["cartas_por_turno"])
			"turn_started":
				year += 1
				slots = []
				if args[0] != year:
					problems.append("turn_started year %d, expected %d" % [args[0], year])
			"card_drawn":
				slots.append(args[1])
			"turn_ended":
				var expected := range(1, slots.size() + 1)
				if slots != expected:
					problems.append("year %d slots %s" % [year, str(slots)])
				if args[1] != slots.size():
					problems.append("year %d turn_ended says %d cards" % [year, args[1]])
				if not args[2] and slots.size() != per_turn:
					problems.append("year %d full turn with %d cards" % [year, slots.size()])
				if args[2] and slots.size() >= per_turn:
					problems.append("year %d short turn with %d cards" % [year, slots.size()])
	t.check(problems.empty(), "%d cards a full turn, slots 1..n" % per_turn, str(problems))
	var full := 0
	for event in events:
		if event[0] == "turn_ended" and not event[1][2] and event[1][1] == per_turn:
			full += 1
	t.check(full >= 1, "at least one full turn of %d cards" % per_turn, "%d full turns" % full)


func _check_cards() -> void:
	var seen := {}
	var repeats := []
	var mismatch := []
	var last := {}
	var drawn := 0
	for event in events:
		var args: Array = event[1]
		if event[0] == "card_drawn":
			drawn += 1
			var card: Dictionary = args[0]
			if seen.has(card["id"]):
				repeats.append(card["id"])
			seen[card["id"]] = true
			var order: Array = args[3]
			var indexes := range(card["opcoes"].size())
			var sorted_order := order.duplicate()
			sorted_order.sort()
			if sorted_order != indexes:
				mismatch.append("%s option_order %s" % [card["id"], str(order)])
			if not args[2].get("kind") in ["mandatory", "random"]:
				mismatch.append("%s reason %s" % [card["id"], str(args[2])])
			last = card
		elif event[0] == "option_applied":
			if args[0] != last.get("id") or args[1] < 0 or args[1] >= last["opcoes"].size():
				mismatch.append("option %s for %s" % [str(args), last.get("id")])
	t.check(drawn > 0, "cards were drawn", "%d cards" % drawn)
	t.check(repeats.empty(), "no card repeated", str(repeats))
	t.check(mismatch.empty(), "options and reasons well formed", str(mismatch))


func _check_ranges() -> void:
	var out := []
	for event in events:
		var meters := {}
		var actors := {}
		if event[0] == "option_applied":
			meters = event[1][2]
			actors = event[1][3]
		elif event[0] == "turn_ended":
			meters = event[1][3]
		for id in meters:
			if meters[id] < 0 or meters[id] > 100:
				out.append("%s=%s" % [id, str(meters[id])])
		for id in actors:
			var value = actors[id]["satisfaction"]
			if value < 0 or value > 100:
				out.append("%s=%s" % [id, str(value)])
	t.check(out.empty(), "meters and satisfactions in 0..100", str(out))


func _check_ending() -> void:
	if events.empty() or events[-1][0] != "match_ended":
		t.check(false, "ending consistent", "no match_ended")
		return
	var reason: String = events[-1][1][0]
	var ending: Dictionary = events[-1][1][1]
	var turns := _names().count("turn_ended")
	var ok := false
	if reason == "end_of_mandate":
		ok = int(ending["year"]) == 4 and turns == 4
	elif reason == "catastrophe":
		ok = ending.get("zeroed") != null and int(ending["meters"][ending["zeroed"]]) == 0
	t.check(ok, "ending consistent", "%s after %d turns: %s" % [reason, turns, str(ending)])
	print("MATCH seed=%d reason=%s cards=%d" % [seed_value, reason, int(ending["cards_played"])])
