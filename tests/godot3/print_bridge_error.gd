extends SceneTree
# Engine test helper: waits for the Sorteio autoload's bridge to come up or fail and prints
# "BRIDGE-ERROR <bridge_error>" (empty when it came up). The caller checks the words.
#   godot3-server --path GAME -s tests/godot3/print_bridge_error.gd


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	var deadline := OS.get_ticks_msec() + 20000
	while not sorteio.is_bridge_ready() and not sorteio.is_bridge_failed():
		if OS.get_ticks_msec() > deadline:
			break
		yield(self, "idle_frame")
	print("BRIDGE-ERROR %s" % sorteio.bridge_error)
	print("GODOT-TEST passed")
	quit(0)
