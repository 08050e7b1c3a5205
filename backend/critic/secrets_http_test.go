package critic

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/workflow"
)

// TestNoSecretReachesTheModel: a secret Weft knows and the literal
// credentials of a workflow, given to the planner (its first ask and its
// re-ask), the replanner and the critic through the real client, reach
// the fake server in none of their encodings; the replanned version keeps
// the values the model could only write as [REDACTED].
func TestNoSecretReachesTheModel(t *testing.T) {
	const (
		known  = "known-secret-3c4d5e6f"
		header = "header-token-7a8b9c0d"
		query  = "query-key-1e2f3a4b"
	)
	srv := llmtest.Start(t)
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()), llm.WithSecrets(known))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Plan: the goal names the secret; the first reply is unusable, so the
	// re-ask carries it back.
	srv.Enqueue(llmtest.Reply("not a plan: "+known), llmtest.Reply(`{"steps": [{"id": "say", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "hi"}}]}`))
	if _, err := planner.PlanWorkflow(ctx, c, "log in with password "+known+" and say hi", planner.Config{MaxRepairAttempts: 2}); err != nil {
		t.Fatal(err)
	}

	// Replan: the workflow calls an API with literal credentials and the
	// failure's output shows the known secret.
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"wf","name":"Call","nodes":[
	 {"id":"a","key":"call","name":"Call","type":"Tool","params":{"tool":"http_request","arguments":{"url":"https://api.example.com/?api_key=` + query + `","method":"GET","headers":{"Authorization":"Bearer ` + header + `"}}}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply(`{"nodes": [{"id": "call", "step_type": "Tool", "name": "Call", "tool_name": "http_request",
	 "arguments": {"url": "https://api.example.com/?api_key=[REDACTED]", "method": "GET", "headers": {"Authorization": "Bearer [REDACTED]"}, "timeout_s": 30}}]}`))
	res, err := planner.ReplanWorkflow(ctx, c, failure.ReplanRequest{
		Workflow:   w,
		FailedNode: w.Nodes[0],
		Failures:   []failure.Record{{Attempt: 1, FailureType: failure.FailTimeout, Error: "timed out", OutputSummary: "token " + known}},
	}, planner.Config{MaxRepairAttempts: 1})
	if err != nil || res.Workflow == nil {
		t.Fatalf("replan: %v %+v", err, res)
	}
	args := res.Workflow.NodeByKey("call").Params.Arguments
	if args["url"] != "https://api.example.com/?api_key="+query || args["headers"].(map[string]any)["Authorization"] != "Bearer "+header {
		t.Errorf("the replanned arguments lost the credentials: %v", args)
	}

	// Critic: the done_when criteria and the results hold the secret.
	srv.Enqueue(llmtest.Reply(`{"approved": true, "confidence": 1}`))
	if _, err := Check(ctx, c, Input{Goal: "g", Criteria: "the reply echoes " + known, Plan: "p", Results: "got " + known}, 1); err != nil {
		t.Fatal(err)
	}

	if srv.Calls() != 4 {
		t.Errorf("%d calls, want 4 (plan, re-ask, replan, critic)", srv.Calls())
	}
	if leaks := srv.Leaks(known, header, query); len(leaks) > 0 {
		t.Errorf("sent to the model:\n%s", strings.Join(leaks, "\n"))
	}
}
