// Package specjson reads the members of an assertion spec the way its
// kind's schema check read them, without reflection: a decoder runs once per
// criterion, and encoding/json's first decode of each struct type (working
// out its fields by reflection) was a tenth of a one-shot evaluation.
//
// A spec has passed its schema before it is decoded, so every member has
// the type the schema gives it. Where an object repeats a key, the last
// occurrence counts, as it did for the schema check (and as encoding/json
// has it); keys match exactly as written.
package specjson
