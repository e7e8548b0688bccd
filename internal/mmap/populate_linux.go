package mmap

import "syscall"

// populate pre-faults the mapping (Linux MAP_POPULATE).
const populate = syscall.MAP_POPULATE
