package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// failingCommand fails with a HIGH-severity permission error (the script is
// not executable), which retrying cannot fix.
const failingCommand = `"nodes":[{"id":"d","key":"d","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./x.sh"}},"verify":"d.exit_code == 0"}],"edges":[]`

// criticalStep fails with a CRITICAL configuration error (no model).
const criticalStep = `"nodes":[{"id":"s","key":"think","type":"AiStep","params":{"prompt":"think"}}],"edges":[]`

func TestAutoReplanFromSettings(t *testing.T) {
	t.Run("enabled by the setting", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner = p
		e.opts.Settings.Run.AutoReplan.Enabled = true
		ans := &answers{}
		e.opts.Escalation = ans
		res := e.run(parse(t, failingCommand))
		wantOutcome(t, res, OutcomeReplanned)
		if len(ans.asked) != 0 || len(p.got) != 1 || !p.got[0].Auto {
			t.Fatalf("asked %d planner %+v", len(ans.asked), p.got)
		}
		info, ok := failure.ReplanInfoOf(res.Replanned)
		if !ok || info.RunID != res.RunID || info.FailedNode != "d" || !info.Auto || info.Replans != 1 || info.AutoReplans != 1 {
			t.Fatalf("mark %+v %v", info, ok)
		}
		// The replan is learned as what was done about the failure.
		ps, err := e.opts.Patterns.Relevant("run_command", 0)
		if err != nil || len(ps) != 1 || ps[0].Resolution != "replan" || !strings.Contains(ps[0].Fix, "the planner removed the step") {
			t.Fatalf("patterns %+v %v", ps, err)
		}
	})
	t.Run("off by default", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner = p
		ans := &answers{}
		e.opts.Escalation = ans
		wantOutcome(t, e.run(parse(t, failingCommand)), OutcomeAborted)
		if len(p.got) != 0 || len(ans.asked) != 1 || !ans.asked[0].CanReplan {
			t.Fatalf("planner %d asked %+v", len(p.got), ans.asked)
		}
	})
	t.Run("min severity CRITICAL skips HIGH failures", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner = p
		e.opts.Settings.Run.AutoReplan.Enabled = true
		e.opts.Settings.Run.AutoReplan.MinSeverity = "CRITICAL"
		e.opts.Escalation = &answers{}
		wantOutcome(t, e.run(parse(t, failingCommand)), OutcomeAborted)
		if len(p.got) != 0 {
			t.Fatal("replanned a HIGH failure")
		}
		// …and replans CRITICAL ones.
		wantOutcome(t, e.run(parse(t, criticalStep)), OutcomeReplanned)
		if len(p.got) != 1 || p.got[0].Failures[0].Severity != failure.SevCritical {
			t.Fatalf("planner %+v", p.got)
		}
	})
	t.Run("the option wins over the setting", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner = p
		e.opts.Settings.Run.AutoReplan.Enabled = true
		e.opts.AutoReplanMinSeverity = failure.SevCritical
		e.opts.Escalation = &answers{}
		wantOutcome(t, e.run(parse(t, failingCommand)), OutcomeAborted)
		if len(p.got) != 0 {
			t.Fatal("replanned a HIGH failure")
		}
	})
	t.Run("needs a replanner", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		e.opts.Settings.Run.AutoReplan.Enabled = true
		ans := &answers{}
		e.opts.Escalation = ans
		wantOutcome(t, e.run(parse(t, failingCommand)), OutcomeAborted)
		if len(ans.asked) != 1 || ans.asked[0].CanReplan || ans.asked[0].Notice != "" {
			t.Fatalf("asked %+v", ans.asked)
		}
	})
}

func TestAutoReplanLimits(t *testing.T) {
	t.Run("max per run", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{err: errors.New("model offline")}
		e.opts.Replanner = p
		e.opts.Settings.Run.AutoReplan.Enabled = true
		e.opts.Settings.Run.AutoReplan.MaxPerRun = 2
		retry := Response{Action: ActRetry}
		ans := &answers{resps: []Response{retry, retry, retry, {Action: ActAbort}}}
		e.opts.Escalation = ans
		wantOutcome(t, e.run(parse(t, failingCommand)), OutcomeAborted)
		if len(p.got) != 2 || len(ans.asked) != 4 {
			t.Fatalf("replans %d, escalations %d", len(p.got), len(ans.asked))
		}
		for i, want := range []string{"model offline", "model offline", "limit is 2", "limit is 2"} {
			if !strings.Contains(ans.asked[i].Notice, want) {
				t.Errorf("escalation %d notice %q, want %q", i, ans.asked[i].Notice, want)
			}
		}
	})
	// A version replanned automatically carries the count of its chain.
	chained := func(t *testing.T, autoReplans int) *workflow.Workflow {
		w := parse(t, failingCommand)
		failure.MarkReplanned(w, failure.ReplanInfo{Replans: autoReplans, AutoReplans: autoReplans})
		return w
	}
	for _, c := range []struct {
		name         string
		option, used int
		setting      int
		replan       bool
	}{
		{"chain below the setting", 0, 1, 2, true},
		{"chain at the setting", 0, 2, 2, false},
		{"option over the setting", 3, 2, 2, true},
		{"hard cap over the option", 50, 5, 2, false},
		{"just under the hard cap", 50, 4, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.write("x.sh", "echo hi")
			p := &fakePlanner{}
			e.opts.Replanner = p
			e.opts.Settings.Run.AutoReplan.Enabled = true
			e.opts.Settings.Run.AutoReplan.MaxPerRun = c.setting
			e.opts.MaxAutoReplans = c.option
			e.opts.Approvals = approveAll{}
			ans := &answers{}
			e.opts.Escalation = ans
			res := e.run(chained(t, c.used))
			if !c.replan {
				wantOutcome(t, res, OutcomeAborted)
				if len(p.got) != 0 || len(ans.asked) != 1 || !strings.Contains(ans.asked[0].Notice, "automatic replanning stopped") {
					t.Fatalf("planner %d asked %+v", len(p.got), ans.asked)
				}
				return
			}
			wantOutcome(t, res, OutcomeReplanned)
			info, _ := failure.ReplanInfoOf(res.Replanned)
			if info.AutoReplans != c.used+1 || info.Replans != c.used+1 {
				t.Fatalf("mark %+v", info)
			}
		})
	}
	t.Run("a replan on request is not limited", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner = p
		e.opts.Settings.Run.AutoReplan.Enabled = true
		e.opts.Approvals = approveAll{}
		ans := &answers{resps: []Response{{Action: ActReplan}}}
		e.opts.Escalation = ans
		res := e.run(chained(t, 5))
		wantOutcome(t, res, OutcomeReplanned)
		info, _ := failure.ReplanInfoOf(res.Replanned)
		if info.Auto || info.AutoReplans != 5 || info.Replans != 6 {
			t.Fatalf("mark %+v", info)
		}
	})
}

// approveAll approves every step (the tests here are about replanning).
type approveAll struct{}

func (approveAll) Approved(string) bool { return true }
