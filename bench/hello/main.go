// Command hello is the reference for start-up time: the smallest Go program
// that writes a line, built with the same toolchain as assay.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
