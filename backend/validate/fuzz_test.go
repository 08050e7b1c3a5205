package validate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// FuzzLoadValidate feeds arbitrary bytes through workflow.Parse and, when
// they parse, through Validate: nothing may panic, and the result must keep
// its contract (non-nil slices, Valid matching the errors, deterministic).
//
//	go test ./backend/validate -run='^$' -fuzz=FuzzLoadValidate -fuzztime=3m
//
// Crashers found are kept under testdata/fuzz/FuzzLoadValidate and replay
// with every plain go test.
func FuzzLoadValidate(f *testing.F) {
	for _, pattern := range []string{"*.json", "valid/*.json", "invalid/*.json"} {
		paths, _ := filepath.Glob(filepath.Join(workflowsDir, pattern))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"format":"weft/v1","nodes":[],"edges":[]}`))
	f.Add([]byte(`{"format":"weft/v1","nodes":[{"id":"a","type":"If","params":{"condition":"a.b ? c : d"}}],"edges":[{"from":"a","to":"a","output":"IfTrue"}]}`))
	f.Add([]byte(`{"format":"weft/v1","nodes":[{"id":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}],"edges":[],` +
		`"notes":[{"id":"n","text":"<b>{{a.x}}</b>","position":{"x":1,"y":2},"size":{"width":100,"height":50},"color":"blue","z":1},{"id":"a"}],` +
		`"groups":[{"id":"g","title":"G","position":{"x":0,"y":0},"size":{"width":1e9,"height":-1},"nodes":["a","gone","a"]},{"nodes":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, _, err := workflow.Parse(data)
		if err != nil {
			return
		}
		r := Validate(w, catalog)
		checkResult(t, r)
		if r2 := Validate(w, catalog); !reflect.DeepEqual(r, r2) {
			t.Fatalf("not deterministic:\n%+v\n%+v", r, r2)
		}
		checkResult(t, Validate(w, nil))
	})
}

func checkResult(t *testing.T, r Result) {
	t.Helper()
	if r.Problems == nil {
		t.Fatal("nil problems")
	}
	errs := 0
	for _, p := range r.Problems {
		if p.NodeIDs == nil || p.Edges == nil {
			t.Fatalf("nil slice in %+v", p)
		}
		if p.Code == "" || p.Message == "" {
			t.Fatalf("empty code or message in %+v", p)
		}
		switch p.Severity {
		case SeverityError:
			errs++
		case SeverityWarning, SeverityInfo:
		default:
			t.Fatalf("bad severity in %+v", p)
		}
	}
	if r.Valid != (errs == 0) {
		t.Fatalf("valid=%v with %d errors", r.Valid, errs)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("marshal result: %v", err)
	}
}

// FuzzValidateGraph builds workflows straight from the fuzzer's bytes
// (node types, labelled edges, loop pairings, conditions from a small pool),
// which reaches odd graph shapes far faster than mutating JSON does.
//
//	go test ./backend/validate -run='^$' -fuzz=FuzzValidateGraph -fuzztime=1m
func FuzzValidateGraph(f *testing.F) {
	f.Add([]byte{5, 0, 3, 5, 0, 6, 0, 0, 1, 0, 1, 2, 3, 2, 3, 0, 3, 4, 4})
	f.Add([]byte{8, 5, 0, 3, 6, 6, 0, 1, 2, 0, 1, 2, 2, 3, 0, 3, 4, 1, 4, 1, 5, 1, 5, 0, 6, 6, 7})
	f.Add([]byte{3, 4, 0, 0, 0, 1, 5, 0, 2, 6, 1, 2, 7})
	f.Fuzz(fuzzGraph)
}

var (
	fuzzConds = []string{"", "a0.exit_code == 0", "a1.x > 1 &&", "len(a2.files) > 0", "nope.x", "a3.ok", "1 + 2", "count.x == 1", "let v = a0.x; v"}
	fuzzTypes = workflow.NodeTypes
	fuzzOuts  = append([]workflow.OutputType{"", "Bogus"}, workflow.OutputTypes...)
)

func fuzzGraph(t *testing.T, data []byte) {
	if len(data) < 2 {
		return
	}
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	n := next()%24 + 1
	w := &workflow.Workflow{Format: workflow.Format, ID: "fz"}
	for i := 0; i < n; i++ {
		b := next()
		nd := workflow.Node{ID: fmt.Sprintf("a%d", i), Key: fmt.Sprintf("a%d", i), Type: fuzzTypes[b%len(fuzzTypes)]}
		if b&0x80 != 0 {
			nd.Key = fmt.Sprintf("a%d", next()%n) // duplicate keys
		}
		c := fuzzConds[next()%len(fuzzConds)]
		switch nd.Type {
		case workflow.TypeTool:
			nd.Params.Tool = "log"
			nd.Params.Arguments = map[string]any{"message": "{{" + c + "}}"}
		case workflow.TypeIf:
			nd.Params.Condition = c
		case workflow.TypeSwitch:
			for k := next() % 4; k > 0; k-- {
				nd.Params.Cases = append(nd.Params.Cases, workflow.SwitchCase{Name: fmt.Sprintf("c%d", next()%3), Condition: fuzzConds[next()%len(fuzzConds)]})
			}
		case workflow.TypeLoop:
			nd.Params.ExitCondition = c
			m := next()%4 - 1
			nd.Params.MaxIterations = &m
		case workflow.TypeEndLoop:
			nd.Params.LoopID = fmt.Sprintf("a%d", next()%(n+1))
		}
		if b&0x40 != 0 {
			nd.Verify = fuzzConds[next()%len(fuzzConds)]
		}
		w.Nodes = append(w.Nodes, nd)
	}
	for len(data) >= 3 {
		from, to, o := next()%(n+1), next()%(n+1), fuzzOuts[next()%len(fuzzOuts)]
		e := workflow.Edge{From: fmt.Sprintf("a%d", from), To: fmt.Sprintf("a%d", to)}
		if o != "" {
			e.Output = &workflow.EdgeOutput{Type: o, Name: fmt.Sprintf("c%d", from%3)}
		}
		w.Edges = append(w.Edges, e)
	}
	r := Validate(w, catalog)
	checkResult(t, r)
	if r2 := Validate(w, catalog); !reflect.DeepEqual(r, r2) {
		t.Fatalf("not deterministic")
	}
}

// FuzzShapeKey checks the premise of the shape cache in compileJobs: a
// condition and the same condition with its replaceable names renamed
// compile alike, reading the renamed names.
//
//	go test ./backend/validate -run='^$' -fuzz=FuzzShapeKey -fuzztime=1m
func FuzzShapeKey(f *testing.F) {
	for _, s := range []string{
		"check.exit_code == 0", "let v = a.x; v > 0 && b.y", `a.s matches "(x"`, "a ? b : c", "{k: a.x}.k",
		"all(a.files, # != '')", "x[a:b] == c", "a.x in [1, 2] or not b", "len(a.s) > 1e3", "f(a) == b",
		`a == b"x" && c == ` + "`raw c`", "a . b", "é.x == ü", "1..n", "$env.a == b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if strings.ContainsRune(expr, 0) || len(expr) > 300 {
			return
		}
		var sh shaper
		key, names, ok := sh.shapeKey(expr)
		if !ok || len(names) == 0 {
			return
		}
		fresh := make([]string, len(names))
		for k := range names {
			for n := 0; ; n++ {
				c := fmt.Sprintf("r%d_%d", k, n)
				if !strings.Contains(expr, c) {
					fresh[k] = c
					break
				}
			}
		}
		// Rebuild the text from the key, with the fresh names.
		parts := strings.Split(key, "\x00")
		var b strings.Builder
		for k, p := range parts {
			if k%2 == 1 {
				i, err := strconv.Atoi(p)
				if err != nil {
					t.Fatalf("bad placeholder %q in %q", p, key)
				}
				b.WriteString(fresh[i])
			} else {
				b.WriteString(p)
			}
		}
		renamed := b.String()
		if key2, _, ok2 := sh.shapeKey(renamed); !ok2 || key2 != key {
			t.Fatalf("%q renamed to %q changes its shape", expr, renamed)
		}
		cfg := newExprConfig()
		r1, err1 := compileCondition(cfg, expr)
		r2, err2 := compileCondition(cfg, renamed)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: %v; renamed %q: %v", expr, err1, renamed, err2)
		}
		if err1 != nil {
			return
		}
		want := make([]string, len(r1.idents))
		for k, id := range r1.idents {
			want[k] = id
			if p := slices.Index(names, id); p >= 0 {
				want[k] = fresh[p]
			}
		}
		if !slices.Equal(want, r2.idents) {
			t.Fatalf("%q reads %v; renamed %q reads %v, want %v", expr, r1.idents, renamed, r2.idents, want)
		}
	})
}
