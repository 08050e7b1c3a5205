package workflow

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact"
)

const ph = redact.Placeholder

func TestKeepString(t *testing.T) {
	for _, c := range []struct{ old, nw, want string }{
		{"Bearer tok-123456", "Bearer " + ph, "Bearer tok-123456"},
		{"a sec1 b sec2 c", "a " + ph + " b " + ph + " c", "a sec1 b sec2 c"},
		{"tok-123456", ph, "tok-123456"},
		{"Bearer tok-123456", "Token " + ph, "Token " + ph}, // the model changed the text around it
		{"Bearer tok-123456", "Bearer tok-123456 x", "Bearer tok-123456 x"},
		{"Bearer ", "Bearer " + ph, "Bearer " + ph}, // a placeholder stands for some text
		{"", ph, ph},
		{"x" + ph + "y", "x" + ph + "y", "x" + ph + "y"},
	} {
		if got := keepString(c.old, c.nw); got != c.want {
			t.Errorf("keepString(%q, %q) = %q, want %q", c.old, c.nw, got, c.want)
		}
	}
}

// TestKeepStringRedactedAnyhow: whatever parts of a value were redacted,
// the value comes back.
func TestKeepStringRedactedAnyhow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab:/ [RED]x"
	for i := 0; i < 5000; i++ {
		b := make([]byte, 1+rng.IntN(24))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		old := string(b)
		// Redact 1–3 disjoint non-empty spans.
		var nw strings.Builder
		at := 0
		for k := 0; k < 1+rng.IntN(3) && at < len(old); k++ {
			from := at + rng.IntN(len(old)-at)
			to := from + 1 + rng.IntN(len(old)-from)
			nw.WriteString(old[at:from])
			nw.WriteString(ph)
			at = to
			if at < len(old) {
				nw.WriteByte(old[at]) // keep spans apart
				at++
			}
		}
		nw.WriteString(old[at:])
		if got := keepString(old, nw.String()); got != old {
			t.Fatalf("keepString(%q, %q) = %q", old, nw.String(), got)
		}
	}
}

func TestKeepRedacted(t *testing.T) {
	old := &Workflow{Nodes: []Node{{ID: "n1", Key: "call", Type: TypeTool, Params: Params{Tool: "http_request", Arguments: map[string]any{
		"url":     "https://api.example.com/?api_key=k-123456",
		"headers": map[string]any{"Authorization": "Bearer tok-123456", "Accept": "json"},
		"list":    []any{"pw-123456", float64(2)},
	}}}, {ID: "n2", Type: TypeAiTransform, Params: Params{Input: "use sec-123456"}}}}
	before, _ := Marshal(old)
	nw := &Workflow{Nodes: []Node{{ID: "n1", Key: "call", Type: TypeTool, Params: Params{Tool: "http_request", Arguments: map[string]any{
		"url":     "https://api.example.com/?api_key=" + ph + "&page=2", // changed by the model: kept
		"headers": map[string]any{"Authorization": "Bearer " + ph, "Accept": "text"},
		"list":    []any{ph, float64(3)},
		"new":     ph,
	}}}, {ID: "n2", Type: TypeAiTransform, Params: Params{Input: "use " + ph}}, {ID: "n3", Verify: ph}}}
	KeepRedacted(old, nw)
	want := map[string]any{
		"url":     "https://api.example.com/?api_key=" + ph + "&page=2",
		"headers": map[string]any{"Authorization": "Bearer tok-123456", "Accept": "text"},
		"list":    []any{"pw-123456", float64(3)},
		"new":     ph,
	}
	if !reflect.DeepEqual(nw.Nodes[0].Params.Arguments, want) {
		t.Errorf("arguments = %v\nwant %v", nw.Nodes[0].Params.Arguments, want)
	}
	if nw.Nodes[1].Params.Input != "use sec-123456" || nw.Nodes[2].Verify != ph {
		t.Errorf("input %q, verify %q", nw.Nodes[1].Params.Input, nw.Nodes[2].Verify)
	}
	if after, _ := Marshal(old); string(after) != string(before) {
		t.Error("old was changed")
	}
}

// The marker this package restores is the redactor's.
func TestRedactedMarkerIsTheRedactors(t *testing.T) {
	if redactedMarker != redact.Placeholder {
		t.Fatalf("workflow restores %q, the redactor writes %q", redactedMarker, redact.Placeholder)
	}
}
