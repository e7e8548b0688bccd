// Package jsonenc writes JSON the way every assay output does: without
// HTML escaping, so that evidence such as "<PID>" or "a & b" reads as
// written.
package jsonenc
