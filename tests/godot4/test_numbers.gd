extends "res://tests/lib/engine_test.gd"
## Whole numbers in replies (issue 13): Godot's JSON gives floats, the protocol's numbers that are
## whole come back as ints, converted by one function (SorteioBridge.whole_numbers_as_ints) once
## per reply. Exact up to 2^53 (where every whole number is a float); a fraction, and a number
## past 2^53, stay floats. The scripted bridge converts its script once, as it takes it, so its
## replies and its script_mismatch messages show 1, not 1.0.


func scenario() -> void:
	var value: Dictionary = {
		"year": 2.0,
		"ratio": 2.5,
		"nested": [1.0, [3.0, {"deep": 4.0}], "5"],
		"exact": 9007199254740992.0,
		"past": 18014398509481984.0,
		"negative": -7.0,
	}
	var same: Variant = SorteioBridge.whole_numbers_as_ints(value)
	check(is_same(same, value), "containers are converted in place")
	check(typeof(value["year"]) == TYPE_INT and value["year"] == 2, "2.0 -> 2", str(value))
	check(typeof(value["ratio"]) == TYPE_FLOAT, "2.5 stays a float", str(value))
	var nested: Array = value["nested"]
	var inner: Array = nested[1]
	var deep: Dictionary = inner[1]
	check(
		typeof(nested[0]) == TYPE_INT and typeof(inner[0]) == TYPE_INT,
		"Arrays inside are walked",
		str(nested)
	)
	check(typeof(deep["deep"]) == TYPE_INT, "Dictionaries inside Arrays are walked", str(deep))
	check(typeof(nested[2]) == TYPE_STRING, "text is kept", str(nested))
	check(
		typeof(value["exact"]) == TYPE_INT and value["exact"] == 9007199254740992,
		"2^53 is exact, an int",
		str(value["exact"])
	)
	check(typeof(value["past"]) == TYPE_FLOAT, "past 2^53 stays a float", str(value["past"]))
	check(typeof(value["negative"]) == TYPE_INT, "negative whole numbers too", str(value))
	check(
		typeof(SorteioBridge.whole_numbers_as_ints(3.0)) == TYPE_INT,
		"a bare float is returned as an int"
	)

	var parsed: Dictionary = SorteioBridge.parse_reply('{"ok": true, "result": {"slot": 4}}')
	check(typeof(parsed["result"]["slot"]) == TYPE_INT, "parse_reply gives ints", str(parsed))
	check(
		SorteioBridge.parse_reply("[1]")["error"]["code"] == "bridge_down",
		"parse_reply refuses a reply that is not a JSON object"
	)

	var recording: Variant = JSON.parse_string(
		(
			'{"format": "sorteio-recording/1", "exchanges": ['
			+ '{"method": "choose", "params": {"option": 1},'
			+ ' "reply": {"ok": true, "result": {"snapshot": {"year": 2, "slot": 3}}}},'
			+ '{"method": "choose", "params": {"option": 1}, "reply": {"ok": true, "result": {}}}]}'
		)
	)
	var scripted: SorteioScriptedBridge = SorteioScriptedBridge.from_recording(recording)
	scripted.start(null)
	var reply: Dictionary = scripted.request("choose", {"option": 1})
	var snapshot: Dictionary = reply["result"]["snapshot"]
	check(
		typeof(snapshot["year"]) == TYPE_INT and typeof(snapshot["slot"]) == TYPE_INT,
		"the scripted bridge's replies from a JSON recording carry ints",
		str(snapshot)
	)
	var refused: Dictionary = scripted.request("choose", {"option": 0})
	var message: String = str(refused.get("error", {}).get("message", ""))
	check(
		message.contains("option=1,") and not message.contains("1.0"),
		"script_mismatch shows the recording's 1, not 1.0",
		message
	)
	scripted.add_reply("draw", {"snapshot": {"year": 1.0}})
	check(
		typeof(scripted.exchanges[-1]["reply"]["result"]["snapshot"]["year"]) == TYPE_INT,
		"add_reply takes whole floats as ints"
	)
