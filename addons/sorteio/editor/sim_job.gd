@tool
extends RefCounted
## One simulation job on the Python side, as the Simulação tab and the per-card study both run
## it (editor only): [code]simulate_start[/code], then [code]simulate_step[/code] after
## [code]simulate_step[/code] until the job is finished, or [code]simulate_cancel[/code] when
## stopped. The figures are Python's; this only drives the job.
##
## How long each step works (its [code]budget_ms[/code]) adapts to what the editor costs
## between steps (issue 15: the per-card study took 126-176 s in the panel, ~19 s in the CLI):
## measured under Xvfb (benchmarks/bench_panel_percard.py), a fixed 60 ms step left Python
## working 28% of the wall time, as every step was followed by an editor frame that redrew the
## progress (~170 ms in software OpenGL). Now each step's budget is [constant PYTHON_SHARE] of
## the cycle: the time between two steps that Python did not work (its reply's
## [code]step_ms[/code]) sets the next budget.
## On the socket bridge Python is another process and the editor keeps drawing frames while it
## works, so the budget may be long ([constant MAX_BUDGET_MS]); on the in-process bridge a step
## runs inside the editor's frame, so it stays at most [constant MAX_BLOCKING_BUDGET_MS] (the
## editor still redraws several times a second). A step answered in place (in-process) is
## followed by one editor frame; one whose reply took frames already goes on at once.

const Link := preload("res://addons/sorteio/editor/panel_link.gd")
## The first step's budget and the least one (ms), the former fixed one.
const MIN_BUDGET_MS := 60
## The most one step works when Python runs outside the editor's frame (socket bridge), ms.
const MAX_BUDGET_MS := 1000
## The most one step works inside the editor's frame (in-process bridge), ms.
const MAX_BLOCKING_BUDGET_MS := 200
## The share of the wall time the budget aims to give Python.
const PYTHON_SHARE := 0.9

## False: the former fixed 60 ms budget and one editor frame after every step (kept for
## benchmarks/bench_panel_percard.py, which compares both in one run).
var adaptive: bool = true
## The last run's figures, for benchmarks and tests: {steps, python_ms (what the replies
## say Python worked), request_ms and request_frames (awaiting the replies), wall_ms (first
## step sent to last reply), frames (editor frames meanwhile), budget_ms_last, budget_ms_max,
## reply_chars_max (a progress reply's JSON)}.
var stats: Dictionary = {}

var _link: Link
var _action: String
var _id: int = -1


## [param action]: the name the results and [signal Link.action_finished] carry
## ([code]simulate[/code] or [code]percard[/code]).
func _init(link: Link, action: String) -> void:
	_link = link
	_action = action


## Runs a job of [param params] ([code]simulate_start[/code]'s). [param on_start] gets the
## start's reply first (ok or not); [param on_progress] each step's data ({done, total, ...});
## [param on_result] the finished result, after it is stored in [member Link.results] and
## before [signal Link.action_finished] says so. A failure or a stop ends it without a result.
func run(
	params: Dictionary, on_start: Callable, on_progress: Callable, on_result: Callable
) -> void:
	var reply := await _link.request("simulate_start", params)
	on_start.call(reply)
	if not _link.answer(_action, reply, false):
		return
	_id = int(reply["result"]["job"])
	var budget := MIN_BUDGET_MS
	var began := Time.get_ticks_usec()
	var first_frame := Engine.get_process_frames()
	stats = {
		"steps": 0,
		"python_ms": 0.0,
		"request_ms": 0.0,
		"request_frames": 0,
		"budget_ms_max": budget,
		"reply_chars_max": 0
	}
	var sent := began
	while _id > 0:
		var frame := Engine.get_process_frames()
		var asked := Time.get_ticks_usec()
		var step := await _link.request("simulate_step", {"job": _id, "budget_ms": budget})
		stats["request_ms"] += (Time.get_ticks_usec() - asked) / 1000.0
		stats["request_frames"] += Engine.get_process_frames() - frame
		if _id < 0:
			return  # stopped meanwhile
		if not _link.answer(_action, step, false):
			_id = -1
			return
		var data: Dictionary = step["result"]
		var python_ms := float(data.get("step_ms", budget))
		_count(data, python_ms, budget, began, first_frame)
		on_progress.call(data)
		if data["finished"]:
			_id = -1
			_link.results[_action] = data["result"]
			on_result.call(data["result"])
			_link.action_finished.emit(_action, true)
			return
		if not adaptive or Engine.get_process_frames() == frame:
			await _link.panel.get_tree().process_frame  # answered in place: let the editor draw
		if adaptive:
			var now := Time.get_ticks_usec()
			budget = _next_budget((now - sent) / 1000.0, python_ms)
			sent = now


## Stops a running job; [param said] goes to the status line.
func stop(said: String) -> void:
	if _id > 0:
		var job := _id
		_id = -1
		await _link.request("simulate_cancel", {"job": job})
		_link.set_status(said)
		_link.action_finished.emit(_action, false)


## True while a job runs.
func is_running() -> bool:
	return _id > 0


## The next step's budget (ms) from the last cycle: [param cycle_ms] from sending a step to
## sending the next, of which Python worked [param python_ms].
func _next_budget(cycle_ms: float, python_ms: float) -> int:
	var overhead := maxf(cycle_ms - python_ms, 1.0)
	var most := MAX_BUDGET_MS
	if _link.bridge != null and _link.bridge.kind() != "socket":
		most = MAX_BLOCKING_BUDGET_MS
	return clampi(int(overhead * PYTHON_SHARE / (1.0 - PYTHON_SHARE)), MIN_BUDGET_MS, most)


func _count(data: Dictionary, python_ms: float, budget: int, began: int, first: int) -> void:
	stats["steps"] += 1
	stats["python_ms"] += python_ms
	stats["wall_ms"] = (Time.get_ticks_usec() - began) / 1000.0
	stats["frames"] = Engine.get_process_frames() - first
	stats["budget_ms_last"] = budget
	stats["budget_ms_max"] = maxi(stats["budget_ms_max"], budget)
	if not data["finished"]:
		stats["reply_chars_max"] = maxi(stats["reply_chars_max"], JSON.stringify(data).length())
