package planner

import (
	"fmt"
	"strings"
	"testing"
)

// sloppyReply is a plan of about size bytes with one unquoted value in
// its last step: once the whole reply went to the quadratic library
// repair for this, and over 64 KB it was re-asked.
func sloppyReply(size int) string {
	step := `{"id": "s%d", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "step %d of the plan, with some text"}},`
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, step, i, i)
	}
	b.WriteString(`{"id": "last", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": ls -la /tmp}}]}`)
	return b.String()
}

// BenchmarkRepairUnquotedValue repairs such replies of 16 KB and 1 MB
// (reports MB/s): linear, so both run at the fast path's speed.
func BenchmarkRepairUnquotedValue(b *testing.B) {
	for _, size := range []int{16 << 10, 1 << 20} {
		in := sloppyReply(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for range b.N {
				if _, _, err := RepairJSON(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestLargeSloppyReplyRepairedLocally(t *testing.T) {
	out, ws, err := RepairJSON(sloppyReply(1 << 20))
	if err != nil || !validJSON(out) || len(ws) != 1 || !strings.Contains(ws[0].Message, "unquoted string values quoted") {
		t.Fatalf("1 MB reply: %v %v", ws, err)
	}
}
