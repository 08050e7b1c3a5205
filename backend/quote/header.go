package quote

import (
	"fmt"
	"strings"
)

// Header checks a request header after its templates are rendered: a name
// or value with a line break (or NUL) would let data end the header and
// add others, so it is an error naming the header.
func Header(name, value string) error {
	if name == "" {
		return fmt.Errorf("a header has an empty name")
	}
	if strings.ContainsAny(name, "\r\n\x00:") || strings.TrimSpace(name) != name {
		return fmt.Errorf("the header name %q is not a valid header name (it has a line break, colon, NUL or surrounding space)", clip(name, 80))
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("the value of the header %q contains a line break or NUL, which could add headers", clip(name, 80))
	}
	return nil
}
