package assistant

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/canonpath"
	"github.com/weft-dev/weft/backend/workflow"
)

// ProposalFormat tags every saved proposal.
const ProposalFormat = "weft-proposal/v1"

// ProposalMaxAge is how long a saved proposal can be applied; older ones
// are deleted when the next one is saved.
const ProposalMaxAge = 30 * 24 * time.Hour

// maxProposalFile bounds what LoadProposal reads.
const maxProposalFile = 64 << 20

// Proposal is a reviewed patch kept so that it, and not a new answer of the
// model, is what gets applied: the exact patch bytes that were shown, with
// the hash of the workflow file content they were reviewed against.
type Proposal struct {
	Format  string    `json:"format"`
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	// WorkflowFile is the absolute path of the reviewed file.
	WorkflowFile string `json:"workflow_file"`
	// WorkflowSHA256 is the hex SHA-256 of the file's bytes at review time:
	// applying refuses any other content.
	WorkflowSHA256 string `json:"workflow_sha256"`
	// Request is the user's message; Message the assistant's reply.
	Request   string `json:"request"`
	Kind      Kind   `json:"kind"`
	Message   string `json:"message"`
	Valid     bool   `json:"valid"`
	Validated bool   `json:"validated"`
	// Patch is the WorkflowPatch as encoded for the review (compact JSON);
	// PatchSHA256 its hex SHA-256, checked on load.
	Patch       json.RawMessage `json:"patch"`
	PatchSHA256 string          `json:"patch_sha256"`
}

// ErrStaleProposal marks a proposal whose workflow file changed since the
// review (or that was made for another file).
var ErrStaleProposal = errors.New("the workflow is not the one the proposal was reviewed against")

// ErrNoProposal marks an id with no saved proposal.
var ErrNoProposal = errors.New("no such proposal")

var proposalIDRe = regexp.MustCompile(`^[0-9a-f]{16}$`)

// Sum is the hex SHA-256 of data, as proposals record it.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// NewProposal records res's patch as reviewed against content, the bytes of
// the workflow file at path. It fails for a result without a change.
func NewProposal(path string, content []byte, request string, res *Result, now time.Time) (*Proposal, error) {
	if res == nil || res.Patch == nil || res.Patch.Empty() {
		return nil, errors.New("new proposal: the reply proposes no change")
	}
	abs := canonpath.Of(path)
	patch, err := json.Marshal(res.Patch)
	if err != nil {
		return nil, fmt.Errorf("new proposal: encode the patch: %w", err)
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("new proposal: make an id: %w", err)
	}
	return &Proposal{Format: ProposalFormat, ID: hex.EncodeToString(id[:]), Created: now.UTC(),
		WorkflowFile: abs, WorkflowSHA256: Sum(content), Request: request, Kind: res.Kind, Message: res.Message,
		Valid: res.Valid, Validated: res.Validated, Patch: patch, PatchSHA256: Sum(patch)}, nil
}

// proposalDir is $XDG_DATA_HOME/weft/proposals.
func proposalDir() (string, error) {
	d, err := appdirs.DataDir("proposals")
	if err != nil {
		return "", fmt.Errorf("locate the proposals folder: %w", err)
	}
	return d, nil
}

// ProposalPath says where the proposal with the id is kept.
func ProposalPath(id string) (string, error) {
	if !proposalIDRe.MatchString(id) {
		return "", fmt.Errorf("proposal id %q: %w (an id is the 16 hex digits weft chat printed)", id, ErrNoProposal)
	}
	d, err := proposalDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, id+".json"), nil
}

// SaveProposal writes p to $XDG_DATA_HOME/weft/proposals/<id>.json,
// readable only by the user (it quotes the workflow), and deletes
// proposals older than ProposalMaxAge. It returns the file's path.
func SaveProposal(p *Proposal, now time.Time) (string, error) {
	path, err := ProposalPath(p.ID)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("save proposal: %w", err)
	}
	// Compact, so the patch in the file is byte for byte the patch hashed
	// and shown (an indented file would re-indent it).
	data, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("save proposal %s: %w", p.ID, err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("save proposal %s: %w", p.ID, err)
	}
	pruneProposals(filepath.Dir(path), filepath.Base(path), now)
	return path, nil
}

// pruneProposals deletes proposal files older than ProposalMaxAge but the
// one just saved (keep); best effort, a failure only leaves a file behind.
func pruneProposals(dir, keep string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == keep || !strings.HasSuffix(name, ".json") || !proposalIDRe.MatchString(strings.TrimSuffix(name, ".json")) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > ProposalMaxAge {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// LoadProposal reads the proposal with the id. It fails with ErrNoProposal
// when there is none, and when the file is not a proposal or its patch no
// longer matches its hash (edited by hand).
func LoadProposal(id string) (*Proposal, error) {
	path, err := ProposalPath(id)
	if err != nil {
		return nil, err
	}
	data, err := atomicfile.ReadBounded(path, maxProposalFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("proposal %s: %w (applied already, never saved, or older than %d days)",
			id, ErrNoProposal, int(ProposalMaxAge.Hours()/24))
	}
	if err != nil {
		return nil, fmt.Errorf("read proposal %s: %w", id, err)
	}
	var p Proposal
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("read proposal %s (%s): %w", id, path, err)
	}
	switch {
	case p.Format != ProposalFormat:
		return nil, fmt.Errorf("read proposal %s (%s): its format is %q, not %q", id, path, p.Format, ProposalFormat)
	case p.ID != id:
		return nil, fmt.Errorf("read proposal %s (%s): the file holds proposal %q", id, path, p.ID)
	case Sum(p.Patch) != p.PatchSHA256:
		return nil, fmt.Errorf("read proposal %s (%s): the patch does not match its hash; it was changed after the review", id, path)
	}
	return &p, nil
}

// DeleteProposal removes a saved proposal; a missing one is not an error.
func DeleteProposal(id string) error {
	path, err := ProposalPath(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete proposal %s: %w", id, err)
	}
	return nil
}

// DecodePatch returns the proposal's patch.
func (p *Proposal) DecodePatch() (*WorkflowPatch, error) {
	var wp WorkflowPatch
	dec := json.NewDecoder(bytes.NewReader(p.Patch))
	if err := dec.Decode(&wp); err != nil {
		return nil, fmt.Errorf("proposal %s: decode the patch: %w", p.ID, err)
	}
	return &wp, nil
}

// Apply merges the proposal's patch, exactly as reviewed, into the
// workflow whose file (at path) now holds content. It refuses with
// ErrStaleProposal when path is another file or content is not what was
// reviewed, and never asks a model. It returns the workflow before and
// after; validating and writing the result are the caller's.
func (p *Proposal) Apply(path string, content []byte) (before, after *workflow.Workflow, ws []Warning, err error) {
	if abs := canonpath.Of(path); abs != p.WorkflowFile {
		return nil, nil, nil, fmt.Errorf("apply proposal %s to %s: %w: it was made for %s", p.ID, path, ErrStaleProposal, p.WorkflowFile)
	}
	if got := Sum(content); got != p.WorkflowSHA256 {
		return nil, nil, nil, fmt.Errorf("apply proposal %s: %w: %s changed since the review (sha256 %.12s…, reviewed %.12s…); ask again",
			p.ID, ErrStaleProposal, path, got, p.WorkflowSHA256)
	}
	patch, err := p.DecodePatch()
	if err != nil {
		return nil, nil, nil, err
	}
	before, _, err = workflow.ParseFile(path, content)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("apply proposal %s: %s: %w", p.ID, path, err)
	}
	after, ws = MergePatchIntoWorkflow(before, patch)
	return before, after, ws, nil
}
