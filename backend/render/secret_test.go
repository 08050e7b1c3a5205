package render

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/quote"
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

// hasSecretRef reports whether tmpl holds a {{secrets.…}} placeholder.
func hasSecretRef(env Env, tmpl string) bool {
	found := false
	Parts(tmpl, env, func(p Part) error {
		found = found || p.Secret != ""
		return nil
	})
	return found
}

// FuzzSealedArgs renders arbitrary template text holding secret
// references as a Tool step's arguments. It must never panic; what it
// shows holds the reference (rendering never sees a value); and opened, a URL, a header or a body is
// exactly what the same template renders with a placeholder of that
// value in each reference's place (so a secret is encoded as any value
// is, never as code), while a command is the same text either way (its
// values come from the environment).
func FuzzSealedArgs(f *testing.F) {
	for _, s := range [][2]string{
		{"https://api.test/{{secrets.T}}/x?k={{secrets.T}}&q={{a.v}}#{{secrets.U}}", "a/b?c&d=e#f"},
		{"Bearer {{secrets.T}}", "tok en"},
		{`curl -H "X: {{secrets.T}}" '{{secrets.U}}' {{a.v}} x{{secrets.T}}y`, "$(touch MARK)"},
		{"{{secrets.T}}", ".."},
		{"{{ secrets.T }} {{raw secrets.T}} {{secrets.T.x}} {{secrets}}", "v"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		env := fuzzVars("data")
		if !hasSecretRef(env, tmpl) || strings.Contains(tmpl, v) || strings.TrimSpace(v) == "" || quote.TrimLineEnd(v) != v {
			return
		}
		value := func(string) string { return v }
		for _, c := range []struct{ tool, arg string }{{"http_request", "url"}, {"http_request", "body"}, {"http_request", "headers"}, {"run_command", "command"}} {
			var in any = tmpl
			if c.arg == "headers" {
				in = map[string]any{"X": tmpl}
			}
			got, err := Args(c.tool, map[string]any{c.arg: in}, env, quote.POSIX)
			if err != nil {
				continue
			}
			if shown := ToText(Shown(got)); !strings.Contains(shown, "{{secrets.") && !strings.Contains(shown, "${WEFT_SECRET_") {
				t.Fatalf("%s %q does not show its reference: %s", c.arg, tmpl, shown)
			}
			if c.arg == "command" {
				if o := ToText(Open(got, value)); o != ToText(Shown(got)) {
					t.Fatalf("a command opened differs from what it shows: %q vs %q", o, ToText(Shown(got)))
				}
				continue
			}
			// The same template with a placeholder of the value instead.
			valEnv := fuzzVars("data")
			valEnv["s"] = map[string]any{"v": v}
			var plain strings.Builder
			Parts(tmpl, env, func(p Part) error {
				switch {
				case p.Secret != "":
					plain.WriteString("{{s.v}}")
				case p.Expr != "":
					plain.WriteString(p.Src)
				default:
					plain.WriteString(p.Lit)
				}
				return nil
			})
			var pin any = plain.String()
			if c.arg == "headers" {
				pin = map[string]any{"X": plain.String()}
			}
			want, err := Args(c.tool, map[string]any{c.arg: pin}, valEnv, quote.POSIX)
			if err != nil {
				continue // e.g. the value as the whole URL, which a secret never is
			}
			if o, w := ToText(Open(got, value)), ToText(want); o != w {
				t.Fatalf("%s %q with %q opens as\n %s\nwant\n %s", c.arg, tmpl, v, o, w)
			}
		}
	})
}
