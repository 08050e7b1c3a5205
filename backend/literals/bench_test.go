package literals

import (
	"strings"
	"testing"
)

// BenchmarkInNode: a node of an ordinary http_request (URL, headers, a
// short JSON body), as validate sees every Tool step.
func BenchmarkInNode(b *testing.B) {
	n := httpNode(map[string]any{
		"url":     "https://api.example.com/v1/items?page=2&sort=name",
		"headers": map[string]any{"Accept": "application/json", "Authorization": "Bearer {{secrets.API_TOKEN}}"},
		"body":    `{"name":"report","tags":["a","b"],"limit":20}`,
	})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		InNode(n)
	}
}

// BenchmarkInNodeLargeBody: a 256 KiB body of ordinary text, the most a
// string is looked at.
func BenchmarkInNodeLargeBody(b *testing.B) {
	n := httpNode(map[string]any{"body": strings.Repeat("The quick brown fox jumps over the lazy dog 0123456789. ", 256<<10/56)})
	b.ReportAllocs()
	b.SetBytes(256 << 10)
	for i := 0; i < b.N; i++ {
		InNode(n)
	}
}
