package validate

import (
	"testing"
)

func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range codeCases() {
		seen[c.code] = true
		t.Run(c.code, func(t *testing.T) {
			bad := Validate(c.bad, catalog)
			if !hasCode(bad, c.code) {
				t.Errorf("bad case: %s not reported; got %v", c.code, codes(bad))
				dump(t, bad)
			}
			good := Validate(c.good, catalog)
			if len(good.Problems) != 0 || !good.Valid {
				t.Errorf("good case: want no problems, got %v", codes(good))
				dump(t, good)
			}
			if testing.Verbose() {
				dump(t, bad)
			}
		})
	}
	for _, code := range allCodes {
		if !seen[code] {
			t.Errorf("no table case for %s", code)
		}
	}
}

var allCodes = []string{
	CodeNoNodes, CodeDuplicateNodeID, CodeDanglingEdge, CodeDuplicateEdge, CodeSelfLoop, CodeNoEntry,
	CodeMultipleEntries, CodeUnreachable, CodeMultipleOutgoing, CodeBadOutputLabel, CodeIfMissingBranch,
	CodeIfExtraEdges, CodeSwitchDuplicateCase, CodeSwitchMissingCase, CodeSwitchDuplicateEdge,
	CodeSwitchUnknownOutput, CodeLoopMissingBody, CodeLoopExtraEdges, CodeLoopUnpaired,
	CodeLoopMultipleEndloops, CodeEndloopBadTarget, CodeEndloopEdgeMismatch, CodeEdgeLeavesLoop,
	CodeCycle, CodeBadMaxIterations, CodeBadKey, CodeDuplicateKey, CodeBadCondition,
	CodeUnknownVariable, CodeUnknownTool, CodeUnknownNodeType, CodeEdgeEntersLoop,
	CodeRawExternalValue, CodeUnsafePlaceholder, CodeBadDuration, CodeBadTemplate,
}
