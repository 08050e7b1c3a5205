package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/quote"
)

// mapEnv resolves dotted paths over node outputs, like a run does without
// expr-lang; any other expression is an error.
type mapEnv map[string]any

func (m mapEnv) Known(name string) bool {
	_, ok := m[name]
	return ok
}

func (m mapEnv) Eval(expr string) (any, error) {
	parts := strings.Split(expr, ".")
	for _, p := range parts {
		if p == "" || Root(p) != p {
			return nil, errors.New("not a path")
		}
	}
	cur := m[parts[0]]
	for _, p := range parts[1:] {
		o, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		cur = o[p]
	}
	return cur, nil
}

func TestCommandCmdExe(t *testing.T) {
	env := mapEnv{"f": map[string]any{"name": "a&b %PATH% \"q\"\r\n"}}
	got, err := Command(`type {{f.name}} > "out file.txt"`, env, quote.CmdExe)
	if want := `type ^"a^&b ^%PATH^% \^"q\^"^" > "out file.txt"`; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := Command(`type "{{f.name}}"`, env, quote.CmdExe); err == nil || !strings.Contains(err.Error(), `{{f.name}}: the placeholder sits inside "…"`) {
		t.Errorf("want the quoted placeholder refused, got %v", err)
	}
}

func TestStringRaw(t *testing.T) {
	env := mapEnv{"a": map[string]any{"n": 4.0, "s": "x"}, "raw": map[string]any{"stdout": "r"}}
	cases := []struct {
		in   string
		want any
	}{
		{"{{raw a.n}}", 4.0},
		{"{{ raw a.s }}!", "x!"},
		{"{{raw.stdout}}", "r"},
		{"{{raw raw.stdout}}", "r"},
		{"{{raw nobody.x}}", "{{raw nobody.x}}"},
		{"{{a.s}}{{a.n}}", "x4"},
		{"{{a.s}} {{a.s", "x {{a.s"},
		{"{{ {{a.s}} }}", "{{ {{a.s}} }}"},
	}
	for _, c := range cases {
		got, err := String(c.in, env)
		if err != nil || got != c.want {
			t.Errorf("String(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
}

func TestEvalErrorNamesThePlaceholder(t *testing.T) {
	env := mapEnv{"a": map[string]any{}}
	for _, f := range []func() error{
		func() error { _, err := String("x {{a.b + 1}}", env); return err },
		func() error { _, err := Command("echo {{a.b + 1}}", env, quote.POSIX); return err },
		func() error { _, err := URL("https://x.test/{{a.b + 1}}", env); return err },
		func() error { _, err := Headers(map[string]any{"X": "{{a.b + 1}}"}, env); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "{{a.b + 1}}: not a path") {
			t.Errorf("got %v", err)
		}
	}
}
