package approval

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/reveal"
)

// Display is a Step as a person reads it before approving it: every text
// of the step escaped by package reveal, so a bidi override or a
// zero-width character in a command shows as \u202E or \u200B instead of
// reordering or hiding what runs. The desktop's dialog and the terminal
// both show this and nothing else of the step, so they escape alike.
type Display struct {
	Name   string `json:"name"`
	Key    string `json:"key"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason"`
	// Arguments are a Tool step's arguments, by name.
	Arguments []Field  `json:"arguments"`
	Prompt    string   `json:"prompt,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	// Other is the rest of what approval covers (retry, verify,
	// timeout, an If's params.condition, where it leads…), by name.
	Other []Field `json:"other"`
	// Content is Step.Content and Previous is Step.Previous, each still
	// JSON for the same value.
	Content  string `json:"content"`
	Previous string `json:"previous,omitempty"`
	// Escaped is true when anything above was escaped; Note then says
	// how to read it (reveal.Note).
	Escaped bool   `json:"escaped"`
	Note    string `json:"note,omitempty"`
}

// Field is one named value of a step. Value is a string as it is, or any
// other value as indented JSON (JSON true), so 5 and "5" differ.
type Field struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	JSON    bool   `json:"json,omitempty"`
	Escaped bool   `json:"escaped,omitempty"`
}

// Display returns s as a person reads it.
func (s Step) Display() Display {
	d := Display{Arguments: []Field{}, Other: []Field{}}
	text := func(v string) string {
		t, esc := reveal.Text(v)
		d.Escaped = d.Escaped || esc
		return t
	}
	field := func(name string, v any) Field {
		f := fieldOf(name, v)
		d.Escaped = d.Escaped || f.Escaped
		return f
	}
	d.Name, d.Key, d.Tool, d.Reason, d.Prompt = text(s.Name), text(s.Key), text(s.Tool), text(s.Reason), text(s.Prompt)
	for _, t := range s.Tools {
		d.Tools = append(d.Tools, text(t))
	}
	for _, k := range sortedKeys(s.Arguments) {
		d.Arguments = append(d.Arguments, field(k, s.Arguments[k]))
	}
	for _, f := range others(s.Content) {
		d.Other = append(d.Other, field(f.name, f.value))
	}
	c, esc := reveal.JSON(s.Content)
	p, pesc := reveal.JSON(s.Previous)
	d.Content, d.Previous, d.Escaped = c, p, d.Escaped || esc || pesc
	if d.Escaped {
		d.Note = reveal.Note
	}
	return d
}

// MarshalJSON writes a Step with its Display form beside it ("display"),
// so every Step that reaches the desktop, by whatever path, carries the
// text to show; the fields of the step stay as they are for programs.
func (s Step) MarshalJSON() ([]byte, error) {
	type plain Step // without this method
	return json.Marshal(struct {
		plain
		Display Display `json:"display"`
	}{plain(s), s.Display()})
}

type member struct {
	name  string
	value any
}

// others lists what content covers besides what a Step shows in its own
// fields (type, key, a tool's name and arguments, a prompt): the node's
// other fields, "next" included, and its other params as
// "params.condition" and the like.
func others(content string) []member {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber() // numbers as written
	if dec.Decode(&m) != nil {
		return nil
	}
	var out []member
	for _, k := range sortedKeys(m) {
		switch k {
		case "type", "key":
			continue
		case "params":
			if p, ok := m[k].(map[string]any); ok {
				for _, pk := range sortedKeys(p) {
					if pk != "tool" && pk != "arguments" && pk != "prompt" {
						out = append(out, member{"params." + pk, p[pk]})
					}
				}
				continue
			}
		}
		if k == "next" {
			out = append(out, member{k, nextText(m[k])})
			continue
		}
		out = append(out, member{k, m[k]})
	}
	return out
}

// nextText writes where a step leads as a person reads it: "→ save",
// "IfTrue → deploy; IfFalse → note", or that the run ends there.
func nextText(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	if len(list) == 0 {
		return "nowhere: the run ends after it"
	}
	var parts []string
	for _, x := range list {
		e, ok := x.(map[string]any)
		if !ok {
			return v
		}
		to, _ := e["to"].(string)
		out, _ := e["output"].(string)
		parts = append(parts, strings.TrimSpace(out+" → "+to))
	}
	return strings.Join(parts, "; ")
}

func fieldOf(name string, v any) Field {
	n, nameEsc := reveal.Text(name)
	if s, ok := v.(string); ok {
		t, esc := reveal.Text(s)
		return Field{Name: n, Value: t, Escaped: esc || nameEsc}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // && and > as written
	enc.SetIndent("", "  ")
	text := "null"
	if enc.Encode(v) == nil {
		text = strings.TrimSuffix(b.String(), "\n")
	}
	t, esc := reveal.JSON(text)
	return Field{Name: n, Value: t, JSON: true, Escaped: esc || nameEsc}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
