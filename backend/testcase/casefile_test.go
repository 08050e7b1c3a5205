package testcase

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeRefuses(t *testing.T) {
	c := func(body string) string { return `{"cases":[{"name":"c",` + body + `}]}` }
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "{\n\"cases\": [}", "line 2, column 11"},
		{"text after", `{"cases":[]} {}`, "text after"},
		{"unknown top field", `{"cases":[],"case":1}`, `has no field "case" (it has cases)`},
		{"unknown answer field", c(`"mocks":{"commands":[{"command":"x","answer":{"exit_code":0,"stdot":"y"}}]}`), `cases[0] "c".mocks.commands[0].answer: "answer" has no field "stdot"`},
		{"wrong type", c(`"mocks":{"commands":[{"command":"x","answer":{"exit_code":"0"}}]}`), "exit_code"},
		{"no name", `{"cases":[{"mocks":{}}]}`, "cases[0]: a case needs a name"},
		{"same name", `{"cases":[{"name":"a"},{"name":"a"}]}`, `cases[1] "a": two cases have this name`},
		{"both answers", c(`"mocks":{"commands":[{"command":"x","answer":{"exit_code":0},"answers":[{"exit_code":0}]}]}`), "both answer and answers"},
		{"no answer", c(`"mocks":{"commands":[{"command":"x"}]}`), "has no answer"},
		{"empty answers", c(`"mocks":{"commands":[{"command":"x","answers":[]}]}`), "has no answer"},
		{"no command", c(`"mocks":{"commands":[{"command":" ","answer":{}}]}`), "needs the command"},
		{"twice", c(`"mocks":{"commands":[{"command":"x","answer":{}},{"command":"x","answer":{}}]}`), `mocks.commands[1]: the command "x" is mocked twice`},
		{"http twice", c(`"mocks":{"http":[{"method":"get","url":"http://a","answer":{"status":200}},{"method":"GET","url":"http://a","answer":{"status":200}}]}`), "mocked twice"},
		{"http status", c(`"mocks":{"http":[{"method":"GET","url":"http://a","answer":{"status":42}}]}`), "status 42 is not an HTTP status"},
		{"http no url", c(`"mocks":{"http":[{"method":"GET","answer":{"status":200}}]}`), "needs the method and the url"},
		{"mcp name", c(`"mocks":{"mcp":[{"tool":"search","answer":{}}]}`), "server.tool"},
		{"ai two kinds", c(`"mocks":{"ai":{"s":{"answer":{"text":"a","label":"b"}}}}`), `mocks.ai["s"]: an AI answer has exactly one of`},
		{"ai data", c(`"mocks":{"ai":{"s":{"answer":{"data":[1]}}}}`), "data is a JSON object"},
		{"ai none", c(`"mocks":{"ai":{"s":{"answers":[{}]}}}`), "exactly one of"},
		{"outcome", c(`"expect":{"outcome":"won"}`), `expect.outcome: "won" is not an outcome`},
		{"output name", c(`"expect":{"outputs":{"text":{"equals":1}}}`), "node_id.field"},
		{"value both", c(`"expect":{"outputs":{"a.b":{"equals":1,"matches":"x"}}}`), `exactly one of "equals" and "matches"`},
		{"value none", c(`"expect":{"outputs":{"a.b":{}}}`), `exactly one of "equals" and "matches"`},
		{"value bare", c(`"expect":{"outputs":{"a.b":"x"}}`), `{"equals": …}`},
		{"bad regexp", c(`"expect":{"files":{"out.txt":{"matches":"("}}}`), "missing closing )"},
		{"file path", c(`"expect":{"files":{" ":{"equals":""}}}`), "a file needs a path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Decode = %v, want a FileError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

func TestDecodeReads(t *testing.T) {
	f, err := Decode([]byte(`{"cases":[{"name":"all",
	  "inputs":{"city":"Paris"},
	  "mocks":{
	    "commands":[{"command":"date","answer":{"exit_code":0,"stdout":"today"}}],
	    "http":[{"method":"GET","url":"https://x.test/a","answers":[{"status":503},{"status":200,"headers":{"Content-Type":"text/plain"},"body":"ok"}]}],
	    "mcp":[{"tool":"fs.search","arguments":{"q":"x"},"answer":{"text":"found","data":{"n":1}}}],
	    "ai":{"sum":{"answer":{"text":"short"}},"cls":{"answers":[{"error":"no label"},{"label":"urgent"}]}}},
	  "expect":{"path":["a","b"],"outcome":"succeeded",
	    "outputs":{"a.stdout":{"equals":"today"},"b.status":{"equals":200},"c.data":{"equals":null},"d.text":{"matches":"^sh"}},
	    "files":{"out/r.md":{"matches":"Paris"}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	if c.Mocks.HTTP[0].Answers.Answers[1].Body != "ok" || *c.Mocks.AI["cls"].Answers.Answers[1].Label != "urgent" || c.Mocks.Commands[0].Answer.Stdout != "today" {
		t.Errorf("mocks read wrong: %+v", c.Mocks)
	}
	if v := c.Expect.Outputs["c.data"]; !v.hasEq || v.Equals != nil {
		t.Errorf("equals null read as %+v", v)
	}
	if msg, ok := c.Expect.Outputs["b.status"].holds(200); !ok {
		t.Errorf("200 does not equal 200: %s", msg)
	}
	if _, ok := c.Expect.Outputs["d.text"].holds("shorter"); !ok {
		t.Error("shorter does not match ^sh")
	}
}

func TestPathFor(t *testing.T) {
	for in, want := range map[string]string{
		"a/flow.json":            "a/flow.tests.json",
		"a/flow.weft.json":       "a/flow.weft.tests.json",
		"a/flow.weft.tests.json": "a/flow.weft.tests.json",
	} {
		if got := PathFor(in); got != want {
			t.Errorf("PathFor(%q) = %q, want %q", in, got, want)
		}
	}
	if got := WorkflowFor("a/flow.weft.tests.json"); got != "a/flow.weft.json" {
		t.Errorf("WorkflowFor = %q", got)
	}
}

// FuzzDecode: any bytes give a file or a FileError, never a panic, and a
// file decoded once decodes the same after a round trip.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"cases":[{"name":"a","mocks":{"commands":[{"command":"x","answers":[{"exit_code":1},{"exit_code":0}]}]},"expect":{"outcome":"succeeded","outputs":{"a.b":{"matches":"x"}}}}]}`))
	f.Add([]byte(`{"cases":[{"name":"b","mocks":{"ai":{"s":{"answer":{"data":{"k":[1,2]}}}}},"expect":{"files":{"x":{"equals":"y"}}}}]}`))
	f.Add([]byte(`{"cases":[{"name":"c","mocks":{"http":[{"method":"GET","url":"u","answer":{"status":200}}],"mcp":[{"tool":"a.b","answer":{"is_error":true}}]}}]}`))
	f.Add([]byte(`{"cases":[{}]}`))
	f.Add([]byte(`{"cases":[{"name":"d","mocks":{"ai":{"s":{"answer":{"data":{}}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := Decode(data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Decode error %v (%T) is not a FileError", err, err)
			}
			return
		}
		b, err := jsonText(cf)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := Decode([]byte(b))
		if err != nil {
			t.Fatalf("a decoded file does not decode again: %v\n%s", err, b)
		}
		if len(again.Cases) != len(cf.Cases) {
			t.Fatalf("round trip lost cases")
		}
	})
}
