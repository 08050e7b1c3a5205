package testcase

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// The sample workflow ships with its cases; they pass (and so stay true
// as the sample changes).
func TestSampleCasesPass(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "workflows", "sample.json")
	w, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(PathFor(path))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), w, path, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) < 3 {
		t.Errorf("%d cases, want the three shipped", len(rep.Cases))
	}
	for _, cr := range rep.Cases {
		wantPass(t, cr)
	}
}
