package testcase

// Editing a case's mocks in place (the desktop's Tests panel). The file
// is someone's, meant for git: only the bytes of the one mocks value
// change; every other case, number and comma stays as it was written
// (decoding and encoding the whole file would round numbers past 2^53 and
// reorder what a person wrote).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// CaseMocks is one case's mocks as written in its file.
type CaseMocks struct {
	Name string `json:"name"`
	// Mocks is the case's mocks value, indented ("{}" when it has none).
	Mocks string `json:"mocks"`
}

// span is where one case and its mocks value are in a case file's bytes.
type span struct {
	name       string
	start, end int // the case object
	// mStart, mEnd bound the mocks value (-1 when the case has none).
	mStart, mEnd int
}

// spans finds every case of a case file that Decode accepts.
func spans(data []byte) ([]span, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("a case file is a JSON object")
	}
	var out []span
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		if k != "cases" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if t, err := d.Token(); err != nil || t != json.Delim('[') {
			return out, err // null: no cases
		}
		for d.More() {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, err
			}
			end := int(d.InputOffset())
			sp, err := caseSpan(raw, end-len(raw))
			if err != nil {
				return nil, err
			}
			out = append(out, sp)
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// caseSpan reads one case object (raw, at offset off of the file).
func caseSpan(raw []byte, off int) (span, error) {
	sp := span{start: off, end: off + len(raw), mStart: -1, mEnd: -1}
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		return sp, err
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return sp, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return sp, err
		}
		end := int(d.InputOffset())
		switch k {
		case "name":
			if err := json.Unmarshal(v, &sp.name); err != nil {
				return sp, err
			}
		case "mocks":
			sp.mStart, sp.mEnd = off+end-len(v), off+end
		}
	}
	return sp, nil
}

// MocksOf lists the cases of a case file with their mocks as written.
// The file must be one Decode accepts.
func MocksOf(data []byte) ([]CaseMocks, error) {
	if _, err := Decode(data); err != nil {
		return nil, err
	}
	sps, err := spans(data)
	if err != nil {
		return nil, &FileError{Msg: err.Error()}
	}
	out := make([]CaseMocks, 0, len(sps))
	for _, sp := range sps {
		text := "{}"
		if sp.mStart >= 0 {
			var b bytes.Buffer
			if err := json.Indent(&b, data[sp.mStart:sp.mEnd], "", "  "); err != nil {
				return nil, &FileError{Msg: err.Error()}
			}
			text = b.String()
		}
		out = append(out, CaseMocks{Name: sp.name, Mocks: text})
	}
	return out, nil
}

// SetMocks returns the case file data with the mocks of the case named
// name replaced by mocks (JSON text, as a person typed it). The mocks are
// checked first on their own (an error's Where is "mocks: …", in the
// text given), then the whole new file as Decode checks it; on any error
// nothing is returned to write.
func SetMocks(data []byte, name string, mocks []byte) ([]byte, error) {
	if err := checkMocks(mocks); err != nil {
		return nil, err
	}
	if _, err := Decode(data); err != nil {
		return nil, fmt.Errorf("the case file cannot be edited here until it is fixed: %w", err)
	}
	sps, err := spans(data)
	if err != nil {
		return nil, &FileError{Msg: err.Error()}
	}
	i := -1
	for j, sp := range sps {
		if sp.name == name {
			i = j
		}
	}
	if i < 0 {
		return nil, &FileError{Msg: fmt.Sprintf("no case is named %q (renamed or removed since it was read?)", name)}
	}
	sp := sps[i]
	indent := indentAt(data, sp.start) + "  " // a new member: one level into the case
	if sp.mStart >= 0 {
		indent = indentAt(data, sp.mStart) // the line of "mocks": {
	}
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(mocks), indent, "  "); err != nil {
		return nil, &FileError{Where: "mocks", Msg: err.Error()}
	}
	var out []byte
	if sp.mStart >= 0 {
		out = splice(data, sp.mStart, sp.mEnd, b.Bytes())
	} else {
		// No mocks member: add one after the case's last member.
		at := bytes.LastIndexByte(data[:sp.end], '}')
		at = len(bytes.TrimRight(data[:at], " \t\r\n"))
		out = splice(data, at, at, append([]byte(`, "mocks": `), b.Bytes()...))
	}
	if _, err := Decode(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkMocks reads a mocks value as strictly as Decode reads a case's.
func checkMocks(text []byte) error {
	at := func(err error) *FileError {
		w := "mocks"
		if lc := lineCol(text, err); lc != "" {
			w += ": " + lc
		}
		return &FileError{Where: w, Msg: err.Error()}
	}
	if len(text) > MaxFileSize {
		return &FileError{Where: "mocks", Msg: fmt.Sprintf("over %d MiB", MaxFileSize>>20)}
	}
	var raw any
	if err := decodeJSON(text, &raw); err != nil {
		fe := at(err)
		fe.Msg = "not JSON: " + fe.Msg
		return fe
	}
	if _, ok := raw.(map[string]any); !ok {
		return &FileError{Where: "mocks", Msg: `mocks are a JSON object: {"commands": [...], "http": [...], "mcp": [...], "ai": {...}}`}
	}
	if err := strict(raw, reflect.TypeFor[Mocks](), "mocks", "the mocks"); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.DisallowUnknownFields()
	var c Case
	if err := d.Decode(&c.Mocks); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FileError{Where: "mocks." + te.Field, Msg: fmt.Sprintf("%s where %s is wanted", te.Value, te.Type)}
		}
		return &FileError{Where: "mocks", Msg: err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		return &FileError{Where: "mocks", Msg: "text after the mocks' JSON object"}
	}
	if err := c.check(); err != nil {
		return err
	}
	return nil
}

// indentAt is the white space that starts the line holding offset off.
func indentAt(data []byte, off int) string {
	ls := bytes.LastIndexByte(data[:off], '\n') + 1
	line := data[ls:off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

func splice(data []byte, from, to int, val []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(val))
	out = append(out, data[:from]...)
	out = append(out, val...)
	return append(out, data[to:]...)
}

// AddCase returns the case file data with c added after its last case:
// every byte already there stays as written (a person's layout, numbers
// past 2^53); only the new case, indented as its neighbours, and the
// comma before it are new. Empty data is a new file. A case of c's name
// already there, or a file Decode refuses, is an error, and nothing is
// returned to write.
func AddCase(data []byte, c Case) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		b, err := encodeIndented(File{Cases: []Case{c}}, "")
		return append(b, '\n'), err
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("a case cannot be added until the case file is fixed: %w", err)
	}
	for _, x := range f.Cases {
		if x.Name == c.Name {
			return nil, &FileError{Msg: fmt.Sprintf("already has a case named %q: give another name", c.Name)}
		}
	}
	sps, err := spans(data)
	if err != nil {
		return nil, &FileError{Msg: err.Error()}
	}
	var out []byte
	if len(sps) > 0 { // after the last case, as indented as it
		last := sps[len(sps)-1]
		ind := indentAt(data, last.start)
		text, err := encodeIndented(c, ind)
		if err != nil {
			return nil, err
		}
		out = splice(data, last.end, last.end, append([]byte(",\n"+ind), text...))
	} else {
		from, to, ok, err := casesValue(data)
		if err != nil {
			return nil, &FileError{Msg: err.Error()}
		}
		if ok { // "cases": null or []: a list of one
			ind := indentAt(data, from)
			text, err := encodeIndented([]Case{c}, ind)
			if err != nil {
				return nil, err
			}
			out = splice(data, from, to, text)
		} else { // no cases member: one more member, last
			text, err := encodeIndented([]Case{c}, "  ")
			if err != nil {
				return nil, err
			}
			at := bytes.LastIndexByte(data, '}')
			at = len(bytes.TrimRight(data[:at], " \t\r\n"))
			member := []byte("\n  \"cases\": ")
			if data[at-1] != '{' {
				member = append([]byte(","), member...)
			}
			out = splice(data, at, at, append(append(member, text...), '\n'))
		}
	}
	if _, err := Decode(out); err != nil {
		return nil, fmt.Errorf("the case file with the new case cannot be read back (nothing was written): %w", err)
	}
	return out, nil
}

// casesValue is where the top-level "cases" value is in data (ok false
// when there is none).
func casesValue(data []byte) (from, to int, ok bool, err error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if _, err := d.Token(); err != nil {
		return 0, 0, false, err
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return 0, 0, false, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return 0, 0, false, err
		}
		if k == "cases" {
			to = int(d.InputOffset())
			return to - len(v), to, true, nil
		}
	}
	return 0, 0, false, nil
}

// encodeIndented is v as a case file writes it: indented by two, each
// line after the first starting with prefix, && and < as they are.
func encodeIndented(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // commands keep their && and <
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
