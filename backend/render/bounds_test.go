package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/expression/exprtest"
	"github.com/weft-dev/weft/backend/quote"
)

// renderers are the ways a Tool's arguments are rendered, each returning
// the text a value lands in.
var renderers = []struct {
	name string
	f    func(tmpl string, env Env) (string, error)
}{
	{"plain", func(s string, env Env) (string, error) { v, err := String("n="+s, env); return ToText(v), err }},
	{"sh", func(s string, env Env) (string, error) { return Command("echo "+s, env, quote.POSIX) }},
	{"cmd.exe", func(s string, env Env) (string, error) { return Command("echo "+s, env, quote.CmdExe) }},
	{"url", func(s string, env Env) (string, error) { return URL("https://api.test/n/"+s, env) }},
	{"header", func(s string, env Env) (string, error) {
		h, err := Headers(map[string]any{"X-N": s}, env)
		if err != nil {
			return "", err
		}
		return ToText(h.(map[string]any)["X-N"]), nil
	}},
	{"text", func(s string, env Env) (string, error) { return Text("n="+s, env) }},
}

// Every way of nesting a placeholder's expression, in every kind of
// argument: the deepest that fits renders the value; one level more and
// half a million levels (which overflowed the stack of expr's parser) are
// errors that name the bound and quote the placeholder briefly.
func TestTemplateBounds(t *testing.T) {
	env := newExprEnv(mapEnv{"a": map[string]any{"n": 7.0}}, time.Second)
	const core = "a.n"
	for _, c := range exprtest.Nesters {
		n := c.Deepest(core, core)
		for _, r := range renderers {
			for _, levels := range []int{n, n + 1, exprtest.Huge} {
				got, err := r.f("{{"+c.Place(core, core, levels)+"}}", env)
				if levels == n {
					if err != nil {
						t.Fatalf("%s in %s at %d levels: %v", c.Name, r.name, levels, err)
					}
					if c.Keeps && !strings.Contains(got, "7") {
						t.Errorf("%s in %s at %d levels: %q, want 7 in it", c.Name, r.name, levels, got)
					}
					continue
				}
				var le *expression.LimitError
				if !errors.As(err, &le) || len(err.Error()) > 400 || !strings.Contains(err.Error(), "{{a.n == nil ? 0 : (") {
					t.Errorf("%s in %s at %d levels: %.500v", c.Name, r.name, levels, err)
				}
			}
		}
	}
}

// What only looks nested is text, however large; many placeholders render
// until what they insert passes MaxInserted, which is an error, not an
// allocation without bound.
func TestTemplateSize(t *testing.T) {
	big := strings.Repeat("v", 1<<20)
	env := newExprEnv(mapEnv{"a": map[string]any{"n": 7.0, "big": big}}, time.Second)
	braces := strings.Repeat("{", exprtest.Huge) + "a.n" + strings.Repeat("}", exprtest.Huge)
	many := strings.Repeat("{{a.n}}", 100_000)
	for _, r := range renderers {
		if got, err := r.f(braces, env); err != nil || !strings.Contains(got, "a.n") {
			t.Errorf("%s: {{{…}}}: %.80q, %v", r.name, got, err)
		}
		if got, err := r.f(many, env); err != nil || strings.Count(got, "7") != 100_000 {
			t.Errorf("%s: many placeholders: %d sevens, %v", r.name, strings.Count(got, "7"), err)
		}
		fits := strings.Repeat("{{a.big}}", MaxInserted>>20)
		if _, err := r.f(fits, env); err != nil {
			t.Errorf("%s: %d MB inserted: %v", r.name, MaxInserted>>20, err)
		}
		_, err := r.f(fits+"{{a.n}}", env)
		if want := fmt.Sprintf("more than %d MB", MaxInserted>>20); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: past MaxInserted: %v, want %q", r.name, err, want)
		}
	}
	// A whole-value placeholder passes its value on without copying it.
	if v, err := String("{{a.big}}", env); err != nil || v != big {
		t.Errorf("whole value: %v", err)
	}
	// The budget covers all the arguments of one step, not each.
	args := map[string]any{}
	for i := range MaxInserted>>20 + 1 {
		args[fmt.Sprint("k", i)] = "x{{a.big}}"
	}
	if _, err := Args("log", args, env, quote.POSIX); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("arguments past MaxInserted together: %v", err)
	}
}
