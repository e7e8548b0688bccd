package clienttest

// Every built-in kind is registered in assert's default registry, so that
// WithRegistry(assert.DefaultRegistry()) validates every kind the API
// accepts without the test importing the domain packages (or sandbox)
// itself.
import (
	_ "github.com/assaykit/assay/clitask"
	_ "github.com/assaykit/assay/fhir"
	_ "github.com/assaykit/assay/hl7"
	_ "github.com/assaykit/assay/portal"
	_ "github.com/assaykit/assay/sftp"
	_ "github.com/assaykit/assay/voice"
	_ "github.com/assaykit/assay/x12"
)
