@tool
extends EditorExportPlugin
## Exports what the chosen bridge needs, and nothing a game never runs (issue 14, "Export any
## project, in one step").
##
## [b]In-process bridge[/b]: with the Python GDExtension in the project
## ([code]res://addons/godot-python-extension/[/code]), an export for Linux x86-64 gets, beside
## the game's executable: [code]libpython3.12.so.1.0[/code] (the extension's own library comes
## through its [code].gdextension[/code] as usual) and [code]lib/linux-x86_64/[/code], the
## embedded Python's home: the standard library ([code]python312.zip[/code],
## [code]lib-dynload[/code]) and [code]site-packages[/code] with sorteio and pydantic, without
## pip, setuptools, tests or [code]__pycache__[/code], and without [constant LEFT_OUT_EDITOR_ONLY]
## (openpyxl and et_xmlfile, with their [code].dist-info[/code] folders: the runtime carries them
## for the editor panel's .xlsx export and import, which a game never runs), plus the addon's
## [code]python/upstream_fixes.py[/code] as [code]site-packages/sitecustomize.py[/code] (an
## exported game's autoloads reach the extension before the addon's Python side loads; refused
## if the project's runtime has a sitecustomize.py of its own). Into the pack go the extension's
## API cache ([code]res://.python/extension_api.json.gz[/code], which the extension reads when it
## runs outside the editor). Left out of the pack: the project-root [code]sorteio.pyextension[/code]
## (an exported game imports the Python side itself).
##
## [b]Socket bridge[/b] (a project without the extension): the frozen server
## ([code]sorteio-serve[/code] and its [code]sorteio-serve-lib/[/code] folder, built by
## [code]scripts/export/build_demo.py --install-server PROJECT[/code] from a sorteio checkout,
## with the built-in decks) is copied beside the game's executable, where the node looks for it
## first. It is looked for in [code]<frozen dir>/<os>-<arch>/[/code], the frozen dir being the
## project setting [code]sorteio/export/frozen_server_dir[/code] (default
## [constant FROZEN_DIR], a folder with a [code].gdignore[/code], so the editor neither imports
## nor packs it). The addon's in-process Python side stays out of the pack.
##
## Left out of every pack: the addon's [code]docs/[/code] (the README's screenshots) and the
## editor folder's non-script files. Godot 4.6 hands a plugin's [method _export_file] no GDScript
## file (its own GDScript exporter takes each one first), so the addon's editor scripts stay in
## the pack (unused at run time, ~0.1 MB); a preset's exclude filter
## [code]addons/sorteio/editor/*[/code] drops them.
## [b]Refused[/b] with a clear error (the export fails): the Web (a browser can neither load the
## extension nor start a server); a platform other than Linux x86-64 with the extension in the
## project (the runtime built here is Linux x86-64 only); a platform other than Linux with no
## frozen server built for it (its players would have no Python). A Linux export that carries
## neither bridge (the game then needs [code]python3[/code] with sorteio on the player's
## machine) is exported with a note saying so.
## Registered by the addon's EditorPlugin ([code]editor/plugin.gd[/code]).

## The extension's folder in the project.
const EXTENSION_DIR := "res://addons/godot-python-extension"
## The embedded Python's files in the extension, for the one platform built here.
const RUNTIME_DIR := EXTENSION_DIR + "/bin/linux-x86_64"
## What a game never imports from site-packages (folder names, at any depth).
const LEFT_OUT := ["__pycache__", "pip", "setuptools", "_distutils_hack", "tests", "test"]
## The editor panel's spreadsheet packages (the [code]sheets[/code] extra that
## [code]scripts/gdextension.sh[/code] installs in the runtime, for the .xlsx export and import):
## a game never imports them ([code]sorteio.bridge.handler[/code] imports the designer side, and
## through it openpyxl, only for the panel's requests), so they stay out of an exported
## site-packages, and so do their [code]<name>-<version>.dist-info[/code] folders.
const LEFT_OUT_EDITOR_ONLY := ["openpyxl", "et_xmlfile"]
## Files never copied: the editor's marker, and pip's record of where a package was installed
## from (a folder of the machine that built the runtime).
const LEFT_OUT_FILES := [".gdignore", "direct_url.json"]
## Project setting: the folder holding one frozen server folder per platform.
const SETTING_FROZEN_DIR := "sorteio/export/frozen_server_dir"
## Where frozen servers are looked for when the setting is not set.
const FROZEN_DIR := "res://addons/sorteio/frozen"
## The frozen server's executable (sorteio-serve[.exe]) and its libraries' folder.
const FROZEN_SERVER := "sorteio-serve"
const FROZEN_LIB := "sorteio-serve-lib"
## The addon's pages and their pictures (the release zip puts the README's screenshots there):
## read in the editor or a browser, never by a game, so never in the pack.
const EDITOR_ONLY_DOCS := "res://addons/sorteio/docs/"
## The addon's in-process Python side: in the pack only when the in-process bridge is exported.
const PYTHON_SIDE := "res://addons/sorteio/python/"
## The fixes of upstream's defects (see that file), shipped as the exported runtime's
## [constant SITECUSTOMIZE] so they apply before any autoload reaches the extension.
const UPSTREAM_FIXES := PYTHON_SIDE + "upstream_fixes.py"
const SITECUSTOMIZE := "sitecustomize.py"
## rwxr-xr-x: the copied server must stay executable (DirAccess.copy_absolute drops the mode).
const EXECUTABLE: int = 0b111_101_101

var _python_home: String = ""
var _in_process: bool = false
## The export path of a refused export ("" otherwise) and when it began (Unix seconds).
var _refused_path: String = ""
var _began_at: int = 0


func _get_name() -> String:
	return "Sorteio"


## Why this export cannot be served ("" when it can): see the class description.
static func refusal(features: PackedStringArray) -> String:
	if features.has("web"):
		return SorteioI18n.t(
			(
				"Sorteio: a Web não roda o Python no processo nem "
				+ "inicia o servidor por socket: este jogo não pode ser "
				+ "exportado para a Web"
			)
		)
	var linux_x86_64: bool = features.has("linux") and features.has("x86_64")
	if DirAccess.dir_exists_absolute(EXTENSION_DIR):
		if linux_x86_64:
			return ""
		return (
			(SorteioI18n.t(
				(
					"Sorteio: o Python no processo em %s é feito só para "
					+ "Linux x86-64; para %s, remova-o do projeto e use a "
					+ "ponte por socket com um servidor congelado feito para "
					+ "essa plataforma (addons/sorteio/docs/in_process.md)"
				)
			))
			% [EXTENSION_DIR, " ".join(features)]
		)
	if features.has("linux") or frozen_server_for(features) != "":
		return ""
	return (
		(SorteioI18n.t(
			(
				"Sorteio: nenhum servidor por socket congelado para %s "
				+ "em %s (os jogadores desta exportação não teriam Python "
				+ "para as regras); construa um nessa plataforma "
				+ "(scripts/export/build_demo.py --install-server "
				+ "PROJETO) ou exporte para Linux"
			)
		))
		% [platform_folder(features), frozen_dir()]
	)


## The folder naming [param features]' platform under the frozen dir, e.g. "linux-x86_64".
static func platform_folder(features: PackedStringArray) -> String:
	var os_name: String = "unknown"
	for name: String in ["linux", "windows", "macos", "android", "ios", "web"]:
		if features.has(name):
			os_name = name
	var arch: String = "unknown"
	for name: String in ["x86_64", "arm64", "x86_32", "arm32", "universal", "wasm32"]:
		if features.has(name):
			arch = name
	return "%s-%s" % [os_name, arch]


## The frozen servers' folder: [constant SETTING_FROZEN_DIR] or [constant FROZEN_DIR].
static func frozen_dir() -> String:
	var dir: String = str(ProjectSettings.get_setting(SETTING_FROZEN_DIR, ""))
	return dir if dir != "" else FROZEN_DIR


## Absolute path of the frozen server's folder for [param features]' platform ("" when there
## is none).
static func frozen_server_for(features: PackedStringArray) -> String:
	var folder: String = frozen_dir().path_join(platform_folder(features))
	if folder.begins_with("res://"):
		folder = ProjectSettings.globalize_path(folder)
	for name: String in [FROZEN_SERVER, FROZEN_SERVER + ".exe"]:
		if FileAccess.file_exists(folder.path_join(name)):
			return folder
	return ""


func _export_begin(features: PackedStringArray, _is_debug: bool, path: String, _flags: int) -> void:
	_in_process = false
	_python_home = ""
	_refused_path = ""
	_began_at = int(Time.get_unix_time_from_system())
	var refused: String = refusal(features)
	if refused != "":
		_refused_path = path
		_refuse(refused)
		return
	var game_dir: String = path.get_base_dir()
	if DirAccess.dir_exists_absolute(EXTENSION_DIR):
		refused = runtime_refusal()
		if refused != "":
			_refused_path = path
			_refuse(refused)
			return
		_in_process = true
		_export_runtime(game_dir)
		return
	var server: String = frozen_server_for(features)
	if server == "":
		print(
			(
				(SorteioI18n.t(
					(
						"Sorteio: esta exportação não leva Python para as "
						+ "regras (nem extensão, nem servidor congelado em %s): "
						+ "seus jogadores precisam de python3 com sorteio "
						+ "instalado"
					)
				))
				% frozen_dir().path_join(platform_folder(features))
			)
		)
		return
	_copy_tree(server, game_dir)
	for name: String in [FROZEN_SERVER, FROZEN_SERVER + ".exe"]:
		if FileAccess.file_exists(game_dir.path_join(name)):
			FileAccess.set_unix_permissions(game_dir.path_join(name), EXECUTABLE)


func _refuse(message: String) -> void:
	# push_error prints it (a headless export's log, the editor's Output); the export platform's
	# message list (EditorExportPlatform.add_message, Godot 4.3+, called by name so the script
	# still compiles on 4.2) shows it in the export dialog's result. Neither stops the export
	# (Godot 4.6 lets no plugin do that): _export_end removes what it wrote instead.
	push_error(message)
	if not has_method("get_export_platform"):
		return
	var platform: Object = call("get_export_platform")
	if platform != null and platform.has_method("add_message"):
		var error: int = ClassDB.class_get_integer_constant(
			"EditorExportPlatform", "EXPORT_MESSAGE_ERROR"
		)
		platform.call("add_message", error, "Sorteio", message)


## Why the in-process runtime cannot be exported ("" when it can): checked before anything is
## written, so a refused export leaves nothing of the runtime behind.
static func runtime_refusal() -> String:
	if not FileAccess.file_exists("res://.python/extension_api.json"):
		return SorteioI18n.t(
			"Sorteio: falta res://.python/extension_api.json: abra " + "o projeto no editor uma vez"
		)
	var own: String = RUNTIME_DIR.path_join("python3.12/site-packages").path_join(SITECUSTOMIZE)
	if FileAccess.file_exists(own):
		return (
			(SorteioI18n.t(
				(
					"Sorteio: %s existe: a exportação no processo leva o %s "
					+ "do addon como o sitecustomize.py do Python (sem ele um "
					+ "jogo exportado com um autoload cai ao sair); mova o "
					+ "seu para um módulo que ele importe, ou remova-o"
				)
			))
			% [own, UPSTREAM_FIXES]
		)
	return ""


func _export_runtime(game_dir: String) -> void:
	var runtime: String = ProjectSettings.globalize_path(RUNTIME_DIR)
	add_shared_object(runtime.path_join("libpython3.12.so.1.0"), PackedStringArray(), "")
	_python_home = game_dir.path_join("lib/linux-x86_64")
	_copy(runtime.path_join("python312.zip"), _python_home.path_join("python312.zip"))
	_copy_tree(runtime.path_join("python3.12"), _python_home.path_join("python3.12"))
	# An exported game imports the addon's Python side only when its bridge starts, after Godot
	# has handed PythonLanguage the autoloads: CPython runs sitecustomize at start-up, in time.
	_copy(
		ProjectSettings.globalize_path(UPSTREAM_FIXES),
		_python_home.path_join("python3.12/site-packages").path_join(SITECUSTOMIZE)
	)
	var api: PackedByteArray = FileAccess.get_file_as_bytes("res://.python/extension_api.json")
	add_file(
		"res://.python/extension_api.json.gz", api.compress(FileAccess.COMPRESSION_GZIP), false
	)


func _export_end() -> void:
	if _refused_path != "":
		_remove_refused_export()
		return
	# The extension's own export plugin (upstream's, in its editor integration) runs too: it
	# copies the same Python home (harmless: the same files) and puts every .so it finds in
	# site-packages beside the executable, where nothing loads them (pydantic-core's 5 MB, out
	# of its package). Those strays go; so do the editor-only .gdignore and what upstream's copy
	# brings of LEFT_OUT_FILES (pip's direct_url.json names the machine that built the runtime).
	if _python_home == "":
		return
	var game_dir: String = _python_home.get_base_dir().get_base_dir()
	for file: String in DirAccess.get_files_at(game_dir):
		if file.contains(".cpython-"):
			DirAccess.remove_absolute(game_dir.path_join(file))
	DirAccess.remove_absolute(_python_home.path_join("python3.12/.gdignore"))
	var site: String = _python_home.path_join("python3.12/site-packages")
	for folder: String in DirAccess.get_directories_at(site):
		if editor_only(folder):
			_remove_tree(site.path_join(folder))  # when upstream's copy ran too
		elif folder.ends_with(".dist-info"):
			DirAccess.remove_absolute(site.path_join(folder).path_join("direct_url.json"))
	_python_home = ""


## Whether a site-packages folder is one of [constant LEFT_OUT_EDITOR_ONLY] or the
## [code]<name>-<version>.dist-info[/code] folder of one.
static func editor_only(folder: String) -> bool:
	if folder in LEFT_OUT_EDITOR_ONLY:
		return true
	return folder.ends_with(".dist-info") and folder.get_slice("-", 0) in LEFT_OUT_EDITOR_ONLY


func _remove_refused_export() -> void:
	# The files this export just wrote (modified since it began): <name>.<anything> in its
	# folder, and with the extension in the project what its library and upstream's export
	# plugin put beside it (shared libraries, the Python home under lib/): a refused export
	# leaves no game that would start without its rules.
	var folder: String = _refused_path.get_base_dir()
	var stem: String = _refused_path.get_file().get_basename() + "."
	var extension: bool = DirAccess.dir_exists_absolute(EXTENSION_DIR)
	for file: String in DirAccess.get_files_at(folder):
		var target: String = folder.path_join(file)
		var ours: bool = file.begins_with(stem) or (extension and ".so" in file)
		if ours and FileAccess.get_modified_time(target) >= _began_at:
			DirAccess.remove_absolute(target)
	# Upstream's copy keeps the files' times, so the runtime is told by its standard library.
	var home: String = folder.path_join("lib/linux-x86_64")
	if extension and FileAccess.file_exists(home.path_join("python312.zip")):
		_remove_tree(home)
		DirAccess.remove_absolute(home.get_base_dir())  # lib/, when nothing else is in it
	push_error(
		(
			SorteioI18n.t(
				"Sorteio: a exportação para %s foi recusada (veja " + "acima); nada foi mantido"
			)
			% folder
		)
	)
	_refused_path = ""


func _remove_tree(folder: String) -> void:
	var dir: DirAccess = DirAccess.open(folder)
	if dir == null:
		return
	dir.include_hidden = true  # upstream's copy brings the editor's .gdignore markers
	for file: String in dir.get_files():
		dir.remove(file)
	for sub: String in dir.get_directories():
		_remove_tree(folder.path_join(sub))
	DirAccess.remove_absolute(folder)


func _export_file(path: String, _type: String, _features: PackedStringArray) -> void:
	if path == "res://sorteio.pyextension" or path.begins_with("res://addons/sorteio/editor/"):
		skip()  # (the editor folder's non-script files, when it has any)
	elif path.begins_with(EDITOR_ONLY_DOCS):
		skip()  # the README's screenshots (QA: ~277 KB of a 658 KB pack)
	elif path.begins_with(PYTHON_SIDE) and not _in_process:
		skip()


func _copy(from: String, to: String) -> void:
	DirAccess.make_dir_recursive_absolute(to.get_base_dir())
	var error: Error = DirAccess.copy_absolute(from, to)
	if error != OK:
		push_error(
			(
				SorteioI18n.t("Sorteio: a cópia de %s para %s falhou (%s)")
				% [from, to, error_string(error)]
			)
		)


func _copy_tree(from: String, to: String) -> void:
	DirAccess.make_dir_recursive_absolute(to)
	for file: String in DirAccess.get_files_at(from):
		if file not in LEFT_OUT_FILES:
			_copy(from.path_join(file), to.path_join(file))
	for folder: String in DirAccess.get_directories_at(from):
		if folder not in LEFT_OUT and not editor_only(folder):
			_copy_tree(from.path_join(folder), to.path_join(folder))
