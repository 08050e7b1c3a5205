package expression

import (
	"fmt"
	"maps"
	"slices"
)

// TruncatedField is the output field that marks a step's values cut at a
// cap (an HTTP body past 1 MiB, a command's output past 1 MiB per
// stream, a model's answer cut at its output limit): field name → what
// cut it and what to do. It travels with the outputs (the run log, the
// Temporal engine's history), so a cut value is never handed on as if it
// were whole: Field and Whole refuse to read one. The dot keeps it apart
// from every tool's output names and out of reach of a template's
// key.field path.
const TruncatedField = "weft.truncated"

// TruncatedError is a read of a value that was cut at its cap.
type TruncatedError struct {
	Root, Field string
	// Why says what cut it and what to do instead.
	Why string
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("%s.%s is incomplete, so it cannot be read as a value: %s", e.Root, e.Field, e.Why)
}

// Truncated returns the fields of outputs m that were cut at a cap, with
// why (empty when none).
func Truncated(m map[string]any) map[string]string {
	marks, _ := m[TruncatedField].(map[string]any)
	if len(marks) == 0 {
		return nil
	}
	out := make(map[string]string, len(marks))
	for k, v := range marks {
		why, _ := v.(string)
		if why == "" {
			why = "it was cut at a size limit"
		}
		out[k] = why
	}
	return out
}

// Field is the one lookup of root.name in root's outputs m, for
// conditions and templates alike: a value cut at its cap is a
// *TruncatedError, a field m lacks a *MissingFieldError (unless it is
// lenient, or m is empty: a node that has not run). An alias the outputs
// lack reads its field (FieldAlias: an MCP step's content is its text).
func Field(root, name string, m map[string]any, lenient map[string]bool) (any, error) {
	name = resolveAlias(name, m)
	if why, cut := Truncated(m)[name]; cut {
		return nil, &TruncatedError{Root: root, Field: name, Why: why}
	}
	if err := MissingField(root, name, m, lenient); err != nil {
		return nil, err
	}
	return m[name], nil
}

// Whole checks a read of all of root's outputs at once (`{{fetch}}`,
// `toJSON(fetch)`): it is a *TruncatedError when one of them was cut.
// For $env, every node's outputs are checked.
func Whole(root string, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if root == "$env" {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := Whole(k, m[k]); err != nil {
				return err
			}
		}
		return nil
	}
	cut := Truncated(m)
	if len(cut) == 0 {
		return nil
	}
	first := slices.Sorted(maps.Keys(cut))[0]
	return &TruncatedError{Root: root, Field: first, Why: cut[first]}
}
