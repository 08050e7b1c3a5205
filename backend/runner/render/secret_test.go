package render

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/runner/quote"
)

type keys map[string]any

func (k keys) Known(n string) bool { _, ok := k[n]; return ok }
func (k keys) Eval(expr string) (any, error) {
	m, _ := k[Root(expr)].(map[string]any)
	return m[strings.TrimPrefix(expr, Root(expr)+".")], nil
}

func TestSecretReferencesAreSealed(t *testing.T) {
	env := keys{"a": map[string]any{"out": "{{secrets.X}} $(id)"}}
	value := func(n string) string { return "v&l u/" + n }
	for _, c := range []struct {
		tool, arg, in string
		shown, opened string
		env           []string
	}{
		{"http_request", "url", "https://h.example/p/{{secrets.X}}?k={{secrets.Y}}#f", "https://h.example/p/{{secrets.X}}?k={{secrets.Y}}#f", "https://h.example/p/v&l%20u%2FX?k=v%26l+u%2FY#f", nil},
		{"http_request", "body", `{"t":"{{secrets.X}}","d":"{{a.out}}"}`, `{"t":"{{secrets.X}}","d":"{{secrets.X}} $(id)"}`, `{"t":"v&l u/X","d":"{{secrets.X}} $(id)"}`, nil},
		{"run_command", "command", `curl -H "Authorization: Bearer {{secrets.X}}" {{a.out}} '{{secrets.Y}}' {{secrets.X}}`,
			`curl -H "Authorization: Bearer ${WEFT_SECRET_X}" '{{secrets.X}} $(id)' ''"${WEFT_SECRET_Y}"'' "${WEFT_SECRET_X}"`, "", []string{"X", "Y"}},
		{"mcp.tool", "text", "{{secrets.X}}", "{{secrets.X}}", "v&l u/X", nil},
	} {
		got, err := Args(c.tool, map[string]any{c.arg: c.in}, env, quote.POSIX)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		s, ok := got[c.arg].(Sealed)
		if !ok {
			t.Fatalf("%s: not sealed: %#v", c.in, got[c.arg])
		}
		if s.Text != c.shown || Shown(got).(map[string]any)[c.arg] != c.shown {
			t.Errorf("%s shows\n %s\nwant\n %s", c.in, s.Text, c.shown)
		}
		if c.opened == "" {
			c.opened = c.shown // a command gets its values from the environment
		}
		if o := Open(got, value).(map[string]any)[c.arg]; o != c.opened {
			t.Errorf("%s opens as\n %s\nwant\n %s", c.in, o, c.opened)
		}
		if e := strings.Join(EnvSecrets(got), ","); e != strings.Join(c.env, ",") {
			t.Errorf("%s env %q", c.in, e)
		}
	}
	// Headers: sealed per header; the rest is left as it was.
	got, err := Args("http_request", map[string]any{"headers": map[string]any{"Authorization": "Bearer {{secrets.T}}", "Accept": "x"}}, env, quote.POSIX)
	if err != nil {
		t.Fatal(err)
	}
	if n := SecretNames(got); len(n) != 1 || n[0] != "T" {
		t.Fatalf("names %v", n)
	}
	h := Open(got, value).(map[string]any)["headers"].(map[string]any)
	if h["Authorization"] != "Bearer v&l u/T" || h["Accept"] != "x" {
		t.Fatalf("headers %v", h)
	}
}

func TestBadSecretReferences(t *testing.T) {
	for _, c := range []struct{ tool, arg, in, want string }{
		{"http_request", "url", "https://{{secrets.X}}.example/", "scheme or host"},
		{"http_request", "url", "{{secrets.X}}", "scheme or host"},
		{"http_request", "body", "{{raw secrets.X}}", "cannot be raw"},
		{"http_request", "body", "{{secrets.X + 'a'}}", "not a secret reference"},
		{"http_request", "body", "{{secrets}}", "not a secret reference"},
		{"http_request", "body", "{{secrets.a.b}}", "not a secret reference"},
		{"run_command", "command", "echo `{{secrets.X}}`", "backticks"},
		{"run_command", "command", "echo $" + "{{secrets.X}}", "follows a $"},
	} {
		_, err := Args(c.tool, map[string]any{c.arg: c.in}, keys{}, quote.POSIX)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := Args("run_command", map[string]any{"command": "echo {{secrets.X}}"}, keys{}, quote.CmdExe); err == nil || !strings.Contains(err.Error(), "cmd.exe") {
		t.Errorf("cmd.exe: %v", err)
	}
	// Outside a Tool step's arguments (a prompt) a reference is refused.
	if _, err := Text("say {{secrets.X}}", keys{}); err == nil || !strings.Contains(err.Error(), "Tool step's arguments") {
		t.Errorf("prompt: %v", err)
	}
}
