package schedule

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCron(t *testing.T) {
	for _, bad := range []struct{ expr, want string }{
		{"0 7 * *", "4 fields; want 5"},
		{"60 7 * * *", `minute field "60"`},
		{"0 7 * * 8", `day of week field "8"`},
		{"0 5-3 * * *", "range"},
		{"*/0 * * * *", "step"},
		{"0 7,,8 * * *", "empty item"},
		{"a 7 * * *", `"a" is not a whole number`},
	} {
		if _, err := ParseCron(bad.expr); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.expr, err, bad.want)
		}
	}
}

func TestCronMatchesAndCalendar(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04 Mon", s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		expr     string
		yes, no  []string
		calendar []string
	}{
		{"0 7 * * *", []string{"2026-11-25 07:00 Wed"}, []string{"2026-11-25 07:01 Wed", "2026-11-25 19:00 Wed"}, []string{"*-*-* 07:00:00"}},
		{"*/15 9-17 * * 1-5", []string{"2026-11-25 09:45 Wed"}, []string{"2026-11-28 10:00 Sat", "2026-11-25 09:50 Wed"},
			[]string{"Mon,Tue,Wed,Thu,Fri *-*-* 09,10,11,12,13,14,15,16,17:00,15,30,45:00"}},
		{"30 6 1 * 0", []string{"2026-11-01 06:30 Sun", "2026-11-29 06:30 Sun", "2026-12-01 06:30 Tue"}, []string{"2026-11-25 06:30 Wed"},
			[]string{"*-*-01 06:30:00", "Sun *-*-* 06:30:00"}},
		{"0 0 * 12 7", []string{"2026-12-06 00:00 Sun"}, []string{"2026-11-29 00:00 Sun"}, []string{"Sun *-12-* 00:00:00"}},
	} {
		c, err := ParseCron(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, y := range tc.yes {
			if !c.Matches(at(y)) {
				t.Errorf("%q does not match %s", tc.expr, y)
			}
		}
		for _, n := range tc.no {
			if c.Matches(at(n)) {
				t.Errorf("%q matches %s", tc.expr, n)
			}
		}
		if got := c.OnCalendar(); !reflect.DeepEqual(got, tc.calendar) {
			t.Errorf("%q OnCalendar = %q, want %q", tc.expr, got, tc.calendar)
		}
	}
	c, _ := ParseCron("0 7 * * *")
	if p, ok := c.Previous(at("2026-11-25 06:59 Wed")); !ok || !p.Equal(at("2026-11-24 07:00 Tue")) {
		t.Errorf("Previous = %v", p)
	}
	if n, ok := c.Next(at("2026-11-25 07:00 Wed")); !ok || !n.Equal(at("2026-11-26 07:00 Thu")) {
		t.Errorf("Next after a run time = %v, want the next day's", n)
	}
	if n, ok := c.Next(at("2026-11-25 06:59 Wed")); !ok || !n.Equal(at("2026-11-25 07:00 Wed")) {
		t.Errorf("Next = %v", n)
	}
	never, _ := ParseCron("0 7 30 2 *")
	if n, ok := never.Next(at("2026-11-25 06:59 Wed")); ok {
		t.Errorf("30 February: Next = %v, want none", n)
	}
}

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"0 7 * * *", "*/5 1-3,7 1 1-12/2 0,7", "", "a b c d e", "1-/ * * * *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCron(s)
		if err != nil {
			return
		}
		_ = c.OnCalendar()
		c.Matches(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	})
}

func TestMissed(t *testing.T) {
	day := func(h, m int) time.Time { return time.Date(2026, 11, 25, h, m, 0, 0, time.Local) }
	created := day(6, 0)
	for _, tc := range []struct {
		last, now time.Time
		missed    bool
	}{
		{time.Time{}, day(6, 59), false}, // not due yet
		{time.Time{}, day(7, 1), false},  // due, within the grace
		{time.Time{}, day(7, 10), true},  // due, never ran
		{day(7, 0), day(12, 0), false},   // ran
		{day(6, 30), day(12, 0), true},   // ran before, not at 7
		{time.Time{}, day(5, 59), false}, // created after the last due time
	} {
		if _, got := Missed("0 7 * * *", created, tc.last, tc.now, 5*time.Minute); got != tc.missed {
			t.Errorf("last %v now %v: missed %v", tc.last, tc.now, got)
		}
	}
}
