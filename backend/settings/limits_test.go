package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The ranges are written once, in this package; the Preferences form
// (frontend LIMITS) and the README repeat them for people and must say
// the same numbers.
func TestLimitsAreStatedAsWritten(t *testing.T) {
	root := filepath.Join("..", "..")
	form, err := os.ReadFile(filepath.Join(root, "frontend", "src", "components", "preferences", "form.ts"))
	if err != nil {
		t.Skip("no frontend here:", err)
	}
	for name, want := range map[string][2]int{
		"maxRepair":      {MinRepairAttempts, MaxRepairAttempts},
		"timeoutS":       {MinTimeoutS, MaxTimeoutS},
		"defaultRetries": {0, MaxDefaultRetries},
		"retentionRuns":  {MinRetentionRuns, MaxRetentionRuns},
		"autoReplanMax":  {MinAutoReplans, MaxAutoReplansLimit},
	} {
		m := regexp.MustCompile(`(?m)^\s*` + name + `:\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]`).FindSubmatch(form)
		if m == nil {
			t.Errorf("form.ts LIMITS has no %s", name)
			continue
		}
		if got := fmt.Sprintf("%s–%s", m[1], m[2]); got != fmt.Sprintf("%d–%d", want[0], want[1]) {
			t.Errorf("form.ts LIMITS.%s is %s; backend/settings says %d–%d", name, got, want[0], want[1])
		}
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `max_repair_attempts` |") {
			row = l
		}
	}
	if want := fmt.Sprintf("| %d–%d.", MinRepairAttempts, MaxRepairAttempts); !strings.Contains(row, want) {
		t.Errorf("README's max_repair_attempts row %q does not say %q", row, want)
	}
}
