package render

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/expression/exprtest"
	"github.com/weft-dev/weft/backend/quote"
)

// fuzzSentinel stands in for the value when rendering what a command is
// meant to be: plain letters, which every context quotes the same way.
const fuzzSentinel = "Zq9SENTINELq9Z"

func fuzzVars(v string) mapEnv {
	return mapEnv{
		"a": map[string]any{"v": v, "n": 7.0},
		"b": map[string]any{"v": v},
	}
}

// FuzzRenderTemplate renders arbitrary template text with an arbitrary
// value in every way a Tool's arguments are rendered (String, Command for
// sh and cmd.exe, URL, Headers). It must never panic,
// and a command line must read (by shWords, a model of sh's tokenizer) as
// exactly the words and operators of the same template rendered with a
// harmless stand-in value, with the real value in the stand-in's place:
// the value may change the text of the words it sits in, never how many
// words there are or which operators run.
func FuzzRenderTemplate(f *testing.F) {
	for _, s := range [][2]string{
		{"printf '%s' {{a.v}} > out", "x; touch MARK"},
		{`echo "{{a.v}}" '{{b.v}}' x{{a.v}}y`, `'"$(touch MARK)"'`},
		{"echo {{raw a.v}} {{a.v}} # {{a.v}}", "`touch MARK`\n"},
		{"cat <<EOF\n{{a.v}}\nEOF", "EOF\ntouch MARK"},
		{`echo \{{a.v}} ${{a.v}} "$(echo "{{a.v}}")"`, "\\"},
		{"https://api.test/{{a.v}}?q={{b.v}}#{{a.v}}", "../x?y#z"},
		{"{{a.v}}", "https://api.test/x\n"},
		{"echo {{ a.n }} {{a}} {{a.v.x}} {{len(a.v)}} {{.Names}} {{a.v", "&&"},
		{"x=({{a.v}}); case $x in a) echo {{a.v}};; esac", "')'"},
	} {
		f.Add(s[0], s[1])
	}
	// Expressions nested at and just past the bounds, in every kind of
	// argument (far past them overflowed the stack of expr's parser, a
	// fatal error: TestTemplateBounds renders those; small seeds keep the
	// fuzzer fast).
	for _, c := range exprtest.Nesters {
		n := c.Deepest("a.n", "a.n")
		for _, levels := range []int{n, n + 1} {
			deep := "{{" + c.Place("a.n", "a.n", levels) + "}}"
			f.Add("echo "+deep, "x")
			f.Add("https://api.test/"+deep+"?q={{a.v}}", "x")
		}
	}
	f.Add("{{a.v}} "+strings.Repeat("{", 300)+strings.Repeat("}", 300), "x")
	f.Add(strings.Repeat("{{a.v}}", 100), strings.Repeat("v", 100))
	standIn := fuzzVars(fuzzSentinel)
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		if !strings.Contains(tmpl, "{{") {
			return // nothing to render: every function returns tmpl
		}
		env := fuzzVars(v)
		if hasSecretRef(env, tmpl) {
			return // sealed only by Args: FuzzSealedArgs
		}
		if !pathsOnly(env, tmpl) {
			// The run hands expressions to package expression: rendering
			// must end in a value or an error, never a crash, and a
			// placeholder over the bounds is refused as such.
			renderExpressions(t, tmpl, newExprEnv(fuzzVars(v), 10*time.Millisecond))
			return
		}
		if _, err := String(tmpl, env); err != nil {
			t.Fatalf("plain rendering of %q failed: %v", tmpl, err)
		}
		if _, err := URL(tmpl, env); err != nil && !quote.URLMayRefuse(strings.TrimSpace(tmpl)) && !isWholeURL(env, tmpl) {
			t.Fatalf("URL(%q) with %q: %v, but URLMayRefuse said no", tmpl, v, err)
		}
		Headers(map[string]any{"X": tmpl}, env)
		if _, err := Command(tmpl, env, quote.CmdExe); err != nil && !quote.CmdExe.MayRefuse(tmpl) && !strings.ContainsAny(v, "\x00\r\n") {
			t.Fatalf("cmd.exe: %q with %q: %v, but MayRefuse said no", tmpl, v, err)
		}
		got, err := Command(tmpl, env, quote.POSIX)
		if err != nil && !quote.POSIX.MayRefuse(tmpl) && !strings.Contains(v, "\x00") {
			t.Fatalf("sh: %q with %q: %v, but MayRefuse said no", tmpl, v, err)
		}
		if strings.Contains(tmpl, fuzzSentinel) {
			return
		}
		want, werr := Command(tmpl, standIn, quote.POSIX)
		switch {
		case err != nil && werr == nil:
			if !strings.Contains(v, "\x00") || !strings.Contains(err.Error(), "NUL") {
				t.Fatalf("%q with %q: %v, but the stand-in renders", tmpl, v, err)
			}
			return
		case err == nil && werr != nil:
			t.Fatalf("%q renders with %q but not with the stand-in: %v", tmpl, v, werr)
		case err != nil:
			return
		}
		if !simpleTemplate(env, tmpl) {
			return // {{a}} is JSON with the value escaped in it, not the stand-in's shape
		}
		gotWords, ok1 := shWords(got)
		wantWords, ok2 := shWords(want)
		if ok1 != ok2 {
			t.Fatalf("%q with %q: %q reads as sh (%v) but the stand-in %q does not (%v)", tmpl, v, got, ok1, want, ok2)
		}
		if !ok1 {
			return // outside what the model reads
		}
		tv := quote.TrimLineEnd(v)
		if len(gotWords) != len(wantWords) {
			t.Fatalf("%q with %q renders %q: %d words %q, want %d %q", tmpl, v, got, len(gotWords), gotWords, len(wantWords), wantWords)
		}
		for i := range wantWords {
			w := wantWords[i]
			if !strings.HasPrefix(w, opPrefix) {
				w = strings.ReplaceAll(w, fuzzSentinel, tv)
			}
			if gotWords[i] != w {
				t.Fatalf("%q with %q renders %q: word %d is %q, want %q", tmpl, v, got, i, gotWords[i], w)
			}
		}
	})
}

// exprEnv evaluates placeholders as a run does: through package
// expression, with strict fields on the node keys, each compiled once.
type exprEnv struct {
	vars    mapEnv
	roots   map[string]bool
	timeout time.Duration
	cache   map[string]*expression.Program
}

func newExprEnv(vars mapEnv, timeout time.Duration) *exprEnv {
	e := &exprEnv{vars: vars, roots: map[string]bool{}, timeout: timeout, cache: map[string]*expression.Program{}}
	for k := range vars {
		e.roots[k] = true
	}
	return e
}

func (e *exprEnv) Known(name string) bool { return e.vars.Known(name) }

func (e *exprEnv) Eval(src string) (any, error) {
	p, ok := e.cache[src]
	if !ok {
		var err error
		if p, err = expression.CompileWith(src, &expression.Fields{Roots: e.roots}); err != nil {
			var le *expression.LimitError
			if errors.As(err, &le) {
				return nil, err
			}
			// The run keeps the first line of expr's message (the rest
			// quotes the source).
			first, _, _ := strings.Cut(err.Error(), "\n")
			return nil, errors.New(first)
		}
		e.cache[src] = p
	}
	return p.Eval(context.Background(), e.vars, e.timeout)
}

// renderExpressions renders tmpl in every way a Tool's arguments are
// rendered; an error about a placeholder over the bounds must say so.
func renderExpressions(t *testing.T, tmpl string, env Env) {
	n := 0
	Parts(tmpl, env, func(p Part) error {
		if p.Expr != "" {
			n++
		}
		return nil
	})
	if n > 8 {
		t.Skip() // each may run to its time bound: many placeholders are TestTemplateBounds'
	}
	errs := []error{}
	_, err := String(tmpl, env)
	errs = append(errs, err)
	_, err = Command(tmpl, env, quote.POSIX)
	errs = append(errs, err)
	_, err = Command(tmpl, env, quote.CmdExe)
	errs = append(errs, err)
	_, err = URL(tmpl, env)
	errs = append(errs, err)
	_, err = Headers(map[string]any{"X": tmpl}, env)
	errs = append(errs, err)
	overBounds := false // the first placeholder rendered, whose error comes first
	Parts(tmpl, env, func(p Part) error {
		if p.Expr == "" {
			return nil
		}
		overBounds = expression.CheckBounds(p.Expr) != nil
		return errStopParts
	})
	for _, err := range errs {
		if err == nil {
			continue
		}
		var le *expression.LimitError
		if overBounds && !errors.As(err, &le) && !strings.Contains(err.Error(), "placeholder sits") && !strings.Contains(err.Error(), "whole URL") {
			t.Fatalf("%.80q: %v, want the bound named", tmpl, err)
		}
		if len(err.Error()) > 2000 {
			t.Fatalf("%.80q: an error of %d bytes", tmpl, len(err.Error()))
		}
	}
}

var errStopParts = errors.New("stop")

// isWholeURL reports whether tmpl is one placeholder, blanks aside: its
// value must then be a URL, whatever URLMayRefuse says of the text.
func isWholeURL(env Env, tmpl string) bool {
	t := strings.TrimSpace(tmpl)
	whole := false
	Parts(t, env, func(p Part) error {
		whole = whole || p.Src == t
		return nil
	})
	return whole
}

// pathsOnly reports whether every placeholder of tmpl that the run renders
// is a dotted path, which the run resolves without expr-lang.
func pathsOnly(env Env, tmpl string) bool {
	ok := true
	Parts(tmpl, env, func(p Part) error {
		for _, id := range strings.Split(p.Expr, ".") {
			ok = ok && (p.Expr == "" || id != "" && Root(id) == id)
		}
		return nil
	})
	return ok
}

// simpleTemplate reports whether every placeholder of tmpl that the run
// renders is a plain key.field path (not raw, not an expression).
func simpleTemplate(env Env, tmpl string) bool {
	simple := true
	Parts(tmpl, env, func(p Part) error {
		if p.Expr != "" && (p.Raw || p.Expr != "a.v" && p.Expr != "b.v" && p.Expr != "a.n") {
			simple = false
		}
		return nil
	})
	return simple
}

// opPrefix marks an operator among shWords' words.
const opPrefix = "\x00op:"

// shWords splits a command line into words and operators the way sh's
// tokenizer does, for the subset of sh it models: blanks, the operators
// ; & | < > ( ) and newline, single and double quotes, backslashes,
// comments. $ and backticks are kept as text, since expansions are not
// modelled; a line with $(, ${, $', a backtick or << is outside the model
// (ok false), as is one with an unterminated quote.
func shWords(s string) (words []string, ok bool) {
	var (
		b      strings.Builder
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, b.String())
			b.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$' && i+1 < len(s) && strings.IndexByte("({'", s[i+1]) >= 0, c == '`', c == '<' && i+1 < len(s) && s[i+1] == '<':
			return nil, false
		case c == ' ' || c == '\t':
			end()
		case strings.IndexByte(";&|<>()\n", c) >= 0:
			end()
			words = append(words, opPrefix+string(c))
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
					inWord = true
				}
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, false
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '$' && i+1 < len(s) && strings.IndexByte("({", s[i+1]) >= 0 || s[i] == '`' {
					return nil, false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						b.WriteByte(s[i])
					}
					continue
				}
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, true
}

func TestShWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`echo 'a b' "c d" e\ f`, []string{"echo", "a b", "c d", "e f"}},
		{`a''b "" ''`, []string{"ab", "", ""}},
		{"a;b|c # d 'e\nf", []string{"a", opPrefix + ";", "b", opPrefix + "|", "c", opPrefix + "\n", "f"}},
		{`"a\"b\c" x#y`, []string{`a"b\c`, "x#y"}},
	}
	for _, c := range cases {
		got, ok := shWords(c.in)
		if !ok || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("shWords(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, out := range []string{"echo $(x)", "echo `x`", "cat <<E", "echo 'x", `echo "x`} {
		if _, ok := shWords(out); ok {
			t.Errorf("shWords(%q) should be outside the model", out)
		}
	}
}
