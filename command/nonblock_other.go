//go:build !unix

package command

const nonBlock = 0
