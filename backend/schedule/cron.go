package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron is a parsed five-field cron expression: minute, hour, day of month,
// month, day of week (0 or 7 is Sunday). Each field is *, a number, a
// range a-b, a step */n or a-b/n, or a list of those separated by commas.
type Cron struct {
	src    string
	fields [5][]span
}

type span struct{ lo, hi, step int }

var fieldNames = [5]string{"minute", "hour", "day of month", "month", "day of week"}
var fieldRange = [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}

// ParseCron reads a cron expression and says what is wrong and where.
func ParseCron(expr string) (Cron, error) {
	c := Cron{src: strings.Join(strings.Fields(expr), " ")}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return c, fmt.Errorf("cron %q: %d fields; want 5: minute hour day-of-month month day-of-week (like \"0 7 * * *\", every day at 7:00)", expr, len(parts))
	}
	for i, p := range parts {
		spans, err := parseField(p, fieldRange[i][0], fieldRange[i][1])
		if err != nil {
			return c, fmt.Errorf("cron %q: %s field %q: %v", expr, fieldNames[i], p, err)
		}
		c.fields[i] = spans
	}
	return c, nil
}

func parseField(f string, lo, hi int) ([]span, error) {
	var out []span
	for _, item := range strings.Split(f, ",") {
		if item == "" {
			return nil, fmt.Errorf("an empty item in the list")
		}
		s := span{lo: lo, hi: hi, step: 1}
		rng, step, hasStep := strings.Cut(item, "/")
		if hasStep {
			n, err := strconv.Atoi(step)
			if err != nil || n < 1 || n > hi {
				return nil, fmt.Errorf("step %q is not a whole number from 1 to %d", step, hi)
			}
			s.step = n
		}
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			x, err1 := strconv.Atoi(a)
			y, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || x < lo || y > hi || x > y {
				return nil, fmt.Errorf("range %q is not two whole numbers from %d to %d, the first not above the second", rng, lo, hi)
			}
			s.lo, s.hi = x, y
		default:
			x, err := strconv.Atoi(rng)
			if err != nil || x < lo || x > hi {
				return nil, fmt.Errorf("%q is not a whole number from %d to %d", rng, lo, hi)
			}
			s.lo, s.hi = x, x
			if hasStep {
				s.hi = hi // a/n: from a to the end, every n
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// String is the expression, spaces normalized.
func (c Cron) String() string { return c.src }

func (c Cron) match(i, v int) bool {
	for _, s := range c.fields[i] {
		if v >= s.lo && v <= s.hi && (v-s.lo)%s.step == 0 {
			return true
		}
	}
	return false
}

// restricted reports whether a field is not a plain *.
func (c Cron) restricted(i int) bool {
	return !(len(c.fields[i]) == 1 && c.fields[i][0] == span{fieldRange[i][0], fieldRange[i][1], 1})
}

// Matches reports whether the time (to the minute) is one the expression
// names. As in cron, when both day of month and day of week are
// restricted, either may match.
func (c Cron) Matches(t time.Time) bool {
	if !c.match(0, t.Minute()) || !c.match(1, t.Hour()) || !c.match(3, int(t.Month())) {
		return false
	}
	dom := c.match(2, t.Day())
	wd := int(t.Weekday())
	dow := c.match(4, wd) || (wd == 0 && c.match(4, 7))
	if c.restricted(2) && c.restricted(4) {
		return dom || dow
	}
	return dom && dow
}

// Previous is the last time at or before t the expression names, looking
// back at most a year; ok is false when there is none.
func (c Cron) Previous(t time.Time) (time.Time, bool) {
	t = t.Truncate(time.Minute)
	for i := 0; i < 366*24*60; i++ {
		if c.Matches(t) {
			return t, true
		}
		t = t.Add(-time.Minute)
	}
	return time.Time{}, false
}

// Next is the first time after t the expression names, looking ahead at
// most a year; ok is false when there is none (30 February).
func (c Cron) Next(t time.Time) (time.Time, bool) {
	t = t.Truncate(time.Minute)
	for i := 0; i < 366*24*60; i++ {
		t = t.Add(time.Minute)
		if c.Matches(t) {
			return t, true
		}
	}
	return time.Time{}, false
}

// OnCalendar is the expression as systemd calendar events
// (systemd.time(7)): "DOW *-MONTH-DAY HOUR:MINUTE:00", the values of each
// restricted field listed. Cron's "either day matches" (both day of month
// and day of week restricted) takes two events.
func (c Cron) OnCalendar() []string {
	list := func(i int) string {
		if !c.restricted(i) {
			return "*"
		}
		var vs []string
		for v := fieldRange[i][0]; v <= fieldRange[i][1]; v++ {
			if c.match(i, v) {
				vs = append(vs, fmt.Sprintf("%02d", v))
			}
		}
		return strings.Join(vs, ",")
	}
	days := []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	var dow []string
	for d := 0; d <= 6; d++ {
		if c.match(4, d) || (d == 0 && c.match(4, 7)) {
			dow = append(dow, days[d])
		}
	}
	tod := fmt.Sprintf("%s:%s:00", list(1), list(0))
	withDay := fmt.Sprintf("*-%s-%s %s", list(3), list(2), tod)
	anyDay := fmt.Sprintf("*-%s-* %s", list(3), tod)
	switch {
	case c.restricted(2) && c.restricted(4):
		return []string{withDay, strings.Join(dow, ",") + " " + anyDay}
	case c.restricted(4):
		return []string{strings.Join(dow, ",") + " " + anyDay}
	}
	return []string{withDay}
}
