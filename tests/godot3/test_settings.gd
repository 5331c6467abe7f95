extends Node
# Settings made by the main scene's _ready reach the bridge the autoload starts, and a start-up
# failure is reported after the game connected (and stays queryable). Run as the main scene:
#   godot3-server --path godot3/demo_project /abs/path/tests/godot3/settings_scene.tscn
# Where pythonscript is installed, bridge_mode = "socket" set here must win over "auto", and a
# fresh node (auto: python) answers its first call at once. Prints "BRIDGE <kind>" of that node.

const Checks = preload("lib/checks.gd")
const HANGING := "hanging_python.sh"
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")
const PythonBridge = preload("res://addons/sorteio/bridges/python_bridge.gd")

var t = Checks.new()
var sorteio: Node = null


func _ready() -> void:
	sorteio = get_node("/root/Sorteio")
	t.check(sorteio.bridge_process_id() == -1, "nothing started before the first frame")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	var script_dir: String = get_script().resource_path.get_base_dir()
	sorteio.bridge_mode = "socket"  # the hanging interpreter below is the socket bridge's
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(HANGING))
	sorteio.startup_timeout_ms = 1200
	call_deferred("_run")


func _run() -> void:
	var started := OS.get_ticks_msec()
	t.check(sorteio.bridge_process_id() > 0, "the autostart ran after the game's settings")
	if PythonBridge.available():
		t.check(sorteio.bridge_kind == "socket", "bridge_mode set from code applied")
	yield(_wait_error(), "completed")
	var took := OS.get_ticks_msec() - started
	t.check(
		t.errors.size() == 1 and "within 1200 ms" in t.errors[0][0],
		"startup_timeout_ms set from code applied",
		t.errors
	)
	t.check(took < 4000, "python_executable set from code applied (it hung)", "%d ms" % took)
	t.check(sorteio.is_bridge_failed(), "is_bridge_failed() after the timeout")
	t.check(sorteio.bridge_process_id() == -1, "no PID after the failure")
	# A late listener learns it from the state; a call says why.
	t.errors.clear()
	t.check(not sorteio.start_turn(), "a call after the failure fails")
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "...with bridge_down", t.errors
	)
	# autostart_bridge = false and a call in the first frame of a fresh node: started lazily.
	var fresh: Node = SorteioNode.new()
	fresh.python_executable = OS.get_environment("SORTEIO_PYTHON")
	get_tree().root.add_child(fresh)
	fresh.connect("error_occurred", t, "on_error_occurred")
	t.errors.clear()
	if PythonBridge.available():
		# In-process: up as soon as it starts, so the first call itself is answered.
		t.check(
			fresh.start_match(1, "padrao"), "an in-process first-frame call is answered", t.errors
		)
		t.check(fresh.bridge_kind == "python", "...and starts the bridge lazily", fresh.bridge_kind)
	else:
		# Over the socket too (since 0.2.0): the call waits for the server it started.
		t.check(fresh.start_match(1, "padrao"), "a socket first-frame call waits and is answered")
		t.check(t.errors.empty(), "...with no error", t.errors)
		t.check(fresh.bridge_process_id() > 0, "...and starts the bridge lazily")
	var deadline := OS.get_ticks_msec() + 15000
	while not fresh.is_bridge_ready() and OS.get_ticks_msec() < deadline:
		yield(get_tree(), "idle_frame")
	t.check(fresh.start_match(1, "padrao"), "the lazily started bridge plays")
	print("BRIDGE %s" % fresh.bridge_kind)
	fresh.queue_free()
	var off: Node = SorteioNode.new()
	off.autostart_bridge = false
	get_tree().root.add_child(off)
	yield(get_tree(), "idle_frame")
	yield(get_tree(), "idle_frame")
	t.check(
		off.bridge_process_id() == -1 and off.bridge_kind == "" and not off.is_bridge_ready(),
		"autostart_bridge = false starts nothing"
	)
	off.queue_free()
	t.finish(get_tree())


func _wait_error(timeout_ms := 20000):
	var deadline := OS.get_ticks_msec() + timeout_ms
	yield(get_tree(), "idle_frame")
	while t.errors.empty() and OS.get_ticks_msec() < deadline:
		yield(get_tree(), "idle_frame")
