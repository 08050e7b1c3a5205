package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
	gokeyring "github.com/zalando/go-keyring"
)

// A schedule whose last run failed, one whose due run is missing, and one
// whose file changed since it was scheduled are told when the app opens; a
// healthy one is not, and runs the person started do not count.
func TestScheduleNotices(t *testing.T) {
	a, _ := runApp(t)
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, cmd string) (string, string) {
		p := filepath.Join(dir, name)
		w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"` + name + `","name":"n","nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"` + cmd + `"}},"on_error":"continue"}],"edges":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.service().SaveWorkflow(ctx, p, w, ""); err != nil { // saved in Weft: the person's
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		sum := sha256.Sum256(b)
		return p, hex.EncodeToString(sum[:])
	}
	bad, badSum := write("bad.json", "exit 3")
	good, goodSum := write("good.json", "true")
	never, neverSum := write("never.json", "true")
	edited, editedSum := write("edited.json", "true")
	for _, f := range []struct{ path, sum string }{{bad, badSum}, {good, goodSum}} {
		// As the scheduler starts them.
		if res, fin, err := a.service().Run(ctx, service.StartRequest{Path: f.path, Source: runner.RunBySchedule, RequireSHA256: f.sum}); err != nil || !res.Started || fin == nil {
			t.Fatal(res, err)
		}
	}
	// A failed run the person started is not the good schedule's.
	w, _, _ := workflow.Load(good)
	w.Nodes[0].Params.Arguments["command"] = "exit 4"
	if st, err := a.StartRun(*w, good); err != nil || !st.Started {
		t.Fatal(st, err)
	}
	a.waitRun(10 * time.Second)
	if err := os.WriteFile(edited, []byte(strings.Replace(mustRead(t, edited), `"true"`, `"echo edited"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	path, _ := appdirs.ConfigFile("schedules.json")
	m := &schedule.Manager{Path: path}
	now := time.Now()
	for _, s := range []schedule.Schedule{
		{ID: "bad-1", File: bad, Cron: "* * * * *", Backend: "cron", Created: now.Add(-time.Hour), SHA256: badSum},
		{ID: "good-1", File: good, Cron: "0 0 1 1 *", Backend: "cron", Created: now.Add(-time.Hour), SHA256: goodSum},
		{ID: "never-1", File: never, Cron: "* * * * *", Backend: "cron", Created: now.Add(-time.Hour), SHA256: neverSum},
		{ID: "edited-1", File: edited, Cron: "0 0 1 1 *", Backend: "cron", Created: now.Add(-time.Hour), SHA256: editedSum},
	} {
		if err := m.Put(s); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(a.ScheduleNotices(), "\n")
	if !strings.Contains(got, "bad.json") || !strings.Contains(got, "never.json (* * * * *; see Schedules): missed the run due at") ||
		!strings.Contains(got, "edited.json (0 0 1 1 *; see Schedules): the file changed since it was scheduled") || strings.Contains(got, "good.json") {
		t.Fatalf("notices:\n%s", got)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type mapKeyring map[string]string

func (k mapKeyring) Get(s, u string) (string, error) {
	if v, ok := k[s+"/"+u]; ok {
		return v, nil
	}
	return "", gokeyring.ErrNotFound
}
func (k mapKeyring) Set(s, u, v string) error { k[s+"/"+u] = v; return nil }
func (k mapKeyring) Delete(s, u string) error { delete(k, s+"/"+u); return nil }

// The Temporal credentials go to the keyring, are reported as set, never
// read back to the frontend; a bad payload key is refused; without a
// keyring nothing is stored.
func TestTemporalCredentials(t *testing.T) {
	t.Setenv(settings.EnvTemporalAPIKey, "")
	t.Setenv("WEFT_TEMPORAL_KEY", "")
	a, _ := testApp(t)
	kr := mapKeyring{}
	path := filepath.Join(t.TempDir(), "settings.json")
	a.newStore = func() (*settings.Store, error) { return &settings.Store{Path: path, Keyring: kr}, nil }
	api, bad, good := "tk-live-0123456789", "c2hvcnQ=", base64.StdEncoding.EncodeToString(make([]byte, 32))
	if _, err := a.SetTemporalCredentials(nil, &bad); err == nil || !strings.Contains(err.Error(), "32 random bytes") {
		t.Fatalf("bad payload key: %v", err)
	}
	c, err := a.SetTemporalCredentials(&api, &good)
	if err != nil || !c.APIKeySet || !c.PayloadKeySet || c.APIKeyEnv {
		t.Fatalf("set: %+v %v", c, err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), api) {
		t.Fatal("the API key is in the settings file")
	}
	// The service reads them from the keyring for the Temporal engine.
	if v, _ := a.serviceDeps().Secret(settings.SecretTemporalAPIKey); v != api {
		t.Fatalf("service reads %q", v)
	}
	empty := ""
	if c, _ := a.SetTemporalCredentials(&empty, nil); c.APIKeySet || !c.PayloadKeySet {
		t.Fatalf("removed the API key only: %+v", c)
	}
	off, _ := testApp(t) // no keyring
	if _, err := off.SetTemporalCredentials(&api, nil); err == nil || !strings.Contains(err.Error(), "environment variable") {
		t.Fatalf("no keyring: %v", err)
	}
}
