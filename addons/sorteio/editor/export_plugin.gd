@tool
extends EditorExportPlugin
## Exports what the addon's in-process bridge needs, and nothing a game never runs (issue 14,
## "Export any project, in one step").
##
## With the Python GDExtension in the project ([code]res://addons/godot-python-extension/[/code]),
## an export for Linux x86-64 gets, beside the game's executable:
## [code]libpython3.12.so.1.0[/code] (the extension's own library comes through its
## [code].gdextension[/code] as usual) and [code]lib/linux-x86_64/[/code], the embedded
## Python's home: the standard library ([code]python312.zip[/code], [code]lib-dynload[/code])
## and [code]site-packages[/code] with sorteio and pydantic, without pip, setuptools, tests
## or [code]__pycache__[/code]. Into the pack go the extension's API cache
## ([code]res://.python/extension_api.json.gz[/code], which the extension reads when it runs
## outside the editor). Left out of the pack: the project-root [code]sorteio.pyextension[/code]
## (an exported game imports the Python side itself) and, where Godot lets a plugin skip them,
## the addon's editor files.
## An export the addon cannot serve is refused with a clear error: the runtime built here is
## Linux x86-64 only, and the Web cannot run it (see addons/sorteio/docs/in_process.md; the
## socket bridge is the way on Windows and macOS).
## Register it from the addon's EditorPlugin:
## [code]add_export_plugin(preload("res://addons/sorteio/editor/export_plugin.gd").new())[/code].

## The extension's folder in the project.
const EXTENSION_DIR := "res://addons/godot-python-extension"
## The embedded Python's files in the extension, for the one platform built here.
const RUNTIME_DIR := EXTENSION_DIR + "/bin/linux-x86_64"
## What a game never imports from site-packages (folder names, at any depth).
const LEFT_OUT := ["__pycache__", "pip", "setuptools", "_distutils_hack", "tests", "test"]

var _python_home: String = ""


func _get_name() -> String:
	return "Sorteio"


## Why this export cannot carry the in-process runtime ("" when it can, or when the project
## does not use it).
static func refusal(features: PackedStringArray) -> String:
	if not DirAccess.dir_exists_absolute(EXTENSION_DIR):
		return ""
	if features.has("web"):
		return (
			"Sorteio: the Web cannot run the in-process Python runtime (nor start the socket "
			+ "server): this game cannot be exported for the Web"
		)
	if not (features.has("linux") and features.has("x86_64")):
		return (
			"Sorteio: the in-process Python runtime in %s is built for Linux x86-64 only; "
			+ "for %s, remove it from the project and use the socket bridge "
			+ "(addons/sorteio/docs/in_process.md)"
		) % [EXTENSION_DIR, " ".join(features)]
	return ""


func _export_begin(features: PackedStringArray, _is_debug: bool, path: String, _flags: int) -> void:
	var refused: String = refusal(features)
	if refused != "":
		push_error(refused)
		return
	if not DirAccess.dir_exists_absolute(EXTENSION_DIR):
		return
	var runtime: String = ProjectSettings.globalize_path(RUNTIME_DIR)
	add_shared_object(runtime.path_join("libpython3.12.so.1.0"), PackedStringArray(), "")
	_python_home = path.get_base_dir().path_join("lib/linux-x86_64")
	_copy(runtime.path_join("python312.zip"), _python_home.path_join("python312.zip"))
	_copy_tree(runtime.path_join("python3.12"), _python_home.path_join("python3.12"))
	var api: PackedByteArray = FileAccess.get_file_as_bytes("res://.python/extension_api.json")
	if api.is_empty():
		push_error("Sorteio: res://.python/extension_api.json is missing: open the project in the editor once")
		return
	add_file("res://.python/extension_api.json.gz", api.compress(FileAccess.COMPRESSION_GZIP), false)


func _export_end() -> void:
	# The extension's own export plugin (upstream's, in its editor integration) runs too: it
	# copies the same Python home (harmless: the same files) and puts every .so it finds in
	# site-packages beside the executable, where nothing loads them (pydantic-core's 5 MB, out
	# of its package). Those strays go; so does the editor-only .gdignore.
	if _python_home == "":
		return
	var game_dir: String = _python_home.get_base_dir().get_base_dir()
	for file: String in DirAccess.get_files_at(game_dir):
		if file.contains(".cpython-"):
			DirAccess.remove_absolute(game_dir.path_join(file))
	DirAccess.remove_absolute(_python_home.path_join("python3.12/.gdignore"))
	_python_home = ""


func _export_file(path: String, _type: String, _features: PackedStringArray) -> void:
	if path.begins_with("res://addons/sorteio/editor/") or path == "res://sorteio.pyextension":
		skip()


func _copy(from: String, to: String) -> void:
	DirAccess.make_dir_recursive_absolute(to.get_base_dir())
	var error: Error = DirAccess.copy_absolute(from, to)
	if error != OK:
		push_error("Sorteio: copying %s to %s failed (%s)" % [from, to, error_string(error)])


func _copy_tree(from: String, to: String) -> void:
	DirAccess.make_dir_recursive_absolute(to)
	for file: String in DirAccess.get_files_at(from):
		if file != ".gdignore":
			_copy(from.path_join(file), to.path_join(file))
	for folder: String in DirAccess.get_directories_at(from):
		if folder not in LEFT_OUT:
			_copy_tree(from.path_join(folder), to.path_join(folder))
