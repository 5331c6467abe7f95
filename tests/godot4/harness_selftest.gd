extends "res://tests/lib/engine_test.gd"
## The harness's own test (tests/test_godot4_harness.py): checks, wait_for with and without a
## timeout, user arguments; --mode=fail fails a check, --mode=warn pushes a warning.

signal pinged(value: int, label: String)


func scenario() -> void:
	check(arg("mode", "none") != "", "arguments are read", arg("mode"))
	get_root().get_tree().create_timer(0.1).timeout.connect(func() -> void: pinged.emit(7, "x"))
	var args: Array = await wait_for(pinged, 5.0)
	check(args == [7, "x"], "wait_for hands the signal's arguments", str(args))
	await wait_for(pinged, 0.2, "a signal nobody emits")
	# The timeout above is a failed check on purpose; undo its count, keep the line.
	check(timed_out, "wait_for times out")
	failures -= 1
	match arg("mode"):
		"fail":
			check(false, "a failing check", "on purpose")
		"warn":
			push_warning("a warning the harness must see")
