package service

// File trust: a workflow file whose bytes are not ones Weft wrote for the
// person or the person reviewed (a clone, a download, an edit elsewhere)
// is reviewed as a whole before anything in it acts (approval.Scope.File).
// This file decides what a file's trust is, records it when the person has
// reviewed everything that acts or routes in it, and carries it over when
// Weft itself writes the file (Save, Save As, plan --out, chat --apply).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/workflow"
)

// FileTrust is what the person is told about a workflow file's trust.
type FileTrust struct {
	// Path is the file's canonical path ("" when unsaved).
	Path string `json:"path"`
	// Trusted is true when its bytes are ones Weft wrote for the person,
	// the person reviewed, or in a folder the person trusts.
	Trusted bool `json:"trusted"`
	// Why says in words why it is trusted or not.
	Why string `json:"why"`
	// Folder is the trusted folder that covers it, if one does.
	Folder string `json:"folder,omitempty"`
	// Changed is true when an earlier content of the file was trusted
	// (the steps to review then show what they were).
	Changed bool   `json:"changed"`
	SHA256  string `json:"sha256,omitempty"`
}

// trust opens the file-trust index (default: the XDG data dir's).
func (s *Service) trust() (*approval.Trust, error) {
	if s.deps.Trust != nil {
		return s.deps.Trust()
	}
	return approval.DefaultTrust()
}

// fileCheck is one reading of a workflow file and its trust.
type fileCheck struct {
	state approval.FileState
	// data are the bytes on disk (nil when unsaved or unreadable).
	data []byte
	// prev is the content last trusted at the path, parsed, when the file
	// changed since.
	prev     *workflow.Workflow
	warnings []string
}

// checkFile reads the file at path once and judges its bytes. A file that
// cannot be read is not trusted (what runs is then the editor's copy,
// reviewed in full).
func (s *Service) checkFile(path string) fileCheck {
	var fc fileCheck
	if strings.TrimSpace(path) == "" {
		fc.state = approval.FileState{Trusted: true, Why: "not saved yet: made in Weft"}
		return fc
	}
	tr, err := s.trust()
	if err != nil {
		fc.state = approval.FileState{Path: approval.Canonical(path), Why: err.Error()}
		return fc
	}
	data, err := atomicfile.ReadBounded(path, workflow.MaxFileSize)
	if err != nil {
		fc.state = approval.FileState{Path: approval.Canonical(path), Why: "it could not be read: " + err.Error()}
		if errors.Is(err, os.ErrNotExist) {
			fc.state.Why = "it is not on disk (moved or deleted since it was opened)"
		}
		// A folder trusted as it is covers what is (or will be) in it.
		if dir, ok, _ := tr.FolderOf(path); ok {
			fc.state.Trusted, fc.state.Folder, fc.state.Why = true, dir, "in a folder you trust ("+dir+")"
		}
		return fc
	}
	return judgeFile(tr, path, data)
}

// judgeFile judges the bytes data read from the file at path.
func judgeFile(tr *approval.Trust, path string, data []byte) fileCheck {
	fc := fileCheck{data: data}
	var err error
	fc.state, err = tr.State(path, data)
	if err != nil {
		fc.warnings = append(fc.warnings, err.Error())
	}
	if fc.state.Previous != nil {
		if w, _, err := workflow.Parse(fc.state.Previous); err == nil {
			fc.prev = w
		}
	}
	return fc
}

// view is the file's trust as shown.
func (fc fileCheck) view() FileTrust {
	return FileTrust{Path: fc.state.Path, Trusted: fc.state.Trusted, Why: fc.state.Why, Folder: fc.state.Folder,
		Changed: fc.prev != nil, SHA256: fc.state.SHA256}
}

// withPrevious adds to a changed file's steps what they were when it was
// last trusted.
func (fc fileCheck) withPrevious(steps []approval.Step, sc approval.Scope) []approval.Step {
	if fc.prev == nil || !sc.File {
		return steps
	}
	was := map[string]string{}
	for _, st := range approval.Required(fc.prev, sc) {
		was[st.NodeID] = st.Content
	}
	for i := range steps {
		steps[i].Previous = was[steps[i].NodeID]
	}
	return steps
}

// trustIfReviewed trusts the bytes of the file at path (fc: the reading
// the approval was judged on) once nothing in them that acts or routes
// waits for approval there: the person has reviewed all of it (by
// construction: each item's exact content).
func (s *Service) trustIfReviewed(ctx context.Context, path, by string, fc fileCheck) {
	if fc.state.Trusted || fc.data == nil {
		return
	}
	disk, _, err := workflow.ParseFile(path, fc.data)
	if err != nil {
		return
	}
	st, _, err := s.settings()
	if err != nil {
		return
	}
	g, err := s.openGateOn(ctx, st, disk, path, fc)
	if err != nil || len(g.pending(disk)) > 0 {
		return
	}
	if tr, err := s.trust(); err == nil {
		if err := tr.Record(path, fc.data, "reviewed ("+by+")"); err != nil && s.deps.Logger != nil {
			s.deps.Logger.Warn("could not record a reviewed workflow file as trusted", "path", path, "error", err)
		}
	}
}

// SaveWorkflow writes w to path for the person (atomically) and carries
// its trust over: the new bytes are trusted when the document came from a
// trusted file (from: the path it was opened from or last saved to; ""
// for a new document made in Weft), or when everything in it that acts or
// routes was reviewed at from. Edits made in Weft's editor are the
// person's; a document that came from a file nobody reviewed stays to be
// reviewed, whatever was edited in it.
func (s *Service) SaveWorkflow(ctx context.Context, path string, w *workflow.Workflow, from string) error {
	if strings.TrimSpace(path) == "" {
		return errors.New("save workflow: no path given")
	}
	if w == nil {
		return errors.New("save workflow: no workflow given")
	}
	trusted := s.trustedOrigin(ctx, w, from)
	data, err := workflow.Marshal(w)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("save workflow: %w", err)
	}
	if !trusted {
		return nil
	}
	tr, err := s.trust()
	if err == nil {
		err = tr.Record(path, data, "saved in Weft")
	}
	if err != nil {
		return fmt.Errorf("saved %s, but could not record it as yours (it will be reviewed before it runs): %w", path, err)
	}
	return nil
}

// trustedOrigin says whether a document from `from` is the person's.
func (s *Service) trustedOrigin(ctx context.Context, w *workflow.Workflow, from string) bool {
	if strings.TrimSpace(from) == "" {
		return true
	}
	fc := s.checkFile(from)
	if fc.state.Trusted {
		return true
	}
	st, _, err := s.settings()
	if err != nil {
		return false
	}
	g, err := s.openGateOn(ctx, st, w, from, fc)
	return err == nil && len(g.pending(w)) == 0
}

// FileTrustOf is the trust of the workflow file at path.
func (s *Service) FileTrustOf(path string) FileTrust {
	return s.checkFile(path).view()
}

// TrustFolder trusts the workflow files beneath dir as they are (weft
// trust DIR); it refuses the home folder, / and folders that hold home.
func (s *Service) TrustFolder(dir, by string) (string, error) {
	tr, err := s.trust()
	if err != nil {
		return "", err
	}
	return tr.TrustFolder(dir, by)
}

// UntrustFolder removes dir from the trusted folders.
func (s *Service) UntrustFolder(dir string) (bool, error) {
	tr, err := s.trust()
	if err != nil {
		return false, err
	}
	return tr.UntrustFolder(dir)
}

// TrustedFolders lists the trusted folders.
func (s *Service) TrustedFolders() ([]approval.Folder, error) {
	tr, err := s.trust()
	if err != nil {
		return nil, err
	}
	return tr.Folders()
}
