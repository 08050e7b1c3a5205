package runner

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/quote"
)

// cutProducer is a step (key p) whose output field is cut at its cap,
// and another field of it that is whole.
type cutProducer struct {
	name, field, other string
	node               string // the node's JSON, without its id and key
	model              bool   // answers come from a model whose first answer is cut
}

func cutProducers(srvURL string) []cutProducer {
	big := `yes a | head -c 1100000`
	return []cutProducer{
		{"stdout", "stdout", "exit_code", `"type":"Tool","params":{"tool":"run_command","arguments":{"command":"` + big + `"}}`, false},
		{"stderr", "stderr", "exit_code", `"type":"Tool","params":{"tool":"run_command","arguments":{"command":"` + big + ` >&2"}}`, false},
		{"body", "body", "status", `"type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"` + srvURL + `/big"}}`, false},
		{"answer", "text", "tool_calls", `"type":"AiStep","params":{"prompt":"write it all"}`, true},
		{"summary", "text", "success", `"type":"AiTransform","params":{"kind":"summarize","input":"everything"}`, true},
	}
}

// cutReader is a way a workflow reads F of the step p: %s in nodes and
// extra stands for the field read.
type cutReader struct {
	name  string
	nodes string // after p, which leads to the node with id r
	edges string
	extra string // top-level fields (done_when)
	// self: the reader is p's own verify (nodes and edges unused).
	self bool
	// whole: it reads all of p's outputs, so the other field does not
	// make it pass.
	whole bool
}

func cutReaders(srvURL string) []cutReader {
	logTo := func(id, msg string) string {
		return fmt.Sprintf(`{"id":%q,"key":%q,"type":"Tool","params":{"tool":"log","arguments":{"message":%q}}}`, id, id, msg)
	}
	end := logTo("end", "done")
	return []cutReader{
		{name: "If", nodes: `{"id":"r","key":"r","type":"If","params":{"condition":"p.%s != nil"}},` + end + `,` + logTo("no", "no"),
			edges: `{"from":"r","to":"end","output":"IfTrue"},{"from":"r","to":"no","output":"IfFalse"}`},
		{name: "Switch", nodes: `{"id":"r","key":"r","type":"Switch","params":{"cases":[{"name":"x","condition":"p.%s == \"x\""}]}},` + end + `,` + logTo("no", "no"),
			edges: `{"from":"r","to":"end","output":{"type":"SwitchCase","name":"x"}},{"from":"r","to":"no","output":"SwitchDefault"}`},
		{name: "Loop exit", nodes: `{"id":"r","key":"r","type":"Loop","params":{"exit_condition":"p.%s != nil","max_iterations":2}},` + logTo("body", "again") + `,{"id":"r_end","key":"r_end","type":"EndLoop","params":{"loop_id":"r"}},` + end,
			edges: `{"from":"r","to":"body","output":"LoopBody"},{"from":"body","to":"r_end"},{"from":"r_end","to":"r"},{"from":"r","to":"end","output":"LoopDone"}`},
		{name: "verify of a later step", nodes: `{"id":"r","key":"r","type":"Tool","verify":"p.%s != nil","params":{"tool":"log","arguments":{"message":"x"}}}`},
		{name: "its own verify", self: true},
		{name: "done_when", nodes: logTo("r", "x"), extra: `"done_when":{"condition":"p.%s != nil"},`},
		{name: "whole in a condition", whole: true, nodes: `{"id":"r","key":"r","type":"If","params":{"condition":"toJSON(p) != \"\" || p.%s == nil"}},` + end + `,` + logTo("no", "no"),
			edges: `{"from":"r","to":"end","output":"IfTrue"},{"from":"r","to":"no","output":"IfFalse"}`},
		{name: "command", nodes: `{"id":"r","key":"r","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo {{p.%s}} > /dev/null"}}}`},
		{name: "URL", nodes: `{"id":"r","key":"r","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"` + srvURL + `/echo/{{p.%s}}"}}}`},
		{name: "header", nodes: `{"id":"r","key":"r","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"` + srvURL + `/echo","headers":{"X-Got":"{{p.%s}}"}}}}`},
		{name: "plain argument", nodes: logTo("r", "got {{p.%s}}")},
		{name: "whole argument", whole: true, nodes: `{"id":"r","key":"r","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.json","content":"{{p}}","append":"{{p.%s == nil}}"}}}`},
		{name: "prompt", nodes: `{"id":"r","key":"r","type":"AiStep","params":{"prompt":"read {{p.%s}}"}}`},
		{name: "input", nodes: `{"id":"r","key":"r","type":"AiTransform","params":{"kind":"summarize","input":"{{p.%s}}"}}`},
	}
}

func (rd cutReader) workflow(t *testing.T, p cutProducer, field string) string {
	if rd.self {
		node := strings.Replace(p.node, `"type"`, fmt.Sprintf(`"verify":"p.%s != nil","type"`, field), 1)
		return fmt.Sprintf(`"nodes":[{"id":"p","key":"p",%s}],"edges":[]`, node)
	}
	nodes := strings.ReplaceAll(rd.nodes, "%s", field)
	edges := `{"from":"p","to":"r"}`
	if rd.edges != "" {
		edges += "," + rd.edges
	}
	return strings.ReplaceAll(rd.extra, "%s", field) + fmt.Sprintf(`"nodes":[{"id":"p","key":"p",%s},%s],"edges":[%s]`, p.node, nodes, edges)
}

func cutServer(t *testing.T) *httptest.Server {
	big := strings.Repeat("b", MaxHTTPBody+1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write([]byte(big))
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Every cap that cuts a value (a command's stdout and stderr, an HTTP
// body, a model's answer) against every way a workflow reads a value (If,
// Switch, Loop exit, verify, a step's own verify, done_when, a template in
// a command, URL, header, plain argument, prompt or input, and all of a
// step's outputs at once): reading the cut field fails the run, naming the
// step, the field and why; reading a whole field of the same step does
// not.
func TestTruncatedValuesAreNotRead(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the producing commands are sh")
	}
	srv := cutServer(t)
	for _, p := range cutProducers(srv.URL) {
		for _, rd := range cutReaders(srv.URL) {
			for _, field := range []string{p.field, p.other} {
				if field == p.other && rd.whole {
					continue
				}
				e := newEnv(t)
				m := llmtest.Start(t, llmtest.WithSteps(llmtest.Truncated("the first part of a long answer")), llmtest.WithDefault(llmtest.Reply("ok")))
				if !p.model {
					m = llmtest.Start(t, llmtest.WithDefault(llmtest.Reply("ok")))
				}
				c, err := llm.New(llm.Config{BaseURL: m.URL, Model: "fake-model"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
				if err != nil {
					t.Fatal(err)
				}
				e.opts.LLM = c
				res := e.run(parse(t, rd.workflow(t, p, field)))
				name := fmt.Sprintf("%s read by %s (field %s)", p.name, rd.name, field)
				cut := "p." + p.field + " is incomplete"
				if field == p.other {
					if res.Outcome == OutcomeFailed && strings.Contains(res.Error, "incomplete") {
						t.Errorf("%s: %s", name, res.Error)
					}
					continue
				}
				if res.Outcome != OutcomeFailed || !strings.Contains(res.Error, cut) {
					t.Errorf("%s: %s %q, want it to fail on %q", name, res.Outcome, res.Error, cut)
				}
				// The cut value is in the run's data, marked.
				outs, _ := res.Outputs["p"].(map[string]any)
				if expression.Truncated(outs)[p.field] == "" {
					t.Errorf("%s: outputs %v carry no mark", name, outs[expression.TruncatedField])
				}
			}
		}
	}
}

// The mark survives the Temporal engine's serialization of outputs
// between activities: a step and a condition given the JSON of a cut
// output refuse it too.
func TestTruncatedAcrossJSON(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the producing command is sh")
	}
	e := newEnv(t)
	w := parse(t, `"nodes":[
 {"id":"p","key":"p","type":"Tool","params":{"tool":"run_command","arguments":{"command":"yes a | head -c 1100000"}}},
 {"id":"r","key":"r","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{p.stdout}}"}}}],
 "edges":[{"from":"p","to":"r"}]`)
	out, err := New(e.opts).Step(t.Context(), w, "p", nil, Attempt{Number: 1})
	if err != nil || out.Failure != nil {
		t.Fatal(err, out.Failure)
	}
	b, _ := json.Marshal(map[string]any{"p": out.Outputs})
	var vars map[string]any
	if err := json.Unmarshal(b, &vars); err != nil {
		t.Fatal(err)
	}
	res, err := New(e.opts).Step(t.Context(), w, "r", vars, Attempt{Number: 1})
	if err != nil || res.Failure == nil || !strings.Contains(res.Failure.Error, "p.stdout is incomplete") || res.Failure.Retryable {
		t.Fatalf("step: %v %+v", err, res.Failure)
	}
	if _, err := EvalCondition([]string{"p", "r"}, `p.stdout != ""`, vars); err == nil || !strings.Contains(err.Error(), "p.stdout is incomplete") {
		t.Errorf("condition: %v", err)
	}
	if ok, err := EvalCondition([]string{"p", "r"}, `p.exit_code == 0`, vars); err != nil || !ok {
		t.Errorf("a whole field: %v %v", ok, err)
	}
}

func TestWholeRunes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", "abc"},
		{"ab\xc3", "ab"},          // é cut after its first byte
		{"ab\xe2\x9c", "ab"},      // ✓ cut after two of three
		{"ab\xe2\x9c\x93", "ab✓"}, // whole
		{"ab\xff", "ab\xff"},      // not UTF-8 at all: kept as received
		{"", ""},
	} {
		if got := string(wholeRunes([]byte(c.in))); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
