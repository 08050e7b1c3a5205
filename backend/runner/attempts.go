package runner

import (
	"bytes"
	"encoding/json"
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

// attemptLog holds the attempts of a run until its end, when they are
// written with every secret the run learned by then hidden (a value read
// early may turn out to be a credential only when a later step sends it).
// Each is held encoded, so most are written as they are: only a line a
// secret was hidden in is encoded again.
type attemptLog struct {
	mu    sync.Mutex
	lines [][]byte
	size  int64
}

// keepAttempt adds an attempt to the record, when the run keeps one.
func (r *run) keepAttempt(n *workflow.Node, attempt int, args, out map[string]any, f *failure.Record) {
	if !r.opts.KeepAttempts || r.log == nil {
		return
	}
	a := &r.attempts
	a.mu.Lock()
	defer a.mu.Unlock()
	rec := AttemptRecord{NodeID: n.ID, Attempt: attempt, Outputs: out}
	if n.Type == workflow.TypeTool {
		rec.Tool = n.Params.Tool
		rec.Arguments, _ = render.Shown(args).(map[string]any)
	}
	if f != nil {
		rec.Error = f.Error // redacted where it is made
	}
	b, err := json.Marshal(rec)
	if err != nil || a.size+int64(len(b)) > MaxAttemptsBytes {
		rec.Arguments, rec.Outputs, rec.Cut = nil, nil, true
		b, _ = json.Marshal(rec)
	} else {
		a.size += int64(len(b))
	}
	a.lines = append(a.lines, b)
}

// writeAttempts writes the attempts record, hiding the run's secrets.
func (r *run) writeAttempts() error {
	a := &r.attempts
	a.mu.Lock()
	defer a.mu.Unlock()
	if !r.opts.KeepAttempts || r.log == nil {
		return nil
	}
	var buf bytes.Buffer
	for _, b := range a.lines {
		if !bytes.Equal(r.red.Bytes(b), b) {
			var err error
			if b, err = r.hiddenLine(b); err != nil {
				return err
			}
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	a.lines = nil
	return r.log.put(AttemptsFile, buf.Bytes(), runFileMode, false)
}

// hiddenLine is the record b with the run's secrets hidden in its values
// (the line's redaction differs from it), marked Redacted; values whose hiding broke
// the JSON are left out.
func (r *run) hiddenLine(b []byte) ([]byte, error) {
	var rec AttemptRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	var red1, red2 bool
	rec.Arguments, red1 = r.hidden(rec.Arguments)
	rec.Outputs, red2 = r.hidden(rec.Outputs)
	rec.Redacted = red1 || red2
	return json.Marshal(rec)
}

// hidden is x with the run's secrets hidden, and whether one was.
func (r *run) hidden(x map[string]any) (map[string]any, bool) {
	if x == nil {
		return nil, false
	}
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
