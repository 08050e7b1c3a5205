package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/redact"
)

const inputsSchema = `"inputs":{"type":"object","properties":{
 "name":{"type":"string"},
 "count":{"type":"integer","default":2},
 "cfg":{"type":"object"},
 "token":{"type":"string","writeOnly":true}},"required":["name"]},`

// An input is data like a step's output: in run_command it is one quoted
// shell word, whatever it holds (the hostile values of hostile_test.go);
// conditions read it; a deeper path reads into an object.
func TestInputsAreQuotedData(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the commands are sh")
	}
	for i, v := range hostileData {
		t.Run(fmt.Sprintf("%d %.20q", i, v), func(t *testing.T) {
			e := newEnv(t)
			w := parse(t, inputsSchema+`"nodes":[
 {"id":"1","key":"bare","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}} > out1"}}},
 {"id":"2","key":"dq","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' \"{{inputs.name}}\" 'x{{inputs.cfg.deep}}y' > out2"}}},
 {"id":"3","key":"big","type":"If","params":{"condition":"inputs.count > 2"}},
 {"id":"4","key":"yes","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out3","content":"{{inputs.name}}/{{inputs.count}}"}}},
 {"id":"5","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"small"}}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3"},{"from":"3","to":"4","output":"IfTrue"},{"from":"3","to":"5","output":"IfFalse"}]`)
			e.opts.Inputs = map[string]any{"name": v, "count": 3, "cfg": map[string]any{"deep": v}}
			res := e.run(w)
			wantOutcome(t, res, OutcomeSucceeded)
			noMarks(t, e.dir, "out1", "out2", "out3")
			tv := quote.TrimLineEnd(v)
			for name, want := range map[string]string{"out1": tv, "out2": tv + "x" + tv + "y", "out3": v + "/3"} {
				if got := e.read(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// Run refuses, before anything acts or a run folder exists, inputs that
// do not fit; defaults apply; the summary records the inputs given, a
// secret one hidden there and in every event.
func TestRunInputsCheckedAndRecorded(t *testing.T) {
	e := newEnv(t)
	w := parse(t, inputsSchema+`"nodes":[
 {"id":"1","key":"say","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out","content":"{{inputs.name}} {{inputs.count}} {{inputs.token}}"}}},
 {"id":"2","key":"log","type":"Tool","params":{"tool":"log","arguments":{"message":"token {{inputs.token}}"}}}],
 "edges":[{"from":"1","to":"2"}]`)
	for _, bad := range []map[string]any{nil, {"name": 3}, {"name": "a", "count": "x"}, {"name": "a", "nope": 1}} {
		e.opts.Inputs = bad
		_, err := New(e.opts).Run(context.Background(), w)
		var ie *inputs.Error
		if !errors.As(err, &ie) {
			t.Fatalf("%v: got %v", bad, err)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "out")); err == nil {
			t.Fatal("a step ran")
		}
		if _, err := os.Stat(e.opts.RunsDir); err == nil {
			t.Fatal("a run folder was made")
		}
	}
	const token = "tok-0123456789abcdef"
	e.opts.Inputs = map[string]any{"name": "Ada", "token": token}
	res := e.run(w)
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.read("out"); got != "Ada 2 "+token {
		t.Fatalf("out = %q", got)
	}
	if res.Inputs["name"] != "Ada" || res.Inputs["count"] != 2.0 || res.Inputs["token"] != redact.Placeholder {
		t.Fatalf("result inputs %v", res.Inputs)
	}
	b, err := os.ReadFile(filepath.Join(res.Dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.Inputs["name"] != "Ada" {
		t.Fatalf("summary inputs %v (%v)", sum.Inputs, err)
	}
	ents, _ := os.ReadDir(res.Dir)
	for _, f := range ents {
		data, _ := os.ReadFile(filepath.Join(res.Dir, f.Name()))
		if strings.Contains(string(data), token) {
			t.Errorf("%s holds the secret input", f.Name())
		}
	}
	for _, ev := range e.rec.all() {
		if b, _ := json.Marshal(ev); strings.Contains(string(b), token) {
			t.Errorf("event %s shows the secret input", ev.Type)
		}
	}
}

// A template reading an input the run was not given (optional, without a
// default) fails its step, naming the input; nothing is inserted as "".
func TestInputNotGivenFailsTheStep(t *testing.T) {
	e := newEnv(t)
	w := parse(t, inputsSchema+`"nodes":[
 {"id":"1","key":"say","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out","content":"[{{inputs.token}}]"}}}],"edges":[]`)
	e.opts.Inputs = map[string]any{"name": "Ada"}
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "the input token was not given and has no default") {
		t.Fatalf("error %q", res.Error)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "out")); err == nil {
		t.Fatal("the step wrote its file")
	}
}

// Step (another engine's attempt) reads the inputs among the vars it is
// handed, and hides a secret one.
func TestStepReadsGivenInputs(t *testing.T) {
	e := newEnv(t)
	w := parse(t, inputsSchema+`"nodes":[
 {"id":"1","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{inputs.name}} {{inputs.token}}"}}}],"edges":[]`)
	const token = "tok-0123456789abcdef"
	res, err := New(e.opts).Step(context.Background(), w, "1", map[string]any{"inputs": map[string]any{"name": "Ada", "token": token}}, Attempt{Number: 1, Max: 1})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), "Ada") || strings.Contains(string(b), token) {
		t.Fatalf("step result %s", b)
	}
	ok, err := EvalCondition([]string{"say"}, `inputs.name == "Ada"`, map[string]any{"inputs": map[string]any{"name": "Ada"}})
	if err != nil || !ok {
		t.Fatalf("condition: %v %v", ok, err)
	}
}
