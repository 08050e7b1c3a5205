package planner

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A reply written exactly in the format the prompt asks for: one JSON
// object whose keys are the plan schema's own names, whose steps and edges
// have only their schema's own keys, and in which no value but a list of
// steps or edges holds an object or a list, and no string starts like
// JSON. Read without a warning, such a reply has nothing a reading could
// leave out, so ReadReply skips the measure of what was left out (which
// reads the reply a second time); any other reply is measured.

// exactKeys are the canonical field names of the plan, step and edge
// schemas (synonyms.go), by schema.
var exactKeys = func() map[string]map[string]bool {
	out := map[string]map[string]bool{"plan": {}, "step": {}, "edge": {}, "output": {}}
	for schema, fields := range synonyms {
		dest := "step"
		switch schema {
		case "plan", "edge", "output":
			dest = schema
		case "patch", "tool_call", "case", "done_when":
			continue
		}
		for f := range fields {
			out[dest][f] = true
		}
	}
	// Lists of steps inside a step (a flat plan's branches) are read
	// there, where the measure decides.
	for _, f := range []string{"then", "else", "default", "body", "cases", "error_steps", "done_when", "on_error"} {
		delete(out["step"], f)
	}
	delete(out["plan"], "done_when")
	return out
}()

// exactReply reports whether text is a plan written exactly in the
// requested format (see above).
func exactReply(text string) bool {
	root := gjson.Parse(strings.TrimSpace(text))
	if !root.IsObject() {
		return false
	}
	ok := true
	root.ForEach(func(k, v gjson.Result) bool {
		switch key := k.String(); {
		case !exactKeys["plan"][key]:
			ok = false
		case key == "steps" || key == "nodes":
			ok = exactList(v, "step")
		case key == "edges":
			ok = exactList(v, "edge")
		default:
			ok = plainValue(v)
		}
		return ok
	})
	return ok
}

// exactList: a list of objects with only the schema's keys, whose values
// are plain (a step's arguments: an object of plain values; an edge's
// output: an object of the output schema's keys).
func exactList(list gjson.Result, schema string) bool {
	if !list.IsArray() {
		return false
	}
	ok := true
	list.ForEach(func(_, item gjson.Result) bool {
		if !item.IsObject() {
			ok = false
			return false
		}
		item.ForEach(func(k, v gjson.Result) bool {
			switch key := k.String(); {
			case !exactKeys[schema][key]:
				ok = false
			case schema == "step" && key == "arguments" && v.IsObject():
				v.ForEach(func(_, a gjson.Result) bool { ok = plainValue(a); return ok })
			case schema == "edge" && key == "output" && v.IsObject():
				v.ForEach(func(k, o gjson.Result) bool { ok = exactKeys["output"][k.String()] && plainValue(o); return ok })
			default:
				ok = plainValue(v)
			}
			return ok
		})
		return ok
	})
	return ok
}

// plainValue: a scalar, and no string that starts like JSON (a template's
// "{{" does not).
func plainValue(v gjson.Result) bool {
	switch v.Type {
	case gjson.String:
		s := strings.TrimSpace(v.Str)
		return s == "" || !(s[0] == '[' || s[0] == '"' || s[0] == '{' && !strings.HasPrefix(s, "{{"))
	case gjson.JSON:
		return false
	}
	return true
}
