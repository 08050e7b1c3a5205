package validate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// mcpCatalog is the built-ins and one MCP tool, srv.t, of that schema.
func mcpCatalog(schema string) *tools.Catalog {
	return tools.Builtin().With("srv", []tools.Tool{{Name: "t", InputSchema: json.RawMessage(schema)}})
}

// argsWF is a one-step workflow calling srv.t with args (JSON), after a
// step whose outputs templates may read.
func argsWF(t *testing.T, args string) *workflow.Workflow {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		t.Fatalf("args %s: %v", args, err)
	}
	return wf(ns(cmd("prev", "echo 1"), node("call", workflow.TypeTool, workflow.Params{Tool: "srv.t", Arguments: a})), e("prev", "call"))
}

func TestMCPArgumentsAgainstSchema(t *testing.T) {
	const nested = `{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},
		"sn":{"type":["string","null"]},"e":{"enum":["a","b",1]},"c":{"const":"x"},
		"lim":{"type":"integer","minimum":1,"maximum":5},"pat":{"type":"string","pattern":"^[a-z]+$"},
		"options":{"type":"object","properties":{"depth":{"type":"integer"},"mode":{"type":"string","enum":["fast","slow"]}},"required":["mode"],"additionalProperties":false},
		"tags":{"type":"array","items":{"type":"string"}},
		"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]},
		"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}},
		"ref":{"$ref":"#/$defs/point"},
		"either":{"anyOf":[{"type":"boolean"},{"type":"array","items":{"type":"string"}}]},
		"free":{"type":"object"}
	},"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"additionalProperties":false}`
	cases := []struct {
		args string
		code string // "" for no problem
		path string
		msg  string // a part of the message
	}{
		{`{"n": 1.5}`, "", "", ""},
		{`{"n": 2}`, "", "", ""}, // an integer is a number
		{`{"i": 2}`, "", "", ""},
		{`{"i": 2.0}`, "", "", ""}, // 2.0 is a whole number
		{`{"i": 2.5}`, CodeBadArgument, "/i", "must be an integer, not the number 2.5"},
		{`{"i": "x"}`, CodeBadArgument, "/i", `must be an integer, not the string "x"`},
		{`{"n": [1.5]}`, CodeBadArgument, "/n", "must be a number, not an array"},
		{`{"s": {}}`, CodeBadArgument, "/s", "must be a string, not an object"},
		{`{"b": "yes"}`, CodeBadArgument, "/b", "must be a boolean"},
		{`{"b": "True"}`, CodeBadArgument, "/b", "must be a boolean"},

		// A top-level argument of one type is coerced as the run coerces
		// it (render.CoerceArg), then checked; a nested one is not.
		{`{"i": "2"}`, "", "", ""},
		{`{"i": " 2 "}`, "", "", ""},
		{`{"i": "2.5"}`, CodeBadArgument, "/i", "must be an integer, not the number 2.5"},
		{`{"n": "1.5"}`, "", "", ""},
		{`{"s": 5}`, "", "", ""},
		{`{"s": true}`, "", "", ""},
		{`{"b": "true"}`, "", "", ""},
		{`{"lim": "9"}`, CodeBadArgument, "/lim", "breaks a limit"},
		{`{"sn": 3}`, CodeBadArgument, "/sn", "must be a string or null, not the number 3"}, // a type list: not coerced
		{`{"options": {"mode": "fast", "depth": "3"}}`, CodeBadArgument, "/options/depth", `must be an integer, not the string "3"`},
		{`{"i": "{{prev.exit_code}}0"}`, "", "", ""}, // may render to a number
		{`{"b": "x{{prev.stdout}}"}`, "", "", ""},
		{`{"b": false}`, "", "", ""},
		{`{"sn": null}`, "", "", ""},
		{`{"sn": "x"}`, "", "", ""},
		{`{"e": "a"}`, "", "", ""},
		{`{"e": 1}`, "", "", ""},
		{`{"e": "c"}`, CodeBadArgument, "/e", `must be one of "a", "b", 1, not the string "c"`},
		{`{"e": "1"}`, CodeBadArgument, "/e", "must be one of"},
		{`{"c": "x"}`, "", "", ""},
		{`{"c": "y"}`, CodeBadArgument, "/c", `must be "x"`},
		{`{"lim": 5}`, "", "", ""},
		{`{"lim": 6}`, CodeBadArgument, "/lim", "breaks a limit"},
		{`{"lim": 0}`, CodeBadArgument, "/lim", "breaks a limit"},
		{`{"pat": "abc"}`, "", "", ""},
		{`{"pat": "ABC"}`, CodeBadArgument, "/pat", "breaks a limit"},
		{`{"options": {"mode": "fast", "depth": 3}}`, "", "", ""},
		{`{"options": {"mode": "fast", "depth": "deep"}}`, CodeBadArgument, "/options/depth", `the argument 'options.depth' must be an integer, not the string "deep"`},
		{`{"options": {"mode": "quick"}}`, CodeBadArgument, "/options/mode", `must be one of "fast", "slow"`},
		{`{"options": {"depth": 3}}`, CodeMissingArgument, "/options/mode", "the argument 'options.mode' is required"},
		{`{"options": {"mode": "fast", "dpth": 3}}`, CodeUnknownArgument, "/options/dpth", "is not one the tool takes (it takes 'depth', 'mode')"},
		{`{"options": "fast"}`, CodeBadArgument, "/options", "must be an object, not the string"},
		{`{"nope": 1}`, CodeUnknownArgument, "/nope", "the argument 'nope' is not one the tool takes"},
		{`{"tags": ["a", "b"]}`, "", "", ""},
		{`{"tags": ["a", 2]}`, CodeBadArgument, "/tags/1", "the argument 'tags[1]' must be a string, not the number 2"},
		{`{"tags": "a"}`, CodeBadArgument, "/tags", "must be an array"},
		{`{"pair": ["a", 1, true]}`, "", "", ""}, // past prefixItems: no items schema
		{`{"pair": [1, 1]}`, CodeBadArgument, "/pair/0", "must be a string"},
		{`{"rows": [{"id": 1}, {"id": 2, "x": 1}]}`, CodeUnknownArgument, "/rows/1/x", "'rows[1].x'"},
		{`{"ref": {"x": 1}}`, "", "", ""},
		{`{"ref": {"x": "1"}}`, CodeBadArgument, "/ref/x", "must be a number"},
		{`{"ref": {}}`, CodeMissingArgument, "/ref/x", "required"},
		{`{"either": true}`, "", "", ""},
		{`{"either": ["a"]}`, "", "", ""},
		{`{"either": ["a", 1]}`, CodeBadArgument, "/either", "matches none of the forms the tool takes (a boolean; an array)"},
		{`{"either": "yes"}`, CodeBadArgument, "/either", "matches none"},
		{`{"free": {"anything": [1, {"x": null}]}}`, "", "", ""},

		// Templates: a whole placeholder may be any type; text around one
		// is a string; the structure around them is still checked.
		{`{"i": "{{prev.exit_code}}"}`, "", "", ""},
		{`{"options": "{{prev.stdout}}"}`, "", "", ""},
		{`{"options": {"mode": "{{prev.stdout}}", "depth": "{{prev.exit_code}}"}}`, "", "", ""},
		{`{"options": {"mode": "{{prev.stdout}}", "extra": "{{prev.stdout}}"}}`, CodeUnknownArgument, "/options/extra", "not one the tool takes"},
		{`{"options": {"depth": "{{prev.exit_code}}"}}`, CodeMissingArgument, "/options/mode", "required"},
		{`{"tags": ["a", "{{prev.exit_code}}", "x{{prev.stdout}}"]}`, "", "", ""},
		{`{"tags": ["{{prev.stdout}}", 3]}`, CodeBadArgument, "/tags/1", "must be a string, not the number 3"},
		{`{"rows": [{"id": "{{prev.exit_code}}"}, {"id": "n{{prev.exit_code}}"}]}`, CodeBadArgument, "/rows/1/id", "must be an integer, not text with a placeholder in it"},
		{`{"s": "a {{prev.stdout}} b"}`, "", "", ""},
		{`{"e": "{{prev.stdout}}"}`, "", "", ""},
		{`{"e": "x{{prev.stdout}}"}`, "", "", ""}, // a string, of a value not known yet
		{`{"pat": "X{{prev.stdout}}"}`, "", "", ""},
		{`{"options": {"mode": "fast", "depth": "{{secrets.TOKEN}}"}}`, CodeBadArgument, "/options/depth", "must be an integer, not text"}, // a secret is text
		{`{"either": "{{prev.stdout}}"}`, "", "", ""},
	}
	cat := mcpCatalog(nested)
	for _, c := range cases {
		r := Validate(argsWF(t, c.args), cat)
		var got []Problem
		for _, p := range r.Problems {
			switch p.Code {
			case CodeBadArgument, CodeUnknownArgument, CodeMissingArgument:
				got = append(got, p)
			}
		}
		if c.code == "" {
			if len(got) > 0 || !r.Valid {
				dump(t, r)
				t.Errorf("%s: want no problem", c.args)
			}
			continue
		}
		if len(got) != 1 || got[0].Code != c.code || got[0].Path != c.path || !strings.Contains(got[0].Message, c.msg) ||
			got[0].Severity != SeverityError || len(got[0].NodeIDs) != 1 || got[0].NodeIDs[0] != "call" {
			dump(t, r)
			t.Errorf("%s: want one %s at %s saying %q", c.args, c.code, c.path, c.msg)
			continue
		}
		if !strings.HasPrefix(got[0].Message, "'Call' (tool srv.t): the argument ") {
			t.Errorf("%s: message %q does not name the step and tool", c.args, got[0].Message)
		}
	}
}

// TestSchemaTypeWords: every JSON type and type array, against a value of
// every kind (nested, where the run coerces nothing): accepted exactly
// when the type allows it.
func TestSchemaTypeWords(t *testing.T) {
	values := map[string]string{"null": `null`, "boolean": `true`, "integer": `3`, "number": `3.5`, "string": `"s"`, "object": `{}`, "array": `[]`}
	allows := func(types []string, kind string) bool {
		for _, ty := range types {
			if ty == kind || ty == "number" && kind == "integer" {
				return true
			}
		}
		return false
	}
	typeSets := [][]string{{"null"}, {"boolean"}, {"integer"}, {"number"}, {"string"}, {"object"}, {"array"}, {"integer", "string"}, {"null", "array"}, {"number", "boolean", "object"}}
	for _, types := range typeSets {
		tj, _ := json.Marshal(types)
		if len(types) == 1 {
			tj, _ = json.Marshal(types[0])
		}
		cat := mcpCatalog(`{"type":"object","properties":{"o":{"type":"object","properties":{"v":{"type":` + string(tj) + `}}}}}`)
		for kind, val := range values {
			r := Validate(argsWF(t, `{"o": {"v": `+val+`}}`), cat)
			if bad := hasCode(r, CodeBadArgument); bad == allows(types, kind) {
				dump(t, r)
				t.Errorf("type %s, value %s: bad_argument %v", tj, val, bad)
			}
		}
	}
}

// TestSchemaBuiltinsAndOthers: built-in tools keep their lenient reading
// (wait's ms as a decimal string), a disabled step and an unknown or
// schemaless tool are not checked, and a cached catalog's tool is checked
// like a live one.
func TestSchemaBuiltinsAndOthers(t *testing.T) {
	w := wf(ns(node("w", workflow.TypeTool, workflow.Params{Tool: "wait", Arguments: map[string]any{"ms": "500"}})))
	if r := Validate(w, catalog); !r.Valid {
		dump(t, r)
		t.Fatal("a built-in's argument read leniently by the runner is not a schema error")
	}
	bad := argsWF(t, `{"i": "x"}`)
	if r := Validate(bad, mcpCatalog(`{"type":"object","properties":{"i":{"type":"integer"}}}`)); !hasCode(r, CodeBadArgument) {
		t.Fatal("want bad_argument")
	}
	bad.Nodes[1].SetEnabled(false)
	if r := Validate(bad, mcpCatalog(`{"type":"object","properties":{"i":{"type":"integer"}}}`)); hasCode(r, CodeBadArgument) {
		t.Fatal("a disabled step is not checked")
	}
	for _, schema := range []string{``, `{}`, `true`, `{"type":5}`, `"nope"`, `{"properties":{"i":{"$ref":"https://example.com/x"}}}`, `{"properties":{"i":{"$ref":"#/$defs/missing"}}}`} {
		if r := Validate(argsWF(t, `{"i": "x"}`), mcpCatalog(schema)); hasCode(r, CodeBadArgument) || hasCode(r, CodeUnknownArgument) {
			dump(t, r)
			t.Errorf("schema %s: nothing to hold the step to", schema)
		}
	}
	if r := Validate(argsWF(t, `{"i": "x"}`), mcpCatalog(`false`)); !hasCode(r, CodeBadArgument) {
		t.Error("a false schema takes nothing")
	}
}

// TestSchemaBounded: a schema nested past the depth bound, one that refers
// to itself, and anyOf branches that multiply end quickly.
func TestSchemaBounded(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 200) + `{"type":"integer"}` + strings.Repeat(`}}`, 200)
	val := strings.Repeat(`{"a":`, 200) + `"x"` + strings.Repeat(`}`, 200)
	if r := Validate(argsWF(t, `{"a":`+val+`}`), mcpCatalog(`{"type":"object","properties":{"a":`+deep+`}}`)); hasCode(r, CodeBadArgument) {
		t.Error("past the depth bound nothing is checked")
	}
	self := `{"$ref":"#"}`
	if r := Validate(argsWF(t, `{"a":1}`), mcpCatalog(self)); hasCode(r, CodeBadArgument) {
		t.Error("a schema that is only a reference to itself allows anything")
	}
	tree := `{"type":"object","properties":{"a":{"$ref":"#"},"n":{"type":"integer"}}}`
	if r := Validate(argsWF(t, `{"a":{"a":{"a":{"n":"x"}}}}`), mcpCatalog(tree)); !hasCode(r, CodeBadArgument) || r.Problems[0].Path != "/a/a/a/n" {
		dump(t, r)
		t.Error("a recursive schema is followed through the arguments")
	}
	// Eight levels of five anyOf branches, none matching: 5^8 paths unless
	// the visits are bounded.
	defs := `"l0":{"type":"string"}`
	for k := 1; k <= 8; k++ {
		alt := fmt.Sprintf(`{"type":"array","items":{"$ref":"#/$defs/l%d"}}`, k-1)
		defs += fmt.Sprintf(`,"l%d":{"anyOf":[%s,%s,%s,%s,%s]}`, k, alt, alt, alt, alt, alt)
	}
	branchy := `{"type":"object","properties":{"a":{"$ref":"#/$defs/l8"}},"$defs":{` + defs + `}}`
	arg := strings.Repeat("[", 9) + "1" + strings.Repeat("]", 9)
	r := Validate(argsWF(t, `{"a":`+arg+`}`), mcpCatalog(branchy))
	c := &argCheck{s: parseArgSchema(json.RawMessage(branchy))}
	var v any
	_ = json.Unmarshal([]byte(`{"a":`+arg+`}`), &v)
	c.check(v, c.s.root, nil, 0)
	if c.visits > 2*maxArgVisits {
		t.Errorf("%d schema visits, want about %d at most", c.visits, maxArgVisits)
	}
	if len(r.Problems) > maxArgProblems+2 {
		t.Errorf("%d problems", len(r.Problems))
	}
	many := `{`
	for k := 0; k < 100; k++ {
		if k > 0 {
			many += ","
		}
		many += `"x` + strings.Repeat("y", k) + `":1`
	}
	many += `}`
	if n := len(Validate(argsWF(t, many), mcpCatalog(`{"type":"object","additionalProperties":false}`)).Problems); n > maxArgProblems {
		t.Errorf("%d problems for one step, want at most %d", n, maxArgProblems)
	}
}

// FuzzArgSchema checks arbitrary arguments against arbitrary schemas: it
// never panics, stays within its bounds and reports only its codes, each
// at a pointer into the arguments.
//
//	go test ./backend/validate -run='^$' -fuzz=FuzzArgSchema -fuzztime=1m
func FuzzArgSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"o":{"type":"object","properties":{"d":{"type":["integer","null"]}},"required":["d"],"additionalProperties":false}}}`, `{"o":{"d":"x","e":1}}`)
	f.Add(`{"properties":{"a":{"$ref":"#"},"t":{"type":"array","items":{"enum":["a",1]}}}}`, `{"a":{"a":{"t":["a","{{p.x}}","b{{p.y}}",2]}}}`)
	f.Add(`{"anyOf":[{"type":"object","properties":{"x":{"const":1}}},{"type":"object","properties":{"x":{"minimum":3}}}]}`, `{"x":2}`)
	f.Add(`{"properties":{"p":{"type":"string","pattern":"[","maxLength":2},"q":{"prefixItems":[{"type":"number"}],"items":false}}}`, `{"p":"abc","q":[1,2]}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		var a map[string]any
		if json.Unmarshal([]byte(args), &a) != nil {
			return
		}
		s := parseArgSchema(json.RawMessage(schema))
		if s == nil {
			return
		}
		probs := s.checkArgs(a)
		if len(probs) > maxArgProblems {
			t.Fatalf("%d problems", len(probs))
		}
		for _, p := range probs {
			switch p.code {
			case CodeBadArgument, CodeUnknownArgument, CodeMissingArgument:
			default:
				t.Fatalf("code %q", p.code)
			}
			if len(p.path) > maxArgDepth+2 || p.msg == "" || len(p.path) > 0 && !strings.HasPrefix(p.path.Pointer(), "/") {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}

// A schema at the root that the arguments object does not meet is said
// of the arguments as a whole.
func TestSchemaRootProblem(t *testing.T) {
	r := Validate(argsWF(t, `{"x": 1}`), mcpCatalog(`{"anyOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"type":"array"}]}`))
	if !hasCode(r, CodeBadArgument) || !strings.Contains(r.Problems[0].Message, "'Call' (tool srv.t): its arguments object matches none of the forms") || r.Problems[0].Path != "" {
		dump(t, r)
		t.Fatal("want the arguments object named")
	}
}
