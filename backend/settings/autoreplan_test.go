package settings

import (
	"strings"
	"testing"
)

func TestAutoReplanDefaults(t *testing.T) {
	ar := Defaults().Run.AutoReplan
	if ar.Enabled || ar.MaxPerRun != 2 || ar.MinSeverity != "HIGH" {
		t.Fatalf("defaults %+v", ar)
	}
	// A file that predates the setting, or sets only part of it, keeps
	// the defaults of the rest.
	s := newStore(t, nil)
	write(t, s.Path, `{"run": {"default_retries": 1, "auto_replan": {"enabled": true}}}`)
	got, warnings, err := s.Load()
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if ar := got.Run.AutoReplan; !ar.Enabled || ar.MaxPerRun != 2 || ar.MinSeverity != "HIGH" {
		t.Fatalf("loaded %+v", ar)
	}
}

func TestAutoReplanClamp(t *testing.T) {
	for _, c := range []struct {
		json, sev     string
		max, warnings int
	}{
		{`{"run": {"auto_replan": {"max_per_run": 9}}}`, "HIGH", 5, 1},
		{`{"run": {"auto_replan": {"max_per_run": 0}}}`, "HIGH", 1, 1},
		{`{"run": {"auto_replan": {"min_severity": "critical"}}}`, "CRITICAL", 2, 0},
		{`{"run": {"auto_replan": {"min_severity": "MEDIUM"}}}`, "HIGH", 2, 1},
		{`{"run": {"auto_replan": {"min_severity": ""}}}`, "HIGH", 2, 1},
	} {
		s := newStore(t, nil)
		write(t, s.Path, c.json)
		got, warnings, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		ar := got.Run.AutoReplan
		if ar.MaxPerRun != c.max || ar.MinSeverity != c.sev || len(warnings) != c.warnings {
			t.Errorf("%s: got %+v, warnings %v", c.json, ar, warnings)
		}
	}
}

func TestAutoReplanKeys(t *testing.T) {
	st := Defaults()
	for _, c := range []struct{ key, val, want string }{
		{"run.auto_replan.enabled", "true", "true"},
		{"run.auto_replan.max_per_run", "5", "5"},
		{"run.auto_replan.min_severity", "critical", "CRITICAL"},
	} {
		if err := Set(&st, c.key, c.val); err != nil {
			t.Fatalf("Set %s: %v", c.key, err)
		}
		if got, err := Get(st, c.key); err != nil || got != c.want {
			t.Fatalf("Get %s = %q, %v", c.key, got, err)
		}
	}
	if got, err := Get(st, "run.auto_replan"); err != nil || !strings.Contains(got, `"max_per_run": 5`) {
		t.Fatalf("Get run.auto_replan = %q, %v", got, err)
	}
	for _, bad := range []struct{ key, val, msg string }{
		{"run.auto_replan.max_per_run", "6", "between 1 and 5"},
		{"run.auto_replan.max_per_run", "0", "between 1 and 5"},
		{"run.auto_replan.min_severity", "LOW", "CRITICAL or HIGH"},
		{"run.auto_replan.enabled", "sometimes", "true or false"},
	} {
		if err := Set(&st, bad.key, bad.val); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("Set %s=%s: want %q, got %v", bad.key, bad.val, bad.msg, err)
		}
	}
	if ar := st.Run.AutoReplan; !ar.Enabled || ar.MaxPerRun != 5 || ar.MinSeverity != "CRITICAL" {
		t.Fatalf("a rejected Set changed a value: %+v", ar)
	}
	found := 0
	for _, k := range Keys {
		if strings.HasPrefix(k, "run.auto_replan.") {
			found++
		}
	}
	if found != 3 {
		t.Fatalf("Keys lists %d auto_replan keys", found)
	}
}
