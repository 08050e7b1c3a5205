package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// LocalServer is a model server found on this machine by Discover.
type LocalServer struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
}

// Candidate is a place Discover looks for a model server.
type Candidate struct {
	Name    string `json:"name"`
	BaseURL string `json:"base_url"`
}

// LocalCandidates are the usual local servers' OpenAI-compatible
// endpoints, at their default ports.
var LocalCandidates = []Candidate{
	{Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1"},
	{Name: "LM Studio", BaseURL: "http://127.0.0.1:1234/v1"},
	{Name: "llama.cpp server", BaseURL: "http://127.0.0.1:8080/v1"},
	{Name: "vLLM", BaseURL: "http://127.0.0.1:8000/v1"},
}

// CandidatesEnv names an environment variable that replaces the list
// Discover probes: "Name=URL,Name=URL" (a server on another port, and the
// tests' fake server).
const CandidatesEnv = "WEFT_LOCAL_MODEL_SERVERS"

// DiscoverCandidates returns LocalCandidates, or the list CandidatesEnv
// gives.
func DiscoverCandidates() []Candidate {
	v := strings.TrimSpace(os.Getenv(CandidatesEnv))
	if v == "" {
		return LocalCandidates
	}
	var out []Candidate
	for _, item := range strings.Split(v, ",") {
		name, url, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			name, url = "model server", name
		}
		if url = strings.TrimSpace(url); url != "" {
			out = append(out, Candidate{Name: strings.TrimSpace(name), BaseURL: url})
		}
	}
	return out
}

// discoverTimeout bounds each probe: a local server answers at once, and
// the person is waiting.
const discoverTimeout = 1500 * time.Millisecond

// maxModelsBody bounds what a probe reads of an answer.
const maxModelsBody = 1 << 20

// Discover asks each candidate, at once, for GET {base}/models and returns
// those that answered with a model list, in the candidates' order. A
// candidate that does not answer, or answers something else, is left out:
// nothing is sent but the GET, and no key.
func Discover(ctx context.Context, candidates []Candidate) []LocalServer {
	found := make([]*LocalServer, len(candidates))
	var wg sync.WaitGroup
	client := &http.Client{Timeout: discoverTimeout}
	for i, c := range candidates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models, err := probeModels(ctx, client, c.BaseURL)
			if err == nil {
				found[i] = &LocalServer{Name: c.Name, BaseURL: strings.TrimRight(c.BaseURL, "/"), Models: models}
			}
		}()
	}
	wg.Wait()
	out := []LocalServer{}
	for _, f := range found {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

func probeModels(ctx context.Context, client *http.Client, base string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var list struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelsBody)).Decode(&list); err != nil || list.Data == nil {
		// Another web server on that port, not a model server.
		return nil, fmt.Errorf("not a model list: %v", err)
	}
	models := []string{}
	for _, m := range *list.Data {
		if m.ID != "" {
			models = append(models, m.ID)
		}
	}
	return models, nil
}
