extends SceneTree
# The demo when the rules cannot start (issue 10): the card says so in Portuguese instead of
# "Esperando as regras (Python)...", and the error's own message is shown once on the screen, not
# in the card, the header and the log. Run with SORTEIO_PYTHON pointing at no interpreter:
#   SORTEIO_PYTHON=/nonexistent/python3 godot3-server --path godot3/demo_project \
#     -s "$PWD/tests/godot3/test_error_screen.gd"

const Checks = preload("lib/checks.gd")
const TIMEOUT_MS := 30000

var t = Checks.new()
var main: Node = null
var message := ""
var frames := -1
var started_ms := 0


func _init() -> void:
	call_deferred("_start")


func _start() -> void:
	root.get_node("Sorteio").connect("error_occurred", self, "_on_error_occurred")
	main = load("res://main.tscn").instance()
	started_ms = OS.get_ticks_msec()
	root.add_child(main)


func _on_error_occurred(text: String, code: String) -> void:
	if code == "bridge_down" and message.empty():
		message = text
		frames = 0


func _idle(_delta: float) -> bool:
	if OS.get_ticks_msec() - started_ms > TIMEOUT_MS:
		print("CHECK FAIL no bridge_down within %d ms" % TIMEOUT_MS)
		quit(1)
	if frames >= 0:
		frames += 1
		if frames == 3:
			_inspect()
	return false


func _inspect() -> void:
	var texts := []
	_collect(main, texts)
	var screen := PoolStringArray(texts).join("\n")
	var card: Node = main.get_node("Margin/Columns/CardView")
	var card_text: String = card.get_node("Box/Text").text
	t.check(not "Esperando" in screen, "no 'Esperando as regras' next to the error", card_text)
	t.check(card.get_node("Box/Title").text == "Sem as regras do sorteio", "the card says it")
	t.check("SORTEIO_PYTHON" in card_text, "the card says what to check", card_text)
	var first_line: String = message.split("\n")[0]
	t.check(
		screen.count(first_line) == 1, "the error's message shown once", screen.count(first_line)
	)
	t.check("bridge_down" in main.get_node("Margin/Columns/Left/HeaderView/Status").text, "header")
	t.finish(self)


func _collect(node: Node, texts: Array) -> void:
	if node is Label and node.is_visible_in_tree():
		texts.append(node.text)
	elif node is RichTextLabel:
		texts.append(node.text)
	for child in node.get_children():
		_collect(child, texts)
