package credentials

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gokeyring "github.com/zalando/go-keyring"

	"github.com/weft-dev/weft/backend/settings"
)

// fakeKeyring is an OS keyring in memory; locked makes it refuse every
// call, as a locked keyring or one that does not answer does.
type fakeKeyring struct {
	m      map[string]string
	locked bool
}

var errLocked = errors.New("the keyring is locked")

func newFake() *fakeKeyring { return &fakeKeyring{m: map[string]string{}} }

func (k *fakeKeyring) Get(service, user string) (string, error) {
	if k.locked {
		return "", errLocked
	}
	v, ok := k.m[service+"/"+user]
	if !ok {
		return "", gokeyring.ErrNotFound
	}
	return v, nil
}

func (k *fakeKeyring) Set(service, user, secret string) error {
	if k.locked {
		return errLocked
	}
	k.m[service+"/"+user] = secret
	return nil
}

func (k *fakeKeyring) Delete(service, user string) error {
	if k.locked {
		return errLocked
	}
	delete(k.m, service+"/"+user)
	return nil
}

const token = "tok-0123456789abcdef-VALUE"

func grepDir(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), s) {
				hits = append(hits, p)
			}
		}
		return nil
	})
	return hits
}

func TestKeyringHoldsTheValueNotTheFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	kr := newFake()
	s := Open(dir, kr)
	if err := s.Set(Secret{Name: "GH_TOKEN", Hosts: []string{"API.github.com", "api.github.com"}, Tools: []string{"run_command"}, Value: token}); err != nil {
		t.Fatal(err)
	}
	if hits := grepDir(t, dir, token); len(hits) != 0 {
		t.Fatalf("value written to %v", hits)
	}
	got, err := s.Get("GH_TOKEN")
	if err != nil || got.Value != token || got.Stored != StoredKeyring || strings.Join(got.Hosts, ",") != "api.github.com" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Value != "" || list[0].Stored != StoredKeyring {
		t.Fatalf("List = %+v, %v", list, err)
	}
	// A locked keyring is an error naming the secret, never "".
	kr.locked = true
	got, err = s.Get("GH_TOKEN")
	if err == nil || got.Value != "" || !strings.Contains(err.Error(), "GH_TOKEN") || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("locked Get = %+v, %v", got, err)
	}
	if err := s.Remove("GH_TOKEN"); err == nil {
		t.Fatal("Remove with a locked keyring forgot a value it could not delete")
	}
	// With the keyring switched off, the value is not found and not forgotten.
	off := Open(dir, settings.NoKeyring{})
	if _, err := off.Get("GH_TOKEN"); err == nil || !strings.Contains(err.Error(), "switched off") {
		t.Fatalf("Get with the keyring off: %v", err)
	}
	if err := off.Remove("GH_TOKEN"); err == nil || !strings.Contains(err.Error(), "switched off") {
		t.Fatalf("Remove with the keyring off: %v", err)
	}
	kr.locked = false
	if err := s.Remove("GH_TOKEN"); err != nil {
		t.Fatal(err)
	}
	if len(kr.m) != 0 {
		t.Fatalf("keyring keeps %v", kr.m)
	}
	if _, err := s.Get("GH_TOKEN"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "GH_TOKEN") {
		t.Fatalf("Get after Remove: %v", err)
	}
}

func TestFileFallbackWhenNoKeyringAnswers(t *testing.T) {
	for name, kr := range map[string]settings.Keyring{"off": settings.NoKeyring{}, "locked": &fakeKeyring{locked: true}} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "secrets")
			s := Open(dir, kr)
			if err := s.Set(Secret{Name: "API_KEY", Value: token}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get("API_KEY")
			if err != nil || got.Value != token || got.Stored != StoredFile {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			checkModes(t, map[string]os.FileMode{dir: 0o700, s.indexPath(): 0o600, s.valuesPath(): 0o600})
			if hits := grepDir(t, root, token); len(hits) != 1 || hits[0] != s.valuesPath() {
				t.Fatalf("value found in %v", hits)
			}
			if err := s.Remove("API_KEY"); err != nil {
				t.Fatal(err)
			}
			if hits := grepDir(t, root, token); len(hits) != 0 {
				t.Fatalf("value left in %v", hits)
			}
		})
	}
}

func TestLooseFolderIsTightened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ValuesFile), []byte("{}"), 0o644)
	s := Open(dir, settings.NoKeyring{})
	if err := s.Set(Secret{Name: "A", Value: "v"}); err != nil {
		t.Fatal(err)
	}
	checkModes(t, map[string]os.FileMode{dir: 0o700, s.valuesPath(): 0o600})
}

func checkModes(t *testing.T, want map[string]os.FileMode) {
	t.Helper()
	for p, m := range want {
		if st, err := os.Stat(p); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != m {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), m)
		}
	}
}

func TestValueMovesBetweenKeyringAndFile(t *testing.T) {
	dir := t.TempDir()
	kr := newFake()
	kr.locked = true
	s := Open(dir, kr)
	if err := s.Set(Secret{Name: "K", Value: "one"}); err != nil {
		t.Fatal(err)
	}
	kr.locked = false
	// A value in the file is found although the keyring now answers.
	if got, err := s.Get("K"); err != nil || got.Value != "one" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if err := s.Set(Secret{Name: "K", Value: "two"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("K"); err != nil || got.Value != "two" || got.Stored != StoredKeyring {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if hits := grepDir(t, dir, "one"); len(hits) != 0 {
		t.Fatalf("the old value stays in %v", hits)
	}
	// Bindings change without the value.
	if err := s.Set(Secret{Name: "K", Hosts: []string{"*.example.com"}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("K"); err != nil || got.Value != "two" || got.Hosts[0] != "*.example.com" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if err := s.Set(Secret{Name: "NEW"}); err == nil {
		t.Fatal("a new secret without a value was stored")
	}
	// The keyring lost the value outside Weft: an error, not "".
	delete(kr.m, keyringService+"/K")
	if got, err := s.Get("K"); err == nil || got.Value != "" || !strings.Contains(err.Error(), "K") {
		t.Fatalf("Get = %+v, %v", got, err)
	}
}

func TestCorruptIndexIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, settings.NoKeyring{})
	s.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	if err := os.WriteFile(s.indexPath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err == nil || len(list) != 0 || !strings.Contains(err.Error(), "moved it to") {
		t.Fatalf("List = %v, %v", list, err)
	}
	if m, _ := filepath.Glob(s.indexPath() + ".corrupt-*"); len(m) != 1 {
		t.Fatalf("not moved aside: %v", m)
	}
	if err := s.Set(Secret{Name: "A", Value: "v"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("A"); err != nil || got.Value != "v" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
}

func TestFIFOIsRefusedNotRead(t *testing.T) {
	for _, file := range []string{IndexFile, ValuesFile} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			s := Open(dir, settings.NoKeyring{})
			if file == ValuesFile {
				if err := s.Set(Secret{Name: "A", Value: "v"}); err != nil {
					t.Fatal(err)
				}
				os.Remove(s.valuesPath())
			}
			if err := syscall.Mkfifo(filepath.Join(dir, file), 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			done := make(chan error, 1)
			go func() { _, err := s.Get("A"); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "A") {
					t.Fatalf("Get = %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Get hung on a FIFO")
			}
		})
	}
}

func TestBadNamesAndHosts(t *testing.T) {
	s := Open(t.TempDir(), settings.NoKeyring{})
	for _, n := range []string{"", "1A", "A-B", "a b", "é", strings.Repeat("A", 65), "A.B"} {
		if err := s.Set(Secret{Name: n, Value: "v"}); err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
	if err := s.Set(Secret{Name: strings.Repeat("A", 64), Value: "v"}); err != nil {
		t.Errorf("64-character name refused: %v", err)
	}
	for _, h := range []string{"https://api.x.com", "api.x.com/v1", "*", "*.com", "user@x.com", "x.com:0", "x.com:70000", "x.com:", "a..b", "-a.com", "x.com?q", "*.*.com", "a b", "[::1"} {
		if err := s.Set(Secret{Name: "A", Hosts: []string{h}, Value: "v"}); err == nil {
			t.Errorf("host %q accepted", h)
		}
	}
	for h, want := range map[string]string{"API.X.com": "api.x.com", "x.com:8443": "x.com:8443", "*.Example.com": "*.example.com", "127.0.0.1:80": "127.0.0.1:80", "[::1]:8080": "[::1]:8080", "localhost": "localhost"} {
		if got, err := NormalizeHost(h); err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", h, got, err, want)
		}
	}
	for _, v := range []string{"a\x00b", strings.Repeat("x", maxValueBytes+1)} {
		if err := s.Set(Secret{Name: "A", Value: v}); err == nil {
			t.Errorf("value of %d bytes with NUL=%v accepted", len(v), strings.Contains(v, "\x00"))
		}
	}
	if err := s.Set(Secret{Name: "A", Tools: []string{"run command"}, Value: "v"}); err == nil {
		t.Error("tool with a space accepted")
	}
}

func TestAllows(t *testing.T) {
	s := Secret{Hosts: []string{"api.x.com", "*.y.com", "z.com:8443"}, Tools: []string{"run_command"}}
	for h, want := range map[string]bool{
		"api.x.com": true, "API.X.COM:443": true, "x.com": false, "evil.api.x.com": false,
		"a.y.com": true, "a.b.y.com": true, "y.com": false, "evily.com": false,
		"z.com:8443": true, "z.com": false, "z.com:443": false,
		"api.x.com:80": true, "api.x.com:8080": false, "a.y.com:9000": false, "[::1]": false,
	} {
		if s.AllowsHost(h) != want {
			t.Errorf("AllowsHost(%q) = %v", h, !want)
		}
	}
	v6 := Secret{Hosts: []string{"[::1]:8080", "127.0.0.1"}}
	for h, want := range map[string]bool{"[::1]:8080": true, "[::1]": false, "127.0.0.1:443": true, "127.0.0.1:8080": false} {
		if v6.AllowsHost(h) != want {
			t.Errorf("AllowsHost(%q) = %v", h, !want)
		}
	}
	if !s.AllowsTool("run_command") || s.AllowsTool("http_request") {
		t.Error("AllowsTool")
	}
}

func TestUses(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.weft.json", `{"x":"Bearer {{secrets.GH}} {{ secrets.GH }}","y":"{{secrets.OTHER}}"}`)
	write("sub/b.json", `{"x":"{{secrets.GH}}"}`)
	write("c.txt", `{{secrets.GH}}`)
	write(".weft/runs/r.json", `{{secrets.GH}}`)
	write("d.json", `{{secrets.1BAD}} {{secret.GH}}`)
	uses, truncated, err := Uses(dir)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	if len(uses["GH"]) != 2 || len(uses["OTHER"]) != 1 || len(uses) != 2 {
		t.Fatalf("uses = %v", uses)
	}
	if _, _, err := Uses(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing folder is no error")
	}
}

// FuzzNormalizeHost: whatever a binding accepts is stable (normalizing
// it again changes nothing), has no scheme, path or user, and a binding
// to a plain host allows that host.
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"api.x.com", "X.com:8443", "*.y.com", "[::1]:80", "10.0.0.1", "a/b", "http://x", "u@x", "x:", "*", "a..b", "x.com:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		n, err := NormalizeHost(h)
		if err != nil {
			return
		}
		if again, err := NormalizeHost(n); err != nil || again != n {
			t.Fatalf("%q → %q → %q, %v", h, n, again, err)
		}
		if strings.ContainsAny(n, "/?#@ \\") || strings.Contains(n, "://") {
			t.Fatalf("%q accepted as %q", h, n)
		}
		if !strings.HasPrefix(n, "*.") && !(Secret{Hosts: []string{n}}).AllowsHost(n) {
			t.Fatalf("binding %q does not allow itself", n)
		}
	})
}
