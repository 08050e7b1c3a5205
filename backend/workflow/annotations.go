package workflow

import "slices"

// Notes and groups annotate the canvas: free text beside the steps and
// titled frames around some of them. They are no steps: the engines, the
// planner and approval never read them (the graph walk goes by Nodes and
// Edges only), and a note's text is shown as text, never run or rendered
// as markup.

// The bounds validate holds notes and groups to (bad_note, bad_group):
// past them a file is a mistake or an attack on the editor, not notes.
const (
	// MaxNotes and MaxGroups bound how many a workflow holds.
	MaxNotes  = 500
	MaxGroups = 200
	// MaxNoteText bounds a note's text, in bytes (UTF-8).
	MaxNoteText = 20000
	// MaxGroupTitle bounds a group's title, in bytes.
	MaxGroupTitle = 200
	// MaxAnnotationSize bounds a note's or group's width and height, in
	// canvas pixels; MinAnnotationSize is the smallest either may be.
	MaxAnnotationSize = 20000
	MinAnnotationSize = 20
)

// Colors are the colours a note or group may have ("" is the default,
// yellow for a note and gray for a group): names the editor maps to its
// theme, never CSS taken from the file.
var Colors = []string{"yellow", "orange", "red", "pink", "purple", "blue", "teal", "green", "gray"}

// ValidColor reports whether c is "" or one of Colors.
func ValidColor(c string) bool {
	return c == "" || slices.Contains(Colors, c)
}

// Size is a note's or group's extent on the canvas.
type Size struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Note is free text on the canvas (a sticky note).
type Note struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Position Position `json:"position"`
	Size     Size     `json:"size"`
	Color    string   `json:"color,omitempty"`

	Extra Extra `json:"-"`
}

// Group is a titled, coloured frame around some nodes (by id) that moves
// them together on the canvas.
type Group struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Position Position `json:"position"`
	Size     Size     `json:"size"`
	Color    string   `json:"color,omitempty"`
	Nodes    []string `json:"nodes"`

	Extra Extra `json:"-"`
}

// WithoutAnnotations returns w without its notes and groups (a shallow
// copy; w itself when it has none): what an engine is sent, since no run
// reads them and a Temporal payload is bounded.
func (w *Workflow) WithoutAnnotations() *Workflow {
	if len(w.Notes) == 0 && len(w.Groups) == 0 {
		return w
	}
	c := *w
	c.Notes, c.Groups = nil, nil
	return &c
}
