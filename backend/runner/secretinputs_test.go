package runner

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

// A secret input given a stored secret (inputs.SecretRef) is that
// secret's reference wherever {{inputs.NAME}} is written: each place a
// {{secrets.NAME}} reference may or may not be written, the workflow
// written with the input instead does exactly the same (outcome, what the
// server saw, the failure), the value reaching only where the secret is
// bound, and never the events or the log.
func TestSecretInputIsItsReference(t *testing.T) {
	ts := newTokenServer(t)
	store := fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Tools: []string{"run_command"}, Value: testToken}}
	tool := func(name string, args map[string]any) string {
		b, _ := json.Marshal(map[string]any{"id": "s", "key": "step", "type": "Tool", "params": map[string]any{"tool": name, "arguments": args}})
		return string(b)
	}
	places := []struct {
		name string
		node func(ref string) string
	}{
		{"header", func(ref string) string {
			return tool("http_request", map[string]any{"url": ts.URL + "/h", "headers": map[string]any{"Authorization": "Bearer " + ref}})
		}},
		{"whole header", func(ref string) string {
			return tool("http_request", map[string]any{"url": ts.URL + "/h", "headers": map[string]any{"Authorization": ref}})
		}},
		{"query", func(ref string) string { return tool("http_request", map[string]any{"url": ts.URL + "/q?k=" + ref}) }},
		{"body", func(ref string) string {
			return tool("http_request", map[string]any{"url": ts.URL + "/b", "method": "POST", "body": "t=" + ref})
		}},
		{"other host", func(ref string) string {
			return tool("http_request", map[string]any{"url": "http://" + ts.otherHost() + "/x", "headers": map[string]any{"Authorization": ref}})
		}},
		{"command", func(ref string) string {
			return tool("run_command", map[string]any{"command": "test -n " + ref + " && echo set"})
		}},
		{"not bound tool", func(ref string) string { return tool("write_file", map[string]any{"path": "out", "content": ref}) }},
		{"raw", func(ref string) string {
			return tool("run_command", map[string]any{"command": "echo " + strings.Replace(ref, "{{", "{{raw ", 1)})
		}},
		{"ai prompt", func(ref string) string {
			return `{"id":"s","key":"step","type":"AiStep","params":{"prompt":"use ` + ref + `"}}`
		}},
	}
	// Where a reference is refused, validation refuses {{secrets.…}} as
	// written; an input is known to hold one only when the run starts, so
	// its step fails there, with the same words, before anything acts.
	stopped := func(s string) string {
		ref, sent := strings.Index(s, "REF: "), strings.LastIndex(s, " | sent")
		if ref < 0 || sent < ref || !(strings.HasPrefix(s, "refused: ") || strings.HasPrefix(s, "failed | ")) {
			return s
		}
		msg := s[ref:sent]
		if k := strings.Index(msg, " [bad_secret_ref]"); k >= 0 {
			msg = msg[:k]
		}
		return "stopped: " + strings.TrimSuffix(msg, " |") + s[sent:]
	}
	shape := regexp.MustCompile(`\{\{(raw )?(secrets\.API_TOKEN|inputs\.token)\}\}`)
	for _, p := range places {
		t.Run(p.name, func(t *testing.T) {
			var got [2]string
			for i, ref := range []string{"{{secrets.API_TOKEN}}", "{{inputs.token}}"} {
				e := newEnv(t)
				e.opts.Secrets = store
				e.opts.Inputs = map[string]any{"token": inputs.SecretRef{Name: "API_TOKEN"}}
				model := withModel(t, e, llmtest.Reply("done"))
				w := parse(t, `"inputs":{"type":"object","properties":{"token":{"type":"string","writeOnly":true}},"required":["token"]},
 "nodes":[`+p.node(ref)+`],"edges":[]`)
				before, _ := ts.seen()
				res, err := New(e.opts).Run(t.Context(), w)
				var outcome, failure string
				if err != nil {
					outcome = "refused: " + err.Error()
				} else {
					outcome = string(res.Outcome)
					for _, ev := range e.rec.of(EvFailure) {
						failure = ev.Failure.Error
					}
				}
				auth, body := ts.seen()
				got[i] = shape.ReplaceAllString(fmt.Sprintf("%s | %s | sent %q %q", outcome, failure, auth[len(before):], body[len(before):]), "REF")
				var asked []string
				for _, r := range model.Requests() {
					asked = append(asked, r.Body)
				}
				got[i] += fmt.Sprintf(" | model asked %d times", len(asked))
				noTokenIn(t, e.dir, append(asked, eventsText(t, e.rec.all()))...)
			}
			for i := range got {
				got[i] = stopped(got[i])
			}
			if got[0] != got[1] {
				t.Errorf("the input does not act as the reference:\n  secrets: %s\n   inputs: %s", got[0], got[1])
			}
		})
	}
}

// Only a secret input takes a stored secret, and only through its door:
// a value that reads {{secrets.NAME}} is text, sent as it is; an input
// expression that computes the reference is refused, not inserted.
func TestSecretInputOnlyThroughItsDoor(t *testing.T) {
	ts := newTokenServer(t)
	store := fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Value: testToken}}
	schema := `"inputs":{"type":"object","properties":{"token":{"type":"string","writeOnly":true},"plain":{"type":"string"}}},`
	run := func(given map[string]any, node string) (*env, *Result, error) {
		e := newEnv(t)
		e.opts.Secrets, e.opts.Inputs = store, given
		res, err := New(e.opts).Run(t.Context(), parse(t, schema+`"nodes":[`+node+`],"edges":[]`))
		return e, res, err
	}
	send := func(ref string) string {
		b, _ := json.Marshal(map[string]any{"id": "s", "key": "step", "type": "Tool", "params": map[string]any{"tool": "http_request",
			"arguments": map[string]any{"url": ts.URL + "/d", "method": "POST", "body": ref}}})
		return string(b)
	}
	// A reference given to an input that is not secret: refused, naming it.
	if _, _, err := run(map[string]any{"plain": inputs.SecretRef{Name: "API_TOKEN"}}, send("{{inputs.plain}}")); err == nil || !strings.Contains(err.Error(), "plain is not a secret input") {
		t.Fatalf("a plain input took a stored secret: %v", err)
	}
	// The reference's text given as a value: data, sent as that text.
	_, res, err := run(map[string]any{"token": "{{secrets.API_TOKEN}}"}, send("{{inputs.token}}"))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, res, OutcomeSucceeded)
	if _, body := ts.seen(); len(body) != 1 || body[0] != "{{secrets.API_TOKEN}}" {
		t.Fatalf("body %q", body)
	}
	// An expression computing the reference is refused (not its text).
	e, res, err := run(map[string]any{"token": inputs.SecretRef{Name: "API_TOKEN"}}, send(`{{ inputs.token ?? "x" }}`))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, res, OutcomeFailed)
	if f := e.rec.of(EvFailure); len(f) != 1 || !strings.Contains(f[0].Failure.Error, "used only as the input itself") {
		t.Fatalf("failure %+v", f)
	}
	if _, body := ts.seen(); len(body) != 1 {
		t.Fatalf("sent %q", body)
	}
	// A condition cannot read the value either: it sees no text of it.
	_, res, err = run(map[string]any{"token": inputs.SecretRef{Name: "API_TOKEN"}},
		`{"id":"l","key":"step","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}},"verify":"inputs.token != '`+testToken+`' && !(string(inputs.token) contains '`+testToken+`')"}`)
	if err != nil || res.Outcome != OutcomeSucceeded {
		t.Fatalf("%v %+v", err, res)
	}
}

// A sub-workflow is passed the reference, never the value: whole, it
// stays a reference its step opens where the secret is bound; inside
// other text it is refused before the child starts.
func TestSecretInputPassedToASubWorkflow(t *testing.T) {
	ts := newTokenServer(t)
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Value: testToken}}
	e.opts.GateChild = trustChildren
	e.opts.Inputs = map[string]any{"token": inputs.SecretRef{Name: "API_TOKEN"}}
	secret := `"inputs":{"type":"object","properties":{"token":{"type":"string","writeOnly":true}},"required":["token"]},`
	call, _ := json.Marshal(map[string]any{"id": "c", "key": "call", "type": "Tool", "params": map[string]any{"tool": "http_request",
		"arguments": map[string]any{"method": "GET", "url": ts.URL + "/child", "headers": map[string]any{"Authorization": "{{inputs.token}}"}}}})
	e.writeFlow("child.weft.json", secret+`"nodes":[`+string(call)+`],"edges":[]`)
	for _, tc := range []struct{ given, want string }{
		{`"{{inputs.token}}"`, "succeeded"},
		{`"Bearer {{inputs.token}}"`, "failed"},
	} {
		w := parse(t, secret+`"nodes":[{"id":"s","key":"sub","type":"Workflow","params":{"path":"child.weft.json","inputs":{"token":`+tc.given+`}}}],"edges":[]`)
		before, _ := ts.seen()
		res := e.run(w)
		auth, _ := ts.seen()
		if string(res.Outcome) != tc.want {
			t.Fatalf("%s: %s %s", tc.given, res.Outcome, res.Error)
		}
		sent := auth[len(before):]
		if tc.want == "succeeded" && (len(sent) != 1 || sent[0] != testToken) {
			t.Fatalf("%s: the child's call sent %q", tc.given, sent)
		}
		if tc.want == "failed" && (len(sent) != 0 || !strings.Contains(res.Error, "a secret can only be used in a Tool step's arguments")) {
			t.Fatalf("%s: sent %q, %s", tc.given, sent, res.Error)
		}
		noTokenIn(t, e.dir, eventsText(t, e.rec.all()))
	}
}
