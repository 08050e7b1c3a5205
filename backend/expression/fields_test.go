package expression

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStrictFields(t *testing.T) {
	f := &Fields{Roots: map[string]bool{"echo": true, "a": true, "later": true, "off": true}, Lenient: map[string]bool{"success": true, "error": true, "skipped": true}}
	env := map[string]any{
		"echo":  map[string]any{"text": "hi", "data": map[string]any{"x": 1}, "success": true, "error": ""},
		"a":     map[string]any{"success": false, "error": "boom"},
		"later": map[string]any{}, // has not run
		"off":   map[string]any{"success": false, "skipped": true, "error": "disabled"},
		"items": []any{map[string]any{"v": 1}},
	}
	for _, tc := range []struct {
		src     string
		want    any
		wantErr string
	}{
		{`echo.text`, "hi", ""},
		{`echo["text"]`, "hi", ""},
		{`echo.data.x`, 1, ""},
		{`echo.data.nope`, nil, ""}, // only the node's own fields are checked
		{`echo.contents`, nil, `echo has no field "contents" (it has the fields data, text)`},
		{`echo?.contents`, nil, ""},
		{`a.success && a.content == "x"`, false, ""}, // short-circuit: content is not read
		{`a.content == "x"`, nil, `a has no field "content" (it has no fields)`},
		{`a.error`, "boom", ""},
		{`echo.error_record`, nil, `no field "error_record"`},
		{`later.stdout`, nil, ""}, // not run: nil, as before
		{`off.stdout`, nil, `off was skipped or is disabled, so it has no field "stdout"`},
		{`all(items, .v == 1)`, true, ""},
		{`let echo2 = echo; echo2.content`, nil, ""}, // only roots are checked
	} {
		p, err := CompileWith(tc.src, f)
		if err != nil {
			t.Fatalf("%s: compile: %v", tc.src, err)
		}
		got, err := p.Eval(context.Background(), env, 0)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: got %v, %v; want error containing %q", tc.src, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %#v, %v; want %#v", tc.src, got, err, tc.want)
		}
	}
	var mf *MissingFieldError
	if err := MissingField("x", "y", map[string]any{"z": 1}, nil); !errors.As(err, &mf) || mf.Field != "y" {
		t.Errorf("MissingField: %v", err)
	}
}

// An MCP step's result parts by the specification's names read as Weft's
// fields, in conditions and through Field (templates), while outputs that
// have a field of that name keep it and others still lack it.
func TestFieldAliases(t *testing.T) {
	f := &Fields{Roots: map[string]bool{"echo": true, "file": true, "cmd": true}}
	env := map[string]any{
		"echo": map[string]any{"text": "hi", "data": map[string]any{"x": 1.0}},
		"file": map[string]any{"content": "own", "text": "not this"},
		"cmd":  map[string]any{"stdout": "out"},
	}
	for _, tc := range []struct {
		src, want, wantErr string
	}{
		{`echo.content`, "hi", ""},
		{`echo["content"]`, "hi", ""},
		{`string(echo.structuredContent.x)`, "1", ""},
		{`file.content`, "own", ""},
		{`cmd.content`, "", `cmd has no field "content"`},
	} {
		p, err := CompileWith(tc.src, f)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, err := p.Eval(context.Background(), env, 0)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s = %v, %v; want error %q", tc.src, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %#v, %v; want %q", tc.src, got, err, tc.want)
		}
	}
	for alias, field := range fieldAliases {
		m := map[string]any{field: "v"}
		if v, err := Field("n", alias, m, nil); err != nil || v != "v" {
			t.Errorf("Field(%s) = %v, %v; want the value of %s", alias, v, err, field)
		}
		m[TruncatedField] = map[string]any{field: "cut at 1 MiB"}
		if _, err := Field("n", alias, m, nil); err == nil {
			t.Errorf("Field(%s) read a value cut at its cap", alias)
		}
	}
}
