package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestTemplateSafety(t *testing.T) {
	posix := quote.HostShell() == quote.POSIX
	loopBody := func(body workflow.Node) *workflow.Workflow {
		return wf(ns(cmd("start", "echo start"), loopMax("again", "", 3), body, endl("again_end", "again")),
			e("start", "again"), eo("again", body.ID, lb), e(body.ID, "again_end"), e("again_end", "again"))
	}
	after := func(n workflow.Node) *workflow.Workflow {
		return wf(ns(cmd("fetch", "curl -fsS https://example.com"), n), e("fetch", n.ID))
	}
	ai := func(id string, t workflow.NodeType, text string) workflow.Node {
		p := workflow.Params{Prompt: text}
		if t == workflow.TypeAiTransform {
			p = workflow.Params{Kind: "summarize", Input: text}
		}
		return node(id, t, p)
	}
	cases := []struct {
		name      string
		w         *workflow.Workflow
		want      []string // codes, in order
		inMessage string
		posixOnly bool
	}{
		{"plain placeholders", after(cmd("run", `printf '%s' {{fetch.stdout}} "{{fetch.stderr}}" 'x{{fetch.exit_code}}'`)), nil, "", false},
		{"raw of a Tool's output", after(cmd("run", "{{raw fetch.stdout}}")), []string{CodeRawExternalValue},
			"{{raw fetch.stdout}} in the arguments of 'Run' inserts the output of 'Fetch' unchanged, as code", false},
		{"raw in a nested argument", after(node("run", workflow.TypeTool, workflow.Params{Tool: "log", Arguments: map[string]any{"message": []any{map[string]any{"x": "{{ raw  fetch.stdout }}"}}}})),
			[]string{CodeRawExternalValue}, "", false},
		{"raw in a prompt", after(ai("ask", workflow.TypeAiStep, "Do {{raw fetch.stdout}}")), []string{CodeRawExternalValue}, "the prompt of 'Ask'", false},
		{"raw in an input", after(ai("sum", workflow.TypeAiTransform, "{{raw fetch.stdout}}")), []string{CodeRawExternalValue}, "the input of 'Sum'", false},
		{"raw of an AI step", wf(ns(ai("ask", workflow.TypeAiStep, "pick a file"), cmd("run", "cat {{raw ask.text}}")), e("ask", "run")),
			[]string{CodeRawExternalValue}, "the output of 'Ask'", false},
		{"raw of a loop counter", loopBody(cmd("body", "seq {{raw again.iteration}}")), nil, "", false},
		{"raw of an unknown key", after(cmd("run", "{{raw nobody.stdout}}")), []string{CodeUnknownVariable}, "'nobody'", false},
		{"a key named raw", wf(ns(cmd("raw", "echo"), cmd("run", "echo {{raw.stdout}} {{ raw }}")), e("raw", "run")), nil, "", false},
		{"a raw key read raw", wf(ns(cmd("raw", "echo"), cmd("run", "echo {{raw raw.stdout}}")), e("raw", "run")), []string{CodeRawExternalValue}, "", false},

		{"comment", after(cmd("run", "true # {{fetch.stdout}}")), []string{CodeUnsafePlaceholder},
			"In the command of 'Run', {{fetch.stdout}}: the placeholder sits in a shell comment", true},
		{"backticks", after(cmd("run", "echo `basename {{fetch.stdout}}`")), []string{CodeUnsafePlaceholder}, "backticks", true},
		{"here-document", after(cmd("run", "cat <<EOF\n{{fetch.stdout}}\nEOF")), []string{CodeUnsafePlaceholder}, "here-document", true},
		{"only the first refusal", after(cmd("run", "# {{fetch.stdout}} {{fetch.stderr}}")), []string{CodeUnsafePlaceholder}, "{{fetch.stdout}}", true},
		{"not after raw", after(cmd("run", "echo {{raw fetch.stdout}} # {{fetch.stderr}}")), []string{CodeRawExternalValue}, "", true},
		{"not a key", after(cmd("run", "docker ps # {{.Names}}")), nil, "", true},
		{"a command that is not run_command", after(node("run", workflow.TypeTool, workflow.Params{Tool: "write_file", Arguments: map[string]any{"path": "x.sh", "content": "# {{fetch.stdout}}"}})), nil, "", false},

		{"URL host", after(httpGet("get", "https://{{fetch.stdout}}/x")), []string{CodeUnsafePlaceholder},
			"In the URL of 'Get', {{fetch.stdout}}: the placeholder sits in the scheme or host of the URL", false},
		{"URL base", after(httpGet("get", "{{fetch.stdout}}/x")), []string{CodeUnsafePlaceholder}, "scheme or host", false},
		{"URL path, query, fragment", after(httpGet("get", "https://api.test/{{fetch.stdout}}?q={{fetch.stderr}}#{{fetch.exit_code}}")), nil, "", false},
		{"whole URL", after(httpGet("get", " {{fetch.stdout}} ")), nil, "", false},
		{"raw base URL", after(httpGet("get", "{{raw fetch.stdout}}/x/{{fetch.stderr}}")), []string{CodeRawExternalValue}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.posixOnly && !posix {
				t.Skip("sh quoting")
			}
			r := Validate(c.w, catalog)
			if got := codes(r); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("codes %v, want %v", got, c.want)
			}
			if c.inMessage != "" && !strings.Contains(r.Problems[0].Message, c.inMessage) {
				t.Errorf("message %q does not say %q", r.Problems[0].Message, c.inMessage)
			}
			for _, p := range r.Problems {
				if p.Severity != SeverityWarning || !r.Valid {
					t.Errorf("%s is an error; want a warning", p.Code)
				}
			}
		})
	}
}
