package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/redact/redacttest"
)

const key = "sk-test-0123456789abcdef"

func TestString(t *testing.T) {
	pem := "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END KEY-----"
	cases := []struct {
		name    string
		secrets []string
		input   string
		want    string
	}{
		{"no secrets", nil, "token " + key, "token " + key},
		{"plain", []string{key}, "Authorization: Bearer " + key + " sent", "Authorization: Bearer [REDACTED] sent"},
		{"twice", []string{key}, key + "," + key, "[REDACTED],[REDACTED]"},
		{"whole text", []string{key}, key, "[REDACTED]"},
		{"surrounding space ignored", []string{"  " + key + "\n"}, "k=" + key + ".", "k=[REDACTED]."},
		{"too short to register", []string{"abc12"}, "abc12 abc12", "abc12 abc12"},
		{"part of the placeholder", []string{"REDACTED"}, "REDACTED", "REDACTED"},
		{"overlapping secrets merge", []string{"abcdef12", "ef123456"}, "xabcdef123456y", "x[REDACTED]y"},
		{"adjacent secrets merge", []string{"abcdef", "ghijkl"}, "abcdefghijkl", "[REDACTED]"},
		{"secret inside another", []string{"secret-value-long", "value-long"}, "a value-long b secret-value-long", "a [REDACTED] b [REDACTED]"},
		{"JSON escaped", []string{`pa"ss\word`}, `{"error":"bad pa\"ss\\word"}`, `{"error":"bad [REDACTED]"}`},
		{"JSON HTML escaped", []string{"a<b>&cdef"}, `"x a\u003cb\u003e\u0026cdef"`, `"x [REDACTED]"`},
		{"Go quoted", []string{"tab\there!"}, `arg "tab\there!" bad`, `arg "[REDACTED]" bad`},
		{"URL query escaped", []string{"p@ss w/rd&x"}, "https://h/?q=" + url.QueryEscape("p@ss w/rd&x"), "https://h/?q=[REDACTED]"},
		{"URL path escaped", []string{"p@ss w/rd&x"}, "https://h/" + url.PathEscape("p@ss w/rd&x"), "https://h/[REDACTED]"},
		{"base64 basic auth", []string{key}, "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+key)), ""},
		{"base64 aligned", []string{key}, base64.StdEncoding.EncodeToString([]byte(key)), ""},
		{"base64 url-safe", []string{key + "??>>"}, base64.URLEncoding.EncodeToString([]byte("x" + key + "??>>")), ""},
		{"multi-line line alone", []string{pem}, "line MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\r\n", "line [REDACTED]\r\n"},
		{"cut at the end", []string{key}, "token " + key[:12], "token [REDACTED]"},
		{"cut before an ellipsis", []string{key}, "token " + key[:12] + "…[12 more bytes]", "token [REDACTED]…[12 more bytes]"},
		{"cut before a newline ellipsis", []string{key}, "out " + key[:10] + "\n…[9 more bytes not captured]", "out [REDACTED]\n…[9 more bytes not captured]"},
		{"cut at the start", []string{key}, key[10:] + " tail", "[REDACTED] tail"},
		{"cut after an ellipsis", []string{key}, "[20 bytes before]…" + key[9:] + " end", "[20 bytes before]…[REDACTED] end"},
		{"short cut left alone", []string{key}, "token sk-tes", "token sk-tes"},
		{"unicode", []string{"pässwörd-ü"}, "x pässwörd-ü y", "x [REDACTED] y"},
		{"invalid UTF-8 around", []string{key}, "\xff" + key + "\xfe", "\xff[REDACTED]\xfe"},
		{"placeholder-shaped secret", []string{"D]xyzabc"}, key + "xyzabc", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(tc.secrets...)
			if tc.name == "placeholder-shaped secret" {
				r.Add(key)
			}
			got := r.String(tc.input)
			if tc.want != "" && got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.input, got, tc.want)
			}
			assertClean(t, r, got)
			if b := r.Bytes([]byte(tc.input)); string(b) != got {
				t.Errorf("Bytes = %q, String = %q", b, got)
			}
		})
	}
}

// assertClean fails if any searched form of any secret occurs in s.
func assertClean(t *testing.T, r *Redactor, s string) {
	t.Helper()
	st := r.load()
	if st == nil {
		return
	}
	for _, f := range st.forms {
		if strings.Contains(s, f.s) {
			t.Fatalf("output %q still holds %q", s, f.s)
		}
	}
}

func TestBase64CoversEveryAlignment(t *testing.T) {
	r := New(key)
	for pre := 0; pre < 6; pre++ {
		for post := 0; post < 4; post++ {
			raw := strings.Repeat("u", pre) + ":" + key + strings.Repeat("z", post)
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
				got := r.String("x " + enc.EncodeToString([]byte(raw)) + " y")
				if !strings.Contains(got, Placeholder) {
					t.Errorf("pre=%d post=%d: %q not redacted", pre, post, got)
				}
			}
		}
	}
}

func TestUnchangedReturnsSame(t *testing.T) {
	r := New(key)
	in := []byte("nothing secret here")
	if out := r.Bytes(in); &out[0] != &in[0] {
		t.Error("Bytes copied a text with no secret")
	}
	var nilR *Redactor
	if nilR.String(key) != key || nilR.Add(key) != 0 || !nilR.Empty() || nilR.Contains(key) {
		t.Error("a nil Redactor must redact nothing and accept nothing")
	}
	var zero Redactor
	if zero.String(key) != key {
		t.Error("the zero Redactor must redact nothing")
	}
}

func TestAddAndClone(t *testing.T) {
	r := New(key, key, "short")
	if got := r.Secrets(); len(got) != 1 || got[0] != key {
		t.Fatalf("Secrets = %q", got)
	}
	if n := r.Add(key, "another-secret"); n != 1 {
		t.Errorf("Add counted %d new", n)
	}
	c := r.Clone()
	c.Add("only-in-clone")
	r.Add("only-in-original")
	if r.Contains("only-in-clone") || c.Contains("only-in-original") || !c.Contains(key) {
		t.Error("clones must share what was there and keep later additions apart")
	}
	if New().Clone().Empty() != true {
		t.Error("clone of empty is empty")
	}
	big := New()
	for i := 0; i < MaxSecrets+10; i++ {
		big.Add(fmt.Sprintf("secret-%06d", i))
	}
	if n := len(big.Secrets()); n != MaxSecrets {
		t.Errorf("held %d secrets, want the cap %d", n, MaxSecrets)
	}
	if New(strings.Repeat("x", MaxLen+1)).Empty() != true {
		t.Error("an over-long value was registered")
	}
}

func TestConcurrentAddAndRedact(t *testing.T) {
	r := New(key)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 200; i++ {
				s := fmt.Sprintf("runtime-token-%d-%d", g, i)
				r.Add(s)
				if got := r.String("a " + s + " " + key); strings.Contains(got, s) || strings.Contains(got, key) {
					t.Errorf("leaked in %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestValue(t *testing.T) {
	r := New(key)
	clean := map[string]any{"a": "x", "n": 1.0, "list": []any{"y", true}}
	if got := r.Value(clean); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", clean) {
		t.Error("a value with no secret was copied")
	}
	in := map[string]any{
		"stdout":  "KEY=" + key + "\n",
		"nested":  map[string]any{"deep": []any{"ok", "Bearer " + key}},
		"raw":     json.RawMessage(`{"token":"` + key + `"}`),
		"strs":    []string{key},
		"typed":   struct{ Token string }{key},
		key:       "a secret as a key",
		"err":     fmt.Errorf("failed with %s", key),
		"number":  42,
		"boolean": false,
	}
	out := r.Value(in).(map[string]any)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	assertClean(t, r, string(b))
	if in["stdout"] != "KEY="+key+"\n" {
		t.Error("Value changed its input")
	}
	if out["number"] != 42 || out["boolean"] != false {
		t.Errorf("scalars changed: %v", out)
	}
	if !json.Valid(out["raw"].(json.RawMessage)) {
		t.Error("raw JSON no longer valid")
	}
}

func TestError(t *testing.T) {
	r := New(key)
	base := fmt.Errorf("inner %s", key)
	err := r.Error(fmt.Errorf("outer: %w", base))
	if strings.Contains(err.Error(), key) {
		t.Errorf("Error() = %q", err)
	}
	if !isWrapped(err, base) {
		t.Error("the redacted error must still unwrap to the original")
	}
	plain := fmt.Errorf("nothing")
	if r.Error(plain) != plain || r.Error(nil) != nil {
		t.Error("errors without secrets must pass unchanged")
	}
}

func isWrapped(err, target error) bool {
	for err != nil {
		if err == target {
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestEveryEncoding: each form of a secret that redacttest lists, in a
// line of output, is replaced.
func TestEveryEncoding(t *testing.T) {
	for _, secret := range []string{key, "pässwörd-ünïcode", "tok/en+with=odd?chars&"} {
		r := New(secret)
		for name, enc := range redacttest.Encodings(secret) {
			got := r.String("out: " + enc + " done")
			if strings.Contains(got, enc) || !strings.Contains(got, Placeholder) {
				t.Errorf("%q as %s (%q): %q", secret, name, enc, got)
			}
		}
	}
}
