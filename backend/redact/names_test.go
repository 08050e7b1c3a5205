package redact

import (
	"encoding/base64"
	"testing"
)

func TestSensitiveName(t *testing.T) {
	cases := map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
		"X-Api-Key": true, "X-Auth-Token": true, "x-csrf-token": true, "X-Hub-Signature": true,
		"WEFT_LLM_API_KEY": true, "GITHUB_PERSONAL_ACCESS_TOKEN": true, "PGPASSWORD": true,
		"DB_PASSWD": true, "AWS_SECRET_ACCESS_KEY": true, "OPENAI_APIKEY": true, "accessToken": true,
		"Content-Type": false, "Keep-Alive": false, "WEFT_KEYRING": false, "MONKEY_PATH": false,
		"HOME": false, "PATH": false, "NODE_ENV": false, "WEFT_LLM_MODEL": false, "": false,
		"Accept": false, "User-Agent": false, "X-Request-Id": false,
	}
	for name, want := range cases {
		if got := SensitiveName(name); got != want {
			t.Errorf("SensitiveName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestAddHeader(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter2-long"))
	cases := []struct {
		name, header, value string
		registered          bool
		leaks               []string // each must be redacted afterwards
		kept                string   // must survive
	}{
		{"bearer", "Authorization", "Bearer abc123def456", true, []string{"Bearer abc123def456", "abc123def456"}, "Bearer"},
		{"basic", "Authorization", "Basic " + basic, true, []string{basic, "alice:hunter2-long", "hunter2-long"}, "alice"},
		{"cookie", "Cookie", "sid=s3ss10nvalue; theme=dark; csrf=\"q1w2e3r4t5\"", true, []string{"s3ss10nvalue", "q1w2e3r4t5"}, "theme=dark"},
		{"api key", "X-Api-Key", "  k-9876543210  ", true, []string{"k-9876543210"}, ""},
		{"not sensitive", "Content-Type", "application/json", false, nil, "application/json"},
		{"short value", "X-Auth-Token", "abc", true, nil, "abc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			if got := r.AddHeader(tc.header, tc.value); got != tc.registered {
				t.Errorf("AddHeader = %v", got)
			}
			for _, l := range tc.leaks {
				if out := r.String("x " + l + " y"); out != "x [REDACTED] y" {
					t.Errorf("%q not redacted: %q", l, out)
				}
			}
			if tc.kept != "" && r.String(tc.kept) != tc.kept {
				t.Errorf("%q should survive", tc.kept)
			}
		})
	}
}

func TestAddURL(t *testing.T) {
	r := New()
	if !r.AddURL("https://bob:pa55w0rd-x@example.com/p?api_key=qwerty12345&page=200000") {
		t.Fatal("credentials not found")
	}
	for _, leak := range []string{"pa55w0rd-x", "qwerty12345"} {
		if r.String(leak) != Placeholder {
			t.Errorf("%q not registered", leak)
		}
	}
	if r.String("page=200000") != "page=200000" {
		t.Error("an ordinary query value was registered")
	}
	if r.AddURL("https://example.com/?q=hello") || r.AddURL("::not a url") {
		t.Error("a URL without credentials reported some")
	}
}
