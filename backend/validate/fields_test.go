package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestUnknownOutput(t *testing.T) {
	mcpCat := tools.NewCatalog(append(tools.Builtin().List(), tools.Tool{Name: "gh.issue", Server: "gh", Outputs: []tools.Field{{Name: "text"}, {Name: "data"}}})...)
	for _, tc := range []struct {
		name string
		w    *workflow.Workflow
		want string // "" means no unknown_output
	}{
		{"typo in an If", wf(ns(cmd("check", "x"), ifn("ok", "check.exit_cod == 0"), logn("t", "t"), logn("f", "f")),
			e("check", "ok"), eo("ok", "t", ifT), eo("ok", "f", ifF)),
			"The condition of If 'Ok' reads check.exit_cod, but 'Check' has no output 'exit_cod'; did you mean check.exit_code?"},
		{"template in a command", wf(ns(cmd("check", "x"), cmd("use", "echo {{check.stdut}}")), e("check", "use")),
			"did you mean check.stdout?"},
		{"MCP tool output", wf(ns(node("gh", workflow.TypeTool, workflow.Params{Tool: "gh.issue"}), logn("say", "{{gh.contents}}")), e("gh", "say")),
			"has no output 'contents' (it has text, data, success, error, error_record, skipped)"},
		{"MCP content is an alias", wf(ns(node("gh", workflow.TypeTool, workflow.Params{Tool: "gh.issue"}), logn("say", "{{gh.content}} {{gh.structuredContent.id}}")), e("gh", "say")), ""},
		{"AI transform kind", wf(ns(node("sum", workflow.TypeAiTransform, workflow.Params{Kind: "summarize", Input: "x"}), logn("say", "{{sum.label}}")), e("sum", "say")),
			"has no output 'label'"},
		{"verify", func() *workflow.Workflow {
			n := cmd("check", "x")
			n.Verify = "check.exitcode == 0"
			return wf(ns(n))
		}(), "did you mean check.exit_code?"},
		{"workflow done_when", func() *workflow.Workflow {
			w := wf(ns(cmd("check", "x")))
			w.DoneWhen = &workflow.DoneWhen{Condition: "check.stdot != ''"}
			return w
		}(), "The workflow's done_when condition reads check.stdot"},
		{"control node outputs", wf(ns(cmd("a", "x"), ifn("ok", "a.success"), logn("t", "{{ok.result}}"), logn("f", "f")),
			e("a", "ok"), eo("ok", "t", ifT), eo("ok", "f", ifF)), "it has no outputs"},
		{"known fields are fine", wf(ns(cmd("check", "x"), ifn("ok", "check.exit_code == 0 && check.success && 'a.b' != check.stdout"), logn("t", "{{check.error_record.category}} {{raw check.stderr}}"), logn("f", "f")),
			e("check", "ok"), eo("ok", "t", ifT), eo("ok", "f", ifF)), ""},
		{"unknown tool: nothing said", wf(ns(node("x", workflow.TypeTool, workflow.Params{Tool: "nope.tool"}), logn("say", "{{x.anything}}")), e("x", "say")), ""},
		{"optional access and strings", wf(ns(cmd("check", "x"), ifn("ok", "check?.whatever == nil && \"check.nothing\" != ''"), logn("t", "t"), logn("f", "f")),
			e("check", "ok"), eo("ok", "t", ifT), eo("ok", "f", ifF)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := catalog
			if strings.Contains(tc.name, "MCP") {
				cat = mcpCat
			}
			r := Validate(tc.w, cat)
			var got []string
			for _, p := range r.Problems {
				if p.Code == CodeUnknownOutput {
					got = append(got, p.Message)
					if p.Severity != SeverityError {
						t.Errorf("severity %s", p.Severity)
					}
				}
			}
			all := strings.Join(got, "\n")
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected: %s", all)
			case tc.want != "" && !strings.Contains(all, tc.want):
				dump(t, r)
				t.Errorf("want %q in %q", tc.want, all)
			}
		})
	}
}

// The MCP specification's names of a result's parts read as Weft's fields
// with a warning that names them, wherever a reference is checked; where
// the node has a field of that name (read_file's content), or lacks the
// field it stands for, nothing changes.
func TestOutputAlias(t *testing.T) {
	cat := tools.NewCatalog(append(tools.Builtin().List(), tools.Tool{Name: "gh.issue", Server: "gh", Outputs: []tools.Field{{Name: "text"}, {Name: "data"}}})...)
	gh := node("gh", workflow.TypeTool, workflow.Params{Tool: "gh.issue"})
	for _, tc := range []struct {
		name  string
		w     *workflow.Workflow
		code  string // the one problem about the reference; "" none
		field string
	}{
		{"template", wf(ns(gh, logn("say", "{{gh.content}}")), e("gh", "say")), CodeOutputAlias, "gh.text"},
		{"structured", wf(ns(gh, logn("say", "{{gh.structuredContent.id}}")), e("gh", "say")), CodeOutputAlias, "gh.data"},
		{"condition", wf(ns(gh, ifn("ok", "gh.content != ''"), logn("t", "t"), logn("f", "f")), e("gh", "ok"), eo("ok", "t", ifT), eo("ok", "f", ifF)), CodeOutputAlias, "gh.text"},
		{"verify", func() *workflow.Workflow {
			n := gh
			n.Verify = "gh.structuredContent != nil"
			return wf(ns(n))
		}(), CodeOutputAlias, "gh.data"},
		{"done_when", func() *workflow.Workflow {
			w := wf(ns(gh))
			w.DoneWhen = &workflow.DoneWhen{Condition: "gh.content != ''"}
			return w
		}(), CodeOutputAlias, "gh.text"},
		{"read_file has content", wf(ns(node("rd", workflow.TypeTool, workflow.Params{Tool: "read_file", Arguments: map[string]any{"path": "a.txt"}}), logn("say", "{{rd.content}}")), e("rd", "say")), "", ""},
		{"a command has no text", wf(ns(cmd("c", "x"), logn("say", "{{c.content}}")), e("c", "say")), CodeUnknownOutput, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(tc.w, cat)
			var got []Problem
			for _, p := range r.Problems {
				if p.Code == CodeOutputAlias || p.Code == CodeUnknownOutput {
					got = append(got, p)
				}
			}
			if tc.code == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Code != tc.code {
				dump(t, r)
				t.Fatalf("want one %s, got %+v", tc.code, got)
			}
			if tc.code == CodeOutputAlias && (got[0].Severity != SeverityWarning || !r.Valid || !strings.Contains(got[0].Message, "write "+tc.field)) {
				t.Errorf("%+v (valid %v): want a warning naming %s", got[0], r.Valid, tc.field)
			}
		})
	}
}

func FuzzExprRefs(f *testing.F) {
	for _, s := range []string{"a.b == 1", "'x.y' + a?.b", "#.x", "\"unterminated.s", "a.b.c", "{{raw a.b}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range exprRefs(s, nil) {
			if r.key == "" || r.field == "" {
				t.Fatalf("%q: empty ref %+v", s, r)
			}
		}
		templateRefs(s, nil)
	})
}
