package schedule

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// Systemd installs a schedule as a systemd user timer and a oneshot
// service: a run still going when the timer fires again is not started
// twice (the service is still active), and a run missed while the
// machine was off runs at the next start (Persistent=true).
type Systemd struct {
	// Dir is the user unit folder ($XDG_CONFIG_HOME/systemd/user).
	Dir string
	// Systemctl is the systemctl command (tests use a fake).
	Systemctl string
}

func (Systemd) Name() string { return "systemd" }

func unit(s Schedule) string { return "weft-" + s.ID }

func (d Systemd) systemctl(ctx context.Context, args ...string) error {
	_, err := run(ctx, nil, d.Systemctl, append([]string{"--user"}, args...)...)
	return err
}

func (d Systemd) units(s Schedule, command []string) (service, timer string, err error) {
	c, err := ParseCron(s.Cron)
	if err != nil {
		return "", "", err
	}
	return systemdUnits(s, c, command)
}

// Entry is the two unit files Install writes, each after a comment naming
// its path.
func (d Systemd) Entry(s Schedule, command []string) (string, error) {
	service, timer, err := d.units(s, command)
	if err != nil {
		return "", err
	}
	base := filepath.Join(d.Dir, unit(s))
	return "# " + base + ".service\n" + service + "\n# " + base + ".timer\n" + timer, nil
}

func (d Systemd) Install(ctx context.Context, s Schedule, command []string) error {
	service, timer, err := d.units(s, command)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(d.Dir, unit(s))
	if err := atomicfile.WriteFile(base+".service", []byte(service), 0o644); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(base+".timer", []byte(timer), 0o644); err != nil {
		os.Remove(base + ".service")
		return err
	}
	if err := d.systemctl(ctx, "daemon-reload"); err != nil {
		return err
	}
	return d.systemctl(ctx, "enable", "--now", unit(s)+".timer")
}

func (d Systemd) SetPaused(ctx context.Context, s Schedule, paused bool) error {
	if paused {
		return d.systemctl(ctx, "disable", "--now", unit(s)+".timer")
	}
	return d.systemctl(ctx, "enable", "--now", unit(s)+".timer")
}

func (d Systemd) Remove(ctx context.Context, s Schedule) error {
	err := d.systemctl(ctx, "disable", "--now", unit(s)+".timer")
	base := filepath.Join(d.Dir, unit(s))
	for _, f := range []string{base + ".timer", base + ".service"} {
		if rerr := os.Remove(f); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return rerr
		}
	}
	if rerr := d.systemctl(ctx, "daemon-reload"); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// Crontab installs a schedule as a line of the user's crontab, run under
// flock so a run still going is not started twice. Cron does not run what
// it missed while the machine was off; `weft schedule list` reports it.
type Crontab struct {
	// Crontab is the crontab command (tests use a fake).
	Crontab string
	// LockDir holds the lock files.
	LockDir string
}

func (Crontab) Name() string { return "cron" }

func marker(s Schedule) string { return "# weft-schedule:" + s.ID }

func (c Crontab) read(ctx context.Context) ([]string, error) {
	out, err := run(ctx, nil, c.Crontab, "-l")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(err.Error(), "no crontab") {
			return nil, nil
		}
		return nil, err
	}
	text := strings.TrimRight(string(out), "\n")
	if text == "" {
		return nil, nil
	}
	return strings.Split(text, "\n"), nil
}

func (c Crontab) write(ctx context.Context, lines []string) error {
	_, err := run(ctx, []byte(strings.Join(lines, "\n")+"\n"), c.Crontab, "-")
	return err
}

// Entry is the line Install adds to the crontab.
func (c Crontab) Entry(s Schedule, command []string) (string, error) {
	cmd, err := cronCommand(filepath.Dir(s.File), filepath.Join(c.LockDir, unit(s)+".lock"), command)
	if err != nil {
		return "", err
	}
	return s.Cron + " " + cmd + " " + marker(s), nil
}

func (c Crontab) Install(ctx context.Context, s Schedule, command []string) error {
	line, err := c.Entry(s, command)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.LockDir, 0o700); err != nil {
		return err
	}
	lines, err := c.read(ctx)
	if err != nil {
		return err
	}
	return c.write(ctx, append(lines, line))
}

func (c Crontab) edit(ctx context.Context, s Schedule, f func(line string) (string, bool)) error {
	lines, err := c.read(ctx)
	if err != nil {
		return err
	}
	var out []string
	found := false
	for _, l := range lines {
		if strings.HasSuffix(l, marker(s)) {
			found = true
			if nl, keep := f(l); keep {
				out = append(out, nl)
			}
			continue
		}
		out = append(out, l)
	}
	if !found {
		return fmt.Errorf("the crontab has no entry for schedule %s", s.ID)
	}
	return c.write(ctx, out)
}

const pausedPrefix = "#paused "

func (c Crontab) SetPaused(ctx context.Context, s Schedule, paused bool) error {
	return c.edit(ctx, s, func(l string) (string, bool) {
		l = strings.TrimPrefix(l, pausedPrefix)
		if paused {
			l = pausedPrefix + l
		}
		return l, true
	})
}

func (c Crontab) Remove(ctx context.Context, s Schedule) error {
	return c.edit(ctx, s, func(string) (string, bool) { return "", false })
}

// Detect picks the scheduler of this machine: systemd's user instance
// when it answers, else cron when crontab is installed. Linux only: the
// crontab entries need util-linux's flock, and macOS launchd and the
// Windows Task Scheduler are not supported yet (untested code is not
// shipped for them).
func Detect(ctx context.Context, configDir, lockDir string) (Backend, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("no scheduler for %s yet: local schedules use systemd user timers or cron on Linux (macOS launchd and the Windows Task Scheduler are not supported yet); a Temporal schedule works from any system", runtime.GOOS)
	}
	if p, err := exec.LookPath("systemctl"); err == nil {
		if _, err := run(ctx, nil, p, "--user", "show-environment"); err == nil {
			return Systemd{Dir: filepath.Join(configDir, "systemd", "user"), Systemctl: p}, nil
		}
	}
	if p, err := exec.LookPath("crontab"); err == nil {
		return Crontab{Crontab: p, LockDir: lockDir}, nil
	}
	return nil, errors.New("no scheduler on this machine: neither a systemd user instance (systemctl --user) nor cron (crontab) answers; macOS launchd and the Windows Task Scheduler are not supported yet")
}
