package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const storedToken = "ghp_cliStoreTest0123456789abcdefABCDEF"

// secretsCmd runs `weft secrets …` as main does (over redacting writers),
// with stdin and a private data folder, the keyring off.
func secretsCmd(t *testing.T, data, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(data, "config"))
	t.Setenv("WEFT_KEYRING", "off")
	var out, errb bytes.Buffer
	c, flush := newCLI(strings.NewReader(stdin), &out, &errb, os.Getenv)
	code := c.main(context.Background(), append([]string{"secrets"}, args...))
	flush()
	return code, out.String(), errb.String()
}

func TestSecretsSetReadsStdinNeverArgs(t *testing.T) {
	data := t.TempDir()
	// A value given as an argument is refused, and stored nowhere.
	code, out, errb := secretsCmd(t, data, "", "set", "GH_TOKEN", storedToken)
	if code != exitUnusable || !strings.Contains(errb, "never taken from an argument") {
		t.Fatalf("value as an argument: code %d\n%s%s", code, out, errb)
	}
	if code, _, errb := secretsCmd(t, data, "", "set", "GH_TOKEN", "--value", storedToken); code != exitUnusable {
		t.Fatalf("--value accepted: %s", errb)
	}
	if code, _, errb := secretsCmd(t, data, "", "set", "GH_TOKEN"); code != exitUnusable || !strings.Contains(errb, "no value") {
		t.Fatalf("empty stdin: code %d %s", code, errb)
	}
	if _, err := os.Stat(filepath.Join(data, "weft", "secrets", "index.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused set wrote the index: %v", err)
	}

	code, out, errb = secretsCmd(t, data, storedToken+"\n", "set", "GH_TOKEN", "--host", "api.github.com", "--tool", "run_command")
	if code != exitOK || !strings.Contains(out, "stored secret GH_TOKEN") {
		t.Fatalf("set: code %d\n%s%s", code, out, errb)
	}
	// bind changes where it may go and keeps the value; it reads no value.
	if code, out, errb := secretsCmd(t, data, "ignored", "bind", "GH_TOKEN", "--host", "api.github.com", "--host", "uploads.github.com", "--tool", "run_command"); code != exitOK || !strings.Contains(out, "uploads.github.com") {
		t.Fatalf("bind: code %d\n%s%s", code, out, errb)
	}
	if code, _, errb := secretsCmd(t, data, "", "bind", "MISSING", "--host", "x.com"); code != exitInvalid || !strings.Contains(errb, "MISSING") {
		t.Fatalf("bind of a missing secret: code %d %s", code, errb)
	}
	if code, _, errb := secretsCmd(t, data, "x", "set", "BAD", "--host", "https://x.com/"); code != exitInvalid || !strings.Contains(errb, "no scheme") {
		t.Fatalf("bad host: code %d %s", code, errb)
	}

	wf := t.TempDir()
	os.WriteFile(filepath.Join(wf, "a.weft.json"), []byte(`{"h":"Bearer {{secrets.GH_TOKEN}}"}`), 0o600)
	os.WriteFile(filepath.Join(wf, "b.weft.json"), []byte(`{"h":"{{secrets.GH_TOKEN}}"}`), 0o600)
	var all string
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"list", "--in", wf}, {"list", "--in", wf, "--json"}} {
		code, out, errb := secretsCmd(t, data, "", args...)
		if code != exitOK || !strings.Contains(out, "GH_TOKEN") || !strings.Contains(out, "api.github.com") {
			t.Fatalf("%v: code %d\n%s%s", args, code, out, errb)
		}
		all += out + errb
		if args[len(args)-1] == "--json" {
			var v struct {
				Secrets []struct {
					Name   string   `json:"name"`
					Stored string   `json:"stored"`
					UsedIn []string `json:"used_in"`
				} `json:"secrets"`
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Secrets) != 1 || v.Secrets[0].Stored != "file" {
				t.Fatalf("%v: %v %s", args, err, out)
			}
			if len(args) == 4 && len(v.Secrets[0].UsedIn) != 2 {
				t.Fatalf("uses: %s", out)
			}
		} else if len(args) == 3 && !strings.Contains(out, "used in 2 file(s)") {
			t.Fatalf("uses: %s", out)
		}
	}
	if strings.Contains(all, storedToken) || strings.Contains(all, storedToken[:12]) {
		t.Fatalf("list printed the value:\n%s", all)
	}
	// The value is in the 0600 fallback file only (bind kept it).
	vals := filepath.Join(data, "weft", "secrets", "values.json")
	if b, err := os.ReadFile(vals); err != nil || !strings.Contains(string(b), `"GH_TOKEN": "`+storedToken+`"`) {
		t.Fatalf("values file: %v", err)
	}
	if st, _ := os.Stat(vals); st.Mode().Perm() != 0o600 {
		t.Fatalf("values file mode %v", st.Mode().Perm())
	}

	if code, out, errb := secretsCmd(t, data, "", "remove", "GH_TOKEN"); code != exitOK {
		t.Fatalf("remove: %s%s", out, errb)
	}
	if b, _ := os.ReadFile(vals); strings.Contains(string(b), storedToken) {
		t.Fatal("remove left the value")
	}
	if code, _, errb := secretsCmd(t, data, "", "remove", "GH_TOKEN"); code != exitInvalid || !strings.Contains(errb, "GH_TOKEN") {
		t.Fatalf("remove twice: %d %s", code, errb)
	}
}

func TestSecretsSetKeepsAMultiLineValue(t *testing.T) {
	data := t.TempDir()
	pem := "-----BEGIN KEY-----\nabc\n-----END KEY-----"
	if code, out, errb := secretsCmd(t, data, pem+"\r\n", "set", "PEM"); code != exitOK {
		t.Fatalf("%s%s", out, errb)
	}
	b, _ := os.ReadFile(filepath.Join(data, "weft", "secrets", "values.json"))
	var vals map[string]string
	if err := json.Unmarshal(b, &vals); err != nil || vals["PEM"] != pem {
		t.Fatalf("stored %q, %v", vals["PEM"], err)
	}
}
