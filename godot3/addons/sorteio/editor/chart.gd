tool
extends Control
# A bar chart of figures Python computed (the panel never computes them): one bar per label,
# heights scaled to the largest value for drawing only. Horizontal bars with their labels when
# there are few (modes), thin vertical bars when there are many (cards).

const BAR_COLOR := Color(0.35, 0.5, 0.84)
const TEXT_COLOR := Color(0.88, 0.88, 0.88)
const MAX_LABELED := 24
const ROW_HEIGHT := 18.0
const LABEL_WIDTH := 170.0

var title := ""
var labels := []
var values := []
# printf format of a value label (e.g. "%.2f").
var value_format := "%.2f"


func set_data(new_title: String, new_labels: Array, new_values: Array) -> void:
	title = new_title
	labels = new_labels
	values = new_values
	var rows := labels.size() if labels.size() <= MAX_LABELED else 8
	rect_min_size = Vector2(240, ROW_HEIGHT * (rows + 2))
	update()


func bar_count() -> int:
	return values.size()


func _draw() -> void:
	var font := get_font("font", "Label")
	draw_string(font, Vector2(4, font.get_ascent() + 2), title, TEXT_COLOR)
	if values.empty():
		return
	var top := ROW_HEIGHT + 4
	var highest := 0.0
	for value in values:
		highest = max(highest, float(value))
	if highest <= 0.0:
		highest = 1.0
	if values.size() <= MAX_LABELED:
		var width := max(rect_size.x - LABEL_WIDTH - 60, 10.0)
		for i in range(values.size()):
			var y := top + i * ROW_HEIGHT
			var length := width * float(values[i]) / highest
			draw_string(font, Vector2(4, y + font.get_ascent()), str(labels[i]), TEXT_COLOR)
			draw_rect(Rect2(LABEL_WIDTH, y + 2, max(length, 1.0), ROW_HEIGHT - 4), BAR_COLOR)
			var text := value_format % float(values[i])
			draw_string(font, Vector2(LABEL_WIDTH + length + 4, y + font.get_ascent()), text)
		return
	var height := max(rect_size.y - top - 4, 10.0)
	var step := max((rect_size.x - 8) / values.size(), 1.0)
	for i in range(values.size()):
		var bar := height * float(values[i]) / highest
		draw_rect(Rect2(4 + i * step, top + height - bar, max(step - 1, 1.0), bar), BAR_COLOR)
