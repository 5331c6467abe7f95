extends Reference
# The shared helpers of the Godot 3 engine scripts (tests/godot3/*.gd), so no script carries its
# own copy: CHECK lines, the errors a SorteioNode reported, waiting for a bridge, the final
# GODOT-TEST line and exit code that tests/test_godot_engine.py reads. Works for SceneTree
# scripts (-s) and scene scripts alike:
#   const Checks = preload("lib/checks.gd")
#   var t = Checks.new()
#   sorteio.connect("error_occurred", t, "on_error_occurred")
#   yield(t.wait_ready(tree, sorteio), "completed")
#   t.check(ok, "what was checked", detail)
#   t.finish(tree)  # prints "GODOT-TEST passed|failed", quits 0 or 1

var failures := 0
# [message, code] of every error_occurred the node(s) connected to on_error_occurred emitted.
var errors := []


# Prints "CHECK ok|FAIL name: detail"; a FAIL makes finish() quit 1.
func check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)


func on_error_occurred(message: String, code: String) -> void:
	errors.append([message, code])


# True when exactly one error was reported, with `code`.
func one_error(code: String) -> bool:
	return errors.size() == 1 and errors[0][1] == code


# Waits (a coroutine: yield(..., "completed")) until `node`'s bridge is up or failed, or the
# last error reported is bridge_down, at most timeout_ms.
func wait_ready(tree: SceneTree, node: Node, timeout_ms := 20000):
	var deadline := OS.get_ticks_msec() + timeout_ms
	yield(tree, "idle_frame")
	while not node.is_bridge_ready() and not node.is_bridge_failed():
		if (
			OS.get_ticks_msec() > deadline
			or (not errors.empty() and errors[-1][1] == "bridge_down")
		):
			break
		yield(tree, "idle_frame")


# Prints the line the pytest side looks for and quits with 0 (all passed) or 1.
func finish(tree: SceneTree) -> void:
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	tree.quit(0 if failures == 0 else 1)


# The value of `--name=value` after `--` on the command line ("" when absent).
static func arg(name: String) -> String:
	for given in OS.get_cmdline_args():
		if given.begins_with("--%s=" % name):
			return given.split("=", true, 1)[1]
	return ""


# How many colours a screenshot shows, sampled every 6 pixels (a blank or one-colour picture
# gives 1 or 2).
static func count_colours(image: Image) -> int:
	var seen := {}
	image.lock()
	for y in range(0, image.get_height(), 6):
		for x in range(0, image.get_width(), 6):
			seen[image.get_pixel(x, y).to_html(false)] = true
	image.unlock()
	return seen.size()
