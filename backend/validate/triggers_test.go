package validate

import (
	"encoding/json"
	"strings"
	"testing"
)

// Each trigger declaration weft serve could not run is an error naming
// the trigger; its close neighbour that can run is no problem at all.
func TestTriggerDeclarations(t *testing.T) {
	const fileInputs = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	const twoInputs = `{"type":"object","properties":{"repo":{"type":"string"},"ref":{"type":"string","default":"main"},"n":{"type":"integer"}},"required":["repo"]}`
	hook := `{"type":"webhook","path":"/hooks/deploy","secret":"{{secrets.HOOK}}","scheme":"github"}`
	cases := []struct {
		name, schema, trig, code, msg string
	}{
		{name: "webhook", schema: twoInputs, trig: hook},
		{name: "stripe mapped", schema: twoInputs, trig: `{"type":"webhook","path":"/hooks/pay","secret":"{{ secrets.S }}","scheme":"stripe","inputs":{"repo":"{{body.data.object.id}}"}}`},
		{name: "hmac", trig: `{"type":"webhook","path":"/hooks/a/b-c.d","secret":"{{secrets.S}}","scheme":"hmac-sha256"}`},
		{name: "file", schema: fileInputs, trig: `{"type":"file","glob":"inbox/*.csv"}`},
		{name: "file mapped", schema: twoInputs, trig: `{"type":"file","glob":"*.txt","inputs":{"repo":"{{file.path}}"}}`},

		{name: "unknown type", trig: `{"type":"cron"}`, code: CodeBadTrigger, msg: `Trigger 1 (trigger of type cron): the type "cron" is not one Weft knows`},
		{name: "no path", trig: `{"type":"webhook","secret":"{{secrets.S}}","scheme":"github"}`, code: CodeBadTrigger, msg: "needs a path"},
		{name: "path outside hooks", trig: `{"type":"webhook","path":"/api/x","secret":"{{secrets.S}}","scheme":"github"}`, code: CodeBadTrigger, msg: "/hooks/NAME"},
		{name: "path dot dot", trig: `{"type":"webhook","path":"/hooks/../x","secret":"{{secrets.S}}","scheme":"github"}`, code: CodeBadTrigger, msg: "/hooks/NAME"},
		{name: "path with query", trig: `{"type":"webhook","path":"/hooks/x?a=1","secret":"{{secrets.S}}","scheme":"github"}`, code: CodeBadTrigger, msg: "/hooks/NAME"},
		{name: "no scheme", trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}"}`, code: CodeBadTrigger, msg: "needs a scheme"},
		{name: "wrong scheme", trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}","scheme":"sha1"}`, code: CodeBadTrigger, msg: `"sha1" is not one Weft verifies`},
		{name: "no secret", trig: `{"type":"webhook","path":"/hooks/x","scheme":"github"}`, code: CodeTriggerMissingSecret, msg: "needs a secret"},
		{name: "literal secret", trig: `{"type":"webhook","path":"/hooks/x","secret":"hunter2","scheme":"github"}`, code: CodeTriggerMissingSecret, msg: "a value written in the file is no secret"},
		{name: "secret expression", trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}x","scheme":"github"}`, code: CodeTriggerMissingSecret, msg: "reference"},
		{name: "two at one path", trig: hook + "," + hook, schema: twoInputs, code: CodeBadTrigger, msg: "trigger 1 answers at /hooks/deploy already"},
		{name: "no glob", schema: fileInputs, trig: `{"type":"file"}`, code: CodeBadTrigger, msg: "needs a glob"},
		{name: "absolute glob", schema: fileInputs, trig: `{"type":"file","glob":"/etc/*"}`, code: CodeBadTrigger, msg: "relative"},
		{name: "glob out", schema: fileInputs, trig: `{"type":"file","glob":"../*.csv"}`, code: CodeBadTrigger, msg: ".weft/"},
		{name: "glob into weft", schema: fileInputs, trig: `{"type":"file","glob":".weft/*"}`, code: CodeBadTrigger, msg: ".weft/"},
		{name: "bad pattern", schema: fileInputs, trig: `{"type":"file","glob":"in[box/*"}`, code: CodeBadTrigger, msg: "not a pattern"},
		{name: "file with secret", schema: fileInputs, trig: `{"type":"file","glob":"*.csv","secret":"{{secrets.S}}"}`, code: CodeBadTrigger, msg: "a webhook's"},
		{name: "file without path input", trig: `{"type":"file","glob":"*.csv"}`, code: CodeBadTrigger, msg: `the input "path", which the workflow does not declare`},
		{name: "maps undeclared", schema: twoInputs, trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}","scheme":"github","inputs":{"repo":"{{body.r}}","nope":"{{body.n}}"}}`, code: CodeBadTrigger, msg: "fills the input nope, which the workflow does not declare (its inputs: repo, ref, n)"},
		{name: "maps code", schema: twoInputs, trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}","scheme":"github","inputs":{"repo":"{{body.r | upper}}"}}`, code: CodeBadTrigger, msg: "one member of the JSON body"},
		{name: "webhook maps file", schema: twoInputs, trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}","scheme":"github","inputs":{"repo":"{{file.path}}"}}`, code: CodeBadTrigger, msg: "{{body.NAME}}"},
		{name: "file maps body", schema: twoInputs, trig: `{"type":"file","glob":"*.csv","inputs":{"repo":"{{body.x}}"}}`, code: CodeBadTrigger, msg: "{{file.path}}"},
		{name: "unfilled by mapping", schema: `{"type":"object","properties":{"repo":{"type":"string"},"n":{"type":"integer"}},"required":["repo","n"]}`, trig: `{"type":"webhook","path":"/hooks/x","secret":"{{secrets.S}}","scheme":"github","inputs":{"repo":"{{body.r}}"}}`, code: CodeTriggerUnfilledInput, msg: "input n is required"},
		{name: "unfilled by file", schema: `{"type":"object","properties":{"path":{"type":"string"},"to":{"type":"string"}},"required":["path","to"]}`, trig: `{"type":"file","glob":"*.csv"}`, code: CodeTriggerUnfilledInput, msg: "input to is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := wf(ns(logn("a", "hi")))
			if c.schema != "" {
				w.Inputs = json.RawMessage(c.schema)
			}
			if err := json.Unmarshal([]byte("["+c.trig+"]"), &w.Triggers); err != nil {
				t.Fatal(err)
			}
			r := Validate(w, catalog)
			if c.code == "" {
				if len(r.Problems) != 0 {
					t.Fatalf("want no problems, got %+v", r.Problems)
				}
				return
			}
			for _, p := range r.Problems {
				if p.Code == c.code && strings.Contains(p.Message, c.msg) && p.Severity == SeverityError {
					return
				}
			}
			t.Fatalf("want %s saying %q, got %+v", c.code, c.msg, r.Problems)
		})
	}
}
