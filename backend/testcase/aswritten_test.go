package testcase

import "testing"

// A command that names a secret, rendered as run_command renders it and
// written back as a case writes it, renders the same again: a recorded
// or shown command keeps its quotes around the reference.
func TestAsWrittenRoundTripsSecretReferences(t *testing.T) {
	for _, cmd := range []string{
		`curl -H "Authorization: Bearer {{secrets.API_TOKEN}}" https://x.test`,
		`echo {{secrets.API_TOKEN}}`,
		`echo '{{secrets.API_TOKEN}}'`,
		`echo "a{{secrets.API_TOKEN}}b" "{{secrets.B}}"`,
		`printf %s {{secrets.A}}{{secrets.B}}`,
	} {
		rendered := renderedCommand(cmd)
		written, _ := AsWritten(rendered).(string)
		if again := renderedCommand(written); again != rendered {
			t.Errorf("%s\n rendered %s\n written  %s\n renders  %s", cmd, rendered, written, again)
		}
	}
}
