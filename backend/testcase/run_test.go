package testcase

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

const retried = `"nodes":[
 {"id":"fetch","key":"fetch","type":"Tool","retry":{"max_attempts":3,"backoff_initial_ms":1},"params":{"tool":"run_command","arguments":{"command":"curl -s example.test"}}},
 {"id":"save","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out/page.txt","content":"{{fetch.stdout}}"}}}],
 "edges":[{"from":"fetch","to":"save"}]`

func TestSequences(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(retried)
	for _, tc := range []struct {
		name, answers string
		pass          bool
		want          []string
	}{
		{"retries then succeeds", `"answers":[{"exit_code":7},{"exit_code":7},{"exit_code":0,"stdout":"page"}]`, true, nil},
		{"one answer for every call", `"answer":{"exit_code":0,"stdout":"page"}`, true, nil},
		{"fewer answers than calls", `"answers":[{"exit_code":7}]`, false, []string{`the command "curl -s example.test" is called 2 times, but its mock (mocks.commands[0]) has 1 answers`}},
		{"every attempt fails", `"answer":{"exit_code":7,"stderr":"no route"}`, false, []string{"outcome: the run failed, the case expects it succeeded", `stopped at "fetch"`, "exit status 7: no route"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := f.one(w, `{"name":"c","mocks":{"commands":[{"command":"curl -s example.test",`+tc.answers+`}]},
			  "expect":{"outcome":"succeeded","path":["fetch","save"],"outputs":{"fetch.stdout":{"equals":"page"}},"files":{"out/page.txt":{"equals":"page"}}}}`)
			if tc.pass {
				wantPass(t, cr)
			} else {
				wantFail(t, cr, tc.want...)
			}
		})
	}
	if _, err := os.Stat(f.path("out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the case wrote to the real folder: %v", err)
	}
}

// A loop runs a step again and again: its answers come in turn, and the
// path lists each execution.
func TestLoopPath(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"prune","key":"prune","type":"Loop","params":{"exit_condition":"trim(rm.stdout) == \"\"","max_iterations":10}},
	 {"id":"rm","key":"rm","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm-oldest"}}},
	 {"id":"prune_end","key":"prune_end","type":"EndLoop","params":{"loop_id":"prune"}},
	 {"id":"done","key":"done","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
	 "edges":[{"from":"prune","to":"rm","output":"LoopBody"},{"from":"rm","to":"prune_end"},{"from":"prune_end","to":"prune"},{"from":"prune","to":"done","output":"LoopDone"}]`)
	cr := f.one(w, `{"name":"two removed","mocks":{"commands":[{"command":"rm-oldest","answers":[{"exit_code":0,"stdout":"a"},{"exit_code":0,"stdout":"b"},{"exit_code":0}]}]},
	  "expect":{"outcome":"succeeded","path":["rm","rm","rm","done"]}}`)
	wantPass(t, cr)
	cr = f.one(w, `{"name":"stops early","mocks":{"commands":[{"command":"rm-oldest","answers":[{"exit_code":0,"stdout":"a"},{"exit_code":0}]}]},
	  "expect":{"path":["rm","rm","rm","done"]}}`)
	wantFail(t, cr, "path: the steps ran in another order: from step 3 on, expected rm → done, ran done")
}

// Writes go to the overlay: a read after a write sees it, a read of
// another file sees the real folder, an append adds to the real content,
// list_files lists both; nothing reaches the disk.
func TestOverlay(t *testing.T) {
	f := newFolder(t)
	f.write("notes/a.md", "real a")
	f.write("log.txt", "line1\n")
	w := f.workflow(`"nodes":[
	 {"id":"put","key":"put","type":"Tool","params":{"tool":"write_file","arguments":{"path":"notes/b.md","content":"new b"}}},
	 {"id":"getb","key":"getb","type":"Tool","params":{"tool":"read_file","arguments":{"path":"notes/b.md"}}},
	 {"id":"geta","key":"geta","type":"Tool","params":{"tool":"read_file","arguments":{"path":"notes/a.md"}}},
	 {"id":"app","key":"app","type":"Tool","params":{"tool":"write_file","arguments":{"path":"log.txt","content":"line2\n","append":true}}},
	 {"id":"ls","key":"ls","type":"Tool","params":{"tool":"list_files","arguments":{"path":"notes","pattern":"*.md"}}}],
	 "edges":[{"from":"put","to":"getb"},{"from":"getb","to":"geta"},{"from":"geta","to":"app"},{"from":"app","to":"ls"}]`)
	wantPass(t, f.one(w, `{"name":"overlay","expect":{"outcome":"succeeded",
	  "outputs":{"getb.content":{"equals":"new b"},"geta.content":{"equals":"real a"},"ls.files":{"equals":["a.md","b.md"]},"ls.count":{"equals":2}},
	  "files":{"notes/b.md":{"equals":"new b"},"log.txt":{"matches":"^line1\nline2\n$"}}}}`))
	if b, _ := os.ReadFile(f.path("log.txt")); string(b) != "line1\n" {
		t.Errorf("log.txt on disk is %q: the append reached it", b)
	}
	if _, err := os.Stat(f.path("notes/b.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes/b.md exists on disk: %v", err)
	}
	wantFail(t, f.one(w, `{"name":"files differ","expect":{"files":{"notes/b.md":{"equals":"old b"},"notes/c.md":{"equals":""}}}}`),
		`file: notes/b.md: expected "old b", got "new b"`, "file: notes/c.md was not written", "file: log.txt was written, and the case does not expect it")
}

func TestReadsStayInTheFolder(t *testing.T) {
	f := newFolder(t)
	outside := t.TempDir() + "/secret.txt"
	os.WriteFile(outside, []byte("x"), 0o644)
	os.Symlink(outside, f.path("link.txt"))
	for _, p := range []string{outside, "link.txt", "../x"} {
		w := f.workflow(`"nodes":[{"id":"r","key":"r","type":"Tool","params":{"tool":"read_file","arguments":{"path":"` + p + `"}}}],"edges":[]`)
		cr := f.one(w, `{"name":"read","expect":{"outcome":"failed"}}`)
		wantPass(t, cr)
		if !strings.Contains(cr.Error, "outside the workflow's folder") && !strings.Contains(cr.Error, "escapes") && !strings.Contains(cr.Error, "no such file") {
			t.Errorf("read of %s: %s", p, cr.Error)
		}
	}
}

func TestExpectations(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(retried)
	mock := `"mocks":{"commands":[{"command":"curl -s example.test","answer":{"exit_code":0,"stdout":"the page"}}]}`
	for _, tc := range []struct{ name, expect, want string }{
		{"exact output", `"outputs":{"fetch.stdout":{"equals":"a page"}}`, `fetch.stdout: expected "a page", got "the page"`},
		{"pattern", `"outputs":{"fetch.stdout":{"matches":"^a "}}`, `fetch.stdout: "the page" does not match /^a /`},
		{"number", `"outputs":{"fetch.exit_code":{"equals":1}}`, "fetch.exit_code: expected 1, got 0"},
		{"no such field", `"outputs":{"fetch.body":{"equals":""}}`, `the step "fetch" has no output "body"`},
		{"outcome", `"outcome":"failed"`, "the run succeeded, the case expects it failed"},
		{"path", `"path":["fetch"]`, "from step 2 on, expected nothing, ran save"},
		{"stale path", `"path":["fetch","store"]`, `expect.path names the step "store", which the workflow does not have`},
		{"stale output", `"outputs":{"gone.text":{"equals":""}}`, `expect.outputs names the step "gone"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFail(t, f.one(w, `{"name":"c",`+mock+`,"expect":{`+tc.expect+`}}`), tc.want)
		})
	}
	wantFail(t, f.one(w, `{"name":"unused","mocks":{"commands":[{"command":"curl -s example.test","answer":{"exit_code":0}},{"command":"rm -rf /","answer":{"exit_code":0}}],
	  "ai":{"ghost":{"answer":{"text":"x"}}}}}`),
		`mocks.commands[1] ("rm -rf /") was never called`, `mocks.ai names the step "ghost", which the workflow does not have`)
}

func TestAIAndMCP(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"find","key":"find","type":"Tool","params":{"tool":"docs.search","arguments":{"q":"weft","limit":3}}},
	 {"id":"cls","key":"cls","type":"AiTransform","retry":{"max_attempts":2},"params":{"kind":"classify","input":"{{find.text}}","labels":["urgent","later"]}},
	 {"id":"sw","key":"sw","type":"If","params":{"condition":"cls.label == \"urgent\""}},
	 {"id":"say","key":"say","type":"AiStep","params":{"prompt":"tell"}},
	 {"id":"wait","key":"wait","type":"Tool","params":{"tool":"log","arguments":{"message":"later"}}}],
	 "edges":[{"from":"find","to":"cls"},{"from":"cls","to":"sw"},{"from":"sw","to":"say","output":"IfTrue"},{"from":"sw","to":"wait","output":"IfFalse"}]`)
	mcp := `"mcp":[{"tool":"docs.search","arguments":{"q":"weft","limit":3},"answer":{"text":"fire!"}}]`
	wantPass(t, f.one(w, `{"name":"urgent","mocks":{`+mcp+`,"ai":{"cls":{"answers":[{"error":"no label"},{"label":"urgent"}]},"say":{"answer":{"text":"on it"}}}},
	  "expect":{"outcome":"succeeded","path":["find","cls","say"],"outputs":{"cls.label":{"equals":"urgent"},"say.text":{"equals":"on it"},"find.text":{"equals":"fire!"}}}}`))
	wantFail(t, f.one(w, `{"name":"bad label","mocks":{`+mcp+`,"ai":{"cls":{"answer":{"label":"soon"}}}}}`),
		`the mock's label "soon" is not one of the step's labels (urgent, later)`)
	wantFail(t, f.one(w, `{"name":"text for a label","mocks":{`+mcp+`,"ai":{"cls":{"answer":{"text":"urgent"}}}}}`),
		`the AI step "cls" answers with label: its mock must give label`)
	wantFail(t, f.one(w, `{"name":"other arguments","mocks":{"mcp":[{"tool":"docs.search","arguments":{"q":"weft"},"answer":{"text":"x"}}]}}`),
		`unmocked: would run docs.search {"limit":3,"q":"weft"}: no mock (add one to mocks.mcp)`)
	wantFail(t, f.one(w, `{"name":"no ai mock","mocks":{`+mcp+`}}`),
		`would run the model for AI step "cls": no mock (add one to mocks.ai["cls"])`)
}

// A step that would act without a mock fails its case and does not act:
// a command that would create a file, a request to a server that counts,
// a write, an MCP tool, each with on_error continue so all are tried.
func TestUnmockedCannotAct(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"cmd","key":"cmd","type":"Tool","on_error":"continue","params":{"tool":"run_command","arguments":{"command":"touch made"}}},
	 {"id":"get","key":"get","type":"Tool","on_error":"continue","params":{"tool":"http_request","arguments":{"method":"POST","url":"` + srv.URL + `/x"}}},
	 {"id":"mcp","key":"mcp","type":"Tool","on_error":"continue","params":{"tool":"fs.delete","arguments":{"path":"flow.json"}}}],
	 "edges":[{"from":"cmd","to":"get"},{"from":"get","to":"mcp"}]`)
	cr := f.one(w, `{"name":"nothing mocked","expect":{"outcome":"partial"}}`)
	wantFail(t, cr, `[step cmd]`, `would run run_command "touch made": no mock (add one to mocks.commands)`,
		"would run http_request POST "+srv.URL+"/x: no mock", `would run fs.delete {"path":"flow.json"}: no mock`)
	if _, err := os.Stat(f.path("made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server saw %d requests", hits.Load())
	}
	if _, err := os.Stat(f.path("flow.json")); err != nil {
		t.Errorf("flow.json: %v", err)
	}
}

func TestSecrets(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"get","key":"get","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.test/v1?key={{secrets.API_KEY}}","headers":{"Authorization":"Bearer {{secrets.TOKEN}}"}}}},
	 {"id":"cmd","key":"cmd","type":"Tool","params":{"tool":"run_command","arguments":{"command":"deploy --token {{secrets.TOKEN}}"}}}],
	 "edges":[{"from":"get","to":"cmd"}]`)
	ok := `{"cases":[{"name":"refs","mocks":{"http":[{"method":"GET","url":"https://api.test/v1?key={{secrets.API_KEY}}","answer":{"status":200}}],
	  "commands":[{"command":"deploy --token {{secrets.TOKEN}}","answer":{"exit_code":0}}]},"expect":{"outcome":"succeeded"}}]}`
	rep, err := f.play(w, ok, "s3cr3t-value-1234")
	if err != nil {
		t.Fatal(err)
	}
	wantPass(t, rep.Cases[0])
	for _, tc := range []struct{ name, cases, want string }{
		{"store value", strings.Replace(ok, `"exit_code":0}`, `"exit_code":0,"stdout":"got s3cr3t-value-1234"}`, 1), `mocks.commands[0].answer.stdout: it holds a value of the credentials store`},
		{"named literal", strings.Replace(ok, `"answer":{"status":200}`, `"answer":{"status":200,"headers":{"Authorization":"Bearer abcdef0123456789abcdef"}}`, 1), `"Authorization" holds what looks like a credential`},
		{"url with password", strings.Replace(ok, `"status":200}`, `"status":200,"body":"see https://bob:hunter2pass@db.test/x"}`, 1), "looks like a credential"},
		{"in inputs", strings.Replace(ok, `"name":"refs",`, `"name":"refs","inputs":{"api_key":"k9f8g7h6j5k4l3m2n1"},`, 1), `inputs.api_key: "api_key" holds what looks like a credential`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.play(w, tc.cases, "s3cr3t-value-1234")
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `cases[0] "refs"`) {
				t.Errorf("err = %v, want a FileError naming the case and %q", err, tc.want)
			}
		})
	}
}

// A case's inputs reach the run as a run's do (runner.Options.Inputs):
// rendered into the command as data, checked against the schema.
func TestInputs(t *testing.T) {
	f := newFolder(t)
	f.write("flow.json", `{"format":"weft/v1","id":"w","name":"test",
	 "inputs":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]},
	 "nodes":[{"id":"get","key":"get","type":"Tool","params":{"tool":"run_command","arguments":{"command":"forecast {{inputs.city}} {{inputs.days}}"}}}],"edges":[]}`)
	w, _, err := workflow.Load(f.path("flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantPass(t, f.one(w, `{"name":"paris","inputs":{"city":"Le Mans","days":3},"mocks":{"commands":[{"command":"forecast 'Le Mans' '3'","answer":{"exit_code":0,"stdout":"sun"}}]},
	  "expect":{"outcome":"succeeded","outputs":{"get.stdout":{"equals":"sun"}}}}`))
	wantFail(t, f.one(w, `{"name":"no city","inputs":{"days":3}}`), "run: the run did not start", "city")
}

func TestNoCases(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(retried)
	if _, err := Run(context.Background(), w, f.path("flow.json"), &File{}, Options{}); !errors.Is(err, ErrNoCases) || !strings.Contains(err.Error(), "--record") {
		t.Errorf("err = %v, want ErrNoCases saying how to record one", err)
	}
}

var _ = workflow.TypeTool

// A mocked command's writes go to the overlay: later steps list and read
// them, and the case expects them as files the run wrote.
func TestCommandWrites(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"cp","key":"cp","type":"Tool","params":{"tool":"run_command","arguments":{"command":"cp a backups/a-1"}}},
	 {"id":"ls","key":"ls","type":"Tool","params":{"tool":"list_files","arguments":{"path":"backups"}}},
	 {"id":"get","key":"get","type":"Tool","params":{"tool":"read_file","arguments":{"path":"backups/{{ls.files[0]}}"}}}],
	 "edges":[{"from":"cp","to":"ls"},{"from":"ls","to":"get"}]`)
	wantPass(t, f.one(w, `{"name":"copies","mocks":{"commands":[{"command":"cp a backups/a-1","answer":{"exit_code":0,"writes":{"backups/a-1":"A"}}}]},
	  "expect":{"outcome":"succeeded","outputs":{"ls.files":{"equals":["a-1"]},"get.content":{"equals":"A"}},"files":{"backups/a-1":{"equals":"A"}}}}`))
	if _, err := os.Stat(f.path("backups")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backups exists on disk: %v", err)
	}
}
