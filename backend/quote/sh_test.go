package quote

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSh(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `''`},
		{"plain", `'plain'`},
		{"two words", `'two words'`},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"''", `''\'''\'''`},
		{"$(touch X)", `'$(touch X)'`},
		{"`touch X`", "'`touch X`'"},
		{"a; b && c | d", `'a; b && c | d'`},
		{"a\nb", "'a\nb'"},
		{`\`, `'\'`},
		{`"`, `'"'`},
		{"*", `'*'`},
	}
	for _, c := range cases {
		got, err := Sh(c.in)
		if err != nil || got != c.want {
			t.Errorf("Sh(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		back, err := parseShWord(got)
		if err != nil || back != c.in {
			t.Errorf("parseShWord(%q) = %q, %v; want %q", got, back, err, c.in)
		}
	}
}

func TestNUL(t *testing.T) {
	if _, err := Sh("a\x00b"); !errors.Is(err, ErrNUL) {
		t.Errorf("Sh with NUL: %v", err)
	}
	if _, err := CmdArg("a\x00b"); !errors.Is(err, ErrNUL) {
		t.Errorf("CmdArg with NUL: %v", err)
	}
	c := NewCommand(POSIX)
	c.Literal("echo ")
	if err := c.Value("\x00"); !errors.Is(err, ErrNUL) || c.String() != "echo " {
		t.Errorf("Command.Value with NUL: %v, %q", err, c.String())
	}
}

// parseShWord reads one POSIX shell word made only of single-quoted runs
// and backslash-escaped single quotes, the form Sh writes, and fails on
// anything else (an unquoted character, an unterminated quote).
func parseShWord(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", errors.New("unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case strings.HasPrefix(s[i:], `\'`):
			b.WriteByte('\'')
			i += 2
		default:
			return "", errors.New("unquoted character " + string(s[i]))
		}
	}
	if s == "" {
		return "", errors.New("no word")
	}
	return b.String(), nil
}

func FuzzShellQuote(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Sh(s)
		if strings.IndexByte(s, 0) >= 0 {
			if !errors.Is(err, ErrNUL) {
				t.Fatalf("Sh(%q): want ErrNUL, got %q, %v", s, q, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Sh(%q): %v", s, err)
		}
		back, err := parseShWord(q)
		if err != nil || back != s {
			t.Fatalf("Sh(%q) = %q, which reads back as %q (%v)", s, q, back, err)
		}
		if len(q) > 4*len(s)+2 {
			t.Fatalf("Sh(%q) = %d bytes, more than 4n+2", s, len(q))
		}
	})
}

// shells are the POSIX shells on this machine to check quoting against:
// dash is Debian's sh, bash is macOS's.
func shells(t *testing.T) [][]string {
	var out [][]string
	for _, sh := range [][]string{{"sh"}, {"dash"}, {"bash"}, {"bash", "--posix"}} {
		if _, err := exec.LookPath(sh[0]); err == nil {
			out = append(out, sh)
		}
	}
	if len(out) == 0 {
		t.Skip("no POSIX shell on this machine")
	}
	return out
}

// runShell runs script with sh -c in a fresh folder and returns its
// standard output; it fails the test if the script wrote any file there
// (the hostile values try to create MARK).
func runShell(t *testing.T, sh []string, script string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(sh[0], append(sh[1:], "-c", script)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\nstderr: %s\nscript:\n%s", strings.Join(sh, " "), err, stderr.String(), script)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("%s: the script created %s\nscript:\n%s", strings.Join(sh, " "), filepath.Join(dir, e.Name()), script)
	}
	return string(out)
}

// TestShRealShells checks that sh, dash and bash read Sh's output back as
// the exact value: every hostile value, and every byte from 1 to 255.
func TestShRealShells(t *testing.T) {
	values := append([]string(nil), hostile...)
	var all strings.Builder
	for c := 1; c < 256; c++ {
		values = append(values, string(rune(c)), "x"+string([]byte{byte(c)})+"y")
		all.WriteByte(byte(c))
	}
	values = append(values, all.String())
	for _, sh := range shells(t) {
		var script strings.Builder
		for _, v := range values {
			q, err := Sh(v)
			if err != nil {
				t.Fatal(err)
			}
			script.WriteString("printf '%s\\0' " + q + "\n")
		}
		got := strings.Split(runShell(t, sh, script.String()), "\x00")
		if len(got) != len(values)+1 {
			t.Fatalf("%v: %d values back, want %d", sh, len(got)-1, len(values))
		}
		for i, v := range values {
			if got[i] != v {
				t.Errorf("%v: %q came back as %q", sh, v, got[i])
			}
		}
	}
}

func TestShValidUTF8Unchanged(t *testing.T) {
	q, _ := Sh("日本語 é")
	if !utf8.ValidString(q) {
		t.Errorf("Sh broke UTF-8: %q", q)
	}
}
