extends SceneTree
# Every GDScript and scene of the addon and the demo loads in this Godot (3.2.3 in CI), and the
# Python scripts too where pythonscript is installed.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_load_all.gd
# Prints "CHECK ok|FAIL <path>" per file; quits 0 when all load.

const ROOTS := ["res://addons/sorteio", "res://scenes", "res://"]

var failures := 0
var extensions := ["gd", "tscn"]


func _init() -> void:
	if "py" in ResourceLoader.get_recognized_extensions_for_type("Script"):
		extensions.append("py")
	var files := []
	for root_dir in ROOTS:
		_collect(root_dir, files, root_dir == "res://")
	for path in files:
		var resource = load(path)
		var ok: bool = resource != null
		if ok and resource is Script:
			ok = resource.can_instance()
		if ok and resource is PackedScene:
			var node: Node = resource.instance()
			ok = node != null
			if node != null:
				node.free()
		if not ok:
			failures += 1
		print("CHECK %s %s" % ["ok" if ok else "FAIL", path])
	if files.size() < 10:
		failures += 1
		print("CHECK FAIL found only %d files" % files.size())
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _collect(dir_path: String, files: Array, top_only: bool) -> void:
	var dir := Directory.new()
	if dir.open(dir_path) != OK:
		print("CHECK FAIL cannot open %s" % dir_path)
		failures += 1
		return
	if dir.list_dir_begin(true, true) != OK:
		print("CHECK FAIL cannot list %s" % dir_path)
		failures += 1
		return
	var name := dir.get_next()
	while name != "":
		var path := dir_path.plus_file(name)
		if dir.current_is_dir():
			if not top_only:
				_collect(path, files, false)
		elif name.get_extension() in extensions and not path in files:
			files.append(path)
		name = dir.get_next()
	dir.list_dir_end()
