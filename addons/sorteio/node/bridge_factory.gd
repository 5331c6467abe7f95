extends RefCounted
## Makes the bridge a [SorteioNode]'s settings name (its [member SorteioNode.bridge_mode] and
## the socket bridge's Python, port file and timeouts); [SorteioNode] starts and owns it.

const SocketBridge := preload("res://addons/sorteio/bridges/socket_bridge.gd")
const DeckFiles := preload("res://addons/sorteio/node/deck_files.gd")
const ScriptedBridge := preload("res://addons/sorteio/bridges/scripted_bridge.gd")
## The Python GDExtension's configuration: present when a project installed it.
const PYTHON_EXTENSION := "res://addons/godot-python-extension/python.gdextension"
## The file that makes the extension import the addon's Python side (the project's root).
const PYEXTENSION := "res://sorteio.pyextension"
## The class the addon's Python side registers.
const PYTHON_CLASS := "SorteioPython"


## The bridge [param node]'s [member SorteioNode.bridge_mode] names ([constant
## SorteioNode.BRIDGE_AUTO]: the in-process one when it is installed, else the socket one), not
## started; or a String saying why it cannot be made (a missing in-process bridge, unreadable
## scripted replies).
static func make(node: SorteioNode) -> Variant:
	var mode: String = node.bridge_mode
	if mode == SorteioNode.BRIDGE_AUTO:
		mode = SorteioNode.BRIDGE_PYTHON if python_bridge_available() else SorteioNode.BRIDGE_SOCKET
	match mode:
		SorteioNode.BRIDGE_PYTHON:
			var script: GDScript = _python_bridge_script()
			if script == null:
				return (
					SorteioI18n.t(
						(
							"a ponte no processo não está instalada (falta %s): use "
							+ "a ponte por socket"
						)
					)
					% SorteioNode.PYTHON_BRIDGE_PATH
				)
			return script.new()
		SorteioNode.BRIDGE_SCRIPTED:
			var scripted: SorteioBridge = ScriptedBridge.from_file(node.scripted_replies)
			if scripted == null:
				return (
					SorteioI18n.t("não foi possível ler as respostas roteirizadas '%s'")
					% node.scripted_replies
				)
			return scripted
	return _socket_bridge(node)


## True when the in-process bridge can serve here. Its script decides (its static available():
## the GDExtension loaded, sorteio importable); a missing script means the socket bridge.
static func python_bridge_available() -> bool:
	var script: GDScript = _python_bridge_script()
	if script == null:
		return false
	for method: Dictionary in script.get_script_method_list():
		if method["name"] == "available":
			return bool(script.call("available"))
	return true


## What to add to a failure of [param made] when [constant SorteioNode.BRIDGE_AUTO] chose it
## over an in-process bridge that is installed in the project but not usable here (its missing
## piece, often [code]res://sorteio.pyextension[/code], is then what to fix); "" otherwise.
static func fallback_note(node: SorteioNode, made: SorteioBridge) -> String:
	if node.bridge_mode != SorteioNode.BRIDGE_AUTO or made.kind() != SorteioNode.BRIDGE_SOCKET:
		return ""
	if not FileAccess.file_exists(PYTHON_EXTENSION) and not FileAccess.file_exists(PYEXTENSION):
		return ""  # no in-process bridge installed: the socket bridge is the plan, not a fallback
	return (
		(SorteioI18n.t(
			(
				". bridge_mode auto usou a ponte por socket porque a "
				+ "ponte no processo não pode ser usada aqui: %s"
			)
		))
		% _in_process_problem()
	)


static func _in_process_problem() -> String:
	# The in-process bridge's own words where it has them (its script is another part of the
	# addon, shipped with the extension: read, not changed).
	if ClassDB.class_exists(PYTHON_CLASS):
		var probe: Object = ClassDB.instantiate(PYTHON_CLASS)
		var problem: String = str(probe.call("problem")) if probe != null else ""
		if problem != "":
			return (
				problem
				+ SorteioI18n.t(
					(
						"; instale sorteio no Python da própria extensão "
						+ "(addons/sorteio/docs/in_process.md)"
					)
				)
			)
	var script: GDScript = _python_bridge_script()
	if script != null:
		var bridge: Object = script.new()
		if bridge.has_method("_not_registered"):
			return str(bridge.call("_not_registered"))
	return (
		SorteioI18n.t("falta %s (addons/sorteio/docs/in_process.md)")
		% SorteioNode.PYTHON_BRIDGE_PATH
	)


static func _python_bridge_script() -> GDScript:
	if not ResourceLoader.exists(SorteioNode.PYTHON_BRIDGE_PATH):
		return null
	return load(SorteioNode.PYTHON_BRIDGE_PATH) as GDScript


static func _socket_bridge(node: SorteioNode) -> SorteioBridge:
	var bridge: SocketBridge = SocketBridge.new()
	var python: String = node.python_executable
	if python == "":
		python = OS.get_environment("SORTEIO_PYTHON")
	if python == "":
		python = _frozen_server_beside_game()
	if python == "":
		python = _setting_or_env("", SorteioNode.SETTING_PYTHON, "python3")
	if python.begins_with("res://") or python.begins_with("user://"):
		python = ProjectSettings.globalize_path(python)
	bridge.python = python
	var join: String = node.bridge_file
	if join == "":
		join = _setting_or_env("SORTEIO_BRIDGE_FILE", SorteioNode.SETTING_BRIDGE_FILE, "")
	if join != "":
		bridge.port_file = join
		bridge.join_existing = true
	else:
		# Our own port file; those of earlier runs that were killed are removed first.
		SocketBridge.clear_stale_port_files(OS.get_user_data_dir())
		# One per node: two SorteioNodes starting together must not read each other's file.
		var own: String = (
			"user://%s%d_%d.json"
			% [SocketBridge.PORT_FILE_PREFIX, OS.get_process_id(), node.get_instance_id()]
		)
		bridge.port_file = ProjectSettings.globalize_path(own)
		# This game's port files and deck copies, which its server removes if the game is
		# killed (it cannot remove them itself then).
		for prefix: String in [SocketBridge.PORT_FILE_PREFIX, DeckFiles.COPY_PREFIX]:
			bridge.game_files.append(
				OS.get_user_data_dir().path_join("%s%d_" % [prefix, OS.get_process_id()])
			)
	bridge.startup_timeout_ms = node.startup_timeout_ms
	bridge.request_timeout_ms = node.request_timeout_ms
	return bridge


static func _frozen_server_beside_game() -> String:
	# An exported game ships the frozen server (sorteio-serve) beside itself: in the folder of
	# the executable or of the pack given with --main-pack. "" when there is none.
	var folders: PackedStringArray = [OS.get_executable_path().get_base_dir()]
	var pack: String = _main_pack()
	if pack != "":
		folders.append(pack.get_base_dir() if pack.get_base_dir() != "" else ".")
	for folder: String in folders:
		for server: String in [SocketBridge.FROZEN_SERVER, SocketBridge.FROZEN_SERVER + ".exe"]:
			if FileAccess.file_exists(folder.path_join(server)):
				return folder.path_join(server)
	return ""


static func _main_pack() -> String:
	# The --main-pack argument: get_cmdline_args() hides Godot's own options, Linux's
	# /proc/self/cmdline (NUL-separated) does not. "" elsewhere or without one.
	if not FileAccess.file_exists("/proc/self/cmdline"):
		return ""
	var raw: PackedByteArray = FileAccess.get_file_as_bytes("/proc/self/cmdline")
	var args: PackedStringArray = []
	var start: int = 0
	for at: int in raw.size():
		if raw[at] == 0:
			args.append(raw.slice(start, at).get_string_from_utf8())
			start = at + 1
	for at: int in range(args.size() - 1):
		if args[at] == "--main-pack":
			return args[at + 1]
	return ""


static func _setting_or_env(env: String, setting: String, fallback: String) -> String:
	var value: String = OS.get_environment(env) if env != "" else ""
	if value == "" and ProjectSettings.has_setting(setting):
		value = str(ProjectSettings.get_setting(setting))
	return value if value != "" else fallback
