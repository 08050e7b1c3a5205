package testcase

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/workflow"
)

// folder is a workflow folder for a test: the workflow file (flow.json)
// and its case file.
type folder struct {
	t   testing.TB
	dir string
}

func newFolder(t testing.TB) *folder { return &folder{t: t, dir: t.TempDir()} }

func (f *folder) path(name string) string { return filepath.Join(f.dir, filepath.FromSlash(name)) }

func (f *folder) write(name, content string) {
	f.t.Helper()
	p := f.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// workflow writes flow.json from compact JSON (nodes and edges).
func (f *folder) workflow(nodesAndEdges string) *workflow.Workflow {
	f.t.Helper()
	f.write("flow.json", `{"format":"weft/v1","id":"w","name":"test",`+nodesAndEdges+`}`)
	w, _, err := workflow.Load(f.path("flow.json"))
	if err != nil {
		f.t.Fatalf("workflow: %v", err)
	}
	return w
}

// play runs the cases (JSON) against the workflow and returns the report.
func (f *folder) play(w *workflow.Workflow, cases string, store ...string) (*Report, error) {
	f.t.Helper()
	cf, err := Decode([]byte(cases))
	if err != nil {
		f.t.Fatalf("decode: %v", err)
	}
	return Run(context.Background(), w, f.path("flow.json"), cf, Options{Secrets: redact.New(store...)})
}

// one plays a single case and returns its result.
func (f *folder) one(w *workflow.Workflow, c string) CaseResult {
	f.t.Helper()
	rep, err := f.play(w, `{"cases":[`+c+`]}`)
	if err != nil {
		f.t.Fatalf("run: %v", err)
	}
	return rep.Cases[0]
}

// messages are a case's failure messages, one a line.
func messages(cr CaseResult) string {
	var out []string
	for _, x := range cr.Failures {
		line := x.What + ": " + x.Message
		if x.Step != "" {
			line += " [step " + x.Step + "]"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func wantPass(t testing.TB, cr CaseResult) {
	t.Helper()
	if !cr.Passed {
		t.Fatalf("case %q failed (outcome %s, path %v):\n%s", cr.Name, cr.Outcome, cr.Path, messages(cr))
	}
}

func wantFail(t testing.TB, cr CaseResult, parts ...string) {
	t.Helper()
	if cr.Passed {
		t.Fatalf("case %q passed; want it to fail with %q", cr.Name, parts)
	}
	msg := messages(cr)
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("case %q failures lack %q:\n%s", cr.Name, p, msg)
		}
	}
}
