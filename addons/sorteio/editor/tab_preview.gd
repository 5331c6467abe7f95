@tool
extends VBoxContainer
## The Sorteio panel's "Prévia" tab (editor only): the next turn (Python's [code]preview[/code]),
## from the start, a saved match or a designer's situation ([code]start_picker.gd[/code]),
## with each card's reason, the option the chosen player takes and the meters after it.

## The CSV export of this tab's rows was asked for.
signal export_requested(what: String)

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
const StartPicker := preload("res://addons/sorteio/editor/start_picker.gd")

## The turn, one row per event.
var tree: Tree
## Where the preview starts (the match start, a saved match, a situation, §4's sample).
var start: StartPicker
var _link: Link
var _seed: SpinBox
var _player: OptionButton


func _init(link: Link) -> void:
	_link = link
	name = SorteioI18n.t("Prévia")
	var row := HBoxContainer.new()
	add_child(row)
	start = StartPicker.new(link, true)
	start.size_flags_horizontal = SIZE_EXPAND_FILL
	row.add_child(start)
	row.add_child(Ui.label(SorteioI18n.t("semente:")))
	_seed = Ui.spin(0, 2147483647, 0)
	row.add_child(_seed)
	row.add_child(Ui.label(SorteioI18n.t("jogador:")))
	_player = Ui.players()
	row.add_child(_player)
	tree = Ui.tree(SorteioI18n.t("turno"), 6, [1, 2, 1, 4, 2, 3])
	var box := VBoxContainer.new()
	box.size_flags_vertical = SIZE_EXPAND_FILL  # the rows take the tab, not 140 pixels of it
	Ui.with_export(box, tree, func() -> void: export_requested.emit("preview"))
	add_child(box)


## Preview: the next turn from where [member start] says, or from a saved match at
## [param state_path] (then chosen in [member start]).
func run(state_path: String = "") -> void:
	if state_path != "":
		start.choose("state", state_path)
	var params := {
		"deck": _link.deck_for_python(),
		"seed": int(_seed.value),
		"policy": Ui.PLAYERS[_player.selected][0],
	}
	params.merge(start.params())
	var reply := await _link.request("preview", params)
	if start.show_problems(tree, reply):
		_link.tabs.current_tab = 3
	if _link.answer("preview", reply):
		show_result(reply["result"])


## Shows a [code]preview[/code] result and this tab.
func show_result(result: Dictionary) -> void:
	var root := Ui.reset(
		tree,
		[
			SorteioI18n.t("ano.vaga"),
			SorteioI18n.t("carta"),
			SorteioI18n.t("modo"),
			SorteioI18n.t("por quê"),
			SorteioI18n.t("opção escolhida"),
			SorteioI18n.t("medidores depois")
		]
	)
	if result["start_text"] != null:
		var first := tree.create_item(root)
		first.set_text(0, SorteioI18n.t("início"))
		first.set_text(3, str(result["start_text"]))
	for row: Dictionary in result["rows"]:
		var item := tree.create_item(root)
		if row["event"] == "turn_started":
			item.set_text(0, SorteioI18n.t("Ano %d") % int(row["year"]))
			var texts: Array[String] = []
			for ob: Dictionary in row["mandatory"]:
				texts.append(str(ob["texto"]))
			item.set_text(
				3,
				(
					SorteioI18n.t("obrigatórias: ")
					+ (", ".join(texts) if texts else SorteioI18n.t("nenhuma"))
				)
			)
		elif row["event"] == "card_played":
			item.set_text(0, "%d.%d" % [int(row["year"]), int(row["slot"])])
			item.set_text(1, "%s «%s»" % [row["card_id"], row["titulo"]])
			item.set_text(2, str(row.get("modo_texto", row["modo"])))
			item.set_text(3, str(row["reason_text"]))
			item.set_text(4, str(row["option_text"]))
			item.set_text(5, str(row["meters_text"]))
		else:
			item.set_text(0, SorteioI18n.t("fim do ano %d") % int(row["year"]))
			item.set_text(
				3,
				(
					SorteioI18n.t("%d cartas%s")
					% [int(row["cards"]), SorteioI18n.t(" (turno curto)") if row["short"] else ""]
				)
			)
	if result["ending"] != null:
		var end := tree.create_item(root)
		end.set_text(0, SorteioI18n.t("fim"))
		end.set_text(3, str(result["ending"]))
	# Every row wraps, the start and the ending too (issue 15: nothing cut off).
	for item: TreeItem in root.get_children():
		for c in tree.columns:
			item.set_autowrap_mode(c, TextServer.AUTOWRAP_WORD_SMART)
	_link.set_status(SorteioI18n.t("prévia do próximo turno, %s") % start.describe())
	_link.tabs.current_tab = 3
