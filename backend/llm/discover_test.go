package llm_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

func TestDiscover(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithModels("qwen3:8b", "llama3.2"))
	notModels := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status": "ok"}`)) // another web server on a usual port
	}))
	defer notModels.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	// A port nothing listens on.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()

	got := llm.Discover(context.Background(), []llm.Candidate{
		{Name: "Nothing", BaseURL: closed},
		{Name: "Web", BaseURL: notModels.URL + "/v1"},
		{Name: "Missing", BaseURL: missing.URL + "/v1"},
		{Name: "Fake", BaseURL: srv.URL + "/"},
	})
	want := []llm.LocalServer{{Name: "Fake", BaseURL: srv.URL, Models: []string{"qwen3:8b", "llama3.2"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := llm.Discover(context.Background(), nil); got == nil || len(got) != 0 {
		t.Errorf("no candidates: %#v", got)
	}
}

func TestDiscoverCandidates(t *testing.T) {
	t.Setenv(llm.CandidatesEnv, "")
	if got := llm.DiscoverCandidates(); !reflect.DeepEqual(got, llm.LocalCandidates) || len(got) != 4 {
		t.Errorf("default: %+v", got)
	}
	t.Setenv(llm.CandidatesEnv, " Mine = http://127.0.0.1:9999/v1 , http://h:1/v1,")
	want := []llm.Candidate{{Name: "Mine", BaseURL: "http://127.0.0.1:9999/v1"}, {Name: "model server", BaseURL: "http://h:1/v1"}}
	if got := llm.DiscoverCandidates(); !reflect.DeepEqual(got, want) {
		t.Errorf("from the environment: %+v", got)
	}
}
