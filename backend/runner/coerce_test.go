package runner

import (
	"reflect"
	"testing"

	"github.com/weft-dev/weft/backend/render"
)

// The run's coercion of MCP arguments is the one validation assumes
// (render.CoerceArg): the two agree on every value and type.
func TestCoerceArgsAgreesWithValidation(t *testing.T) {
	values := []any{"5", " 5 ", "2.5", "x", "", "true", "false", "True", true, false, 3.0, 2.5, int(4), int64(7), nil, []any{1.0}, map[string]any{}}
	for _, typ := range []string{"string", "integer", "number", "boolean", "object", "array", "null", ""} {
		for _, v := range values {
			got := coerceArgs(map[string]any{"k": v}, map[string]string{"k": typ})["k"]
			if want := render.CoerceArg(v, typ); !reflect.DeepEqual(got, want) {
				t.Errorf("%#v as %q: the run gives %#v, validation assumes %#v", v, typ, got, want)
			}
		}
	}
}
