package expression

import (
	"fmt"
	"unicode/utf8"
)

// Limits of an expression's text, checked before it is parsed: expr's
// parser recurses once per nesting level and counts syntax nodes only as
// it creates them, so "((((…))))" nests without a node and half a million
// levels overflow the goroutine's stack (a fatal error no recover can
// catch). Every expression Weft compiles (a condition, verify, done_when,
// the expression of a template placeholder) passes through CheckBounds:
// Compile calls it, and validate calls it, so what validates compiles.
const (
	// MaxLength bounds an expression's text in characters. It also bounds
	// the nesting a parser can see (unary operators, ternaries), so the
	// recursion stays far below the stack's limit.
	MaxLength = 2000
	// MaxDepth bounds how deep brackets ( [ { nest outside string literals.
	MaxDepth = 100
)

// CheckBounds says why src is too long or nests too deep to compile (a
// *LimitError), or nil. It reads src once, without recursion.
func CheckBounds(src string) error {
	if n := utf8.RuneCountInString(src); n > MaxLength {
		return &LimitError{Message: fmt.Sprintf("the expression is %d characters long; an expression may be at most %d", n, MaxLength)}
	}
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', ']', '}':
			depth--
		case '\'', '"':
			i = skipString(src, i)
		case '`':
			for i++; i < len(src) && src[i] != '`'; i++ {
			}
		}
	}
	if deepest > MaxDepth {
		return &LimitError{Message: fmt.Sprintf("the expression nests brackets %d deep; an expression may nest at most %d", deepest, MaxDepth)}
	}
	return nil
}

// skipString returns the index of the quote that closes the literal
// opened at i (or the end of src); a backslash escapes the next byte, as
// in expr's lexer.
func skipString(src string, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return len(src)
}
