extends "res://tests/lib/engine_test.gd"
## Prints BRIDGE <kind> once the autoload's bridge is up (which bridge bridge_mode "auto" chose).


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	check(await sorteio.wait_bridge_ready(), "the bridge came up", sorteio.bridge_error)
	print("BRIDGE %s" % sorteio.bridge_kind)
