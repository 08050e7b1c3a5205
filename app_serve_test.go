package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/credentials"
)

// The desktop's offer to install weft serve: the unit is shown first and
// installed only as shown (a fake systemctl: never this machine's
// systemd); a folder whose workflow cannot be served is refused with why.
func TestServeUnitBindings(t *testing.T) {
	a, _ := runApp(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("WEFT_KEYRING", "off")
	root := t.TempDir()
	calls, fake := filepath.Join(root, "calls"), filepath.Join(root, "systemctl")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEFT_SCHEDULER", "systemd:"+fake)
	dir := t.TempDir()
	path := filepath.Join(dir, "hook.json")
	wf := `{"format":"weft/v1","id":"h","name":"h","triggers":[{"type":"webhook","path":"/hooks/h","secret":"{{secrets.HOOK}}","scheme":"github"}],
 "nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]}`
	if err := os.WriteFile(path, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := a.ServeUnit(path)
	if err != nil || v.Entry != "" || !strings.Contains(v.Refused, "trigger:/hooks/h") {
		t.Fatalf("not reviewed: %+v %v", v, err)
	}
	tr, err := approval.DefaultTrust()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrustFolder(dir, "test"); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.ServeUnit(path); !strings.Contains(v.Refused, "secret HOOK") {
		t.Fatalf("no secret: %+v", v)
	}
	store, err := credentials.Default(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Set(credentials.Secret{Name: "HOOK", Value: "v"}); err != nil {
		t.Fatal(err)
	}
	v, err = a.ServeUnit(path)
	if err != nil || v.Refused != "" || !strings.Contains(v.Entry, "ExecStart=") || !strings.Contains(v.Entry, `"serve" "`+dir+`"`) {
		t.Fatalf("unit: %+v %v", v, err)
	}
	if err := a.InstallServeUnit(path, v.Entry+"x"); err == nil {
		t.Fatal("a unit other than the one shown was installed")
	}
	if err := a.InstallServeUnit(path, v.Entry); err != nil {
		t.Fatal(err)
	}
	if c, _ := os.ReadFile(calls); !strings.Contains(string(c), "enable --now "+v.Name) {
		t.Fatalf("systemctl calls %q", c)
	}
}
