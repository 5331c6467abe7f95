@tool
extends VBoxContainer
## The Sorteio panel's "Cobertura" tab (editor only): Python's [code]lint[/code] report as
## tables: playable cards per year, cards per mode, cards linked per meter, actor cards per
## function, cards never drawn, and the coverage problems.

## The CSV export of this tab's rows was asked for.
signal export_requested(what: String)

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")

## The report's sections and rows.
var tree: Tree
var _link: Link


func _init(link: Link) -> void:
	_link = link
	tree = Ui.tree(SorteioI18n.t("Cobertura"), 7, [3, 1, 1, 1, 1, 1, 1])
	Ui.with_export(self, tree, func() -> void: export_requested.emit("coverage"))


## Coverage: the lint report as tables.
func run() -> void:
	var reply := await _link.request("lint", {"deck": _link.deck_for_python()})
	if _link.answer("coverage", reply):
		show_result(reply["result"])


## Shows a [code]lint[/code] report and this tab.
func show_result(report: Dictionary) -> void:
	var root := Ui.reset(tree, ["", "", "", "", "", "", ""])
	_section(
		root,
		SorteioI18n.t("Cartas jogáveis por ano (§3.1.3, §5)"),
		[
			SorteioI18n.t("ano"),
			SorteioI18n.t("novas"),
			SorteioI18n.t("comuns"),
			SorteioI18n.t("de ator"),
			SorteioI18n.t("necessárias"),
			SorteioI18n.t("modos"),
			SorteioI18n.t("situação")
		]
	)
	for y: Dictionary in report["years"]:
		Ui.line(
			tree,
			root,
			[
				y["year"],
				y["new"],
				y["common_available"],
				y["actor_available"],
				y["need"],
				y["modes"],
				y["status"]
			],
			y["status"] != "ok"
		)
	_section(
		root,
		SorteioI18n.t("Cartas por modo (§3.4)"),
		[SorteioI18n.t("modo"), SorteioI18n.t("cartas")] + Ui.years(),
	)
	for m: Dictionary in report["modes"]:
		Ui.line(tree, root, [m.get("nome", m["mode"]), m["cards"]] + m["by_year"], false)
	_section(
		root,
		SorteioI18n.t("Cartas ligadas por medidor (§3.2, §3.3)"),
		(
			[SorteioI18n.t("medidor"), SorteioI18n.t("ligadas")]
			+ _until_years()
			+ [SorteioI18n.t("situação")]
		)
	)
	for m: Dictionary in report["meters"]:
		Ui.line(
			tree,
			root,
			[m.get("nome", m["meter"]), m["linked"]] + m["by_year"] + [m["status"]],
			m["status"] != "ok"
		)
	if not report["actors"].is_empty():
		var functions: Array = report["actors"][0]["functions"].keys()
		_section(
			root,
			SorteioI18n.t("Cartas de ator por função (GDD 07 §3.2)"),
			[SorteioI18n.t("ator")] + functions
		)
		for a: Dictionary in report["actors"]:
			var cells: Array = [a.get("nome", a["actor"])]
			for f: String in functions:
				cells.append(a["functions"][f])
			Ui.line(tree, root, cells, not a["missing"].is_empty())
	if not report["never_drawn"].is_empty():
		_section(
			root,
			SorteioI18n.t("Nunca sorteadas"),
			[SorteioI18n.t("carta"), SorteioI18n.t("por quê")]
		)
		for n: Dictionary in report["never_drawn"]:
			Ui.line(tree, root, [n["card"], n["reason"]], false)
	_section(root, SorteioI18n.t("Problemas"), [""])
	for text: String in report["problems"]:
		Ui.line(tree, root, [text], true)
	if report["problems"].is_empty():
		Ui.line(tree, root, [SorteioI18n.t("Nenhum problema de cobertura.")], false)
	_link.set_status(
		(
			SorteioI18n.t("cobertura: %d jogáveis de %d cartas para %d vagas; %d problema(s)")
			% [
				int(report["playable"]),
				int(report["cards"]),
				int(report["slots_per_match"]),
				report["problems"].size()
			]
		)
	)
	_link.tabs.current_tab = 2


func _section(root: TreeItem, title: String, headers: Array) -> void:
	var item := tree.create_item(root)
	item.set_text(0, title)
	item.set_custom_color(0, Color(0.6, 0.8, 1.0))
	var header := tree.create_item(root)
	for c in mini(headers.size(), tree.columns):
		header.set_text(c, str(headers[c]))
		header.set_custom_color(c, Color(0.7, 0.7, 0.7))


static func _until_years() -> Array[String]:
	var out: Array[String] = []
	for year in range(1, 5):
		out.append(SorteioI18n.t("até ano %d") % year)
	return out
