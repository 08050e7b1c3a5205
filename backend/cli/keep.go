package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// Reasons recorded in the versions store when a command is about to
// replace a workflow file, so the replaced content is never lost.
const (
	reasonBeforePlanOut   versions.Reason = "before plan --out"
	reasonBeforeChatApply versions.Reason = "before chat --apply"
)

// kept is the version an existing workflow file was saved as before a
// command replaced it.
type kept struct {
	WorkflowID string
	Version    versions.Version
}

// keepVersion records w (the content about to be replaced) in the versions
// store. It is an error when that is not possible: the caller then must
// not replace the file.
func (c *cli) keepVersion(w *workflow.Workflow, reason versions.Reason) (kept, error) {
	store, err := versions.DefaultStore()
	if err != nil {
		return kept{}, fmt.Errorf("keep the current workflow as a version: %w", err)
	}
	store.Log = c.log
	v, err := store.Save(w, reason)
	if err != nil {
		return kept{}, fmt.Errorf("keep the current workflow as a version: %w", err)
	}
	return kept{WorkflowID: w.ID, Version: v}, nil
}

// existingWorkflow reads path when something is there: (nil, false, nil)
// when nothing is; an error when something is but it is not a workflow
// Weft can read (it then cannot be kept as a version either).
func existingWorkflow(path string) (*workflow.Workflow, bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		return nil, true, err
	}
	return w, true, nil
}

// draftPath is where `weft plan --out FILE` writes an invalid draft when
// FILE already exists: notes.json → notes.draft.json, notes → notes.draft.json.
func draftPath(path string) string {
	dir, base := filepath.Split(path)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".json") && len(base) > len(ext) {
		base = base[:len(base)-len(ext)]
	}
	return dir + base + ".draft.json"
}
