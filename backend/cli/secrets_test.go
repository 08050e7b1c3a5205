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

const (
	cliAPIKey   = "sk-cli-leaktest-0123456789abcdef"
	cliMCPToken = "mcp-cli-leaktest-token-13579"
)

func TestCLIOutputIsRedacted(t *testing.T) {
	var out, errb bytes.Buffer
	env := map[string]string{"WEFT_LLM_API_KEY": cliAPIKey, "WEFT_LOG": "info"}
	c, flush := newCLI(strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	c.stdout.Write([]byte("key " + cliAPIKey[:10]))
	c.stdout.Write([]byte(cliAPIKey[10:] + " done\n"))
	c.log.Info("calling "+cliAPIKey, "header", "Bearer "+cliAPIKey)
	c.red.Add(cliMCPToken) // as a command that loads settings would
	c.stderr.Write([]byte("weft: server said " + cliMCPToken))
	flush()
	all := out.String() + errb.String()
	if strings.Contains(all, cliAPIKey) || strings.Contains(all, cliMCPToken) || strings.Contains(all, cliAPIKey[:12]) {
		t.Fatalf("secret printed:\n%s", all)
	}
	if out.String() != "key [REDACTED] done\n" || !strings.HasSuffix(errb.String(), "weft: server said [REDACTED]") {
		t.Errorf("stdout %q\nstderr %q", out.String(), errb.String())
	}
}

// runRedacted runs the CLI as main does, over redacting writers.
func runRedacted(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	env["WEFT_KEYRING"] = "off"
	for k, v := range env {
		t.Setenv(k, v)
	}
	trustTestFiles(t, args)
	var out, errb bytes.Buffer
	c, flush := newCLI(strings.NewReader(""), &out, &errb, os.Getenv)
	code := c.main(context.Background(), args)
	flush()
	return code, out.String(), errb.String()
}

// TestRunHidesSecrets runs a workflow whose command prints the secrets it
// finds and whose MCP server prints its token as it fails to start, and
// checks the terminal (both output modes) and the run folder.
func TestRunHidesSecrets(t *testing.T) {
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			env := runEnv(t)
			env["WEFT_LLM_API_KEY"] = cliAPIKey
			cfgDir := filepath.Join(env["XDG_CONFIG_HOME"], "weft")
			os.MkdirAll(cfgDir, 0o700)
			cfg := `{"mcp_servers":{"srv":{"command":"sh","args":["-c","echo \"fatal: token $SERVICE_TOKEN rejected\" >&2; exit 1"],"env":{"SERVICE_TOKEN":"` + cliMCPToken + `"}}}}`
			if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"leaky","nodes":[
 {"id":"a","key":"cmd","name":"Cmd","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo \"env [$WEFT_LLM_API_KEY]\"; cat secrets.txt; exit 2"}},"verify":"cmd.exit_code == 0"},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"printed {{cmd.stdout}}"}}},
 {"id":"c","key":"srvcall","name":"Server","type":"Tool","params":{"tool":"srv.do","arguments":{}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`)
			if err := os.WriteFile(filepath.Join(filepath.Dir(wf), "secrets.txt"), []byte(cliAPIKey+" "+cliMCPToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", wf, "--on-escalate", "skip"}
			if mode == "json" {
				args = append(args, "--json")
			}
			code, out, errOut := runRedacted(t, env, args...)
			if code != exitInvalid { // the skipped steps make it partial
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			all := out + errOut
			for _, s := range []string{cliAPIKey, cliMCPToken, cliAPIKey[:12], cliMCPToken[:12]} {
				if strings.Contains(all, s) {
					t.Errorf("the terminal shows %q:\n%s", s, all)
				}
			}
			for _, want := range []string{"env []", "[REDACTED] [REDACTED]", "fatal: token [REDACTED] rejected"} {
				if !strings.Contains(all, want) && !strings.Contains(all, strings.ReplaceAll(want, `"`, `\"`)) {
					t.Errorf("the terminal lacks %q:\n%s", want, all)
				}
			}
			if mode == "json" {
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if !json.Valid([]byte(line)) {
						t.Errorf("not a JSON line: %q", line)
					}
				}
			}
			runs, _ := filepath.Glob(filepath.Join(filepath.Dir(wf), ".weft", "runs", "*", "*"))
			if len(runs) == 0 {
				t.Fatal("no run folder")
			}
			for _, p := range runs {
				b, _ := os.ReadFile(p)
				if bytes.Contains(b, []byte(cliAPIKey)) || bytes.Contains(b, []byte(cliMCPToken)) {
					t.Errorf("%s holds a secret", p)
				}
			}
		})
	}
}
