package expression

// fieldAliases are other names for an output field that models write:
// what the MCP specification calls a tool result's parts (content,
// structuredContent), which Weft's MCP steps give as text and data. A read
// of an alias that the outputs lack, from outputs that have its field,
// reads that field (Field); validation says so with a warning.
var fieldAliases = map[string]string{
	"content":           "text",
	"structuredContent": "data",
}

// FieldAlias is the field an alias stands for ("content" → "text"), and
// whether name is one.
func FieldAlias(name string) (string, bool) {
	f, ok := fieldAliases[name]
	return f, ok
}

// resolveAlias is the field a read of name in m means: name itself when m
// has it or it is no alias; the aliased field when m has that instead.
func resolveAlias(name string, m map[string]any) string {
	if _, ok := m[name]; ok {
		return name
	}
	if f, ok := fieldAliases[name]; ok {
		if _, has := m[f]; has {
			return f
		}
	}
	return name
}
