@tool
extends Control
## A horizontal bar chart of figures Python computed (the panel never computes them): one
## labelled bar per entry, its value written beside it, lengths scaled to the largest value
## for drawing only; negative values draw left of a zero line. Editor only.

const BAR_COLOR := Color(0.35, 0.5, 0.84)
const ROW_HEIGHT := 20.0
const LABEL_WIDTH := 190.0

## The chart's title, drawn on top.
var title: String = ""
## printf format of a value label.
var value_format: String = "%.2f"
## Filled behind the chart when not transparent (the PNG export's copy: the panel's colour).
var background := Color(0, 0, 0, 0)
var _labels: Array[String] = []
var _values: Array[float] = []


## Replaces the data: [param labels] and [param values] of the same size.
func set_data(new_title: String, labels: Array, values: Array) -> void:
	title = new_title
	_labels.assign(labels.map(func(v: Variant) -> String: return str(v)))
	_values.assign(values.map(func(v: Variant) -> float: return float(v)))
	custom_minimum_size = Vector2(280, ROW_HEIGHT * (_values.size() + 1.5))
	queue_redraw()


## Number of bars drawn.
func bar_count() -> int:
	return _values.size()


## The bars' labels, top to bottom.
func bar_labels() -> Array[String]:
	return _labels.duplicate()


## The whole chart as an image, for a PNG export: a copy drawn into a [SubViewport] of the
## chart's own width and full height, so a tall chart (the per-card one) is not cut where the
## panel's scroll view ends. Null when nothing can be drawn (a headless editor renders nothing).
func to_image() -> Image:
	if DisplayServer.get_name() == "headless" or not is_inside_tree():
		return null
	var canvas := SubViewport.new()
	canvas.size = Vector2i(maxi(int(size.x), 480), int(ceilf(custom_minimum_size.y)))
	canvas.render_target_update_mode = SubViewport.UPDATE_ALWAYS
	var copy: Control = get_script().new()
	copy.value_format = value_format
	copy.background = (
		get_theme_color("base_color", "Editor")
		if has_theme_color("base_color", "Editor")
		else Color(0.13, 0.15, 0.18)
	)
	# A viewport does not pass the editor's theme on: the copy gets the Label look it draws with.
	copy.theme = Theme.new()
	copy.theme.set_font("font", "Label", get_theme_font("font", "Label"))
	copy.theme.set_font_size("font_size", "Label", get_theme_font_size("font_size", "Label"))
	copy.theme.set_color("font_color", "Label", get_theme_color("font_color", "Label"))
	copy.set_data(title, _labels, _values)
	copy.size = Vector2(canvas.size)
	canvas.add_child(copy)
	add_child(canvas)
	# Drawn now, in this call: the export answers at once and the viewport is freed right after.
	RenderingServer.force_draw(false)
	var image := canvas.get_texture().get_image()
	canvas.queue_free()
	return image


func _draw() -> void:
	if background.a > 0.0:
		draw_rect(Rect2(Vector2.ZERO, size), background)
	var font := get_theme_font("font", "Label")
	var size_px := get_theme_font_size("font_size", "Label")
	var text_color := get_theme_color("font_color", "Label")
	draw_string(
		font,
		Vector2(4, font.get_ascent(size_px) + 2),
		title,
		HORIZONTAL_ALIGNMENT_LEFT,
		size.x - 8,
		size_px,
		text_color
	)
	var highest := 0.0
	var lowest := 0.0
	for value in _values:
		highest = maxf(highest, value)
		lowest = minf(lowest, value)
	var span := highest - lowest
	if span <= 0.0:
		span = 1.0
	var width := maxf(size.x - LABEL_WIDTH - 70.0, 10.0)
	var zero := LABEL_WIDTH + width * (-lowest / span)
	for i in _values.size():
		var y := ROW_HEIGHT * (i + 1.2)
		var length := width * _values[i] / span
		var baseline := y + font.get_ascent(size_px)
		draw_string(
			font,
			Vector2(4, baseline),
			_labels[i],
			HORIZONTAL_ALIGNMENT_LEFT,
			LABEL_WIDTH - 8,
			size_px,
			text_color,
			TextServer.JUSTIFICATION_NONE
		)
		var left := minf(zero, zero + length)
		draw_rect(Rect2(left, y + 3, maxf(absf(length), 1.0), ROW_HEIGHT - 6), BAR_COLOR)
		draw_string(
			font,
			Vector2(maxf(zero, zero + length) + 4, baseline),
			value_format % _values[i],
			HORIZONTAL_ALIGNMENT_LEFT,
			-1,
			size_px,
			text_color
		)
