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
}
