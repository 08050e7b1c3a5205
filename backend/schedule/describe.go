package schedule

import (
	"fmt"
	"strconv"
	"strings"
)

var (
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	monthNames = []string{"", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// Describe says a cron expression in words ("every weekday at 07:00"),
// for the common shapes: a time or an interval, on every day, some days
// of the week, a day of the month, in some months. It returns "" for an
// expression it cannot say plainly (or that does not parse): then the
// expression and its next run times say it.
func Describe(expr string) string {
	if _, err := ParseCron(expr); err != nil {
		return ""
	}
	f := strings.Fields(expr)
	if len(f) != 5 {
		return ""
	}
	when := describeTime(f[0], f[1])
	if when == "" {
		return ""
	}
	var days []string
	if f[4] != "*" {
		d := describeList(f[4], 0, 7, func(n int) string { return dayNames[n] + "s" })
		switch f[4] {
		case "1-5":
			d = "weekdays"
		case "0,6", "6,0", "6-7":
			d = "weekends"
		}
		if d == "" {
			return ""
		}
		days = append(days, "on "+d)
	}
	if f[2] != "*" {
		d := describeList(f[2], 1, 31, ordinal)
		if d == "" {
			return ""
		}
		days = append(days, "on the "+d+" of the month")
	}
	if f[3] != "*" {
		m := describeList(f[3], 1, 12, func(n int) string { return monthNames[n] })
		if m == "" {
			return ""
		}
		days = append(days, "in "+m)
	}
	if len(days) == 0 {
		days = []string{"every day"}
		if strings.HasPrefix(when, "every ") {
			return when
		}
	}
	return when + ", " + strings.Join(days, ", ")
}

// describeTime says the minute and hour fields: "at 07:00", "every 15
// minutes", "every hour at :05"; "" when they are not a common shape.
func describeTime(min, hour string) string {
	m, mErr := strconv.Atoi(min)
	h, hErr := strconv.Atoi(hour)
	switch {
	case mErr == nil && hErr == nil:
		return fmt.Sprintf("at %02d:%02d", h, m)
	case mErr == nil && hour == "*":
		if m == 0 {
			return "every hour, on the hour"
		}
		return fmt.Sprintf("every hour at :%02d", m)
	case min == "*" && hour == "*":
		return "every minute"
	case strings.HasPrefix(min, "*/") && hour == "*":
		if n, err := strconv.Atoi(min[2:]); err == nil {
			return fmt.Sprintf("every %d minutes", n)
		}
	case mErr == nil && strings.HasPrefix(hour, "*/"):
		if n, err := strconv.Atoi(hour[2:]); err == nil {
			return fmt.Sprintf("every %d hours at :%02d", n, m)
		}
	case mErr == nil:
		// Several hours: "at 07:00 and 19:00", "every hour from 09:00 to 17:00".
		if a, b, ok := strings.Cut(hour, "-"); ok && !strings.Contains(hour, ",") {
			x, e1 := strconv.Atoi(a)
			y, e2 := strconv.Atoi(b)
			if e1 == nil && e2 == nil {
				return fmt.Sprintf("every hour from %02d:%02d to %02d:%02d", x, m, y, m)
			}
			return ""
		}
		var times []string
		for _, p := range strings.Split(hour, ",") {
			x, err := strconv.Atoi(p)
			if err != nil {
				return ""
			}
			times = append(times, fmt.Sprintf("%02d:%02d", x, m))
		}
		return "at " + joinAnd(times)
	}
	return ""
}

// describeList says a field of single values, lists and ranges, each
// value named by name: "Mondays and Fridays", "Monday to Friday".
func describeList(field string, lo, hi int, name func(int) string) string {
	var parts []string
	for _, p := range strings.Split(field, ",") {
		if a, b, ok := strings.Cut(p, "-"); ok {
			x, e1 := strconv.Atoi(a)
			y, e2 := strconv.Atoi(b)
			if e1 != nil || e2 != nil || x < lo || y > hi || x > y {
				return ""
			}
			parts = append(parts, strings.TrimSuffix(name(x), "s")+" to "+strings.TrimSuffix(name(y), "s"))
			continue
		}
		x, err := strconv.Atoi(p)
		if err != nil || x < lo || x > hi {
			return ""
		}
		parts = append(parts, name(x))
	}
	return joinAnd(parts)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
