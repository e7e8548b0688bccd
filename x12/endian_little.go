//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package x12

// littleEndian is whether the machine stores the low byte first.
const littleEndian = true
