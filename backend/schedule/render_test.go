package schedule

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/quote"
)

// requireEnvSystemdAnalyze makes the systemd tests fail, not skip, where
// systemd-analyze is missing (make test sets it; scripts/deps.sh installs
// Debian's systemd package).
const requireEnvSystemdAnalyze = "WEFT_REQUIRE_SYSTEMD_ANALYZE"

func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv(requireEnvSystemdAnalyze) != "" {
			t.Fatalf("systemd-analyze is required (%s is set): %v; scripts/deps.sh installs Debian's systemd package", requireEnvSystemdAnalyze, err)
		}
		t.Skipf("systemd-analyze is not installed (set %s=1 to fail instead)", requireEnvSystemdAnalyze)
	}
	return p
}

// neighbours are folder and file names a shell, cron or systemd could
// misread, each with what they must not break.
var neighbours = []string{
	"plain",
	"with space",
	"50% done",
	"%n%%%i",
	"$HOME",
	"${HOME}x",
	`"double"`,
	"it's",
	`back\slash`,
	`back\%slash`,
	`\\%`,
	"semi;colon && rm -rf x",
	"`tick` $(tick)",
	"-dash",
	"@at",
	":colon",
	"unicode é ✓ 日本",
	"star * ? [x]",
	"#hash",
	"trailing\\",
	"trailing space ",
	"tab\tinside",
	"ctrl\x01char",
	"del\x7fchar",
	"bad\xffutf8",
	"line\nbreak",
	"carriage\rreturn",
}

// mkdirs makes dir (a neighbour's folder) and the file and weft binary the
// schedule names in it; it reports false when the file system refuses.
func mkdirs(t *testing.T, dir string) (file, weft string, ok bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("%q: %v", dir, err)
		return "", "", false
	}
	file = filepath.Join(dir, "wf "+filepath.Base(dir)+".json")
	if len(filepath.Base(file)) > 255 {
		file = filepath.Join(dir, "wf.json")
	}
	weft = filepath.Join(dir, "weft")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(weft, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return file, weft, true
}

// longDir is a folder whose path is about n bytes long.
func longDir(base string, n int) string {
	p := base
	for len(p)+201 < n {
		p = filepath.Join(p, strings.Repeat("l", 200))
	}
	return filepath.Join(p, strings.Repeat("m", n-len(p)-1))
}

// Each generated unit is loaded by systemd-analyze verify (Debian's
// systemd), which fails on anything systemd would not start: a quoted or
// relative WorkingDirectory, an unknown specifier, a program that is not
// there at the path systemd reads. What verify cannot see (the argument
// list, the folder) is read back by systemd's documented rules. A name no
// unit can carry is refused with the reason.
func TestSystemdUnitsLoad(t *testing.T) {
	analyze := systemdAnalyze(t)
	root := t.TempDir()
	env := analyzeEnv(t, root)
	c, err := ParseCron("30 6 1 * 1-5")
	if err != nil {
		t.Fatal(err)
	}
	names := append([]string{}, neighbours...)
	dirs := []string{}
	for _, n := range names {
		dirs = append(dirs, filepath.Join(root, "flows", n))
	}
	dirs = append(dirs, longDir(filepath.Join(root, "long"), 3800), longDir(filepath.Join(root, "toolong"), 4100))
	weftElsewhere := filepath.Join(root, "bin", "weft")
	os.MkdirAll(filepath.Dir(weftElsewhere), 0o755)
	os.WriteFile(weftElsewhere, []byte("#!/bin/sh\n"), 0o755)
	for i, dir := range dirs {
		// The workflow's folder, with weft elsewhere and with weft in it.
		for _, inside := range []bool{false, true} {
			name := fmt.Sprintf("%q inside=%v", filepath.Base(dir)[:min(len(filepath.Base(dir)), 20)], inside)
			t.Run(name, func(t *testing.T) {
				file, weft, ok := mkdirs(t, dir)
				if !ok { // too long to make: rendered without the files
					file, weft = filepath.Join(dir, "wf.json"), filepath.Join(dir, "weft")
				}
				if !inside {
					weft = weftElsewhere
				}
				s := Schedule{ID: fmt.Sprintf("t-%d-%v", i, inside), File: file, Cron: c.String()}
				// Every neighbour is an argument too: an argument can carry
				// any byte but NUL.
				command := append([]string{weft, "run", file, "--on-escalate", "abort", "--arg", filepath.Base(dir)}, neighbours...)
				service, timer, err := systemdUnits(s, c, command)
				wantRefused := refusedBySystemd(dir, inside)
				if err != nil {
					if wantRefused == "" {
						t.Fatalf("refused: %v", err)
					}
					if !strings.Contains(err.Error(), wantRefused) {
						t.Fatalf("refused with %q; want the reason %q", err, wantRefused)
					}
					return
				}
				if wantRefused != "" {
					t.Fatalf("rendered, though systemd cannot carry it (%s):\n%s", wantRefused, service)
				}
				verifyUnits(t, analyze, env, filepath.Join(root, "units", s.ID), unit(s), service, timer)
				got := readUnit(t, service)
				if wd := strings.ReplaceAll(got["WorkingDirectory"], "%%", "%"); wd != filepath.Dir(file) {
					t.Errorf("systemd reads the folder as %q, want %q", wd, filepath.Dir(file))
				}
				argv, err := readExec(got["ExecStart"])
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprintf("%q", argv) != fmt.Sprintf("%q", command) {
					t.Errorf("systemd reads ExecStart as\n%q\nwant\n%q", argv, command)
				}
			})
		}
	}
}

// verifyUnits writes a service and its timer into dir and has
// systemd-analyze verify load them: it must say nothing.
func verifyUnits(t *testing.T, analyze string, env []string, dir, name, service, timer string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sp, tp := filepath.Join(dir, name+".service"), filepath.Join(dir, name+".timer")
	if err := os.WriteFile(sp, []byte(service), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, []byte(timer), 0o644); err != nil {
		t.Fatal(err)
	}
	verify(t, analyze, env, service, sp, tp)
}

// verify has systemd-analyze verify load the unit files at paths: it
// must say nothing (shown is the unit to show when it does not).
func verify(t *testing.T, analyze string, env []string, shown string, paths ...string) {
	t.Helper()
	cmd := exec.Command(analyze, append([]string{"verify", "--user"}, paths...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s\n%s", err, out.String(), shown)
	}
}

// analyzeEnv is a user's environment beneath root for systemd-analyze
// (its home, config and runtime folders), nothing of this machine's.
func analyzeEnv(t *testing.T, root string) []string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "home", ".config"), "XDG_RUNTIME_DIR=" + filepath.Join(root, "run")}
}

// refusedBySystemd is the reason a folder (holding both the workflow and
// the weft binary) cannot be in a unit, "" when it can.
func refusedBySystemd(dir string, weftInside bool) string {
	switch {
	case len(dir) >= 4000:
		return "bytes"
	case strings.ContainsAny(dir, "\n\r\t\x01\x7f"):
		return "control character"
	case !utf8.ValidString(dir):
		return "UTF-8"
	case strings.HasSuffix(dir, " "):
		return "ends with a space"
	case strings.HasSuffix(dir, `\`):
		return "ends with a backslash"
	case weftInside && strings.ContainsAny(dir, `"'\`):
		return "quotes, backslashes"
	}
	return ""
}

// readUnit reads the settings of a unit file (no continuation lines: the
// renderer never writes one).
func readUnit(t *testing.T, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "[") {
			out[k] = strings.Trim(v, " \t")
		}
	}
	return out
}

// readExec splits an ExecStart= value by systemd.service(5)'s rules for
// the words this renderer writes: prefixes, then double-quoted words with
// C escapes, then specifiers (%% is %).
func readExec(v string) ([]string, error) {
	v = strings.TrimLeft(v, ":")
	var argv []string
	for v != "" {
		if v[0] == ' ' {
			v = v[1:]
			continue
		}
		if v[0] != '"' {
			return nil, fmt.Errorf("an unquoted word at %q", v)
		}
		var w []byte
		i := 1
		for ; i < len(v) && v[i] != '"'; i++ {
			if v[i] != '\\' {
				w = append(w, v[i])
				continue
			}
			i++
			switch {
			case i < len(v) && (v[i] == '\\' || v[i] == '"'):
				w = append(w, v[i])
			case i+2 < len(v) && v[i] == 'x':
				n, err := strconv.ParseUint(v[i+1:i+3], 16, 8)
				if err != nil {
					return nil, err
				}
				w = append(w, byte(n))
				i += 2
			default:
				return nil, fmt.Errorf("escape at %q", v[i-1:])
			}
		}
		if i == len(v) {
			return nil, fmt.Errorf("unclosed quote")
		}
		argv = append(argv, strings.ReplaceAll(string(w), "%%", "%"))
		v = v[i+1:]
	}
	return argv, nil
}

// The program may be anywhere systemd can run from; a path it cannot is
// refused, whatever the workflow's folder.
func TestExecLineRefusesUnrunnablePrograms(t *testing.T) {
	for _, prog := range []string{"weft", "./weft", "/opt/../weft", `/opt/we"ft`, `/opt/we\ft`, "/opt/we'ft", "/opt/we\nft", "/opt/we\xfft"} {
		if _, err := execLine([]string{prog, "run"}); err == nil {
			t.Errorf("%q was accepted", prog)
		}
	}
	if _, err := execLine([]string{"/opt/weft", "a\x00b"}); err == nil {
		t.Error("a NUL argument was accepted")
	}
}

// cronRun is what cron does with the command part of a crontab line
// (crontab(5), Debian's cron): a % not escaped ends the command, the rest
// of the line goes to its standard input with every further % a line
// break; \% is a %; any other backslash stays, and the byte after it is
// taken as it is.
func cronRun(command string) (cmd, stdin string) {
	var out []byte
	escaped := false
	for i := 0; i < len(command); i++ {
		ch := command[i]
		switch {
		case escaped:
			if ch == '%' {
				out[len(out)-1] = '%'
			} else {
				out = append(out, ch)
			}
			escaped = false
		case ch == '\\':
			out = append(out, ch)
			escaped = true
		case ch == '%':
			return string(out), strings.ReplaceAll(command[i+1:], "%", "\n")
		default:
			out = append(out, ch)
		}
	}
	return string(out), ""
}

func TestCronRunRules(t *testing.T) {
	for _, tc := range []struct{ in, cmd, stdin string }{
		{`echo a`, `echo a`, ``},
		{`echo 50\% done`, `echo 50% done`, ``},
		{`echo a%b%c`, `echo a`, "b\nc"},
		{`echo a\\%b`, `echo a\\`, `b`},
		{`echo a\'b`, `echo a\'b`, ``},
	} {
		if cmd, in := cronRun(tc.in); cmd != tc.cmd || in != tc.stdin {
			t.Errorf("cronRun(%q) = %q, %q; want %q, %q", tc.in, cmd, in, tc.cmd, tc.stdin)
		}
	}
}

// Each generated crontab line is run the way cron runs it: the command
// after the five time fields, cron's % rule applied, by /bin/sh -c in a
// temporary HOME. The weft it names (a script recording its folder, its
// arguments and its standard input) must get exactly the command, in the
// workflow's folder, with nothing on its standard input; the flock must
// take the lock file named. A name no crontab line can carry is refused
// with the reason.
func TestCronLinesRunAsCronDoes(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock (util-linux) is not installed")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	fake, tab := fakeCrontab(t, root)
	os.MkdirAll(home, 0o700)
	weftElsewhere := filepath.Join(root, "bin", "weft")
	var oneLine []string // every neighbour a crontab line can carry, as arguments
	for _, n := range neighbours {
		if !strings.ContainsAny(n, "\n\r") {
			oneLine = append(oneLine, n)
		}
	}
	dirs := []string{}
	for _, n := range neighbours {
		dirs = append(dirs, filepath.Join(root, "flows", n))
	}
	dirs = append(dirs, longDir(filepath.Join(root, "mid"), 120), longDir(filepath.Join(root, "long"), 1000))
	for i, dir := range dirs {
		for _, inside := range []bool{false, true} {
			name := fmt.Sprintf("%q inside=%v", filepath.Base(dir)[:min(len(filepath.Base(dir)), 20)], inside)
			t.Run(name, func(t *testing.T) {
				os.Remove(tab)
				file, weft, ok := mkdirs(t, dir)
				if !ok {
					t.Fatalf("cannot make %q", dir)
				}
				if !inside {
					weft = weftElsewhere
				}
				rec := filepath.Join(root, fmt.Sprintf("rec-%d-%v", i, inside))
				os.MkdirAll(filepath.Dir(weft), 0o755)
				// NUL-separated: an argument may hold a line break.
				body := fmt.Sprintf("#!/bin/sh\nrec=%s\npwd -P > \"$rec.pwd\"\nfor a in \"$@\"; do printf '%%s\\0' \"$a\"; done > \"$rec.args\"\ncat > \"$rec.stdin\"\n", mustSh(t, rec))
				if err := os.WriteFile(weft, []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
				locks := filepath.Join(dir, "locks "+filepath.Base(dir))
				s := Schedule{ID: fmt.Sprintf("c-%d-%v", i, inside), File: file, Cron: "0 7 * * 1-5"}
				args := append([]string{"--arg", filepath.Base(dir)}, oneLine...)
				if i >= len(neighbours) { // the long paths: no more length than they have
					args = args[:2]
				}
				command := append([]string{weft, "run", file}, args...)
				err := Crontab{Crontab: fake, LockDir: locks}.Install(context.Background(), s, command)
				wantRefused := refusedByCron(dir, command)
				if err != nil {
					if wantRefused == "" || !strings.Contains(err.Error(), wantRefused) {
						t.Fatalf("refused with %v; want the reason %q", err, wantRefused)
					}
					return
				}
				if wantRefused != "" {
					t.Fatalf("written, though cron cannot carry it (%s)", wantRefused)
				}
				b, _ := os.ReadFile(tab)
				line := strings.TrimSuffix(string(b), "\n")
				if strings.Count(line, "\n") != 0 {
					t.Fatalf("more than one line: %q", line)
				}
				// The command part: after the five time fields.
				fields := strings.SplitN(line, " ", 6)
				if strings.Join(fields[:5], " ") != s.Cron {
					t.Fatalf("time fields of %q", line)
				}
				cmdText, stdin := cronRun(fields[5])
				sh := exec.Command("/bin/sh", "-c", cmdText)
				sh.Dir = home
				sh.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "SHELL=/bin/sh", "LOGNAME=tester"}
				sh.Stdin = strings.NewReader(stdin)
				if out, err := sh.CombinedOutput(); err != nil || len(out) > 0 {
					t.Fatalf("%q: %v\n%s", cmdText, err, out)
				}
				pwd, _ := os.ReadFile(rec + ".pwd")
				real, _ := filepath.EvalSymlinks(dir)
				if strings.TrimSuffix(string(pwd), "\n") != real {
					t.Errorf("ran in %q, want %q", pwd, real)
				}
				got, _ := os.ReadFile(rec + ".args")
				want := strings.Join(append([]string{"run", file}, args...), "\x00") + "\x00"
				if string(got) != want {
					t.Errorf("weft got\n%q\nwant\n%q", got, want)
				}
				if in, _ := os.ReadFile(rec + ".stdin"); len(in) > 0 {
					t.Errorf("standard input %q", in)
				}
				if _, err := os.Stat(filepath.Join(locks, unit(s)+".lock")); err != nil {
					t.Errorf("the lock file: %v", err)
				}
			})
		}
	}
}

func mustSh(t *testing.T, s string) string {
	t.Helper()
	q, err := quote.Sh(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// refusedByCron is the reason a crontab line cannot run command in dir,
// "" when it can.
func refusedByCron(dir string, command []string) string {
	if strings.ContainsAny(dir, "\n\r") {
		return "line break"
	}
	for _, a := range command {
		if strings.ContainsAny(a, "\n\r") {
			return "line break"
		}
	}
	if len(dir) >= 1000 {
		return "cron reads at most"
	}
	return ""
}
