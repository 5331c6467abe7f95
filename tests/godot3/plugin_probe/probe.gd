tool
extends EditorPlugin
# Engine test helper, loaded by a headless editor (godot3-server -e) in a throwaway project that
# has addons/sorteio: toggles the Sorteio plugin as a user would in Project Settings > Plugins,
# checks that enabling registers the autoload and disabling removes it, then quits.

const AUTOLOAD := "autoload/Sorteio"
const EXPECTED := "*res://addons/sorteio/sorteio_node.gd"

var _frames := 0


func _enter_tree() -> void:
	set_process(true)


func _process(_delta: float) -> void:
	_frames += 1
	if _frames != 20:  # let the editor finish starting
		return
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
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	get_tree().quit()


func _check(ok: bool, name: String, detail := "") -> bool:
	print("CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + detail if detail else ""])
	return ok
