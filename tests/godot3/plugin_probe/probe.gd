tool
extends EditorPlugin
# Engine test helper, loaded by a headless editor (godot3-server -e) in a throwaway project that
# has addons/sorteio: toggles the Sorteio plugin as a user would in Project Settings > Plugins,
# checks that enabling registers the autoload and disabling removes it, then quits.
#
# It first waits for the editor to be idle: its first filesystem scan and the imports it started
# over (EditorFileSystem's first sources_changed; is_scanning() is false before that scan too),
# then the resource preview thread done with every file. That thread loads each resource the
# FileSystem dock lists (ResourceLoader.load, for a thumbnail) while the main thread runs, and
# 3.2's loader caches a script before compiling it: enabling the plugin while the thread was
# loading one of the addon's scripts handed plugin.gd an uncompiled script ("Nonexistent function
# 'new' in base 'GDScript'", "Couldn't fully preload"), 5 runs in 15 under load even after 4 s of
# editor time. The thread serves its queue in order and caches every preview, so once a preview
# this probe queues for each file has come back, no earlier request is left and no later one
# loads anything.

const AUTOLOAD := "autoload/Sorteio"
const EXPECTED := "*res://addons/sorteio/sorteio_node.gd"
# Generous: the whole run normally takes ~5 s, ~20 s on a 2-core machine with a load of 10.
const DEADLINE_MS := 120000

var _scanned := false
var _pending := {}  # path -> true, previews asked for and not yet back
var _queued := false
var _done := false


func _enter_tree() -> void:
	# Before the first scan can end: it ends in a process frame, plugins start before the first.
	get_editor_interface().get_resource_filesystem().connect("sources_changed", self, "_on_sources")
	set_process(true)


func _on_sources(_exist: bool) -> void:
	_scanned = true


func _process(_delta: float) -> void:
	if _done:
		return
	if OS.get_ticks_msec() > DEADLINE_MS:
		_done = true
		var why := "scanning" if not _queued else "%d previews to come" % _pending.size()
		_check(false, "the editor became idle", "still %s after %d ms" % [why, DEADLINE_MS])
		_finish(false)
		return
	if not _scanned or get_editor_interface().get_resource_filesystem().is_scanning():
		return
	if not _queued:
		_queued = true
		_queue_previews(get_editor_interface().get_resource_filesystem().get_filesystem())
		return
	if not _pending.empty():
		return
	_done = true
	_toggle()


func _queue_previews(folder: EditorFileSystemDirectory) -> void:
	# A preview of every file the scan found (what the dock lists), the addon's scripts among them.
	for index in folder.get_file_count():
		var path := folder.get_file_path(index)
		_pending[path] = true
		get_editor_interface().get_resource_previewer().queue_resource_preview(
			path, self, "_on_preview", path
		)
	for index in folder.get_subdir_count():
		_queue_previews(folder.get_subdir(index))


func _on_preview(_path: String, _preview: Texture, _thumbnail: Texture, path: String) -> void:
	_pending.erase(path)


func _toggle() -> void:
	var editor := get_editor_interface()
	var ok := true
	ok = _check(not ProjectSettings.has_setting(AUTOLOAD), "no autoload before enabling") and ok
	editor.set_plugin_enabled("sorteio", true)
	var value = (
		ProjectSettings.get_setting(AUTOLOAD)
		if ProjectSettings.has_setting(AUTOLOAD)
		else ""
	)
	ok = _check(editor.is_plugin_enabled("sorteio"), "plugin enabled") and ok
	ok = _check(value == EXPECTED, "enabling registers the autoload", str(value)) and ok
	editor.set_plugin_enabled("sorteio", false)
	ok = _check(not ProjectSettings.has_setting(AUTOLOAD), "disabling removes the autoload") and ok
	_finish(ok)


func _finish(ok: bool) -> void:
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	get_tree().quit()


func _check(ok: bool, name: String, detail := "") -> bool:
	print("CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + detail if detail else ""])
	return ok
