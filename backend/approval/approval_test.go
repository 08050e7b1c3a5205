package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

func node(t *testing.T, js string) *workflow.Node {
	t.Helper()
	var n workflow.Node
	if err := json.Unmarshal([]byte(js), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func tool(name, args string) string {
	return `{"id":"x","key":"k","type":"Tool","params":{"tool":"` + name + `","arguments":` + args + `}}`
}

func TestNeeds(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "etc-link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sub", "in.txt"), []byte("x"), 0o600)
	// An absolute link back inside: os.Root (which the read opens through)
	// does not follow it, so it is judged outside; a relative one is not.
	os.Symlink(filepath.Join(dir, "sub", "in.txt"), filepath.Join(dir, "abs-link"))
	os.Symlink(filepath.Join("sub", "in.txt"), filepath.Join(dir, "rel-link"))
	f := false
	cat := tools.Builtin().With("gh", []tools.Tool{
		{Name: "create_issue", SideEffects: true, OpenWorld: true},
		{Name: "search", SideEffects: false, OpenWorld: true},  // readOnlyHint only: reaches out
		{Name: "local_read", SideEffects: false, OpenWorld: f}, // readOnlyHint, openWorldHint false
	})
	for _, c := range []struct {
		name, node string
		cat        *tools.Catalog
		dir        string
		kind       Kind
	}{
		{"command", tool("run_command", `{"command":"ls"}`), nil, dir, KindCommand},
		{"write", tool("write_file", `{"path":"out.txt","content":"x"}`), nil, dir, KindFileWrite},
		{"GET carries data out", tool("http_request", `{"method":"GET","url":"https://x.test/?q=1"}`), nil, dir, KindRequest},
		{"HEAD", tool("http_request", `{"method":"HEAD","url":"https://x.test"}`), nil, dir, KindRequest},
		{"read inside", tool("read_file", `{"path":"in.txt"}`), nil, dir, ""},
		{"read in a subfolder", tool("read_file", `{"path":"sub/in.txt"}`), nil, dir, ""},
		{"list inside", tool("list_files", `{"path":".","pattern":"*.txt"}`), nil, dir, ""},
		{"read absolute inside", tool("read_file", `{"path":"`+filepath.Join(dir, "a")+`"}`), nil, dir, ""},
		{"read ssh key", tool("read_file", `{"path":"~/.ssh/id_rsa"}`), nil, dir, KindReadOutside},
		{"read absolute outside", tool("read_file", `{"path":"/etc/passwd"}`), nil, dir, KindReadOutside},
		{"read dot-dot", tool("read_file", `{"path":"../secret"}`), nil, dir, KindReadOutside},
		{"read dot-dot hidden in a path", tool("read_file", `{"path":"sub/../../secret"}`), nil, dir, KindReadOutside},
		{"read through a symlink out", tool("read_file", `{"path":"etc-link/passwd"}`), nil, dir, KindReadOutside},
		{"read a templated path", tool("read_file", `{"path":"{{pick.text}}"}`), nil, dir, KindReadOutside},
		{"read through an absolute link back inside", tool("read_file", `{"path":"abs-link"}`), nil, dir, KindReadOutside},
		{"read through a relative link inside", tool("read_file", `{"path":"rel-link"}`), nil, dir, ""},
		{"read unsaved workflow", tool("read_file", `{"path":"in.txt"}`), nil, "", KindReadOutside},
		{"list with a pattern that climbs", tool("list_files", `{"path":".","pattern":"../*"}`), nil, dir, KindReadOutside},
		{"log", tool("log", `{"message":"hi"}`), nil, dir, ""},
		{"wait", tool("wait", `{"ms":1}`), nil, dir, ""},
		{"MCP that changes things", tool("gh.create_issue", `{}`), cat, dir, KindTool},
		{"MCP read-only but open world", tool("gh.search", `{}`), cat, dir, KindTool},
		{"MCP read-only closed world", tool("gh.local_read", `{}`), cat, dir, ""},
		{"MCP unknown to the catalog", tool("gh.search", `{}`), nil, dir, KindUnknownTool},
		{"agent with risky tools", `{"id":"x","key":"k","type":"AiStep","params":{"prompt":"p","allowed_tools":["read_file","gh.local_read"]}}`, cat, dir, KindAgent},
		{"agent with harmless tools", `{"id":"x","key":"k","type":"AiStep","params":{"prompt":"p","allowed_tools":["log","gh.local_read"]}}`, cat, dir, ""},
		{"transform", `{"id":"x","key":"k","type":"AiTransform","params":{"kind":"summarize","input":"x"}}`, nil, dir, ""},
		{"sub-workflow", `{"id":"x","key":"k","type":"Workflow","params":{"path":"child.weft.json","inputs":{"a":"{{p.text}}"}}}`, nil, dir, KindWorkflow},
		{"If", `{"id":"x","key":"k","type":"If","params":{"condition":"true"}}`, nil, dir, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, why, _ := Needs(node(t, c.node), Scope{Catalog: c.cat, Dir: c.dir})
			if k != c.kind {
				t.Fatalf("kind %q (%s), want %q", k, why, c.kind)
			}
			if k != "" && why == "" {
				t.Fatal("no reason given")
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	base := node(t, `{"id":"a","key":"clean","name":"Clean temp","type":"Tool","position":{"x":1,"y":2},"params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":5}},"retry":{"max_attempts":2}}`)
	fp := Fingerprint(base)
	same := []string{
		// Another id, label, place, switch or mark: the same content.
		`{"id":"b","key":"clean","name":"Other","type":"Tool","position":{"x":9,"y":9},"enabled":false,"provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"timeout_ms":5,"command":"rm -rf ./tmp"}},"retry":{"max_attempts":2}}`,
		`{"id":"a","key":"clean","type":"Tool","params":{"arguments":{"command":"rm -rf ./tmp","timeout_ms":5.0},"tool":"run_command"},"retry":{"max_attempts":2}}`,
	}
	for _, js := range same {
		if got := Fingerprint(node(t, js)); got != fp {
			t.Errorf("same content, other fingerprint: %s", js)
		}
	}
	differ := []string{
		`{"id":"a","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ~/","timeout_ms":5}},"retry":{"max_attempts":2}}`,
		`{"id":"a","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":6}},"retry":{"max_attempts":2}}`,
		`{"id":"a","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":5}},"retry":{"max_attempts":3}}`,
		`{"id":"a","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":5}},"retry":{"max_attempts":2},"verify":"true"}`,
		`{"id":"a","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":5}},"retry":{"max_attempts":2},"on_error":"continue"}`,
		`{"id":"a","key":"clean2","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ./tmp","timeout_ms":5}},"retry":{"max_attempts":2}}`,
	}
	for _, js := range differ {
		if Fingerprint(node(t, js)) == fp {
			t.Errorf("changed content, same fingerprint: %s", js)
		}
	}
}

func TestProvenanceMarks(t *testing.T) {
	old := &workflow.Workflow{Nodes: []workflow.Node{
		*node(t, `{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"ls"}}}`),
		*node(t, `{"id":"b","key":"b","type":"Tool","provenance":{"source":"model","via":"plan"},"params":{"tool":"run_command","arguments":{"command":"ls"}}}`),
	}}
	nw := &workflow.Workflow{Nodes: []workflow.Node{
		// kept as it was: stays hand-written even if the model claims otherwise
		*node(t, `{"id":"a","key":"a","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"ls"}}}`),
		// changed, and the model tried to drop the mark
		*node(t, `{"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ~/"}}}`),
		// new
		*node(t, `{"id":"c","key":"c","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}`),
	}}
	changed := MarkChanged(old, nw, Provenance{Source: SourceModel, Via: ViaPatch, Model: "m"})
	if strings.Join(changed, ",") != "b,c" {
		t.Fatalf("changed %v", changed)
	}
	if FromModel(&nw.Nodes[0]) {
		t.Error("an unchanged hand-written node was marked")
	}
	if p, ok := Of(&nw.Nodes[1]); !ok || p.Via != ViaPatch || p.Model != "m" {
		t.Errorf("changed node mark %+v %v", p, ok)
	}
	// The mark survives save and load.
	b, err := json.Marshal(&nw.Nodes[1])
	if err != nil {
		t.Fatal(err)
	}
	if !FromModel(node(t, string(b))) {
		t.Fatalf("mark lost in %s", b)
	}
	// A mark that cannot be read still marks.
	n := node(t, `{"id":"z","key":"z","type":"Tool","provenance":"garbage","params":{"tool":"log","arguments":{"message":"x"}}}`)
	if !FromModel(n) {
		t.Error("an unreadable mark must count as a model's")
	}
}

func TestPendingAndStore(t *testing.T) {
	w := &workflow.Workflow{Name: "wf", Nodes: []workflow.Node{
		*node(t, `{"id":"a","key":"cmd","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"echo `+strings.Repeat("x", 300)+` && true; touch pwned > /dev/null"}}}`),
		*node(t, `{"id":"b","key":"hand","type":"Tool","params":{"tool":"run_command","arguments":{"command":"ls"}}}`),
		*node(t, `{"id":"c","key":"note","type":"Tool","provenance":{"source":"model"},"params":{"tool":"log","arguments":{"message":"x"}}}`),
	}}
	st := OpenStore(filepath.Join(t.TempDir(), "weft", StoreFile))
	at := filepath.Join(t.TempDir(), "wf.json")
	approved := func(st *Store) func(string) bool {
		snap, _ := st.Snapshot(at)
		return snap.Approved
	}
	snap, err := st.Snapshot(at)
	if err != nil {
		t.Fatal(err)
	}
	steps := Pending(w, Scope{}, func(fp string) bool { return snap[fp] })
	if len(steps) != 1 || steps[0].Key != "cmd" {
		t.Fatalf("pending %+v", steps)
	}
	// Never shortened: the whole command is there to read.
	if !strings.Contains(steps[0].Arguments["command"].(string), "; touch pwned") || !strings.Contains(steps[0].Content, "; touch pwned") ||
		strings.Contains(steps[0].Content, `\u00`) {
		t.Fatalf("step content cut: %+v", steps[0])
	}
	if err := st.Approve(steps, at, w.Name, "test"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(st.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file %v %v", fi, err)
	}
	// Another process's view: a new Store on the same file.
	st2 := OpenStore(st.Path())
	if !approved(st2)(steps[0].Fingerprint) {
		t.Fatal("approval did not survive")
	}
	if got := Pending(w, Scope{}, approved(st2)); len(got) != 0 {
		t.Fatalf("still pending %+v", got)
	}
	// A model changes the approved step: asked again.
	w.Nodes[0].Params.Arguments["command"] = "rm -rf ~/"
	if got := Pending(w, Scope{}, approved(st2)); len(got) != 1 {
		t.Fatalf("changed step not pending: %+v", got)
	}
	// A corrupt file is moved aside and approves nothing.
	if err := os.WriteFile(st.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	st.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	if _, err := st.Snapshot(at); err == nil || !strings.Contains(err.Error(), "moved it to") {
		t.Fatalf("corrupt file: %v", err)
	}
	if approved(st)(steps[0].Fingerprint) {
		t.Fatal("a corrupt file approved something")
	}
	matches, _ := filepath.Glob(st.Path() + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("corrupt file not kept aside: %v", matches)
	}
}
