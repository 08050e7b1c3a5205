package planner

// The figures of `make bench-repair` (backend/planner/benchrepair): how
// much the local stages save, measured on the reply corpus, and what that
// means for a flaky model against the reference design that re-asks on
// any parse error. They live here, beside the loop, so tests cover them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// BenchCase is one reply of the corpus (testdata/llm/NAME.txt) with what
// it should give (NAME.expect.json).
type BenchCase struct {
	Name   string
	Text   string
	Expect BenchExpect
}

// BenchExpect is the part of the corpus's expectation file the benchmark
// reads.
type BenchExpect struct {
	Outcome       string   `json:"outcome"` // "ok" or "reask"
	FatalStage    string   `json:"fatal_stage"`
	WarningStages []string `json:"warning_stages"`
	Valid         bool     `json:"valid"`
	// Features, when set, are the feature flags the reply is parsed with;
	// otherwise every step type is on.
	Features *struct {
		AllowAITransforms bool `json:"allow_ai_transforms"`
		AllowAgentSteps   bool `json:"allow_agent_steps"`
	} `json:"features"`
}

func (e BenchExpect) features() Features {
	if e.Features == nil {
		return benchOptions.Features
	}
	return Features{AllowAITransforms: e.Features.AllowAITransforms, AllowAgentSteps: e.Features.AllowAgentSteps}
}

// LoadBenchCorpus reads every NAME.txt with its NAME.expect.json in dir.
func LoadBenchCorpus(dir string) ([]BenchCase, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no corpus replies (*.txt) in %s", dir)
	}
	sort.Strings(paths)
	var cases []BenchCase
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		text, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		raw, err := os.ReadFile(filepath.Join(dir, name+".expect.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue // a reply without expectations is not part of the corpus
		}
		if err != nil {
			return nil, err
		}
		c := BenchCase{Name: name, Text: string(text)}
		if err := json.Unmarshal(raw, &c.Expect); err != nil {
			return nil, fmt.Errorf("%s.expect.json: %w", name, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// benchOptions are the parse options of the benchmark: all step types on;
// the built-in tools plus the "github" MCP server the corpus's replies use.
var benchOptions = ParseOptions{
	Features: Features{AllowAITransforms: true, AllowAgentSteps: true},
	Catalog: tools.Builtin().With("github", []tools.Tool{
		{Name: "list_issues", Description: "List issues", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "create_issue", Description: "Create an issue", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffects: true},
	}),
}

// BenchSyntheticPlan is a valid graph plan of n steps: tool steps with
// templates, and every tenth step an If whose branches join again.
func BenchSyntheticPlan(n int) string {
	var nodes, edges []string
	toolStep := func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf(`{"id": "s%d", "step_type": "Tool", "name": "Step %d", "tool_name": "log", "arguments": {"message": "step %d after {{s1.stdout}}"}}`, i, i, i)
		case 1:
			return fmt.Sprintf(`{"id": "s%d", "step_type": "Tool", "name": "Step %d", "tool_name": "run_command", "arguments": {"command": "echo %d"}}`, i, i, i)
		case 2:
			return fmt.Sprintf(`{"id": "s%d", "step_type": "Tool", "name": "Step %d", "tool_name": "write_file", "arguments": {"path": "out/%d.txt", "content": "{{s1.stdout}}"}}`, i, i, i)
		}
		return fmt.Sprintf(`{"id": "s%d", "step_type": "Tool", "name": "Step %d", "tool_name": "read_file", "arguments": {"path": "in/%d.txt"}}`, i, i, i)
	}
	edge := func(from, to int, out string) {
		if out == "" {
			edges = append(edges, fmt.Sprintf(`{"from": "s%d", "to": "s%d"}`, from, to))
			return
		}
		edges = append(edges, fmt.Sprintf(`{"from": "s%d", "to": "s%d", "output": {"type": %q}}`, from, to, out))
	}
	for i := 1; i <= n; i++ {
		// An If needs two steps after it; s1 stays a run_command, which
		// the templates read.
		if i%10 == 0 && i+2 <= n {
			nodes = append(nodes, fmt.Sprintf(`{"id": "s%d", "step_type": "If", "name": "Check %d", "condition": "s1.exit_code == 0"}`, i, i))
			edge(i, i+1, "IfTrue")
			edge(i, i+2, "IfFalse")
			continue
		}
		nodes = append(nodes, toolStep(i))
		if i < n {
			edge(i, i+1, "")
		}
	}
	return "{\"nodes\": [\n  " + strings.Join(nodes, ",\n  ") + "\n],\n\"edges\": [\n  " + strings.Join(edges, ",\n  ") + "\n]}"
}

// benchValid is a correct reply the recovery run gives to any re-ask.
var benchValid = BenchSyntheticPlan(5)

// benchModel is a fake llm.Client that benchModel from a list, repeating the
// last answer when it runs out.
type benchModel struct {
	texts []string
	n     int
}

func (a *benchModel) Chat(context.Context, []llm.Message, llm.Options) (llm.Reply, error) {
	t := a.texts[min(a.n, len(a.texts)-1)]
	a.n++
	return llm.Reply{Text: t, FinishReason: "stop"}, nil
}

// RecoveryReport says how many replies the local stages made usable
// without a second call, and whether they left valid replies alone.
type RecoveryReport struct {
	// Recoverable counts the corpus cases expected to parse ("ok").
	Recoverable int
	// Recovered counts those that gave a valid plan on the first call.
	Recovered int
	// NeedReask names the recoverable cases that needed a second call.
	NeedReask []string
	// ValidInputs counts replies that are already valid plans in strict
	// JSON (from the corpus, plus synthetic plans); Altered names those
	// the pipeline changed (warned about or mapped differently).
	ValidInputs int
	Altered     []string
}

// Rate is Recovered / Recoverable.
func (r RecoveryReport) Rate() float64 {
	if r.Recoverable == 0 {
		return 0
	}
	return float64(r.Recovered) / float64(r.Recoverable)
}

// BenchRecovery runs each recoverable case through PlanWorkflow (a model
// that would answer any re-ask correctly) and checks the valid inputs
// come out unchanged.
func BenchRecovery(cases []BenchCase) RecoveryReport {
	var r RecoveryReport
	for _, c := range cases {
		if c.Expect.Outcome != "ok" {
			continue
		}
		r.Recoverable++
		res, err := PlanWorkflow(context.Background(), &benchModel{texts: []string{c.Text, benchValid}}, "benchmark",
			Config{MaxRepairAttempts: 3, Features: c.Expect.features(), Catalog: benchOptions.Catalog})
		if err == nil && res.Valid && res.LLMCalls == 1 {
			r.Recovered++
		} else {
			r.NeedReask = append(r.NeedReask, c.Name)
		}
	}
	valid := map[string]string{}
	for _, c := range cases {
		if benchValidInput(c) {
			valid[c.Name] = c.Text
		}
	}
	for _, n := range []int{20, 200} {
		valid[fmt.Sprintf("synthetic-%d", n)] = BenchSyntheticPlan(n)
	}
	names := make([]string, 0, len(valid))
	for n := range valid {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		r.ValidInputs++
		if why := benchAlteration(valid[name]); why != "" {
			r.Altered = append(r.Altered, name+": "+why)
		}
	}
	return r
}

// benchValidInput reports whether a corpus reply is a valid plan as it
// stands: strict JSON, expected to parse with no warnings and validate.
func benchValidInput(c BenchCase) bool {
	return c.Expect.Outcome == "ok" && c.Expect.Valid && len(c.Expect.WarningStages) == 0 &&
		json.Valid([]byte(strings.TrimSpace(c.Text)))
}

// benchAlteration says how the pipeline changed a valid reply, or "" when it
// kept every step (id, type, name, tool, arguments, condition) and, for
// the graph form, every edge, and warned about nothing.
func benchAlteration(text string) string {
	w, ws, err := ParseOutput(text, benchOptions)
	if err != nil {
		return "rejected: " + err.Error()
	}
	for _, wn := range ws {
		if wn.Stage != StageLayout {
			return "warning: " + wn.String()
		}
	}
	if res := validate.Validate(w, benchOptions.Catalog); !res.Valid {
		return "invalid after parsing: " + res.Errors()[0].Message
	}
	var doc struct {
		Nodes []map[string]any `json:"nodes"`
		Edges []struct {
			From   string               `json:"from"`
			To     string               `json:"to"`
			Output *workflow.EdgeOutput `json:"output"`
		} `json:"edges"`
	}
	var root any
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &root); err != nil {
		return "not strict JSON: " + err.Error()
	}
	_ = json.Unmarshal([]byte(strings.TrimSpace(text)), &doc)
	// Every step, nested branches (then, else, body, case lists) included.
	var items []map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["step_type"]; ok {
				items = append(items, v)
			}
			for k, child := range v {
				if k != "arguments" {
					walk(child)
				}
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(root)
	for i, it := range items {
		id, _ := it["id"].(string)
		if id == "" {
			continue // matched by count below
		}
		n := w.NodeByKey(id)
		if n == nil {
			return fmt.Sprintf("step %d (%q) has no node with that key", i, id)
		}
		if st, _ := it["step_type"].(string); st != string(n.Type) {
			return fmt.Sprintf("step %q: type %q became %q", id, st, n.Type)
		}
		if name, ok := it["name"].(string); ok && name != n.Name {
			return fmt.Sprintf("step %q: name %q became %q", id, name, n.Name)
		}
		if tool, ok := it["tool_name"].(string); ok && tool != n.Params.Tool {
			return fmt.Sprintf("step %q: tool %q became %q", id, tool, n.Params.Tool)
		}
		if cond, ok := it["condition"].(string); ok && cond != n.Params.Condition {
			return fmt.Sprintf("step %q: condition %q became %q", id, cond, n.Params.Condition)
		}
		if args, ok := it["arguments"].(map[string]any); ok && !benchSameJSON(args, n.Params.Arguments) {
			return fmt.Sprintf("step %q: arguments changed", id)
		}
	}
	// A flat loop's EndLoop is implied by its body list; any other extra
	// or missing node is a change.
	added := 0
	for _, n := range w.Nodes {
		if n.Type == workflow.TypeEndLoop {
			added++
		}
	}
	for _, it := range items {
		if it["step_type"] == string(workflow.TypeEndLoop) {
			added--
		}
	}
	if len(w.Nodes) != len(items) && (len(w.Nodes) < len(items) || len(w.Nodes)-len(items) != added) {
		return fmt.Sprintf("%d steps became %d nodes", len(items), len(w.Nodes))
	}
	if len(doc.Nodes) > 0 {
		// Edges from START or to END say only where the flow starts or
		// ends: dropping them changes nothing.
		real := doc.Edges[:0:0]
		for _, e := range doc.Edges {
			if w.NodeByKey(e.From) == nil && IsFlowEnd(e.From) || w.NodeByKey(e.To) == nil && IsFlowEnd(e.To) {
				continue
			}
			real = append(real, e)
		}
		doc.Edges = real
		if len(doc.Edges) != len(w.Edges) {
			return fmt.Sprintf("%d edges became %d", len(doc.Edges), len(w.Edges))
		}
		for _, e := range doc.Edges {
			from, to := w.NodeByKey(e.From), w.NodeByKey(e.To)
			if from == nil || to == nil || !benchHasEdge(w, workflow.Edge{From: from.ID, To: to.ID, Output: e.Output}) {
				return fmt.Sprintf("edge %s → %s (%s) is gone", e.From, e.To, e.Output.String())
			}
		}
	}
	return ""
}

func benchHasEdge(w *workflow.Workflow, e workflow.Edge) bool {
	for _, x := range w.Edges {
		if x.SameAs(e) {
			return true
		}
	}
	return false
}

// benchSameJSON compares two values by their JSON form.
func benchSameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var x, y any
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// SimConfig sets up the flaky-model simulation.
type SimConfig struct {
	Plans       int
	BrokenRate  float64 // share of replies drawn from the corpus's defective replies
	Seed        uint64
	MaxAttempts int // Weft's max_repair_attempts
	// Enforced models a server that enforces the plan's JSON Schema
	// (Layer 0): a defective reply comes out as well-formed JSON (no
	// fences, prose, comments or syntax slips) with the same content, so
	// only its plan-level defects remain; a reply cut off at the end stays
	// cut off (a length limit cuts enforced output too).
	Enforced bool
}

// SimResult is one mode's outcome over all simulated plans.
type SimResult struct {
	Mode      string
	Plans     int
	Succeeded int
	// FirstCall counts the plans that succeeded on their first call.
	FirstCall int
	Calls     int
}

func (s SimResult) SuccessRate() float64 { return float64(s.Succeeded) / float64(max(s.Plans, 1)) }
func (s SimResult) MeanCalls() float64   { return float64(s.Calls) / float64(max(s.Plans, 1)) }
func (s SimResult) FirstCallRate() float64 {
	return float64(s.FirstCall) / float64(max(s.Plans, 1))
}

// BenchSimulate plans cfg.Plans times against a model whose every reply
// is, with probability cfg.BrokenRate, one of the corpus's defective
// replies (drawn uniformly), else a valid one. Both modes see the same
// draws: plan i's k-th call gets the same reply in each. Weft runs the
// real loop; the baseline is the reference design (seed 001): it accepts
// a reply only if it parses without local repair or edge inference and
// validates, and re-asks once.
func BenchSimulate(cases []BenchCase, cfg SimConfig) (weft, baseline SimResult, err error) {
	var good, broken []string
	for _, c := range cases {
		if benchValidInput(c) {
			good = append(good, c.Text)
		} else {
			broken = append(broken, c.Text)
		}
	}
	for _, n := range []int{3, 8, 20} {
		good = append(good, BenchSyntheticPlan(n))
	}
	if len(broken) == 0 {
		return weft, baseline, errors.New("the corpus has no defective replies")
	}
	server := "a server that ignores the schema"
	if cfg.Enforced {
		server = "a server that enforces the schema"
		for i, b := range broken {
			broken[i] = enforcedReply(b)
		}
	}
	weft = SimResult{Mode: fmt.Sprintf("weft, max_repair_attempts %d, %s", cfg.MaxAttempts, server), Plans: cfg.Plans}
	baseline = SimResult{Mode: "baseline (one re-ask), " + server, Plans: cfg.Plans}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	maxCalls := max(cfg.MaxAttempts, 2)
	accepted := map[string]bool{} // baseline verdict per reply text
	for range cfg.Plans {
		draws := make([]string, maxCalls)
		for k := range draws {
			if rng.Float64() < cfg.BrokenRate {
				draws[k] = broken[rng.IntN(len(broken))]
			} else {
				draws[k] = good[rng.IntN(len(good))]
			}
		}
		res, err := PlanWorkflow(context.Background(), &benchModel{texts: draws}, "benchmark",
			Config{MaxRepairAttempts: cfg.MaxAttempts, Features: benchOptions.Features, Catalog: benchOptions.Catalog})
		if err != nil {
			return weft, baseline, err
		}
		weft.Calls += res.LLMCalls
		if res.Valid {
			weft.Succeeded++
			if res.LLMCalls == 1 {
				weft.FirstCall++
			}
		}
		for k := 0; k < 2; k++ {
			baseline.Calls++
			ok, seen := accepted[draws[k]]
			if !seen {
				ok = benchBaselineAccepts(draws[k])
				accepted[draws[k]] = ok
			}
			if ok {
				baseline.Succeeded++
				if k == 0 {
					baseline.FirstCall++
				}
				break
			}
		}
	}
	return weft, baseline, nil
}

// enforcedReply is what a schema-enforcing server would have sent instead
// of text: the same content as well-formed JSON, unless text is cut off.
func enforcedReply(text string) string {
	js, ws, err := ExtractJSON(text)
	if err != nil {
		return text
	}
	for _, w := range ws {
		if strings.Contains(w.Message, "cut off") {
			return text
		}
	}
	fixed, rws, err := RepairJSON(js)
	if err != nil {
		return text
	}
	for _, w := range rws {
		if strings.Contains(w.Message, "cut off") {
			return text
		}
	}
	return fixed
}

// benchBaselineAccepts is the reference design's verdict on a reply: it finds
// the JSON (code fences, prose) and skips malformed items, but a reply
// that needs JSON repair or control-flow inference fails, as does one
// that does not validate.
func benchBaselineAccepts(text string) bool {
	w, ws, err := ParseOutput(text, benchOptions)
	if err != nil {
		return false
	}
	for _, wn := range ws {
		if wn.Stage == StageRepair || wn.Stage == StageInfer {
			return false
		}
	}
	return validate.Validate(w, benchOptions.Catalog).Valid
}
