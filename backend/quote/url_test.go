package quote

import (
	"net/url"
	"strings"
	"testing"
)

func buildURL(tmpl string, values ...string) (string, error) {
	var u URL
	parts := strings.Split(tmpl, "§")
	for i, p := range parts {
		u.Literal(p)
		if i < len(parts)-1 {
			if err := u.Value(values[i%len(values)]); err != nil {
				return u.String(), err
			}
		}
	}
	return u.String(), nil
}

func TestURL(t *testing.T) {
	const v = "a b/../c?d=e&f#g%h+i"
	cases := []struct{ name, tmpl, want, wantErr string }{
		{"path segment", "https://api.test/users/§/profile", "https://api.test/users/a%20b%2F..%2Fc%3Fd=e&f%23g%25h+i/profile", ""},
		{"query value", "https://api.test/search?q=§&n=1", "https://api.test/search?q=a+b%2F..%2Fc%3Fd%3De%26f%23g%25h%2Bi&n=1", ""},
		{"query key", "https://api.test/?§=1", "https://api.test/?a+b%2F..%2Fc%3Fd%3De%26f%23g%25h%2Bi=1", ""},
		{"fragment", "https://api.test/x#§", "https://api.test/x#a%20b%2F..%2Fc%3Fd=e&f%23g%25h+i", ""},
		{"port and path", "http://localhost:8080/§", "http://localhost:8080/a%20b%2F..%2Fc%3Fd=e&f%23g%25h+i", ""},
		{"query right after host", "https://api.test?q=§", "https://api.test?q=a+b%2F..%2Fc%3Fd%3De%26f%23g%25h%2Bi", ""},
		{"host", "https://§/x", "", "scheme or host"},
		{"host suffix", "https://api.§.test/x", "", "scheme or host"},
		{"port", "https://api.test:§/x", "", "scheme or host"},
		{"user info", "https://§@api.test/x", "", "scheme or host"},
		{"scheme", "§://api.test/x", "", "scheme or host"},
		{"before the scheme ends", "https:§//api.test/x", "", "scheme or host"},
		{"whole URL with text", "§/x", "", "scheme or host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := buildURL(c.tmpl, v)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got  %q, %v\nwant %q", got, err, c.want)
			}
		})
	}
}

// TestURLValuesStayInTheirPart parses every URL built from hostile values
// and checks each value comes back whole from the part it was put in.
func TestURLValuesStayInTheirPart(t *testing.T) {
	for _, v := range append(hostile, ".", "..", "../..", "/", "?", "#", "&", "=", "%zz", "%2F", "a b") {
		s, err := buildURL("https://api.test/a/§/b?k=§&z=1#§", v)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%q: %q does not parse: %v", v, s, err)
		}
		if u.Host != "api.test" {
			t.Errorf("%q: host %q", v, u.Host)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 4 || segs[1] != "a" || segs[3] != "b" {
			t.Fatalf("%q: path %q has the wrong segments", v, u.EscapedPath())
		}
		if seg, err := url.PathUnescape(segs[2]); err != nil || seg != v {
			t.Errorf("%q: the path segment reads back as %q (%v)", v, seg, err)
		}
		if segs[2] == "." || segs[2] == ".." {
			t.Errorf("%q: a dot segment in the path", v)
		}
		q := u.Query()
		if len(q) != 2 || q.Get("k") != v || q.Get("z") != "1" {
			t.Errorf("%q: the query reads back as %v", v, q)
		}
		if u.Fragment != v {
			t.Errorf("%q: the fragment reads back as %q", v, u.Fragment)
		}
	}
}

func TestURLRaw(t *testing.T) {
	var u URL
	u.Raw("https://api.test/v1")
	u.Literal("/items/")
	if err := u.Value("a/b"); err != nil || u.String() != "https://api.test/v1/items/a%2Fb" {
		t.Errorf("got %q, %v", u.String(), err)
	}
}

func TestWholeURL(t *testing.T) {
	for _, ok := range []string{"https://api.test", "http://localhost:8080/x?y=1#z", "https://user@api.test/a%2Fb"} {
		if got, err := WholeURL(ok); err != nil || got != ok {
			t.Errorf("WholeURL(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{"", "api.test/x", "/x", "file:///etc/passwd", "ftp://x", "javascript:alert(1)", "https://", "https://api.test/\nHost: x", "https://api.test/ x\r"} {
		if _, err := WholeURL(bad); err == nil {
			t.Errorf("WholeURL(%q): want an error", bad)
		}
	}
}

func TestHeader(t *testing.T) {
	if err := Header("Authorization", "Bearer abc def"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct{ name, value string }{
		{"X-A", "v\r\nX-Injected: 1"}, {"X-A", "v\nX-Injected: 1"}, {"X-A", "v\r"}, {"X-A", "v\x00"},
		{"X-A\r\nX-B", "v"}, {"X-A:", "v"}, {"", "v"}, {" X-A", "v"},
	} {
		err := Header(c.name, c.value)
		if err == nil {
			t.Errorf("Header(%q, %q): want an error", c.name, c.value)
		} else if c.name != "" && !strings.Contains(err.Error(), "X-A") {
			t.Errorf("Header(%q, %q): %v does not name the header", c.name, c.value, err)
		}
	}
}

func TestPlaceholder(t *testing.T) {
	cases := []struct {
		in, expr string
		raw      bool
	}{
		{"fetch.body", "fetch.body", false},
		{" fetch.body ", "fetch.body", false},
		{"raw fetch.body", "fetch.body", true},
		{"  raw\tfetch.body ", "fetch.body", true},
		{"raw  len(x.y)", "len(x.y)", true},
		{"raw.stdout", "raw.stdout", false},
		{"raw", "raw", false},
		{" raw ", "raw", false},
		{"rawx.y", "rawx.y", false},
		{"Raw x.y", "Raw x.y", false},
	}
	for _, c := range cases {
		expr, raw := Placeholder(c.in)
		if expr != c.expr || raw != c.raw {
			t.Errorf("Placeholder(%q) = %q, %v; want %q, %v", c.in, expr, raw, c.expr, c.raw)
		}
	}
}

func TestTrimLineEnd(t *testing.T) {
	for in, want := range map[string]string{"a\n": "a", "a\r\n\n": "a", "a\nb\n": "a\nb", "\n": "", "a": "a", "a \n": "a "} {
		if got := TrimLineEnd(in); got != want {
			t.Errorf("TrimLineEnd(%q) = %q, want %q", in, got, want)
		}
	}
}
