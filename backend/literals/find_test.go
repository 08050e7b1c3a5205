package literals

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

const (
	ghToken  = "ghp_4f9XkQ2mZ7pL1vR8sT3wY6uB0nC5dE2hJ9aK"
	skToken  = "sk-proj-Zq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0Iy"
	rndToken = "Zq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0IyTr"
)

func toolNode(tool string, args map[string]any) *workflow.Node {
	return &workflow.Node{ID: "n1", Type: workflow.TypeTool, Params: workflow.Params{Tool: tool, Arguments: args}}
}

func httpNode(args map[string]any) *workflow.Node {
	if args["url"] == nil {
		args["url"] = "https://api.example.com/v1/items"
	}
	args["method"] = "GET"
	return toolNode("http_request", args)
}

// caseVariants generates spellings of a header name.
func caseVariants(name string) []string {
	return []string{name, strings.ToLower(name), strings.ToUpper(name), strings.ReplaceAll(strings.ToLower(name), "-", "_")}
}

func TestFindsHeaderLiteralsInEveryCase(t *testing.T) {
	for _, base := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "Private-Token"} {
		for _, name := range caseVariants(base) {
			for _, value := range []string{"Bearer " + rndToken, "Basic dXNlcjpodW50ZXIy", ghToken, "session=" + rndToken + "; theme=dark"} {
				lits := InNode(httpNode(map[string]any{"headers": map[string]any{name: value}}))
				if len(lits) != 1 {
					t.Fatalf("%s: %q: found %d literals, want 1: %+v", name, value, len(lits), lits)
				}
				l := lits[0]
				if l.Path != "/headers/"+name || l.Key != name {
					t.Errorf("%s: path %q key %q", name, l.Path, l.Key)
				}
				if strings.Contains(l.Masked, l.value) || strings.Contains(l.Masked, rndToken[:8]) {
					t.Errorf("%s: masked form %q shows the value", name, l.Masked)
				}
				scheme, _, _ := strings.Cut(value, " ")
				if lk := strings.ToLower(name); (lk == "authorization" || lk == "proxy-authorization") && strings.Contains(value, " ") && !strings.Contains(scheme, "=") && strings.Contains(l.value, scheme) {
					t.Errorf("%s: the scheme word %q is part of the secret %q", name, scheme, l.Masked)
				}
			}
		}
	}
}

func TestFindsQueryParametersAtEveryPosition(t *testing.T) {
	for _, key := range []string{"api_key", "access_token", "token", "client_secret", "password", "apiKey"} {
		others := []string{"page=2", "q=hello+world", "sort=name"}
		for pos := 0; pos <= len(others); pos++ {
			params := append(append(append([]string(nil), others[:pos]...), key+"="+url.QueryEscape(rndToken)), others[pos:]...)
			u := "https://api.example.com/v1/items?" + strings.Join(params, "&")
			lits := InNode(httpNode(map[string]any{"url": u}))
			if len(lits) != 1 || lits[0].Path != "/url" || lits[0].Key != key || lits[0].value != rndToken {
				t.Fatalf("%s at %d: %+v", key, pos, lits)
			}
		}
	}
}

func TestFindsJSONBodyMembers(t *testing.T) {
	for _, key := range []string{"password", "api_key", "refreshToken", "client_secret"} {
		for _, body := range []string{
			fmt.Sprintf(`{"user":"ann","%s":"%s"}`, key, rndToken),
			fmt.Sprintf("{\n  \"%s\": \"%s\",\n  \"n\": 1\n}", key, rndToken),
			fmt.Sprintf(`[{"nested":{"%s" : "%s"}}]`, key, rndToken),
		} {
			lits := InNode(httpNode(map[string]any{"body": body}))
			if len(lits) != 1 || lits[0].Path != "/body" || lits[0].Key != key || lits[0].value != rndToken {
				t.Fatalf("%s in %s: %+v", key, body, lits)
			}
		}
	}
}

func TestFindsTokensByForm(t *testing.T) {
	for _, tok := range []string{ghToken, skToken, "xoxb-1234567890-abcdefGHIJKLmnop", "AKIAIOSFODNN7EXAMPLE", "glpat-x8Yz3Kq9Lm2Np5Rs7Tv1", "github_pat_11ABCDEFG0abcdefghij1234567890", rndToken} {
		for _, cmd := range []string{"curl -H 'Authorization: Bearer " + tok + "' https://x", "export T=" + tok + " && run", tok, "echo {{a.b}} " + tok, "echo {{ unclosed " + tok} {
			lits := InNode(toolNode("run_command", map[string]any{"command": cmd}))
			if len(lits) != 1 || lits[0].value != tok || lits[0].Path != "/command" {
				t.Fatalf("%q: %+v", cmd, lits)
			}
		}
	}
}

func TestIgnoresReferencesAndOrdinaryText(t *testing.T) {
	quiet := []map[string]any{
		{"headers": map[string]any{"Authorization": "Bearer {{secrets.API_TOKEN}}", "Accept": "application/json"}},
		{"headers": map[string]any{"Cookie": "{{login.outputs.cookie}}"}},
		{"url": "https://api.example.com/v1/items?api_key={{secrets.KEY}}&page=2"},
		{"url": "https://api.example.com/items/550e8400-e29b-41d4-a716-446655440000"},
		{"body": `{"sort_key":"name","primary_key":"id","token_count":"12","token_url":"https://auth.example.com/oauth/token","password_length":"16","note":"hello world"}`},
		{"body": "The quick brown fox jumps over the lazy dog again and again"},
		{"url": "https://example.com/build-3f9a1c0e2b7d4a6f8e1c3b5d7f9a2c4e6b8d0f1a.tar.gz"},
		{"url": "https://example.com/blob/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"url": "https://github.com/weft-dev/weft/blob/main/backend/literals/ThisIsALongFileName2.go"},
	}
	for _, args := range quiet {
		if lits := InNode(httpNode(args)); len(lits) != 0 {
			t.Errorf("%v: found %+v", args, lits)
		}
	}
	for _, cmd := range []string{"sha256sum file && echo e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "echo {{secrets.GITHUB_TOKEN}} | gh auth login --with-token", "ls -la /tmp/SomeDirectory/AnotherDirectoryName"} {
		if lits := InNode(toolNode("run_command", map[string]any{"command": cmd})); len(lits) != 0 {
			t.Errorf("%q: found %+v", cmd, lits)
		}
	}
}

func TestSuggestedNames(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"api_token", rndToken, "API_TOKEN"}, {"X-Api-Key", rndToken, "X_API_KEY"}, {"Authorization", ghToken, "GITHUB_TOKEN"},
		{"Authorization", rndToken, "API_TOKEN"}, {"", "xoxb-1", "SLACK_TOKEN"}, {"2fa-secret", "x", "_2FA_SECRET"},
	} {
		if got := suggest(c.key, c.value); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

func FuzzInNode(f *testing.F) {
	f.Add("Authorization", "Bearer "+rndToken)
	f.Add("body", `{"password":"x\"y"}`)
	f.Fuzz(func(t *testing.T, key, value string) {
		n := toolNode("run_command", map[string]any{key: value, "list": []any{value, map[string]any{key: value}}})
		for _, l := range InNode(n) {
			if l.value == "" || strings.Contains(l.Masked, l.value) && len(l.value) > 3 {
				t.Fatalf("literal %+v", l)
			}
			// Every literal found can be moved: its raw text is in the string at its path.
			args := workflow.CloneValue(map[string]any(n.Params.Arguments)).(map[string]any)
			if err := replaceAt(args, l.Path, l.raw, "{{secrets.X}}"); err != nil {
				t.Fatalf("literal %+v: %v", l, err)
			}
		}
	})
}
