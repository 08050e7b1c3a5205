package literals

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/workflow"
)

type mapStore map[string]credentials.Secret

func (m mapStore) Get(name string) (credentials.Secret, error) {
	s, ok := m[name]
	if !ok {
		return credentials.Secret{}, fmt.Errorf("secret %s: %w", name, credentials.ErrNotFound)
	}
	return s, nil
}

func (m mapStore) Set(s credentials.Secret) error { m[s.Name] = s; return nil }

func wfOf(n *workflow.Node) *workflow.Workflow {
	return &workflow.Workflow{ID: "w", Nodes: []workflow.Node{*n}}
}

func TestApplyMovesOnlyTheSecretPart(t *testing.T) {
	cases := []struct {
		node       *workflow.Node
		path, want string
		hosts      []string
		tools      []string
	}{
		{httpNode(map[string]any{"headers": map[string]any{"Authorization": "Bearer " + rndToken}}), "/headers/Authorization", "Bearer {{secrets.T}}", []string{"api.example.com"}, nil},
		{httpNode(map[string]any{"url": "https://api.example.com:8443/v1?page=2&api_key=" + rndToken + "&q=x"}), "/url", "https://api.example.com:8443/v1?page=2&api_key={{secrets.T}}&q=x", []string{"api.example.com:8443"}, nil},
		{httpNode(map[string]any{"body": `{"user":"ann","password":"` + rndToken + `"}`}), "/body", `{"user":"ann","password":"{{secrets.T}}"}`, []string{"api.example.com"}, nil},
		{toolNode("run_command", map[string]any{"command": "gh api -H 'X: " + ghToken + "' /user"}), "/command", "gh api -H 'X: {{secrets.T}}' /user", nil, []string{"run_command"}},
	}
	for _, c := range cases {
		w := wfOf(c.node)
		before := fmt.Sprint(w.Nodes[0].Params.Arguments)
		store := mapStore{}
		out, sec, err := Apply(store, w, Move{NodeID: "n1", Path: c.path, Name: "T"})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if fmt.Sprint(w.Nodes[0].Params.Arguments) != before {
			t.Errorf("%s: the given workflow changed", c.path)
		}
		got := lookup(out.Nodes[0].Params.Arguments, c.path)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
		stored := store["T"]
		if stored.Value == "" || strings.Contains(got, stored.Value) || fmt.Sprint(stored.Hosts) != fmt.Sprint(c.hosts) || fmt.Sprint(stored.Tools) != fmt.Sprint(c.tools) {
			t.Errorf("%s: stored %+v", c.path, stored)
		}
		if sec.Value != "" {
			t.Errorf("returned secret carries its value")
		}
		if InNode(&out.Nodes[0]) != nil {
			t.Errorf("%s: a literal is left: %+v", c.path, InNode(&out.Nodes[0]))
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	n := httpNode(map[string]any{"headers": map[string]any{"Authorization": "Bearer " + rndToken}})
	store := mapStore{"T": {Name: "T", Value: "other"}}
	if _, _, err := Apply(store, wfOf(n), Move{NodeID: "n1", Path: "/headers/Authorization", Name: "T"}); err == nil || store["T"].Value != "other" {
		t.Fatalf("replaced another secret: %v", err)
	}
	store = mapStore{"T": {Name: "T", Value: rndToken, Hosts: []string{"x.example.com"}}}
	if _, sec, err := Apply(store, wfOf(n), Move{NodeID: "n1", Path: "/headers/Authorization", Name: "T"}); err != nil || sec.Hosts[0] != "x.example.com" {
		t.Fatalf("same value not reused: %v %+v", err, sec)
	}
	for _, m := range []Move{
		{NodeID: "n1", Path: "/headers/Accept", Name: "T"},
		{NodeID: "nope", Path: "/headers/Authorization", Name: "T"},
		{NodeID: "n1", Path: "/headers/Authorization", Name: "1bad"},
	} {
		if _, _, err := Apply(mapStore{}, wfOf(n), m); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
	templ := httpNode(map[string]any{"url": "https://{{host.out}}/x", "headers": map[string]any{"Authorization": "Bearer " + rndToken}})
	if _, _, err := Apply(mapStore{}, wfOf(templ), Move{NodeID: "n1", Path: "/headers/Authorization", Name: "T"}); err == nil {
		t.Error("no host to bind to, yet moved")
	}
	if _, _, err := Apply(mapStore{}, wfOf(n), Move{NodeID: "n1", Path: "/headers/Accept", Name: "T"}); !errors.Is(err, ErrNoLiteral) {
		t.Errorf("%v", err)
	}
}

func lookup(args map[string]any, path string) string {
	var x any = args
	for _, s := range strings.Split(path[1:], "/") {
		x = child(x, unescapePointer(s))
	}
	s, _ := x.(string)
	return s
}

func TestApplyPicksByKey(t *testing.T) {
	n := httpNode(map[string]any{"url": "https://u:" + ghToken + "@api.example.com/v1?api_key=" + rndToken})
	lits := InNode(n)
	if len(lits) != 2 || lits[0].Path != lits[1].Path {
		t.Fatalf("%+v", lits)
	}
	for _, l := range lits {
		if l.Key == "" {
			continue
		}
		store := mapStore{}
		out, _, err := Apply(store, wfOf(n), Move{NodeID: "n1", Path: l.Path, Key: l.Key, Name: "K"})
		if err != nil {
			t.Fatal(err)
		}
		if store["K"].Value != rndToken || lookup(out.Nodes[0].Params.Arguments, "/url") != "https://u:"+ghToken+"@api.example.com/v1?api_key={{secrets.K}}" {
			t.Fatalf("moved %q: %s", store["K"].Value[:4], lookup(out.Nodes[0].Params.Arguments, "/url"))
		}
	}
}
