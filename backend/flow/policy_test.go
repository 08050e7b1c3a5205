package flow

import (
	"math"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestPolicyClampsBackoff(t *testing.T) {
	n := &workflow.Node{Retry: &workflow.Retry{MaxAttempts: 3, Backoff: &workflow.Backoff{
		InitialMs: math.MaxInt, MaxMs: math.MaxInt, Multiplier: 1e308}}}
	p := PolicyOf(n, 0)
	if p.Initial != 24*time.Hour || p.Max != 24*time.Hour || p.Mult != workflow.MaxBackoffMultiplier {
		t.Fatalf("policy %+v", p)
	}
	for k := 1; k < 2000; k += 97 {
		if d := p.Delay(k, 0.5); d <= 0 || d > 24*time.Hour {
			t.Fatalf("delay(%d) = %v", k, d)
		}
	}
}
