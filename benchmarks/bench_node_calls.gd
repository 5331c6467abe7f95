extends SceneTree
# What a Godot 3 game pays per call of the Sorteio autoload over the bridge it started: p50 / p90
# of apply_option(), draw_next_card() (the node's whole work: request, reply, state, the typed
# SorteioCard, signals) and a bare ping on the bridge, over 20 whole matches of the default deck.
#   SORTEIO_PYTHON=.venv/bin/python godot3-server --path godot3/demo_project \
#       -s "$PWD/benchmarks/bench_node_calls.gd"
# Run it against two checkouts' demos one after the other (side by side) to compare them; print
# `uptime` beside the figures (the machine is shared).

const MATCHES := 20


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var node: Node = root.get_node("Sorteio")
	node.print_warnings = false
	while not node.is_bridge_ready():
		yield(self, "idle_frame")
	var applied := []
	var drawn := []
	var pinged := []
	for match_seed in range(MATCHES):
		node.start_match(match_seed, "res://decks/padrao.json")
		node.start_turn()
		var draw: Dictionary = node.draw_next_card()
		while node.phase != "ended":
			if draw.empty():
				node.start_turn()
				draw = node.draw_next_card()
				continue
			var started := OS.get_ticks_usec()
			node.apply_option(int(draw["option_order"][0]))
			var between := OS.get_ticks_usec()
			draw = node.draw_next_card()
			var done := OS.get_ticks_usec()
			node._bridge.request("ping", {})
			pinged.append(OS.get_ticks_usec() - done)
			applied.append(between - started)
			drawn.append(done - between)
	print("BRIDGE %s, %d choices and draws" % [node.bridge_kind, drawn.size()])
	for row in [["apply_option", applied], ["draw_next_card", drawn], ["ping", pinged]]:
		var times: Array = row[1]
		times.sort()
		print(
			(
				"%-15s p50 %5d us  p90 %5d us"
				% [row[0], times[times.size() / 2], times[times.size() * 9 / 10]]
			)
		)
	quit(0)
