package testcase

import (
	"encoding/xml"
	"testing"
)

func TestJUnitParses(t *testing.T) {
	r := &Report{Workflow: "/w/flow.json", Passed: 1, Failed: 1, Cases: []CaseResult{
		{Name: "ok", Passed: true, DurationMs: 12},
		{Name: "bad <&>", Failures: []Failure{{Step: "hi", What: "outcome", Message: "the run failed, the case expects it succeeded"}, {What: "file", Message: "out.txt was not written"}}},
	}}
	b, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got.Tests != 2 || got.Failures != 1 || got.Cases[0].Failure != nil || got.Cases[1].Name != "bad <&>" ||
		got.Cases[1].Failure.Message != "step hi: outcome: the run failed, the case expects it succeeded" ||
		got.Cases[1].Failure.Text != "step hi: outcome: the run failed, the case expects it succeeded\nfile: out.txt was not written" {
		t.Errorf("parsed %+v from\n%s", got, b)
	}
}
