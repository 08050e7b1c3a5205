package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/quote"
)

// ---- http_request ----

var httpTransport = http.DefaultTransport.(*http.Transport).Clone()

func httpRequest(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"http_request", c.Args}
	if err := a.only("method", "url", "headers", "body", "ok_status", "follow_redirects", "save_to"); err != nil {
		return nil, err
	}
	okStatus, _, err := a.intList("ok_status", 100, 599)
	if err != nil {
		return nil, err
	}
	method, err := a.str("method", true)
	if err != nil {
		return nil, err
	}
	method = strings.ToUpper(strings.TrimSpace(method))
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		return nil, argErrorf("http_request: the method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", method)
	}
	raw, err := a.str("url", true)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, argErrorf("http_request: %q is not an http or https URL", raw)
	}
	body, err := a.str("body", false)
	if err != nil {
		return nil, err
	}
	redirects, err := parseRedirectRule(c.Args["follow_redirects"])
	if err != nil {
		return nil, err
	}
	saveTo, err := a.str("save_to", false)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultHTTPWait)
		defer cancel()
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, argErrorf("http_request: %v", err)
	}
	switch h := c.Args["headers"].(type) {
	case nil:
	case map[string]any:
		for k, v := range h {
			// Templates insert data into headers as is: a line break left
			// after rendering (or in a model's tool call) would add headers.
			if err := quote.Header(k, toText(v)); err != nil {
				return nil, argErrorf("http_request: %v", err)
			}
			req.Header.Set(k, toText(v))
		}
	default:
		return nil, argErrorf("http_request: headers must be an object of strings")
	}
	client := &http.Client{Transport: httpTransport, CheckRedirect: redirects.check(req.URL, c.Redirect)}
	resp, err := client.Do(req)
	if err != nil {
		var re *RedirectError
		if errors.As(err, &re) {
			return nil, re
		}
		var se *SecretError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, fmt.Errorf("http_request: %w", err)
	}
	defer resp.Body.Close()
	out := map[string]any{"status": resp.StatusCode, "headers": headerOutputs(resp.Header)}
	failed := httpFailed(okStatus, resp.StatusCode)
	if saveTo != "" && !failed {
		p := resolve(c.Dir, saveTo)
		size, sum, err := saveBody(ctx, resp.Body, p)
		if err != nil {
			return out, err
		}
		out["path"], out["size"], out["sha256"] = p, size, sum
		return out, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxHTTPBody+1))
	if err != nil {
		return nil, fmt.Errorf("http_request: reading the response: %w", err)
	}
	if len(b) > MaxHTTPBody {
		b = wholeRunes(b[:MaxHTTPBody])
		markCut(out, "body", whyHTTPBody)
	}
	text := string(b)
	out["body"] = text
	if failed {
		return out, &HTTPStatusError{Status: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), Body: text}
	}
	return out, nil
}

// saveBody streams a response body to path, whole, without the body cap:
// into a temp file beside path, renamed over it once every byte arrived.
// A cancel, a timeout or a failed read leaves what was at path before
// (or nothing), never part of a body. It returns the size and SHA-256.
func saveBody(ctx context.Context, body io.Reader, path string) (size int64, sum string, err error) {
	dir := filepath.Dir(path)
	perm := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return 0, "", argErrorf("http_request: save_to %s is a folder", path)
		}
		perm = st.Mode().Perm()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".weft-download-*")
	if err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	h := sha256.New()
	// The body's reads end when ctx does (the request carries it).
	size, err = io.Copy(io.MultiWriter(f, h), body)
	if err == nil {
		err = ctx.Err() // a cancel that came as the last byte did
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("http_request: saving to %s stopped after %d bytes: %w", path, size, ctx.Err())
		} else {
			err = fmt.Errorf("http_request: saving to %s: reading the response after %d bytes: %w", path, size, err)
		}
		return 0, "", err
	}
	if err = f.Sync(); err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	if err = f.Close(); err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return 0, "", fmt.Errorf("http_request: save_to: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort, as atomicfile does
		d.Close()
	}
	return size, hex.EncodeToString(h.Sum(nil)), nil
}
