package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact"
)

// The attempts record keeps each attempt's arguments and whole outputs
// (past the run log's cut), with the run's secrets hidden and marked.
func TestAttemptsRecord(t *testing.T) {
	e := newEnv(t)
	e.opts.KeepAttempts = true
	e.opts.Redactor = redact.New("hunter2-secret-value")
	w := parse(t, `"nodes":[
	 {"id":"long","key":"long","type":"Tool","params":{"tool":"run_command","arguments":{"command":"head -c 5000 /dev/zero | tr '\\0' x"}}},
	 {"id":"leak","key":"leak","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hunter2-secret-value"}}}],
	 "edges":[{"from":"long","to":"leak"}]`)
	res := e.run(w)
	wantOutcome(t, res, OutcomeSucceeded)
	f, err := os.Open(filepath.Join(res.Dir, AttemptsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []AttemptRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r AttemptRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 || recs[0].NodeID != "long" || recs[0].Tool != "run_command" || recs[0].Redacted {
		t.Fatalf("records %+v", recs)
	}
	if out, _ := recs[0].Outputs["stdout"].(string); len(out) != 5000 {
		t.Errorf("stdout kept %d bytes, want all 5000", len(out))
	}
	if recs[0].Arguments["command"] != `head -c 5000 /dev/zero | tr '\0' x` {
		t.Errorf("arguments %v", recs[0].Arguments)
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, AttemptsFile))
	if strings.Contains(string(b), "hunter2-secret-value") || !recs[1].Redacted {
		t.Errorf("the secret is in the record or not marked: %+v", recs[1])
	}
	e.opts.KeepAttempts = false
	if _, err := os.Stat(filepath.Join(e.run(w).Dir, AttemptsFile)); !os.IsNotExist(err) {
		t.Errorf("a run without KeepAttempts wrote the record: %v", err)
	}
}
