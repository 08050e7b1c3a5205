package testcase

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnit is the report as JUnit XML, for CI: one testsuite (the
// workflow), one testcase per case, a failure per case that failed with
// every way it did.
func JUnit(r *Report) ([]byte, error) {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type tcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name `xml:"testsuite"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Time     string   `xml:"time,attr"`
		Cases    []tcase  `xml:"testcase"`
	}
	s := suite{Name: r.Workflow, Tests: len(r.Cases), Failures: r.Failed}
	var total int64
	for _, c := range r.Cases {
		total += c.DurationMs
		tc := tcase{Name: c.Name, Classname: r.Workflow, Time: seconds(c.DurationMs)}
		if !c.Passed {
			lines := make([]string, 0, len(c.Failures))
			for _, f := range c.Failures {
				lines = append(lines, f.Line())
			}
			tc.Failure = &failure{Message: c.Failures[0].Line(), Type: c.Failures[0].What, Text: strings.Join(lines, "\n")}
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = seconds(total)
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// Line is the failure in one line: the step, what, the message.
func (f Failure) Line() string {
	if f.Step == "" {
		return f.What + ": " + f.Message
	}
	return fmt.Sprintf("step %s: %s: %s", f.Step, f.What, f.Message)
}
