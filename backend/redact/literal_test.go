package redact

import "testing"

func TestAddLiterals(t *testing.T) {
	text := `{"key":"fetch_issues","sort_key":"created","headers":{"Cookie":"sid=cookie-value-123; theme=dark",` +
		`"Authorization":"Basic dXNlcjpodW50ZXIyMjI=","X-Api-Key":"{{secrets.API}}","X-API-KEY":"short-key"},"key2":"x",` +
		`"arguments":{"key":"AIzaSyA1b2c3d4e5f6g7h8","password":"pa\"ss-word"}}
Authorization: Bearer line-token-abcdef
Goal: fetch the password reset mails
see https://user:url-password@example.com/p?access_token=query-token-xyz&page=12345678`
	r := New()
	r.AddLiterals(text)
	got := map[string]bool{}
	for _, s := range r.Secrets() {
		got[s] = true
	}
	for _, want := range []string{"cookie-value-123", "hunter222", "user:hunter222", "AIzaSyA1b2c3d4e5f6g7h8",
		`pa"ss-word`, "line-token-abcdef", "short-key", "url-password", "query-token-xyz"} {
		if !got[want] {
			t.Errorf("%q not registered; have %q", want, r.Secrets())
		}
	}
	for _, not := range []string{"fetch_issues", "created", "{{secrets.API}}", "12345678", "fetch the password reset mails"} {
		if got[not] {
			t.Errorf("%q registered, but it is no credential", not)
		}
	}
}
