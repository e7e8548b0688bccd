package jsonschema

import (
	"fmt"
	"reflect"
)

// ParseText reads data as Compile (open false) or CompileOpen (open true)
// does and returns the value read, as encoding/json decodes it with
// UseNumber; false when data is not JSON.
func ParseText(data []byte, open bool) (any, bool) {
	t, ok := parseText(data, open)
	if !ok {
		return nil, false
	}
	return t.value(0), true
}

// CheckPointers checks, for every value of the tree of data that the
// decoded document has (no hidden member on its path), that its pointer
// leads back to it, and that its parent and end links are consistent.
func CheckPointers(data []byte, open bool) error {
	t, ok := parseText(data, open)
	if !ok {
		return nil
	}
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.end <= int32(i) || int(n.end) > len(t.nodes) {
			return fmt.Errorf("value %d ends at %d", i, n.end)
		}
		if i > 0 && (n.parent < 0 || n.parent >= int32(i) || t.nodes[n.parent].end < n.end) {
			return fmt.Errorf("value %d has parent %d", i, n.parent)
		}
		visible := true
		for j := int32(i); j > 0; j = t.nodes[j].parent {
			if t.nodes[j].hidden {
				visible = false
			}
		}
		if !visible {
			continue
		}
		ptr := t.pointer(int32(i))
		if got, ok := t.lookup(ptr); !ok || got != int32(i) {
			return fmt.Errorf("value %d has pointer %q, which leads to %d (%v)", i, ptr, got, ok)
		}
	}
	return nil
}

// CompileErrorBefore is the error the compiler had before it read a tree
// (commit 94c0830) for a decoded schema; nil when it compiled.
func CompileErrorBefore(doc any) error {
	_, err := oldCompileValue(doc)
	return err
}

// WriteStatic is the generator of static_gen.go (writeStatic).
var WriteStatic = writeStatic

// CompileFromText compiles schema as Compile does when it finds no
// precompiled schema for it.
func CompileFromText(schema []byte) (*Schema, error) { return compileText(schema, false) }

// ResolvePatterns compiles every pattern of s, as its first validation
// would, so that a precompiled schema compares with a compiled one.
func ResolvePatterns(s *Schema) { resolvePatterns(reflect.ValueOf(s), map[uintptr]bool{}) }

func resolvePatterns(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		if v.Type() == reflect.TypeFor[*lazyRegexp]() {
			(*lazyRegexp)(v.UnsafePointer()).get()
			return
		}
		resolvePatterns(v.Elem(), seen)
	case reflect.Struct:
		for i := range v.NumField() {
			resolvePatterns(v.Field(i), seen)
		}
	case reflect.Slice:
		for i := range v.Len() {
			resolvePatterns(v.Index(i), seen)
		}
	case reflect.Interface:
		if !v.IsNil() {
			resolvePatterns(v.Elem(), seen)
		}
	}
}
