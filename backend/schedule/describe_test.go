package schedule

import "testing"

func TestDescribe(t *testing.T) {
	for expr, want := range map[string]string{
		"0 7 * * *":      "at 07:00, every day",
		"30 18 * * 1-5":  "at 18:30, on weekdays",
		"0 9 * * 1":      "at 09:00, on Mondays",
		"0 9 * * 1,5":    "at 09:00, on Mondays and Fridays",
		"0 9 * * 2-4":    "at 09:00, on Tuesday to Thursday",
		"0 10 * * 0,6":   "at 10:00, on weekends",
		"0 8 1 * *":      "at 08:00, on the 1st of the month",
		"0 8 1,15 * *":   "at 08:00, on the 1st and 15th of the month",
		"0 8 22 1 *":     "at 08:00, on the 22nd of the month, in January",
		"0 * * * *":      "every hour, on the hour",
		"5 * * * *":      "every hour at :05",
		"*/15 * * * *":   "every 15 minutes",
		"* * * * *":      "every minute",
		"0 */6 * * *":    "every 6 hours at :00",
		"0 7,19 * * *":   "at 07:00 and 19:00, every day",
		"0 9-17 * * 1-5": "every hour from 09:00 to 17:00, on weekdays",
		"0 0 * 12 *":     "at 00:00, in December",
		// What it cannot say plainly, or what does not parse: nothing.
		"1-5/2 * * * *": "",
		"0 7 * * mon":   "",
		"61 7 * * *":    "",
		"nonsense":      "",
		"":              "",
	} {
		if got := Describe(expr); got != want {
			t.Errorf("Describe(%q) = %q, want %q", expr, got, want)
		}
	}
}
