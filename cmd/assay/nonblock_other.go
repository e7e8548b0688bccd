//go:build !unix

package main

const nonBlock = 0
