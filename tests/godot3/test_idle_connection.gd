extends SceneTree
# A game that waits on its menu before its first call keeps its bridge: the server closes a
# connection that sends no request with the token within AUTH_TIMEOUT (10 s), so the socket
# bridge authenticates as soon as it connects. Waits WAIT_S after bridge_ready, then plays.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_idle_connection.gd
# Prints "BRIDGE <kind>" and "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed.

const Checks = preload("lib/checks.gd")
const WAIT_S := 11.5  # past the server's AUTH_TIMEOUT (sorteio.bridge.server, 10 s)

var t = Checks.new()


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
	print("BRIDGE %s" % sorteio.bridge_kind)
	yield(create_timer(WAIT_S), "timeout")
	var played: bool = (
		sorteio.start_match(3, "padrao")
		and sorteio.start_turn()
		and not sorteio.draw_next_card().empty()
	)
	t.check(
		played and t.errors.empty(),
		"the first call %.1f s after bridge_ready plays" % WAIT_S,
		t.errors
	)
	t.finish(self)
