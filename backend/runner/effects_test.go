//go:build unix

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

	"github.com/weft-dev/weft/backend/workflow"
)

const secret = "ssh-secret-key-material"

// outsideSecret is a file outside the workflow's folder, as ~/.ssh/id_rsa
// is, and its folder.
func outsideSecret(t *testing.T) (file, dir string) {
	dir = t.TempDir()
	file = filepath.Join(dir, "id_rsa")
	if err := os.WriteFile(file, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, dir
}

// setupThenRead is a run whose first step (hand-written: it runs without
// approval) prepares the folder with a shell command, as a `curl … | tar
// xz` would, and whose second step reads or lists path. model marks the
// second step as written by a model.
func setupThenRead(t *testing.T, setup, tool, path string, model bool) *workflow.Workflow {
	prov := ""
	if model {
		prov = `"provenance":{"source":"model","via":"plan"},`
	}
	cmd, _ := json.Marshal(setup)
	p, _ := json.Marshal(path)
	return parse(t, fmt.Sprintf(`"nodes":[
 {"id":"s","key":"unpack","type":"Tool","params":{"tool":"run_command","arguments":{"command":%s}}},
 {"id":"r","key":"readme","type":"Tool",%s"params":{"tool":%q,"arguments":{"path":%s}}}],
 "edges":[{"from":"s","to":"r"}]`, cmd, prov, tool, p))
}

// noSecret fails if the secret reached the run's outputs or events.
func noSecret(t *testing.T, e *env, res *Result) {
	t.Helper()
	b, _ := json.Marshal(res)
	evs, _ := json.Marshal(e.rec.all())
	if strings.Contains(string(b)+string(evs), secret) {
		t.Fatal("the file outside the folder was read")
	}
}

// wantSecret fails unless the run read the file outside (step "readme").
func wantSecret(t *testing.T, res *Result) {
	t.Helper()
	wantOutcome(t, res, OutcomeSucceeded)
	if got := res.Outputs["readme"].(map[string]any)["content"]; got != secret {
		t.Fatalf("content %q", got)
	}
}

// escapes are ways a step made during the run can turn a path inside the
// folder into one whose real target is outside it; %[1]s is the outside
// file, %[2]s its folder.
var escapeLayouts = []struct{ name, setup string }{
	{"symbolic link to a file outside", `mkdir -p assets && ln -s %[1]s assets/readme.txt`},
	{"chain of links ending outside", `mkdir -p assets && ln -s %[1]s assets/b && ln -s b assets/a && ln -s a assets/readme.txt`},
	{"link to a folder outside", `ln -s %[2]s assets && ln -sf id_rsa %[2]s/readme.txt`},
	{"relative link climbing out with ..", `mkdir -p assets && up=$(echo "$PWD/assets" | sed 's|/[^/]*|../|g') && f=%[1]s && ln -s "$up${f#/}" assets/readme.txt`},
	{"link with .. in the middle", `mkdir -p assets/x && ln -s x/../../../../../../../../../../..%[1]s assets/readme.txt`},
	{"absolute link back into the folder and out", `mkdir -p assets && ln -s "$PWD/assets/../assets/next" assets/readme.txt && ln -s %[1]s assets/next`},
}

// TestGateConfinesModelReadsAtTheirMoment: a model-written read_file of a
// path inside the folder needed no approval; a step before it in the same
// run turns that path into a way out; the gate opens it beneath the folder
// (os.Root) when it happens, so the read fails and the file outside is
// never read. A hand-written step reads what it names.
func TestGateConfinesModelReadsAtTheirMoment(t *testing.T) {
	for _, l := range escapeLayouts {
		t.Run(l.name, func(t *testing.T) {
			file, dir := outsideSecret(t)
			setup := fmt.Sprintf(l.setup, file, dir)
			t.Run("model-written is confined", func(t *testing.T) {
				e := newEnv(t)
				res := e.run(setupThenRead(t, setup, "read_file", "assets/readme.txt", true))
				wantOutcome(t, res, OutcomeFailed)
				f := e.rec.of(EvFailure)
				if len(f) == 0 || f[0].NodeKey != "readme" || !strings.Contains(f[0].Failure.Error, "leads outside the workflow's folder") {
					t.Fatalf("failures %+v", f)
				}
				noSecret(t, e, res)
			})
			t.Run("a file under review confines its hand-written reads", func(t *testing.T) {
				e := newEnv(t)
				e.opts.ReviewFile = true
				w := setupThenRead(t, setup, "read_file", "assets/readme.txt", false)
				e.opts.Approvals = approveAll{} // the person reviewed the whole file
				res := e.run(w)
				wantOutcome(t, res, OutcomeFailed)
				noSecret(t, e, res)
			})
			t.Run("hand-written reads what it names", func(t *testing.T) {
				e := newEnv(t)
				wantSecret(t, e.run(setupThenRead(t, setup, "read_file", "assets/readme.txt", false)))
			})
		})
	}
}

func TestGateConfinesModelListings(t *testing.T) {
	_, dir := outsideSecret(t)
	e := newEnv(t)
	res := e.run(setupThenRead(t, "ln -s "+dir+" assets", "list_files", "assets", true))
	wantOutcome(t, res, OutcomeFailed)
	if f := e.rec.of(EvFailure); len(f) == 0 || !strings.Contains(f[0].Failure.Error, "leads outside the workflow's folder") {
		t.Fatalf("failures %+v", f)
	}
	if b, _ := json.Marshal(e.rec.all()); strings.Contains(string(b), "id_rsa") {
		t.Fatal("the folder outside was listed")
	}
	e = newEnv(t)
	res = e.run(setupThenRead(t, "ln -s "+dir+" assets", "list_files", "assets", false))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := res.Outputs["readme"].(map[string]any)["count"]; got != 1 {
		t.Fatalf("hand-written listing: %v", res.Outputs["readme"])
	}
}

// TestGateLetsConfinedReadsInside: links that stay inside the folder,
// `..` that stays inside, a linked sub-folder: a confined read reads them.
func TestGateLetsConfinedReadsInside(t *testing.T) {
	for _, c := range []struct{ name, setup, tool, path, want string }{
		{"plain file", `mkdir -p assets && echo -n hi > assets/readme.txt`, "read_file", "assets/readme.txt", "hi"},
		{"relative link inside", `mkdir -p assets docs && echo -n hi > docs/r.txt && ln -s ../docs/r.txt assets/readme.txt`, "read_file", "assets/readme.txt", "hi"},
		{"linked sub-folder inside", `mkdir -p docs && echo -n hi > docs/readme.txt && ln -s docs assets`, "read_file", "assets/readme.txt", "hi"},
		{".. that stays inside", `mkdir -p assets docs && echo -n hi > docs/r.txt`, "read_file", "assets/../docs/r.txt", "hi"},
		{"listing through a link inside", `mkdir -p docs && echo -n hi > docs/readme.txt && ln -s docs assets`, "list_files", "assets", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			res := e.run(setupThenRead(t, c.setup, c.tool, c.path, true))
			wantOutcome(t, res, OutcomeSucceeded)
			out := res.Outputs["readme"].(map[string]any)
			if c.tool == "read_file" && out["content"] != c.want || c.tool == "list_files" && out["count"] != 1 {
				t.Fatalf("%v", out)
			}
		})
	}
}

// TestGateDoesNotConfineApprovedReads: a model-written read outside the
// folder needs approval; once approved it reads what it names.
func TestGateDoesNotConfineApprovedReads(t *testing.T) {
	file, _ := outsideSecret(t)
	w := setupThenRead(t, "true", "read_file", file, true)
	e := newEnv(t)
	if _, err := New(e.opts).Run(context.Background(), w); !errors.As(err, new(*ApprovalError)) {
		t.Fatalf("not approved: %v", err)
	}
	e.opts.Approvals = approveAll{}
	wantSecret(t, e.run(w))
}

// TestGateConfinesTheTemporalStep: Runner.Step (the Temporal engine's
// activity) goes through the same gate. The path is made a way out after
// Step's approval check, as the attempt starts.
func TestGateConfinesTheTemporalStep(t *testing.T) {
	file, _ := outsideSecret(t)
	e := newEnv(t)
	link := filepath.Join(e.dir, "readme.txt")
	os.WriteFile(filepath.Join(e.dir, "inside.txt"), []byte("in"), 0o644)
	os.Symlink("inside.txt", link)
	w := setupThenRead(t, "true", "read_file", "readme.txt", true)
	rn := New(e.opts)
	res, err := rn.Step(context.Background(), w, "r", nil, Attempt{Number: 1})
	if err != nil || res.Failure != nil || res.Outputs["content"] != "in" {
		t.Fatalf("inside: %+v %v", res, err)
	}
	e.opts.OnEvent = func(ev Event) {
		if ev.Type == EvAttempt {
			os.Remove(link)
			os.Symlink(file, link)
		}
	}
	res, err = New(e.opts).Step(context.Background(), w, "r", nil, Attempt{Number: 1})
	if err != nil || res.Failure == nil || !strings.Contains(res.Failure.Error, "leads outside the workflow's folder") {
		t.Fatalf("outside: %+v %v", res, err)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), secret) {
		t.Fatal("read")
	}
}
