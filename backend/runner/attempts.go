package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/workflow"
)

// The attempts record (Options.KeepAttempts): each attempt of a step with
// its arguments as rendered and its outputs whole (not cut as the run log
// cuts them), for recording a test case from the run (weft test
// --record). Secrets never enter it: a secret shows as its reference,
// and a value that held one is hidden and the attempt marked Redacted.

// AttemptsFile is the attempts record in a run folder.
const AttemptsFile = "attempts.jsonl"

// MaxAttemptsBytes bounds the attempts record; past it, attempts are
// written without their arguments and outputs, marked Cut.
const MaxAttemptsBytes = 64 << 20

// AttemptRecord is one attempt of a step.
type AttemptRecord struct {
	NodeID  string `json:"node_id"`
	Attempt int    `json:"attempt"`
	// Tool is a Tool step's tool ("" for an AI step).
	Tool string `json:"tool,omitempty"`
	// Arguments are a Tool step's arguments as rendered (a secret as its
	// reference).
	Arguments map[string]any `json:"arguments,omitempty"`
	Outputs   map[string]any `json:"outputs,omitempty"`
	// Error is why the attempt failed.
	Error string `json:"error,omitempty"`
	// Redacted: a value held a secret and was hidden. Cut: the record's
	// bound was reached and the values were left out.
	Redacted bool `json:"redacted,omitempty"`
	Cut      bool `json:"cut,omitempty"`
}

type attemptLog struct {
	mu   sync.Mutex
	f    *os.File
	size int64
	err  error
}

// keepAttempt adds an attempt to the record, when the run keeps one.
func (r *run) keepAttempt(n *workflow.Node, attempt int, args, out map[string]any, f *failure.Record) {
	if !r.opts.KeepAttempts || r.log == nil {
		return
	}
	a := &r.attempts
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return
	}
	if a.f == nil {
		if a.f, a.err = openAppend(filepath.Join(r.log.dir, AttemptsFile)); a.err != nil {
			return
		}
	}
	rec := AttemptRecord{NodeID: n.ID, Attempt: attempt}
	if n.Type == workflow.TypeTool {
		rec.Tool = n.Params.Tool
		rec.Arguments, rec.Redacted = r.hidden(render.Shown(args))
	}
	var red bool
	rec.Outputs, red = r.hidden(out)
	rec.Redacted = rec.Redacted || red
	if f != nil {
		rec.Error = f.Error // redacted where it is made
	}
	b, err := json.Marshal(rec)
	if err == nil && a.size+int64(len(b)) > MaxAttemptsBytes {
		rec.Arguments, rec.Outputs, rec.Cut = nil, nil, true
		b, err = json.Marshal(rec)
	}
	if err != nil {
		return
	}
	b = append(b, '\n')
	if _, err := a.f.Write(b); err != nil {
		a.err = err
		return
	}
	a.size += int64(len(b))
}

// hidden is x with the run's secrets hidden, and whether one was.
func (r *run) hidden(x any) (map[string]any, bool) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, false
	}
	rb := r.red.Bytes(b)
	var out map[string]any
	if json.Unmarshal(rb, &out) != nil {
		return nil, true
	}
	return out, string(rb) != string(b)
}

func (a *attemptLog) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return a.err
	}
	err := a.f.Close()
	a.f = nil
	if a.err != nil {
		return a.err
	}
	return err
}
