package devserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	wtemporal "github.com/weft-dev/weft/backend/temporal"
)

// A secret input given a stored secret acts the same on both engines: the
// value reaches only the host the secret is bound to (on Temporal it is
// opened inside the worker's activity, from the worker's store; the run's
// history carries the secret's name), the events are the same, and a
// sub-workflow passed the input gets the reference, not the value.
func TestEngineContractSecretInput(t *testing.T) {
	const token = "tok-contract_7Hq2Xw9Lm4"
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Date", "Fri, 27 Nov 2026 00:00:00 GMT") // the same on both runs
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)

	ts, st, dir := temporalSetup(t, "weft-secret-inputs-unused")
	store := credentials.Open(filepath.Join(t.TempDir(), "secrets"), settings.NoKeyring{})
	if err := store.Set(credentials.Secret{Name: "API_TOKEN", Hosts: []string{u.Host}, Value: token}); err != nil {
		t.Fatal(err)
	}
	// A worker that has the store, on its own queue.
	queue := "weft-secret-inputs"
	w := wtemporal.NewWorker(&wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: queue}}, &wtemporal.Activities{Options: func() runner.Options {
		return runner.Options{Settings: settings.Defaults(), Secrets: store, Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}}
	}})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	st.Engine.Temporal.TaskQueue = queue
	st.Run.DefaultRetries = 0
	svc := service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return st, nil, nil },
		NewLLM:   func(settings.Settings) (llm.Client, error) { return nil, nil },
		Getenv:   func(string) string { return "" },
		Secrets:  store,
	})
	shared := filepath.Join(t.TempDir(), "shared")
	trustTestFolders(t, shared)
	secret := `"inputs":{"type":"object","properties":{"token":{"type":"string","writeOnly":true}},"required":["token"]},`
	child := filepath.Join(shared, "child.weft.json")
	writeDoc(t, child, `{"format":"weft/v1","id":"child","name":"child",`+secret+`"nodes":[
 {"id":"c","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`/child","headers":{"Authorization":"{{inputs.token}}"}}}}],"edges":[]}`)
	tc := contractCase{name: "secret-input", inputs: map[string]any{"token": inputs.SecretRef{Name: "API_TOKEN"}}, doc: `{"format":"weft/v1","id":"p","name":"p",` + secret + `"nodes":[
 {"id":"a","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"` + srv.URL + `/parent","headers":{"Authorization":"Bearer {{inputs.token}}"}}}},
 {"id":"s","key":"sub","type":"Workflow","params":{"path":"` + child + `","inputs":{"token":"{{inputs.token}}"}}}],
 "edges":[{"from":"a","to":"s"}]}`}
	var runs [2]engineRun
	for i, engine := range []string{"local", "temporal"} {
		runs[i] = runOnEngine(t, svc, engine, tc)
		if runs[i].err != "" || !strings.Contains(runs[i].finished, `"Outcome":"succeeded"`) {
			t.Fatalf("%s: %s %s %s", engine, runs[i].err, runs[i].finished, runs[i].outputs)
		}
		for _, s := range append(runs[i].events, runs[i].outputs, runs[i].finished) {
			if strings.Contains(s, token) {
				t.Fatalf("%s: the value is in what the run showed: %s", engine, s)
			}
		}
	}
	mu.Lock()
	got := strings.Join(seen, "\n")
	mu.Unlock()
	want := strings.Repeat("/parent Bearer "+token+"\n/child "+token+"\n", 2)
	if got+"\n" != want {
		t.Errorf("the server saw:\n%s\nwant:\n%s", got, want)
	}
	norm := func(s string) string { return regexpRunIDs.ReplaceAllString(s, "${1}ID") }
	if a, b := norm(strings.Join(runs[0].events, "\n")), norm(strings.Join(runs[1].events, "\n")); a != b {
		t.Errorf("the engines' events differ:\nlocal:\n%s\ntemporal:\n%s", a, b)
	}
	// The Temporal run's input names the secret, never its value.
	eng, _, err := svc.TemporalEngine(st.Engine.Temporal)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Client.Close()
	list, err := eng.List(t.Context(), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		in, err := eng.Input(t.Context(), r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if in.SecretInputs["token"] != "API_TOKEN" || len(in.Inputs) != 0 {
			t.Errorf("run %s was given %v and %v", r.RunID, in.Inputs, in.SecretInputs)
		}
	}
}
