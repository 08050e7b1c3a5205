package tsgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// sources reads the Go source of the module's packages, once each, for
// what reflection does not give: doc comments, parameter names, the
// constants of named string types and a package's name.
type sources struct {
	module, dir string
	pkgs        map[string]*pkgSource // by import path
}

type pkgSource struct {
	name   string
	docs   map[string]string   // "Type" and "Type.Field" or "Type.Method"
	params map[string][]string // "Type.Method"
	consts map[string][]string // type name → its constants' values, in source order
}

func newSources(module, dir string) *sources {
	return &sources{module: module, dir: dir, pkgs: map[string]*pkgSource{}}
}

// pkg is the source of the package at import path p; empty when it is
// outside the module or cannot be read (the output then lacks its docs).
func (s *sources) pkg(p string) *pkgSource {
	if ps, ok := s.pkgs[p]; ok {
		return ps
	}
	ps := &pkgSource{docs: map[string]string{}, params: map[string][]string{}, consts: map[string][]string{}}
	s.pkgs[p] = ps
	rel, ok := strings.CutPrefix(p, s.module)
	if s.module == "" || !ok || rel != "" && rel[0] != '/' {
		return ps
	}
	dir := filepath.Join(s.dir, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ps
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			continue
		}
		ps.name = f.Name.Name
		ps.read(f)
	}
	return ps
}

// read records f's docs, method parameters and typed string constants.
func (ps *pkgSource) read(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			recv := d.Recv.List[0].Type
			if st, ok := recv.(*ast.StarExpr); ok {
				recv = st.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok {
				continue
			}
			key := id.Name + "." + d.Name.Name
			ps.docs[key] = d.Doc.Text()
			var names []string
			for _, p := range d.Type.Params.List {
				if len(p.Names) == 0 {
					names = append(names, "")
				}
				for _, n := range p.Names {
					names = append(names, n.Name)
				}
			}
			ps.params[key] = names
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				for _, sp := range d.Specs {
					ts := sp.(*ast.TypeSpec)
					doc := ts.Doc.Text()
					if doc == "" && len(d.Specs) == 1 {
						doc = d.Doc.Text()
					}
					ps.docs[ts.Name.Name] = doc
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							fdoc := fl.Doc.Text()
							if fdoc == "" {
								fdoc = fl.Comment.Text()
							}
							for _, n := range fl.Names {
								ps.docs[ts.Name.Name+"."+n.Name] = fdoc
							}
						}
					}
				}
			case token.CONST:
				ps.readConsts(d)
			}
		}
	}
}

// readConsts records the string constants of a named type in d:
// `X T = "x"` and `X = T("x")`.
func (ps *pkgSource) readConsts(d *ast.GenDecl) {
	for _, sp := range d.Specs {
		vs := sp.(*ast.ValueSpec)
		for i := range vs.Names {
			if i >= len(vs.Values) {
				break
			}
			typ, val := "", vs.Values[i]
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			} else if call, ok := val.(*ast.CallExpr); ok && vs.Type == nil && len(call.Args) == 1 {
				if id, ok := call.Fun.(*ast.Ident); ok {
					typ, val = id.Name, call.Args[0]
				}
			}
			lit, ok := val.(*ast.BasicLit)
			if typ == "" || !ok || lit.Kind != token.STRING {
				continue
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(ps.consts[typ], s) {
				ps.consts[typ] = append(ps.consts[typ], s)
			}
		}
	}
}

// pkgName is the Go name of the package at import path p.
func (s *sources) pkgName(p string) string {
	if n := s.pkg(p).name; n != "" {
		return n
	}
	return path.Base(p)
}

// doc is the doc comment of t, or of its field or method member.
func (s *sources) doc(t reflect.Type, member string) string {
	key := t.Name()
	if member != "" {
		key += "." + member
	}
	return s.pkg(t.PkgPath()).docs[key]
}

// params are the parameter names of t's method.
func (s *sources) params(t reflect.Type, method string) []string {
	return s.pkg(t.PkgPath()).params[t.Name()+"."+method]
}

// consts are the values of the string constants of the named type t.
func (s *sources) consts(t reflect.Type) []string {
	return s.pkg(t.PkgPath()).consts[t.Name()]
}
