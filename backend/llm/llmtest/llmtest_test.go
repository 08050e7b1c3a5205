package llmtest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm/llmtest"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

const plainReq = `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}]}],"max_completion_tokens":9,"temperature":0.5}`

func TestNonStreamingShape(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Text: "hello", Usage: &llmtest.Usage{PromptTokens: 3, CompletionTokens: 1}}))
	res, body := post(t, srv.URL+"/chat/completions", plainReq)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	var v struct {
		Object  string
		Model   string
		Choices []struct {
			Index        int
			FinishReason string `json:"finish_reason"`
			Message      struct{ Role, Content string }
		}
		Usage map[string]int
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if v.Object != "chat.completion" || v.Model != "m" || len(v.Choices) != 1 || v.Choices[0].Message.Content != "hello" ||
		v.Choices[0].Message.Role != "assistant" || v.Choices[0].FinishReason != "stop" ||
		v.Usage["prompt_tokens"] != 3 || v.Usage["completion_tokens"] != 1 || v.Usage["total_tokens"] != 4 {
		t.Fatalf("%+v", v)
	}
	req, _ := srv.LastRequest()
	if req.System() != "sys" || req.LastUser() != "hi there" || req.MaxTokens != 9 || *req.Temperature != 0.5 || req.Stream || req.N != 1 {
		t.Fatalf("%+v", req)
	}
}

// readSSE returns the data payloads of an event stream.
func readSSE(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestStreamingShape(t *testing.T) {
	for _, includeUsage := range []bool{true, false} {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Text: "one two", Usage: &llmtest.Usage{PromptTokens: 5, CompletionTokens: 2}}))
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`
		if includeUsage {
			body = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`
		}
		res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		data := readSSE(t, res.Body)
		res.Body.Close()
		if data[len(data)-1] != "[DONE]" {
			t.Fatalf("last %q", data[len(data)-1])
		}
		var text strings.Builder
		finish := ""
		var usage map[string]int
		for _, d := range data[:len(data)-1] {
			var c struct {
				Object  string
				Choices []struct {
					Delta        struct{ Role, Content string }
					FinishReason *string `json:"finish_reason"`
				}
				Usage map[string]int
			}
			if err := json.Unmarshal([]byte(d), &c); err != nil {
				t.Fatal(err)
			}
			if c.Object != "chat.completion.chunk" {
				t.Fatalf("object %q", c.Object)
			}
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
			if c.Usage != nil {
				if len(c.Choices) != 0 {
					t.Fatalf("usage chunk with choices: %s", d)
				}
				usage = c.Usage
			}
		}
		if text.String() != "one two" || finish != "stop" {
			t.Fatalf("text %q finish %q", text.String(), finish)
		}
		if includeUsage != (usage != nil) || (usage != nil && usage["total_tokens"] != 7) {
			t.Fatalf("include_usage %v, usage %v", includeUsage, usage)
		}
		if req, _ := srv.LastRequest(); !req.Stream || req.IncludeUsage != includeUsage {
			t.Fatalf("%+v", req)
		}
	}
}

func TestToolCallShape(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.ToolCallReply(llmtest.ToolCall{Name: "f", Arguments: `{"a":1}`})))
	_, body := post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"required"}`)
	var v struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   *string
				ToolCalls []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	m := v.Choices[0].Message
	if v.Choices[0].FinishReason != "tool_calls" || m.Content != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID == "" ||
		m.ToolCalls[0].Type != "function" || m.ToolCalls[0].Function.Name != "f" || m.ToolCalls[0].Function.Arguments != `{"a":1}` {
		t.Fatalf("%s", body)
	}
	req, _ := srv.LastRequest()
	if len(req.Tools) != 1 || req.Tools[0].Name != "f" || string(req.ToolChoice) != `"required"` {
		t.Fatalf("%+v", req)
	}
}

func TestFaultsAndExhaustion(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(
		llmtest.RateLimit("3"),
		llmtest.Step{Status: 503, Body: "plain text", Header: map[string]string{"X-Extra": "1"}},
	))
	res, body := post(t, srv.URL+"/chat/completions", plainReq)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "3" || !strings.Contains(body, `"message":"rate limited"`) {
		t.Fatalf("%d %v %s", res.StatusCode, res.Header, body)
	}
	res, body = post(t, srv.URL+"/chat/completions", plainReq)
	if res.StatusCode != 503 || body != "plain text" || res.Header.Get("X-Extra") != "1" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	res, body = post(t, srv.URL+"/chat/completions", plainReq)
	if res.StatusCode != 500 || !strings.Contains(body, "script exhausted (2 steps used)") || res.Header.Get("X-Should-Retry") != "false" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if srv.Calls() != 3 || srv.Pending() != 0 {
		t.Fatalf("calls %d pending %d", srv.Calls(), srv.Pending())
	}
	// Malformed JSON is answered 400 and still recorded.
	res, _ = post(t, srv.URL+"/chat/completions", `{"model":`)
	if res.StatusCode != 400 || srv.Calls() != 4 {
		t.Fatalf("%d calls %d", res.StatusCode, srv.Calls())
	}
}

func TestDropAndHang(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Drop(), llmtest.Hang()))
	if _, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(plainReq)); err == nil {
		t.Fatal("dropped connection gave a response")
	}
	c := &http.Client{Timeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := c.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(plainReq)); err == nil {
		t.Fatal("hang gave a response")
	}
	if time.Since(start) > time.Second {
		t.Fatal("slow")
	}
}

func TestCloseReleasesHangingRequests(t *testing.T) {
	srv := llmtest.New(llmtest.WithDefault(llmtest.Hang()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(plainReq))
	}()
	for srv.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	srv.Close()
	<-done
	if time.Since(start) > time.Second {
		t.Fatalf("Close took %v", time.Since(start))
	}
}

func TestDefaultsHandlerAndRepeat(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("first")), llmtest.WithRepeatLast())
	for range 3 {
		if _, body := post(t, srv.URL+"/chat/completions", plainReq); !strings.Contains(body, `"content":"first"`) {
			t.Fatal(body)
		}
	}
	srv2 := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("scripted")), llmtest.WithEcho())
	if _, body := post(t, srv2.URL+"/chat/completions", plainReq); !strings.Contains(body, `"content":"scripted"`) {
		t.Fatal(body)
	}
	if _, body := post(t, srv2.URL+"/chat/completions", plainReq); !strings.Contains(body, `"content":"hi there"`) {
		t.Fatal(body)
	}
	srv3 := llmtest.Start(t, llmtest.WithDefault(llmtest.Fault(418, "teapot")))
	if res, _ := post(t, srv3.URL+"/chat/completions", plainReq); res.StatusCode != 418 {
		t.Fatal(res.Status)
	}
}

func TestConcurrentRecording(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithHandler(func(r llmtest.Request) llmtest.Step { return llmtest.Reply(r.LastUser()) }))
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			post(t, srv.URL+"/chat/completions", plainReq)
			_ = srv.Requests()
		}()
	}
	wg.Wait()
	if srv.Calls() != 20 || len(srv.Requests()) != 20 {
		t.Fatalf("calls %d", srv.Calls())
	}
	seen := map[int]bool{}
	for _, r := range srv.Requests() {
		seen[r.N] = true
	}
	if len(seen) != 20 {
		t.Fatalf("request numbers %v", seen)
	}
}

func TestModelsAndAuth(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithModels("a", "b"), llmtest.WithAPIKey("k"))
	req, _ := http.NewRequest("GET", srv.URL+"/models", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatal(res.Status)
	}
	req.Header.Set("Authorization", "Bearer k")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Data []struct{ ID string } }
	json.NewDecoder(res.Body).Decode(&v)
	res.Body.Close()
	if len(v.Data) != 2 || v.Data[1].ID != "b" || srv.ModelCalls() != 2 {
		t.Fatalf("%+v", v)
	}
	srv2 := llmtest.Start(t, llmtest.WithoutModels())
	res, err = http.Get(srv2.RootURL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatal(res.Status)
	}
}

func TestScriptParsing(t *testing.T) {
	sc, err := llmtest.ParseScript([]byte(`[{"text":"a","delay":"20ms"},{"status":429,"retry_after":"1","chunk_delay":15}]`))
	if err != nil || len(sc.Steps) != 2 || sc.Steps[0].Delay != 20*time.Millisecond || sc.Steps[1].ChunkDelay != 15*time.Millisecond || sc.Steps[1].Status != 429 {
		t.Fatalf("%+v %v", sc, err)
	}
	sc, err = llmtest.ParseScript([]byte(`{"steps":[{"tool_calls":[{"name":"f","arguments":"{}"}]}],"default":{"status":500},"echo":true,"models":["x"]}`))
	if err != nil || len(sc.Steps) != 1 || sc.Steps[0].ToolCalls[0].Name != "f" || sc.Default.Status != 500 || !sc.Echo || sc.Models[0] != "x" {
		t.Fatalf("%+v %v", sc, err)
	}
	if _, err := llmtest.ParseScript([]byte(`{"stepz":[]}`)); err == nil {
		t.Fatal("unknown field accepted")
	}
	if _, err := llmtest.ParseScript([]byte(`[{"delay":"soon"}]`)); err == nil {
		t.Fatal("bad delay accepted")
	}
	// Steps round-trip through JSON.
	st := llmtest.Step{Text: "x", Delay: time.Second, ChunkDelay: time.Millisecond}
	b, _ := json.Marshal(st)
	var back llmtest.Step
	if err := json.Unmarshal(b, &back); err != nil || back.Delay != time.Second || back.ChunkDelay != time.Millisecond || back.Text != "x" {
		t.Fatalf("%s -> %+v %v", b, back, err)
	}
}

func TestControlEndpoints(t *testing.T) {
	srv := llmtest.Start(t)
	if res, body := post(t, srv.RootURL+"/_llmtest/steps", `[{"text":"queued"},{"status":503}]`); res.StatusCode != 200 || !strings.Contains(body, `"pending":2`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if _, body := post(t, srv.URL+"/chat/completions", plainReq); !strings.Contains(body, `"content":"queued"`) {
		t.Fatal(body)
	}
	res, err := http.Get(srv.RootURL + "/_llmtest/requests")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []llmtest.Request
	json.NewDecoder(res.Body).Decode(&reqs)
	res.Body.Close()
	if len(reqs) != 1 || reqs[0].LastUser() != "hi there" {
		t.Fatalf("%+v", reqs)
	}
	post(t, srv.RootURL+"/_llmtest/reset", "")
	if srv.Calls() != 0 || srv.Pending() != 0 {
		t.Fatalf("after reset: calls %d pending %d", srv.Calls(), srv.Pending())
	}
}
