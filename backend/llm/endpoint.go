package llm

import (
	"net"
	"strings"
)

// SameEndpoint reports whether two base URLs are one endpoint once
// normalised as New normalises them: same scheme, host (in any case) and
// port (a default port written or not), and path ("/v1" when there is
// none; a trailing slash or "/chat/completions" dropped). Credentials,
// query and fragment are never sent, so they do not count. A base URL New
// would refuse is no endpoint and the same as none.
func SameEndpoint(a, b string) bool {
	ka, ok := endpointKey(a)
	if !ok {
		return false
	}
	kb, ok := endpointKey(b)
	return ok && ka == kb
}

func endpointKey(raw string) (string, bool) {
	u, err := normalizeBaseURL(raw)
	if err != nil {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + host + u.Path, true
}

// StoredKey is an API key kept in the settings and the base URL it was
// saved with.
type StoredKey struct {
	Key     string
	BaseURL string
}

// KeyUse says whether a stored API key may go to an endpoint.
type KeyUse struct {
	// Stored is true when there is a key.
	Stored bool `json:"stored"`
	// Saved is true when the endpoint is the one the key is saved with,
	// so it goes there without asking.
	Saved bool `json:"saved"`
	// Host names the endpoint (host and port) when the person is asked
	// whether to send the key there, and Endpoint is its normalised URL.
	Host     string `json:"host"`
	Endpoint string `json:"endpoint"`
}

// Use says whether k may go to baseURL without asking.
func (k StoredKey) Use(baseURL string) KeyUse {
	use := KeyUse{Stored: strings.TrimSpace(k.Key) != ""}
	use.Saved = use.Stored && SameEndpoint(k.BaseURL, baseURL)
	if u, err := normalizeBaseURL(baseURL); err == nil {
		use.Host, use.Endpoint = u.Host, u.String()
	}
	return use
}

// For is the key a request to baseURL carries: the stored key when
// baseURL is the endpoint it is saved with, or when the person confirmed
// sending it there (confirmed); otherwise none, so a URL typed and not
// saved never receives a key meant for another server unasked.
func (k StoredKey) For(baseURL string, confirmed bool) string {
	if confirmed || k.Use(baseURL).Saved {
		return k.Key
	}
	return ""
}
