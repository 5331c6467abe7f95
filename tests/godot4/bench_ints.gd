extends SceneTree
## Benchmark helper (benchmarks/bench_godot4_ints.py; not a test): the cost per reply of turning
## whole numbers into ints, on a real draw reply (--reply=PATH, its JSON text), N times
## (--rounds=N): Godot's JSON parse alone; parse + SorteioBridge.whole_numbers_as_ints (once, as
## every bridge does now); parse + the two walks an in-process reply had before (the bridge's
## recursive walk, then the node's own), kept here only to compare. Prints BENCH lines (µs).


func _initialize() -> void:
	var path: String = ""
	var rounds: int = 2000
	for given: String in OS.get_cmdline_user_args():
		if given.begins_with("--reply="):
			path = given.substr(8)
		elif given.begins_with("--rounds="):
			rounds = int(given.substr(9))
	var text: String = FileAccess.get_file_as_string(path)
	var parse_only: float = _time(text, rounds, 0)
	var once: float = _time(text, rounds, 1)
	var twice: float = _time(text, rounds, 2)
	print("BENCH bytes %d" % text.length())
	print("BENCH rounds %d" % rounds)
	print("BENCH parse_us %.2f" % parse_only)
	print("BENCH once_us %.2f" % once)
	print("BENCH twice_us %.2f" % twice)
	quit(0)


func _time(text: String, rounds: int, walks: int) -> float:
	var started: int = Time.get_ticks_usec()
	for _round: int in rounds:
		var reply: Variant = JSON.parse_string(text)
		if walks == 1:
			SorteioBridge.whole_numbers_as_ints(reply)
		elif walks == 2:
			_ints(_recursive(reply))
	return float(Time.get_ticks_usec() - started) / rounds


# The bridge's walk before (a call per value, every item written back).
static func _recursive(value: Variant) -> Variant:
	match typeof(value):
		TYPE_FLOAT:
			var number: float = value
			if number == floorf(number) and absf(number) <= 9007199254740992.0:
				return int(number)
			return number
		TYPE_DICTIONARY:
			var dictionary: Dictionary = value
			for key: Variant in dictionary:
				dictionary[key] = _recursive(dictionary[key])
			return dictionary
		TYPE_ARRAY:
			var array: Array = value
			for index: int in array.size():
				array[index] = _recursive(array[index])
			return array
	return value


# The node's own walk before, as it was (on the reply the bridge had already converted).
static func _ints(value: Variant) -> Variant:
	# Hot path (every reply, ~1.5 KB for a draw): no Array literal per item, floats done inline.
	var kind: int = typeof(value)
	if kind == TYPE_FLOAT:
		var number: float = value
		if number == floorf(number) and absf(number) < 9.0e15:
			return int(number)
	elif kind == TYPE_DICTIONARY:
		var dictionary: Dictionary = value
		for key: Variant in dictionary:
			var item: Variant = dictionary[key]
			var item_kind: int = typeof(item)
			if item_kind == TYPE_FLOAT:
				var number: float = item
				if number == floorf(number) and absf(number) < 9.0e15:
					dictionary[key] = int(number)
			elif item_kind == TYPE_DICTIONARY or item_kind == TYPE_ARRAY:
				_ints(item)
	elif kind == TYPE_ARRAY:
		var array: Array = value
		for at: int in array.size():
			var item: Variant = array[at]
			var item_kind: int = typeof(item)
			if item_kind == TYPE_FLOAT:
				var number: float = item
				if number == floorf(number) and absf(number) < 9.0e15:
					array[at] = int(number)
			elif item_kind == TYPE_DICTIONARY or item_kind == TYPE_ARRAY:
				_ints(item)
	return value
