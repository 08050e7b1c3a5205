// Package sample holds the Go types tsgen's tests generate TypeScript for.
package sample

import (
	"encoding/json"
	"net/netip"
	"time"
)

// Color is a named string type with constants: a union.
type Color string

const (
	Red   Color = "red"
	Green       = Color("green")
	// An untyped constant is not one of its values.
	Blue = "blue"
)

// Name is a named string type without constants: a string.
type Name string

// Inner is embedded in Outer: its fields are Outer's.
type Inner struct {
	Depth int    `json:"depth"`
	Shade Color  `json:"shade"`
	Clash string `json:"clash"`
	Tie   string `json:"tie"` // Other's has the same name and depth: both left out
	Both  string // Other's is tagged with this name: it wins
}

// Other is embedded in Outer beside Inner.
type Other struct {
	Tie  int  `json:"tie"`
	Wins bool `json:"Both"`
}

// Outer has one field of each kind the JSON encoder treats apart.
type Outer struct {
	Inner
	*Other
	// Clash here hides Inner's.
	Clash   bool   `json:"clash"`
	Plain   string // no tag: its Go name
	Skipped string `json:"-"`
	//lint:ignore U1000 unexported, so the JSON (and tsgen) leave it out: what this field is here to show
	hidden    string
	Optional  *Inner            `json:"optional,omitempty"`
	Nullable  *Inner            `json:"nullable"`
	List      []Color           `json:"list"`
	Fixed     [2]int            `json:"fixed"`
	Bytes     []byte            `json:"bytes"`
	ByName    map[Name]float64  `json:"by_name"`
	Any       any               `json:"any"`
	Quoted    int64             `json:"quoted,string"`
	When      time.Time         `json:"when"`
	Raw       json.RawMessage   `json:"raw,omitempty"`
	Addr      netip.Addr        `json:"addr"` // a TextMarshaler: a string
	Anonymous struct{ X int }   `json:"anonymous"`
	Pointers  []*Inner          `json:"pointers,omitempty"`
	Who       Name              `json:"who"`
	Odd       string            `json:"odd-key"`
	Custom    Custom            `json:"custom"`
	Nested    map[string][]Name `json:"nested"`
}

// Custom writes its own JSON.
type Custom struct {
	Kept  []string                   `json:"kept"`
	Extra map[string]json.RawMessage `json:"-"`
}

// MarshalJSON is not read by tsgen: its config says what it writes.
func (c Custom) MarshalJSON() ([]byte, error) { return json.Marshal(c.Kept) }

// Service is bound.
type Service struct{}

// Get returns the outer value for id.
func (s *Service) Get(id string, c Color) (Outer, error) { return Outer{}, nil }

// Put stores it.
func (s *Service) Put(o *Outer) error { return nil }

// Ping has no result.
func (s *Service) Ping() {}

// Unknown writes JSON tsgen is not told about.
type Unknown struct{}

// MarshalJSON makes Unknown's JSON its own.
func (Unknown) MarshalJSON() ([]byte, error) { return []byte("1"), nil }

// Bad takes a type with a MarshalJSON tsgen is not told about.
type Bad struct{}

// Take is what fails.
func (b *Bad) Take(u Unknown) {}

// Generic takes a generic type.
type Generic struct{}

// Pair is generic.
type Pair[T any] struct{ A, B T }

// Take is what fails.
func (g *Generic) Take(p Pair[int]) {}
