package planner

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/workflow"
)

// Plan is a decoded model plan, before it becomes a workflow: either a flat
// list of steps (Graph false; edges follow the list and the steps' nested
// branches) or nodes with explicit edges (Graph true).
type Plan struct {
	Name string
	// DoneWhen is the plan's top-level done_when, when the model gave one.
	DoneWhen *workflow.DoneWhen
	Graph    bool
	Steps    []Step     // flat steps, or graph nodes
	Edges    []PlanEdge // graph form only

	// Skipped maps the ids of items dropped while decoding (e.g. Start and
	// End pseudo-steps) to the reason, so edges to them are explained.
	Skipped map[string]string

	warnPaths []string          // per decode warning: the step path it is about
	nodeIDs   map[string]string // step path → node id, filled by MapPlan
	idMap     map[string]int    // step id → node index, filled by MapPlan
}

// Step is one decoded step (or graph node).
type Step struct {
	Path   string // where it was in the reply, e.g. "steps[3]" or "steps[2].then[0]"
	ID     string // the model's id; may be empty
	Key    string // a key given besides the id (weft's own node shape); may be empty
	Type   workflow.NodeType
	Name   string
	Params workflow.Params
	// TimeoutMs, Verify, OnError and DoneWhen are passed through when the
	// model sets them.
	TimeoutMs int
	Verify    string
	OnError   workflow.OnError
	DoneWhen  *workflow.DoneWhen
	// Branches are nested step lists of a flat plan: "then"/"else" of an
	// If (IfTrue/IfFalse), "body" of a Loop (LoopBody), "steps" of a Switch
	// case (SwitchCase) and its "default" list (SwitchDefault).
	Branches []Branch
	// BareArguments is arguments written as one value, not an object
	// ("arguments": "ls -l"): the map stage gives it to the tool's one
	// required parameter, which only the catalog knows.
	BareArguments string

	node int // index in the workflow's nodes once mapped; -1 before
}

// Branch is a nested list of steps reached through one output.
type Branch struct {
	Output workflow.EdgeOutput
	Steps  []Step
}

// PlanEdge is one decoded edge, between model ids.
type PlanEdge struct {
	Path     string
	From, To string
	// Output is the label once read; nil for an unlabelled edge.
	Output *workflow.EdgeOutput
	// Label keeps a label that is not one of the canonical outputs (e.g.
	// "true", "body", a bare case name) until ResolveOutput reads it
	// against the type of the source node; LabelName is the name that came
	// with it, if any.
	Label, LabelName string
	// Unknown is the type of a label written as an object whose type is
	// in no label vocabulary ({"type": "LoopCondition"}): a malformed
	// edge, dropped when its source takes no label.
	Unknown string
}

// norm lower-cases s and keeps only letters and digits: "End_Loop" → "endloop".
func norm(s string) string {
	var buf [64]byte
	b := buf[:0]
	same := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80:
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
			same = false
		default:
			same = false
		}
	}
	if same {
		return s
	}
	if k, ok := internedNorms[string(b)]; ok { // no allocation for the lookup
		return k
	}
	return string(b)
}

// internedNorms are the normalized forms of the keys models use most, so
// normalizing them allocates nothing.
var internedNorms = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"steptype", "toolname", "maxiterations", "exitcondition", "loopid", "allowedtools",
		"maxtoolcalls", "timeoutms", "stepid", "nodeid", "nodetype", "sourcehandle", "fromid", "toid"} {
		m[k] = k
	}
	return m
}()

// normEq reports whether norm(name) == n, without allocating.
func normEq(n, name string) bool {
	j := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80:
		default:
			continue
		}
		if j >= len(n) || n[j] != c {
			return false
		}
		j++
	}
	return j == len(n)
}

// NormalizeStepType reads a step_type the way a model may write it ("tool",
// "end_loop", "IF"); ok is false for anything that is not a step type.
func NormalizeStepType(s string) (workflow.NodeType, bool) {
	t, ok := stepTypeAliases[norm(s)]
	return t, ok
}

// field is one key of a JSON object.
type field struct {
	key  string // as written
	norm string // normalized
	val  gjson.Result
	used bool
}

// fields are an object's keys, found by normalized name; a repeated key
// keeps its last value, like encoding/json. Objects are small, so a slice
// beats a map.
type fields struct {
	list []field
}

func fieldsOf(obj gjson.Result) *fields {
	fs := fieldsPool.Get().(*fields)
	fs.list = fs.list[:0]
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		n := norm(key)
		if f := fs.get(n); f != nil {
			f.key, f.val = key, v
			return true
		}
		fs.list = append(fs.list, field{key: key, norm: n, val: v})
		return true
	})
	return fs
}

// fieldsPool recycles the field lists of decoded objects: decoding keeps
// only strings that point into the input, never the fields themselves.
var fieldsPool = sync.Pool{New: func() any { return &fields{list: make([]field, 0, 8)} }}

// release returns fs to the pool; fs must not be used afterwards.
func (fs *fields) release() {
	clear(fs.list)
	fieldsPool.Put(fs)
}

// get returns the field with normalized name n, or nil.
func (fs *fields) get(n string) *field {
	for i := range fs.list {
		if fs.list[i].norm == n {
			return &fs.list[i]
		}
	}
	return nil
}

// named returns the field whose normalized key is norm(name), or nil.
func (fs *fields) named(name string) *field {
	for i := range fs.list {
		if normEq(fs.list[i].norm, name) {
			return &fs.list[i]
		}
	}
	return nil
}

// lookup returns the first present key among canonical and aliases, marks
// it used and says which key it was. A null counts only under the
// canonical name.
func (fs *fields) lookup(canonical string, aliases ...string) (gjson.Result, string, bool) {
	if f := fs.named(canonical); f != nil {
		f.used = true
		return f.val, f.key, true
	}
	for _, name := range aliases {
		if f := fs.named(name); f != nil && f.val.Type != gjson.Null {
			f.used = true
			return f.val, f.key, true
		}
	}
	return gjson.Result{}, "", false
}

// find is lookup without the key.
func (fs *fields) find(canonical string, aliases ...string) (gjson.Result, bool) {
	v, _, ok := fs.lookup(canonical, aliases...)
	return v, ok
}

// has reports whether a key is present (and not null) without using it.
func (fs *fields) has(names ...string) bool {
	for _, n := range names {
		if f := fs.named(n); f != nil && f.val.Type != gjson.Null {
			return true
		}
	}
	return false
}

// ignoredFields are keys models add that carry nothing for the workflow.
var ignoredFields = map[string]bool{
	"description": true, "comment": true, "comments": true, "notes": true, "note": true,
	"reason": true, "reasoning": true, "explanation": true, "purpose": true, "rationale": true,
	"output": true, "outputs": true, "expectedoutput": true, "position": true, "enabled": true,
}

// stepDecoder collects the warnings of one item.
type stepDecoder struct {
	path    string
	item    gjson.Result  // the step, for its label
	label   string        // path plus id/name, for messages; made when first needed
	labelFn func() string // makes the label when set
	depth   int           // how deep in then/else/body lists
	iw      []itemWarning
}

// itemLabel names the item in messages, working it out on first use (most
// items need no message).
func (d *stepDecoder) itemLabel() string {
	switch {
	case d.label != "":
	case d.labelFn != nil:
		d.label = d.labelFn()
	default:
		d.label = itemLabel(d.path, d.item)
	}
	return d.label
}

// maxBranchDepth bounds the nesting of then/else/body lists.
const maxBranchDepth = 32

// itemWarning is a decode warning about one item, kept apart from the item
// so that DecodePlan can merge the same fix made to many items.
type itemWarning struct {
	label, path, text string
}

func (iw itemWarning) warning() Warning {
	if iw.label == "" {
		return Warning{Stage: StageDecode, Message: iw.text}
	}
	return Warning{Stage: StageDecode, Message: iw.label + ": " + iw.text}
}

func warningsOf(iws []itemWarning) []Warning {
	var ws []Warning
	for _, iw := range iws {
		ws = append(ws, iw.warning())
	}
	return ws
}

func (d *stepDecoder) warn(format string, a ...any) {
	d.iw = append(d.iw, itemWarning{label: d.itemLabel(), path: d.path, text: fmt.Sprintf(format, a...)})
}

func (d *stepDecoder) fail(format string, a ...any) *StageError {
	return &StageError{Stage: StageDecode, Path: d.itemLabel(), Msg: fmt.Sprintf(format, a...)}
}

// get looks a field up and warns when it was found under another name.
func (d *stepDecoder) get(fs *fields, canonical string, aliases ...string) (gjson.Result, bool) {
	v, key, ok := fs.lookup(canonical, aliases...)
	if ok && key != canonical {
		d.warn("read %q as %q", key, canonical)
	}
	return v, ok
}

// itemLabel names an item in messages: steps[3] ("check").
func itemLabel(path string, item gjson.Result) string {
	if !item.IsObject() {
		return path
	}
	id := ""
	item.ForEach(func(k, v gjson.Result) bool {
		switch norm(k.String()) {
		case "id":
			id = v.String()
			return false
		case "name":
			if id == "" {
				id = v.String()
			}
		}
		return true
	})
	if id == "" {
		return path
	}
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return fmt.Sprintf("%s (%q)", path, id)
}

// DecodeStep decodes one step (or graph node) object leniently: common
// mistakes are coerced with a warning; a step that cannot be read is a
// *StageError (Stage "decode", Path naming the item) for the caller to skip.
func DecodeStep(item gjson.Result, path string) (Step, []Warning, error) {
	st, iws, err := decodeStep(item, path)
	return st, warningsOf(iws), err
}

func decodeStep(item gjson.Result, path string) (Step, []itemWarning, error) {
	return decodeStepAt(item, path, 0)
}

func decodeStepAt(item gjson.Result, path string, depth int) (Step, []itemWarning, error) {
	d := &stepDecoder{path: path, item: item, depth: depth}
	if depth > maxBranchDepth {
		return Step{Path: path, node: -1}, nil, d.fail("step lists nested more than %d deep", maxBranchDepth)
	}
	st, err := d.step(item)
	return st, d.iw, err
}

func (d *stepDecoder) step(item gjson.Result) (Step, error) {
	st := Step{Path: d.path, node: -1}
	if !item.IsObject() {
		return st, d.fail("a step must be a JSON object, got %s", jsonKind(item))
	}
	fs := fieldsOf(item)
	defer fs.release()

	// Weft's own node shape nests the type-specific fields in "params";
	// read them as if they were at the top (the top wins).
	if p := fs.get("params"); p != nil && p.val.IsObject() {
		inner := fieldsOf(p.val)
		defer inner.release()
		if inner.get("tool") != nil || inner.get("arguments") != nil || !looksLikeToolStep(fs) {
			p.used = true
			for _, f := range inner.list {
				if fs.get(f.norm) == nil {
					fs.list = append(fs.list, f)
				}
			}
		}
	}

	// React Flow's node shape keeps the step in "data" ({"id", "type":
	// "custom", "position", "data": {…}}): read it as if at the top.
	if p := fs.get("data"); p != nil && p.val.IsObject() && fs.get("arguments") == nil {
		inner := fieldsOf(p.val)
		defer inner.release()
		stepLike := false
		for _, f := range inner.list {
			if (knownStepField[f.norm] || typeStepField[f.norm]) && f.norm != "name" && f.norm != "label" && f.norm != "description" {
				stepLike = true
				break
			}
		}
		if stepLike {
			p.used = true
			if t := fs.get("type"); t != nil && !workflow.NodeType(strings.TrimSpace(t.val.Str)).Valid() &&
				(inner.get("steptype") != nil || inner.get("type") != nil || inner.get("toolname") != nil || inner.get("tool") != nil) {
				// React Flow's component name, not a step type.
				fs.list = slices.DeleteFunc(fs.list, func(f field) bool { return f.norm == "type" })
			}
			for _, f := range inner.list {
				if fs.get(f.norm) == nil {
					fs.list = append(fs.list, f)
				}
			}
			d.warn("read the step's fields inside \"data\" (React Flow's node shape)")
		}
	}

	if v, ok := d.get(fs, "id", syn("step", "id")...); ok {
		st.ID = strings.TrimSpace(scalarString(v))
	}
	if f := fs.get("key"); f != nil && !f.used && f.val.Type == gjson.String {
		// Weft's own shape: "id" for edges, "key" for expressions.
		f.used = true
		st.Key = strings.TrimSpace(f.val.Str)
	}
	if v, ok := fs.find("name", syn("step", "name")...); ok {
		st.Name = strings.TrimSpace(scalarString(v))
	} else if v, ok := fs.find("description"); ok && v.Type == gjson.String && len(v.Str) <= 60 {
		st.Name = strings.TrimSpace(v.Str)
	}

	typ, err := d.stepType(fs)
	if err != nil {
		return st, err
	}
	st.Type = typ

	switch typ {
	case workflow.TypeTool:
		d.tool(fs, &st)
	case workflow.TypeAiStep:
		if err := d.aiStep(fs, &st); err != nil {
			return st, err
		}
	case workflow.TypeAiTransform:
		if err := d.aiTransform(fs, &st); err != nil {
			return st, err
		}
	case workflow.TypeIf:
		v, ok := d.get(fs, "condition", syn("If", "condition")...)
		st.Params.Condition = d.str(v, "condition")
		if !ok || st.Params.Condition == "" {
			d.warn("If has no condition")
		}
		if err := d.branch(fs, &st, workflow.EdgeOutput{Type: workflow.OutIfTrue}, "then", syn("If", "then")...); err != nil {
			return st, err
		}
		if err := d.branch(fs, &st, workflow.EdgeOutput{Type: workflow.OutIfFalse}, "else", syn("If", "else")...); err != nil {
			return st, err
		}
	case workflow.TypeSwitch:
		if err := d.switchCases(fs, &st); err != nil {
			return st, err
		}
	case workflow.TypeLoop:
		aliases := syn("Loop", "exit_condition")
		if !fs.has("exit_condition") && fs.has("condition") {
			aliases = append(slices.Clip(aliases), "condition") // a copy: the table stays as it is
		}
		v, ok := d.get(fs, "exit_condition", aliases...)
		st.Params.ExitCondition = d.str(v, "exit_condition")
		if !ok || st.Params.ExitCondition == "" {
			d.warn("Loop has no exit_condition")
		}
		if v, ok := d.get(fs, "max_iterations", syn("Loop", "max_iterations")...); ok {
			if n, ok := d.intValue(v, "max_iterations"); ok {
				st.Params.MaxIterations = &n
			}
		}
		if err := d.branch(fs, &st, workflow.EdgeOutput{Type: workflow.OutLoopBody}, "body", syn("Loop", "body")...); err != nil {
			return st, err
		}
	case workflow.TypeEndLoop:
		if v, ok := d.get(fs, "loop_id", syn("EndLoop", "loop_id")...); ok {
			st.Params.LoopID = scalarString(v)
		}
	}

	if v, ok := d.get(fs, "timeout_ms", syn("step", "timeout_ms")...); ok {
		if n, ok := d.intValue(v, "timeout_ms"); ok {
			st.TimeoutMs = n
		}
	}
	if v, ok := fs.find("verify"); ok {
		st.Verify = d.str(v, "verify")
	}
	if v, ok := d.get(fs, "on_error", syn("step", "on_error")...); ok && isStepType(st.Type) {
		st.OnError = d.onError(v)
	}
	if v, ok := d.get(fs, "done_when", syn("step", "done_when")...); ok && isStepType(st.Type) {
		st.DoneWhen = d.doneWhen(v)
	}
	if isStepType(st.Type) {
		if err := d.branch(fs, &st, workflow.EdgeOutput{Type: workflow.OutError}, "error_steps", syn("step", "error_steps")...); err != nil {
			return st, err
		}
		if len(st.Branches) > 0 && st.OnError == "" {
			st.OnError = workflow.OnErrorBranch
			d.warn("error_steps given; set on_error to \"branch\"")
		}
	}

	var unknown []string
	for _, f := range fs.list {
		if !f.used && !ignoredFields[f.norm] {
			unknown = append(unknown, f.key)
		}
	}
	if len(unknown) > 0 {
		d.warn("ignored unknown field(s) %s", quoteList(unknown))
	}
	return st, nil
}

func looksLikeToolStep(fs *fields) bool {
	if fs.has("tool_name", "tool") {
		return true
	}
	if v, _, ok := fs.lookup("step_type", "type"); ok {
		if t, ok := NormalizeStepType(v.String()); ok && t == workflow.TypeTool {
			return true
		}
	}
	return false
}

// stepType finds the step_type, coercing what models write instead.
func (d *stepDecoder) stepType(fs *fields) (workflow.NodeType, error) {
	raw, key, ok := fs.lookup("step_type", syn("step", "step_type")...)
	if !ok {
		// "kind" is AiTransform's own field; it is the step type only when
		// it names one.
		if k, kk, found := fs.lookup("kind"); found {
			if _, isType := NormalizeStepType(k.String()); isType || pseudoSteps[norm(k.String())] {
				raw, key, ok = k, kk, true
			} else {
				fs.get("kind").used = false
			}
		}
	}
	if ok {
		s := strings.TrimSpace(raw.String())
		if raw.Type != gjson.String {
			return "", d.fail("step_type must be a string, got %s", jsonKind(raw))
		}
		t, known := NormalizeStepType(s)
		if !known {
			if pseudoSteps[norm(s)] {
				return "", d.fail("%q is not a step type (the flow starts at the first step and ends after the last); skipped", s)
			}
			return "", d.fail("unknown step_type %q (expected one of %s)", s, typeList())
		}
		if key != "step_type" {
			d.warn("read %q as %q", key, "step_type")
		}
		if s != string(t) {
			d.warn("step_type %q read as %q", s, t)
		}
		return t, nil
	}
	// No type at all: infer it from the fields only one type has.
	infer := []struct {
		keys []string
		t    workflow.NodeType
	}{
		{[]string{"tool_name", "tool", "function", "tool_call"}, workflow.TypeTool},
		{[]string{"exit_condition", "max_iterations"}, workflow.TypeLoop},
		{[]string{"loop_id"}, workflow.TypeEndLoop},
		{[]string{"cases"}, workflow.TypeSwitch},
		{[]string{"condition"}, workflow.TypeIf},
		{[]string{"prompt"}, workflow.TypeAiStep},
	}
	for _, c := range infer {
		if fs.has(c.keys...) {
			d.warn("no step_type; read as %s because it has %q", c.t, c.keys[0])
			return c.t, nil
		}
	}
	if k, found := fs.find("kind"); found && transformKinds[strings.ToLower(k.String())] {
		fs.get("kind").used = false
		d.warn("no step_type; read as AiTransform because its kind is %q", k.String())
		return workflow.TypeAiTransform, nil
	}
	return "", d.fail("no step_type (expected one of %s)", typeList())
}

// typeList names the step types a plan may use: those NormalizeStepType
// reads (a sub-workflow, which names a file the model cannot see, is not
// one).
func typeList() string {
	var s []string
	for _, t := range workflow.NodeTypes {
		if _, ok := NormalizeStepType(string(t)); ok {
			s = append(s, string(t))
		}
	}
	return strings.Join(s, ", ")
}

func (d *stepDecoder) tool(fs *fields, st *Step) {
	if v, ok := d.get(fs, "tool_name", syn("Tool", "tool_name")...); ok {
		if v.IsObject() {
			// OpenAI function-call shape: {"name": …, "arguments": …}.
			inner := fieldsOf(v)
			if n, ok := inner.find("name"); ok {
				st.Params.Tool = strings.TrimSpace(n.String())
			}
			if a, ok := inner.find("arguments", syn("tool_call", "arguments")...); ok && !fs.has("arguments") {
				fs.list = append(fs.list, field{key: "arguments", norm: "arguments", val: a})
			}
			d.warn("tool_name is an object; read its name %q", st.Params.Tool)
		} else {
			st.Params.Tool = strings.TrimSpace(d.str(v, "tool_name"))
		}
	}
	args, ok := d.get(fs, "arguments", syn("Tool", "arguments")...)
	if !ok {
		// Arguments written at the top level of the step.
		hoisted := map[string]any{}
		var names []string
		for i := range fs.list {
			f := &fs.list[i]
			if f.used || ignoredFields[f.norm] || knownStepField[f.norm] {
				continue
			}
			f.used = true
			hoisted[f.key] = f.val.Value()
			names = append(names, f.key)
		}
		if len(hoisted) > 0 {
			st.Params.Arguments = hoisted
			d.warn("no arguments object; moved the field(s) %s into arguments", quoteList(names))
		}
		return
	}
	switch {
	case args.IsObject():
		if m, ok := args.Value().(map[string]any); ok && len(m) > 0 {
			st.Params.Arguments = m
		}
	case args.Type == gjson.Null:
	case args.Type == gjson.String && isObjectInString(args.Str):
		// Function-calling style: arguments as a JSON string (encoded
		// once, or more often).
		r, layers, _ := jsonInString(args.Str)
		if m, ok := r.Value().(map[string]any); ok && len(m) > 0 {
			st.Params.Arguments = m
		}
		if layers > 1 {
			d.warn("arguments was JSON-encoded %d times in a string; decoded it", layers)
		} else {
			d.warn("arguments was a JSON string; decoded it")
		}
	case args.Type == gjson.String && strings.HasPrefix(strings.TrimSpace(args.Str), "{"):
		// A Python dict or broken JSON in a string: repaired as a reply is.
		fixed, _, err := RepairJSON(strings.TrimSpace(args.Str))
		if m, ok := gjson.Parse(fixed).Value().(map[string]any); err == nil && ok {
			st.Params.Arguments = m
			d.warn("arguments was a string holding an object that is not JSON; repaired and read it")
		} else {
			d.warn("arguments must be an object, got a string that holds none; ignored it")
		}
	case args.Type == gjson.String || args.Type == gjson.Number || args.Type == gjson.True || args.Type == gjson.False:
		st.BareArguments = args.String()
	default:
		d.warn("arguments must be an object, got %s; ignored it", jsonKind(args))
	}
}

// isObjectInString reports whether s holds a JSON object, through its
// encodings (jsonInString).
func isObjectInString(s string) bool {
	r, _, ok := jsonInString(s)
	return ok && r.IsObject()
}

// typeStepField lists the normalized keys of the type-specific fields.
var typeStepField = setOf("arguments", "condition", "cases", "exitcondition", "maxiterations", "loopid", "prompt", "input",
	"labels", "allowedtools", "maxtoolcalls", "onerror", "donewhen")

// knownStepField lists the normalized keys a step may have, so that the
// rest can be taken for misplaced tool arguments.
var knownStepField = map[string]bool{}

func init() {
	for _, k := range []string{"id", "stepid", "nodeid", "key", "name", "title", "label", "steptype", "type", "nodetype",
		"kind", "toolname", "tool", "function", "functionname", "toolcall", "timeoutms", "timeout", "verify", "retry",
		"onerror", "donewhen", "errorsteps", "onerrorsteps",
		"then", "else", "next", "params", "description"} {
		knownStepField[k] = true
	}
}

func (d *stepDecoder) aiStep(fs *fields, st *Step) error {
	v, ok := d.get(fs, "prompt", syn("AiStep", "prompt")...)
	st.Params.Prompt = d.str(v, "prompt")
	if !ok || strings.TrimSpace(st.Params.Prompt) == "" {
		return d.fail("AiStep needs a prompt")
	}
	if v, ok := d.get(fs, "allowed_tools", syn("AiStep", "allowed_tools")...); ok {
		st.Params.AllowedTools = d.strList(v, "allowed_tools")
	}
	if v, ok := d.get(fs, "max_tool_calls", syn("AiStep", "max_tool_calls")...); ok {
		if n, ok := d.intValue(v, "max_tool_calls"); ok {
			st.Params.MaxToolCalls = n
		}
	}
	return nil
}

func (d *stepDecoder) aiTransform(fs *fields, st *Step) error {
	v, ok := d.get(fs, "kind", syn("AiTransform", "kind")...)
	k := strings.ToLower(strings.TrimSpace(d.str(v, "kind")))
	switch {
	case !ok || k == "":
		return d.fail("AiTransform needs a kind (summarize, extract or classify)")
	case transformKinds[k]:
	case strings.HasPrefix(k, "summar"):
		k = "summarize"
	case strings.HasPrefix(k, "extract"):
		k = "extract"
	case strings.HasPrefix(k, "classif") || k == "categorize":
		k = "classify"
	default:
		return d.fail("AiTransform kind %q is not summarize, extract or classify", d.str(v, "kind"))
	}
	if orig := d.str(v, "kind"); orig != k {
		d.warn("kind %q read as %q", orig, k)
	}
	st.Params.Kind = k
	if v, ok := d.get(fs, "input", syn("AiTransform", "input")...); ok {
		if v.Type == gjson.String {
			st.Params.Input = v.Str
		} else {
			st.Params.Input = v.Raw
			d.warn("input should be a string (an expression or template); kept its JSON text")
		}
	} else {
		d.warn("AiTransform has no input")
	}
	if v, ok := d.get(fs, "labels", syn("AiTransform", "labels")...); ok {
		st.Params.Labels = d.strList(v, "labels")
	}
	if k == "classify" && len(st.Params.Labels) == 0 {
		d.warn("classify has no labels")
	}
	return nil
}

func (d *stepDecoder) switchCases(fs *fields, st *Step) error {
	v, ok := d.get(fs, "cases", syn("Switch", "cases")...)
	if !ok {
		d.warn("Switch has no cases")
		return nil
	}
	type rawCase struct {
		name, cond string
		steps      gjson.Result
		path       string
	}
	var cs []rawCase
	switch {
	case v.IsArray():
		for i, c := range v.Array() {
			p := fmt.Sprintf("%s.cases[%d]", d.path, i)
			switch {
			case c.IsObject():
				cf := fieldsOf(c)
				rc := rawCase{path: p}
				if n, ok := cf.find("name", syn("case", "name")...); ok {
					rc.name = strings.TrimSpace(scalarString(n))
				}
				if n, ok := cf.find("condition", syn("case", "condition")...); ok {
					rc.cond = scalarString(n)
				}
				if s, ok := cf.find("steps", syn("case", "steps")...); ok {
					rc.steps = s
				}
				cs = append(cs, rc)
			case c.Type == gjson.String:
				cs = append(cs, rawCase{name: c.Str, path: p})
				d.warn("case %d is a bare string; read it as the case name %q (it has no condition)", i, c.Str)
			default:
				d.warn("case %d is %s, not an object; skipped it", i, jsonKind(c))
			}
		}
	case v.IsObject():
		// {"name": "condition", …}
		v.ForEach(func(k, c gjson.Result) bool {
			rc := rawCase{name: k.String(), path: d.path + ".cases." + k.String()}
			if c.IsObject() {
				cf := fieldsOf(c)
				if n, ok := cf.find("condition", syn("case", "condition")...); ok {
					rc.cond = scalarString(n)
				}
				if s, ok := cf.find("steps", syn("case", "steps")...); ok {
					rc.steps = s
				}
			} else {
				rc.cond = scalarString(c)
			}
			cs = append(cs, rc)
			return true
		})
		d.warn("cases is an object; read its keys as case names")
	default:
		d.warn("cases must be an array, got %s; ignored it", jsonKind(v))
	}
	seen := map[string]bool{}
	for i, c := range cs {
		if c.name == "" {
			c.name = fmt.Sprintf("case_%d", i+1)
			d.warn("case %d has no name; named it %q", i, c.name)
		}
		if c.cond == "" {
			d.warn("case %q has no condition", c.name)
		}
		if seen[c.name] {
			d.warn("case name %q is repeated", c.name)
		}
		seen[c.name] = true
		st.Params.Cases = append(st.Params.Cases, workflow.SwitchCase{Name: c.name, Condition: c.cond})
		if c.steps.Exists() && c.steps.Type != gjson.Null {
			steps, err := d.stepList(c.steps, c.path+".steps")
			if err != nil {
				return err
			}
			st.Branches = append(st.Branches, Branch{Output: workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: c.name}, Steps: steps})
		}
	}
	return d.branch(fs, st, workflow.EdgeOutput{Type: workflow.OutSwitchDefault}, "default", syn("Switch", "default")...)
}

// branch decodes a nested step list under one of the keys, if present.
func (d *stepDecoder) branch(fs *fields, st *Step, out workflow.EdgeOutput, key string, aliases ...string) error {
	// Only arrays (or a single step object) are branches; "true": "x" on
	// an If is not.
	for _, k := range append([]string{key}, aliases...) {
		f := fs.named(k)
		if f == nil || !(f.val.IsArray() || f.val.IsObject()) {
			continue
		}
		f.used = true
		if f.key != key {
			d.warn("read %q as %q", f.key, key)
		}
		steps, err := d.stepList(f.val, d.path+"."+key)
		if err != nil {
			return err
		}
		st.Branches = append(st.Branches, Branch{Output: out, Steps: steps})
		return nil
	}
	return nil
}

// stepList decodes a nested list of steps, skipping bad ones with a warning.
func (d *stepDecoder) stepList(v gjson.Result, path string) ([]Step, error) {
	if v.IsObject() {
		v = gjson.Parse("[" + v.Raw + "]")
	}
	var out []Step
	for i, item := range v.Array() {
		p := fmt.Sprintf("%s[%d]", path, i)
		st, iws, err := decodeStepAt(item, p, d.depth+1)
		d.iw = append(d.iw, iws...)
		if err != nil {
			d.iw = append(d.iw, itemWarning{text: "skipped " + err.(*StageError).Path + ": " + err.(*StageError).Msg})
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

// str reads a string field, coercing numbers and booleans.
func (d *stepDecoder) str(v gjson.Result, name string) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	case gjson.Number, gjson.True, gjson.False:
		d.warn("%s should be a string; read %s as %q", name, v.Raw, v.Raw)
		return v.Raw
	}
	if !v.Exists() {
		return ""
	}
	d.warn("%s should be a string, got %s; kept its JSON text", name, jsonKind(v))
	return v.Raw
}

// strList reads a list of strings; a single string becomes a list of one.
func (d *stepDecoder) strList(v gjson.Result, name string) []string {
	switch {
	case v.IsArray():
		var out []string
		for _, e := range v.Array() {
			if e.Type == gjson.String {
				out = append(out, e.Str)
			} else {
				d.warn("%s: %s is not a string; skipped it", name, e.Raw)
			}
		}
		return out
	case v.Type == gjson.String:
		parts := strings.Split(v.Str, ",")
		var out []string
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		d.warn("%s should be a list; read the string %q as %d item(s)", name, v.Str, len(out))
		return out
	case v.Type == gjson.Null:
		return nil
	}
	d.warn("%s should be a list of strings, got %s; ignored it", name, jsonKind(v))
	return nil
}

// intValue reads an integer, coercing "5" and 5.0.
func (d *stepDecoder) intValue(v gjson.Result, name string) (int, bool) {
	switch v.Type {
	case gjson.Number:
		f := v.Float()
		if f != math.Trunc(f) || math.Abs(f) > 1e9 {
			d.warn("%s must be a whole number, got %s; ignored it", name, v.Raw)
			return 0, false
		}
		return int(f), true
	case gjson.String:
		s := strings.TrimSpace(v.Str)
		if n, err := strconv.Atoi(s); err == nil {
			d.warn("%s sent as the string %q; read as %d", name, v.Str, n)
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1e9 {
			d.warn("%s sent as the string %q; read as %d", name, v.Str, int(f))
			return int(f), true
		}
	case gjson.Null:
		return 0, false
	}
	d.warn("%s must be a whole number, got %s; ignored it", name, trimRaw(v.Raw))
	return 0, false
}

func trimRaw(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// scalarString renders a string or number id/name; other kinds give their
// JSON text.
func scalarString(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	return v.Raw
}

func jsonKind(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "nothing"
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	}
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Null:
		return "null"
	}
	return "a value"
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// DecodeEdge decodes one edge object: "from"/"to" (or source/target, or a
// [from, to, label] array) and an output label in any of the shapes models
// use. The label is read against the source node's type by ResolveOutput.
func DecodeEdge(item gjson.Result, path string) (PlanEdge, []Warning, error) {
	e, iws, err := decodeEdge(item, path)
	return e, warningsOf(iws), err
}

func decodeEdge(item gjson.Result, path string) (PlanEdge, []itemWarning, error) {
	e := PlanEdge{Path: path}
	d := &stepDecoder{path: path}
	d.labelFn = func() string {
		if e.From == "" && e.To == "" {
			return path
		}
		return fmt.Sprintf("%s (%s → %s)", path, e.From, e.To)
	}
	var label gjson.Result
	switch {
	case item.IsArray():
		a := item.Array()
		if len(a) < 2 || len(a) > 3 {
			return e, d.iw, d.fail("an edge array must be [from, to] or [from, to, output], got %d items", len(a))
		}
		e.From, e.To = scalarString(a[0]), scalarString(a[1])
		if len(a) == 3 {
			label = a[2]
		}
		d.warn("edge written as an array; read it as from %q to %q", e.From, e.To)
	case item.IsObject():
		fs := fieldsOf(item)
		defer fs.release()
		f, ok := d.get(fs, "from", syn("edge", "from")...)
		if !ok {
			return e, d.iw, d.fail(`no "from"`)
		}
		t, ok := d.get(fs, "to", syn("edge", "to")...)
		if !ok {
			return e, d.iw, d.fail(`no "to"`)
		}
		e.From, e.To = strings.TrimSpace(scalarString(f)), strings.TrimSpace(scalarString(t))
		label, _ = d.get(fs, "output", syn("edge", "output")...)
	default:
		return e, d.iw, d.fail("an edge must be an object, got %s", jsonKind(item))
	}
	if e.From == "" || e.To == "" {
		return e, d.iw, d.fail("edge has an empty endpoint (from %q, to %q)", e.From, e.To)
	}
	d.label = ""
	d.output(&e, label)
	return e, d.iw, nil
}

// output reads an edge's label.
func (d *stepDecoder) output(e *PlanEdge, v gjson.Result) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
	case v.Type == gjson.String:
		s := strings.TrimSpace(v.Str)
		if s == "" {
			return
		}
		if t := workflow.OutputType(s); t.Valid() && t != workflow.OutSwitchCase {
			e.Output = &workflow.EdgeOutput{Type: t}
			return
		}
		e.Label = s
	case v.Type == gjson.True || v.Type == gjson.False || v.Type == gjson.Number:
		e.Label = v.Raw
	case v.IsObject():
		fs := fieldsOf(v)
		defer fs.release()
		typ, _, _ := fs.lookup("type", syn("output", "type")...)
		name, _, hasName := fs.lookup("name", syn("output", "name")...)
		t := strings.TrimSpace(scalarString(typ))
		n := strings.TrimSpace(scalarString(name))
		switch {
		case t == "" && hasName:
			e.Output = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: n}
		case t == string(workflow.OutSwitchCase) && n != "":
			e.Output = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: n}
		case workflow.OutputType(t).Valid() && t != string(workflow.OutSwitchCase):
			e.Output = &workflow.EdgeOutput{Type: workflow.OutputType(t)}
			if n != "" {
				d.warn("%s takes no name; dropped name %q", t, n)
			}
		default:
			e.Label, e.LabelName = t, n
			if t != "" && !knownLabel(norm(t)) {
				e.Unknown = t
			}
			if e.Label == "" {
				d.warn("output %s has no type; left the edge unlabelled", trimRaw(v.Raw))
			}
		}
	default:
		d.warn("output must be a string or an object, got %s; left the edge unlabelled", jsonKind(v))
	}
}

func knownLabel(n string) bool {
	for _, set := range []map[string]bool{trueLabels, falseLabels, bodyLabels, doneLabels, defLabels, caseTypes, errorLabels} {
		if set[n] {
			return true
		}
	}
	return false
}

func isStepType(t workflow.NodeType) bool {
	return t == workflow.TypeTool || t == workflow.TypeAiStep || t == workflow.TypeAiTransform
}

func setOf(ss ...string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// controlFlow reports whether edges leaving a node of type t carry labels.
func controlFlow(t workflow.NodeType) bool {
	return t == workflow.TypeIf || t == workflow.TypeSwitch || t == workflow.TypeLoop
}

// ResolveOutput reads the edge's label against the type (and, for a
// Switch, the cases) of its source node: "true"/"yes" on an If, "body" or
// "done" on a Loop, "default" or a bare case name on a Switch, and case
// variants of the canonical labels. A label on a node that takes none is
// dropped; one that cannot be read is dropped too (inference may label the
// edge later). Every change is a warning.
func (e *PlanEdge) ResolveOutput(from workflow.NodeType, cases []workflow.SwitchCase) []Warning {
	var ws []Warning
	warn := func(format string, a ...any) {
		ws = append(ws, Warning{Stage: StageDecode, Message: fmt.Sprintf("%s (%s → %s): ", e.Path, e.From, e.To) + fmt.Sprintf(format, a...)})
	}
	if !controlFlow(from) {
		if isStepType(from) && (e.Output != nil && e.Output.Type == workflow.OutError || e.Output == nil && errorLabels[norm(e.Label)]) {
			if e.Output == nil {
				warn("label %q read as Error", e.labelText())
				e.Output, e.Label, e.LabelName = &workflow.EdgeOutput{Type: workflow.OutError}, "", ""
			}
			return ws // the error branch of a step (on_error "branch")
		}
		if e.Output != nil || e.Label != "" {
			warn("a %s step has a single plain output; dropped the label %q", from, e.labelText())
			e.Output, e.Label, e.LabelName = nil, "", ""
		}
		return ws
	}
	if e.Output != nil {
		if e.Output.Type == workflow.OutSwitchCase && from == workflow.TypeSwitch {
			if name, ok := matchCase(e.Output.Name, cases); ok && name != e.Output.Name {
				warn("case %q read as %q", e.Output.Name, name)
				e.Output.Name = name
			} else if !ok && defLabels[norm(e.Output.Name)] {
				warn("case %q read as SwitchDefault", e.Output.Name)
				e.Output = &workflow.EdgeOutput{Type: workflow.OutSwitchDefault}
			}
		}
		return ws
	}
	if e.Label == "" {
		return ws
	}
	raw, n := e.labelText(), norm(e.Label)
	var out *workflow.EdgeOutput
	switch from {
	case workflow.TypeIf:
		switch {
		case trueLabels[n]:
			out = &workflow.EdgeOutput{Type: workflow.OutIfTrue}
		case falseLabels[n]:
			out = &workflow.EdgeOutput{Type: workflow.OutIfFalse}
		}
	case workflow.TypeLoop:
		switch {
		case bodyLabels[n]:
			out = &workflow.EdgeOutput{Type: workflow.OutLoopBody}
		case doneLabels[n]:
			out = &workflow.EdgeOutput{Type: workflow.OutLoopDone}
		}
	case workflow.TypeSwitch:
		if caseTypes[n] && e.LabelName != "" {
			if name, ok := matchCase(e.LabelName, cases); ok {
				out = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: name}
			} else {
				out = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: e.LabelName}
			}
		} else if name, ok := matchCase(e.Label, cases); ok {
			out = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: name}
		} else if defLabels[n] {
			out = &workflow.EdgeOutput{Type: workflow.OutSwitchDefault}
		} else if strings.HasPrefix(n, "case") {
			if name, ok := matchCase(strings.TrimSpace(strings.TrimLeft(e.Label[4:], ":= _-")), cases); ok {
				out = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: name}
			}
		}
	}
	if out == nil {
		warn("cannot read output %q on a %s; left the edge unlabelled", raw, from)
		e.Label, e.LabelName = "", ""
		return ws
	}
	warn("output %q read as %s", raw, out.String())
	e.Output, e.Label, e.LabelName = out, "", ""
	return ws
}

func (e *PlanEdge) labelText() string {
	if e.Output != nil {
		return e.Output.String()
	}
	if e.LabelName != "" {
		return e.Label + " " + e.LabelName
	}
	return e.Label
}

// matchCase finds the case a name refers to: exactly, then ignoring case
// and punctuation.
func matchCase(name string, cases []workflow.SwitchCase) (string, bool) {
	for _, c := range cases {
		if c.Name == name {
			return c.Name, true
		}
	}
	n := norm(name)
	if n == "" {
		return "", false
	}
	for _, c := range cases {
		if norm(c.Name) == n {
			return c.Name, true
		}
	}
	return "", false
}

// DecodePlan reads repaired JSON into a Plan, leniently: a malformed step,
// node or edge is skipped with a warning naming it; common mistakes are
// coerced with a warning. No steps/nodes array, or no usable step, is a
// StageError.
func DecodePlan(js string) (*Plan, []Warning, error) {
	if !validJSON(js) {
		return nil, nil, &StageError{Stage: StageDecode, Msg: "not valid JSON"}
	}
	return decodePlan(js)
}

// decodePlan is DecodePlan on JSON already known to be valid.
func decodePlan(js string) (*Plan, []Warning, error) {
	p := &Plan{Skipped: map[string]string{}}
	var all []itemWarning
	warn := func(path, format string, a ...any) {
		all = append(all, itemWarning{path: path, text: fmt.Sprintf(format, a...)})
	}
	addIws := func(more []itemWarning) { all = append(all, more...) }
	addWs := func(more []Warning) {
		for _, w := range more {
			all = append(all, itemWarning{text: w.Message})
		}
	}

	root := gjson.Parse(js)
	var stepsV, nodesV, edgesV gjson.Result
	switch {
	case root.IsArray():
		stepsV = root
		warn("", `the reply is a bare list; read it as {"steps": [...]}`)
	case root.IsObject():
		// A plan under other keys ({"plan": {"workflow": {"steps": …}}})
		// is the alignment stage's to find (align.go), at any depth.
		top := fieldsOf(root)
		if !top.has("steps", "nodes") && (top.has("step_type", "tool_name") || top.has("tool")) {
			stepsV = gjson.Parse("[" + root.Raw + "]")
			warn("", `the reply is a single step; read it as {"steps": [it]}`)
		}
		if v, ok := top.find("name", syn("plan", "name")...); ok && v.Type == gjson.String {
			p.Name = strings.TrimSpace(v.Str)
		}
		if v, ok := top.find("done_when", syn("plan", "done_when")...); ok {
			d := &stepDecoder{path: "done_when", label: "done_when"}
			p.DoneWhen = d.doneWhen(v)
			addIws(d.iw)
		}
		if v, ok := top.find("steps", syn("plan", "steps")...); ok && !stepsV.Exists() {
			stepsV = v
		}
		nodesV, _, _ = top.lookup("nodes")
		edgesV, _, _ = top.lookup("edges", syn("plan", "edges")...)
	default:
		return nil, mergeItemWarnings(all, nil), &StageError{Stage: StageDecode,
			Msg: fmt.Sprintf(`expected a JSON object with "steps" or "nodes", got %s`, jsonKind(root))}
	}

	itemsV, itemsKey := stepsV, "steps"
	hasEdges := edgesV.IsArray() && countItems(edgesV, 1) > 0
	switch {
	case nodesV.Exists() && nodesV.Type != gjson.Null && !(isEmptyArray(nodesV) && stepsV.Exists()):
		itemsV, itemsKey = nodesV, "nodes"
		p.Graph = hasEdges
		if !hasEdges && countItems(nodesV, 2) > 1 {
			warn("", "nodes without edges; connected them in list order")
		}
	case stepsV.Exists() && hasEdges:
		p.Graph = true
		warn("", `"steps" came with "edges"; read them as graph nodes`)
	}
	if !itemsV.Exists() || itemsV.Type == gjson.Null {
		return nil, mergeItemWarnings(all, nil), &StageError{Stage: StageDecode, Path: "steps",
			Msg: `no "steps" array (or "nodes" and "edges"); the reply must be {"steps": [...]} or {"nodes": [...], "edges": [...]}`}
	}
	if !itemsV.IsArray() {
		return nil, mergeItemWarnings(all, nil), &StageError{Stage: StageDecode, Path: itemsKey,
			Msg: fmt.Sprintf("must be an array of step objects, got %s", jsonKind(itemsV))}
	}

	var reasons []string
	var items []gjson.Result
	itemsV.ForEach(func(_, v gjson.Result) bool { items = append(items, v); return true })
	p.Steps = make([]Step, 0, len(items))
	for i, item := range items {
		path := fmt.Sprintf("%s[%d]", itemsKey, i)
		st, sws, err := decodeStep(item, path)
		addIws(sws)
		if err == nil && st.Type == workflow.TypeTool && st.Params.Tool == "" && st.Name == "" && len(st.Params.Arguments) == 0 {
			// {"step_type": "Tool"} and nothing else: nothing to run,
			// nothing to ask about; Clickweave skips these too.
			err = &StageError{Stage: StageDecode, Path: path, Msg: "a Tool step with no tool_name, name or arguments"}
		}
		if err != nil {
			se := err.(*StageError)
			warn("", "skipped %s: %s", se.Path, se.Msg)
			reasons = append(reasons, se.Path+": "+se.Msg)
			if id := item.Get("id"); id.Exists() {
				reason := se.Msg
				if k := strings.Index(reason, " ("); k > 0 {
					reason = reason[:k]
				}
				p.Skipped[scalarString(id)] = reason
			}
			continue
		}
		if p.Graph && len(st.Branches) > 0 {
			warn(path, "%s: nested step lists (then/else/body) are for flat plans; ignored them in the graph form", itemLabel(path, item))
			st.Branches = nil
		}
		p.Steps = append(p.Steps, st)
	}
	dropOrphanEndLoops(p, warn)
	if len(p.Steps) == 0 {
		msg := "no usable steps"
		if len(reasons) > 0 {
			if len(reasons) > 5 {
				reasons = append(reasons[:5], fmt.Sprintf("and %d more", len(reasons)-5))
			}
			msg += ": " + strings.Join(reasons, "; ")
		} else {
			msg += fmt.Sprintf(": %q is empty", itemsKey)
		}
		return nil, mergeItemWarnings(all, nil), &StageError{Stage: StageDecode, Path: itemsKey, Msg: msg}
	}

	if p.Graph {
		byID := map[string]*Step{}
		for i := range p.Steps {
			if id := p.Steps[i].ID; id != "" {
				if _, dup := byID[id]; !dup {
					byID[id] = &p.Steps[i]
				}
			}
		}
		i := -1
		edgesV.ForEach(func(_, item gjson.Result) bool {
			i++
			path := fmt.Sprintf("edges[%d]", i)
			e, ews, err := decodeEdge(item, path)
			addIws(ews)
			if err != nil {
				se := err.(*StageError)
				warn("", "skipped %s: %s", se.Path, se.Msg)
				return true
			}
			if from, ok := byID[e.From]; ok {
				addWs(e.ResolveOutput(from.Type, from.Params.Cases))
			}
			p.Edges = append(p.Edges, e)
			return true
		})
	} else if edgesV.Exists() && !edgesV.IsArray() && edgesV.Type != gjson.Null {
		warn("", "edges must be an array, got %s; ignored it", jsonKind(edgesV))
	}
	return p, mergeItemWarnings(all, &p.warnPaths), nil
}

// mergeItemWarnings turns item warnings into warnings, merging the same fix
// made to several items into one ("read "type" as "step_type" (steps[0],
// steps[1] …)"). When paths is set it receives, per warning, the path of
// the one item it is about ("" for merged and plan-level warnings).
func mergeItemWarnings(all []itemWarning, paths *[]string) []Warning {
	groups := map[string]int{}
	for _, iw := range all {
		if iw.label != "" {
			groups[iw.text]++
		}
	}
	var ws []Warning
	done := map[string]bool{}
	for _, iw := range all {
		path := iw.path
		w := iw.warning()
		if iw.label != "" && groups[iw.text] > 1 {
			if done[iw.text] {
				continue
			}
			done[iw.text] = true
			var labels []string
			for _, o := range all {
				if o.label != "" && o.text == iw.text {
					labels = append(labels, o.label)
				}
			}
			if len(labels) > 4 {
				labels = append(labels[:4], fmt.Sprintf("and %d more", len(labels)-4))
			}
			w.Message = fmt.Sprintf("%s (%s)", iw.text, strings.Join(labels, ", "))
			path = ""
		}
		ws = append(ws, w)
		if paths != nil {
			*paths = append(*paths, path)
		}
	}
	return ws
}

func isEmptyArray(v gjson.Result) bool { return v.IsArray() && countItems(v, 1) == 0 }

// countItems counts an array's items, stopping at limit.
func countItems(v gjson.Result, limit int) int {
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return n < limit
	})
	return n
}

// allSteps lists every step, nested branches included, in document order.
func (p *Plan) allSteps() []*Step {
	var out []*Step
	var walk func(ss []Step)
	walk = func(ss []Step) {
		for i := range ss {
			out = append(out, &ss[i])
			for b := range ss[i].Branches {
				walk(ss[i].Branches[b].Steps)
			}
		}
	}
	walk(p.Steps)
	return out
}

// dropTruncated removes the item a cut-off reply ended inside. Each
// warning (stage "truncation") names the item's path: ReadReply
// counts a cut step among the material the plan left out, so a plan made
// of a cut-off reply is never used unseen (its end is unknown).
func (p *Plan) dropTruncated(cut truncation) []Warning {
	path := cut.path()
	if cut.container == "edges" {
		for i, e := range p.Edges {
			if e.Path == path && i == len(p.Edges)-1 {
				p.Edges = p.Edges[:i]
				return []Warning{truncated(lostEdges, fmt.Sprintf(
					"the reply was cut off inside %s (%s → %s); dropped that edge rather than guess the rest", path, e.From, e.To))}
			}
		}
		if cut.index >= len(p.Edges) {
			return []Warning{truncated(lostEdges, cut.before())}
		}
		return nil
	}
	if cut.index >= len(p.Steps) {
		return []Warning{truncated(cut.container, cut.before())}
	}
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].Path == path && i == len(p.Steps)-1 {
			label := path
			if p.Steps[i].ID != "" {
				label += fmt.Sprintf(" (%q)", p.Steps[i].ID)
			}
			p.Steps = p.Steps[:i]
			return []Warning{truncated(cut.container, "the reply was cut off inside "+label+
				"; dropped that step rather than guess its missing fields")}
		}
	}
	return nil
}

// before says where a reply stopped between items.
func (t truncation) before() string {
	if t.how == cutAfterComma {
		return "the reply was cut off after a comma, before " + t.path() + " began"
	}
	return fmt.Sprintf("the reply stops after %s[%d] without closing its %s list; what came after is unknown", t.container, t.index-1, t.container)
}

// attachNodeIDs gives decode warnings about a step that step's node id.
func (p *Plan) attachNodeIDs(ws []Warning) {
	for i := range ws {
		if i >= len(p.warnPaths) {
			return
		}
		if id, ok := p.nodeIDs[p.warnPaths[i]]; ok && ws[i].NodeID == "" {
			ws[i].NodeID = id
		}
	}
}

// onError reads a step's on_error, with the names n8n and others use.
func (d *stepDecoder) onError(v gjson.Result) workflow.OnError {
	s := norm(scalarString(v))
	switch s {
	case "":
		return ""
	case "stop", "stopworkflow", "fail", "escalate", "abort":
		return workflow.OnErrorStop
	case "continue", "continueregularoutput", "ignore", "skip":
		return workflow.OnErrorContinue
	case "branch", "continueerroroutput", "error", "errorbranch", "errorbranchoutput", "failbranch":
		return workflow.OnErrorBranch
	}
	d.warn("on_error %q is not stop, continue or branch; left it out (the step stops on errors)", scalarString(v))
	return ""
}

// doneWhen reads a done_when: {"condition", "criteria"}, or a bare string
// (taken as criteria: a sentence is what models write there).
func (d *stepDecoder) doneWhen(v gjson.Result) *workflow.DoneWhen {
	switch {
	case v.Type == gjson.String:
		if s := strings.TrimSpace(v.Str); s != "" {
			d.warn("done_when is a string; read it as criteria")
			return &workflow.DoneWhen{Criteria: s}
		}
	case v.IsObject():
		fs := fieldsOf(v)
		defer fs.release()
		dw := &workflow.DoneWhen{}
		if c, ok := fs.find("condition", syn("done_when", "condition")...); ok {
			dw.Condition = strings.TrimSpace(scalarString(c))
		}
		if c, ok := fs.find("criteria", syn("done_when", "criteria")...); ok {
			dw.Criteria = strings.TrimSpace(scalarString(c))
		}
		if !dw.IsZero() {
			return dw
		}
	}
	d.warn("done_when %s states nothing usable; left it out", trimRaw(v.Raw))
	return nil
}

// dropOrphanEndLoops removes top-level EndLoop steps that name no Loop in
// a plan that has no Loop at all: there is nothing for them to close.
func dropOrphanEndLoops(p *Plan, warn func(path, format string, a ...any)) {
	for _, st := range p.Steps {
		if st.Type == workflow.TypeLoop || hasLoop(st.Branches) {
			return
		}
	}
	kept := p.Steps[:0]
	for _, st := range p.Steps {
		if st.Type == workflow.TypeEndLoop && st.Params.LoopID == "" {
			warn("", "skipped %s: an EndLoop in a plan without a Loop", st.Path)
			if st.ID != "" {
				p.Skipped[st.ID] = "an EndLoop in a plan without a Loop"
			}
			continue
		}
		kept = append(kept, st)
	}
	p.Steps = kept
}

func hasLoop(bs []Branch) bool {
	for _, b := range bs {
		for _, st := range b.Steps {
			if st.Type == workflow.TypeLoop || hasLoop(st.Branches) {
				return true
			}
		}
	}
	return false
}
