package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestSideEffectNodes(t *testing.T) {
	cat := tools.Builtin().With("gh", []tools.Tool{
		{Name: "create_issue", SideEffects: true},
		{Name: "search", SideEffects: false}, // readOnlyHint
	})
	tool := func(name, args string) string {
		return `{"id":"x","key":"k","type":"Tool","params":{"tool":"` + name + `","arguments":` + args + `}}`
	}
	for _, c := range []struct {
		name, node string
		cat        *tools.Catalog
		kind       EffectKind
		detail     string
	}{
		{"command", tool("run_command", `{"command":"rm -rf build"}`), nil, EffectCommand, "runs `rm -rf build`"},
		{"write", tool("write_file", `{"path":"out.txt","content":"x"}`), nil, EffectFileWrite, "writes out.txt"},
		{"read", tool("read_file", `{"path":"in.txt"}`), nil, "", ""},
		{"list", tool("list_files", `{"path":"."}`), nil, "", ""},
		{"log", tool("log", `{"message":"hi"}`), nil, "", ""},
		{"wait", tool("wait", `{"ms":1}`), nil, "", ""},
		{"GET", tool("http_request", `{"method":"GET","url":"https://x.test"}`), nil, "", ""},
		{"head lower case", tool("http_request", `{"method":" head ","url":"https://x.test"}`), nil, "", ""},
		{"POST", tool("http_request", `{"method":"POST","url":"https://x.test/a"}`), nil, EffectRequest, "sends POST to https://x.test/a"},
		{"DELETE", tool("http_request", `{"method":"delete","url":"https://x.test"}`), nil, EffectRequest, "sends DELETE to https://x.test"},
		{"templated method", tool("http_request", `{"method":"{{pick.text}}","url":"https://x.test"}`), nil, EffectRequest, "sends a request with the templated method {{pick.text}} to https://x.test"},
		{"no method", tool("http_request", `{"url":"https://x.test"}`), nil, EffectRequest, "sends a request to https://x.test"},
		{"MCP with side effects", tool("gh.create_issue", `{}`), cat, EffectTool, "calls gh.create_issue (MCP server gh), which may change things"},
		{"MCP read-only", tool("gh.search", `{}`), cat, "", ""},
		{"MCP unknown to the built-in catalog", tool("gh.search", `{}`), nil, EffectUnknownTool, "calls gh.search, which the tool catalog does not describe, so its effects are unknown"},
		{"disabled", `{"id":"x","key":"k","type":"Tool","enabled":false,"params":{"tool":"run_command","arguments":{"command":"ls"}}}`, nil, "", ""},
		{"agent with side effects", `{"id":"x","key":"k","type":"AiStep","params":{"prompt":"p","allowed_tools":["read_file","write_file","gh.search","gh.create_issue"]}}`, cat, EffectAgent, "an AI agent may call write_file, gh.create_issue"},
		{"agent read-only", `{"id":"x","key":"k","type":"AiStep","params":{"prompt":"p","allowed_tools":["read_file","gh.search"]}}`, cat, "", ""},
		{"agent may send any request", `{"id":"x","key":"k","type":"AiStep","params":{"prompt":"p","allowed_tools":["http_request"]}}`, nil, EffectAgent, "an AI agent may call http_request"},
		{"transform", `{"id":"x","key":"k","type":"AiTransform","params":{"kind":"summarize","input":"x"}}`, nil, "", ""},
		{"If", `{"id":"x","key":"k","type":"If","params":{"condition":"true"}}`, nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := parse(t, `"nodes":[`+c.node+`],"edges":[]`)
			got := SideEffectNodes(w, c.cat)
			if c.kind == "" {
				if len(got) != 0 {
					t.Fatalf("want none, got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Kind != c.kind || got[0].Detail != c.detail || got[0].Key != "k" || got[0].ID != "x" {
				t.Fatalf("got %+v\nwant %s %q", got, c.kind, c.detail)
			}
		})
	}
}

const sideEffectWF = `"nodes":[
 {"id":"a","key":"note","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"hi"}}},
 {"id":"b","key":"show","type":"Tool","params":{"tool":"log","arguments":{"message":"{{note.bytes}}"}}}],
 "edges":[{"from":"a","to":"b"}]`

func TestApprovalBeforeReplannedRun(t *testing.T) {
	marked := func(t *testing.T) *workflow.Workflow {
		w := parse(t, sideEffectWF)
		failure.MarkReplanned(w, failure.ReplanInfo{Replans: 1})
		return w
	}
	t.Run("nobody to ask", func(t *testing.T) {
		e := newEnv(t)
		_, err := New(e.opts).Run(context.Background(), marked(t))
		var ae *ApprovalError
		if !errors.As(err, &ae) || ae.Denied || len(ae.Steps) != 1 || ae.Steps[0].Key != "note" {
			t.Fatalf("err %v", err)
		}
		if !strings.Contains(err.Error(), `"note" (writes out.txt)`) {
			t.Errorf("message %q", err)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Fatal("an unapproved step ran")
		}
		if len(e.rec.all()) != 0 {
			t.Fatal("an unapproved run started")
		}
	})
	t.Run("denied", func(t *testing.T) {
		e := newEnv(t)
		var asked [][]SideEffect
		e.opts.Approve = func(ctx context.Context, s []SideEffect) (bool, error) { asked = append(asked, s); return false, nil }
		_, err := New(e.opts).Run(context.Background(), marked(t))
		var ae *ApprovalError
		if !errors.As(err, &ae) || !ae.Denied || len(asked) != 1 || asked[0][0].Kind != EffectFileWrite {
			t.Fatalf("err %v asked %+v", err, asked)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Fatal("a denied step ran")
		}
	})
	t.Run("approve fails", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Approve = func(ctx context.Context, s []SideEffect) (bool, error) { return false, errors.New("dialog closed") }
		if _, err := New(e.opts).Run(context.Background(), marked(t)); err == nil || !strings.Contains(err.Error(), "dialog closed") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("approved", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Approve = func(ctx context.Context, s []SideEffect) (bool, error) { return true, nil }
		wantOutcome(t, e.run(marked(t)), OutcomeSucceeded)
		if e.read("out.txt") != "hi" {
			t.Fatal("not written")
		}
	})
	t.Run("plain workflows are not asked about", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Approve = func(ctx context.Context, s []SideEffect) (bool, error) { t.Error("asked"); return false, nil }
		wantOutcome(t, e.run(parse(t, sideEffectWF)), OutcomeSucceeded)
	})
	t.Run("RequireApproval asks about any workflow", func(t *testing.T) {
		e := newEnv(t)
		e.opts.RequireApproval = true
		var asked int
		e.opts.Approve = func(ctx context.Context, s []SideEffect) (bool, error) { asked++; return true, nil }
		wantOutcome(t, e.run(parse(t, sideEffectWF)), OutcomeSucceeded)
		if asked != 1 {
			t.Fatalf("asked %d", asked)
		}
	})
	t.Run("nothing to approve", func(t *testing.T) {
		e := newEnv(t)
		w := parse(t, `"nodes":[{"id":"b","key":"show","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]`)
		failure.MarkReplanned(w, failure.ReplanInfo{Replans: 1})
		wantOutcome(t, e.run(w), OutcomeSucceeded)
	})
	t.Run("steps are listed in node order", func(t *testing.T) {
		w := parse(t, `"nodes":[
 {"id":"a","key":"one","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}},
 {"id":"b","key":"two","type":"Tool","params":{"tool":"read_file","arguments":{"path":"x"}}},
 {"id":"c","key":"three","type":"Tool","params":{"tool":"http_request","arguments":{"method":"PUT","url":"https://x.test"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`)
		var keys []string
		for _, s := range SideEffectNodes(w, nil) {
			keys = append(keys, s.Key)
		}
		if !reflect.DeepEqual(keys, []string{"one", "three"}) {
			t.Fatalf("keys %v", keys)
		}
	})
}
