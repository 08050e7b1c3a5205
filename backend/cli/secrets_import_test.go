package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact/redacttest"
)

const (
	importBearer = "Zq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0IyTr"
	importGH     = "ghp_importTest0123456789abcdefABCDEFgh"
	importKey    = "k3YvalueForQuery0123456789abcdEF"
)

func importWorkflow(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "api.weft.json")
	wf := `{"format":"weft/v1","id":"w","name":"api","nodes":[
{"id":"fetch","key":"fetch","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.example.com/v1/items?page=1&api_key=` + importKey + `","headers":{"Authorization":"Bearer ` + importBearer + `","Accept":"application/json"}}}},
{"id":"push","key":"push","type":"Tool","params":{"tool":"run_command","arguments":{"command":"git push https://x:` + importGH + `@github.com/o/r.git"}}}],
"edges":[{"from":"fetch","to":"push"}]}`
	if err := os.WriteFile(path, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// folderHolds reports which of the secrets, in any encoding the redactor
// promises, is in a file beneath dir.
func folderHolds(t *testing.T, dir string, secrets ...string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			for enc, form := range redacttest.Encodings(s) {
				if strings.Contains(string(b), form) {
					found = append(found, p+": "+s[:4]+" ("+enc+")")
				}
			}
		}
		return nil
	})
	return found
}

func TestSecretsImportYes(t *testing.T) {
	data := t.TempDir()
	path := importWorkflow(t)
	code, out, errb := secretsCmd(t, data, "", "import", path, "--yes")
	if code != exitOK {
		t.Fatalf("code %d\n%s%s", code, out, errb)
	}
	for _, s := range []string{importBearer, importGH, importKey} {
		if strings.Contains(out+errb, s) || strings.Contains(out+errb, s[5:12]) {
			t.Fatalf("the output shows a value:\n%s%s", out, errb)
		}
	}
	if leaks := folderHolds(t, filepath.Dir(path), importBearer, importGH, importKey); len(leaks) > 0 {
		t.Fatalf("the folder still holds %v", leaks)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"Bearer {{secrets.API_TOKEN}}"`, `api_key={{secrets.API_KEY}}`, `{{secrets.GITHUB_TOKEN}}@github.com`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file lacks %s:\n%s", want, b)
		}
	}
	code, out, _ = secretsCmd(t, data, "", "list", "--json")
	var v struct {
		Secrets []struct {
			Name  string   `json:"name"`
			Hosts []string `json:"hosts"`
			Tools []string `json:"tools"`
		} `json:"secrets"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil {
		t.Fatalf("list: %v %s", err, out)
	}
	got := map[string]string{}
	for _, s := range v.Secrets {
		got[s.Name] = strings.Join(append(s.Hosts, s.Tools...), ",")
	}
	want := map[string]string{"API_TOKEN": "api.example.com", "API_KEY": "api.example.com", "GITHUB_TOKEN": "run_command"}
	for n, b := range want {
		if got[n] != b {
			t.Errorf("secret %s bound to %q, want %q (all: %v)", n, got[n], b, got)
		}
	}
	// Nothing is left to move: a second import changes nothing.
	before, _ := os.ReadFile(path)
	if code, out, _ := secretsCmd(t, data, "", "import", path, "--yes"); code != exitOK || !strings.Contains(out, "nothing moved") {
		t.Fatalf("second import: %d %s", code, out)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a second import rewrote the file")
	}
}

func TestSecretsImportAsks(t *testing.T) {
	data := t.TempDir()
	path := importWorkflow(t)
	// fetch's Authorization (kept as suggested), fetch's url (left), push's command (named).
	code, out, errb := secretsCmd(t, data, "\n-\nPUSH_TOKEN\n", "import", path)
	if code != exitOK {
		t.Fatalf("code %d\n%s%s", code, out, errb)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "Bearer {{secrets.API_TOKEN}}") || !strings.Contains(string(b), "{{secrets.PUSH_TOKEN}}") || !strings.Contains(string(b), importKey) {
		t.Fatalf("file:\n%s", b)
	}
	// A name taken by another value is refused, the file left as it was.
	path2 := importWorkflow(t)
	before, _ := os.ReadFile(path2)
	if code, _, errb := secretsCmd(t, data, "PUSH_TOKEN\n", "import", path2); code != exitInvalid || !strings.Contains(errb, "another value") {
		t.Fatalf("taken name: %d %s", code, errb)
	}
	if after, _ := os.ReadFile(path2); string(after) != string(before) {
		t.Fatal("a refused import rewrote the file")
	}
	// No answer (stdin at its end) is an error, not a silent choice.
	if code, _, errb := secretsCmd(t, data, "", "import", path2); code != exitInvalid || !strings.Contains(errb, "--yes") {
		t.Fatalf("no answer: %d %s", code, errb)
	}
}
