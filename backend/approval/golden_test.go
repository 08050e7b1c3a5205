package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// TestFingerprintsStayPut guards every approval people have recorded: the
// content fingerprints of the nodes of existing files (recorded in
// testdata/fingerprints.golden.json before workflow files were written
// without HTML escaping) do not change, neither as loaded nor after a save
// and reload by this version. testdata/golden holds frozen copies of
// example files that have since been edited, so their content stays what
// was fingerprinted.
func TestFingerprintsStayPut(t *testing.T) {
	b, err := os.ReadFile("testdata/fingerprints.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]map[string]string
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden) < 5 {
		t.Fatalf("golden file lists %d workflows", len(golden))
	}
	for file, want := range golden {
		w, _, err := workflow.Load(filepath.FromSlash(file))
		if err != nil {
			t.Fatal(err)
		}
		saved, err := workflow.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := workflow.Parse(saved)
		if err != nil {
			t.Fatalf("%s: the saved form does not parse: %v", file, err)
		}
		for name, doc := range map[string]*workflow.Workflow{"loaded": w, "saved and reloaded": again} {
			if len(doc.Nodes) != len(want) {
				t.Fatalf("%s (%s): %d nodes, golden has %d", file, name, len(doc.Nodes), len(want))
			}
			for i := range doc.Nodes {
				n := &doc.Nodes[i]
				if got := Fingerprint(n); got != want[n.ID] {
					t.Errorf("%s (%s): node %s fingerprint %s, want %s", file, name, n.ID, got, want[n.ID])
				}
			}
		}
	}
}
