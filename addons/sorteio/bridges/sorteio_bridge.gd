class_name SorteioBridge
extends RefCounted
## How a [SorteioNode] reaches the Python rules: the base every bridge extends.
##
## A bridge carries the JSON requests of the sorteio protocol (docs/protocol.md) to Python's
## request handler ([code]sorteio.bridge.handler[/code]) and brings the replies back. The node
## owns one bridge at a time and knows nothing of how it talks: the socket bridge
## ([code]socket_bridge.gd[/code], a loopback TCP connection to [code]sorteio serve[/code] or the
## frozen server) and the in-process bridge ([code]python_bridge.gd[/code], the Python
## GDExtension's own interpreter) both extend this class, and so does the scripted test double
## ([code]scripted_bridge.gd[/code]). No rule of the GDD lives in a bridge.
##
## Life cycle: [method start] once; then the node calls [method poll] every frame until
## [method is_ready] or [method has_failed]; then [method request] any number of times;
## [method close] at the end (a closed bridge is never started again: make a new one).

## Emitted once when start-up ends well (the handler answers requests).
@warning_ignore("unused_signal")  # emitted by the bridges that extend this class
signal became_ready
## Emitted once when start-up fails, or later when the bridge is lost (the server died):
## [param message] says what happened and what to do, in a sentence a game programmer can act on.
@warning_ignore("unused_signal")
signal failed(message: String)

# 2^53: up to here every whole number is exactly a float, so the int made of one is exact too.
const _LARGEST_EXACT: float = 9007199254740992.0

# The wakers of this bridge's requests waiting now (weak: each is held by its frame connection).
var _wakers: Array[WeakRef] = []


## Wakes one waiting request once a frame, and at once when its bridge closes
## ([method SorteioBridge.wake_waiters]). A request that waits for frames awaits [signal woke]
## instead of [signal SceneTree.process_frame]: when the node that made it is freed, its bridge
## closes and the request ends inside that close, while the node's own suspended calls can still
## resume, so nothing of them outlives the node (a call cleared by the node's deletion while its
## bridge still waited left the bridge, its scripts and two function states alive to the exit:
## "ERROR: 2 resources still in use at exit"). The SceneTree's frame connection holds the
## waker (a bound argument), not the bridge: a bridge dropped unclosed is freed at exit as before.
class FrameWaker:
	extends RefCounted
	## Once a frame while started, and once from [method wake].
	signal woke

	var _tree: SceneTree = null

	## Emits [signal woke] once a frame of [param tree] until [method stop] or [method wake].
	func start(tree: SceneTree) -> void:
		_tree = tree
		# Bound to itself: the connection holds the waker while it waits (the waker keeps no
		# Callable of itself, which would be a cycle).
		tree.process_frame.connect(_on_frame.bind(self))

	## Stops the frames (the waiting request is done).
	func stop() -> void:
		if _tree == null:
			return
		for connection: Dictionary in _tree.process_frame.get_connections():
			var callable: Callable = connection["callable"]
			if callable.get_object() == self:
				_tree.process_frame.disconnect(callable)
		_tree = null

	## Stops the frames and emits [signal woke] now (its bridge closed).
	func wake() -> void:
		stop()
		woke.emit()

	func _on_frame(_held: RefCounted) -> void:
		woke.emit()


## The bridge's kind as [constant SorteioNode.BRIDGE_SOCKET], [constant SorteioNode.BRIDGE_PYTHON]
## or "scripted".
func kind() -> String:
	return ""


## Begins start-up without blocking the frame. [param owner] is the node (a bridge that needs the
## scene tree, to await frames or to add a child, reaches it through it). Returns false when it
## cannot even begin; [method failure] then says why.
func start(_owner: Node) -> bool:
	return false


## Moves start-up on; called by the node every frame until ready or failed. Returns
## [method is_ready].
func poll() -> bool:
	return is_ready()


## True once requests can be made.
func is_ready() -> bool:
	return false


## True once start-up failed or the bridge was lost.
func has_failed() -> bool:
	return false


## Why the bridge failed ("" when it did not).
func failure() -> String:
	return ""


## Sends one request and returns its reply: [code]{"ok": true, "result": {...}}[/code] or
## [code]{"ok": false, "error": {"code": String, "message": String}}[/code] (codes in
## docs/protocol.md; a bridge that is down answers [code]bridge_down[/code]).
## Its whole numbers are [int]s ([method whole_numbers_as_ints]), as Python wrote them: a bridge
## that reads JSON (which gives floats) passes its reply through [method parse_reply] or
## [method whole_numbers_as_ints], and the node takes it as it comes.
## Always call it with [code]await[/code]: a fast request (a draw) completes without waiting a
## frame, and a slow one (a 30,000-card deck's [code]new_match[/code]) lets frames run until
## its reply comes, on every bridge.
func request(_method: String, _params: Dictionary) -> Dictionary:
	return {
		"ok": false, "error": {"code": "bridge_down", "message": SorteioI18n.t("nenhuma ponte")}
	}


## The largest request this bridge carries, in bytes of JSON (-1: no limit, as in-process): a
## deck's text bigger than that goes as a file instead (docs/protocol.md, [code]deck_text[/code]).
func max_request_bytes() -> int:
	return -1


## True when the handler behind this bridge reads a deck's text sent in the request
## ([code]deck_text[/code], docs/protocol.md "Decks sent as text"); false for an older
## [code]sorteio serve[/code], which says nothing of it: the node then sends such a deck as a
## [code]user://[/code] copy, as it does a deck too big for one request.
func takes_deck_text() -> bool:
	return true


## Ends the bridge: the server or the Python side stops, its files are removed.
func close() -> void:
	pass


## A [FrameWaker] for one request that waits for frames: await its [signal FrameWaker.woke]
## (once a frame), then call its [method FrameWaker.stop] when done. [method close] must call
## [method wake_waiters]: the request then resumes within the close and sees its bridge closed.
func frame_waker() -> FrameWaker:
	var live: Array[WeakRef] = []
	for known: WeakRef in _wakers:
		if known.get_ref() != null:
			live.append(known)
	var waker := FrameWaker.new()
	waker.start(Engine.get_main_loop() as SceneTree)
	live.append(weakref(waker))
	_wakers = live
	return waker


## Resumes every request of this bridge waiting for frames, now (from [method close]: each then
## finds its bridge closed and ends with an error reply).
func wake_waiters() -> void:
	var waiting: Array[WeakRef] = _wakers
	_wakers = []
	for known: WeakRef in waiting:
		var waker: FrameWaker = known.get_ref()
		if waker != null:
			waker.wake()


## A failed reply in the protocol's shape.
static func error_reply(code: String, message: String) -> Dictionary:
	return {"ok": false, "error": {"code": code, "message": message}}


## A reply's JSON text as the protocol's Dictionary, or a [code]bridge_down[/code] reply when it
## is not a JSON object. Godot 4's JSON reads every number as a float; the protocol's numbers
## that are whole (counters, meters, years, the RNG state of a save) come back as [int], so a
## saved state sent back to Python is the state Python wrote (Python refuses 5.0 for an int).
static func parse_reply(text: String) -> Dictionary:
	var parsed: Variant = JSON.parse_string(text)
	if not parsed is Dictionary:
		return error_reply(
			"bridge_down", SorteioI18n.t("o lado Python respondeu algo que não é JSON")
		)
	return whole_numbers_as_ints(parsed)


## [param value] with every whole float inside it (of at most 2^53 in size, where a float is
## exact) turned into an [int], in place for Dictionaries and Arrays (walked to any depth);
## other values kept. The one place the addon does this: each bridge's reply passes through it
## once (the in-process and socket bridges as they parse, the scripted bridge as it takes its
## script), and [method SorteioNode.load_state] passes a save read back from JSON through it.
static func whole_numbers_as_ints(value: Variant) -> Variant:
	# Hot path (every reply, ~1.5 KB for a draw): items are handled inline, a container only
	# recursed into, and an item written back only when it changes.
	var value_type: int = typeof(value)
	if value_type == TYPE_FLOAT:
		var number: float = value
		if number == floorf(number) and absf(number) <= _LARGEST_EXACT:
			return int(number)
	elif value_type == TYPE_DICTIONARY:
		var dictionary: Dictionary = value
		for key: Variant in dictionary:
			var item: Variant = dictionary[key]
			var item_type: int = typeof(item)
			if item_type == TYPE_FLOAT:
				var number: float = item
				if number == floorf(number) and absf(number) <= _LARGEST_EXACT:
					dictionary[key] = int(number)
			elif item_type == TYPE_DICTIONARY or item_type == TYPE_ARRAY:
				whole_numbers_as_ints(item)
	elif value_type == TYPE_ARRAY:
		var array: Array = value
		for at: int in array.size():
			var item: Variant = array[at]
			var item_type: int = typeof(item)
			if item_type == TYPE_FLOAT:
				var number: float = item
				if number == floorf(number) and absf(number) <= _LARGEST_EXACT:
					array[at] = int(number)
			elif item_type == TYPE_DICTIONARY or item_type == TYPE_ARRAY:
				whole_numbers_as_ints(item)
	return value
