tool
extends EditorExportPlugin
# Exports what the socket bridge needs (issue 14, "Export any project, in one step"), as the
# Godot 4 addon's export plugin does (addons/sorteio/editor/export_plugin.gd, the reference).
#
# The frozen server (`sorteio-serve` and its `sorteio-serve-lib/` folder, with the built-in
# decks; `scripts/export/build_demo.py --install-server PROJECT` from a sorteio checkout puts it
# in a project) is looked for in `<frozen dir>/<os>-<arch>/`, the frozen dir being the project
# setting `sorteio/export/frozen_server_dir` (default FROZEN_DIR, a folder with a `.gdignore`,
# so the editor neither imports nor packs it), and copied beside the exported executable or
# pack, where the node looks for it first. The in-process bridge (pythonscript) is not handled
# here: its runtime is found relative to the game's working folder, which `make export` builds
# (scripts/export/build_demo.py, the `python` variant).
#
# An export the addon cannot serve is refused with an error naming why: HTML5 (a browser cannot
# start a server process), and a platform other than Linux with no frozen server built for it.
# Godot 3 gives an export plugin no way to stop the export: the error is printed in the export
# log (and the editor's Output), and once the export is written the plugin removes what it
# wrote, so no game is left that would start without its rules. A Linux export with no frozen
# server prints a note: its players need python3 with sorteio.
# Registered by the addon's EditorPlugin (editor/plugin.gd).

const SETTING_FROZEN_DIR := "sorteio/export/frozen_server_dir"
const FROZEN_DIR := "res://addons/sorteio/frozen"
const FROZEN_SERVER := "sorteio-serve"
const FROZEN_LIB := "sorteio-serve-lib"
const OS_NAMES := {
	"X11": "linux",
	"Windows": "windows",
	"OSX": "macos",
	"HTML5": "web",
	"Android": "android",
	"iOS": "ios"
}

# The export path of a refused export ("" otherwise) and when it began (Unix seconds).
var _refused_path := ""
var _began_at := 0


static func refusal(features: PoolStringArray) -> String:
	# Why this export cannot be served ("" when it can).
	if "HTML5" in features:
		return (
			"Sorteio: HTML5 cannot start the socket server (nor run pythonscript): this game "
			+ "cannot be exported for the Web"
		)
	if "X11" in features or frozen_server_for(features) != "":
		return ""
	return (
		(
			"Sorteio: no frozen socket server for %s in %s (the players of this export would "
			+ "have no Python for the rules); build one on that platform "
			+ "(scripts/export/build_demo.py --install-server PROJECT) or export for Linux"
		)
		% [platform_folder(features), frozen_dir()]
	)


static func platform_folder(features: PoolStringArray) -> String:
	# "linux-x86_64" etc.: the folder naming the platform under the frozen dir.
	var os_name := "unknown"
	for feature in OS_NAMES:
		if feature in features:
			os_name = OS_NAMES[feature]
	var arch := "x86_64" if "64" in features else ("x86_32" if "32" in features else "unknown")
	return "%s-%s" % [os_name, arch]


static func frozen_dir() -> String:
	var dir := ""
	if ProjectSettings.has_setting(SETTING_FROZEN_DIR):
		dir = str(ProjectSettings.get_setting(SETTING_FROZEN_DIR))
	return dir if dir != "" else FROZEN_DIR


static func frozen_server_for(features: PoolStringArray) -> String:
	# Absolute path of the frozen server's folder for this platform ("" when there is none).
	var folder := frozen_dir().plus_file(platform_folder(features))
	if folder.begins_with("res://"):
		folder = ProjectSettings.globalize_path(folder)
	var file := File.new()
	for name in [FROZEN_SERVER, FROZEN_SERVER + ".exe"]:
		if file.file_exists(folder.plus_file(name)):
			return folder
	return ""


func _export_begin(features: PoolStringArray, _is_debug: bool, path: String, _flags: int) -> void:
	_refused_path = ""
	_began_at = OS.get_unix_time()
	var refused := refusal(features)
	if refused != "":
		push_error(refused)
		_refused_path = path
		return
	var server := frozen_server_for(features)
	if server == "":
		print(
			(
				(
					"Sorteio: this export carries no frozen server (none in %s): its players need "
					+ "python3 with sorteio installed"
				)
				% frozen_dir().plus_file(platform_folder(features))
			)
		)
		return
	var game_dir := path.get_base_dir()
	if game_dir == "" or not game_dir.is_abs_path():
		game_dir = ProjectSettings.globalize_path("res://").plus_file(game_dir)
	_copy_tree(server, game_dir)


func _export_end() -> void:
	if _refused_path == "":
		return
	# The files this export just wrote (<name>.<anything> in its folder, modified since it began).
	var folder := _refused_path.get_base_dir()
	var stem := _refused_path.get_file().get_basename() + "."
	var dir := Directory.new()
	if dir.open(folder) == OK:
		var written := []
		dir.list_dir_begin(true, true)
		var name := dir.get_next()
		while name != "":
			var target := folder.plus_file(name)
			if (
				not dir.current_is_dir()
				and name.begins_with(stem)
				and File.new().get_modified_time(target) >= _began_at
			):
				written.append(target)
			name = dir.get_next()
		dir.list_dir_end()
		for target in written:
			dir.remove(target)
	push_error("Sorteio: the export to %s was refused (see above); nothing was kept" % folder)
	_refused_path = ""


func _export_file(path: String, _type: String, _features: PoolStringArray) -> void:
	if path.begins_with("res://addons/sorteio/editor/"):
		skip()


func _copy_tree(from: String, to: String) -> void:
	var dir := Directory.new()
	dir.make_dir_recursive(to)
	if dir.open(from) != OK:
		push_error("Sorteio: cannot read %s" % from)
		return
	dir.list_dir_begin(true, true)
	var name := dir.get_next()
	while name != "":
		if dir.current_is_dir():
			_copy_tree(from.plus_file(name), to.plus_file(name))
		elif name != ".gdignore":
			if dir.copy(from.plus_file(name), to.plus_file(name)) != OK:
				push_error("Sorteio: copying %s to %s failed" % [from.plus_file(name), to])
		name = dir.get_next()
	dir.list_dir_end()
	for executable in [FROZEN_SERVER, FROZEN_SERVER + ".exe"]:
		if OS.get_name() != "Windows" and File.new().file_exists(to.plus_file(executable)):
			# Directory.copy writes a plain file: the server must stay executable.
			OS.execute("chmod", PoolStringArray(["755", to.plus_file(executable)]), true)
