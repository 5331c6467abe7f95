tool
extends EditorExportPlugin
# Exports what the game's bridge needs (issue 14, "Export any project, in one step"), as the
# Godot 4 addon's export plugin does (addons/sorteio/editor/export_plugin.gd, the reference).
#
# In-process bridge (pythonscript enabled in project.godot: `[gdnative] singletons` lists
# pythonscript.gdnlib, so the node's "auto" picks it): for Linux (X11 64-bit), pythonscript's
# runtime (`addons/pythonscript/x11-64/`, with sorteio in its Python) is copied beside the
# exported game, without what a game never runs (PYTHONSCRIPT_LEFT_OUT: pip, setuptools, build
# headers, tests), and the bridge's `addons/sorteio/python/*.py` beside it. Godot 3 resolves a
# `res://` path outside the pack (pythonscript.gdnlib's `res://addons/pythonscript/x11-64/
# libpythonscript.so`) from the current folder, and pythonscript takes its Python home from
# there: a game started from another folder finds no runtime, and GDScript cannot change the
# folder before the singleton loads. So the export gets a launcher, `<game>.sh`, which goes to
# the game's folder and starts it (the binary, or godot3-runner with the pack of
# `--export-pack`). The runtime's Python (when it runs here) compiles what was copied ahead
# (unchecked-hash .pyc), so a player's folder stays as shipped. No frozen server is copied.
#
# Socket bridge (no pythonscript): the frozen server (`sorteio-serve` and its `sorteio-serve-lib/`
# folder, with the built-in decks; the release zip carries one for Linux x86-64, and
# `scripts/export/build_demo.py --install-server PROJECT` from a sorteio checkout puts one in a
# project) is looked for in `<frozen dir>/<os>-<arch>/`, the frozen dir being the project
# setting `sorteio/export/frozen_server_dir` (default FROZEN_DIR, a folder with a `.gdignore`,
# so the editor neither imports nor packs it), and copied beside the exported executable or
# pack, where the node looks for it first.
#
# An export the addon cannot serve is refused with an error naming why: HTML5 (a browser cannot
# start a server process nor run pythonscript); with pythonscript, a platform other than Linux
# 64-bit (the runtime shipped is Linux's); with the socket bridge, a platform other than Linux
# with no frozen server built for it. Godot 3 gives an export plugin no way to stop the export:
# the error is printed in the export log (and the editor's Output), and once the export is
# written the plugin removes what it wrote, so no game is left that would start without its
# rules. A Linux export with neither bridge's runtime prints a note: its players need python3
# with sorteio.
# Registered by the addon's EditorPlugin (editor/plugin.gd).

const PYTHONSCRIPT_GDNLIB := "pythonscript.gdnlib"
const PYTHONSCRIPT_HOME := "res://addons/pythonscript/x11-64"
const PYTHON_SIDE := "res://addons/sorteio/python"
# What a game never runs from pythonscript's runtime (paths under x11-64/, String.match globs),
# as scripts/export/build_demo.py's RUNTIME_DROPS.
const PYTHONSCRIPT_LEFT_OUT := [
	"bin",
	"include",
	"lib/pkgconfig",
	# The link for building extensions (a copy would double 13 MB): libraries load .so.1.0.
	"lib/libpython3.8.so",
	"lib/python3.8/config-3.8-*",
	"lib/python3.8/site-packages/pip",
	"lib/python3.8/site-packages/pip-*.dist-info",
	"lib/python3.8/site-packages/setuptools",
	"lib/python3.8/site-packages/setuptools-*.dist-info",
	"lib/python3.8/site-packages/_distutils_hack",
	"lib/python3.8/site-packages/pkg_resources",
	"lib/python3.8/site-packages/distutils-precedence.pth",
	"lib/python3.8/site-packages/*.dist-info/direct_url.json",
	"lib/python3.8/lib-dynload/_test*",
	"lib/python3.8/lib-dynload/_xxtestfuzz*",
	"lib/python3.8/lib-dynload/_tkinter*",
	"lib/python3.8/lib-dynload/xxlimited*",
]
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
	if uses_pythonscript():
		if "X11" in features and "64" in features:
			return ""
		return (
			(
				"Sorteio: this game uses the in-process bridge (pythonscript is enabled in "
				+ "project.godot) and the addon ships pythonscript's runtime for Linux 64-bit "
				+ "only (%s), not for %s; export for Linux, or use the socket bridge for %s: "
				+ "remove pythonscript's [gdnative] singletons line and put a frozen server "
				+ "built on that platform in %s"
			)
			% [
				PYTHONSCRIPT_HOME,
				platform_folder(features),
				platform_folder(features),
				frozen_dir().plus_file(platform_folder(features))
			]
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


static func uses_pythonscript() -> bool:
	# pythonscript enabled in project.godot: the node's "auto" bridge is then in-process.
	if not ProjectSettings.has_setting("gdnative/singletons"):
		return false
	for singleton in ProjectSettings.get_setting("gdnative/singletons"):
		if str(singleton).get_file() == PYTHONSCRIPT_GDNLIB:
			return true
	return false


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
	var game_dir := path.get_base_dir()
	if game_dir == "" or not game_dir.is_abs_path():
		game_dir = ProjectSettings.globalize_path("res://").plus_file(game_dir)
	if uses_pythonscript():
		_export_pythonscript(game_dir, path.get_file())
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
	_copy_tree(server, game_dir)


func _export_pythonscript(game_dir: String, exported: String) -> void:
	var home := ProjectSettings.globalize_path(PYTHONSCRIPT_HOME)
	if not Directory.new().dir_exists(home):
		push_error("Sorteio: pythonscript is enabled but %s is missing" % PYTHONSCRIPT_HOME)
		return
	var shipped := game_dir.plus_file("addons/pythonscript/x11-64")
	_copy_tree(home, shipped, "", PYTHONSCRIPT_LEFT_OUT)
	var side := game_dir.plus_file("addons/sorteio/python")
	Directory.new().make_dir_recursive(side)
	var dir := Directory.new()
	if dir.open(ProjectSettings.globalize_path(PYTHON_SIDE)) == OK:
		dir.list_dir_begin(true, true)
		var name := dir.get_next()
		while name != "":
			if name.get_extension() == "py":
				dir.copy(PYTHON_SIDE.plus_file(name), side.plus_file(name))
			name = dir.get_next()
		dir.list_dir_end()
	var python := home.plus_file("bin/python3")
	_compile_ahead(python, shipped.plus_file("lib"), "addons/pythonscript/x11-64/lib")
	_compile_ahead(python, side, "addons/sorteio/python")
	_write_launcher(game_dir, exported)


func _compile_ahead(python: String, folder: String, shown_as: String) -> void:
	# Copies have new times, so pip's .pyc would be stale and Python would write new ones beside
	# the runtime at a player's first start: compile ahead, unchecked-hash (used as is, never
	# rewritten), tracebacks naming `shown_as` (no folder of this machine).
	if OS.get_name() == "Windows" or not File.new().file_exists(python):
		push_warning(
			"Sorteio: %s cannot run here: Python will write .pyc files beside the game" % python
		)
		return
	var args := PoolStringArray(["-m", "compileall", "-q", "-j", "0", "-d", shown_as])
	args.append_array(PoolStringArray(["--invalidation-mode", "unchecked-hash", folder]))
	var output := []
	if OS.execute(python, args, true, output, true) != 0:
		push_error(
			"Sorteio: compiling the shipped Python failed: %s" % PoolStringArray(output).join("")
		)


func _write_launcher(game_dir: String, exported: String) -> void:
	# `<game>.sh`: pythonscript finds its runtime from the current folder (see the top).
	var start := './"%s" "$@"' % exported
	if exported.get_extension() == "pck":
		start = '"${GODOT_RUNNER:-godot3-runner}" --main-pack "%s" "$@"' % exported
	var lines := [
		"#!/bin/sh",
		"# Starts %s from its own folder: pythonscript (the in-process bridge) finds" % exported,
		"# its runtime, addons/pythonscript/x11-64/, from the current folder.",
		'cd "$(dirname "$0")" || exit 1',
		"exec " + start,
	]
	var launcher := game_dir.plus_file(exported.get_basename() + ".sh")
	var file := File.new()
	if file.open(launcher, File.WRITE) != OK:
		push_error("Sorteio: cannot write %s" % launcher)
		return
	file.store_string(PoolStringArray(lines).join("\n") + "\n")
	file.close()
	OS.execute("chmod", PoolStringArray(["755", launcher]), true)


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


func _copy_tree(from: String, to: String, rel := "", left_out := []) -> void:
	# `from` into `to`, but .gdignore and what `left_out` names (globs of paths under the top).
	var dir := Directory.new()
	dir.make_dir_recursive(to)
	if dir.open(from) != OK:
		push_error("Sorteio: cannot read %s" % from)
		return
	dir.list_dir_begin(true, true)
	var name := dir.get_next()
	while name != "":
		var path := name if rel == "" else rel.plus_file(name)
		var skipped := name == ".gdignore"
		for pattern in left_out:
			skipped = skipped or path.match(pattern)
		if skipped:
			pass
		elif dir.current_is_dir():
			_copy_tree(from.plus_file(name), to.plus_file(name), path, left_out)
		elif dir.copy(from.plus_file(name), to.plus_file(name)) != OK:
			push_error("Sorteio: copying %s to %s failed" % [from.plus_file(name), to])
		name = dir.get_next()
	dir.list_dir_end()
	for executable in [FROZEN_SERVER, FROZEN_SERVER + ".exe"]:
		if OS.get_name() != "Windows" and File.new().file_exists(to.plus_file(executable)):
			# Directory.copy writes a plain file: the server must stay executable.
			OS.execute("chmod", PoolStringArray(["755", to.plus_file(executable)]), true)
