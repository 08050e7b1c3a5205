package trigger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// ErrBadBody is a webhook body the trigger cannot read its inputs from.
var ErrBadBody = errors.New("bad body")

// Fill is the values a delivery gives the workflow's declared inputs (s;
// nil when it declares none), for inputs.Resolve to check like any run's:
// a webhook's JSON body (body) by the trigger's mapping, or member by
// member under each input's name; a file trigger's file (file, relative to
// the workflow's folder). Values are data: nothing in them is evaluated.
// A body that must be read and is not a JSON object is ErrBadBody.
func Fill(t *workflow.Trigger, s *inputs.Schema, body []byte, file string) (map[string]any, error) {
	out := map[string]any{}
	if t.Type == workflow.TriggerFile {
		if len(t.Inputs) == 0 {
			out[defaultFileInput] = file
		}
		for name := range t.Inputs {
			out[name] = file
		}
		return out, nil
	}
	if s == nil && len(t.Inputs) == 0 {
		return out, nil
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return nil, fmt.Errorf("%w: the body must be one JSON object (the trigger fills the workflow's inputs from it)", ErrBadBody)
	}
	if len(t.Inputs) == 0 {
		for _, name := range s.Names() {
			if v, ok := obj[name]; ok {
				out[name] = v
			}
		}
		return out, nil
	}
	for name, spec := range t.Inputs {
		src, ok := ParseSource(spec)
		if !ok {
			return nil, fmt.Errorf("%w: the input %s is filled from %q, which is no {{body.…}}", ErrBadBody, name, spec)
		}
		var cur any = obj
		found := true
		for _, k := range src.Path {
			m, isObj := cur.(map[string]any)
			if !isObj {
				found = false
				break
			}
			if cur, found = m[k]; !found {
				break
			}
		}
		if found {
			out[name] = cur // left out when absent: a default, or "required", says the rest
		}
	}
	return out, nil
}
