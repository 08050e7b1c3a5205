package literals

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/workflow"
)

// Store is what a move needs of the credentials store.
type Store interface {
	Get(name string) (credentials.Secret, error)
	Set(sec credentials.Secret) error
}

// Move says which literal goes where: the first literal found at Path in
// the node NodeID's arguments becomes the secret Name, bound to Hosts and
// Tools (both empty: the URL's host for an http_request, the tool itself
// otherwise).
type Move struct {
	NodeID string `json:"node_id"`
	Path   string `json:"path"`
	// Key, when given, picks the literal written under that name among
	// those at Path (a URL with an api_key and a password).
	Key   string   `json:"key,omitempty"`
	Name  string   `json:"name"`
	Hosts []string `json:"hosts,omitempty"`
	Tools []string `json:"tools,omitempty"`

	lit *Literal // set by MoveOf: this literal, not the first at Path
}

// MoveOf is a Move of exactly lit (one of several at its path) to name.
func MoveOf(lit Literal, name string) Move {
	return Move{NodeID: lit.NodeID, Path: lit.Path, Name: name, lit: &lit}
}

// ErrNoLiteral is returned when no literal credential is where a Move says.
var ErrNoLiteral = errors.New("no literal credential there")

// Apply stores the literal m names as a secret and returns a copy of w in
// which that string has the reference {{secrets.NAME}} in place of the
// credential (only its secret part: an Authorization header keeps its
// scheme word). w is not changed. The value goes to the store and nowhere
// else; a secret of that name already holding another value is refused
// (it is never replaced), one holding the same value is reused as it is.
func Apply(store Store, w *workflow.Workflow, m Move) (*workflow.Workflow, credentials.Secret, error) {
	if w == nil {
		return nil, credentials.Secret{}, errors.New("move to secrets: no workflow")
	}
	if err := credentials.ValidName(m.Name); err != nil {
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %w", err)
	}
	idx := -1
	for i := range w.Nodes {
		if w.Nodes[i].ID == m.NodeID {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: no node %q", m.NodeID)
	}
	n := &w.Nodes[idx]
	lit := m.lit
	for _, l := range InNode(n) {
		if lit != nil {
			break
		}
		if l.Path == m.Path && (m.Key == "" || l.Key == m.Key) {
			lit = &l
		}
	}
	if lit == nil {
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %s of %q: %w", m.Path, m.NodeID, ErrNoLiteral)
	}
	sec := credentials.Secret{Name: m.Name, Hosts: m.Hosts, Tools: m.Tools, Value: lit.value}
	if len(sec.Hosts) == 0 && len(sec.Tools) == 0 {
		h, t, err := defaultBinding(n)
		if err != nil {
			return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %w", err)
		}
		sec.Hosts, sec.Tools = h, t
	}
	args := workflow.CloneValue(map[string]any(n.Params.Arguments)).(map[string]any)
	ref := "{{secrets." + m.Name + "}}"
	if err := replaceAt(args, m.Path, lit.raw, ref); err != nil {
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %w", err)
	}
	switch old, err := store.Get(m.Name); {
	case err == nil && old.Value != lit.value:
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: a secret named %s already holds another value; choose another name (it is never replaced here)", m.Name)
	case err == nil:
		sec = old // the same value: reuse it with its bindings
	case errors.Is(err, credentials.ErrNotFound):
		if err := store.Set(sec); err != nil {
			return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %w", err)
		}
	default:
		return nil, credentials.Secret{}, fmt.Errorf("move to secrets: %w", err)
	}
	out := *w
	out.Nodes = append([]workflow.Node(nil), w.Nodes...)
	out.Nodes[idx].Params.Arguments = args
	sec.Value = ""
	return &out, sec, nil
}

// defaultBinding is where a moved secret may go when the user names no
// place: the host of an http_request's URL, or the tool that takes it.
func defaultBinding(n *workflow.Node) (hosts, tools []string, err error) {
	if n.Params.Tool != "http_request" {
		return nil, []string{n.Params.Tool}, nil
	}
	raw, _ := n.Params.Arguments["url"].(string)
	u, perr := url.Parse(strings.TrimSpace(raw))
	if perr != nil || u.Host == "" || strings.Contains(u.Host, "{{") {
		return nil, nil, fmt.Errorf("the URL of %q names no fixed host: say which hosts the secret may be sent to", n.ID)
	}
	h, err := credentials.NormalizeHost(u.Host)
	if err != nil {
		return nil, nil, err
	}
	return []string{h}, nil, nil
}

// replaceAt replaces every raw in the string at the JSON pointer path of
// args with ref.
func replaceAt(args map[string]any, path, raw, ref string) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("argument path %q: not a JSON pointer", path)
	}
	segs := strings.Split(path[1:], "/")
	var x any = args
	for _, s := range segs[:len(segs)-1] {
		if x = child(x, unescapePointer(s)); x == nil {
			return fmt.Errorf("argument path %q: nothing at %q", path, s)
		}
	}
	last := unescapePointer(segs[len(segs)-1])
	str, ok := child(x, last).(string)
	if !ok || !strings.Contains(str, raw) {
		return fmt.Errorf("argument path %q: %w", path, ErrNoLiteral)
	}
	str = strings.ReplaceAll(str, raw, ref)
	switch p := x.(type) {
	case map[string]any:
		p[last] = str
	case []any:
		k, _ := strconv.Atoi(last)
		p[k] = str
	}
	return nil
}

// child is the member or element s of x, or nil.
func child(x any, s string) any {
	switch p := x.(type) {
	case map[string]any:
		return p[s]
	case []any:
		if k, err := strconv.Atoi(s); err == nil && k >= 0 && k < len(p) {
			return p[k]
		}
	}
	return nil
}

// FreeName is lit's suggested name, or that name with _2, _3… when the
// store holds another value under it, so that taking every suggestion
// never refuses a move nor replaces a secret.
func FreeName(store Store, lit Literal) string {
	name := lit.Suggested
	for i := 2; i < 100; i++ {
		old, err := store.Get(name)
		if err != nil || old.Value == lit.value {
			return name
		}
		suffix := "_" + strconv.Itoa(i)
		base := lit.Suggested
		if len(base)+len(suffix) > 64 {
			base = base[:64-len(suffix)]
		}
		name = base + suffix
	}
	return name
}
