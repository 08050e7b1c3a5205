package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
)

const sideEffectWF = `"nodes":[
 {"id":"a","key":"note","type":"Tool","provenance":{"source":"model","via":"plan"},"params":{"tool":"write_file","arguments":{"path":"out.txt","content":"hi"}}},
 {"id":"b","key":"show","type":"Tool","params":{"tool":"log","arguments":{"message":"{{note.bytes}}"}}}],
 "edges":[{"from":"a","to":"b"}]`

// TestApprovalGate: the runner is the last check — whatever the caller,
// a model-written step that needs approval and is not approved never runs.
func TestApprovalGate(t *testing.T) {
	noteFP := func(t *testing.T) string {
		return approval.Fingerprint(parse(t, sideEffectWF).NodeByID("a"))
	}
	t.Run("not approved", func(t *testing.T) {
		e := newEnv(t)
		_, err := New(e.opts).Run(context.Background(), parse(t, sideEffectWF))
		var ae *ApprovalError
		if !errors.As(err, &ae) || len(ae.Steps) != 1 || ae.Steps[0].Key != "note" || ae.Steps[0].Kind != approval.KindFileWrite {
			t.Fatalf("err %v", err)
		}
		if !strings.Contains(err.Error(), `"note" (writes a file)`) {
			t.Errorf("message %q", err)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Fatal("an unapproved step ran")
		}
		if len(e.rec.all()) != 0 {
			t.Fatal("an unapproved run started")
		}
	})
	t.Run("approved exact content", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Approvals = approval.Set{noteFP(t): true}
		wantOutcome(t, e.run(parse(t, sideEffectWF)), OutcomeSucceeded)
		if e.read("out.txt") != "hi" {
			t.Fatal("not written")
		}
	})
	t.Run("approved content changed since", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Approvals = approval.Set{noteFP(t): true}
		w := parse(t, strings.Replace(sideEffectWF, `"path":"out.txt"`, `"path":"../out.txt"`, 1))
		_, err := New(e.opts).Run(context.Background(), w)
		var ae *ApprovalError
		if !errors.As(err, &ae) {
			t.Fatalf("a changed step ran on an earlier approval: %v", err)
		}
	})
	t.Run("hand-written workflows are not gated", func(t *testing.T) {
		e := newEnv(t)
		w := parse(t, sideEffectWF)
		approval.Clear(w.NodeByID("a"))
		wantOutcome(t, e.run(w), OutcomeSucceeded)
	})
	t.Run("disabled model steps are not gated", func(t *testing.T) {
		e := newEnv(t)
		w := parse(t, `"nodes":[{"id":"a","key":"note","type":"Tool","enabled":false,"provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"touch x"}}},
 {"id":"b","key":"show","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[{"from":"a","to":"b"}]`)
		wantOutcome(t, e.run(w), OutcomeSucceeded)
	})
	t.Run("legacy replan mark gates unmarked steps", func(t *testing.T) {
		e := newEnv(t)
		// A file saved by a Weft before per-step provenance: the workflow is
		// marked, its steps are not; parsing marks them.
		w := parse(t, `"weft_replan":{"replans":1},`+strings.Replace(sideEffectWF, `"provenance":{"source":"model","via":"plan"},`, "", 1))
		_, err := New(e.opts).Run(context.Background(), w)
		var ae *ApprovalError
		if !errors.As(err, &ae) {
			t.Fatalf("err %v", err)
		}
	})
}
