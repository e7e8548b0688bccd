package fhir

//go:generate go run ./internal/gen

// paramDef is one search parameter as the R4 definitions give it.
type paramDef struct {
	Base, Code string
	// Type is the R4 search parameter type: string, token, reference,
	// date, number, quantity, uri, composite or special.
	Type string
	// Expr is the FHIRPath expression, reduced to Base's branches.
	Expr    string
	Targets []string
	// Fold marks a token parameter whose elements are strings
	// (ContactPoint.value, string): R4 compares those ignoring case.
	Fold bool
}

// typeElements are the elements of a resource type that _summary and
// _elements keep: those marked summary, and the mandatory ones (min >=
// 1), both top-level, a choice element written name[x].
type typeElements struct {
	Type               string
	Summary, Mandatory []string
}
