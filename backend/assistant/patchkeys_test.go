package assistant

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/planner"
)

// TestPatchKeysAlign: every patch key, and each of its synonyms, one edit
// off (a letter dropped) still reads as that key, with a warning; the
// names come from the planner's synonym table.
func TestPatchKeysAlign(t *testing.T) {
	w := pipeline()
	for _, k := range patchKeyOrder {
		if k != "update" && k != "remove_node_ids" {
			continue // the two whose reading this workflow can check
		}
		for _, name := range append([]string{k}, planner.Synonyms("patch", k)...) {
			if len(name) < 6 {
				continue // too short to be one edit from only one key
			}
			typo := name[:len(name)-2] + name[len(name)-1:]
			var js string
			if k == "update" {
				js = `{"` + typo + `": [{"node_id": "notify", "arguments": {"message": "unzipped into ."}}]}`
			} else {
				js = `{"` + typo + `": ["notify"]}`
			}
			if !isPatchObject(gjson.Parse(js)) {
				t.Errorf("%q (for %s) is no patch key", typo, k)
				continue
			}
			p, _, ws, err := buildPatch(js, w, patchOptions{})
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			got := len(p.UpdatedNodes)
			if k == "remove_node_ids" {
				got = len(p.RemovedNodeIDs)
			}
			if got != 1 {
				t.Errorf("%s: read nothing; %v", js, ws)
			}
			if !containsWarningText(ws, normKey(typo)) {
				t.Errorf("%s: no warning names %q: %v", js, typo, ws)
			}
		}
	}
}

func containsWarningText(ws []Warning, s string) bool {
	for _, w := range ws {
		if strings.Contains(w.Message, s) {
			return true
		}
	}
	return false
}

// TestPatchFoundWhereverItIs: a patch under an envelope, in a JSON string
// (once or twice encoded), or both, is read as the patch, with a warning
// that says where it was; prose around an example object is not.
func TestPatchFoundWhereverItIs(t *testing.T) {
	patch := `{"remove_node_ids": ["notify"], "message": "drop the notice"}`
	enc := func(s string) string { return strings.TrimSpace(string(mustJSON(s))) }
	for name, text := range map[string]string{
		"envelope":           `{"response": {"result": ` + patch + `}}`,
		"JSON string":        enc(patch),
		"JSON string twice":  enc(enc(patch)),
		"envelope of string": `{"output": ` + enc(patch) + `}`,
		"list envelope":      `{"choices": [{"content": ` + enc(patch) + `}]}`,
	} {
		c := classify(text)
		if c.kind != KindPatch || !gjson.Get(c.json, "remove_node_ids").IsArray() {
			t.Errorf("%s: kind %q json %s\n%s", name, c.kind, c.json, text)
		}
	}
	if c := classify(`{"response": {"note": "nothing to change"}}`); c.kind == KindPatch {
		t.Errorf("an envelope with no patch keys read as a patch: %s", c.json)
	}
}

func mustJSON(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}
