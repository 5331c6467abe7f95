extends Node
## A game's main scene that plays from its _ready, before the bridge is up (issue 14: this
## failed with bridge_not_ready over the socket). test_api.gd adds it before the first frame.

## Whether the bridge was up when _ready called start_match (it should not be, to test anything).
var bridge_was_ready: bool = true
## What the awaited calls returned (null until they finished).
var started: Variant = null
var first_card: SorteioCard = null
var errors: PackedStringArray = []


func _ready() -> void:
	var sorteio: SorteioNode = get_node("/root/Sorteio") as SorteioNode
	sorteio.error_occurred.connect(func(message: String, code: String) -> void:
		errors.append("%s: %s" % [code, message]))
	bridge_was_ready = sorteio.is_bridge_ready()
	started = await sorteio.start_match(5)
	first_card = await sorteio.advance()
