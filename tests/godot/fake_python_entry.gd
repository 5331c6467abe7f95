extends Node
# Stand-in for the pythonscript entry (addons/sorteio/python/sorteio_python_bridge.py) in engine
# tests, as pythonscript cannot be installed on the CI machines. Same interface: request(JSON
# text) -> JSON text. It relays to the real Python request handler through the socket server, so
# SorteioNode's in-process path (python_bridge.gd, JSON text both ways) runs against real rules.

const SocketBridge = preload("res://addons/sorteio/bridges/socket_bridge.gd")

var requests := 0

var _socket = null


func request(text: String) -> String:
	requests += 1
	if _socket == null:
		_socket = SocketBridge.new()
		var python := OS.get_environment("SORTEIO_PYTHON")
		_socket.python = python if python != "" else "python3"
		var port_file := "user://fake_entry_%d.json" % OS.get_process_id()
		_socket.port_file = ProjectSettings.globalize_path(port_file)
		_socket.start()
	var message: Dictionary = JSON.parse(text).result
	var reply: Dictionary = _socket.request(message["method"], message.get("params", {}))
	reply["id"] = message["id"]
	return JSON.print(reply)


func _exit_tree() -> void:
	if _socket != null:
		_socket.close()
