package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func onErr(n workflow.Node, mode workflow.OnError) workflow.Node {
	n.OnError = mode
	return n
}

func TestOnErrorRules(t *testing.T) {
	errE := workflow.OutError
	for _, tc := range []struct {
		name  string
		w     *workflow.Workflow
		want  []string // codes expected; nil means valid
		valid bool
	}{
		{"branch with its Error edge", wf(ns(onErr(cmd("a", "x"), workflow.OnErrorBranch), logn("ok", "fine"), logn("bad", "{{a.error}}")),
			e("a", "ok"), eo("a", "bad", errE)), nil, true},
		{"branch with only the Error edge", wf(ns(onErr(cmd("a", "x"), workflow.OnErrorBranch), logn("bad", "{{a.error}}")),
			eo("a", "bad", errE)), nil, true},
		{"branch without an Error edge", wf(ns(onErr(cmd("a", "x"), workflow.OnErrorBranch), logn("ok", "fine")),
			e("a", "ok")), []string{CodeErrorBranchMissing}, false},
		{"Error edge without branch", wf(ns(cmd("a", "x"), logn("ok", "fine"), logn("bad", "no")),
			e("a", "ok"), eo("a", "bad", errE)), []string{CodeBadOutputLabel}, false},
		{"two Error edges", wf(ns(onErr(cmd("a", "x"), workflow.OnErrorBranch), logn("b1", "1"), logn("b2", "2")),
			eo("a", "b1", errE), eo("a", "b2", errE)), []string{CodeMultipleOutgoing}, false},
		{"unknown mode", wf(ns(onErr(cmd("a", "x"), "ignore"))), []string{CodeBadOnError}, false},
		{"on_error on an If", wf(ns(cmd("a", "x"), onErr(ifn("i", "a.success"), workflow.OnErrorContinue), logn("t", "t"), logn("f", "f")),
			e("a", "i"), eo("i", "t", ifT), eo("i", "f", ifF)), []string{CodeBadOnError}, false},
		{"Error edge from an If", wf(ns(cmd("a", "x"), ifn("i", "a.success"), logn("t", "t"), logn("f", "f"), logn("x", "x")),
			e("a", "i"), eo("i", "t", ifT), eo("i", "f", ifF), eo("i", "x", errE)), []string{CodeBadOutputLabel}, false},
		{"continue is plain", wf(ns(onErr(cmd("a", "x"), workflow.OnErrorContinue), logn("ok", "{{a.error}}")), e("a", "ok")), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(tc.w, catalog)
			if r.Valid != tc.valid {
				dump(t, r)
				t.Fatalf("valid = %t, want %t", r.Valid, tc.valid)
			}
			for _, c := range tc.want {
				if !hasCode(r, c) {
					dump(t, r)
					t.Errorf("want %s", c)
				}
			}
			for _, p := range r.Problems {
				if p.Severity == SeverityError && strings.TrimSpace(p.Message) == "" {
					t.Errorf("empty message for %s", p.Code)
				}
			}
		})
	}
}

func TestDoneWhenRules(t *testing.T) {
	good := wf(ns(cmd("tests", "go test ./..."), cmd("cov", "cover")), e("tests", "cov"))
	good.DoneWhen = &workflow.DoneWhen{Condition: "cov.exit_code == 0 && tests.success", Criteria: "coverage is at least 80%"}
	good.Nodes[1].DoneWhen = &workflow.DoneWhen{Condition: "cov.stdout != ''"}
	if r := Validate(good, catalog); !r.Valid || len(r.Problems) != 0 {
		dump(t, r)
		t.Fatal("want a clean result")
	}

	bad := wf(ns(cmd("tests", "x"), ifn("i", "tests.success"), logn("t", "t"), logn("f", "f")), e("tests", "i"), eo("i", "t", ifT), eo("i", "f", ifF))
	bad.DoneWhen = &workflow.DoneWhen{Condition: "tests.exit_code =="}
	bad.Nodes[1].DoneWhen = &workflow.DoneWhen{Condition: "true"}
	bad.Nodes[2].DoneWhen = &workflow.DoneWhen{}
	bad.Nodes[3].DoneWhen = &workflow.DoneWhen{Criteria: strings.Repeat("x", MaxCriteriaLength+1)}
	r := Validate(bad, catalog)
	var msgs []string
	for _, p := range r.Problems {
		msgs = append(msgs, p.Code+": "+p.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"bad_condition: The workflow's done_when condition does not compile", "bad_done_when: If", "bad_done_when: The done_when of", "bad_done_when: The done_when criteria of"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}

	unknown := wf(ns(cmd("a", "x")))
	unknown.DoneWhen = &workflow.DoneWhen{Condition: "nope.success"}
	if r := Validate(unknown, catalog); !hasCode(r, CodeUnknownVariable) {
		dump(t, r)
		t.Error("want unknown_variable for the workflow's done_when")
	}
}
