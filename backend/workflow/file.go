package workflow

import (
	"errors"
	"fmt"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// MaxFileSize bounds what Load reads, so a wrong file cannot exhaust memory.
const MaxFileSize = 256 << 20

// Load reads and parses a workflow file (ParseFile: a file without an id
// gets one derived from its path). Errors name the file and, for bad
// content, the JSON path, line and column.
func Load(path string) (*Workflow, []string, error) {
	// A regular file only, opened without blocking: a FIFO or device at
	// the path is refused, never waited on (atomicfile.OpenFile).
	data, err := atomicfile.ReadBounded(path, MaxFileSize)
	if err != nil {
		return nil, nil, fmt.Errorf("open workflow: %w", err)
	}
	w, warnings, err := ParseFile(path, data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, fmt.Errorf("parse workflow %s: %w", path, err)
	}
	return w, warnings, nil
}

// Save writes the workflow atomically: the previous file survives any failure.
func Save(path string, w *Workflow) error {
	data, err := Marshal(w)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("save workflow: %w", err)
	}
	return nil
}
