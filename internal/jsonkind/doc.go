// Package jsonkind names the type of a JSON value the one way assay's
// messages say it: "an object", "an array", "a string", "a number",
// "a boolean", "null".
package jsonkind
