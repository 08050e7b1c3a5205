package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func secretWF(t *testing.T, nodes string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"s","nodes":[` + nodes + `],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func problemsOf(r Result, code string) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Code == code {
			out = append(out, p)
		}
	}
	return out
}

func TestSecretReferences(t *testing.T) {
	good := `{"id":"a","key":"a","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.example.com/x?k={{secrets.KEY}}","headers":{"Authorization":"Bearer {{secrets.TOKEN}}"}}}}`
	r := ValidateWith(secretWF(t, good), nil, Options{Secrets: []string{"TOKEN"}})
	if !r.Valid || len(problemsOf(r, CodeBadSecretRef)) != 0 {
		t.Fatalf("%+v", r.Problems)
	}
	if u := problemsOf(r, CodeUnknownVariable); len(u) != 0 {
		t.Fatalf("a reference read as a node key: %+v", u)
	}
	if u := problemsOf(r, CodeUnknownSecret); len(u) != 1 || !strings.Contains(u[0].Message, "KEY") || u[0].Severity != SeverityWarning {
		t.Fatalf("unknown: %+v", u)
	}
	if u := problemsOf(Validate(secretWF(t, good), nil), CodeUnknownSecret); len(u) != 0 {
		t.Fatalf("without names: %+v", u)
	}
	for _, bad := range []string{
		`{"id":"a","key":"a","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://{{secrets.HOST}}/x"}}}`,
		`{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"{{secrets.A.b}}"}}}`,
		`{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"{{raw secrets.A}}"}}}`,
		`{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi # {{secrets.A}}"}}}`,
		`{"id":"a","key":"a","type":"AiStep","params":{"prompt":"use {{secrets.A}}"}}`,
		`{"id":"a","key":"a","type":"AiTransform","params":{"kind":"summarize","input":"{{secrets.A}}"}}`,
	} {
		r := ValidateWith(secretWF(t, bad), nil, Options{Secrets: []string{"A", "HOST"}})
		if p := problemsOf(r, CodeBadSecretRef); r.Valid || len(p) != 1 {
			t.Errorf("%s: %+v", bad, r.Problems)
		}
	}
	// A node keyed secrets (made in memory, not read from a file).
	w := secretWF(t, `{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}`)
	w.Nodes[0].Key = "secrets"
	if r := Validate(w, nil); r.Valid || len(problemsOf(r, CodeBadKey)) != 1 {
		t.Fatalf("key secrets: %+v", r.Problems)
	}
}

func TestLiteralSecrets(t *testing.T) {
	const tok = "Zq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0IyTr"
	bad := `{"id":"a","key":"a","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.example.com/x?page=1&api_key=` + tok + `","headers":{"authorization":"Bearer ` + tok + `"}}}}`
	r := Validate(secretWF(t, bad), nil)
	lits := problemsOf(r, CodeLiteralSecret)
	if !r.Valid || len(lits) != 2 {
		t.Fatalf("%+v", r.Problems)
	}
	paths := map[string]bool{}
	for _, p := range lits {
		if p.Severity != SeverityWarning || strings.Contains(p.Message, tok) || strings.Contains(p.Message, tok[:6]) || len(p.NodeIDs) != 1 || p.NodeIDs[0] != "a" {
			t.Errorf("%+v", p)
		}
		paths[p.Path] = true
	}
	if lits[0].Secret == "" {
		t.Errorf("no suggested name: %+v", lits[0])
	}
	if !paths["/url"] || !paths["/headers/authorization"] {
		t.Errorf("paths %v", paths)
	}
	good := `{"id":"a","key":"a","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.example.com/x?page=1&api_key={{secrets.KEY}}","headers":{"authorization":"Bearer {{secrets.TOKEN}}"}}}}`
	if p := problemsOf(Validate(secretWF(t, good), nil), CodeLiteralSecret); len(p) != 0 {
		t.Fatalf("references: %+v", p)
	}
}
