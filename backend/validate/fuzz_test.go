package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
		case SeverityWarning:
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
