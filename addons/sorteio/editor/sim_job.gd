@tool
extends RefCounted
## One simulation job on the Python side, as the Simulação tab and the per-card study both run
## it (editor only): [code]simulate_start[/code], then [code]simulate_step[/code] a frame at a
## time (the editor stays responsive) until the job is finished, or [code]simulate_cancel[/code]
## when stopped. The figures are Python's; this only drives the job.

const Link := preload("res://addons/sorteio/editor/panel_link.gd")
## Milliseconds Python works per step: short enough for the editor to draw between steps.
const STEP_BUDGET_MS := 60

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
	while _id > 0:
		var step := await _link.request("simulate_step", {"job": _id, "budget_ms": STEP_BUDGET_MS})
		if _id < 0:
			return  # stopped meanwhile
		if not _link.answer(_action, step, false):
			_id = -1
			return
		var data: Dictionary = step["result"]
		on_progress.call(data)
		if data["finished"]:
			_id = -1
			_link.results[_action] = data["result"]
			on_result.call(data["result"])
			_link.action_finished.emit(_action, true)
			return
		await _link.panel.get_tree().process_frame


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
