package llm

import "testing"

func TestSameEndpoint(t *testing.T) {
	const saved = "https://api.example.com/v1"
	for _, c := range []struct {
		target string
		same   bool
	}{
		{"https://api.example.com/v1", true},
		{"https://api.example.com/v1/", true},
		{"https://api.example.com/v1/chat/completions", true},
		{"https://API.Example.COM/v1", true},
		{"https://api.example.com:443/v1", true},
		{"  https://api.example.com/v1  ", true},
		{"https://user:pw@api.example.com/v1?x=1#f", true}, // never sent
		{"http://api.example.com/v1", false},               // another scheme: the key would go in clear
		{"https://api.example.com:8443/v1", false},         // another port
		{"https://api.example.com/v2", false},              // another path
		{"https://api.example.com/V1", false},              // paths differ by case
		{"https://api.example.com/v1/proxy", false},
		{"https://api.example.com.evil.test/v1", false},
		{"https://evil.test/api.example.com/v1", false},
		{"https://api.example.com@evil.test/v1", false},
		{"https://api.example.co/v1", false},
		{"", false},
		{"ftp://api.example.com/v1", false},
	} {
		if got := SameEndpoint(saved, c.target); got != c.same {
			t.Errorf("SameEndpoint(%q, %q) = %v", saved, c.target, got)
		}
		if got := SameEndpoint(c.target, saved); got != c.same {
			t.Errorf("SameEndpoint(%q, %q) = %v (not symmetric)", c.target, saved, got)
		}
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"localhost:11434", "http://localhost:11434/v1", true},
		{"http://localhost:11434", "http://localhost:11434/v1/", true},
		{"http://localhost", "http://localhost:80/v1", true},
		{"http://localhost:11434", "http://localhost:1234", false},
		{"http://localhost:11434", "http://127.0.0.1:11434", false}, // another name: asked
		{"http://[::1]:8080/v1", "http://[::1]:8080", true},
		{"http://[::1]/v1", "http://[::1]:80", true},
		{"http://[::1]:8080", "http://[::2]:8080", false},
		{"", "", false}, // nothing saved is no endpoint
	} {
		if got := SameEndpoint(c.a, c.b); got != c.same {
			t.Errorf("SameEndpoint(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestStoredKeyFor(t *testing.T) {
	k := StoredKey{Key: "sk-stored", BaseURL: "https://api.example.com/v1"}
	if got := k.For("https://api.example.com/v1/", false); got != "sk-stored" {
		t.Errorf("saved endpoint: %q", got)
	}
	if got := k.For("https://evil.test/v1", false); got != "" {
		t.Errorf("unsaved endpoint: %q", got)
	}
	if got := k.For("https://evil.test/v1", true); got != "sk-stored" {
		t.Errorf("confirmed: %q", got)
	}
	use := k.Use("https://evil.test:8443/v1/")
	if !use.Stored || use.Saved || use.Host != "evil.test:8443" || use.Endpoint != "https://evil.test:8443/v1" {
		t.Errorf("use %+v", use)
	}
	if use := (StoredKey{BaseURL: k.BaseURL}).Use(k.BaseURL); use.Stored || use.Saved {
		t.Errorf("no key: %+v", use)
	}
}
