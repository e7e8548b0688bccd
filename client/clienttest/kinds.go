package clienttest

// Every built-in kind is registered in assert's default registry, so that
// WithRegistry(assert.DefaultRegistry()) validates every kind the API
// accepts without the test importing the domain packages (or sandbox)
// itself. The kinds come from sandbox, which imports every domain to load
// its snapshot folder (the layout test holds it to that): a new built-in
// kind is here with nothing listed.
import _ "github.com/assaykit/assay/sandbox"
