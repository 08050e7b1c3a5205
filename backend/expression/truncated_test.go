package expression

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// Every way an expression can read a value cut at its cap fails with a
// TruncatedError that names the step, the field and why; the fields that
// were not cut, and the mark itself, read as usual; and so after the
// outputs went through JSON, as the Temporal engine keeps them.
func TestTruncatedReads(t *testing.T) {
	const why = "http_request kept only the first 1 MiB of the body; give the step save_to"
	vars := map[string]any{
		"fetch": map[string]any{"status": 200.0, "body": "<html>…", "success": true,
			TruncatedField: map[string]any{"body": why}},
		"check": map[string]any{"exit_code": 0.0, "stdout": "ok"},
		"list":  map[string]any{"files": []any{"a", "b"}},
	}
	var roundTripped map[string]any
	b, _ := json.Marshal(vars)
	if err := json.Unmarshal(b, &roundTripped); err != nil {
		t.Fatal(err)
	}
	f := &Fields{Roots: map[string]bool{"fetch": true, "check": true, "list": true}, Lenient: map[string]bool{"error": true}}
	for _, c := range []struct {
		src  string
		want any // nil: a TruncatedError
	}{
		{`fetch.status == 200 && fetch.success`, true},
		{`fetch.error == nil`, true},
		{`check.stdout + "!"`, "ok!"},
		{`fetch?.nothing == nil`, true},
		{`fetch["weft.truncated"].body != ""`, true}, // the mark itself says what was cut
		{`"body" in fetch["weft.truncated"]`, true},
		{`"body" in fetch && "nothing" not in fetch`, true}, // testing for a field reads no value
		{`not ("status" in fetch)`, false},
		{`all(list.files, # != check.stdout)`, true},
		{`fetch.body`, nil},
		{`fetch.body != ""`, nil},
		{`fetch["body"]`, nil},
		{`fetch?.body`, nil},
		{`len(fetch.body) > 0`, nil},
		{`fetch.body contains "html"`, nil},
		{`all(list.files, # != fetch.body)`, nil},
		{`check.exit_code == 0 && fetch.body == ""`, nil},
		{`fetch`, nil},
		{`toJSON(fetch)`, nil},
		{`len(fetch) > 0`, nil},
		{`values(fetch)`, nil},
		{`[fetch][0].status`, nil},
		{`let f = fetch; f.status`, nil},
		{`fetch[list.files[0]]`, nil},
		{`$env.fetch.status`, nil},
		{`$env["fetch"]`, nil},
		{`$env.check.stdout`, nil},
	} {
		for _, env := range []map[string]any{vars, roundTripped} {
			p, err := CompileWith(c.src, f)
			if err != nil {
				t.Fatalf("%s: %v", c.src, err)
			}
			v, err := p.Eval(context.Background(), env, time.Second)
			if c.want != nil {
				if err != nil || v != c.want {
					t.Errorf("%s = %v, %v; want %v", c.src, v, err, c.want)
				}
				continue
			}
			var te *TruncatedError
			if !errors.As(err, &te) || te.Root != "fetch" || te.Field != "body" || !strings.Contains(err.Error(), "fetch.body is incomplete") || !strings.Contains(err.Error(), why) {
				t.Errorf("%s = %v, %v; want fetch.body refused as incomplete", c.src, v, err)
			}
		}
	}
}

func TestField(t *testing.T) {
	m := map[string]any{"stdout": "x", "stderr": "", TruncatedField: map[string]any{"stdout": "cut"}}
	if _, err := Field("run", "stdout", m, nil); err == nil || err.Error() != "run.stdout is incomplete, so it cannot be read as a value: cut" {
		t.Errorf("stdout: %v", err)
	}
	if v, err := Field("run", "stderr", m, nil); err != nil || v != "" {
		t.Errorf("stderr: %v %v", v, err)
	}
	var mf *MissingFieldError
	if _, err := Field("run", "exit", m, nil); !errors.As(err, &mf) {
		t.Errorf("missing: %v", err)
	}
	if err := Whole("run", map[string]any{"stdout": "x"}); err != nil {
		t.Errorf("whole, nothing cut: %v", err)
	}
	if err := Whole("run", "not outputs"); err != nil {
		t.Errorf("whole, not a map: %v", err)
	}
}
