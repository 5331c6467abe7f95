extends Node
# Settings made by the main scene's _ready reach the bridge the autoload starts, and a start-up
# failure is reported after the game connected (and stays queryable). Run as the main scene:
#   godot3-server --path godot3/demo_project /abs/path/tests/godot3/settings_scene.tscn
# Where pythonscript is installed, bridge_mode = "socket" set here must win over "auto", and a
# fresh node (auto: python) answers its first call at once. Prints "BRIDGE <kind>" of that node.

const HANGING := "hanging_python.sh"
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")
const PythonBridge = preload("res://addons/sorteio/bridges/python_bridge.gd")

var failures := 0
var errors := []
var sorteio: Node = null


func _ready() -> void:
	sorteio = get_node("/root/Sorteio")
	_check(sorteio.bridge_process_id() == -1, "nothing started before the first frame")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	var script_dir: String = get_script().resource_path.get_base_dir()
	sorteio.bridge_mode = "socket"  # the hanging interpreter below is the socket bridge's
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(HANGING))
	sorteio.startup_timeout_ms = 1200
	call_deferred("_run")


func _run() -> void:
	var started := OS.get_ticks_msec()
	_check(sorteio.bridge_process_id() > 0, "the autostart ran after the game's settings")
	if PythonBridge.available():
		_check(sorteio.bridge_kind == "socket", "bridge_mode set from code applied")
	yield(_wait_error(), "completed")
	var took := OS.get_ticks_msec() - started
	_check(
		errors.size() == 1 and "within 1200 ms" in errors[0][0],
		"startup_timeout_ms set from code applied",
		errors
	)
	_check(took < 4000, "python_executable set from code applied (it hung)", "%d ms" % took)
	_check(sorteio.is_bridge_failed(), "is_bridge_failed() after the timeout")
	_check(sorteio.bridge_process_id() == -1, "no PID after the failure")
	# A late listener learns it from the state; a call says why.
	errors.clear()
	_check(not sorteio.start_turn(), "a call after the failure fails")
	_check(errors.size() == 1 and errors[0][1] == "bridge_down", "...with bridge_down", errors)
	# autostart_bridge = false and a call in the first frame of a fresh node: started lazily.
	var fresh: Node = SorteioNode.new()
	fresh.python_executable = OS.get_environment("SORTEIO_PYTHON")
	get_tree().root.add_child(fresh)
	fresh.connect("error_occurred", self, "_on_error_occurred")
	errors.clear()
	if PythonBridge.available():
		# In-process: up as soon as it starts, so the first call itself is answered.
		_check(fresh.start_match(1, "padrao"), "an in-process first-frame call is answered", errors)
		_check(fresh.bridge_kind == "python", "...and starts the bridge lazily", fresh.bridge_kind)
	else:
		_check(not fresh.start_match(1, "padrao"), "a first-frame call fails fast")
		_check(
			errors.size() == 1 and errors[0][1] == "bridge_not_ready",
			"...with bridge_not_ready",
			errors
		)
		_check(fresh.bridge_process_id() > 0, "...and starts the bridge lazily")
	var deadline := OS.get_ticks_msec() + 15000
	while not fresh.is_bridge_ready() and OS.get_ticks_msec() < deadline:
		yield(get_tree(), "idle_frame")
	_check(fresh.start_match(1, "padrao"), "the lazily started bridge plays")
	print("BRIDGE %s" % fresh.bridge_kind)
	fresh.queue_free()
	var off: Node = SorteioNode.new()
	off.autostart_bridge = false
	get_tree().root.add_child(off)
	yield(get_tree(), "idle_frame")
	yield(get_tree(), "idle_frame")
	_check(
		off.bridge_process_id() == -1 and off.bridge_kind == "" and not off.is_bridge_ready(),
		"autostart_bridge = false starts nothing"
	)
	off.queue_free()
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	get_tree().quit(0 if failures == 0 else 1)


func _wait_error(timeout_ms := 20000):
	var deadline := OS.get_ticks_msec() + timeout_ms
	yield(get_tree(), "idle_frame")
	while errors.empty() and OS.get_ticks_msec() < deadline:
		yield(get_tree(), "idle_frame")


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([message, code])
