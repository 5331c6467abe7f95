extends SceneTree
# Engine test of the demo's meter bars: colored by the GDD 06 thresholds, red at or below the
# emergency limit, orange below the meter limit, green otherwise; limits from the deck summary
# the node gives (a real match over the socket bridge), else the defaults 10 and 30.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_meters.gd
# Prints "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed, 1 otherwise.

const Checks = preload("lib/checks.gd")
const TIMEOUT_MS := 30000

var t = Checks.new()
var view: Node = null


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	view = load("res://scenes/meters_view.tscn").instance()
	root.add_child(view)
	var deck := {"medidores": [{"id": "a", "nome": "A"}, {"id": "b", "nome": "B"}]}
	var values := [0, 9, 10, 11, 29, 30, 31, 100]
	var expected := ["red", "red", "red", "orange", "orange", "green", "green", "green"]
	_check_levels(deck, values, expected, "defaults 10 and 30 without limits in the deck")
	deck["limite_emergencia"] = 20.0  # as Godot's JSON gives numbers
	deck["limite_medidor"] = 35.0
	expected = ["red", "red", "red", "red", "orange", "orange", "orange", "green"]
	_check_levels(deck, values, expected, "the deck's own limits 20 and 35")

	var started := OS.get_ticks_msec()
	while not sorteio.is_bridge_ready() and OS.get_ticks_msec() - started < TIMEOUT_MS:
		yield(self, "idle_frame")
	t.check(sorteio.is_bridge_ready(), "bridge up", sorteio.bridge_kind)
	sorteio.start_match(7, "")
	var info: Dictionary = sorteio.deck_info
	t.check(
		int(info.get("limite_emergencia", -1)) == 10 and int(info.get("limite_medidor", -1)) == 30,
		"the node's deck summary has the limits",
		str(info.get("limite_emergencia")) + " " + str(info.get("limite_medidor"))
	)
	t.check(
		view.emergency_limit == 10 and view.meter_limit == 30 and view.bar_colors().size() == 8,
		"the view took them from match_started",
		"%d %d %d" % [view.emergency_limit, view.meter_limit, view.bar_colors().size()]
	)
	var wrong := []
	var shown: Dictionary = view.bar_colors()
	for id in shown:
		if shown[id][1] != view.level_color(shown[id][0]):
			wrong.append(id)
	t.check(wrong.empty(), "every bar of the match has its level's color", str(wrong))
	print("BRIDGE %s" % sorteio.bridge_kind)
	t.finish(self)


# Driven through the autoload's own signals, as the node drives the view in a match.
func _check_levels(deck: Dictionary, values: Array, expected: Array, what: String) -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.emit_signal("match_started", 1, deck, {"meters": {}})
	var got := []
	for value in values:
		sorteio.emit_signal("option_applied", "c", 0, {"a": float(value), "b": 50.0}, {})
		got.append(_name(view.bar_colors()["a"][1]))
	t.check(got == expected, what, "%s -> %s" % [str(values), str(got)])


func _name(color: Color) -> String:
	if color == view.RED:
		return "red"
	if color == view.ORANGE:
		return "orange"
	if color == view.GREEN:
		return "green"
	return color.to_html(false)
