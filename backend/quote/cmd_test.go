package quote

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCmdArg(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `^"^"`},
		{"plain", `^"plain^"`},
		{"two words", `^"two words^"`},
		{`a"b`, `^"a\^"b^"`},
		{`a\b`, `^"a\b^"`},
		{`a\"b`, `^"a\\\^"b^"`},
		{`a\`, `^"a\\^"`},
		{"a & calc", `^"a ^& calc^"`},
		{"%PATH%", `^"^%PATH^%^"`},
		{"!x!", `^"^!x^!^"`},
		{"^", `^"^^^"`},
		{"(a|b)<c>", `^"^(a^|b^)^<c^>^"`},
	}
	for _, c := range cases {
		got, err := CmdArg(c.in)
		if err != nil || got != c.want {
			t.Errorf("CmdArg(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a\nb", "a\rb", "\n"} {
		if got, err := CmdArg(bad); !errors.Is(err, errCmdLineBreak) {
			t.Errorf("CmdArg(%q) = %q, %v; want a line break error", bad, got, err)
		}
	}
}

// cmdEnv is the environment the cmd.exe model expands %NAME% from.
var cmdEnv = map[string]string{"PATH": `C:\Windows`, "X": "EXPANDED", "A": "a", "B": "&calc"}

// cmdModel reads a command line the way cmd.exe does before it starts a
// program (as documented and as observed, simplified to what CmdArg
// produces): phase 1 expands %NAME% when NAME is set and leaves a % that
// starts no known name as it is; phase 2 toggles quoting at ", removes a ^
// outside quotes and keeps the next character literally, and treats an
// unescaped & | < > ( ) outside quotes as an operator, which the model
// reports as an error since CmdArg must never produce one.
func cmdModel(line string) (string, error) {
	var p1 strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '%' {
			if j := strings.IndexByte(line[i+1:], '%'); j >= 0 {
				if v, ok := cmdEnv[line[i+1:i+1+j]]; ok {
					p1.WriteString(v)
					i += j + 2
					continue
				}
			}
		}
		p1.WriteByte(line[i])
		i++
	}
	s := p1.String()
	var p2 strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted:
			quoted = c != '"'
		case c == '^':
			i++
			if i < len(s) {
				p2.WriteByte(s[i])
			}
			continue
		case c == '"':
			quoted = true
		case strings.IndexByte("&|<>()", c) >= 0:
			return "", fmt.Errorf("the operator %c at byte %d", c, i)
		}
		p2.WriteByte(c)
	}
	return p2.String(), nil
}

// parseArgv splits a command line into arguments by the rules of
// CommandLineToArgvW and the Microsoft C runtime (2008 and later).
func parseArgv(s string) []string {
	var args []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return args
		}
		var b strings.Builder
		quoted := false
		for i < len(s) && (quoted || s[i] != ' ' && s[i] != '\t') {
			switch s[i] {
			case '\\':
				n := 0
				for i < len(s) && s[i] == '\\' {
					n++
					i++
				}
				if i < len(s) && s[i] == '"' {
					b.WriteString(strings.Repeat(`\`, n/2))
					if n%2 == 1 {
						b.WriteByte('"')
						i++
					}
				} else {
					b.WriteString(strings.Repeat(`\`, n))
				}
			case '"':
				if quoted && i+1 < len(s) && s[i+1] == '"' {
					b.WriteByte('"')
					i += 2
					continue
				}
				quoted = !quoted
				i++
			default:
				b.WriteByte(s[i])
				i++
			}
		}
		args = append(args, b.String())
	}
}

func checkCmdRoundTrip(t *testing.T, v string) {
	t.Helper()
	q, err := CmdArg(v)
	if err != nil {
		t.Fatalf("CmdArg(%q): %v", v, err)
	}
	line, err := cmdModel("prog " + q + " last")
	if err != nil {
		t.Fatalf("CmdArg(%q) = %q: cmd.exe would read %v", v, q, err)
	}
	if got := parseArgv(line); len(got) != 3 || got[0] != "prog" || got[1] != v || got[2] != "last" {
		t.Fatalf("CmdArg(%q) = %q reaches the program as %q", v, q, got)
	}
}

func TestCmdArgRoundTrip(t *testing.T) {
	for _, v := range hostile {
		if strings.ContainsAny(v, "\r\n") {
			continue
		}
		checkCmdRoundTrip(t, v)
	}
	for _, v := range []string{`\\"`, `\\\"\\`, `"\`, `\"\"`, `a\\b\\\\`, `%X%`, `%A%%B%`, `100%`, `%%X%%`} {
		checkCmdRoundTrip(t, v)
	}
}

func FuzzCmdArg(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsAny(v, "\x00\r\n") {
			if _, err := CmdArg(v); err == nil {
				t.Fatalf("CmdArg(%q): want an error", v)
			}
			return
		}
		checkCmdRoundTrip(t, v)
	})
}

func TestCommandCmdExeContexts(t *testing.T) {
	cases := []struct{ name, tmpl, want, wantErr string }{
		{"bare word", "type §", `type ^"a b^&c^"`, ""},
		{"after a quoted word", `copy "my file.txt" §`, `copy "my file.txt" ^"a b^&c^"`, ""},
		{"after an escaped quote", `echo ^" §`, `echo ^" ^"a b^&c^"`, ""},
		{"inside quotes", `echo "§"`, "", `inside "…"`},
		{"inside quotes after text", `echo "x §`, "", `inside "…"`},
		{"after ^", `echo ^§`, "", "follows a ^"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := build(CmdExe, c.tmpl, "a b&c")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
	if _, err := build(CmdExe, "echo §", "a\nb"); !errors.Is(err, errCmdLineBreak) {
		t.Errorf("line break: %v", err)
	}
}

func TestShellFor(t *testing.T) {
	if ShellFor("windows") != CmdExe || ShellFor("linux") != POSIX || ShellFor("darwin") != POSIX {
		t.Error("ShellFor picks the wrong shell")
	}
}
