package approval

import (
	"encoding/json"

	"github.com/weft-dev/weft/backend/workflow"
)

// notContent are the node fields that do not change what a step does:
// its id, its label, where it stands on the canvas, whether it is switched
// on (a disabled step does not run; enabling it runs the content that was
// approved) and the provenance mark itself. Everything else — type,
// params, retry, verify, timeout, key and any field a later version adds
// (on_error…) — is content, so a change to it needs approval again.
var notContent = []string{"id", "name", "position", "enabled", ProvenanceKey}

// Content is the part of n that approval covers, as an object with sorted
// keys; Fingerprint hashes it and the approval dialog shows it.
func Content(n *workflow.Node) map[string]any {
	b, err := json.Marshal(n)
	if err != nil {
		return map[string]any{"type": string(n.Type)}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]any{"type": string(n.Type)}
	}
	for _, k := range notContent {
		delete(m, k)
	}
	return m
}

// Fingerprint identifies n's content: the SHA-256 of its canonical JSON
// (sorted keys, numbers as Go prints float64), hex.
func Fingerprint(n *workflow.Node) string { return fingerprintOf(Content(n), n) }

// fingerprintOf hashes content's canonical JSON (n's type if it cannot
// be encoded).
func fingerprintOf(content map[string]any, n *workflow.Node) string {
	b, err := json.Marshal(content)
	if err != nil {
		b = []byte(n.Type)
	}
	return Sum(b)
}
