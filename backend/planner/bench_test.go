package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// BenchmarkPipeline is the local pipeline on a valid reply of n steps:
// ParseOutput (extract … layout) then Validate.
func BenchmarkPipeline(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		text := BenchSyntheticPlan(n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w, _, err := ParseOutput(text, benchOptions)
				if err != nil {
					b.Fatal(err)
				}
				if !validate.Validate(w, tools.Builtin()).Valid {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkParseOutput and BenchmarkValidate split the pipeline's cost.
func BenchmarkParseOutput(b *testing.B) {
	text := BenchSyntheticPlan(200)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseOutput(text, benchOptions); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	w, _, err := ParseOutput(BenchSyntheticPlan(200), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	cat := tools.Builtin()
	b.ReportAllocs()
	for b.Loop() {
		validate.Validate(w, cat)
	}
}

func TestBenchSyntheticPlansAreValidAndKept(t *testing.T) {
	for _, n := range []int{1, 3, 12, 20, 200} {
		if why := benchAlteration(BenchSyntheticPlan(n)); why != "" {
			t.Errorf("%d steps: %s", n, why)
		}
	}
}

func TestBenchAlterationSeesChanges(t *testing.T) {
	for name, text := range map[string]string{
		"repaired": replyTrailingComma,
		"invalid":  replyIfOneBranch,
		"prose":    replyProse,
	} {
		if why := benchAlteration(text); why == "" {
			t.Errorf("%s: the change went unnoticed", name)
		}
	}
}

// miniCorpus writes a small corpus in the testdata/llm layout.
func miniCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"valid.txt":             replyValidFlat,
		"valid.expect.json":     `{"outcome": "ok", "warning_stages": [], "nodes": 2, "valid": true}`,
		"comma.txt":             replyTrailingComma,
		"comma.expect.json":     `{"outcome": "ok", "warning_stages": ["repair"], "nodes": 2, "valid": true}`,
		"fenced.txt":            "Here you go:\n```json\n" + replyValidFlat + "\n```",
		"fenced.expect.json":    `{"outcome": "ok", "warning_stages": ["extract"], "nodes": 2, "valid": true}`,
		"prose.txt":             replyProse,
		"prose.expect.json":     `{"outcome": "reask", "fatal_stage": "extract"}`,
		"if_branch.txt":         replyIfOneBranch,
		"if_branch.expect.json": `{"outcome": "reask", "nodes": 3, "valid": false}`,
		"no_expectations.txt":   "ignored",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBenchRecoveryAndSimulation(t *testing.T) {
	cases, err := LoadBenchCorpus(miniCorpus(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 5 {
		t.Fatalf("%d cases, want 5 (a reply without expectations is skipped)", len(cases))
	}
	r := BenchRecovery(cases)
	if r.Recoverable != 3 || r.Recovered != 3 || r.Rate() != 1 || len(r.NeedReask) != 0 {
		t.Errorf("recovery %+v", r)
	}
	if r.ValidInputs != 3 || len(r.Altered) != 0 { // valid.txt and two synthetic plans
		t.Errorf("valid inputs %d, altered %q", r.ValidInputs, r.Altered)
	}

	cfg := SimConfig{Plans: 200, BrokenRate: 0.3, Seed: 7, MaxAttempts: 3}
	weft, base, err := BenchSimulate(cases, cfg)
	if err != nil {
		t.Fatal(err)
	}
	weft2, base2, _ := BenchSimulate(cases, cfg)
	if weft != weft2 || base != base2 {
		t.Fatal("the simulation must be deterministic for a seed")
	}
	if weft.SuccessRate() < base.SuccessRate() || weft.MeanCalls() > base.MeanCalls() {
		t.Errorf("weft %.3f/%.2f calls should beat the baseline %.3f/%.2f", weft.SuccessRate(), weft.MeanCalls(), base.SuccessRate(), base.MeanCalls())
	}
	if base.Calls < base.Plans || base.Calls > 2*base.Plans || weft.Calls > 3*weft.Plans {
		t.Errorf("calls out of bounds: weft %d, baseline %d for %d plans", weft.Calls, base.Calls, cfg.Plans)
	}
	// A server that enforces the schema never costs calls: its replies
	// are the same content as well-formed JSON.
	cfg.Enforced = true
	weftE, baseE, err := BenchSimulate(cases, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if weftE.Calls > weft.Calls || baseE.Calls > base.Calls || baseE.Succeeded < base.Succeeded {
		t.Errorf("enforced: weft %d calls (ignored: %d), baseline %d calls, %d valid (ignored: %d, %d)", weftE.Calls, weft.Calls, baseE.Calls, baseE.Succeeded, base.Calls, base.Succeeded)
	}
}

func TestEnforcedReply(t *testing.T) {
	if got := enforcedReply("Here:\n```json\n{'steps': [],}\n```"); got != `{"steps": []}` {
		t.Errorf("fenced single-quoted reply: %q", got)
	}
	if cut := `{"steps": [{"id": "a"`; enforcedReply(cut) != cut {
		t.Error("a cut-off reply must stay cut off")
	}
}
