package runner

import (
	"strings"
	"testing"
)

// testRun is a run with only what template rendering reads.
func testRun(vars map[string]any) *run {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	set := map[string]bool{}
	for k := range vars {
		set[k] = true
	}
	return &run{vars: vars, set: set, eval: newEvaluator(keys, 0)}
}

func TestRenderArgs(t *testing.T) {
	r := testRun(map[string]any{
		"fetch": map[string]any{"body": "$(touch X)'; rm -rf ~ #\n", "status": 200.0},
		"list":  map[string]any{"files": []any{"a b.txt", "c.txt"}, "count": 2.0},
		"cfg":   map[string]any{"content": "https://api.test/v1\n", "host": "evil.test"},
		"loop":  map[string]any{"iteration": 3.0},
	})
	const body = `'$(touch X)'\''; rm -rf ~ #'` // fetch.body as one sh word, line break dropped
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		want    map[string]any
		wantErr string
	}{
		{"command: a bare word", "run_command", map[string]any{"command": "printf %s {{fetch.body}} > out"},
			map[string]any{"command": "printf %s " + body + " > out"}, ""},
		{"command: inside double quotes", "run_command", map[string]any{"command": `echo "got {{ fetch.body }}!"`},
			map[string]any{"command": `echo "got "` + body + `"!"`}, ""},
		{"command: numbers and expressions", "run_command", map[string]any{"command": "seq {{loop.iteration}} {{list.count * 10}}"},
			map[string]any{"command": "seq '3' '20'"}, ""},
		{"command: an array is one word of JSON", "run_command", map[string]any{"command": "echo {{list.files}}"},
			map[string]any{"command": `echo '["a b.txt","c.txt"]'`}, ""},
		{"command: a missing field is an error", "run_command", map[string]any{"command": "echo {{fetch.nothing}} x"},
			nil, `fetch has no field "nothing" (it has the fields body, status)`},
		{"command: an expression reading a missing field is an error", "run_command", map[string]any{"command": "echo {{fetch.nothing + 'x'}}"},
			nil, `fetch has no field "nothing"`},
		{"command: a lenient field reads empty", "run_command", map[string]any{"command": "echo {{fetch.error}} x"},
			map[string]any{"command": "echo '' x"}, ""},
		{"command: the whole command is still one word", "run_command", map[string]any{"command": "{{fetch.body}}"},
			map[string]any{"command": body}, ""},
		{"command: raw", "run_command", map[string]any{"command": "echo {{raw fetch.body}}"},
			map[string]any{"command": "echo $(touch X)'; rm -rf ~ #"}, ""},
		{"command: not ours", "run_command", map[string]any{"command": "docker ps --format '{{.Names}}' {{ range }}"},
			map[string]any{"command": "docker ps --format '{{.Names}}' {{ range }}"}, ""},
		{"command: other arguments are plain", "run_command", map[string]any{"command": "true", "cwd": "{{cfg.host}}"},
			map[string]any{"command": "true", "cwd": "evil.test"}, ""},
		{"command: in a comment", "run_command", map[string]any{"command": "true # {{fetch.body}}"}, nil,
			"command: {{fetch.body}}: the placeholder sits in a shell comment"},
		{"command: NUL", "run_command", map[string]any{"command": "echo {{nul.v}}"}, nil, ""},

		{"url: path, query, fragment", "http_request", map[string]any{"method": "GET", "url": "https://api.test/f/{{fetch.body}}?q={{fetch.body}}#{{list.count}}"},
			map[string]any{"method": "GET", "url": "https://api.test/f/$%28touch%20X%29%27%3B%20rm%20-rf%20~%20%23?q=%24%28touch+X%29%27%3B+rm+-rf+~+%23#2"}, ""},
		{"url: host", "http_request", map[string]any{"url": "https://{{cfg.host}}/x"}, nil,
			"url: {{cfg.host}}: the placeholder sits in the scheme or host"},
		{"url: the whole URL", "http_request", map[string]any{"url": " {{cfg.content}} "},
			map[string]any{"url": "https://api.test/v1"}, ""},
		{"url: the whole URL must be one", "http_request", map[string]any{"url": "{{cfg.host}}"}, nil,
			`url: {{cfg.host}} is the whole URL, but the value "evil.test" is not an absolute http or https URL`},
		{"url: raw base", "http_request", map[string]any{"url": "{{raw cfg.content}}/items/{{list.count}}"},
			map[string]any{"url": "https://api.test/v1/items/2"}, ""},
		{"url: body is plain", "http_request", map[string]any{"url": "https://api.test", "body": `{"q": "{{fetch.body}}"}`},
			map[string]any{"url": "https://api.test", "body": `{"q": "$(touch X)'; rm -rf ~ #` + "\n" + `"}`}, ""},
		{"headers: line end trimmed", "http_request", map[string]any{"headers": map[string]any{"Authorization": "Bearer {{cfg.host}}", "X-N": "{{cfg.content}}"}},
			map[string]any{"headers": map[string]any{"Authorization": "Bearer evil.test", "X-N": "https://api.test/v1"}}, ""},

		{"write_file content is plain", "write_file", map[string]any{"path": "out.txt", "content": "{{fetch.body}}"},
			map[string]any{"path": "out.txt", "content": "$(touch X)'; rm -rf ~ #\n"}, ""},
		{"MCP arguments are plain", "fs.write", map[string]any{"text": "a {{fetch.body}}", "n": "{{list.count}}"},
			map[string]any{"text": "a $(touch X)'; rm -rf ~ #\n", "n": 2.0}, ""},
	}
	r.vars["nul"] = map[string]any{"v": "a\x00b"}
	r.set["nul"] = true
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.renderArgs(c.tool, c.args)
			if c.want == nil {
				want := c.wantErr
				if want == "" {
					want = "NUL"
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range c.want {
				if !equalJSON(got[k], w) {
					t.Errorf("%s = %#v\nwant %#v", k, got[k], w)
				}
			}
		})
	}
}

func equalJSON(a, b any) bool { return toText(a) == toText(b) }
