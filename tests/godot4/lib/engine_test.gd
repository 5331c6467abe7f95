extends SceneTree
## Base of every Godot 4 engine scenario (tests/godot4/*.gd): checks, awaiting a signal with a
## timeout, and quitting with a status the Python side (tests/godot4_harness.py) reads.
##
## A scenario extends this file by path and overrides [method scenario] (it may [code]await[/code]):
## [codeblock]
## extends "res://tests/lib/engine_test.gd"
##
## func scenario() -> void:
##     var sorteio: Node = autoload("Sorteio")
##     var args: Array = await wait_for(sorteio.bridge_ready, 20.0)
##     check(args.size() == 1, "bridge_ready carries the kind", str(args))
## [/codeblock]
## It runs after the first frame (autoloads are in the tree and ready). Each check prints
## [code]CHECK ok NAME[/code] or [code]CHECK FAIL NAME: DETAIL[/code]; at the end the script prints
## [code]GODOT-TEST passed[/code] or [code]GODOT-TEST failed[/code] and quits with 0 or 1. A
## scenario still running after [member time_limit_s] fails and quits.

## Seconds the whole scenario may take before it fails (override in _init, or --time-limit=S).
var time_limit_s: float = 120.0
## Checks that failed so far.
var failures: int = 0
## True when the last [method wait_for] ended by its timeout, not by the signal.
var timed_out: bool = false
var _finished: bool = false


## Receives one emission of any signal (up to 6 arguments) for [method wait_for].
class SignalWaiter:
	extends RefCounted
	signal done
	var args: Array = []
	var fired: bool = false
	var count: int = 0

	func on_signal(
		a0: Variant = null,
		a1: Variant = null,
		a2: Variant = null,
		a3: Variant = null,
		a4: Variant = null,
		a5: Variant = null
	) -> void:
		if fired:
			return
		fired = true
		args = [a0, a1, a2, a3, a4, a5].slice(0, count)
		done.emit()

	func on_timeout() -> void:
		done.emit()


func _initialize() -> void:
	time_limit_s = float(arg("time-limit", str(time_limit_s)))
	create_timer(time_limit_s, true, false, true).timeout.connect(_on_time_limit)
	_begin.call_deferred()


## The scenario: override it. Awaiting inside is fine; the test ends when it returns.
func scenario() -> void:
	pass


func _begin() -> void:
	await process_frame
	@warning_ignore("redundant_await")  # a scenario that never awaits is fine too
	await scenario()
	finish()


## Prints one check line; returns [param ok] so a scenario can stop early on a failed check.
func check(ok: bool, name: String, detail: String = "") -> bool:
	if ok:
		print("CHECK ok %s" % name)
	else:
		failures += 1
		print("CHECK FAIL %s: %s" % [name, detail])
	return ok


## Awaits one emission of [param sig] for at most [param timeout_s] seconds and returns its
## arguments. On a timeout it records a failed check named [param what] (default: the
## signal's name), sets [member timed_out] and returns [code][][/code].
func wait_for(sig: Signal, timeout_s: float = 20.0, what: String = "") -> Array:
	var waiter := SignalWaiter.new()
	waiter.count = _argument_count(sig)
	sig.connect(waiter.on_signal, CONNECT_ONE_SHOT)
	create_timer(timeout_s, true, false, true).timeout.connect(waiter.on_timeout)
	await waiter.done
	timed_out = not waiter.fired
	if timed_out:
		if sig.is_connected(waiter.on_signal):
			sig.disconnect(waiter.on_signal)
		var name: String = what if what != "" else "%s came" % sig.get_name()
		check(false, name, "not within %.1f s" % timeout_s)
	return waiter.args


## Lets [param count] frames run.
func wait_frames(count: int) -> void:
	for _frame: int in range(count):
		await process_frame


## The autoload [param name] (e.g. "Sorteio"), or null with a failed check when it is missing.
func autoload(name: String) -> Node:
	var node: Node = root.get_node_or_null(name)
	if node == null:
		check(false, "autoload %s exists" % name, "no /root/%s" % name)
	return node


## The value of the user argument [code]--NAME=VALUE[/code] (after [code]--[/code] on the
## command line), or [param default] when it is not given.
func arg(name: String, default: String = "") -> String:
	for given: String in OS.get_cmdline_user_args():
		if given.begins_with("--%s=" % name):
			return given.split("=", true, 1)[1]
		if given == "--%s" % name:
			return "true"
	return default


## Ends the test: prints GODOT-TEST passed|failed and quits with 0 or 1. Once only.
func finish() -> void:
	if _finished:
		return
	_finished = true
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _on_time_limit() -> void:
	check(false, "scenario ends within its time limit", "%.0f s passed" % time_limit_s)
	finish()


func _argument_count(sig: Signal) -> int:
	for described: Dictionary in sig.get_object().get_signal_list():
		if described["name"] == sig.get_name():
			return (described["args"] as Array).size()
	return 0
