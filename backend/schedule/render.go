package schedule

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/quote"
)

// The text the OS schedulers read: a systemd service and timer, a crontab
// line. Each value goes through the one function for the place it lands
// in, by that place's own rules; what a place cannot carry is refused
// with the reason, never written half right (a unit systemd will not load,
// a cron line that runs something else).

// systemdUnits renders the service and timer of s that run command
// (systemd.unit(5), systemd.service(5), systemd.exec(5)).
func systemdUnits(s Schedule, c Cron, command []string) (service, timer string, err error) {
	if len(command) == 0 {
		return "", "", fmt.Errorf("schedule %s: no command to run", s.ID)
	}
	dir, err := unitPath(filepath.Dir(s.File))
	if err != nil {
		return "", "", fmt.Errorf("systemd cannot start a run in the folder of %q: %w", s.File, err)
	}
	exec, err := execLine(command)
	if err != nil {
		return "", "", err
	}
	service = fmt.Sprintf("[Unit]\nDescription=Weft schedule %s: %s\n\n[Service]\nType=oneshot\nWorkingDirectory=%s\nExecStart=%s\n",
		s.ID, unitText(s.File), dir, exec)
	var cal strings.Builder
	for _, oc := range c.OnCalendar() {
		cal.WriteString("OnCalendar=" + oc + "\n")
	}
	timer = fmt.Sprintf("[Unit]\nDescription=Weft schedule %s (%s)\n\n[Timer]\n%sPersistent=true\n\n[Install]\nWantedBy=timers.target\n",
		s.ID, unitText(c.String()), cal.String())
	return service, timer, nil
}

// pathMax is Linux's PATH_MAX, the longest path systemd takes (with its
// terminating NUL).
const pathMax = 4096

// unitText is free text for a unit setting that expands specifiers
// (Description=): Go-quoted, so no control character, line break or
// trailing backslash (which would continue the line) reaches the file,
// and % doubled.
func unitText(s string) string {
	return strings.ReplaceAll(strconv.Quote(s), "%", "%%")
}

// unitPath is an absolute path for a path setting (WorkingDirectory=):
// systemd takes the rest of the line as it is (no quotes, no escapes; a
// quoted path is "not absolute"), expands specifiers (% doubled), strips
// whitespace at the ends and joins a line that ends in a backslash with
// the next; it refuses a path that is not UTF-8 or longer than PATH_MAX.
func unitPath(p string) (string, error) {
	switch {
	case !filepath.IsAbs(p) || filepath.Clean(p) != p:
		return "", fmt.Errorf("%q is not a clean absolute path", p)
	case !utf8.ValidString(p):
		return "", fmt.Errorf("%q is not UTF-8, which systemd requires of a path", p)
	case strings.IndexFunc(p, isControl) >= 0:
		return "", fmt.Errorf("%q holds a control character (a line break, tab…), which a unit file's path setting cannot carry", p)
	case strings.TrimRight(p, " ") != p:
		return "", fmt.Errorf("%q ends with a space, which systemd strips from a path setting", p)
	case strings.HasSuffix(p, `\`):
		return "", fmt.Errorf("%q ends with a backslash, which continues a unit file's line", p)
	case len(p) >= pathMax:
		return "", fmt.Errorf("the path is %d bytes; systemd takes at most %d", len(p), pathMax-1)
	}
	return strings.ReplaceAll(p, "%", "%%"), nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// execLine is an ExecStart= value running command. The ":" prefix turns
// off systemd's $VARIABLE substitution, so a $ is data; each word is
// double-quoted with C escapes for what a unit file cannot hold as it is,
// and % doubled (specifiers are expanded after unquoting). The program's
// own path may not hold quotes, backslashes or control characters at all
// (systemd: "Executable name contains special characters").
func execLine(command []string) (string, error) {
	prog := command[0]
	switch {
	case !filepath.IsAbs(prog) || filepath.Clean(prog) != prog:
		return "", fmt.Errorf("systemd runs a program by a clean absolute path, not %q", prog)
	case !utf8.ValidString(prog) || strings.IndexFunc(prog, isControl) >= 0 || strings.ContainsAny(prog, `"'\`):
		return "", fmt.Errorf("systemd cannot run a program whose path holds quotes, backslashes, control characters or bytes that are not UTF-8: %q; install weft at a plainer path, or use cron", prog)
	case len(prog) >= pathMax:
		return "", fmt.Errorf("the program's path is %d bytes; systemd takes at most %d", len(prog), pathMax-1)
	}
	words := make([]string, len(command))
	for i, a := range command {
		q, err := execWord(a)
		if err != nil {
			return "", fmt.Errorf("systemd cannot pass the argument %q: %w", a, err)
		}
		words[i] = q
	}
	return ":" + strings.Join(words, " "), nil
}

// execWord quotes one ExecStart= word (systemd.service(5), "Command
// lines"): in double quotes, \ and " escaped, control characters and bytes
// that are not UTF-8 as \xNN, % as %%.
func execWord(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", quote.ErrNUL
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, isControl(r):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '%':
			b.WriteString("%%")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String(), nil
}

// maxCronCommand is the longest command Debian's cron (Vixie cron 3.0:
// MAX_COMMAND 1000, with its terminating NUL) reads from a crontab line;
// it cuts a longer one without a word.
const maxCronCommand = 999

// cronCommand is the command part of a crontab line (crontab(5)) that
// runs command in dir under flock on lock: cron hands it to /bin/sh, after
// turning each % not escaped as \% into a line break (the rest of the line
// becoming standard input). Every word is sh-quoted by quote.Sh and each %
// in it written as \% outside the quotes, so no backslash of the data can
// precede it. A line break cannot be in a crontab line at all.
func cronCommand(dir, lock string, command []string) (string, error) {
	parts := append([]string{"cd", dir, "&&", "flock", "-n", lock}, command...)
	words := make([]string, len(parts))
	for i, p := range parts {
		if p == "&&" || p == "cd" {
			words[i] = p
			continue
		}
		w, err := cronWord(p)
		if err != nil {
			return "", fmt.Errorf("cron cannot pass %q: %w", p, err)
		}
		words[i] = w
	}
	cmd := strings.Join(words, " ")
	if len(cmd) > maxCronCommand {
		return "", fmt.Errorf("the crontab command would be %d bytes; cron reads at most %d (move the workflow to a shorter path)", len(cmd), maxCronCommand)
	}
	return cmd, nil
}

// cronWord is s as one sh word inside a crontab command.
func cronWord(s string) (string, error) {
	if strings.ContainsAny(s, "\n\r") {
		return "", fmt.Errorf("a line break cannot be in a crontab line")
	}
	q, err := quote.Sh(s)
	if err != nil {
		return "", err
	}
	// Inside '…' a % is closed around: 'a'\%'b'. Cron reads \% as %, and
	// the \ follows a quote, never a backslash of the data (cron reads
	// \\% as \\ and a line break).
	return strings.ReplaceAll(q, "%", `'\%'`), nil
}
