package schedule

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A schedule's inputs reach its `weft run` as --inputs JSON, one argument:
// for every neighbour as an input's value (quotes, $, %, backslashes,
// line breaks, bytes that are not UTF-8 escaped by JSON), the systemd
// units load (systemd-analyze verify) and systemd reads ExecStart back as
// exactly the command, the JSON as it was made.
func TestScheduledInputsReachTheRun(t *testing.T) {
	analyze := systemdAnalyze(t)
	root := t.TempDir()
	env := analyzeEnv(t, root)
	c, err := ParseCron("0 7 * * *")
	if err != nil {
		t.Fatal(err)
	}
	file, weft, ok := mkdirs(t, filepath.Join(root, "flows"))
	if !ok {
		t.Fatal("cannot make the folder")
	}
	m := &Manager{Weft: weft}
	for i, v := range append(slices.Clone(neighbours), "{\"a\": [1, \"b c\"]}", "%h %% $HOME ${X} `id`", "\\\"", strings.Repeat("x", 2000)) {
		b, err := json.Marshal(map[string]any{"name": v, "n": i})
		if err != nil {
			t.Fatal(err)
		}
		s := Schedule{ID: fmt.Sprintf("in-%d", i), File: file, Cron: c.String(), Args: []string{"--inputs", string(b)}}
		command := m.Command(s)
		service, timer, err := systemdUnits(s, c, command)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		verifyUnits(t, analyze, env, filepath.Join(root, "units", s.ID), unit(s), service, timer)
		argv, err := readExec(readUnit(t, service)["ExecStart"])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(argv, command) {
			t.Fatalf("systemd reads ExecStart as\n%q\nwant\n%q", argv, command)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(argv[len(argv)-1]), &got); err != nil || got["name"] != strings.ToValidUTF8(v, "\uFFFD") {
			t.Fatalf("%q: the run would read the inputs as %v (%v)", v, got, err)
		}
	}
}
