extends Reference
# In-process bridge: the godot-python (pythonscript) script answers the same JSON requests as
# the socket server, through the same Python request handler, without a socket or a token.

const Language := preload("res://addons/sorteio/sorteio_language.gd")
const ENTRY := "res://addons/sorteio/python/sorteio_python_bridge.py"
# Where the release zip puts the wheels (not in a checkout).
const WHEELS := "res://addons/sorteio/wheel"

var last_error := ""
var entry := ENTRY

# The entry script, kept by SorteioNode from one bridge to the next: with pythonscript 0.50,
# loading it again after its last node was freed gives a node without `request` (seen in
# tests/godot/test_api.gd, stop + start).
var entry_script: Script = null

var _node: Node = null
var _next_id := 0


static func available() -> bool:
	# pythonscript registers the "py" script extension; without it .py files are not scripts.
	return "py" in ResourceLoader.get_recognized_extensions_for_type("Script")


static func unregistered_gdnlib() -> String:
	# pythonscript unzipped into the project but not enabled: project.godot lacks its
	# [gdnative] singletons entry, so .py files are not scripts. "" when that is not the case.
	for gdnlib in ["res://pythonscript.gdnlib", "res://addons/pythonscript.gdnlib"]:
		if not available() and File.new().file_exists(gdnlib):
			return gdnlib
	return ""


static func enable_hint(gdnlib: String) -> String:
	var singletons: Array = []
	if ProjectSettings.has_setting("gdnative/singletons"):
		singletons = Array(ProjectSettings.get_setting("gdnative/singletons"))
	if gdnlib in singletons:
		# Enabled, yet not loaded: in an exported game, Godot 3 looks for the library (a res://
		# path outside the pack) from the current folder.
		return (
			(
				"%s is enabled but its library did not load: outside the editor Godot 3 looks for "
				+ "addons/pythonscript/ from the current folder; start the game from its own "
				+ "folder (the export's <game>.sh launcher does)"
			)
			% gdnlib
		)
	return (
		(
			'%s is in the project but not enabled: add [gdnative] singletons=[ "%s" ] to '
			+ "project.godot (addons/sorteio/README.md, In-process bridge, step 1)"
		)
		% [gdnlib, gdnlib]
	)


func kind() -> String:
	return "python"


func start_in(parent: Node) -> bool:
	if entry.get_extension() == "py" and unregistered_gdnlib() != "":
		last_error = enable_hint(unregistered_gdnlib())
		return false
	if entry.get_extension() == "py" and not available():
		last_error = (
			(
				"pythonscript (godot-python) is not installed in this project, so %s is not a "
				+ "script; install it (addons/sorteio/README.md, In-process bridge) or set "
				+ 'bridge_mode to "socket" or "auto"'
			)
			% entry
		)
		return false
	if not ResourceLoader.exists(entry):
		last_error = "the in-process bridge's script %s is not there" % entry
		return false
	if entry_script == null or entry_script.resource_path != entry:
		entry_script = load(entry)
	if entry_script == null:
		last_error = "%s does not load (is pythonscript installed?)" % entry
		return false
	_node = Node.new()
	_node.name = "SorteioPython"
	_node.set_script(entry_script)
	if not _node.has_method("request"):
		# pythonscript gives a script whose Python import failed (most often: sorteio not
		# installed in its own Python) a Script all the same, with no methods; every call would
		# then be a SCRIPT ERROR while the bridge said it was ready.
		_node.free()
		_node = null
		entry_script = null
		last_error = (
			(
				"%s did not load in pythonscript (its Python error is in Godot's output above): "
				+ "install sorteio and pydantic 2.10 into pythonscript's own Python "
				+ '(addons/pythonscript/<platform>/bin/python3 -m pip install "pydantic>=2.10,'
				+ '<2.11" %s, addons/sorteio/README.md, In-process bridge, step 2), or set '
				+ 'bridge_mode to "socket"'
			)
			% [entry, _package_to_install()]
		)
		return false
	parent.add_child(_node)
	return true


func is_ready() -> bool:
	return _node != null


func has_failed() -> bool:
	return _node == null


func poll() -> bool:
	return is_ready()


func wait_ready() -> bool:
	return is_ready()


func request(method: String, params: Dictionary) -> Dictionary:
	if _node == null:
		return _error_reply("bridge_down", "the in-process bridge is not running: " + last_error)
	_next_id += 1
	var message := {
		"id": _next_id, "method": method, "params": params, "lang": Language.protocol_lang()
	}
	var text = _node.call("request", JSON.print(message))
	var parsed := JSON.parse(str(text))
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		return _error_reply("bridge_down", "the Python bridge answered something that is not JSON")
	return parsed.result


func close() -> void:
	if _node != null:
		# Out of the tree and freed now: queue_free() frees only at the end of the frame, so a
		# bridge started again in this frame found the name taken ("@SorteioPython@2"), and at
		# exit the queued node was never freed. Safe: nothing of the child's is on the stack.
		if _node.get_parent() != null:
			_node.get_parent().remove_child(_node)
		_node.free()
		_node = null


static func _package_to_install() -> String:
	# The release zip carries the pure-Python wheel, the one pythonscript's CPython 3.8 takes:
	# name the file a zip user has, not a checkout they lack.
	var dir := Directory.new()
	var wheels := []
	if dir.open(WHEELS) == OK and dir.list_dir_begin(true, true) == OK:
		var name := dir.get_next()
		while name != "":
			if name.ends_with("-py3-none-any.whl"):
				wheels.append(name)
			name = dir.get_next()
		dir.list_dir_end()
	if wheels.empty():
		return "/path/to/a/sorteio/checkout"
	wheels.sort()
	return ProjectSettings.globalize_path(WHEELS.plus_file(wheels[-1]))


func _error_reply(code: String, message: String) -> Dictionary:
	return {"id": null, "ok": false, "error": {"code": code, "message": message}}
